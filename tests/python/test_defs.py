# Defs: the fields are the C structs' own (cffi's layout checked against the compiler's), the
# defaults are the library's, every field round-trips through Python and, where the library hands a
# def back (wfWorld_GetDef, wfCloth_GetMaterial, wfRenderer_GetDef), through C; every field that can
# hold a bad value raises DefError naming it, with the library's message.
import math
import os
import re
import subprocess
import tempfile

import numpy as np
import pytest

import weft
from weft._ffi import ffi, lib
from conftest import have_renderer, render_device

DEFS = [weft.WorldDef, weft.ClothDef, weft.Material, weft.ColliderDef] + (
    [weft.RendererDef, weft.Camera] if weft.RendererDef else [])

# A small valid mesh (a quad and a triangle) and one the library refuses (an index past the vertices).
def a_mesh():
    return weft.Mesh([[0, 0, 0], [1, 0, 0], [1, 0, 1], [0, 0, 1], [2, 0, 0]], [[0, 1, 2, 3], [1, 4, 2]])


def a_bad_mesh():
    return weft.Mesh([[0, 0, 0], [1, 0, 0], [1, 0, 1]], [[0, 1, 9]])


def struct_names():
    """Every struct the headers declare."""
    typedefs, structs, _ = ffi.list_types()
    names = set(structs)
    for t in typedefs:
        try:
            if ffi.typeof(t).kind == "struct":
                names.add(t)
        except Exception:  # cffi.CDefError
            pass  # a function type (wfLogFn)
    return sorted(names)


def test_layout_matches_the_compiler():
    """cffi (ABI mode) lays the structs out by itself: every field's offset and every struct's size
    must equal what the C compiler gives for the same header, or a def would be read wrong."""
    include = os.path.join(os.path.dirname(weft.__file__), "_native", "include")
    lines = ['#include "weft/weft.h"']
    if weft.RendererDef is not None:
        lines.append('#include "weft/render.h"')
    lines += ["#include <stdio.h>", "#include <stddef.h>", "int main(void) {"]
    expected = []
    for name in struct_names():
        t = ffi.typeof(name)
        if t.fields is None:
            continue  # opaque (wfWorld, wfScene, ...)
        lines.append('printf("%%zu\\n", sizeof(%s));' % name)
        expected.append(ffi.sizeof(t))
        for field, cfield in t.fields:
            lines.append('printf("%%zu\\n", offsetof(%s, %s));' % (name, field))
            expected.append(cfield.offset)
    lines.append("return 0; }")
    with tempfile.TemporaryDirectory() as tmp:
        src, exe = os.path.join(tmp, "layout.c"), os.path.join(tmp, "layout")
        with open(src, "w") as f:
            f.write("\n".join(lines))
        subprocess.run(["cc", "-std=c11", "-I", include, src, "-o", exe], check=True)
        got = [int(x) for x in subprocess.run([exe], check=True, capture_output=True, text=True).stdout.split()]
    assert len(expected) > 100  # the structs of both headers, every field
    assert got == expected


@pytest.mark.parametrize("cls", DEFS, ids=lambda c: c.__name__)
def test_defaults_are_the_librarys(cls):
    d = cls()
    default = cls._default()
    assert bytes(ffi.buffer(d._c)) == bytes(ffi.buffer(ffi.new(cls._ctype + " *", default)))


def test_fields_are_the_headers():
    """Python's fields are cffi's reading of the header: no field of wfClothDef is left out but the
    hidden ones (internalValue, the pin count that follows its array)."""
    fields = ffi.typeof("wfClothDef").fields
    c_fields = [n for n, _ in fields]
    py = {p.split(".")[0] for p, _ in weft.ClothDef.field_paths()}
    counts = {fields[i + 1][0] for i in range(len(fields) - 1)
              if fields[i][1].type.kind == "pointer" and fields[i + 1][0].endswith("Count")}
    assert "pinCount" in counts
    assert set(c_fields) - py == {"internalValue"} | counts
    assert ("material.mass", "float") in weft.ClothDef.field_paths()
    assert ("step.substeps", "int") in weft.WorldDef.field_paths()
    assert len(weft.WorldDef.field_paths()) >= 30


