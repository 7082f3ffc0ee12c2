# `weft run --gltf` in Blender: its glTF importer (io_scene_gltf2) reads the file, and at frame k's
# time exactly one object of each cloth is shown (scale 1, the others 0) whose shape keys give the
# same run's OBJ frame k within 2e-5 m. Each cloth object has one shape key per morph target.
#   blender -b --factory-startup --python gltf_blender.py -- GLB OBJ_DIR FRAMES [GLB OBJ_DIR FRAMES ...]
import json
import math
import os
import struct
import sys

import bpy
import numpy

# Debian 12's Blender 3.4 importer calls numpy.bool, which numpy 1.24 removed (it was the builtin
# bool): give it back, or every mesh with normals fails to import.
if "bool" not in vars(numpy):
    numpy.bool = bool


def read_glb(path):
    data = open(path, "rb").read()
    length = struct.unpack_from("<I", data, 12)[0]
    doc = json.loads(data[20:20 + length])
    return doc, data[20 + length + 8:]


def particles_of(doc, binary, mesh_name):
    """Each vertex's particle (_PARTICLE), or None where vertex = particle."""
    mesh = next(m for m in doc["meshes"] if m["name"] == mesh_name)
    index = mesh["primitives"][0]["attributes"].get("_PARTICLE")
    if index is None:
        return None
    a = doc["accessors"][index]
    v = doc["bufferViews"][a["bufferView"]]
    offset = v.get("byteOffset", 0) + a.get("byteOffset", 0)
    return [int(x) for x in struct.unpack_from("<%df" % a["count"], binary, offset)]


def read_obj(path):
    objects = []
    for line in open(path):
        if line.startswith("o "):
            objects.append([])
        elif line.startswith("v "):
            objects[-1].append(tuple(float(x) for x in line.split()[1:4]))
    return objects


def check(glb, obj_dir, frames):
    bpy.ops.wm.read_factory_settings(use_empty=True)
    bpy.ops.import_scene.gltf(filepath=glb)
    doc, binary = read_glb(glb)
    scene = bpy.context.scene
    fps = scene.render.fps / scene.render.fps_base
    # Frame 1's time: the first weights sampler's second key that starts at 0.
    time_step = None
    for sampler in doc["animations"][0]["samplers"]:
        a = doc["accessors"][sampler["input"]]
        if a["min"][0] == 0 and a["count"] > 1:
            v = doc["bufferViews"][a["bufferView"]]
            time_step = struct.unpack_from("<f", binary, v.get("byteOffset", 0) + a.get("byteOffset", 0) + 4)[0]
            break
    cloths = {}
    for o in scene.objects:
        if o.type == "MESH" and o.name.startswith("cloth_"):
            cloths.setdefault(int(o.name.split("_")[1]), []).append(o)
    for c, objects in cloths.items():
        for o in objects:
            keys = o.data.shape_keys
            mesh = next(m for m in doc["meshes"] if m["name"] == o.name)
            targets = len(mesh["primitives"][0].get("targets", []))
            count = len(keys.key_blocks) - 1 if keys else 0
            if count != targets:
                raise SystemExit("%s: %d shape keys, the glTF mesh has %d targets" % (o.name, count, targets))
    mapping = {o.name: particles_of(doc, binary, o.name) for objects in cloths.values() for o in objects}
    worst, checked = 0.0, 0
    depsgraph = bpy.context.evaluated_depsgraph_get()
    for k in range(1, frames + 1):
        # Blender's importer keys time t at frame t x fps.
        f = float(numpy.float32(k * time_step)) * fps
        scene.frame_set(int(math.floor(f)), subframe=f - math.floor(f))
        depsgraph.update()
        expect = read_obj(os.path.join(obj_dir, "frame_%04d.obj" % k))
        for c, objects in cloths.items():
            shown = [o for o in objects if o.matrix_world.to_scale().length > 1e-6]
            if len(shown) != 1:
                raise SystemExit("%s: frame %d, cloth %d: %d objects shown, expected 1" % (glb, k, c, len(shown)))
            o = shown[0].evaluated_get(depsgraph)
            m = o.to_mesh()
            particle = mapping[shown[0].name]
            for i, vertex in enumerate(m.vertices):
                p = particle[i] if particle else i
                w = o.matrix_world @ vertex.co
                # Blender is z-up: glTF's (x, y, z) is its (x, -z, y).
                got = (w.x, w.z, -w.y)
                worst = max(worst, max(abs(got[a] - expect[c][p][a]) for a in range(3)))
            o.to_mesh_clear()
            checked += 1
    status = "ok" if worst <= 2e-5 else "FAILED"
    print("%s %s: %d cloth frames against the OBJ in %d objects, largest difference %.2e m" %
          (status, os.path.basename(glb), checked, sum(len(v) for v in cloths.values()), worst))
    return worst <= 2e-5


args = sys.argv[sys.argv.index("--") + 1:]
ok = True
for i in range(0, len(args), 3):
    ok = check(args[i], args[i + 1], int(args[i + 2])) and ok
sys.exit(0 if ok else 1)
