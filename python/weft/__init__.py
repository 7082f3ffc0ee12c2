"""weft: real-time cloth simulation, from Python.

    import weft
    world = weft.World(backend="cpu", sphere={"enabled": True})
    cloth = world.add_cloth(cols=64, rows=64, pinMode="top-corners")
    world.step(100)
    p = cloth.positions            # (4096, 3) float32, a copy that outlives the world

Defs (WorldDef, ClothDef, Material, ColliderDef, RendererDef, Camera) carry the C field names and the library's
defaults; a bad value raises DefError naming the field and its range, from the library's own checks.
Every call into the library releases the GIL (cffi does so for every call), so worlds can step in
threads; one world is used by one thread at a time (each World holds a lock around its calls).
"""
from __future__ import annotations

import inspect
import logging
import os
import re
import threading
import weakref
from typing import Any, Dict, List, Mapping, Optional, Sequence, Tuple, Union

import numpy as np
from numpy.typing import ArrayLike

from ._ffi import ffi, lib, render_lib
from ._defs import POINTEES, Def, _is_tuple_struct, _layout, _view_class
from .errors import (ArgumentError, BackendUnavailableError, ClosedError, DefError, DeviceLostError, SceneError,
                     UnknownFieldError, WeftError)

__all__ = ["World", "Cloth", "Collider", "WorldDef", "ClothDef", "Material", "ColliderDef", "Mesh", "RendererDef",
           "Camera", "Renderer", "Scene", "Video", "load_obj", "parse_obj", "load_scene", "parse_scene", "preset",
           "presets", "backends", "devices", "render", "version", "WeftError", "DefError", "ArgumentError",
           "BackendUnavailableError", "DeviceLostError", "SceneError", "ClosedError", "UnknownFieldError"]

Vec3 = Sequence[float]  # any 3 numbers: a tuple, a list, a numpy row
Cloths = Optional[Sequence["Cloth"]]

version = "%d.%d.%d" % (lib.WF_VERSION_MAJOR, lib.WF_VERSION_MINOR, lib.WF_VERSION_PATCH)
_log = logging.getLogger("weft")
_ERROR_SIZE = 1024


# ------------------------------------------------------------------------------------------ defs
class WorldDef(Def):
    """wfWorldDef with wfDefaultWorldDef()'s values."""
    _ctype = "wfWorldDef"
    _default = staticmethod(lambda: lib.wfDefaultWorldDef())


class ClothDef(Def):
    """wfClothDef with wfDefaultClothDef()'s values."""
    _ctype = "wfClothDef"
    _default = staticmethod(lambda: lib.wfDefaultClothDef())


class Material(Def):
    """wfMaterial with wfDefaultMaterial()'s values."""
    _ctype = "wfMaterial"
    _default = staticmethod(lambda: lib.wfDefaultMaterial())


class ColliderDef(Def):
    """wfColliderDef with wfDefaultColliderDef()'s values (type "sphere", "capsule", "box", "plane", or
    "mesh" with mesh=weft.Mesh(...) and keyed shapes in keyPositions)."""
    _ctype = "wfColliderDef"
    _default = staticmethod(lambda: lib.wfDefaultColliderDef())


class Mesh:
    """A polygon mesh for a cloth (wfMeshDef): ClothDef(mesh=weft.Mesh(positions, faces)).

    positions: (n, 3) rest positions, relative to the cloth def's origin. faces: an (m, 3) or (m, 4)
    index array, or a list of faces of 3 or 4 indices each. uvs: optional (n, 2); cornerUVs:
    optional (corners, 2), one per face corner (seams). The arrays are copied; the library
    validates them when the cloth is created (DefError "mesh.indices[5]: ...").
    """

    def __init__(self, positions: Any, faces: Any, uvs: Any = None, cornerUVs: Any = None) -> None:
        p = np.array(positions, dtype=np.float32, order="C").reshape(-1, 3)
        if isinstance(faces, np.ndarray) and faces.ndim == 2:
            sizes = np.full(faces.shape[0], faces.shape[1], dtype=np.uint8)
            indices = np.array(faces, dtype=np.uint32, order="C").reshape(-1)
        else:
            faces = [list(f) for f in faces]
            sizes = np.array([len(f) for f in faces], dtype=np.uint8)
            indices = np.array([i for f in faces for i in f], dtype=np.uint32)
        self._arrays = {"positions": p, "indices": indices, "faceSizes": sizes}
        # The arrays' shapes against the mesh (the library refuses a count that does not match too,
        # wfMeshDef.uvCount / cornerUVCount): a short one would otherwise be read past its end.
        corners = int(sizes.sum(dtype=np.int64))
        for name, value, rows, what in (("uvs", uvs, p.shape[0], "vertices"),
                                        ("cornerUVs", cornerUVs, corners, "face corners")):
            if value is None:
                continue
            a = np.array(value, dtype=np.float32, order="C")
            if a.ndim == 1 and a.size % 2 == 0:
                a = a.reshape(-1, 2)
            if a.ndim != 2 or a.shape != (rows, 2):
                raise DefError("mesh.%s: shape %s for %d %s (allowed: (%d, 2))" % (name, a.shape, rows, what, rows),
                               "mesh." + name)
            self._arrays[name] = a
        for a in self._arrays.values():
            a.setflags(write=False)
        c = ffi.new("wfMeshDef *")
        c.positions = ffi.cast("wfVec3 *", ffi.from_buffer(p))
        c.vertexCount = p.shape[0]
        c.indices = ffi.cast("uint32_t *", ffi.from_buffer(indices)) if indices.size else ffi.NULL
        # all triangles: faceSizes NULL, as the header allows
        c.faceSizes = ffi.NULL if (sizes == 3).all() else ffi.cast("uint8_t *", ffi.from_buffer(sizes))
        c.faceCount = sizes.size
        for name, count in (("uvs", "uvCount"), ("cornerUVs", "cornerUVCount")):
            if name in self._arrays:
                setattr(c, name, ffi.cast("float *", ffi.from_buffer(self._arrays[name])))
                setattr(c, count, self._arrays[name].shape[0])
        self._c = c

    @classmethod
    def _from_c(cls, value):
        """A copy of a wfMeshDef's arrays (the scene's or the OBJ reader's memory)."""
        n, m = value.vertexCount, value.faceCount
        p = np.frombuffer(ffi.buffer(value.positions, 12 * n), dtype=np.float32).reshape(n, 3)
        sizes = (np.frombuffer(ffi.buffer(value.faceSizes, m), dtype=np.uint8) if value.faceSizes != ffi.NULL
                 else np.full(m, 3, np.uint8))
        corners = int(sizes.sum(dtype=np.int64))
        indices = np.frombuffer(ffi.buffer(value.indices, 4 * corners), dtype=np.uint32)
        faces = np.split(indices, np.cumsum(sizes[:-1], dtype=np.int64)) if m > 1 else [indices]
        uvs = (np.frombuffer(ffi.buffer(value.uvs, 8 * n), dtype=np.float32) if value.uvs != ffi.NULL else None)
        cuv = (np.frombuffer(ffi.buffer(value.cornerUVs, 8 * corners), dtype=np.float32)
               if value.cornerUVs != ffi.NULL else None)
        return cls(p, [f.tolist() for f in faces], uvs, cuv)

    positions = property(lambda self: self._arrays["positions"], doc="(n, 3) float32")
    indices = property(lambda self: self._arrays["indices"], doc="the faces' corners, face after face (uint32)")
    face_sizes = property(lambda self: self._arrays["faceSizes"], doc="3 or 4 per face (uint8)")
    uvs = property(lambda self: self._arrays.get("uvs"), doc="(n, 2) float32 or None")
    corner_uvs = property(lambda self: self._arrays.get("cornerUVs"), doc="(corners, 2) float32 or None")

    @property
    def faces(self) -> List[List[int]]:
        """The faces as lists of 3 or 4 vertex indices."""
        return [f.tolist() for f in np.split(self.indices, np.cumsum(self.face_sizes[:-1], dtype=np.int64))]

    def __eq__(self, other):
        return isinstance(other, Mesh) and self._arrays.keys() == other._arrays.keys() and all(
            np.array_equal(a, other._arrays[k]) for k, a in self._arrays.items())

    def __repr__(self):
        return "Mesh(%d vertices, %d faces)" % (self.positions.shape[0], self.face_sizes.size)