def test_enum_names_are_the_librarys():
    for value in range(3):
        assert weft.WorldDef(step={"solver": value}).step.solver == ffi.string(lib.wfSolverName(value)).decode()
        assert weft.WorldDef(backend=value).backend == ffi.string(lib.wfBackendName(value)).decode()
    for value in range(5):
        assert weft.ClothDef(pinMode=value).pinMode == ffi.string(lib.wfPinModeName(value)).decode()


def other_value(kind, value, path):
    """A valid value different from `value` for a field of this kind."""
    if kind == "bool":
        return not value
    if kind == "int":
        return value + 1 if value < 8 else value // 2
    if kind == "float":
        return 0.5 if value == 0 else value * 0.5
    if kind == "tuple":
        return (0.25, -0.5, 0.75) if len(value) == 3 else (0.0, 0.6, 0.0, 0.8)
    if kind == "object":
        return a_mesh()
    if kind == "array":
        return tuple(0.5 for _ in value)
    if kind == "string":
        return "no-such-device"
    if kind == "buffer":
        return [(0.5, 1.0, 1.5)] if path == "keyPositions" else [1, 3, 5]  # rows of xyz, or indices
    raise AssertionError(kind)


def enum_other(d, path):
    f = _field(d, path)
    values = sorted(f.names)
    current = f.values[getattr_path(d, path)]
    return f.names[values[(values.index(current) + 1) % len(values)]]


def _field(d, path):
    head, _, last = path.rpartition(".")
    obj = getattr_path(d, head) if head else d
    return obj._fields()[last]


def getattr_path(d, path):
    for part in path.split("."):
        d = getattr(d, part)
    return d


def setattr_path(d, path, value):
    head, _, last = path.rpartition(".")
    setattr(getattr_path(d, head) if head else d, last, value)


def f32(v):
    return float(np.float32(v))


def same(a, b):
    if isinstance(a, tuple):
        return len(a) == len(b) and all(same(x, y) for x, y in zip(a, b))
    if isinstance(a, float):
        return f32(a) == f32(b)
    if isinstance(a, np.ndarray):
        return np.array_equal(a, b)
    return a == b  # Mesh: arrays equal


def new_value(d, path, kind):
    return enum_other(d, path) if kind == "enum" else other_value(kind, getattr_path(d, path), path)


@pytest.mark.parametrize("cls", DEFS, ids=lambda c: c.__name__)
def test_every_field_round_trips_in_python(cls):
    n = 0
    for path, kind in cls.field_paths():
        d = cls()
        v = new_value(d, path, kind)
        setattr_path(d, path, v)
        got = getattr_path(d, path)
        assert same(v if kind != "buffer" else np.array(v, dtype=_field(d, path).dtype), got), path
        # and through a copy, a dict and the C struct's bytes
        assert same(getattr_path(d.copy(), path), got), path
        assert same(getattr_path(cls(**d.to_dict()), path), got), path
        assert cls(**d.to_dict()) == d
        if kind not in ("buffer", "object"):  # those point at memory the def keeps
            e = cls()
            e._c[0] = d._c[0]
            assert same(getattr_path(e, path), got), path
        n += 1
    assert n == len(cls.field_paths()) and n >= 5


def test_pin_list_sets_its_count():
    d = weft.ClothDef(pinMode="list", pinIndices=[0, 5, 9])
    assert d._c.pinCount == 3 and list(d.pinIndices) == [0, 5, 9]
    d.pinIndices = None
    assert d._c.pinCount == 0 and d._c.pinIndices == ffi.NULL
    with pytest.raises(AttributeError, match="pinCount"):
        d.pinCount = 4


def test_world_def_round_trips_through_the_library():
    """Each field of wfWorldDef set alone to another valid value comes back from wfWorld_GetDef."""
    skip = {"backend": "the test world is on the CPU (auto resolves to cpu here too)",
            "deviceName": "refused with backend cpu (tested in test_every_bad_field_raises)"}
    n = 0
    for path, kind in weft.WorldDef.field_paths():
        if path in skip:
            continue
        d = weft.WorldDef(backend="cpu")
        v = new_value(d, path, kind)
        if path == "step.solver" and v == "jacobi":
            d.step.iterations = 2
        setattr_path(d, path, v)
        with weft.World(d) as w:
            assert same(getattr_path(w.def_, path), getattr_path(d, path)), path
        n += 1
    assert n == len(weft.WorldDef.field_paths()) - len(skip)


