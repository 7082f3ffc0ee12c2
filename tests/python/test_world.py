# Worlds and cloths from Python: bit for bit the C API's and the CLI's runs, arrays that outlive
# their world, snapshots, setters, pins and grab, statistics and warnings, and every error an exception.
import gc
import glob
import json
import os
import subprocess

import numpy as np
import pytest

import weft
from conftest import SOURCE, scene_path

SCENES = sorted(os.path.basename(p) for p in glob.glob(os.path.join(SOURCE, "scenes", "*.json")))


def python_positions(path, frames, start=None):
    scene = weft.load_scene(path)
    with scene.create(backend="cpu") as w:
        if start is not None:
            start.extend(c.positions for c in w.cloths)
        w.step(frames)
        return [c.positions for c in w.cloths]


@pytest.mark.parametrize("name", SCENES)
def test_python_equals_the_c_api_bit_for_bit(name, tmp_path):
    """100 frames of each scene file stepped by `weft` and by the C program scene_positions.c
    (the same public API from C): every float equal."""
    out = tmp_path / "c.bin"
    subprocess.run([os.environ["WEFT_SCENE_POSITIONS"], scene_path(name), "100", str(out)], check=True)
    c = np.fromfile(out, dtype=np.float32)
    start = []
    end = python_positions(scene_path(name), 100, start)
    py = np.concatenate([p.reshape(-1) for p in end])
    assert c.size == py.size and c.size >= 2 * 3
    assert np.array_equal(c.view(np.uint32), py.view(np.uint32))  # bits, so -0.0 and NaN count too
    # The cloth moved (a torn cloth has more particles at the end: its first ones are the start's).
    assert max(np.abs(e[:len(s)] - s).max() for e, s in zip(end, start)) > 0.01


@pytest.mark.skipif("WEFT_CLI" not in os.environ, reason="the weft command is not built")
def test_python_equals_the_cli_obj(tmp_path):
    """`weft run --scene flag.json --frames 100 --backend cpu --obj DIR`: its last OBJ's vertices
    (printed %.6g) are Python's positions printed the same way, line for line."""
    subprocess.run([os.environ["WEFT_CLI"], "run", "--scene", scene_path("flag.json"), "--frames", "100",
                    "--backend", "cpu", "--obj", str(tmp_path), "--quiet"], check=True)
    with open(tmp_path / "frame_0100.obj") as f:
        cli = [line.strip() for line in f if line.startswith("v ")]
    p = python_positions(scene_path("flag.json"), 100)[0]
    ours = ["v %.6g %.6g %.6g" % (x, y, z) for x, y, z in p.astype(np.float64)]
    assert len(cli) == 64 * 40
    assert cli == ours


def test_arrays_outlive_the_world():
    w = weft.World(backend="cpu")
    c = w.add_cloth(cols=8, rows=8)
    w.step(5)
    p, v, n = c.positions, c.velocities, c.normals
    expect = (p.sum(dtype=np.float64), v.sum(dtype=np.float64), n.sum(dtype=np.float64))
    assert p.shape == v.shape == n.shape == (64, 3)
    assert p.dtype == v.dtype == n.dtype == np.float32
    assert p.flags.owndata and v.flags.owndata and n.flags.owndata  # numpy's memory, not the library's
    w.close()
    del w
    gc.collect()
    # allocate and scribble over freed memory, then use the arrays
    junk = [np.full(1 << 16, 7.0) for _ in range(32)]
    assert (p.sum(dtype=np.float64), v.sum(dtype=np.float64), n.sum(dtype=np.float64)) == expect
    assert len(junk) == 32
    with pytest.raises(weft.ClosedError, match="the world is closed"):
        c.positions
    with pytest.raises(weft.ClosedError):
        c.set_positions(p)


def test_read_into_a_caller_array():
    with weft.World(backend="cpu") as w:
        c = w.add_cloth(cols=6, rows=5)
        w.step(3)
        out = np.zeros((30, 3), dtype=np.float32)
        got = c.read_positions(out=out)
        assert got is out and np.array_equal(out, c.positions)
        c.read_velocities(out)
        assert np.array_equal(out, c.velocities)
        c.read_normals(out)
        assert np.allclose(np.linalg.norm(out, axis=1), 1.0, atol=1e-5)
        for bad in (np.zeros((30, 3), np.float64), np.zeros((29, 3), np.float32), np.zeros((3, 30), np.float32).T,
                    [[0.0] * 3] * 30):
            with pytest.raises(weft.ArgumentError, match="out: needs a writable C-contiguous float32 array"):
                c.read_positions(out=bad)
        ro = np.zeros((30, 3), np.float32)
        ro.setflags(write=False)
        with pytest.raises(weft.ArgumentError):
            c.read_positions(out=ro)


