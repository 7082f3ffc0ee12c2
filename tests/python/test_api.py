# The package as a user meets it in a notebook or help() (issue 29.3): objects print what they are,
# defs print the float32 values the library holds in their shortest form (and read back as the same
# def), every public function and method has a docstring, the main entry points have type hints and
# their keyword fields in the signature, and the package ships py.typed.
import inspect
import os

import numpy as np
import pytest

import weft


def test_defs_print_float32_values_shortest():
    d = weft.WorldDef(backend="cpu")
    text = repr(d)
    assert "timeStep=" not in text and "'timeStep': 0.016666668," in text  # nested parts print as dicts
    assert "0.01666666753590107" not in text
    assert repr(d.step).startswith("StepDef(solver='xpbd', timeStep=0.016666668, substeps=10,")
    m = weft.Material(bendCompliance=1e-4)
    assert "bendCompliance=0.0001," in repr(m) and "mass=0.1," in repr(m)
    assert "stretchCompliance=1e-06" in repr(m)
    # a def's repr reads back as the same def (every float32 survives its shortest text)
    for cls in (weft.WorldDef, weft.ClothDef, weft.Material, weft.ColliderDef):
        x = cls()
        assert eval(repr(x), {cls.__name__: cls}) == x, cls.__name__
    odd = weft.Material(mass=1 / 3, damping=0.1234567)
    assert eval(repr(odd), {"Material": weft.Material}) == odd
    assert "mass=0.33333334" in repr(odd)
    # double fields keep their double, arrays print by shape (or as the list when short)
    c = weft.ClothDef(pinMode="list", pinIndices=[0, 5])
    assert "pinIndices=[0, 5]" in repr(c)
    mesh = weft.ClothDef(mesh=weft.Mesh(np.zeros((30, 3)), [[0, 1, 2]]))
    assert "mesh=Mesh(30 vertices, 1 faces)" in repr(mesh)


def test_objects_print_what_they_are():
    w = weft.World(backend="cpu")
    c = w.add_cloth(cols=8, rows=6)
    k = w.add_collider(type="box", position=(0, 0.5, 0))
    w.step(3)
    assert repr(w) == "<weft.World backend='cpu' cloths=1 colliders=1 time=0.05>"
    assert repr(c) == "<weft.Cloth 0 8x6 particles=48 triangles=70>"
    assert repr(k) == "<weft.Collider 0 box at (0, 0.5, 0)>"
    m = w.add_cloth(mesh=weft.Mesh([(0, 0, 0), (1, 0, 0), (0, 1, 0)], [[0, 1, 2]]))
    assert repr(m) == "<weft.Cloth 1 mesh particles=3 triangles=1>"
    c.destroy()
    k.destroy()
    assert repr(c) == "<weft.Cloth 0 destroyed>" and repr(k) == "<weft.Collider 0 destroyed>"
    assert repr(w) == "<weft.World backend='cpu' cloths=1 colliders=0 time=0.05>"
    w.close()
    assert repr(w) == "<weft.World closed>" and repr(m) == "<weft.Cloth 1 of a closed world>"


def public_members():
    for name in weft.__all__:
        obj = getattr(weft, name)
        if obj is None or isinstance(obj, str):  # Camera/RendererDef without the renderer; version
            continue
        yield name, obj
        if inspect.isclass(obj) and not issubclass(obj, BaseException):
            for m, v in inspect.getmembers(obj):
                if not m.startswith("_") and (callable(v) or isinstance(v, property)):
                    yield "%s.%s" % (name, m), v


def test_every_public_function_and_method_has_a_docstring():
    missing = [name for name, obj in public_members() if not (inspect.getdoc(obj) or "").strip()]
    assert not missing, missing


def test_main_entry_points_are_typed_and_show_their_fields():
    import typing
    for fn in (weft.World.__init__, weft.World.step, weft.World.add_cloth, weft.World.add_collider,
               weft.World.set_wind, weft.World.set_gravity, weft.World.snapshot, weft.Cloth.read_positions,
               weft.Cloth.set_material, weft.load_scene, weft.preset, weft.devices, weft.render):
        hints = typing.get_type_hints(fn)
        assert "return" in hints, fn.__qualname__
    assert typing.get_type_hints(weft.World.add_cloth)["return"] is weft.Cloth
    # the def's fields, from the C struct, are keyword parameters help() and completion see
    world = inspect.signature(weft.World).parameters
    assert world["backend"].kind is inspect.Parameter.KEYWORD_ONLY and repr(world["backend"].default) == "'auto'"
    assert "'timeStep': 0.016666668" in repr(world["step"].default)
    cloth = inspect.signature(weft.World.add_cloth).parameters
    assert {"cols", "rows", "pinMode", "material"} <= set(cloth)
    wind = inspect.signature(weft.World.set_wind).parameters
    assert set(wind) == {"self", "wind", "mode", "strength", "frequency", "phasePerColumn", "direction"}
    assert repr(wind["strength"].default) == "<unchanged>"
    assert "bendCompliance" in inspect.signature(weft.Cloth.set_material).parameters
    import pydoc
    assert "stretchCompliance: 'float' = <unchanged>" in pydoc.render_doc(weft.Cloth.set_material, renderer=pydoc.plaintext)


def test_the_package_ships_py_typed():
    assert os.path.exists(os.path.join(os.path.dirname(weft.__file__), "py.typed"))
