"""Checks of weft's caches inside Blender (blender --background --factory-startup --python THIS -- MODE ...).

    usd LAYER.usda OBJ_DIR FRAMES FPS COLLIDERS   import the layer with bpy.ops.wm.usd_import (exit 77
                                                  when this Blender is built without USD) and compare
                                                  what Blender plays with the OBJ frames of the same run
    obj LAYER.usda OBJ_DIR FRAMES                 import OBJ frames and weft.mtl with bpy.ops.wm.obj_import
                                                  and compare them with the layer's samples
    render LAYER.usda FRAME OUT.png               build the layer's prims at FRAME from tests/cli/usda.py
                                                  and render them with Cycles (the README's picture)

Positions are compared in each object's own space (the importers put the Y-up to Z-up turn on the
object), within 1e-5 m. Exit code 0: passed, 1: failed, 77: skipped.
"""
import math
import os
import sys

import bpy

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import usda  # noqa: E402

TOLERANCE = 1e-5
failures = []


def check(condition, message):
    if not condition:
        failures.append(message)
        print('FAILED: ' + message)
    return condition


def finish(what):
    if failures:
        print('blender_usd.py %s: %d failure%s' % (what, len(failures), '' if len(failures) == 1 else 's'))
        sys.exit(1)
    print('blender_usd.py %s: passed' % what)
    sys.exit(0)


def empty_scene():
    bpy.ops.wm.read_factory_settings(use_empty=True)


def evaluated_positions(obj):
    """The object's vertex positions at the current frame, after its modifiers (the cache reader's)."""
    depsgraph = bpy.context.evaluated_depsgraph_get()
    evaluated = obj.evaluated_get(depsgraph)
    mesh = evaluated.to_mesh()
    positions = [tuple(v.co) for v in mesh.vertices]
    evaluated.to_mesh_clear()
    return positions


def compare_positions(where, got, want_text):
    """Positions from Blender against OBJ v lines (text triples)."""
    if not check(len(got) == len(want_text), '%s: %d vertices, expected %d' % (where, len(got), len(want_text))):
        return
    worst = max((abs(g - float(w)) for p, q in zip(got, want_text) for g, w in zip(p, q)), default=0.0)
    check(worst <= TOLERANCE, '%s: positions differ from the OBJ frame by up to %.3g m' % (where, worst))
    print('%s: %d vertices, largest difference from the OBJ frame %.3g m' % (where, len(got), worst))


def principled_color(material):
    if material is None or material.node_tree is None:
        return None
    for node in material.node_tree.nodes:
        if node.type == 'BSDF_PRINCIPLED':
            return tuple(node.inputs['Base Color'].default_value)[:3]
    return None


def check_color(where, material, want):
    color = principled_color(material)
    check(color is not None and all(abs(c - float(w)) <= 1e-6 for c, w in zip(color, want)),
          '%s: base colour %s, expected %s' % (where, color, want))


# ---------------------------------------------------------------- usd: Blender's USD importer

