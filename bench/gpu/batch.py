import json, sys
n = int(sys.argv[1]); out = sys.argv[2]
side = int(n ** 0.5 + 0.999)
cloths = []
for i in range(n):
    cloths.append({"cols": 60, "rows": 60, "width": 2.4, "height": 2.4, "orientation": "horizontal",
                   "origin": [3.0 * (i % side), 2.0, 3.0 * (i // side)], "pinMode": "top-corners",
                   "material": {"mass": 0.1, "stretchCompliance": 1e-6, "shearCompliance": 1e-5, "bendCompliance": 1e-3, "damping": 0.01}})
scene = {"frames": 100, "world": {"backend": "vulkan", "step": {"solver": "xpbd", "timeStep": 1 / 60, "substeps": 64, "iterations": 1},
         "sphere": {"enabled": False}, "floor": {"enabled": True, "height": 0.0}}, "cloths": cloths}
json.dump(scene, open(out, "w"))
