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
import logging
import re
import threading

import numpy as np

from ._ffi import ffi, lib, render_lib
from ._defs import POINTEES, Def, _is_tuple_struct
from .errors import (ArgumentError, BackendUnavailableError, ClosedError, DefError, DeviceLostError, SceneError,
                     WeftError)

__all__ = ["World", "Cloth", "Collider", "WorldDef", "ClothDef", "Material", "ColliderDef", "Mesh", "RendererDef",
           "Camera", "Renderer", "Scene", "Video", "load_obj", "parse_obj", "load_scene", "parse_scene", "preset",
           "presets", "backends", "devices", "render", "version", "WeftError", "DefError", "ArgumentError",
           "BackendUnavailableError", "DeviceLostError", "SceneError", "ClosedError"]

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
    """wfColliderDef with wfDefaultColliderDef()'s values (type "sphere", "capsule", "box", "plane")."""
    _ctype = "wfColliderDef"
    _default = staticmethod(lambda: lib.wfDefaultColliderDef())


class Mesh:
    """A polygon mesh for a cloth (wfMeshDef): ClothDef(mesh=weft.Mesh(positions, faces)).

    positions: (n, 3) rest positions, relative to the cloth def's origin. faces: an (m, 3) or (m, 4)
    index array, or a list of faces of 3 or 4 indices each. uvs: optional (n, 2); cornerUVs:
    optional (corners, 2), one per face corner (seams). The arrays are copied; the library
    validates them when the cloth is created (DefError "mesh.indices[5]: ...").
    """

    def __init__(self, positions, faces, uvs=None, cornerUVs=None):
        p = np.array(positions, dtype=np.float32, order="C").reshape(-1, 3)
        if isinstance(faces, np.ndarray) and faces.ndim == 2:
            sizes = np.full(faces.shape[0], faces.shape[1], dtype=np.uint8)
            indices = np.array(faces, dtype=np.uint32, order="C").reshape(-1)
        else:
            faces = [list(f) for f in faces]
            sizes = np.array([len(f) for f in faces], dtype=np.uint8)
            indices = np.array([i for f in faces for i in f], dtype=np.uint32)
        self._arrays = {"positions": p, "indices": indices, "faceSizes": sizes}
        if uvs is not None:
            self._arrays["uvs"] = np.array(uvs, dtype=np.float32, order="C").reshape(-1, 2)
        if cornerUVs is not None:
            self._arrays["cornerUVs"] = np.array(cornerUVs, dtype=np.float32, order="C").reshape(-1, 2)
        for a in self._arrays.values():
            a.setflags(write=False)
        c = ffi.new("wfMeshDef *")
        c.positions = ffi.cast("wfVec3 *", ffi.from_buffer(p))
        c.vertexCount = p.shape[0]
        c.indices = ffi.cast("uint32_t *", ffi.from_buffer(indices)) if indices.size else ffi.NULL
        # all triangles: faceSizes NULL, as the header allows
        c.faceSizes = ffi.NULL if (sizes == 3).all() else ffi.cast("uint8_t *", ffi.from_buffer(sizes))
        c.faceCount = sizes.size
        for name in ("uvs", "cornerUVs"):
            if name in self._arrays:
                setattr(c, name, ffi.cast("float *", ffi.from_buffer(self._arrays[name])))
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
    def faces(self):
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
        lib.wfMesh_Destroy(ptr)


def load_obj(path):
    """A Mesh from a Wavefront OBJ file (wfMesh_LoadObj: welded vertices, per-corner UVs); a bad file
    raises SceneError naming the file, the line and the reason."""
    err = ffi.new("char[]", _ERROR_SIZE)
    ptr = lib.wfMesh_LoadObj(str(path).encode(), err, _ERROR_SIZE)
    if ptr == ffi.NULL:
        raise SceneError(ffi.string(err).decode(), "WF_ERROR_PARSE")
    return _mesh_from(ptr)