POINTEES["wfMeshDef"] = Mesh


def _mesh_from(ptr):
    try:
        return Mesh._from_c(lib.wfMesh_GetDef(ptr))
    finally:
        lib.wfDestroyMesh(ptr)


def load_obj(path: Union[str, "os.PathLike[str]"]) -> Mesh:
    """A Mesh from a Wavefront OBJ file (wfMesh_LoadObj: welded vertices, per-corner UVs); a bad file
    raises SceneError naming the file, the line and the reason."""
    err = ffi.new("char[]", _ERROR_SIZE)
    ptr = lib.wfMesh_LoadObj(str(path).encode(), err, _ERROR_SIZE)
    if ptr == ffi.NULL:
        raise SceneError(ffi.string(err).decode(), "WF_ERROR_PARSE")
    return _mesh_from(ptr)


def parse_obj(text: str, name: str = "<string>") -> Mesh:
    """A Mesh from OBJ text (`name` is the file name its errors give); a bad line raises SceneError."""
    err = ffi.new("char[]", _ERROR_SIZE)
    ptr = lib.wfMesh_ParseObj(text.encode(), name.encode(), err, _ERROR_SIZE)
    if ptr == ffi.NULL:
        raise SceneError(ffi.string(err).decode(), "WF_ERROR_PARSE")
    return _mesh_from(ptr)


if render_lib is not None:
    class RendererDef(Def):
        """wfRendererDef with wfDefaultRendererDef()'s values (world and device pointers are the Renderer's)."""
        _ctype = "wfRendererDef"
        _default = staticmethod(lambda: render_lib.wfDefaultRendererDef())

    class Camera(Def):
        """wfCamera, an orbit camera; the default is wfDefaultCameraForPreset(NULL)."""
        _ctype = "wfCamera"
        _default = staticmethod(lambda: render_lib.wfDefaultCameraForPreset(ffi.NULL))

        @classmethod
        def look_at(cls, eye: Vec3, target: Vec3, fov: float = 45.0) -> "Camera":
            """A camera at `eye` looking at `target`, `fov` degrees vertically (wfCameraLookAt)."""
            return cls._from_c(render_lib.wfCameraLookAt(_vec3(eye), _vec3(target), float(fov)))

        @classmethod
        def for_preset(cls, name: str) -> "Camera":
            """The camera the viewer uses for a preset ("flag", "xpbd", ...)."""
            return cls._from_c(render_lib.wfDefaultCameraForPreset(name.encode()))

        @classmethod
        def fit(cls, world: "World", cloths: Cloths = None, fov: float = 45.0) -> "Camera":
            """A view of the whole scene (wfCameraFit)."""
            ids = world._ids(cloths)
            return cls._from_c(render_lib.wfCameraFit(world._live(), ids, len(world._id_list(cloths)), float(fov)))

        @property
        def eye(self) -> Tuple[float, float, float]:
            """Where the camera is, in world coordinates."""
            e = render_lib.wfCamera_GetEye(self._c)
            return (e.x, e.y, e.z)
else:  # built without the renderer (no Vulkan headers or glslc)
    RendererDef = Camera = None


# ------------------------------------------------------------------------------------------ errors
_RESULT_ERRORS = {
    "WF_ERROR_INVALID_DEF": DefError,
    "WF_ERROR_INVALID_ARGUMENT": ArgumentError,
    "WF_ERROR_BACKEND_UNAVAILABLE": BackendUnavailableError,
    "WF_ERROR_DEVICE_LOST": DeviceLostError,
    "WF_ERROR_PARSE": SceneError,
}


def _raise(result, message):
    name = ffi.typeof("wfResult").elements.get(result, "WF_ERROR_%d" % result)
    cls = _RESULT_ERRORS.get(name, WeftError)
    raise DefError(message) if cls is DefError else cls(message, name)


def _creation_error(message, def_, fallback):
    """A NULL from a create function: DefError when the message starts with a field of the def (the
    validators' "field: value is out of range [lo, hi]"), else `fallback`."""
    head = message.split(":", 1)[0]
    # the renderer's "wfRendererDef.width: ...", the colliders' "collider.radius: ..."
    struct = re.match(r"wf[A-Za-z]+Def\.|collider\.", head)
    if struct:
        head = head[struct.end():]
    names = {p for p, _ in def_.field_paths()} | {p.rsplit(".", 1)[0] for p, _ in def_.field_paths()}
    face = re.match(r"(\w+) face \d+$", head)  # "mesh face 3: vertex 2 appears twice"
    parts = [face.group(1)] if face else [p.strip().split("[")[0] for p in head.replace(" x ", ",").split(",")]
    # a vector's component names its field ("halfExtents.x" -> halfExtents); an array of an object
    # field keeps its name ("mesh.indices")
    parts = [p.rsplit(".", 1)[0] if re.search(r"\.[xyzw]$", p) else p for p in parts]
    if head.endswith(" def") or (parts and all(p in names or p.split(".")[0] in names for p in parts)):
        return DefError(message, parts[0] if len(parts) == 1 else None)
    return fallback(message)


def _def_from(cls, def_, fields):
    """A new def of cls from None (the defaults), a def of that class or a dict, then the fields."""
    if def_ is None:
        d = cls()
    elif isinstance(def_, cls):
        d = def_.copy()
    elif isinstance(def_, dict):
        d = cls(**def_)
    else:
        raise ArgumentError("def: a %s or a dict, not %s" % (cls.__name__, type(def_).__name__),
                            "WF_ERROR_INVALID_ARGUMENT")
    return d.update(**fields)


def _short(x):
    """A double for a repr: 6 significant digits."""
    return "%.6g" % x


def _id_key(cid):
    """A cloth's or collider's id as a dict key: (index, generation) within its world."""
    return (cid.index, cid.generation)


def _vec3(v):
    x, y, z = (float(a) for a in v)
    return {"x": x, "y": y, "z": z}


_FLT_MAX = float(np.finfo(np.float32).max)


def _struct_dict(value):
    """A plain C struct returned by the library as a dict (vectors as tuples, arrays as lists)."""
    out = {}
    for name, f in ffi.typeof(value).fields:
        v = getattr(value, name)
        t = f.type
        if t.kind == "struct" and _is_tuple_struct(t):
            v = tuple(getattr(v, n) for n, _ in t.fields)
        elif t.kind == "struct":
            v = _struct_dict(v)
        elif t.kind == "array" and t.item.cname == "char":
            v = ffi.string(v).decode()
        elif t.kind == "array":
            v = [v[i] for i in range(t.length)]
        out[name] = v
    return out


