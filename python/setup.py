"""pip install ./python: packs the package with the libraries and headers of a finished build.

The native part is not compiled here: it is the build's build/python/weft/_native (libweft.so.0,
libweft_render.so.0, the public headers), made by `make python` or `cmake --build build`. Another
build folder: WEFT_BUILD_DIR=/path/to/build. Offline, with Debian's numpy, cffi and setuptools:
    python3 -m venv --system-site-packages VENV
    VENV/bin/pip install --no-build-isolation --no-index ./python
"""
import os
import shutil

from setuptools import setup
from setuptools.command.build_py import build_py

HERE = os.path.dirname(os.path.abspath(__file__))


class BuildWithNative(build_py):
    def run(self):
        super().run()
        build = os.environ.get("WEFT_BUILD_DIR") or os.path.join(HERE, "..", "build")
        native = os.path.join(build, "python", "weft", "_native")
        if not os.path.exists(os.path.join(native, "libweft.so.0")):
            raise SystemExit("weft: %s has no libweft.so.0: build the library first (make python), or set "
                             "WEFT_BUILD_DIR to the build folder" % os.path.abspath(native))
        target = os.path.join(self.build_lib, "weft", "_native")
        shutil.rmtree(target, ignore_errors=True)
        shutil.copytree(native, target)


setup(cmdclass={"build_py": BuildWithNative}, zip_safe=False)