def parse_obj(text, name="<string>"):
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
        def look_at(cls, eye, target, fov=45.0):
            return cls._from_c(render_lib.wfCameraLookAt(_vec3(eye), _vec3(target), float(fov)))

        @classmethod
        def for_preset(cls, name):
            return cls._from_c(render_lib.wfDefaultCameraForPreset(name.encode()))

        @classmethod
        def fit(cls, world, cloths=None, fov=45.0):
            """A view of the whole scene (wfCameraFit)."""
            ids = world._ids(cloths)
            return cls._from_c(render_lib.wfCameraFit(world._live(), ids, len(world._id_list(cloths)), float(fov)))

        @property
        def eye(self):
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


def _vec3(v):
    x, y, z = (float(a) for a in v)
    return {"x": x, "y": y, "z": z}


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
class World:
    """A wfWorld: the backend, colliders, wind, stepping settings and its cloths.

    World(def=None, **fields): fields override the def's (World(backend="cpu", step={"substeps": 20})).
    The library's log lines go to the "weft" logger and into `messages`.
    """

    def __init__(self, def_=None, **fields):
        d = _def_from(WorldDef, def_, fields)
        self._lock = threading.RLock()
        self._ptr = None
        self._cloths = []
        self._colliders = []
        self._renderers = []
        self.messages = []  # (level, message) of every line the library logged for this world
        # The logger: one cffi callback per world, alive until the world is destroyed.
        self._log_cb = ffi.callback("wfLogFn", self._on_log)
        d._c.logFn = self._log_cb
        err = ffi.new("char[]", _ERROR_SIZE)
        ptr = lib.wfCreateWorld(d._c, err, _ERROR_SIZE)
        if ptr == ffi.NULL:
            raise _creation_error(ffi.string(err).decode(), d, lambda m: BackendUnavailableError(
                m, "WF_ERROR_BACKEND_UNAVAILABLE"))
        self._ptr = ptr

    def _on_log(self, level, message, context):
        text = ffi.string(message).decode(errors="replace")
        name = {0: "error", 1: "warning"}.get(level, "info")
        if len(self.messages) < 10000:
            self.messages.append((name, text))
        _log.log({0: logging.ERROR, 1: logging.WARNING}.get(level, logging.INFO), "%s", text)

    # ---- lifetime
    def close(self):
        """Destroys the world (renderers on it first). Cloths and renderers of it refuse further use;
        arrays read from them stay valid (they are copies)."""
        with self._lock:
            for r in list(self._renderers):
                r.close()
            if self._ptr is not None:
                lib.wfDestroyWorld(self._ptr)
                self._ptr = None

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def __del__(self):
        if getattr(self, "_ptr", None) is not None:
            try:
                self.close()
            except Exception:  # interpreter shutdown: the module may be half torn down
                pass

    @property
    def closed(self):
        return self._ptr is None

    def _live(self):
        if self._ptr is None:
            raise ClosedError("the world is closed")
        return self._ptr

    def _check(self, result):
        if result != lib.WF_OK:
            _raise(result, ffi.string(lib.wfWorld_GetLastError(self._ptr)).decode())

    # ---- stepping
    def step(self, frames=1):
        """Advances every cloth by `frames` frames; the GIL is released inside each frame."""
        if int(frames) != frames or frames < 0:
            raise ArgumentError("frames: %r (allowed: an integer >= 0)" % (frames,), "WF_ERROR_INVALID_ARGUMENT")
        with self._lock:
            p = self._live()
            for _ in range(int(frames)):
                self._check(lib.wfWorld_Step(p))

    # ---- cloths
    def add_cloth(self, def_=None, **fields):
        """Creates a cloth from a ClothDef and/or fields (add_cloth(cols=64, rows=64, pinMode="top-row"))."""
        d = _def_from(ClothDef, def_, fields)
        with self._lock:
            cid = lib.wfCreateCloth(self._live(), d._c)
            if lib.wfClothId_IsNull(cid):
                raise _creation_error(ffi.string(lib.wfWorld_GetLastError(self._ptr)).decode(), d,
                                      lambda m: WeftError(m))
            c = Cloth(self, cid)
            self._cloths.append(c)
            return c

    @property
    def cloths(self):
        return list(self._cloths)

    # ---- colliders
    def add_collider(self, def_=None, **fields):
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
            self._colliders.append(c)
            return c

    @property
    def colliders(self):
        return list(self._colliders)

    def _id_list(self, cloths):
        return self._cloths if cloths is None else list(cloths)

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
    def def_(self):
        """The resolved wfWorldDef (wfWorld_GetDef): backend and threads as in use."""
        with self._lock:
            return WorldDef._from_c(lib.wfWorld_GetDef(self._live()))

    @property
    def time(self):
        return lib.wfWorld_GetTime(self._live())

    @property
    def backend(self):
        return ffi.string(lib.wfBackendName(lib.wfWorld_GetBackend(self._live()))).decode()

    @property
    def device_name(self):
        return ffi.string(lib.wfWorld_GetDeviceName(self._live())).decode()

    @property
    def thread_count(self):
        return lib.wfWorld_GetThreadCount(self._live())

    @property
    def last_error(self):
        return ffi.string(lib.wfWorld_GetLastError(self._live())).decode()

    @property
    def warnings(self):
        """wfWarnings as a dict: nonFinite, unstable, unstableInContact, timeStepTooLarge, validationMessages, tunnelled."""
        return _struct_dict(lib.wfWorld_GetWarnings(self._live()))

    @property
    def profile(self):
        """wfStepProfile of the last frame as a dict (stageMs a list per wfStage)."""
        return _struct_dict(lib.wfWorld_GetStepProfile(self._live()))

    @property
    def sphere_center(self):
        v = lib.wfWorld_GetSphereCenter(self._live())
        return (v.x, v.y, v.z)

    @property
    def stage_timing(self):
        return bool(lib.wfWorld_GetStageTiming(self._live()))

    @stage_timing.setter
    def stage_timing(self, on):
        with self._lock:
            self._check(lib.wfWorld_SetStageTiming(self._live(), bool(on)))

    def _set_part(self, name, setter, part, fields):
        with self._lock:
            d = WorldDef._from_c(lib.wfWorld_GetDef(self._live()))
            view = getattr(d, name)
            if part is not None:
                view.update(**(part.to_dict() if isinstance(part, Def) else dict(part)))
            view.update(**fields)
            self._check(setter(self._ptr, view._c))

    def set_step(self, step=None, **fields):
        """Live stepping settings: set_step(substeps=20) (the others keep their values)."""
        self._set_part("step", lib.wfWorld_SetStep, step, fields)

    def set_sphere(self, sphere=None, **fields):
        self._set_part("sphere", lib.wfWorld_SetSphere, sphere, fields)

    def set_floor(self, floor=None, **fields):
        self._set_part("floor", lib.wfWorld_SetFloor, floor, fields)

    def set_wind(self, wind=None, **fields):
        self._set_part("wind", lib.wfWorld_SetWind, wind, fields)

    def set_contact(self, contact=None, **fields):
        self._set_part("contact", lib.wfWorld_SetContact, contact, fields)

    def set_self_collision(self, self_collision=None, **fields):
        """Live: set_self_collision(enabled=True, thickness=0.01) (the others keep their values)."""
        self._set_part("selfCollision", lib.wfWorld_SetSelfCollision, self_collision, fields)

    def set_sphere_moving(self, moving):
        with self._lock:
            self._check(lib.wfWorld_SetSphereMoving(self._live(), bool(moving)))

    def set_gravity(self, gravity):
        with self._lock:
            self._check(lib.wfWorld_SetGravity(self._live(), _vec3(gravity)))

    # ---- snapshots
    def snapshot(self):
        """The dynamic state of every cloth as bytes; restore() continues bit-identically."""
        with self._lock:
            p = self._live()
            n = lib.wfWorld_GetSnapshotSize(p)
            buf = ffi.new("char[]", max(1, n))
            self._check(lib.wfWorld_SaveSnapshot(p, buf, n))
            return bytes(ffi.buffer(buf, n))

    def restore(self, snapshot):
        with self._lock:
            data = bytes(snapshot)
            self._check(lib.wfWorld_RestoreSnapshot(self._live(), data, len(data)))

    def render(self, size=(1280, 720), camera=None, out=None, **style):
        """weft.render(self, ...)."""
        return render(self, size=size, camera=camera, out=out, **style)