def test_set_positions_and_velocities():
    with weft.World(backend="cpu", gravity=(0, 0, 0)) as w:
        c = w.add_cloth(cols=4, rows=4)
        p = c.positions + np.float32(1.5)
        c.set_positions(p.astype(np.float64))  # any float dtype is converted
        assert np.array_equal(c.positions, p) and not c.velocities.any()
        v = np.full((16, 3), 0.25, np.float32)
        c.set_velocities(v)
        assert np.array_equal(c.velocities, v)
        p[3, 1] = np.nan
        with pytest.raises(weft.ArgumentError, match=r"3"):
            c.set_positions(p)
        with pytest.raises(weft.ArgumentError, match=r"positions: shape \(15, 3\) \(allowed: \(16, 3\)\)"):
            c.set_positions(p[:15])


def test_snapshot_restores_bit_for_bit():
    scene = weft.preset("xpbd")
    with scene.create(backend="cpu") as w:
        c = w.cloths[0]
        w.step(10)
        snap = w.snapshot()
        assert isinstance(snap, bytes) and len(snap) > c.particle_count * 24
        w.step(20)
        a, t = c.positions, w.time
        h = w.state_hash()
        w.restore(snap)
        assert w.state_hash() != h
        w.step(20)
        assert np.array_equal(c.positions.view(np.uint32), a.view(np.uint32)) and w.time == t
        assert w.state_hash() == h and isinstance(h, int) and 0 <= h < 2**64
        with pytest.raises(weft.ArgumentError):
            w.restore(snap[:-1])
        with pytest.raises(weft.ArgumentError):
            w.restore(b"\0" * len(snap))


def test_setters_and_pins_and_grab():
    with weft.World(backend="cpu") as w:
        c = w.add_cloth(cols=10, rows=10, orientation="vertical", pinMode="top-row")
        assert list(c.pinned) == list(range(10))
        c.set_pins("top-corners")
        assert list(c.pinned) == [0, 9]
        c.set_pins("list", [3, 42])
        assert list(c.pinned) == [3, 42] and c.is_pinned(42)
        c.pin(42, False)
        assert list(c.pinned) == [3]
        top = c.positions[3].copy()
        c.grab(55, (0.0, 2.0, 0.5))
        assert c.grabbed == 55
        w.step(5)
        assert np.array_equal(c.positions[3], top)  # pinned
        assert np.allclose(c.positions[55], (0.0, 2.0, 0.5), atol=1e-6)  # held at the target
        c.move_grab((0.5, 2.0, 0.5))
        w.step(1)
        assert np.allclose(c.positions[55], (0.5, 2.0, 0.5), atol=1e-6)
        c.release()
        assert c.grabbed == -1
        w.set_step(substeps=5)
        assert w.def_.step.substeps == 5 and w.def_.step.iterations == 1
        w.set_gravity((0, -1, 0))
        assert w.def_.gravity == (0.0, -1.0, 0.0)
        w.set_sphere(enabled=True, radius=0.25, center=(0, -3, 0))
        assert w.def_.sphere.radius == 0.25 and w.def_.sphere.enabled
        w.set_sphere_moving(True)
        assert w.def_.sphere.moving
        w.set_floor(enabled=True, height=-4.0)
        w.set_wind(mode="wave", strength=1.0)
        assert w.def_.wind.mode == "wave"
        w.set_contact(response="stop")
        assert w.def_.contact.response == "stop"
        c.set_material(stretchCompliance=1e-4)
        assert c.material.stretchCompliance == np.float32(1e-4) and c.material.mass == np.float32(0.1)
        w.step(2)
        with pytest.raises(weft.DefError, match=r"sphere.radius: -1 is out of range \[1e-06, 10000\]") as e:
            w.set_sphere(radius=-1)
        assert e.value.field == "sphere.radius" and w.def_.sphere.radius == 0.25  # unchanged
        with pytest.raises(weft.DefError, match="material.relaxation"):
            c.set_material(relaxation=1.0)
        with pytest.raises(weft.DefError, match="step.substeps"):
            w.set_step(substeps=0)
        with pytest.raises(weft.ArgumentError):
            c.grab(100, (0, 0, 0))
        with pytest.raises(weft.ArgumentError):
            c.set_pins("list", [100])
        with pytest.raises(weft.ArgumentError, match="pinMode: 'middle'"):
            c.set_pins("middle")


