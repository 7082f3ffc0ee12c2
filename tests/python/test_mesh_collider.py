"""Mesh colliders from Python: a weft.Mesh body draped by a sheet with no intersection, its vertices
and triangles read back, a new shape handed over each frame (a skinned body), a bad shape refused
with the library's message and nothing changed."""
import math

import numpy as np
import pytest

import weft


def sphere(radius, seg=16, rings=8):
    v = [(0.0, radius, 0.0), (0.0, -radius, 0.0)]
    for i in range(1, rings):
        th = math.pi * i / rings
        for j in range(seg):
            ph = 2 * math.pi * j / seg
            v.append((radius * math.sin(th) * math.cos(ph), radius * math.cos(th), radius * math.sin(th) * math.sin(ph)))
    f = []
    base = 2 + (rings - 2) * seg
    for j in range(seg):
        f.append((0, 2 + (j + 1) % seg, 2 + j))
        f.append((1, base + j, base + (j + 1) % seg))
    for i in range(rings - 2):
        for j in range(seg):
            a, c = 2 + i * seg + j, 2 + i * seg + (j + 1) % seg
            f.append((a, c, c + seg))
            f.append((a, c + seg, a + seg))
    return np.array(v, dtype=np.float32), f


def test_mesh_collider_drape_and_skin():
    v, f = sphere(0.3)
    with weft.World(backend="cpu") as w:
        body = w.add_collider(type="mesh", mesh=weft.Mesh(v, f), position=(0, 0.5, 0))
        assert body.vertices.shape == (len(v), 3) and body.triangles.shape == (len(f), 3)
        cloth = w.add_cloth(cols=20, rows=20, width=1.0, height=1.0, orientation="horizontal", origin=(0, 1.0, 0), pinMode="none")
        for _ in range(60):
            w.step()
        assert w.count_intersections()["colliders"] == 0
        # The pole is at 0.8 m: the particles nearest the middle rest on it plus the thickness (1 cm).
        top = cloth.positions[:, 1].max()
        assert abs(top - 0.81) < 0.01, top
        # A skinned body: grown by a third over 30 frames, a new shape each frame.
        for k in range(1, 31):
            body.set_vertices(v * (1.0 + k / 90.0))
            w.step()
            assert w.count_intersections()["colliders"] == 0
        assert np.allclose(body.vertices, v * (4.0 / 3.0), atol=1e-6)
        assert cloth.positions[:, 1].max() > 0.9
        with pytest.raises(weft.WeftError, match="count 3, the mesh has 114 vertices"):
            body.set_vertices(v[:3])
        bad = v.copy()
        bad[7, 1] = np.nan
        with pytest.raises(weft.WeftError, match=r"positions\[7\]"):
            body.set_vertices(bad)
        w.step()
        assert np.allclose(body.vertices, v * (4.0 / 3.0), atol=1e-6)  # the refused shapes changed nothing