# ------------------------------------------------------------------------------------------ cloth
class Cloth:
    """A cloth of a world (a wfClothId). Reads return new numpy arrays, or fill `out` when given."""

    def __init__(self, world, cid):
        self._world = world
        self._id = ffi.new("wfClothId *", cid)
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

    def _call(self, fn, *args):
        with self._world._lock:
            self._world._check(fn(self._cid(), *args))

    def destroy(self):
        """Removes the cloth from its world; the object refuses further use."""
        with self._world._lock:
            lib.wfDestroyCloth(self._cid())
            if self in self._world._cloths:
                self._world._cloths.remove(self)

    @property
    def world(self):
        return self._world

    @property
    def particle_count(self):
        return self._n

    @property
    def info(self):
        """wfClothInfo as a dict (cols, rows, particleCount, constraintCount, familyCount, colorCount, triangleCount)."""
        info = ffi.new("wfClothInfo *")
        self._call(lib.wfCloth_GetInfo, info)
        return _struct_dict(info[0])

    def stats(self):
        """wfClothStats as a dict (time, energies, strain, clearances, momentum, nonFinite)."""
        s = ffi.new("wfClothStats *")
        self._call(lib.wfCloth_GetStats, s)
        return _struct_dict(s[0])

    # ---- material, pins, grab
    @property
    def material(self):
        with self._world._lock:
            return Material._from_c(lib.wfCloth_GetMaterial(self._cid()))

    def set_material(self, material=None, **fields):
        """Live material: set_material(stretchCompliance=1e-5) (the others keep their values)."""
        m = self.material
        if material is not None:
            m.update(**(material.to_dict() if isinstance(material, Def) else dict(material)))
        m.update(**fields)
        self._call(lib.wfCloth_SetMaterial, m._c)

    def reset(self):
        self._call(lib.wfCloth_Reset)

    def set_pins(self, mode, indices=None):
        """Pin mode by name ("none", "top-corners", "top-row", "corners", "list") with indices for "list"."""
        if isinstance(mode, str):
            value = ffi.new("wfPinMode *")
            if not lib.wfPinModeFromName(mode.encode(), value):
                raise ArgumentError("pinMode: '%s' is not a pin mode" % mode, "WF_ERROR_INVALID_ARGUMENT")
            mode = value[0]
        idx = np.ascontiguousarray(np.asarray([] if indices is None else indices, dtype=np.int32).reshape(-1))
        self._call(lib.wfCloth_SetPinMode, int(mode), ffi.from_buffer("int[]", idx) if idx.size else ffi.NULL,
                   int(idx.size))

    def pin(self, particle, pinned=True):
        self._call(lib.wfCloth_SetPinned, int(particle), bool(pinned))

    def is_pinned(self, particle):
        with self._world._lock:
            return bool(lib.wfCloth_IsPinned(self._cid(), int(particle)))

    @property
    def pinned(self):
        """Indices of the pinned particles (int32)."""
        with self._world._lock:
            cid = self._cid()
            return np.array([i for i in range(self._n) if lib.wfCloth_IsPinned(cid, i)], dtype=np.int32)

    def grab(self, particle, target):
        self._call(lib.wfCloth_Grab, int(particle), _vec3(target))

    def move_grab(self, target):
        self._call(lib.wfCloth_MoveGrab, _vec3(target))

    def release(self):
        self._call(lib.wfCloth_Release)

    @property
    def grabbed(self):
        """The grabbed particle, or -1."""
        with self._world._lock:
            return lib.wfCloth_GetGrabbed(self._cid())

    @property
    def origin(self):
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

    def read_positions(self, out=None):
        """(n, 3) float32 world positions, into `out` when given."""
        return self._read(lib.wfCloth_ReadPositions, out, 3, np.float32, "wfVec3[]", self._n)

    def read_velocities(self, out=None):
        return self._read(lib.wfCloth_ReadVelocities, out, 3, np.float32, "wfVec3[]", self._n)

    def read_normals(self, out=None):
        return self._read(lib.wfCloth_ReadNormals, out, 3, np.float32, "wfVec3[]", self._n)

    def read_local_positions(self, out=None):
        """Positions relative to the cloth's origin (world = origin + local, in double)."""
        return self._read(lib.wfCloth_ReadLocalPositions, out, 3, np.float32, "wfVec3[]", self._n)

    positions = property(read_positions, doc="(n, 3) float32 world positions (a new array)")
    velocities = property(read_velocities, doc="(n, 3) float32 velocities (a new array)")
    normals = property(read_normals, doc="(n, 3) float32 unit normals (a new array)")

    @property
    def uvs(self):
        return self._read(lib.wfCloth_ReadUVs, None, 2, np.float32, "float[]", self._n)

    @property
    def triangles(self):
        """(m, 3) uint32 particle indices."""
        t = self.info["triangleCount"]
        return self._read(lib.wfCloth_ReadIndices, None, 1, np.uint32, "uint32_t[]", 3 * t).reshape(t, 3)

    @property
    def edges(self):
        """(e, 2) uint32 particle pairs of the stretch constraints (what a wireframe draws)."""
        e = self.info["edgeCount"]
        return self._read(lib.wfCloth_ReadEdges, None, 1, np.uint32, "uint32_t[]", 2 * e).reshape(e, 2)

    @property
    def corner_uvs(self):
        """(m, 3, 2) float32 texture coordinates per triangle corner (a mesh's seams kept)."""
        t = self.info["triangleCount"]
        return self._read(lib.wfCloth_ReadCornerUVs, None, 1, np.float32, "float[]", 6 * t).reshape(t, 3, 2)

    def _write(self, fn, values, name):
        a = np.asarray(values)
        if a.shape != (self._n, 3):
            raise ArgumentError("%s: shape %s (allowed: (%d, 3))" % (name, a.shape, self._n), "WF_ERROR_INVALID_ARGUMENT")
        a = np.ascontiguousarray(a, dtype=np.float32)
        self._call(fn, ffi.from_buffer("wfVec3[]", a), self._n)

    def set_positions(self, positions):
        """Overwrites the positions ((n, 3), world coordinates) and zeroes the velocities."""
        self._write(lib.wfCloth_WritePositions, positions, "positions")

    def set_velocities(self, velocities):
        self._write(lib.wfCloth_WriteVelocities, velocities, "velocities")


