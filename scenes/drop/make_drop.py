#!/usr/bin/env python3
"""Writes the layered drop test: LAYERS square sheets of N x N particles (one OBJ, placed LAYERS
times), stacked flat above a cylinder standing on the floor and dropped onto it, every sheet in contact with
itself and every other (betweenCloths), as in the Offset Geometric Contact paper's drop of 50
layers (about 250 000 vertices). Each layer is turned a little about the vertical and shifted, so
the folds do not line up.

    python3 scenes/drop/make_drop.py scenes/drop                    # drop.json: 50 x 70 x 70 = 245 000
    python3 scenes/drop/make_drop.py DIR --layers 6 --grid 16 --frames 90    # a test's size

The sheets are 1.2 m wide; the cylinder (a triangle mesh) is 0.6 m across and 0.5 m tall on the floor (y = 0). Layer k starts at
0.56 + 0.03 k m: 30 mm above the one below, beyond the self-contact distance of 18 mm (half an
edge length of thickness, so a particle cannot pass between the particles of another layer).
"""
import argparse
import json
import math
import os

parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
parser.add_argument("folder", help="where drop.json and its sheet OBJ go")
parser.add_argument("--layers", type=int, default=50)
parser.add_argument("--grid", type=int, default=70, help="particles along each side of a sheet")
parser.add_argument("--frames", type=int, default=600)
args = parser.parse_args()

WIDTH = 1.2
GAP = 0.03
N = args.grid

# The sheet: N x N vertices in the x-z plane, centred on the origin; each quad split along the
# diagonal that alternates like a grid cloth's, so no direction is favoured.
sheet = f"sheet-{N}.obj"
with open(os.path.join(args.folder, sheet), "w") as f:
    f.write(f"# weft: a {N} x {N} square sheet, {WIDTH} m wide, made by scenes/drop/make_drop.py\n")
    for r in range(N):
        for c in range(N):
            f.write(f"v {WIDTH * (c / (N - 1) - 0.5):.5f} 0 {WIDTH * (r / (N - 1) - 0.5):.5f}\n")
    for r in range(N - 1):
        for c in range(N - 1):
            a, b, d, e = r * N + c + 1, r * N + c + 2, (r + 1) * N + c + 1, (r + 1) * N + c + 2
            quads = [(a, d, e), (a, e, b)] if (r + c) % 2 == 0 else [(a, d, b), (b, d, e)]
            for t in quads:
                f.write("f %d %d %d\n" % t)

# The body: a closed cylinder standing on the floor, radius 0.3 m, 0.5 m tall, as a triangle mesh
# (so the cloth meets its rim edge against edge, as for any mesh body).
SEGMENTS = 64
with open(os.path.join(args.folder, "cylinder.obj"), "w") as f:
    f.write(f"# weft: a closed cylinder of {SEGMENTS} segments, radius 0.3 m, y from 0 to 0.5, made by scenes/drop/make_drop.py\n")
    for y in (0.0, 0.5):
        for k in range(SEGMENTS):
            a = 2.0 * math.pi * k / SEGMENTS
            f.write(f"v {0.3 * math.cos(a):.6f} {y} {0.3 * math.sin(a):.6f}\n")
    f.write("v 0 0 0\nv 0 0.5 0\n")
    for k in range(SEGMENTS):
        a, b = k + 1, (k + 1) % SEGMENTS + 1
        f.write(f"f {a} {b} {b + SEGMENTS}\nf {a} {b + SEGMENTS} {a + SEGMENTS}\n")  # the side, facing out
        f.write(f"f {2 * SEGMENTS + 1} {b} {a}\nf {2 * SEGMENTS + 2} {a + SEGMENTS} {b + SEGMENTS}\n")  # the caps

cloths = []
for k in range(args.layers):
    # A fixed turn and shift per layer (steps of the golden angle), the same on every run.
    turn = (k * 137.508) % 30.0 - 15.0
    sx, sz = 0.04 * math.cos(k * 2.399963), 0.04 * math.sin(k * 2.399963)
    cloths.append({
        "mesh": sheet,
        "transform": {"rotate": [0, round(turn, 3), 0], "translate": [round(sx, 5), round(0.56 + GAP * k, 5), round(sz, 5)]},
        "pinMode": "none",
        "material": {"mass": 0.002, "stretchCompliance": 1e-8, "shearCompliance": 1e-6, "bendCompliance": 0.1, "damping": 0.002},
    })

scene = {
    "description": f"{args.layers} layers of a {N}x{N} square sheet ({args.layers * N * N} particles) dropped flat onto a cylinder standing on the floor, every sheet in contact with itself and every other (scenes/drop/make_drop.py).",
    "frames": args.frames,
    "world": {
        "step": {"solver": "xpbd", "timeStep": 0.0166667, "substeps": 10, "iterations": 2},
        "sphere": {"enabled": False},
        "floor": {"enabled": True, "height": 0},
        "contact": {"response": "friction", "thickness": 0.005, "friction": 0.5},
        "selfCollision": {"enabled": True, "betweenCloths": True, "thickness": 0.009, "friction": 0.3, "exclusion": 1.5},
    },
    "colliders": [{"type": "mesh", "mesh": "cylinder.obj"}],
    "cloths": cloths,
}
with open(os.path.join(args.folder, "drop.json"), "w") as f:
    json.dump(scene, f, indent=1)
    f.write("\n")
