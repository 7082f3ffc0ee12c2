#!/usr/bin/env python3
"""The garment benchmark (docs/PERFORMANCE.md): writes into FOLDER a 10 000-vertex skirt mesh
(100 x 100, scenes/meshes/make_skirt.py), a scene of it on a body of 8 capsules, and the same
scene with a 100 x 100 grid cloth instead, so that the mesh path and the grid path can be timed
side by side per constraint:

    python3 bench/garment/make_scenes.py build/garment
    build/apps/cli/weft bench --scene build/garment/mesh.json --threads 1
    build/apps/cli/weft bench --scene build/garment/grid.json --threads 1
"""
import json
import os
import subprocess
import sys

folder = sys.argv[1] if len(sys.argv) > 1 else "build/garment"
os.makedirs(folder, exist_ok=True)
here = os.path.dirname(os.path.abspath(__file__))
with open(os.path.join(folder, "skirt10k.obj"), "w") as out:
    subprocess.run([sys.executable, os.path.join(here, "..", "..", "scenes", "meshes", "make_skirt.py"), "100", "100"],
                   stdout=out, check=True)

# A body of 8 capsules: two thighs, two shins, hips, torso, two arms (rotate z 90: axis vertical).
def capsule(x, y, z, r0, r1, half, rotate=(0, 0, 90)):
    return {"type": "capsule", "position": [x, y, z], "rotate": list(rotate), "radius": r0, "radius1": r1, "halfLength": half}

body = [
    capsule(0.09, 0.62, 0.0, 0.06, 0.08, 0.17), capsule(-0.09, 0.62, 0.0, 0.06, 0.08, 0.17),
    capsule(0.09, 0.25, 0.0, 0.04, 0.055, 0.17), capsule(-0.09, 0.25, 0.0, 0.04, 0.055, 0.17),
    capsule(0.0, 0.85, 0.0, 0.15, 0.15, 0.08, (0, 0, 0)), capsule(0.0, 1.2, 0.0, 0.16, 0.13, 0.2),
    capsule(0.25, 1.15, 0.0, 0.035, 0.045, 0.22), capsule(-0.25, 1.15, 0.0, 0.035, 0.045, 0.22),
]
world = {"backend": "cpu", "step": {"solver": "xpbd", "timeStep": 0.0166667, "substeps": 10, "iterations": 1},
         "sphere": {"enabled": False}, "floor": {"enabled": True, "height": 0}, "wind": {"mode": "none"}}
material = {"mass": 0.0005, "stretchCompliance": 1e-8, "shearCompliance": 1e-6, "bendCompliance": 0.01, "damping": 0.002}
mesh = {"description": "garment benchmark: a 10 000-vertex skirt mesh on 8 capsules", "frames": 120, "world": world,
        "colliders": body, "cloth": {"mesh": "skirt10k.obj", "transform": {"translate": [0, 1.0, 0]}, "pinMode": "top-row",
                                     "material": material}}
grid = {"description": "garment benchmark: a 100 x 100 grid on the same 8 capsules", "frames": 120, "world": world,
        "colliders": body, "cloth": {"cols": 100, "rows": 100, "width": 1.6, "height": 0.55, "orientation": "vertical",
                                     "origin": [0, 0.72, -0.2], "pinMode": "top-row", "material": material}}
for name, scene in (("mesh.json", mesh), ("grid.json", grid)):
    with open(os.path.join(folder, name), "w") as out:
        json.dump(scene, out, indent=1)
print(f"wrote {folder}/skirt10k.obj, mesh.json, grid.json")