def _describe(a):
    if isinstance(a, np.ndarray):
        return "%s %s%s" % (a.dtype.name, a.shape, "" if a.flags.c_contiguous else " (not contiguous)")
    return type(a).__name__


# ------------------------------------------------------------------------------------------ collider
class Collider:
    """A collider of a world (a wfColliderId): a shape whose pose can move every frame."""

    def __init__(self, world, cid):
        self._world = world
        self._id = ffi.new("wfColliderId *", cid)

    def _cid(self):
        self._world._live()
        return self._id[0]

    @property
    def def_(self):
        """Its wfColliderDef (wfCollider_GetDef)."""
        with self._world._lock:
            return ColliderDef._from_c(lib.wfCollider_GetDef(self._cid()))

    @property
    def transform(self):
        """(position, rotation) now: base pose plus motion; rotation a unit quaternion (x, y, z, w)."""
        p, q = ffi.new("wfVec3 *"), ffi.new("wfQuat *")
        with self._world._lock:
            self._world._check(lib.wfCollider_GetTransform(self._cid(), p, q))
        return (p.x, p.y, p.z), (q.x, q.y, q.z, q.w)

    def set_transform(self, position, rotation=(0.0, 0.0, 0.0, 1.0)):
        """The base pose at the end of the next frame (a character's bone each frame)."""
        x, y, z, w = (float(a) for a in rotation)
        with self._world._lock:
            self._world._check(lib.wfCollider_SetTransform(self._cid(), _vec3(position),
                                                           {"x": x, "y": y, "z": z, "w": w}))

    def destroy(self):
        with self._world._lock:
            lib.wfDestroyCollider(self._cid())
            if self in self._world._colliders:
                self._world._colliders.remove(self)