# ------------------------------------------------------------------------------------------ world
# Lifetimes (issue 29.1). Nothing the library calls back, and nothing a World refers to, refers back
# to the World: its log callback holds a weakref, its cloths and colliders are kept as ids (a Cloth
# refers to its World, which keeps the world alive while a cloth is in use), and its renderers as
# handles. So `del world` destroys the C world at once by reference counting, and no cycle waits for
# the cyclic GC. The destruction is a weakref.finalize of a function that sees only a _WorldCore
# (the pointers), never the World: it runs once, from close(), from the last reference going, or at
# exit. Its library calls were looked up at import (_ffi._resolve_all), so a finaliser run by the GC
# in the middle of a cffi lookup takes no lock.
class _WorldCore:
    """What destroying a world needs: its pointer, its log callback (alive until then) and the
    handles of the renderers that must go first."""
    __slots__ = ("ptr", "log_cb", "renderers")

    def __init__(self):
        self.ptr = None
        self.log_cb = None
        self.renderers = set()


def _destroy_world(core):
    for h in list(core.renderers):
        _destroy_renderer(h)
    ptr, core.ptr = core.ptr, None
    if ptr is not None:
        lib.wfDestroyWorld(ptr)
    core.log_cb = None


_LOG_LEVELS = {0: ("error", logging.ERROR), 1: ("warning", logging.WARNING)}


def _log_callback(world_ref):
    """A wfLogFn for one world that holds the World by a weakref: lines go to its `messages` while it
    lives and always to the "weft" logger."""
    def on_log(level, message, context):
        text = ffi.string(message).decode(errors="replace")
        name, py_level = _LOG_LEVELS.get(level, ("info", logging.INFO))
        world = world_ref()
        if world is not None and len(world.messages) < 10000:
            world.messages.append((name, text))
        _log.log(py_level, "%s", text)
    return ffi.callback("wfLogFn", on_log)


