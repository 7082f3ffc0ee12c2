#!/usr/bin/env python3
"""Writes a skirt as OBJ on stdout: a flared open cone, AROUND x RINGS vertices (default 48 x 20,
scenes/meshes/skirt.obj), triangles, with texture coordinates. The seam column is written twice
(u = 0 and u = 4 at the same positions), as modellers export a UV seam; weft welds it for the
physics and keeps both UVs per corner.

    python3 scenes/meshes/make_skirt.py > scenes/meshes/skirt.obj
    python3 scenes/meshes/make_skirt.py 100 100 > skirt10k.obj     # the garment benchmark's 10 000
"""
import math
import sys

AROUND = int(sys.argv[1]) if len(sys.argv) > 1 else 48
RINGS = int(sys.argv[2]) if len(sys.argv) > 2 else 20
TOP, BOTTOM, LENGTH = 0.16, 0.36, 0.55

print("# weft: a skirt, made by scenes/meshes/make_skirt.py")
for r in range(RINGS):
    t = r / (RINGS - 1)
    radius = TOP + (BOTTOM - TOP) * t
    for a in range(AROUND + 1):  # a = AROUND repeats a = 0 (the seam)
        angle = 2.0 * math.pi * (a % AROUND) / AROUND
        print(f"v {radius * math.cos(angle):.6f} {-LENGTH * t:.6f} {radius * math.sin(angle):.6f}")
for r in range(RINGS):
    for a in range(AROUND + 1):
        print(f"vt {4.0 * a / AROUND:.6f} {2.0 * r / (RINGS - 1):.6f}")
row = AROUND + 1
for r in range(RINGS - 1):
    for a in range(AROUND):
        i0, i1 = r * row + a + 1, r * row + a + 2
        j0, j1 = i0 + row, i1 + row
        # Counter-clockwise seen from outside.
        print(f"f {i0}/{i0} {i1}/{i1} {j1}/{j1}")
        print(f"f {i0}/{i0} {j1}/{j1} {j0}/{j0}")