# ------------------------------------------------------------------------------------------ scenes, presets
class Scene:
    """A scene file's defs: `world` (WorldDef), `cloths` (list of ClothDef), `colliders` (list of
    ColliderDef), `frames` (0 if absent)."""

    def __init__(self, world, cloths, frames=0, name=None, colliders=None):
        self.world, self.cloths, self.frames, self.name = world, cloths, frames, name
        self.colliders = list(colliders or [])

    def create(self, **world_fields):
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
        lib.wfScene_Destroy(ptr)


def load_scene(path):
    """Reads a scene file (JSON mirroring the defs); a bad file raises SceneError naming file, key and range."""
    err = ffi.new("char[]", _ERROR_SIZE)
    ptr = lib.wfScene_Load(str(path).encode(), err, _ERROR_SIZE)
    if ptr == ffi.NULL:
        raise SceneError(ffi.string(err).decode(), "WF_ERROR_PARSE")
    return _scene(ptr, str(path))


def parse_scene(text, name="<string>"):
    err = ffi.new("char[]", _ERROR_SIZE)
    ptr = lib.wfScene_Parse(text.encode(), name.encode(), err, _ERROR_SIZE)
    if ptr == ffi.NULL:
        raise SceneError(ffi.string(err).decode(), "WF_ERROR_PARSE")
    return _scene(ptr, name)