def test_count_intersections():
    """Two sheets: apart, nothing; one turned upright through the other, edges through triangles
    both ways (in "cloths" where the world has contact between cloths, else in "clothsApart": a
    crossing the scene asks for); a particle put inside the sphere, one collider count."""
    for between in (True, False):
        contact = {"enabled": between, "betweenCloths": between}
        with weft.World(backend="cpu", sphere={"enabled": True, "radius": 0.3, "center": (5, 0, 0)}, selfCollision=contact) as w:
            a = w.add_cloth(cols=8, rows=8, width=1, height=1, orientation="horizontal", origin=(0, 1, 0), pinMode="none")
            b = w.add_cloth(cols=6, rows=6, width=0.6, height=0.6, orientation="horizontal", origin=(0, 3, 0), pinMode="none")
            assert w.count_intersections() == {"self": 0, "cloths": 0, "colliders": 0, "clothsApart": 0}
            p = b.positions
            b.set_positions(np.stack([p[:, 0] + 0.031, 1.0 + (p[:, 2] - p[:, 2].mean()), np.full(len(p), 0.013)], axis=1))
            ix = w.count_intersections()
            counted, apart = (ix["cloths"], ix["clothsApart"]) if between else (ix["clothsApart"], ix["cloths"])
            assert ix["self"] == 0 and counted > 0 and apart == 0 and ix["colliders"] == 0, ix
            q = a.positions
            q[0] = (5, 0, 0)
            a.set_positions(q)
            assert w.count_intersections()["colliders"] >= 1


def test_stats_info_and_warnings():
    with weft.World(backend="cpu") as w:
        c = w.add_cloth(cols=16, rows=8)
        w.step(1)
        info = c.info
        assert (info["cols"], info["rows"], info["particleCount"]) == (16, 8, 128)
        assert info["triangleCount"] == 2 * 15 * 7 and c.triangles.shape == (210, 3) and c.uvs.shape == (128, 2)
        s = c.stats()
        assert s["time"] == pytest.approx(1 / 60) and s["kineticEnergy"] > 0 and len(s["momentum"]) == 3
        # no sphere, no floor: "no collider" is inf, as in weft run's and weft sweep's CSV files
        assert s["sphereClearance"] == float("inf") and s["floorClearance"] == float("inf")
        w.set_floor(enabled=True, height=-5)
        w.step(1)
        assert 4 < c.stats()["floorClearance"] < 5.1
        assert w.warnings == {"nonFinite": 0, "unstable": 0, "unstableInContact": 0, "timeStepTooLarge": 0, "tunnelled": 0,
                              "validationMessages": 0}
        assert w.profile["dispatches"] == 0 and len(w.profile["stageMs"]) == 6
    # explicit springs far past the stability estimate: the frames are counted and logged
    with weft.World(backend="cpu", step={"solver": "springs", "substeps": 1}) as w:
        c = w.add_cloth(cols=8, rows=8, jitter=0.5, material={"stiffness": 1e6, "mass": 0.001})
        start = c.positions
        w.step(4)
        assert w.warnings["timeStepTooLarge"] == 4 and w.warnings["unstable"] == 4
        assert np.array_equal(c.positions, start)  # every frame discarded: the start state is kept
        assert sum("discarded" in m for level, m in w.messages if level == "warning") == 4


def test_scenes_and_presets():
    assert set(weft.presets()) == {"xpbd", "compute-cloth", "spring-mesh"}
    s = weft.load_scene(scene_path("flag.json"))
    assert s.frames == 300 and len(s.cloths) == 1 and s.world.wind.mode == "wave"
    assert list(s.cloths[0].pinIndices) == list(range(0, 2560, 64))  # the scene's list, copied
    p = weft.preset("compute-cloth")
    assert p.world.step.solver == "springs" and p.cloths[0].cols == 60
    text = json.dumps({"preset": "xpbd", "cloths": [{"cols": 4, "rows": 4}, {"cols": 5, "rows": 3}]})
    with weft.parse_scene(text).create(backend="cpu") as w:
        assert [c.particle_count for c in w.cloths] == [16, 15]
    assert "cpu" in weft.backends()
    for d in weft.devices():
        assert isinstance(d["name"], str) and isinstance(d["hardware"], bool)


