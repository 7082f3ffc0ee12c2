"""Defs as Python objects over the C structs themselves.

A Def owns (or, for a nested struct, views) one C struct allocated by cffi. Its attributes are the
struct's fields, read from cffi's own description of the type, so a field added to weft.h appears
here without a line of Python. Defaults come from the library's wfDefault*Def functions; values are
checked by the library when a def is used (wfCreateWorld, wfCreateCloth, the setters), and its
message, which names the field and its allowed range, becomes a DefError.

How a field looks from Python, by its C type:
  bool, integer, float        bool, int, float (a float field holds the float32 value)
  enum                        its scene-file name ("xpbd", "top-corners"); set by name or number
  wfVec3, wfQuat, T[N]        a tuple (a struct of floats named x, y, ..., or an array); set from any sequence
                              of that length
  nested struct               a Def viewing that part of the struct (world.step.substeps = 20)
  const char*                 str or None (the def keeps the bytes alive)
  const T* followed by an     a read-only numpy array of T, (rows, width) when the header's comment
    int field named ...Count    gives a shape like "(vertexCount x 3)" (wfVec3: width 3), else 1-D;
                                setting the array sets the count to its number of rows
  const S* of a struct with   that class's object or None (wfClothDef.mesh: a weft.Mesh), kept alive
    a class in POINTEES         by the def and copied deeply when the def comes from C
  other pointers              not exposed (callbacks, devices: the World and Renderer own them)
"""
import difflib
import os

import numpy as np

from ._ffi import ARRAY_WIDTHS, ffi
from .errors import DefError, UnknownFieldError

_HIDDEN = {"internalValue"}

_PRIMITIVE_DTYPES = {
    "float": np.float32, "double": np.float64, "int": np.int32, "int32_t": np.int32, "uint32_t": np.uint32,
    "int64_t": np.int64, "uint64_t": np.uint64, "uint8_t": np.uint8, "int16_t": np.int16, "uint16_t": np.uint16,
    "_Bool": np.bool_,
}


def _enum_names(ctype):
    """{value: name} of an enum, named as in scene files: WF_PIN_TOP_CORNERS -> "top-corners"."""
    elements = ctype.elements
    idents = list(elements.values())
    prefix = os.path.commonprefix(idents) if len(idents) > 1 else idents[0].rsplit("_", 1)[0] + "_"
    prefix = prefix[:prefix.rfind("_") + 1]
    return {value: elements[value][len(prefix):].lower().replace("_", "-") for value in sorted(elements)}


class _Field:
    """How one C field maps to Python (see the module's note)."""

    def __init__(self, name, cfield, fields, index):
        t = cfield.type
        self.name = name
        self.ctype = t
        self.count = None  # the companion count field of an array
        if t.kind == "primitive":
            self.kind = "bool" if t.cname == "_Bool" else ("float" if t.cname in ("float", "double") else "int")
        elif t.kind == "enum":
            self.kind = "enum"
            self.names = _enum_names(t)
            self.values = {n: v for v, n in self.names.items()}
        elif t.kind == "struct" and _is_tuple_struct(t):
            self.kind = "tuple"
            self.names = [n for n, _ in t.fields]
        elif t.kind == "struct":
            self.kind = "struct"
        elif t.kind == "pointer" and t.item.kind == "struct" and t.item.cname.replace("struct ", "") in POINTEES:
            self.kind = "object"
            self.cls = POINTEES[t.item.cname.replace("struct ", "")]
        elif t.kind == "array":
            self.kind = "array"
        elif t.kind == "pointer" and t.item.cname == "char":
            self.kind = "string"
        elif (t.kind == "pointer" and index + 1 < len(fields) and fields[index + 1][0].endswith("Count")
              and fields[index + 1][1].type.kind == "primitive" and (
                  t.item.cname in _PRIMITIVE_DTYPES or t.item.cname in ("wfVec3", "struct wfVec3"))):
            self.kind = "buffer"
            self.count = fields[index + 1][0]
            vec3 = t.item.cname in ("wfVec3", "struct wfVec3")
            self.dtype = np.float32 if vec3 else _PRIMITIVE_DTYPES[t.item.cname]
            self.width = 3 if vec3 else ARRAY_WIDTHS.get(name, 1)  # C elements per row
        else:
            self.kind = "hidden"
        if name in _HIDDEN:
            self.kind = "hidden"