class World:
    """A wfWorld: the backend, colliders, wind, stepping settings and its cloths.

    World(def=None, **fields): fields override the def's (World(backend="cpu", step={"substeps": 20})).
    The library's log lines go to the "weft" logger and into `messages`.
    """

    def __init__(self, def_: Union[WorldDef, Mapping[str, Any], None] = None, **fields: Any) -> None:
        d = _def_from(WorldDef, def_, fields)
        self._lock = threading.RLock()
        self._ptr = None
        self._core = core = _WorldCore()
        self._cloth_ids = []     # wfClothId* of the live cloths, in creation order
        self._cloth_objs = weakref.WeakValueDictionary()     # (index, generation) -> its Cloth while one exists
        self._collider_ids = []  # wfColliderId*, likewise
        self._collider_objs = weakref.WeakValueDictionary()
        self.messages = []  # (level, message) of every line the library logged for this world
        core.log_cb = _log_callback(weakref.ref(self))
        d._c.logFn = core.log_cb
        err = ffi.new("char[]", _ERROR_SIZE)
        ptr = lib.wfCreateWorld(d._c, err, _ERROR_SIZE)
        if ptr == ffi.NULL:
            raise _creation_error(ffi.string(err).decode(), d, lambda m: BackendUnavailableError(
                m, "WF_ERROR_BACKEND_UNAVAILABLE"))
        self._ptr = core.ptr = ptr
        self._finalizer = weakref.finalize(self, _destroy_world, core)

    # ---- lifetime
    def close(self) -> None:
        """Destroys the world (renderers on it first). Cloths and renderers of it refuse further use;
        arrays read from them stay valid (they are copies). Dropping the last reference to the world
        (and to its cloths and colliders) does the same at once."""
        with self._lock:
            self._ptr = None
            finalizer = getattr(self, "_finalizer", None)
            if finalizer is not None:
                finalizer()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    @property
    def closed(self) -> bool:
        """True once the world is destroyed."""
        return self._ptr is None

    def __repr__(self):
        if self._ptr is None:
            return "<weft.World closed>"
        backend = self.backend
        device = " device=%r" % self.device_name if backend != "cpu" else ""
        return "<weft.World backend=%r%s cloths=%d colliders=%d time=%s>" % (
            backend, device, len(self._cloth_ids), len(self._collider_ids), _short(self.time))

    def _live(self):
        if self._ptr is None:
            raise ClosedError("the world is closed")
        return self._ptr

    def _check(self, result):
        if result != lib.WF_OK:
            _raise(result, ffi.string(lib.wfWorld_GetLastError(self._ptr)).decode())

    # ---- stepping
    def step(self, frames: int = 1) -> None:
        """Advances every cloth by `frames` frames; the GIL is released inside each frame."""
        if int(frames) != frames or frames < 0:
            raise ArgumentError("frames: %r (allowed: an integer >= 0)" % (frames,), "WF_ERROR_INVALID_ARGUMENT")
        with self._lock:
            p = self._live()
            for _ in range(int(frames)):
                self._check(lib.wfWorld_Step(p))

    # ---- cloths
    def add_cloth(self, def_: Union[ClothDef, Mapping[str, Any], None] = None, **fields: Any) -> Cloth:
        """Creates a cloth from a ClothDef and/or fields (add_cloth(cols=64, rows=64, pinMode="top-row"))."""
        d = _def_from(ClothDef, def_, fields)
        with self._lock:
            cid = lib.wfCreateCloth(self._live(), d._c)
            if lib.wfClothId_IsNull(cid):
                raise _creation_error(ffi.string(lib.wfWorld_GetLastError(self._ptr)).decode(), d,
                                      lambda m: WeftError(m))
            c = Cloth(self, cid)
            self._cloth_ids.append(c._id)
            self._cloth_objs[_id_key(cid)] = c
            return c

    @property
    def cloths(self) -> List[Cloth]:
        """The live cloths, in creation order (the same objects while they are referred to)."""
        return [self._wrapper(Cloth, self._cloth_objs, p) for p in self._cloth_ids]

    def _wrapper(self, cls, objs, id_ptr):
        key = _id_key(id_ptr[0])
        obj = objs.get(key)
        if obj is None:
            obj = cls(self, id_ptr[0], _checked=True)
            objs[key] = obj
        return obj

    def _forget(self, ids, objs, obj):
        key = _id_key(obj._id[0])
        objs.pop(key, None)
        ids[:] = [p for p in ids if _id_key(p[0]) != key]

    # ---- colliders
    def add_collider(self, def_: Union[ColliderDef, Mapping[str, Any], None] = None, **fields: Any) -> Collider:
        """A collider (sphere, capsule, box or plane) from a ColliderDef and/or fields:
        add_collider(type="box", position=(0, 0.7, 0), halfExtents=(0.4, 0.04, 0.3))."""
        d = _def_from(ColliderDef, def_, fields)
        with self._lock:
            cid = lib.wfCreateCollider(self._live(), d._c)
            if lib.wfColliderId_IsNull(cid):
                message = ffi.string(lib.wfWorld_GetLastError(self._ptr)).decode()
                raise _creation_error(message, d, lambda m: BackendUnavailableError(m, "WF_ERROR_BACKEND_UNAVAILABLE")
                                      if "backend" in m.lower() or "vulkan" in m.lower() else WeftError(m))
            c = Collider(self, cid)
            self._collider_ids.append(c._id)
            self._collider_objs[_id_key(cid)] = c
            return c

    @property
    def colliders(self) -> List[Collider]:
        """The live colliders, in creation order."""
        return [self._wrapper(Collider, self._collider_objs, p) for p in self._collider_ids]

    def _id_list(self, cloths):
        return self.cloths if cloths is None else list(cloths)

    def _ids(self, cloths):
        lst = self._id_list(cloths)
        ids = ffi.new("wfClothId[]", max(1, len(lst)))
        for i, c in enumerate(lst):
            if c._world is not self:
                raise ArgumentError("cloth %d: not a cloth of this world" % i, "WF_ERROR_INVALID_ARGUMENT")
            ids[i] = c._id[0]
        return ids

    # ---- state and settings
    @property
    def def_(self) -> WorldDef:
        """The resolved wfWorldDef (wfWorld_GetDef): backend and threads as in use."""
        with self._lock:
            return WorldDef._from_c(lib.wfWorld_GetDef(self._live()))

    @property
    def time(self) -> float:
        """Simulated seconds since the world was made (or the snapshot restored)."""
        return lib.wfWorld_GetTime(self._live())

    @property
    def backend(self) -> str:
        """The backend in use: "cpu" or "vulkan"."""
        return ffi.string(lib.wfBackendName(lib.wfWorld_GetBackend(self._live()))).decode()

    @property
    def device_name(self) -> str:
        """The device the world runs on (the CPU's name, or the Vulkan device's)."""
        return ffi.string(lib.wfWorld_GetDeviceName(self._live())).decode()

    @property
    def thread_count(self) -> int:
        """CPU worker threads in use."""
        return lib.wfWorld_GetThreadCount(self._live())

    @property
    def last_error(self) -> str:
        """The library's last error message for this world ("" if none)."""
        return ffi.string(lib.wfWorld_GetLastError(self._live())).decode()

    @property
    def warnings(self) -> Dict[str, Any]:
        """wfWarnings as a dict: nonFinite, unstable, unstableInContact, timeStepTooLarge, validationMessages, tunnelled."""
        return _struct_dict(lib.wfWorld_GetWarnings(self._live()))

    def count_intersections(self) -> Dict[str, int]:
        """wfWorld_CountIntersections now: {"self", "cloths", "colliders", "clothsApart"} (edges through
        triangles of the same cloth, of another cloth in contact with it, particles or edges inside
        colliders, and edges through another cloth the world keeps no contact with). The GIL is released."""
        out = ffi.new("wfIntersections *")
        with self._lock:
            self._check(lib.wfWorld_CountIntersections(self._live(), out))
        return {"self": int(out.self), "cloths": int(out.cloths), "colliders": int(out.colliders), "clothsApart": int(out.clothsApart)}

    @property
    def profile(self) -> Dict[str, Any]:
        """wfStepProfile of the last frame as a dict (stageMs a list per wfStage)."""
        return _struct_dict(lib.wfWorld_GetStepProfile(self._live()))

    @property
    def sphere_center(self) -> Tuple[float, float, float]:
        """Where the (possibly moving) sphere of the world def is now."""
        v = lib.wfWorld_GetSphereCenter(self._live())
        return (v.x, v.y, v.z)

    @property
    def stage_timing(self) -> bool:
        """Whether each frame times its stages (profile()["stageMs"]); settable."""
        return bool(lib.wfWorld_GetStageTiming(self._live()))

    @stage_timing.setter
    def stage_timing(self, on: bool) -> None:
        with self._lock:
            self._check(lib.wfWorld_SetStageTiming(self._live(), bool(on)))

    def _set_part(self, name, setter, part, fields):
        # Only the part is copied out of the resolved def (a struct without pointers: one copy), so a
        # setter costs about its C call (issue 29.4: reading the whole def as a WorldDef took 38 us).
        with self._lock:
            view = _PART_CLASSES[name]._from_c(getattr(lib.wfWorld_GetDef(self._live()), name),
                                                _path=name + ".")
            if part is not None:
                view.update(**(part.to_dict() if isinstance(part, Def) else dict(part)))
            view.update(**fields)
            self._check(setter(self._ptr, view._c))

    def set_step(self, step: Optional[Mapping[str, Any]] = None, **fields: Any) -> None:
        """Live stepping settings: set_step(substeps=20) (the others keep their values)."""
        self._set_part("step", lib.wfWorld_SetStep, step, fields)

    def set_sphere(self, sphere: Optional[Mapping[str, Any]] = None, **fields: Any) -> None:
        """Live sphere: set_sphere(radius=0.3) (the others keep their values)."""
        self._set_part("sphere", lib.wfWorld_SetSphere, sphere, fields)

    def set_floor(self, floor: Optional[Mapping[str, Any]] = None, **fields: Any) -> None:
        """Live floor: set_floor(enabled=True, height=0) (the others keep their values)."""
        self._set_part("floor", lib.wfWorld_SetFloor, floor, fields)

    def set_wind(self, wind: Optional[Mapping[str, Any]] = None, **fields: Any) -> None:
        """Live wind: set_wind(mode="gust", strength=3) (the others keep their values); costs about its C call."""
        self._set_part("wind", lib.wfWorld_SetWind, wind, fields)

    def set_contact(self, contact: Optional[Mapping[str, Any]] = None, **fields: Any) -> None:
        """Live collider contact: set_contact(friction=0.5, thickness=0.01) (the others keep their values)."""
        self._set_part("contact", lib.wfWorld_SetContact, contact, fields)

    def set_self_collision(self, self_collision: Optional[Mapping[str, Any]] = None, **fields: Any) -> None:
        """Live: set_self_collision(enabled=True, thickness=0.01) (the others keep their values)."""
        self._set_part("selfCollision", lib.wfWorld_SetSelfCollision, self_collision, fields)

    def set_sphere_moving(self, moving: bool) -> None:
        """Starts or stops the sphere's oscillation (sphere.moving)."""
        with self._lock:
            self._check(lib.wfWorld_SetSphereMoving(self._live(), bool(moving)))

    def set_gravity(self, gravity: Vec3) -> None:
        """Live gravity, m/s^2: set_gravity((0, -9.81, 0))."""
        with self._lock:
            self._check(lib.wfWorld_SetGravity(self._live(), _vec3(gravity)))

    # ---- snapshots
    def snapshot(self) -> bytes:
        """The dynamic state of every cloth as bytes; restore() continues bit-identically."""
        with self._lock:
            p = self._live()
            n = lib.wfWorld_GetSnapshotSize(p)
            buf = ffi.new("char[]", max(1, n))
            self._check(lib.wfWorld_SaveSnapshot(p, buf, n))
            return bytes(ffi.buffer(buf, n))

    def state_hash(self) -> int:
        """A 64-bit hash of the bits of the dynamic state (wfWorld_GetStateHash): equal on every backend."""
        with self._lock:
            out = ffi.new("uint64_t*")
            self._check(lib.wfWorld_GetStateHash(self._live(), out))
            return int(out[0])

    def restore(self, snapshot: bytes) -> None:
        """Puts back the state of snapshot() (of this world, or one made the same way)."""
        with self._lock:
            data = bytes(snapshot)
            self._check(lib.wfWorld_RestoreSnapshot(self._live(), data, len(data)))

    def render(self, size: Tuple[int, int] = (1280, 720), camera: Any = None, out: Optional[np.ndarray] = None,
               **style: Any) -> np.ndarray:
        """weft.render(self, ...)."""
        return render(self, size=size, camera=camera, out=out, **style)


# The Def classes of the world's live parts (world.step -> StepDef), for World._set_part.
_PART_CLASSES = {name: _view_class(_layout(ffi.typeof("wfWorldDef"))[name].ctype.cname)
                 for name in ("step", "sphere", "floor", "wind", "contact", "selfCollision")}


