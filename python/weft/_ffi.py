"""The binding: cffi in ABI mode over libweft.so (and libweft_render.so), declared from the C headers.

The declarations are not written here: they are the public headers themselves (shipped in
_native/include), with the preprocessor lines, WF_API and the C++ guards taken out, handed to
cffi's cdef. A field or function added to weft.h is therefore in Python at the next import.
"""
import os
import re
import sys

try:
    import cffi
    import numpy  # noqa: F401  (the package needs both; say so here, before anything else fails)
except ImportError as e:
    raise ImportError("weft needs cffi and numpy in this Python (%s): %s. On Debian: apt-get install "
                      "python3-cffi python3-numpy and run /usr/bin/python3, or pip install cffi numpy"
                      % (sys.executable, e)) from e

_HERE = os.path.dirname(os.path.abspath(__file__))
NATIVE = os.environ.get("WEFT_NATIVE_DIR") or os.path.join(_HERE, "_native")


def _declarations(path):
    """The header's C declarations in the dialect cffi's cdef reads."""
    with open(path, encoding="utf-8") as f:
        lines = f.read().splitlines()
    out = []
    skip = 0  # depth inside #ifdef __cplusplus or an #if block that is not for cffi
    depth = 0
    for line in lines:
        s = line.strip()
        if s.startswith("#"):
            directive = s[1:].strip()
            if directive.startswith(("if", "ifdef", "ifndef")):
                depth += 1
                if skip or "__cplusplus" in directive:
                    skip += 1
            elif directive.startswith("endif"):
                if skip:
                    skip -= 1
                depth -= 1
            # integer #defines are constants cffi understands; every other directive goes
            m = re.match(r"define\s+(WF_[A-Z0-9_]+)\s+(-?\d+)\s*$", directive)
            if m and not skip:
                out.append("#define %s %s" % (m.group(1), m.group(2)))
            continue
        if skip:
            continue
        out.append(line)
    text = "\n".join(out)
    text = re.sub(r"\bWF_API\b", "", text)
    return text


def _array_sizes(text):
    """cffi needs array lengths as numbers: an enum constant used as one (stageMs[WF_STAGE_COUNT])
    is replaced by its value, counted from the enum's own declaration."""
    values = {}
    for body in re.findall(r"enum\s+\w*\s*\{([^}]*)\}", re.sub(r"//[^\n]*", "", text)):
        value = -1
        for item in body.split(","):
            item = item.strip()
            if not item:
                continue
            name, _, expr = item.partition("=")
            value = int(expr.strip(), 0) if expr.strip() else value + 1
            values[name.strip()] = value
    return re.sub(r"\[\s*(WF_[A-Z0-9_]+)\s*\]",
                  lambda m: "[%d]" % values[m.group(1)] if m.group(1) in values else m.group(0), text)


# Rows of an array field, from its shape comment in the header (MuJoCo's style, as weft.h writes
# them): `const float* vertices; // (vertexCount x 3)` -> ARRAY_WIDTHS["vertices"] = 3. An array
# field without one holds single elements. The count field counts rows.
ARRAY_WIDTHS = {}
_SHAPE = re.compile(r"\*\s*(\w+)\s*;.*\(\s*(?:\w+\s+x\s+(\d+)|(\d+)\s+x\s+\w+)\s*\)")


def _array_widths(text):
    for line in text.splitlines():
        m = _SHAPE.search(line)
        if m:
            ARRAY_WIDTHS[m.group(1)] = int(m.group(2) or m.group(3))


def declare(ffi, text):
    """Declares C text (a header's, cleaned) to cffi and notes its arrays' shapes."""
    _array_widths(text)
    ffi.cdef(_array_sizes(text))


def _load():
    ffi = cffi.FFI()
    include = os.path.join(NATIVE, "include", "weft")
    headers = [os.path.join(include, "weft.h")]
    render_header = os.path.join(include, "render.h")
    render_lib_path = os.path.join(NATIVE, "libweft_render.so.0")
    has_render = os.path.exists(render_header) and os.path.exists(render_lib_path)
    if has_render:
        headers.append(render_header)
    for h in headers:
        declare(ffi, _declarations(h))
    lib_path = os.path.join(NATIVE, "libweft.so.0")
    if not os.path.exists(lib_path):
        raise ImportError("weft: %s is missing (build the library first: make python, or cmake --build build "
                          "--target weft_python)" % lib_path)
    # libweft.so first, by its path: libweft_render.so's DT_NEEDED libweft.so.0 then resolves to this
    # very copy (the dynamic linker matches the soname of a loaded object), so both share one core.
    try:
        lib = ffi.dlopen(lib_path)
    except OSError as e:  # a library it links against is missing (libcjson.so.1, libgomp.so.1)
        raise ImportError("weft: cannot load %s: %s (on Debian: apt-get install libcjson1 libgomp1)"
                          % (lib_path, e)) from e
    render_lib = ffi.dlopen(render_lib_path) if has_render else None
    for library in (lib, render_lib):
        if library is not None:
            _resolve_all(library)
    return ffi, lib, render_lib


def _resolve_all(library):
    """Looks up every function and constant of a dlopen()ed library now, once.

    cffi looks a name up at its first use, under the FFI's lock, which is not reentrant. A finaliser
    that the cyclic GC runs during that lookup (any allocation can start a collection) and that calls
    a function not yet looked up waits for the same lock for ever (issue 29.1). Once looked up, a
    name is a plain attribute: calls take no lock. A name declared but not in this library (render.h's
    functions in libweft.so) stays unresolved; it is never called there.
    """
    for name in dir(library):
        try:
            getattr(library, name)
        except (AttributeError, NotImplementedError):
            pass


ffi, lib, render_lib = _load()
