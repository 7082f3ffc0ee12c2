# Issue 31, item 3: a weft.Mesh whose uvs or cornerUVs have too few rows (1 row for 3 M vertices)
# was accepted and read past its end (a segfault; ASan in mesh.c). Python checks the shapes, and the
# library refuses a count that does not match (wfMeshDef.uvCount / cornerUVCount), so a def built
# around Python's check is refused too. Each case runs in a fresh interpreter with the GC on and
# collecting between the steps, so a crash is a failed test, not a dead pytest.
import os
import subprocess
import sys
import textwrap

PRELUDE = textwrap.dedent("""
    import gc
    gc.enable()
    import numpy as np
    import weft
    n = 3000000 if SIZE == "large" else 9
    side = int(round(n ** 0.5)) if SIZE == "large" else 3
    n = side * side
    x, z = np.meshgrid(np.arange(side, dtype=np.float32) / side, np.arange(side, dtype=np.float32) / side)
    positions = np.stack([x.ravel(), np.zeros(n, np.float32), z.ravel()], axis=1)
    i = np.arange(side - 1)
    a = (i[None, :] + side * i[:, None]).ravel()
    faces = np.concatenate([np.stack([a, a + side, a + 1], 1), np.stack([a + 1, a + side, a + side + 1], 1)])
    corners = 3 * faces.shape[0]
    world = weft.World(backend="cpu")
    gc.collect()
""")


def run(body, size="small"):
    code = "SIZE = %r\n" % size + PRELUDE + textwrap.dedent(body)
    p = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=dict(os.environ), timeout=240)
    assert p.returncode == 0, "exit %d (a negative one is a signal)\n%s%s" % (p.returncode, p.stdout, p.stderr)
    return p.stdout


def test_short_uvs_refused_by_python():
    out = run("""
        for rows in (1, n - 1, n + 1):
            try:
                weft.Mesh(positions, faces, uvs=np.zeros((rows, 2), np.float32))
            except weft.DefError as e:
                print(e)
                assert e.field == "mesh.uvs"
            else:
                raise SystemExit("uvs of %d rows for %d vertices accepted" % (rows, n))
            gc.collect()
        try:
            weft.Mesh(positions, faces, cornerUVs=np.zeros((1, 2), np.float32))
        except weft.DefError as e:
            print(e)
        else:
            raise SystemExit("cornerUVs of 1 row accepted")
        m = weft.Mesh(positions, faces, uvs=np.zeros((n, 2)), cornerUVs=np.zeros((corners, 2)))
        gc.collect()
        world.add_cloth(mesh=m)
        print("good mesh ok")
    """)
    assert "mesh.uvs: shape (1, 2) for 9 vertices (allowed: (9, 2))" in out
    assert "mesh.cornerUVs: shape (1, 2) for 24 face corners (allowed: (24, 2))" in out
    assert "good mesh ok" in out


def test_the_library_refuses_a_count_that_does_not_match():
    out = run("""
        for field, count in (("uvCount", 1), ("cornerUVCount", 1), ("uvCount", 0)):
            m = weft.Mesh(positions, faces, uvs=np.zeros((n, 2)), cornerUVs=np.zeros((corners, 2)))
            setattr(m._c, field, count)  # a def built by hand around Python's check
            gc.collect()
            try:
                world.add_cloth(mesh=m)
            except weft.DefError as e:
                print(e)
            else:
                raise SystemExit("%s %d accepted" % (field, count))
            gc.collect()
    """)
    assert "mesh.uvCount: 1 rows of uvs for 9 vertices (allowed: vertexCount, 9, or uvs NULL)" in out
    assert "mesh.cornerUVCount: 1 rows of cornerUVs for 24 face corners" in out
    assert "mesh.uvCount: 0 rows of uvs for 9 vertices" in out


def test_one_uv_row_for_three_million_vertices():
    out = run("""
        try:
            weft.Mesh(positions, faces, uvs=np.zeros((1, 2), np.float32))
        except weft.DefError as e:
            print(e)
        m = weft.Mesh(positions, faces)
        m._c.uvs = weft._ffi.ffi.cast("float *", weft._ffi.ffi.from_buffer(np.zeros(2, np.float32)))
        m._c.uvCount = 1
        gc.collect()
        try:
            world.add_cloth(mesh=m)
        except weft.DefError as e:
            print(e)
    """, size="large")
    assert "mesh.uvs: shape (1, 2) for 2999824 vertices" in out
    assert "mesh.uvCount: 1 rows of uvs for 2999824 vertices" in out
