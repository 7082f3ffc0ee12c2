# A world of many small cloths, the batched simulators' cloth benchmark (issue 30, item 4): N cloths
# of C x C particles, 5 ms a step, 8 substeps x 1 iteration, self-collision on within each cloth
# (betweenCloths off), each dropped tilted onto the floor so that it folds onto itself.
# Usage: python3 bench/gpu/many_small.py N OUT.json [C]
# Then: weft bench --scene OUT.json --backend vulkan --frames 100 --warmup 20 (cloth-steps/s), or
# bench/gpu/many_small.sh on the H200.
import json
import sys

n, out = int(sys.argv[1]), sys.argv[2]
cols = int(sys.argv[3]) if len(sys.argv) > 3 else 30
side = int(n**0.5 + 0.999)
size, gap = 0.3, 0.45  # a 30 cm cloth (1 cm edges at 30 x 30), 15 cm between neighbours
cloths = [
    {
        "cols": cols,
        "rows": cols,
        "width": size,
        "height": size,
        "orientation": "horizontal",
        "origin": [gap * (i % side), 0.15 + 0.05 * (i % 3), gap * (i // side)],
        "pinMode": "none",
        "material": {"mass": 0.05, "stretchCompliance": 1e-7, "shearCompliance": 1e-6, "bendCompliance": 1e-2, "damping": 0.01},
    }
    for i in range(n)
]
scene = {
    "description": f"{n} cloths of {cols} x {cols} dropped onto the floor, self-collision within each (bench/gpu/many_small.py)",
    "frames": 200,
    "world": {
        "step": {"solver": "xpbd", "timeStep": 0.005, "substeps": 8, "iterations": 1},
        "sphere": {"enabled": False},
        "floor": {"enabled": True, "height": 0.0},
        "contact": {"thickness": 0.002, "friction": 0.5},
        # thickness 0: half the mean edge (5.2 mm at 30 x 30), the thinnest that holds a fold
        "selfCollision": {"enabled": True, "betweenCloths": False, "thickness": 0.0},
    },
    "cloths": cloths,
}
with open(out, "w") as f:
    json.dump(scene, f)