def presets():
    """{name: description} of the built-in scenes (the seed documents')."""
    return {ffi.string(lib.wfPresetName(i)).decode(): ffi.string(lib.wfPresetDescription(i)).decode()
            for i in range(lib.wfPresetCount())}


def preset(name):
    """A preset's defs as a Scene (one cloth)."""
    w, c = WorldDef(), ClothDef()
    if not lib.wfPresetGet(name.encode(), w._c, c._c):
        raise ArgumentError("preset: '%s' is not one of %s" % (name, ", ".join(presets())), "WF_ERROR_INVALID_ARGUMENT")
    return Scene(WorldDef._from_c(w._c[0]), [ClothDef._from_c(c._c[0])], 0, name)


# ------------------------------------------------------------------------------------------ backends, devices
def backends():
    """Backends built in: "cpu", and "vulkan" when the Vulkan backend is compiled in."""
    err = ffi.new("char[]", _ERROR_SIZE)
    return ["cpu"] + (["vulkan"] if lib.wfEnumerateDevices(ffi.NULL, 0, err, _ERROR_SIZE) >= 0 else [])


def devices():
    """The Vulkan devices: [{"name", "hardware", "apiVersion"}]; [] without a loader, driver or backend."""
    err = ffi.new("char[]", _ERROR_SIZE)
    n = lib.wfEnumerateDevices(ffi.NULL, 0, err, _ERROR_SIZE)
    if n <= 0:
        return []
    out = ffi.new("wfDeviceInfo[]", n)
    n = lib.wfEnumerateDevices(out, n, err, _ERROR_SIZE)
    return [_struct_dict(out[i]) for i in range(max(0, n))]


# ------------------------------------------------------------------------------------------ rendering
def _need_render():
    if render_lib is None:
        raise WeftError("weft was built without the renderer (needs the Vulkan headers, glslc and libpng)")