def test_material_round_trips_through_the_library():
    with weft.World(backend="cpu") as w:
        n = 0
        for path, kind in weft.Material.field_paths():
            m = weft.Material()
            setattr_path(m, path, new_value(m, path, kind))
            c = w.add_cloth(cols=4, rows=4, material=m)
            assert c.material == m, path
            c2 = w.add_cloth(cols=4, rows=4)
            c2.set_material(m)
            assert c2.material == m, path
            n += 1
        assert n == 10  # tearStrain included


@pytest.mark.skipif(not have_renderer(), reason="no Vulkan device for the renderer")
def test_renderer_def_round_trips_through_the_library():
    resolved = {"msaaSamples": "lowered to what the device supports", "deviceName": "the device's match is kept"}
    for path, kind in weft.RendererDef.field_paths():
        if path in resolved:
            continue
        d = weft.RendererDef(deviceName=render_device())
        v = new_value(d, path, kind)
        if path in ("width", "height"):
            v = 40
        setattr_path(d, path, v)
        with weft.Renderer(size=(d.width, d.height), def_=d) as r:
            assert same(getattr_path(r.def_, path), getattr_path(d, path)), path


# A value the library refuses, by kind; bools have none (both values are valid).
BAD = {"float": math.nan, "int": -2 ** 31, "enum": 99, "buffer": [-1]}
# What a field needs around it for its check to run.
CONTEXT = {("ClothDef", "pinIndices"): {"pinMode": "list"}, ("WorldDef", "deviceName"): {"backend": "cpu"},
           ("ColliderDef", "radius1"): {"type": "capsule"}, ("ColliderDef", "halfLength"): {"type": "capsule"},
           ("ColliderDef", "halfExtents"): {"type": "box"}, ("ColliderDef", "mesh"): {"type": "mesh"},
           ("ClothDef", "attachIndices"): {"attachMode": "list"}}


def make(cls, fields):
    if cls is weft.WorldDef:
        return weft.World(fields)
    if cls is weft.ColliderDef:
        with weft.World(backend="cpu") as w:
            return w.add_collider(fields)
    if cls in (weft.ClothDef, weft.Material):
        with weft.World(backend="cpu") as w:
            return w.add_cloth(fields) if cls is weft.ClothDef else w.add_cloth(material=fields)
    return weft.Renderer(size=(fields.width, fields.height), def_=fields)


@pytest.mark.parametrize("cls", DEFS[:5], ids=lambda c: c.__name__)
def test_every_bad_field_raises(cls):
    if cls is getattr(weft, "RendererDef", None) and not have_renderer():
        pytest.skip("no Vulkan device for the renderer")
    checked, no_bad_value = [], []
    for path, kind in cls.field_paths():
        context = CONTEXT.get((cls.__name__, path), {})
        if kind == "bool" or (kind == "string" and not context):
            no_bad_value.append(path)
            continue
        d = cls()
        if cls is weft.WorldDef:
            d.backend = "cpu"
        if cls is getattr(weft, "RendererDef", None):
            d.deviceName = render_device()
        d.update(**context)
        if kind in ("array", "tuple"):
            bad = tuple(math.nan for _ in getattr_path(d, path))
        else:
            bad = a_bad_mesh() if kind == "object" else [(math.nan, 0.0, 0.0)] if path == "keyPositions" else BAD.get(kind)
        setattr_path(d, path, "no-such-device" if kind == "string" else bad)
        prefix = "material." if cls is weft.Material else ""
        if path == "halfLength":
            bad = -1.0  # a length of 0 is allowed, NaN is not a length
        with pytest.raises(weft.DefError) as e:
            make(cls, d)
        assert e.value.field == prefix + path or e.value.field.startswith(prefix + path + "."), (path, str(e.value))
        assert str(e.value).startswith((prefix + path, "wfRendererDef." + path, "collider." + path)), str(e.value)
        # the message says what is allowed: a range, a list, "finite", "allowed ..."
        assert re.search(r"[\[(][-\d.e+]+, [-\d.e+]+[\])]|one of|finite|allowed|> | or ", str(e.value)), str(e.value)
        checked.append(path)
    # every field is either checked or has no bad value (a bool, a free-form name)
    assert len(checked) + len(no_bad_value) == len(cls.field_paths())
    assert len(checked) >= {weft.WorldDef: 20, weft.ClothDef: 19, weft.Material: 9, weft.ColliderDef: 9}.get(cls, 5)