# Python classes for structs that a def points to (wfClothDef.mesh -> weft.Mesh), filled by the
# package: a class with `_c` (a pointer to its struct) and `_from_c(value)` (a deep copy).
POINTEES = {}


def _is_tuple_struct(t):
    """wfVec3, wfQuat: a struct of floats named by single letters, shown as a tuple."""
    return bool(t.fields) and all(f.type.kind == "primitive" and f.type.cname == "float" and len(n) == 1
                                  for n, f in t.fields)


_LAYOUTS = {}
_FIELD_PATHS = {}


def _field_paths(ctype):
    """[(dotted path, kind)] of the fields a user sets in a struct and its nested ones, once per type."""
    key = ctype.cname
    if key not in _FIELD_PATHS:
        out = []

        def walk(t, prefix):
            for name, f in _layout(t).items():
                if f.kind == "struct":
                    walk(f.ctype, prefix + name + ".")
                elif f.kind not in ("hidden", "count"):
                    out.append((prefix + name, f.kind))
        walk(ctype, "")
        _FIELD_PATHS[key] = out
    return _FIELD_PATHS[key]
_POINTER_TYPES = {}
_HAS_POINTERS = {}


def _pointer_type(cname):
    """ffi.typeof("T *"), parsed once per type."""
    t = _POINTER_TYPES.get(cname)
    if t is None:
        t = _POINTER_TYPES[cname] = ffi.typeof(cname + " *")
    return t


def _has_pointers(ctype):
    """Whether a struct holds a pointer, here or in a nested struct."""
    key = ctype.cname
    if key not in _HAS_POINTERS:
        _HAS_POINTERS[key] = any(f.type.kind == "pointer" or (f.type.kind == "struct" and _has_pointers(f.type))
                                 for _, f in ctype.fields)
    return _HAS_POINTERS[key]


def _layout(ctype):
    """The Python view of a struct type: {name: _Field}, built once per type."""
    key = ctype.cname
    if key not in _LAYOUTS:
        fields = ctype.fields
        layout = {}
        counts = set()
        for i, (name, cfield) in enumerate(fields):
            f = _Field(name, cfield, fields, i)
            layout[name] = f
            if f.kind == "buffer":
                counts.add(f.count)
        for name in counts:  # a count follows its array: read-only from Python
            layout[name].kind = "count"
        # An array of structs the binding does not map (wfColliderDef.keys): its count goes with it.
        for i, (name, cfield) in enumerate(fields):
            if (layout[name].kind == "hidden" and cfield.type.kind == "pointer" and i + 1 < len(fields)
                    and fields[i + 1][0].endswith("Count")):
                layout[fields[i + 1][0]].kind = "hidden"
        _LAYOUTS[key] = layout
    return _LAYOUTS[key]


