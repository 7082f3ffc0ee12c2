#!/usr/bin/env python3
"""The self-collision benchmark (docs/PERFORMANCE.md): writes into FOLDER scenes/heap.json's sheet
(dropped across a low bar onto the floor, where it folds onto itself) at 60 x 60 and 256 x 256,
each with self-collision on (heap-N.json) and off (heap-N-off.json). The contact thickness is 0.4
spacings at both sizes (2 x thickness = 0.8 dx covers the holes between particles, as the tests'
heap), and the mass per particle keeps the sheet's total mass:

    python3 bench/self/make_scenes.py build/self
    build/apps/cli/weft bench --scene build/self/heap-256.json --backend vulkan --stages
    build/apps/cli/weft bench --scene build/self/heap-256-off.json --backend vulkan --stages
"""
import json
import os
import sys

folder = sys.argv[1] if len(sys.argv) > 1 else "build/self"
os.makedirs(folder, exist_ok=True)
here = os.path.dirname(os.path.abspath(__file__))
with open(os.path.join(here, "..", "..", "scenes", "heap.json")) as f:
    base = json.load(f)

for n in (60, 256):
    for on in (True, False):
        scene = json.loads(json.dumps(base))
        width = scene["cloth"]["width"]
        scene["description"] = "self-collision benchmark: scenes/heap.json at %d x %d, self-collision %s" % (n, n, "on" if on else "off")
        scene["cloth"]["cols"] = scene["cloth"]["rows"] = n
        scene["cloth"]["material"]["mass"] = 0.002 * (40.0 / n) ** 2
        scene["world"]["selfCollision"]["enabled"] = on
        scene["world"]["selfCollision"]["thickness"] = round(0.4 * width / (n - 1), 7)
        name = "heap-%d%s.json" % (n, "" if on else "-off")
        with open(os.path.join(folder, name), "w") as out:
            json.dump(scene, out, indent=2)
            out.write("\n")
        print(os.path.join(folder, name))
