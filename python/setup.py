"""pip install ./python: packs the package with the libraries and headers of a finished build.

The native part is not compiled here: it is the build's build/python/weft/_native (libweft.so.0,
libweft_render.so.0, the public headers), made by `make python` or `cmake --build build`. Another
build folder: WEFT_BUILD_DIR=/path/to/build. Offline, with Debian's numpy, cffi and setuptools:
    python3 -m venv --system-site-packages VENV
    VENV/bin/pip install --no-build-isolation --no-index ./python
"""
import os
import shutil
import sysconfig

from setuptools import Distribution, setup
from setuptools.command.build_py import build_py

try:
    from setuptools.command.bdist_wheel import bdist_wheel  # setuptools >= 70.1
except ImportError:
    try:
        from wheel.bdist_wheel import bdist_wheel  # Debian 12: python3-wheel
    except ImportError:
        bdist_wheel = None

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


cmdclass = {"build_py": BuildWithNative}
if bdist_wheel is not None:

    class PlatformWheel(bdist_wheel):
        """The wheel holds this machine's shared libraries, so it is tagged for this platform
        (py3-none-linux_x86_64), never py3-none-any: pip refuses it on macOS or ARM instead of
        installing a package that fails at import. Any Python 3 fits: the binding is cffi in ABI mode."""

        def get_tag(self):
            return "py3", "none", sysconfig.get_platform().replace("-", "_").replace(".", "_")

    cmdclass["bdist_wheel"] = PlatformWheel



class NativeDistribution(Distribution):
    """Holds native code: installed into platlib, and the wheel's root is not purelib."""

    def has_ext_modules(self):
        return True


setup(cmdclass=cmdclass, distclass=NativeDistribution, zip_safe=False)