def test_bad_values_python_refuses_name_the_field():
    with pytest.raises(weft.DefError, match=r"step.solver: 'rk4' is not one of xpbd, jacobi, springs"):
        weft.WorldDef(step={"solver": "rk4"})
    with pytest.raises(weft.DefError, match=r"cols: .* does not fit a int \(allowed \[-2147483648, 2147483647\]\)"):
        weft.ClothDef(cols=2 ** 40)
    with pytest.raises(weft.DefError, match=r"material.mass: 'heavy'"):
        weft.ClothDef(material={"mass": "heavy"})
    with pytest.raises(AttributeError, match="no field 'colz'"):
        weft.ClothDef(colz=3)
    with pytest.raises(weft.DefError, match="cols: 2.5 is not an integer"):
        weft.ClothDef(cols=2.5)


def test_array_fields_follow_the_header_rule():
    """A def with mesh-like fields (as issue 14's wfClothDef may get): each `const T*` followed by an
    `int ...Count` is a numpy array whose rows set the count, copied when the def comes from C."""
    if "wfTestMeshDef" not in ffi.list_types()[0]:
        weft._ffi.declare(ffi, "typedef struct wfTestMeshDef {\n"
                               "  const wfVec3* vertices; int vertexCount;\n"
                               "  const uint32_t* triangles; // (triangleCount x 3) particle indices\n"
                               "  int triangleCount;\n"
                               "  const float* weights; int weightCount; float scale;\n"
                               "} wfTestMeshDef;")

    class MeshDef(weft.Def):
        _ctype = "wfTestMeshDef"

    assert MeshDef.field_paths() == [("vertices", "buffer"), ("triangles", "buffer"), ("weights", "buffer"),
                                     ("scale", "float")]
    v = np.arange(12, dtype=np.float64).reshape(4, 3)
    m = MeshDef(vertices=v, triangles=[[0, 1, 2], [0, 2, 3]], weights=[0.5, 1.0, 2.0])
    assert m._c.vertexCount == 4 and m._c.triangleCount == 2 and m._c.weightCount == 3
    assert m.vertices.dtype == np.float32 and m.vertices.shape == (4, 3) and not m.vertices.flags.writeable
    assert m._c.vertices[3].z == 11.0 and m._c.triangles[5] == 3  # the C struct points at the data
    v[3, 2] = -1.0
    assert m._c.vertices[3].z == 11.0  # a copy: the caller's array can change
    back = MeshDef._from_c(m._c[0])
    assert back._c.vertices != m._c.vertices and np.array_equal(back.vertices, m.vertices)
    assert back.triangles.shape == (2, 3) and back.triangles.tolist() == [[0, 1, 2], [0, 2, 3]]
    assert back.weights.tolist() == [0.5, 1.0, 2.0]
    with pytest.raises(weft.DefError, match="vertices: 4 values is not rows of 3"):
        m.vertices = [1, 2, 3, 4]


def test_collider_def_round_trips_through_the_library():
    """Each field of wfColliderDef set alone comes back from wfCollider_GetDef (the rotation
    normalised, so to float rounding)."""
    n = 0
    with weft.World(backend="cpu") as w:
        for path, kind in weft.ColliderDef.field_paths():
            if path in ("mesh", "keyPositions"):
                continue  # the collider keeps a copy; wfCollider_GetDef gives them NULL (weft.h)
            d = weft.ColliderDef()
            setattr_path(d, path, new_value(d, path, kind))
            back = w.add_collider(d).def_
            if path == "rotation":
                assert np.allclose(back.rotation, d.rotation, atol=1e-7), back.rotation
            else:
                assert same(getattr_path(back, path), getattr_path(d, path)), path
            n += 1
    assert n == len(weft.ColliderDef.field_paths()) - 2 >= 9