# ------------------------------------------------------------------------------------------ signatures
class _Shown:
    """A default in a signature, shown as given text (a float32 default in its shortest form)."""

    def __init__(self, text):
        self.text = text

    def __repr__(self):
        return self.text


_ANNOTATIONS = {"bool": "bool", "int": "int", "float": "float", "enum": "str", "tuple": "Sequence[float]",
                "struct": "Mapping[str, Any]", "string": "Optional[str]", "buffer": "Optional[ArrayLike]",
                "object": "Optional[Mesh]", "array": "Sequence[float]"}


def _with_fields(func, def_cls, unchanged=False):
    """Shows a def's fields in func's signature as keyword-only parameters, with their types and the
    library's defaults (or <unchanged> for a live setter), in place of **fields: help() and editors'
    completion then list them. Made from the C struct, so a field added to weft.h appears here too."""
    sig = inspect.signature(func)
    params = [p for p in sig.parameters.values() if p.kind != p.VAR_KEYWORD and not p.name.startswith("_")]
    taken = {p.name for p in params}
    defaults = dict(def_cls()._repr_items())
    for name, f in _layout(ffi.typeof(def_cls._ctype)).items():
        if f.kind in ("hidden", "count") or name in taken:
            continue
        default = _Shown("<unchanged>" if unchanged else defaults[name])
        params.append(inspect.Parameter(name, inspect.Parameter.KEYWORD_ONLY, default=default,
                                        annotation=_ANNOTATIONS.get(f.kind, "Any")))
    func.__signature__ = sig.replace(parameters=params)


# ------------------------------------------------------------------------------------------ cloth
class Cloth:
    """A cloth of a world (a wfClothId). Reads return new numpy arrays, or fill `out` when given."""

    def __init__(self, world, cid, _checked=False):
        self._world = world
        self._id = ffi.new("wfClothId *", cid)
        if not _checked:
            info = ffi.new("wfClothInfo *")
            world._check(lib.wfCloth_GetInfo(cid, info))

    @property
    def _n(self):
        # Asked each time: tearing (material tearStrain) adds particles between frames.
        info = ffi.new("wfClothInfo *")
        self._call(lib.wfCloth_GetInfo, info)
        return info.particleCount

    def _cid(self):
        self._world._live()
        return self._id[0]

    def __repr__(self):
        index = self._id[0].index
        if self._world._ptr is None:
            return "<weft.Cloth %d of a closed world>" % index
        info = ffi.new("wfClothInfo *")
        if lib.wfCloth_GetInfo(self._id[0], info) != lib.WF_OK:
            return "<weft.Cloth %d destroyed>" % index
        shape = "mesh" if info.cols <= 0 else "%dx%d" % (info.cols, info.rows)
        return "<weft.Cloth %d %s particles=%d triangles=%d>" % (index, shape, info.particleCount, info.triangleCount)

    def _call(self, fn, *args):
        with self._world._lock:
            self._world._check(fn(self._cid(), *args))

    def destroy(self) -> None:
        """Removes the cloth from its world; the object refuses further use."""
        with self._world._lock:
            lib.wfDestroyCloth(self._cid())
            self._world._forget(self._world._cloth_ids, self._world._cloth_objs, self)

    @property
    def world(self) -> World:
        """The World the cloth lives in (a cloth keeps it alive)."""
        return self._world

    @property
    def particle_count(self) -> int:
        """Particles now (tearing adds some between frames)."""
        return self._n

    @property
    def info(self) -> Dict[str, Any]:
        """wfClothInfo as a dict (cols, rows, particleCount, constraintCount, familyCount, colorCount, triangleCount)."""
        info = ffi.new("wfClothInfo *")
        self._call(lib.wfCloth_GetInfo, info)
        return _struct_dict(info[0])

    def stats(self) -> Dict[str, Any]:
        """wfClothStats as a dict (time, energies, strain, clearances, momentum, nonFinite); a
        clearance without its collider (no sphere, no floor) is inf, as in the CLI's CSV files."""
        s = ffi.new("wfClothStats *")
        self._call(lib.wfCloth_GetStats, s)
        stats = _struct_dict(s[0])
        for key in ("sphereClearance", "floorClearance"):  # FLT_MAX in C: no such collider
            if stats[key] >= _FLT_MAX:
                stats[key] = float("inf")
        return stats

    # ---- material, pins, grab
    @property
    def material(self) -> Material:
        """The cloth's live Material (a copy; set it with set_material)."""
        with self._world._lock:
            return Material._from_c(lib.wfCloth_GetMaterial(self._cid()))

    def set_material(self, material: Optional[Mapping[str, Any]] = None, **fields: Any) -> None:
        """Live material: set_material(stretchCompliance=1e-5) (the others keep their values)."""
        m = self.material
        if material is not None:
            m.update(**(material.to_dict() if isinstance(material, Def) else dict(material)))
        m.update(**fields)
        self._call(lib.wfCloth_SetMaterial, m._c)

    def reset(self) -> None:
        """Puts the cloth back to its rest state (tears mended, velocities zero)."""
        self._call(lib.wfCloth_Reset)

    def set_pins(self, mode: Union[str, int], indices: Optional[Sequence[int]] = None) -> None:
        """Pin mode by name ("none", "top-corners", "top-row", "corners", "list") with indices for "list"."""
        if isinstance(mode, str):
            value = ffi.new("wfPinMode *")
            if not lib.wfPinModeFromName(mode.encode(), value):
                raise ArgumentError("pinMode: '%s' is not a pin mode" % mode, "WF_ERROR_INVALID_ARGUMENT")
            mode = value[0]
        idx = np.ascontiguousarray(np.asarray([] if indices is None else indices, dtype=np.int32).reshape(-1))
        self._call(lib.wfCloth_SetPinMode, int(mode), ffi.from_buffer("int[]", idx) if idx.size else ffi.NULL,
                   int(idx.size))

    def pin(self, particle: int, pinned: bool = True) -> None:
        """Pins (or, with pinned=False, frees) one particle."""
        self._call(lib.wfCloth_SetPinned, int(particle), bool(pinned))

    def is_pinned(self, particle: int) -> bool:
        """Whether a particle is pinned."""
        with self._world._lock:
            return bool(lib.wfCloth_IsPinned(self._cid(), int(particle)))

    @property
    def pinned(self) -> np.ndarray:
        """Indices of the pinned particles (int32)."""
        with self._world._lock:
            cid = self._cid()
            return np.array([i for i in range(self._n) if lib.wfCloth_IsPinned(cid, i)], dtype=np.int32)

    def grab(self, particle: int, target: Vec3) -> None:
        """Holds a particle at `target` (a mouse drag) until release()."""
        self._call(lib.wfCloth_Grab, int(particle), _vec3(target))

    def move_grab(self, target: Vec3) -> None:
        """Moves the grabbed particle's target."""
        self._call(lib.wfCloth_MoveGrab, _vec3(target))

    def release(self) -> None:
        """Lets go of the grabbed particle."""
        self._call(lib.wfCloth_Release)

    @property
    def grabbed(self) -> int:
        """The grabbed particle, or -1."""
        with self._world._lock:
            return lib.wfCloth_GetGrabbed(self._cid())

    @property
    def origin(self) -> Tuple[float, float, float]:
        """The cloth's origin in double precision (world = origin + local)."""
        o = ffi.new("double[3]")
        self._call(lib.wfCloth_GetOrigin, o)
        return (o[0], o[1], o[2])

    # ---- arrays
    def _read(self, fn, out, width, dtype, ctype, count):
        shape = (count, width) if width > 1 else (count,)
        if out is None:
            out = np.empty(shape, dtype=dtype)
        elif not (isinstance(out, np.ndarray) and out.dtype == dtype and out.shape == shape
                  and out.flags.c_contiguous and out.flags.writeable):
            raise ArgumentError("out: needs a writable C-contiguous %s array of shape %s, got %s" % (
                np.dtype(dtype).name, shape, _describe(out)), "WF_ERROR_INVALID_ARGUMENT")
        self._call(fn, ffi.from_buffer(ctype, out, require_writable=True), count)
        return out

    def read_positions(self, out: Optional[np.ndarray] = None) -> np.ndarray:
        """(n, 3) float32 world positions, into `out` when given."""
        return self._read(lib.wfCloth_ReadPositions, out, 3, np.float32, "wfVec3[]", self._n)

    def read_velocities(self, out: Optional[np.ndarray] = None) -> np.ndarray:
        """(n, 3) float32 velocities, m/s, into `out` when given."""
        return self._read(lib.wfCloth_ReadVelocities, out, 3, np.float32, "wfVec3[]", self._n)

    def read_normals(self, out: Optional[np.ndarray] = None) -> np.ndarray:
        """(n, 3) float32 unit vertex normals, into `out` when given."""
        return self._read(lib.wfCloth_ReadNormals, out, 3, np.float32, "wfVec3[]", self._n)

    def read_local_positions(self, out: Optional[np.ndarray] = None) -> np.ndarray:
        """Positions relative to the cloth's origin (world = origin + local, in double)."""
        return self._read(lib.wfCloth_ReadLocalPositions, out, 3, np.float32, "wfVec3[]", self._n)

    positions = property(read_positions, doc="(n, 3) float32 world positions (a new array)")
    velocities = property(read_velocities, doc="(n, 3) float32 velocities (a new array)")
    normals = property(read_normals, doc="(n, 3) float32 unit normals (a new array)")

    @property
    def uvs(self) -> np.ndarray:
        """(n, 2) float32 texture coordinates per particle."""
        return self._read(lib.wfCloth_ReadUVs, None, 2, np.float32, "float[]", self._n)

    @property
    def triangles(self) -> np.ndarray:
        """(m, 3) uint32 particle indices."""
        t = self.info["triangleCount"]
        return self._read(lib.wfCloth_ReadIndices, None, 1, np.uint32, "uint32_t[]", 3 * t).reshape(t, 3)

    @property
    def edges(self) -> np.ndarray:
        """(e, 2) uint32 particle pairs of the stretch constraints (what a wireframe draws)."""
        e = self.info["edgeCount"]
        return self._read(lib.wfCloth_ReadEdges, None, 1, np.uint32, "uint32_t[]", 2 * e).reshape(e, 2)

    @property
    def corner_uvs(self) -> np.ndarray:
        """(m, 3, 2) float32 texture coordinates per triangle corner (a mesh's seams kept)."""
        t = self.info["triangleCount"]
        return self._read(lib.wfCloth_ReadCornerUVs, None, 1, np.float32, "float[]", 6 * t).reshape(t, 3, 2)

    def _write(self, fn, values, name):
        a = np.asarray(values)
        if a.shape != (self._n, 3):
            raise ArgumentError("%s: shape %s (allowed: (%d, 3))" % (name, a.shape, self._n), "WF_ERROR_INVALID_ARGUMENT")
        a = np.ascontiguousarray(a, dtype=np.float32)
        self._call(fn, ffi.from_buffer("wfVec3[]", a), self._n)

    def set_positions(self, positions: Any) -> None:
        """Overwrites the positions ((n, 3), world coordinates) and zeroes the velocities."""
        self._write(lib.wfCloth_WritePositions, positions, "positions")

    def set_velocities(self, velocities: Any) -> None:
        """Overwrites the velocities ((n, 3), m/s)."""
        self._write(lib.wfCloth_WriteVelocities, velocities, "velocities")