def test_errors_are_exceptions(tmp_path):
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps({"world": {"step": {"substeps": 0}}}))
    with pytest.raises(weft.SceneError, match=r"bad.json: world.step.substeps: 0 is out of range \[1, 4096\]"):
        weft.load_scene(bad)
    bad.write_text("{ not json")
    with pytest.raises(weft.SceneError, match="bad.json"):
        weft.load_scene(bad)
    with pytest.raises(weft.SceneError, match="nothing.json"):
        weft.load_scene(tmp_path / "nothing.json")
    with pytest.raises(weft.ArgumentError, match="preset: 'silk' is not one of xpbd"):
        weft.preset("silk")
    with pytest.raises(weft.DefError, match=r"step.substeps: 0 is out of range \[1, 4096\]") as e:
        weft.World(backend="cpu", step={"substeps": 0})
    assert e.value.field == "step.substeps" and isinstance(e.value, ValueError)
    # a backend that cannot be had: no such device
    with pytest.raises(weft.BackendUnavailableError):
        weft.World(backend="vulkan", deviceName="no-such-gpu-anywhere")
    with weft.World(backend="cpu") as w:
        with pytest.raises(weft.DefError, match=r"cols: 0 is out of range \[1, 8192\]"):
            w.add_cloth(cols=0)
        with pytest.raises(weft.DefError, match=r"cols x rows"):
            w.add_cloth(cols=1, rows=1)
        c = w.add_cloth(cols=4, rows=4)
        c.destroy()
        with pytest.raises(weft.ArgumentError):  # a stale id, refused by its generation
            c.positions
        with pytest.raises(weft.ArgumentError, match="frames"):
            w.step(-1)
    with pytest.raises(weft.ClosedError):
        w.step()


def test_defs_as_objects_or_dicts():
    wd = weft.WorldDef(backend="cpu", step={"substeps": 4})
    with weft.World(wd, gravity=(0, -1, 0)) as a, weft.World({"backend": "cpu", "step": {"substeps": 4}},
                                                              gravity=(0, -1, 0)) as b:
        assert a.def_ == b.def_ and a.def_.step.substeps == 4 and wd.gravity == (0.0, -9.800000190734863, 0.0)
        ca, cb = a.add_cloth(weft.ClothDef(cols=5), rows=3), b.add_cloth({"cols": 5}, rows=3)
        a.step(3)
        b.step(3)
        assert np.array_equal(ca.positions, cb.positions) and ca.particle_count == 15
    with pytest.raises(weft.ArgumentError, match="def: a WorldDef or a dict, not ClothDef"):
        weft.World(weft.ClothDef())


def grid_mesh(cloth, cols, rows):
    """The grid cloth's rest shape as a quad mesh (local positions, rows of quads)."""
    faces = [[r * cols + c, (r + 1) * cols + c, (r + 1) * cols + c + 1, r * cols + c + 1]
             for r in range(rows - 1) for c in range(cols - 1)]
    return weft.Mesh(cloth.read_local_positions(), faces)