def mode_usd(layer_path, obj_dir, frames, fps, colliders):
    if not bpy.app.build_options.usd or not hasattr(bpy.ops.wm, 'usd_import'):
        print('skipped: Blender %s is built without USD (bpy.app.build_options.usd is False; Debian 12\'s blender '
              'package is): bpy.ops.wm.usd_import does not exist' % bpy.app.version_string)
        sys.exit(77)
    empty_scene()
    result = bpy.ops.wm.usd_import(filepath=layer_path)
    check(result == {'FINISHED'}, 'usd_import returned %s' % result)
    scene = bpy.context.scene
    check(scene.frame_start == 1 and scene.frame_end == frames,
          'frame range %d..%d, expected 1..%d' % (scene.frame_start, scene.frame_end, frames))
    scene_fps = scene.render.fps / scene.render.fps_base
    if abs(scene_fps - fps) > 1e-6:
        # Blender's importer (3.x) sets the frame range from the stage but not the frame rate: noted,
        # and the layer's framesPerSecond is checked by usda.py.
        print('note: the scene plays at %g fps after the import, the layer says %g' % (scene_fps, fps))
    layer = usda.load(layer_path)
    cloths = sorted(p.path.rsplit('/', 1)[1] for p in layer.prims.values() if p.type == 'Mesh' and p.path.startswith('/weft/cloth_'))
    sample = sorted({1, max(frames // 2, 1), frames})
    for name in cloths:
        obj = bpy.data.objects.get(name)
        if not check(obj is not None and obj.type == 'MESH', 'no mesh object %s after the import' % name):
            continue
        first = None
        for k in sample:
            scene.frame_set(k)
            objects, _ = usda.read_obj(os.path.join(obj_dir, 'frame_%04d.obj' % k))
            positions = evaluated_positions(obj)
            compare_positions('%s frame %d' % (name, k), positions, objects[name]['v'])
            if first is None:
                first = positions
            elif k == sample[-1]:
                check(positions != first, '%s: the points do not change from frame 1 to frame %d' % (name, k))
        material = obj.material_slots[0].material if obj.material_slots else None
        check(material is not None, '%s: no material after the import' % name)
        shader = layer.prims['/weft/Looks/%s/Surface' % name]
        check_color(name, material, shader.attributes['inputs:diffuseColor'].default)
    # Blender imports Sphere, Capsule and Cube prims as meshes from 3.5 on (its USDShapeReader).
    for name in colliders:
        obj = bpy.data.objects.get(name)
        if name != 'floor' and bpy.app.version < (3, 5, 0):
            print('note: Blender %s does not import USD shape prims (%s)' % (bpy.app.version_string, name))
            continue
        check(obj is not None, 'no object for the collider prim %s' % name)
    finish('usd')


# ---------------------------------------------------------------- obj: the OBJ frames and weft.mtl

def mode_obj(layer_path, obj_dir, frames):
    layer = usda.load(layer_path)
    mtl = usda.read_mtl(os.path.join(obj_dir, 'weft.mtl'))
    for k in sorted({1, max(frames // 2, 1), frames}):
        empty_scene()
        path = os.path.join(obj_dir, 'frame_%04d.obj' % k)
        check(bpy.ops.wm.obj_import(filepath=path) == {'FINISHED'}, 'obj_import of %s failed' % path)
        for prim in (p for p in layer.prims.values() if p.type == 'Mesh' and p.path.startswith('/weft/cloth_')):
            name = prim.path.rsplit('/', 1)[1]
            obj = bpy.data.objects.get(name)
            if not check(obj is not None, 'frame %d: no object %s' % (k, name)):
                continue
            # The layer's points at frame k, as the OBJ frame prints them, against what Blender read.
            want = [[usda.obj_text(x) for x in p] for p in prim.attributes['points'].at(k)]
            compare_positions('%s frame %d (OBJ import vs the USD layer)' % (name, k), [tuple(v.co) for v in obj.data.vertices], want)
            check(len(obj.data.polygons) == len(prim.attributes['faceVertexCounts'].at(k)), '%s frame %d: face count' % (name, k))
            material = obj.material_slots[0].material if obj.material_slots else None
            check(material is not None and material.name.startswith(name), '%s frame %d: material %s' % (name, k, material))
            check_color('%s frame %d' % (name, k), material, mtl[name]['Kd'])
            check(obj.data.uv_layers.active is not None, '%s frame %d: no UV map' % (name, k))
    finish('obj')


# ---------------------------------------------------------------- render: a picture of the layer

def look(name, rgb, roughness=0.8):
    material = bpy.data.materials.new(name)
    material.use_nodes = True
    bsdf = material.node_tree.nodes['Principled BSDF']
    bsdf.inputs['Base Color'].default_value = (float(rgb[0]), float(rgb[1]), float(rgb[2]), 1.0)
    bsdf.inputs['Roughness'].default_value = roughness
    return material


def mesh_object(name, points, counts, indices, material):
    mesh = bpy.data.meshes.new(name)
    faces, at = [], 0
    for c in counts:
        faces.append([int(i) for i in indices[at:at + int(c)]])
        at += int(c)
    mesh.from_pydata([tuple(float(x) for x in p) for p in points], [], faces)
    mesh.materials.append(material)
    for polygon in mesh.polygons:
        polygon.use_smooth = True
    obj = bpy.data.objects.new(name, mesh)
    bpy.context.scene.collection.objects.link(obj)
    return obj


def place(obj, prim, frame):
    """xformOp:translate, orient (w, x, y, z) and scale of a prim, then the Y-up layer turned Z-up."""
    from mathutils import Matrix, Quaternion, Vector
    a = prim.attributes
    t = Vector([float(x) for x in a['xformOp:translate'].at(frame)])
    q = Quaternion([float(x) for x in a['xformOp:orient'].at(frame)]) if 'xformOp:orient' in a else Quaternion()
    s = Vector([float(x) for x in a['xformOp:scale'].default]) if 'xformOp:scale' in a else Vector((1, 1, 1))
    obj.matrix_world = Matrix.Rotation(math.pi / 2, 4, 'X') @ Matrix.Translation(t) @ q.to_matrix().to_4x4() @ Matrix.Diagonal(s.to_4d())


def mode_render(layer_path, frame, out):
    from mathutils import Matrix, Vector
    layer = usda.load(layer_path)
    empty_scene()
    scene = bpy.context.scene
    up = Matrix.Rotation(math.pi / 2, 4, 'X')  # the layer is Y up, Blender Z up
    collider_look = None
    for prim in layer.prims.values():
        a = prim.attributes
        if prim.type == 'Mesh' and prim.path.startswith('/weft/cloth_'):
            name = prim.path.rsplit('/', 1)[1]
            color = layer.prims['/weft/Looks/%s/Surface' % name].attributes['inputs:diffuseColor'].default
            obj = mesh_object(name, a['points'].at(frame), a['faceVertexCounts'].at(frame), a['faceVertexIndices'].at(frame),
                              look(name, color, 0.9))
            obj.matrix_world = up
        elif prim.path.startswith('/weft/colliders/'):
            if collider_look is None:
                collider_look = look('collider', (0.55, 0.57, 0.6), 0.5)
            name = prim.path.rsplit('/', 1)[1]
            if prim.type == 'Mesh':
                obj = mesh_object(name, a['points'].default, a['faceVertexCounts'].default, a['faceVertexIndices'].default,
                                  look('floor', (0.8, 0.8, 0.78), 0.9) if name == 'floor' else collider_look)
            elif prim.type == 'Sphere':
                bpy.ops.mesh.primitive_uv_sphere_add(segments=48, ring_count=24, radius=float(a['radius'].default))
                obj = bpy.context.object
            elif prim.type == 'Capsule':
                # The tapered capsule (weft:radiusBottom at -x, weft:radiusTop at +x): a cone between two spheres.
                r0, r1 = float(a['weft:radiusBottom'].default), float(a['weft:radiusTop'].default)
                half = float(a['height'].default) / 2
                parts = []
                for x, r in ((-half, r0), (half, r1)):
                    bpy.ops.mesh.primitive_uv_sphere_add(segments=32, ring_count=16, radius=r, location=(x, 0, 0))
                    parts.append(bpy.context.object)
                bpy.ops.mesh.primitive_cone_add(vertices=32, radius1=r0, radius2=r1, depth=2 * half, location=(0, 0, 0),
                                                rotation=(0, math.pi / 2, 0))
                parts.append(bpy.context.object)
                for p in parts:
                    p.select_set(True)
                bpy.context.view_layer.objects.active = parts[-1]
                bpy.ops.object.join()
                obj = bpy.context.object
                bpy.ops.object.transform_apply(location=True, rotation=True, scale=True)
            elif prim.type == 'Cube':
                bpy.ops.mesh.primitive_cube_add(size=2)
                obj = bpy.context.object
            else:
                continue
            for polygon in obj.data.polygons:
                polygon.use_smooth = prim.type != 'Mesh'
            if not obj.data.materials:
                obj.data.materials.append(collider_look)
            obj.name = name
            place(obj, prim, frame)
    # Light, camera and world: a key light from the side, a soft sky.
    sun = bpy.data.objects.new('sun', bpy.data.lights.new('sun', 'SUN'))
    sun.data.energy = 3.0
    sun.data.angle = math.radians(8)
    sun.rotation_euler = (math.radians(50), 0, math.radians(35))
    scene.collection.objects.link(sun)
    world = bpy.data.worlds.new('sky')
    world.use_nodes = True
    world.node_tree.nodes['Background'].inputs['Color'].default_value = (0.55, 0.6, 0.68, 1)
    world.node_tree.nodes['Background'].inputs['Strength'].default_value = 0.6
    scene.world = world
    camera = bpy.data.objects.new('camera', bpy.data.cameras.new('camera'))
    camera.data.lens = 68
    scene.collection.objects.link(camera)
    target = Vector((0.0, 0.0, 0.56))
    camera.location = Vector((1.0, -2.0, 1.55))
    camera.rotation_euler = (target - camera.location).to_track_quat('-Z', 'Y').to_euler()
    scene.camera = camera
    scene.render.engine = 'CYCLES'
    scene.cycles.device = 'CPU'
    scene.cycles.samples = 96
    scene.cycles.use_denoising = False  # Debian's Blender has no OpenImageDenoise
    scene.render.resolution_x, scene.render.resolution_y = 480, 400
    scene.render.resolution_percentage = 100
    scene.render.image_settings.file_format = 'PNG'
    scene.render.image_settings.color_mode = 'RGB'
    scene.render.image_settings.compression = 100
    scene.view_settings.view_transform = 'Filmic'
    scene.render.filepath = out
    bpy.ops.render.render(write_still=True)
    print('blender_usd.py render: frame %d of %s written to %s' % (frame, layer_path, out))


def main():
    argv = sys.argv[sys.argv.index('--') + 1:] if '--' in sys.argv else []
    if not argv:
        print(__doc__)
        sys.exit(2)
    mode = argv[0]
    if mode == 'usd':
        mode_usd(argv[1], argv[2], int(argv[3]), float(argv[4]), [n for n in argv[5].split(',') if n])
    elif mode == 'obj':
        mode_obj(argv[1], argv[2], int(argv[3]))
    elif mode == 'render':
        mode_render(argv[1], int(argv[2]), argv[3])
        sys.exit(0)
    else:
        print('blender_usd.py: unknown mode %r' % mode)
        sys.exit(2)


try:
    main()
except SystemExit:
    raise
except Exception:  # a Python error inside Blender must fail the test, not end Blender with 0
    import traceback
    traceback.print_exc()
    sys.exit(1)