class Def:
    """A C def as a Python object; see the module's note. Subclasses name the struct and its default."""

    _ctype = None    # the C struct's name, e.g. "wfWorldDef"
    _default = None  # () -> cdata of the library's defaults

    def __init__(self, *, _view=None, _root=None, _path="", **fields):
        object.__setattr__(self, "_root", _root if _root is not None else self)
        object.__setattr__(self, "_path", _path)
        if _view is not None:
            object.__setattr__(self, "_c", _view)
            if _root is None:  # a view that is its own root keeps its strings and arrays
                object.__setattr__(self, "_keep", {})
        else:
            object.__setattr__(self, "_keep", {})
            c = ffi.new(self._ctype + " *")
            if self._default is not None:
                c[0] = type(self)._default()
            object.__setattr__(self, "_c", c)
        self.update(**fields)

    # ---- construction from C values
    @classmethod
    def _from_c(cls, value, _path=""):
        """A def that owns a copy of a struct the library returned; strings and arrays it points to
        are copied too, other pointers cleared (they belong to whoever made the struct). A struct
        without pointers (wfMaterial, the world's parts) is one copy: the live setters read the
        current values this way on every call."""
        d = object.__new__(cls)
        c = ffi.new(_pointer_type(cls._ctype), value)
        object.__setattr__(d, "_root", d)
        object.__setattr__(d, "_path", _path)  # a part's path in its parent ("wind."), for messages
        object.__setattr__(d, "_keep", {})
        object.__setattr__(d, "_c", c)
        if _has_pointers(ffi.typeof(cls._ctype)):
            d._own_pointers(c, _path)
        return d

    def _own_pointers(self, c, prefix):
        for name, f in _layout(ffi.typeof(c).item).items():
            path = prefix + name
            if f.kind == "struct":
                self._own_pointers(ffi.addressof(c[0], name), path + ".")
            elif f.kind == "string":
                p = getattr(c, name)
                self._set_string(c, path, name, None if p == ffi.NULL else ffi.string(p).decode())
            elif f.kind == "buffer":
                p, n = getattr(c, name), getattr(c, f.count)
                if p == ffi.NULL or n <= 0:
                    self._set_buffer(c, path, f, None)
                else:
                    raw = ffi.buffer(p, n * f.width * np.dtype(f.dtype).itemsize)  # rows x width elements
                    a = np.frombuffer(raw, dtype=f.dtype).copy()
                    self._set_buffer(c, path, f, a.reshape(n, f.width) if f.width > 1 else a)
            elif f.kind == "object":
                p = getattr(c, name)
                obj = None if p == ffi.NULL else f.cls._from_c(p[0])
                if obj is None:
                    self._root._keep.pop(path, None)
                else:
                    self._root._keep[path] = obj
                setattr(c, name, ffi.NULL if obj is None else obj._c)
            elif f.kind == "hidden" and f.ctype.kind == "pointer":
                # An array of structs with its count after it (wfColliderDef.keys): copied and kept,
                # not mapped; any other pointer cleared.
                fields = ffi.typeof(c).item.fields
                at = [n for n, _ in fields].index(name)
                count = fields[at + 1][0] if at + 1 < len(fields) and fields[at + 1][0].endswith("Count") else None
                p = getattr(c, name)
                n = getattr(c, count) if count is not None else 0
                if p != ffi.NULL and n > 0 and f.ctype.item.kind == "struct":
                    copy = ffi.new(f.ctype.item.cname + "[]", n)
                    ffi.memmove(copy, p, n * ffi.sizeof(f.ctype.item))
                    self._root._keep[path] = copy
                    setattr(c, name, copy)
                else:
                    self._root._keep.pop(path, None)
                    setattr(c, name, ffi.NULL)

    # ---- fields
    @classmethod
    def field_paths(cls, kinds=None):
        """Every field a Python user sets, as dotted paths ("step.substeps"), with its kind:
        [("backend", "enum"), ("step.substeps", "int"), ...]."""
        return [p for p in _field_paths(ffi.typeof(cls._ctype)) if kinds is None or p[1] in kinds]

    def _fields(self):
        return _layout(ffi.typeof(self._c).item)

    def __dir__(self):
        return sorted(set(super().__dir__()) | {n for n, f in self._fields().items() if f.kind != "hidden"})

    def __getattr__(self, name):
        if name.startswith("_"):
            raise AttributeError(name)
        f = self._fields().get(name)
        if f is None or f.kind == "hidden":
            raise self._unknown_field(name)
        c = self._c
        v = getattr(c, name)
        if f.kind == "struct":
            return _view_class(f.ctype.cname)(_view=ffi.addressof(c[0], name), _root=self._root,
                                                _path=self._path + name + ".")
        if f.kind == "tuple":
            return tuple(getattr(v, n) for n in f.names)
        if f.kind == "object":
            return self._root._keep.get(self._path + name)
        if f.kind == "array":
            return tuple(v[i] for i in range(f.ctype.length))
        if f.kind == "enum":
            return f.names.get(v, v)
        if f.kind == "string":
            return None if v == ffi.NULL else ffi.string(v).decode()
        if f.kind == "buffer":
            return self._root._keep.get(self._path + name)
        return v

    def __setattr__(self, name, value):
        f = self._fields().get(name)
        path = self._path + name
        if f is None or f.kind == "hidden":
            raise self._unknown_field(name, value)
        if f.kind == "count":
            raise UnknownFieldError("%s: set by its array (%s is the array's number of rows)" % (path, name), path)
        c = self._c
        try:
            if f.kind == "struct":
                view = getattr(self, name)
                if isinstance(value, Def):
                    value = value.to_dict()
                view.update(**dict(value))
            elif f.kind == "tuple":
                vals = [float(a) for a in value]
                if len(vals) != len(f.names):
                    raise DefError("%s: %d values given (allowed: exactly %d)" % (path, len(vals), len(f.names)), path)
                v = getattr(c, name)
                for n, a in zip(f.names, vals):
                    setattr(v, n, a)
            elif f.kind == "object":
                if value is not None and not isinstance(value, f.cls):
                    raise DefError("%s: a %s or None, not %s" % (path, f.cls.__name__, type(value).__name__), path)
                if value is None:
                    self._root._keep.pop(path, None)
                else:
                    self._root._keep[path] = value
                setattr(c, name, ffi.NULL if value is None else value._c)
            elif f.kind == "array":
                vals = list(value)
                if len(vals) != f.ctype.length:
                    raise DefError("%s: %d values given (allowed: exactly %d)" % (path, len(vals), f.ctype.length), path)
                arr = getattr(c, name)
                for i, a in enumerate(vals):
                    arr[i] = a
            elif f.kind == "enum":
                if isinstance(value, str):
                    key = value.lower().replace("_", "-")
                    if key not in f.values:
                        raise DefError("%s: '%s' is not one of %s" % (path, value, ", ".join(f.names.values())), path)
                    value = f.values[key]
                setattr(c, name, int(value))
            elif f.kind == "string":
                self._set_string(c, path, name, value)
            elif f.kind == "buffer":
                self._set_buffer(c, path, f, value)
            elif f.kind == "bool":
                setattr(c, name, bool(value))
            elif f.kind == "int":
                if isinstance(value, bool) or int(value) != value:
                    raise DefError("%s: %r is not an integer" % (path, value), path)
                setattr(c, name, int(value))
            else:
                setattr(c, name, float(value))
        except OverflowError:
            bits = ffi.sizeof(f.ctype) * 8
            lo, hi = (0, 2 ** bits - 1) if f.ctype.cname.startswith("uint") else (-2 ** (bits - 1), 2 ** (bits - 1) - 1)
            raise DefError("%s: %r does not fit a %s (allowed [%d, %d])" % (path, value, f.ctype.cname, lo, hi),
                           path) from None
        except (TypeError, ValueError) as e:
            if isinstance(e, DefError):
                raise
            raise DefError("%s: %r: %s" % (path, value, e), path) from None

    _NO_VALUE = object()

    def _unknown_field(self, name, value=_NO_VALUE):
        """The error for a field this def does not have (issue 29.2), in the manner of the scene
        loader's "unknown key (known: ...)": where a nested def has the name, the path and the dict
        that sets it (World(substeps=10): step={'substeps': 10}); else the close matches (difflib,
        ignoring case) among this def's fields and its nested ones; then the fields there are."""
        ctype = ffi.typeof(self._c).item
        cname = ctype.cname.replace("struct ", "")
        path = self._path + name
        top = [n for n, f in _layout(ctype).items() if f.kind not in ("hidden", "count")]
        nested = [p for p, _ in _field_paths(ctype) if "." in p]
        message = "%s: %s has no field '%s'" % (path, cname, name)
        homes = [p for p in nested if p.rsplit(".", 1)[1].lower() == name.lower()]
        if homes:
            home = homes[0]
            parts = home.split(".")
            shown = value if value is not self._NO_VALUE else "..."
            for part in reversed(parts[1:]):
                shown = {part: shown}
            message += "; it is %s: %s=%r" % (home, parts[0], shown)
        else:
            candidates = {}
            for p in top + nested:
                candidates.setdefault(p.rsplit(".", 1)[-1].lower(), []).append(p)
            close = ([name.lower()] if name.lower() in candidates  # only the case differs
                     else difflib.get_close_matches(name.lower(), list(candidates), n=3, cutoff=0.6))
            close = [p for key in close for p in candidates[key]]
            if close:
                message += "; did you mean %s?" % (close[0] if len(close) == 1 else
                                                   ", ".join(close[:-1]) + " or " + close[-1])
        message += " (fields: %s)" % ", ".join(top)
        return UnknownFieldError(message, path)

    def _set_string(self, c, path, name, value):
        if value is None:
            self._root._keep.pop(path, None)
            setattr(c, name, ffi.NULL)
            return
        s = ffi.new("char[]", str(value).encode())
        self._root._keep[path] = s
        setattr(c, name, s)

    def _set_buffer(self, c, path, f, value):
        if value is None:
            self._root._keep.pop(path, None)
            setattr(c, f.name, ffi.NULL)
            setattr(c, f.count, 0)
            return
        a = np.array(value, dtype=f.dtype, order="C", copy=True)
        if a.size % f.width:
            raise DefError("%s: %d values is not rows of %d" % (path, a.size, f.width), path)
        a = a.reshape(-1, f.width) if f.width > 1 else a.reshape(-1)
        rows = a.shape[0]
        a.setflags(write=False)
        self._root._keep[path] = a
        setattr(c, f.name, ffi.cast(f.ctype, ffi.from_buffer(a)) if a.size else ffi.NULL)
        setattr(c, f.count, rows)

    # ---- whole-def helpers
    def update(self, **fields):
        """Sets several fields; nested parts take dicts (world.update(step={"substeps": 20}))."""
        for k, v in fields.items():
            setattr(self, k, v)
        return self

    def to_dict(self):
        """The fields as a dict (nested parts as dicts, arrays as lists): what update() and the
        constructors take back."""
        out = {}
        for name, f in self._fields().items():
            if f.kind in ("hidden", "count"):
                continue
            v = getattr(self, name)
            if f.kind == "struct":
                v = v.to_dict()
            elif f.kind == "buffer" and v is not None:
                v = v.tolist()
            out[name] = v
        return out

    def copy(self):
        """An independent def with the same values (strings and arrays shared read-only)."""
        d = type(self)()
        d._c[0] = self._c[0]
        for path, obj in self._root._keep.items():
            if path.startswith(self._path):
                d._keep[path[len(self._path):]] = obj
        return d

    def __eq__(self, other):
        return isinstance(other, Def) and self._ctype == other._ctype and self.to_dict() == other.to_dict()

    def __repr__(self):
        return "%s(%s)" % (type(self).__name__, ", ".join("%s=%s" % kv for kv in self._repr_items()))

    def _repr_items(self):
        """(name, text) per field for repr: a float field as the shortest text that reads back as the
        same float32 (timeStep=0.016666668, not the double 0.01666666753590107), nested defs as the
        dicts that set them, arrays by shape."""
        out = []
        for name, f in self._fields().items():
            if f.kind in ("hidden", "count"):
                continue
            v = getattr(self, name)
            if f.kind == "struct":
                text = "{%s}" % ", ".join("%r: %s" % kv for kv in v._repr_items())
            elif f.kind == "float":
                text = _float_text(v, f.ctype.cname)
            elif f.kind == "tuple":
                text = "(%s)" % ", ".join(_float_text(a, "float") for a in v)
            elif f.kind == "array":
                item = f.ctype.item
                text = "(%s)" % ", ".join(_float_text(a, item.cname) if item.kind == "primitive" and
                                          item.cname in ("float", "double") else repr(a) for a in v)
            elif f.kind == "buffer" and v is not None and v.size > 12:
                text = "<%s array %s>" % (v.dtype.name, "x".join(str(n) for n in v.shape))
            elif f.kind == "buffer" and v is not None:  # a few pins: the list that sets them
                text = repr(v.tolist())
            else:
                text = repr(v)
            out.append((name, text))
        return out


def _float_text(v, cname):
    """A float field's value as text: float32 fields by numpy's shortest round-trip form."""
    if cname == "float":  # numpy's shortest float32 digits, written as Python writes that number
        return repr(float(str(np.float32(v))))
    return repr(float(v))


_VIEWS = {}


def _view_class(cname):
    """A Def class for a nested struct (wfStepDef -> StepDef), made once per struct."""
    cname = cname.replace("struct ", "")
    if cname not in _VIEWS:
        pyname = cname[2:] if cname.startswith("wf") else cname
        _VIEWS[cname] = type(pyname, (Def,), {"_ctype": cname, "_default": None})
    return _VIEWS[cname]
