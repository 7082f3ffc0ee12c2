"""What the Python binding adds to a call: medians after warm-up, in microseconds.

    PYTHONPATH=build/python python3 bench/python/bench_binding.py

Rows: a frame of a 2-particle cloth through cffi alone (lib.wfWorld_Step) and through World.step
(the wrapper's lock and checks on top); reading a 60x60 cloth's positions into a new array and into
a caller's one (43 KB; the floor is a memcpy); the live setters against their C calls (issue 29.4:
set_wind read the whole world def, 38-75 us); a frame of the xpbd preset (compare `weft bench
--preset xpbd --grid 60x60 --substeps 10 --iterations 1 --threads 1`, the same frame from C).
"""
import statistics
import time

import numpy as np

import weft
from weft._ffi import ffi, lib


def median_us(fn, repeat, warmup=50):
    for _ in range(warmup):
        fn()
    samples = []
    for _ in range(repeat):
        t0 = time.perf_counter_ns()
        fn()
        samples.append(time.perf_counter_ns() - t0)
    return statistics.median(samples) / 1e3


def main():
    with weft.World(backend="cpu", threads=1, step={"substeps": 1}) as w:
        w.add_cloth(cols=2, rows=1)
        ptr = w._ptr
        raw = median_us(lambda: lib.wfWorld_Step(ptr), 20000)
        wrapped = median_us(lambda: w.step(1), 20000)
        c2 = w.cloths[0]
        wind = ffi.new("wfWindDef *", lib.wfWorld_GetDef(ptr).wind)
        setters = [
            ("lib.wfWorld_SetGravity through cffi", lambda: lib.wfWorld_SetGravity(ptr, (0.0, -9.81, 0.0))),
            ("World.set_gravity", lambda: w.set_gravity((0.0, -9.81, 0.0))),
            ("lib.wfWorld_SetWind through cffi", lambda: lib.wfWorld_SetWind(ptr, wind)),
            ("World.set_wind(strength=2)", lambda: w.set_wind(strength=2.0)),
            ("World.set_step(substeps=1)", lambda: w.set_step(substeps=1)),
            ("Cloth.set_material(bendCompliance=1e-4)", lambda: c2.set_material(bendCompliance=1e-4)),
        ]
        setter_us = [(name, median_us(fn, 20000)) for name, fn in setters]
    scene = weft.preset("xpbd")
    scene.cloths[0].update(cols=60, rows=60)
    with scene.create(backend="cpu", threads=1, step={"substeps": 10, "iterations": 1}) as w:
        c = w.cloths[0]
        out = np.empty((c.particle_count, 3), np.float32)
        new = median_us(lambda: c.positions, 20000)
        into = median_us(lambda: c.read_positions(out), 20000)
        buf = ffi.from_buffer("wfVec3[]", out)
        cid, n = c._id[0], c.particle_count
        raw_read = median_us(lambda: lib.wfCloth_ReadPositions(cid, buf, n), 20000)
        copy = median_us(lambda: np.copyto(out, out), 20000)
        frame = median_us(lambda: w.step(1), 200, warmup=20)
    print("| case | median µs |")
    print("| --- | --- |")
    print("| 2-particle frame, lib.wfWorld_Step through cffi | %.2f |" % raw)
    print("| same through World.step(1) | %.2f |" % wrapped)
    print("| 60x60 positions into a new array | %.2f |" % new)
    print("| same into a caller's array (read_positions(out)) | %.2f |" % into)
    print("| same, lib.wfCloth_ReadPositions alone (world = origin + local, in double) | %.2f |" % raw_read)
    print("| floor: numpy copy of the same 43 KB | %.2f |" % copy)
    for name, us in setter_us:
        print("| setter: %s | %.2f |" % (name, us))
    print("| xpbd preset 60x60, 10 substeps x 1, 1 thread: World.step(1) | %.1f |" % frame)


if __name__ == "__main__":
    main()