def _describe(a):
    if isinstance(a, np.ndarray):
        return "%s %s%s" % (a.dtype.name, a.shape, "" if a.flags.c_contiguous else " (not contiguous)")
    return type(a).__name__


_with_fields(World.__init__, WorldDef)
_with_fields(World.add_cloth, ClothDef)
_with_fields(World.add_collider, ColliderDef)
_with_fields(Cloth.set_material, Material, unchanged=True)
for _name, _method in (("step", World.set_step), ("sphere", World.set_sphere), ("floor", World.set_floor),
                       ("wind", World.set_wind), ("contact", World.set_contact),
                       ("selfCollision", World.set_self_collision)):
    _with_fields(_method, _PART_CLASSES[_name], unchanged=True)


# ------------------------------------------------------------------------------------------ collider
class Collider:
    """A collider of a world (a wfColliderId): a shape whose pose can move every frame."""

    def __init__(self, world, cid, _checked=True):
        self._world = world
        self._id = ffi.new("wfColliderId *", cid)

    def _cid(self):
        self._world._live()
        return self._id[0]

    def __repr__(self):
        index = self._id[0].index
        if self._world._ptr is None:
            return "<weft.Collider %d of a closed world>" % index
        p, q = ffi.new("wfVec3 *"), ffi.new("wfQuat *")
        if lib.wfCollider_GetTransform(self._id[0], p, q) != lib.WF_OK:
            return "<weft.Collider %d destroyed>" % index
        kind = ColliderDef._from_c(lib.wfCollider_GetDef(self._id[0])).type
        return "<weft.Collider %d %s at (%s)>" % (index, kind, ", ".join(_short(a) for a in (p.x, p.y, p.z)))

    @property
    def def_(self) -> ColliderDef:
        """Its wfColliderDef (wfCollider_GetDef)."""
        with self._world._lock:
            return ColliderDef._from_c(lib.wfCollider_GetDef(self._cid()))

    @property
    def transform(self) -> Tuple[Tuple[float, float, float], Tuple[float, float, float, float]]:
        """(position, rotation) now: base pose plus motion; rotation a unit quaternion (x, y, z, w)."""
        p, q = ffi.new("wfVec3 *"), ffi.new("wfQuat *")
        with self._world._lock:
            self._world._check(lib.wfCollider_GetTransform(self._cid(), p, q))
        return (p.x, p.y, p.z), (q.x, q.y, q.z, q.w)

    def set_transform(self, position: Vec3, rotation: Sequence[float] = (0.0, 0.0, 0.0, 1.0)) -> None:
        """The base pose at the end of the next frame (a character's bone each frame)."""
        x, y, z, w = (float(a) for a in rotation)
        with self._world._lock:
            self._world._check(lib.wfCollider_SetTransform(self._cid(), _vec3(position),
                                                           {"x": x, "y": y, "z": z, "w": w}))

    @property
    def vertices(self) -> np.ndarray:
        """A mesh collider's vertices now, (n, 3) float32 in its own frame (empty for other types)."""
        with self._world._lock:
            n = lib.wfCollider_GetMeshVertices(self._cid(), ffi.NULL, 0)
            out = np.zeros((n, 3), dtype=np.float32)
            if n > 0:
                lib.wfCollider_GetMeshVertices(self._cid(), ffi.cast("wfVec3 *", ffi.from_buffer(out)), n)
        return out

    @property
    def triangles(self) -> np.ndarray:
        """A mesh collider's triangles, (m, 3) uint32 (closed meshes wound outwards)."""
        with self._world._lock:
            m = lib.wfCollider_GetMeshTriangles(self._cid(), ffi.NULL, 0)
            out = np.zeros((m, 3), dtype=np.uint32)
            if m > 0:
                lib.wfCollider_GetMeshTriangles(self._cid(), ffi.cast("uint32_t *", ffi.from_buffer(out)), 3 * m)
        return out

    def set_vertices(self, positions: Any) -> None:
        """A mesh collider's shape at the end of the next frame, (n, 3) in its own frame (a skinned body)."""
        p = np.ascontiguousarray(positions, dtype=np.float32).reshape(-1, 3)
        with self._world._lock:
            self._world._check(lib.wfCollider_SetMeshVertices(self._cid(), ffi.cast("wfVec3 *", ffi.from_buffer(p)), p.shape[0]))

    def destroy(self) -> None:
        """Removes the collider from its world; the object refuses further use."""
        with self._world._lock:
            lib.wfDestroyCollider(self._cid())
            self._world._forget(self._world._collider_ids, self._world._collider_objs, self)