def test_mesh_cloths_from_python_and_from_obj():
    cols, rows = 9, 7
    grid = dict(cols=cols, rows=rows, width=0.8, height=0.6, orientation="vertical", pinMode="top-corners")
    with weft.World(backend="cpu") as w:
        g = w.add_cloth(**grid)
        mesh = grid_mesh(g, cols, rows)
        m = w.add_cloth(mesh=mesh, pinMode="top-corners")
        # the same mesh as OBJ text through the library's reader
        obj = "".join("v %.9g %.9g %.9g\n" % tuple(v) for v in mesh.positions.astype(np.float64))
        obj += "".join("f %s\n" % " ".join(str(i + 1) for i in f) for f in mesh.faces)
        read = weft.parse_obj(obj, "grid.obj")
        assert np.array_equal(read.positions, mesh.positions) and read.faces == mesh.faces
        assert not read.uvs.any()  # the reader's uvs: zeros without vt
        o = w.add_cloth(mesh=read, pinMode="top-corners")
        assert m.info["mesh"] and not g.info["mesh"]
        assert m.info["constraintCount"] == g.info["constraintCount"] == o.info["constraintCount"]
        assert list(m.pinned) == [0, cols - 1]
        w.step(60)
        gp, mp, op = g.positions, m.positions, o.positions
        assert np.array_equal(mp.view(np.uint32), op.view(np.uint32))  # Python's mesh = the OBJ reader's
        assert -gp[:, 1].min() > 0.05  # it sagged
        assert np.abs(gp - mp).max() < 1e-3  # the grid's moves, up to the colouring's order (as test_mesh.c)
        assert m.edges.shape == (m.info["edgeCount"], 2) and m.corner_uvs.shape == (m.info["triangleCount"], 3, 2)
        # a bad mesh: the library's message, naming the array and the index
        with pytest.raises(weft.DefError, match=r"mesh.indices\[2\]: 9 is out of range \[0, 2\]") as e:
            w.add_cloth(mesh=weft.Mesh([[0, 0, 0], [1, 0, 0], [1, 0, 1]], [[0, 1, 9]]))
        assert e.value.field == "mesh.indices"
        with pytest.raises(weft.DefError, match="mesh face 0: vertex 1 appears twice"):
            w.add_cloth(mesh=weft.Mesh([[0, 0, 0], [1, 0, 0], [1, 0, 1]], [[0, 1, 1]]))
    with pytest.raises(weft.DefError, match="mesh: a Mesh or None"):
        weft.ClothDef(mesh=[[0, 1, 2]])


def test_obj_files():
    skirt = weft.load_obj(scene_path("meshes/skirt.obj"))
    assert skirt.positions.shape[0] > 100 and skirt.corner_uvs is not None
    assert skirt.corner_uvs.shape[0] == skirt.indices.size
    with pytest.raises(weft.SceneError, match=r"bad.obj:2: face corner 2: vertex index 2 is out of range \[1, 1\]"):
        weft.parse_obj("v 0 0 0\nf 1 2 3\n", "bad.obj")
    with pytest.raises(weft.SceneError, match="nothing.obj"):
        weft.load_obj("nothing.obj")
    s = weft.load_scene(scene_path("skirt.json"))
    assert s.cloths[0].mesh.positions.shape == skirt.positions.shape  # the scene's mesh, copied
    assert not np.array_equal(s.cloths[0].mesh.positions, skirt.positions)  # moved by its transform


def test_colliders():
    with weft.World(backend="cpu", floor={"enabled": True, "height": 0}) as w:
        box = w.add_collider(type="box", position=(0, 0.7, 0), halfExtents=(0.4, 0.04, 0.3))
        ball = w.add_collider(type="sphere", position=(0.1, 0.82, 0), radius=0.08)
        c = w.add_cloth(cols=24, rows=24, width=1.4, height=1.4, origin=(0, 1.0, 0))
        assert len(w.colliders) == 2 and box.def_.type == "box" and ball.def_.radius == np.float32(0.08)
        w.step(90)
        p = c.positions
        on_top = (np.abs(p[:, 0]) < 0.3) & (np.abs(p[:, 2]) < 0.2)
        assert on_top.sum() > 20 and p[on_top, 1].min() > 0.74 - 1e-3  # held on the table's top (0.74)
        assert p[:, 1].min() > -1e-3  # and the floor holds the rest
        box.set_transform((0, 0.5, 0), (0, 0.2588190, 0, 0.9659258))  # 30 degrees about y
        w.step(1)
        (pos, rot) = box.transform
        assert np.allclose(pos, (0, 0.5, 0), atol=1e-6) and np.allclose(rot, (0, 0.258819, 0, 0.965926), atol=1e-6)
        with pytest.raises(weft.DefError, match=r"collider.radius: 0 is out of range \(0, 10000\]") as e:
            w.add_collider(type="sphere", radius=0)
        assert e.value.field == "radius"
        with pytest.raises(weft.DefError, match="collider.halfExtents.y") as e:
            w.add_collider(type="box", halfExtents=(1, -1, 1))
        assert e.value.field == "halfExtents"
        ball.destroy()
        assert len(w.colliders) == 1
        with pytest.raises(weft.ArgumentError):
            ball.set_transform((0, 0, 0))
    s = weft.load_scene(scene_path("tablecloth.json"))
    assert [d.type for d in s.colliders] == ["box", "sphere"]