class Renderer:
    """A wfRenderer: an offscreen Vulkan raster of a world's cloths, sphere and floor.

    Renderer(world=None, size=(w, h), def_=None, **fields). With `world` on Vulkan it draws from the
    solver's buffers; it is closed before its world is.
    """

    def __init__(self, world=None, size=(1280, 720), def_=None, **fields):
        _need_render()
        d = _def_from(RendererDef, def_, {})
        d.width, d.height = (int(s) for s in size)
        d.update(**fields)
        self._ptr = None
        self._world = world
        if world is not None:
            d._c.world = world._live()
        err = ffi.new("char[]", _ERROR_SIZE)
        ptr = render_lib.wfCreateRenderer(d._c, err, _ERROR_SIZE)
        if ptr == ffi.NULL:
            raise _creation_error(ffi.string(err).decode(), d, lambda m: BackendUnavailableError(
                m, "WF_ERROR_BACKEND_UNAVAILABLE"))
        self._ptr = ptr
        self._size = (d.width, d.height)
        if world is not None:
            world._renderers.append(self)

    def close(self):
        if self._ptr is not None:
            render_lib.wfDestroyRenderer(self._ptr)
            self._ptr = None
            if self._world is not None and self in self._world._renderers:
                self._world._renderers.remove(self)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def __del__(self):
        if getattr(self, "_ptr", None) is not None:
            try:
                self.close()
            except Exception:  # interpreter shutdown: the module may be half torn down
                pass

    def _live(self):
        if self._ptr is None:
            raise ClosedError("the renderer is closed")
        return self._ptr

    def _check(self, result):
        if result != lib.WF_OK:
            _raise(result, ffi.string(render_lib.wfRenderer_GetLastError(self._ptr)).decode())

    @property
    def size(self):
        return self._size

    @property
    def def_(self):
        return RendererDef._from_c(render_lib.wfRenderer_GetDef(self._live()))

    @property
    def device_name(self):
        return ffi.string(render_lib.wfRenderer_GetDeviceName(self._live())).decode()

    @property
    def validation_count(self):
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

    def resize(self, size):
        w, h = (int(s) for s in size)
        self._check(render_lib.wfRenderer_Resize(self._live(), w, h))
        self._size = (w, h)

    def set_style(self, colorMode="texture", wireframe=False, showPins=True):
        mode = ffi.new("wfColorMode *")
        if isinstance(colorMode, str):
            if not render_lib.wfColorModeFromName(colorMode.encode(), mode):
                raise ArgumentError("colorMode: '%s' is not one of texture, speed, strain" % colorMode,
                                    "WF_ERROR_INVALID_ARGUMENT")
        else:
            mode[0] = int(colorMode)
        render_lib.wfRenderer_SetStyle(self._live(), mode[0], bool(wireframe), bool(showPins))

    def draw(self, world, cloths=None, camera=None):
        """Draws the world's cloths (all by default); camera: a Camera, a preset name or None (fit)."""
        p = self._live()
        cam = _camera(world, cloths, camera)
        with world._lock:
            ids = world._ids(cloths)
            self._check(render_lib.wfRenderer_DrawWorld(p, world._live(), ids, len(world._id_list(cloths)), cam._c))

    def read(self, out=None):
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

    def render(self, world, cloths=None, camera=None, out=None):
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


def render(world, size=(1280, 720), camera=None, out=None, **style):
    """One frame of `world` as a (h, w, 4) uint8 array. The renderer is kept on the world for the next
    call with the same size and style (RendererDef fields such as colorMode="speed", wireframe=True)."""
    _need_render()
    key = (tuple(int(s) for s in size), tuple(sorted(style.items())))
    cache = world.__dict__.setdefault("_render_cache", {})
    r = cache.get(key)
    if r is None or r._ptr is None:
        r = cache[key] = Renderer(world, size=key[0], **style)
    return r.render(world, camera=camera, out=out)


class Video:
    """An H.264 MP4 written through the ffmpeg command (wfVideoOpen): write() (h, w, 4) uint8 frames,
    close() finishes the file (nothing is left at `path` if it fails or is never closed)."""

    def __init__(self, path, size, fps=30):
        _need_render()
        w, h = (int(s) for s in size)
        err = ffi.new("char[]", _ERROR_SIZE)
        self._size = (w, h)
        self._ptr = render_lib.wfVideoOpen(str(path).encode(), w, h, int(fps), err, _ERROR_SIZE)
        if self._ptr == ffi.NULL:
            self._ptr = None
            raise WeftError(ffi.string(err).decode(), "WF_ERROR_IO")

    def write(self, frame):
        if self._ptr is None:
            raise ClosedError("the video is closed")
        w, h = self._size
        a = np.ascontiguousarray(frame, dtype=np.uint8)
        if a.shape != (h, w, 4):
            raise ArgumentError("frame: shape %s (allowed: (%d, %d, 4))" % (a.shape, h, w), "WF_ERROR_INVALID_ARGUMENT")
        r = render_lib.wfVideoWrite(self._ptr, ffi.from_buffer("uint8_t[]", a))
        if r != lib.WF_OK:
            _raise(r, "video: cannot write a frame")

    def close(self):
        if self._ptr is None:
            return
        err = ffi.new("char[]", _ERROR_SIZE)
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
            render_lib.wfVideoDestroy(self._ptr)
            self._ptr = None

    def __del__(self):
        if getattr(self, "_ptr", None) is not None:
            render_lib.wfVideoDestroy(self._ptr)
            self._ptr = None