# ------------------------------------------------------------------------------------------ scenes, presets
class Scene:
    """A scene file's defs: `world` (WorldDef), `cloths` (list of ClothDef), `colliders` (list of
    ColliderDef), `frames` (0 if absent)."""

    def __init__(self, world, cloths, frames=0, name=None, colliders=None):
        self.world, self.cloths, self.frames, self.name = world, cloths, frames, name
        self.colliders = list(colliders or [])

    def create(self, **world_fields: Any) -> World:
        """A World with the scene's cloths; fields override the world def (create(backend="cpu"))."""
        w = World(self.world, **world_fields)
        try:
            for c in self.colliders:
                w.add_collider(c)
            for c in self.cloths:
                w.add_cloth(c)
        except BaseException:
            w.close()
            raise
        return w

    def __repr__(self):
        return "Scene(%r, %d cloths, frames=%d)" % (self.name, len(self.cloths), self.frames)


def _scene(ptr, name):
    try:
        world = WorldDef._from_c(lib.wfScene_GetWorldDef(ptr))
        cloths = [ClothDef._from_c(lib.wfScene_GetClothDef(ptr, i)) for i in range(lib.wfScene_GetClothCount(ptr))]
        colliders = [ColliderDef._from_c(lib.wfScene_GetColliderDef(ptr, i))
                     for i in range(lib.wfScene_GetColliderCount(ptr))]
        return Scene(world, cloths, lib.wfScene_GetFrames(ptr), name, colliders)
    finally:
        lib.wfDestroyScene(ptr)


def load_scene(path: Union[str, "os.PathLike[str]"]) -> Scene:
    """Reads a scene file (JSON mirroring the defs); a bad file raises SceneError naming file, key and range."""
    err = ffi.new("char[]", _ERROR_SIZE)
    ptr = lib.wfScene_Load(str(path).encode(), err, _ERROR_SIZE)
    if ptr == ffi.NULL:
        raise SceneError(ffi.string(err).decode(), "WF_ERROR_PARSE")
    return _scene(ptr, str(path))


def parse_scene(text: str, name: str = "<string>") -> Scene:
    """A scene from JSON text (`name` is the file name its errors give); a bad scene raises SceneError."""
    err = ffi.new("char[]", _ERROR_SIZE)
    ptr = lib.wfScene_Parse(text.encode(), name.encode(), err, _ERROR_SIZE)
    if ptr == ffi.NULL:
        raise SceneError(ffi.string(err).decode(), "WF_ERROR_PARSE")
    return _scene(ptr, name)


def presets() -> Dict[str, str]:
    """{name: description} of the built-in scenes (the seed documents')."""
    return {ffi.string(lib.wfPresetName(i)).decode(): ffi.string(lib.wfPresetDescription(i)).decode()
            for i in range(lib.wfPresetCount())}


def preset(name: str) -> Scene:
    """A preset's defs as a Scene (one cloth)."""
    w, c = WorldDef(), ClothDef()
    if not lib.wfPresetGet(name.encode(), w._c, c._c):
        raise ArgumentError("preset: '%s' is not one of %s" % (name, ", ".join(presets())), "WF_ERROR_INVALID_ARGUMENT")
    return Scene(WorldDef._from_c(w._c[0]), [ClothDef._from_c(c._c[0])], 0, name)


# ------------------------------------------------------------------------------------------ backends, devices
def backends() -> List[str]:
    """Backends built in: "cpu", and "vulkan" when the Vulkan backend is compiled in."""
    err = ffi.new("char[]", _ERROR_SIZE)
    return ["cpu"] + (["vulkan"] if lib.wfEnumerateDevices(ffi.NULL, 0, err, _ERROR_SIZE) >= 0 else [])


def devices() -> List[Dict[str, Any]]:
    """The Vulkan devices: [{"name", "hardware", "apiVersion"}]; [] without a loader, driver or backend."""
    err = ffi.new("char[]", _ERROR_SIZE)
    n = lib.wfEnumerateDevices(ffi.NULL, 0, err, _ERROR_SIZE)
    if n <= 0:
        return []
    out = ffi.new("wfDeviceInfo[]", n)
    n = lib.wfEnumerateDevices(out, n, err, _ERROR_SIZE)
    return [_struct_dict(out[i]) for i in range(max(0, n))]


# ------------------------------------------------------------------------------------------ rendering
class _RendererHandle:
    """A renderer's pointer and the core of the world it draws (which destroys it first)."""
    __slots__ = ("ptr", "core", "__weakref__")

    def __init__(self, core):
        self.ptr = None
        self.core = core


def _destroy_renderer(h):
    ptr, h.ptr = h.ptr, None
    if ptr is not None:
        render_lib.wfDestroyRenderer(ptr)
    if h.core is not None:
        h.core.renderers.discard(h)


def _need_render():
    if render_lib is None:
        raise WeftError("weft was built without the renderer (needs the Vulkan headers, glslc and libpng)")