# The def structs whose fields the library's tables describe (wfDefFields), and the members that
# are no value of their own: pointers the caller owns, their counts, callbacks, the cookie.
TABLED = {
    "wfWorldDef": lib.WF_DEF_WORLD, "wfStepDef": lib.WF_DEF_STEP, "wfSphereDef": lib.WF_DEF_SPHERE,
    "wfFloorDef": lib.WF_DEF_FLOOR, "wfWindDef": lib.WF_DEF_WIND, "wfContactDef": lib.WF_DEF_CONTACT,
    "wfAeroDef": lib.WF_DEF_AERO, "wfSelfCollisionDef": lib.WF_DEF_SELF_COLLISION,
    "wfMaterial": lib.WF_DEF_MATERIAL, "wfClothDef": lib.WF_DEF_CLOTH, "wfColliderDef": lib.WF_DEF_COLLIDER,
    "wfColliderKey": lib.WF_DEF_COLLIDER_KEY,
}
NOT_TABLED = {"logFn", "logContext", "assertFn", "vulkanDevice", "internalValue", "pinCount", "keyCount", "attachCount",
              "keyPositions", "keyPositionCount"}


def test_every_def_field_is_in_its_table():
    """A field added to a def in weft.h must be added to its table in defs.c (its default, range and
    scene key), or it would be a field without a default, a check or a key: each member of each
    tabled struct is in the table with its offset, and each table entry is a member."""
    assert lib.WF_DEF_COUNT == len(TABLED)
    checked = 0
    for name, kind in TABLED.items():
        count = ffi.new("int*")
        fields = lib.wfDefFields(kind, count)
        table = {ffi.string(fields[i].name).decode(): fields[i].offset for i in range(count[0])}
        members = {f: ffi.offsetof(name, f) for f, _ in ffi.typeof(name).fields}
        for member, offset in members.items():
            if member in NOT_TABLED:
                continue
            assert member in table, f"{name}.{member} is not in its field table (src/core/defs.c)"
            assert table[member] == offset, f"{name}.{member}: the table's offset {table[member]} is not {offset}"
            checked += 1
        assert set(table) <= set(members), f"{name}: table entries that are no member: {set(table) - set(members)}"
    print(f"{checked} fields of {len(TABLED)} defs in their tables")


def test_a_misspelt_field_is_a_def_error_with_suggestions():
    """Issue 29.2: a typo raised a bare AttributeError. Now a DefError (still an AttributeError, for
    hasattr and old code) names the field, the close matches and the fields there are; a field of a
    nested def says where it lives and how to pass it."""
    with weft.World(backend="cpu") as w:
        c = w.add_cloth(cols=4, rows=4)
        with pytest.raises(weft.DefError, match=r"^bendcompliance: wfMaterial has no field 'bendcompliance'; "
                                                r"did you mean bendCompliance\?") as e:
            c.set_material(bendcompliance=1e-4)
        assert e.value.field == "bendcompliance" and isinstance(e.value, AttributeError)
        assert "stretchCompliance" in str(e.value)  # the known fields are listed
        with pytest.raises(weft.DefError, match=r"wind.strenght: wfWindDef has no field 'strenght'; did you mean strength\?"):
            w.set_wind(strenght=2.0)
    # a field of a nested def: where it lives, and the dict that sets it
    with pytest.raises(weft.DefError, match=r"^substeps: wfWorldDef has no field 'substeps'; it is step.substeps: "
                                            r"step=\{'substeps': 10\}") as e:
        weft.World(substeps=10)
    assert e.value.field == "substeps"
    with pytest.raises(weft.DefError, match=r"mass: wfClothDef has no field 'mass'; it is material.mass: "
                                            r"material=\{'mass': 0.5\}"):
        weft.ClothDef(mass=0.5)
    # a near miss of a nested field
    with pytest.raises(weft.DefError, match=r"did you mean step.substeps"):
        weft.WorldDef(substep=10)
    # reading: an AttributeError with the same help; hasattr still answers
    with pytest.raises(AttributeError, match=r"did you mean cols\?"):
        weft.ClothDef().colz
    assert not hasattr(weft.ClothDef(), "colz") and hasattr(weft.ClothDef(), "cols")
    # nothing close: the fields are listed
    with pytest.raises(weft.DefError, match=r"wfMaterial has no field 'zzz' \(fields: .*stretchCompliance"):
        weft.Material(zzz=1)