class Renderer:
    """A wfRenderer: an offscreen Vulkan raster of a world's cloths, sphere and floor.

    Renderer(world=None, size=(w, h), def_=None, **fields). With `world` on Vulkan it draws from the
    solver's buffers; it is closed before its world is.
    """

    def __init__(self, world: Optional[World] = None, size: Tuple[int, int] = (1280, 720), def_: Any = None,
                 _keep_world: bool = True, **fields: Any) -> None:
        _need_render()
        d = _def_from(RendererDef, def_, {})
        d.width, d.height = (int(s) for s in size)
        d.update(**fields)
        # A renderer keeps its world alive (it is destroyed before the world in any case); the one
        # weft.render caches on a world does not, or the two would be a cycle.
        self._world = world if _keep_world else None
        self._h = h = _RendererHandle(world._core if world is not None else None)
        if world is not None:
            d._c.world = world._live()
        err = ffi.new("char[]", _ERROR_SIZE)
        ptr = render_lib.wfCreateRenderer(d._c, err, _ERROR_SIZE)
        if ptr == ffi.NULL:
            raise _creation_error(ffi.string(err).decode(), d, lambda m: BackendUnavailableError(
                m, "WF_ERROR_BACKEND_UNAVAILABLE"))
        h.ptr = ptr
        if h.core is not None:
            h.core.renderers.add(h)
        self._finalizer = weakref.finalize(self, _destroy_renderer, h)
        self._size = (d.width, d.height)

    @property
    def _ptr(self):
        return self._h.ptr

    def close(self) -> None:
        """Destroys the renderer (its world's close does it too); further use raises ClosedError."""
        self._finalizer()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def __repr__(self):
        if self._ptr is None:
            return "<weft.Renderer closed>"
        return "<weft.Renderer %dx%d device=%r>" % (self._size[0], self._size[1], self.device_name)

    def _live(self):
        if self._ptr is None:
            raise ClosedError("the renderer is closed")
        return self._ptr

    def _check(self, result):
        if result != lib.WF_OK:
            _raise(result, ffi.string(render_lib.wfRenderer_GetLastError(self._ptr)).decode())

    @property
    def size(self) -> Tuple[int, int]:
        """(width, height) in pixels."""
        return self._size

    @property
    def def_(self) -> Any:
        """The resolved RendererDef (wfRenderer_GetDef)."""
        return RendererDef._from_c(render_lib.wfRenderer_GetDef(self._live()))

    @property
    def device_name(self) -> str:
        """The Vulkan device it draws with."""
        return ffi.string(render_lib.wfRenderer_GetDeviceName(self._live())).decode()

    @property
    def validation_count(self) -> int:
        """Vulkan validation messages so far (0 unless validation is on and something is wrong)."""
        return render_lib.wfRenderer_GetValidationCount(self._live())

    @property
    def shares_world_device(self):
        """True when it draws its world's cloths straight from the solver's buffers (a Vulkan world)."""
        return bool(render_lib.wfRenderer_SharesWorldDevice(self._live()))

    @property
    def zero_copy_cloths(self):
        """Cloths of the last frame drawn from the solver's buffers."""
        return render_lib.wfRenderer_GetZeroCopyCloths(self._live())

    @property
    def upload_bytes(self):
        """Bytes of cloth state copied from the host for the last frame."""
        return render_lib.wfRenderer_GetUploadBytes(self._live())

    def resize(self, size: Tuple[int, int]) -> None:
        """Changes the image size (width, height)."""
        w, h = (int(s) for s in size)
        self._check(render_lib.wfRenderer_Resize(self._live(), w, h))
        self._size = (w, h)

    def set_style(self, colorMode: Union[str, int] = "texture", wireframe: bool = False, showPins: bool = True) -> None:
        """How cloths are drawn: colorMode "texture", "speed" or "strain"; a wireframe over them; pins as dots."""
        mode = ffi.new("wfColorMode *")
        if isinstance(colorMode, str):
            if not render_lib.wfColorModeFromName(colorMode.encode(), mode):
                raise ArgumentError("colorMode: '%s' is not one of texture, speed, strain" % colorMode,
                                    "WF_ERROR_INVALID_ARGUMENT")
        else:
            mode[0] = int(colorMode)
        render_lib.wfRenderer_SetStyle(self._live(), mode[0], bool(wireframe), bool(showPins))

    def draw(self, world: World, cloths: Cloths = None, camera: Any = None) -> None:
        """Draws the world's cloths (all by default); camera: a Camera, a preset name or None (fit)."""
        p = self._live()
        cam = _camera(world, cloths, camera)
        with world._lock:
            ids = world._ids(cloths)
            self._check(render_lib.wfRenderer_DrawWorld(p, world._live(), ids, len(world._id_list(cloths)), cam._c))

    def read(self, out: Optional[np.ndarray] = None) -> np.ndarray:
        """The last frame as (h, w, 4) uint8 sRGB RGBA, rows top to bottom, into `out` when given."""
        w, h = self._size
        if out is None:
            out = np.empty((h, w, 4), dtype=np.uint8)
        elif not (isinstance(out, np.ndarray) and out.dtype == np.uint8 and out.shape == (h, w, 4)
                  and out.flags.c_contiguous and out.flags.writeable):
            raise ArgumentError("out: needs a writable C-contiguous uint8 array of shape %s, got %s" % (
                (h, w, 4), _describe(out)), "WF_ERROR_INVALID_ARGUMENT")
        self._check(render_lib.wfRenderer_ReadPixels(self._live(), ffi.from_buffer("uint8_t[]", out, require_writable=True),
                                                     out.size))
        return out

    def render(self, world: World, cloths: Cloths = None, camera: Any = None,
               out: Optional[np.ndarray] = None) -> np.ndarray:
        """draw() then read(): the frame as (h, w, 4) uint8 sRGB RGBA."""
        self.draw(world, cloths, camera)
        return self.read(out)


def _camera(world, cloths, camera):
    if camera is None:
        return Camera.fit(world, cloths)
    if isinstance(camera, str):
        return Camera.for_preset(camera)
    if isinstance(camera, Camera):
        return camera
    return Camera(**dict(camera))


def render(world: World, size: Tuple[int, int] = (1280, 720), camera: Any = None,
           out: Optional[np.ndarray] = None, **style: Any) -> np.ndarray:
    """One frame of `world` as a (h, w, 4) uint8 array. The renderer is kept on the world for the next
    call with the same size and style (RendererDef fields such as colorMode="speed", wireframe=True)."""
    _need_render()
    key = (tuple(int(s) for s in size), tuple(sorted(style.items())))
    cache = world.__dict__.setdefault("_render_cache", {})
    r = cache.get(key)
    if r is None or r._ptr is None:
        r = cache[key] = Renderer(world, size=key[0], _keep_world=False, **style)
    return r.render(world, camera=camera, out=out)


class Video:
    """An H.264 MP4 written through the ffmpeg command (wfVideoOpen): write() (h, w, 4) uint8 frames,
    close() finishes the file (nothing is left at `path` if it fails or is never closed)."""

    def __init__(self, path: Union[str, "os.PathLike[str]"], size: Tuple[int, int], fps: int = 30) -> None:
        _need_render()
        w, h = (int(s) for s in size)
        err = ffi.new("char[]", _ERROR_SIZE)
        self._size = (w, h)
        self._ptr = None
        ptr = render_lib.wfVideoOpen(str(path).encode(), w, h, int(fps), err, _ERROR_SIZE)
        if ptr == ffi.NULL:
            raise WeftError(ffi.string(err).decode(), "WF_ERROR_IO")
        self._ptr = ptr
        # Unclosed (an exception, or dropped): the file is abandoned, as wfDestroyVideo does.
        self._finalizer = weakref.finalize(self, render_lib.wfDestroyVideo, ptr)

    def write(self, frame: np.ndarray) -> None:
        """Appends one (h, w, 4) uint8 frame."""
        if self._ptr is None:
            raise ClosedError("the video is closed")
        w, h = self._size
        a = np.ascontiguousarray(frame, dtype=np.uint8)
        if a.shape != (h, w, 4):
            raise ArgumentError("frame: shape %s (allowed: (%d, %d, 4))" % (a.shape, h, w), "WF_ERROR_INVALID_ARGUMENT")
        r = render_lib.wfVideoWrite(self._ptr, ffi.from_buffer("uint8_t[]", a))
        if r != lib.WF_OK:
            _raise(r, "video: cannot write a frame")

    def close(self) -> None:
        """Finishes the file (raises WeftError if ffmpeg failed); closing twice does nothing."""
        if self._ptr is None:
            return
        err = ffi.new("char[]", _ERROR_SIZE)
        self._finalizer.detach()
        r = render_lib.wfVideoClose(self._ptr, err, _ERROR_SIZE)
        self._ptr = None
        if r != lib.WF_OK:
            _raise(r, ffi.string(err).decode())

    def __enter__(self):
        return self

    def __exit__(self, exc_type, *exc):
        if exc_type is None:
            self.close()
        elif self._ptr is not None:
            self._ptr = None
            self._finalizer()
