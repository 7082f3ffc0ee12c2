# Shared fixtures of the Python package's tests. Run by ctest (tests/python/CMakeLists.txt sets
# PYTHONPATH to build/python and the paths below); by hand:
#   PYTHONPATH=build/python WEFT_SOURCE_DIR=$PWD WEFT_BUILD_DIR=$PWD/build python3 -m pytest tests/python
import os

import pytest

SOURCE = os.environ.get("WEFT_SOURCE_DIR", os.path.abspath(os.path.join(os.path.dirname(__file__), "..", "..")))
BUILD = os.environ.get("WEFT_BUILD_DIR", os.path.join(SOURCE, "build"))


def scene_path(name):
    return os.path.join(SOURCE, "scenes", name)


@pytest.fixture
def weft():
    import weft as module
    return module


def render_device():
    """The renderer's device for the tests: lavapipe, as for tests/render (WEFT_TEST_DEVICE)."""
    return os.environ.get("WEFT_TEST_DEVICE", "llvmpipe")


def have_renderer():
    import weft
    return weft.RendererDef is not None and any(render_device().lower() in d["name"].lower() for d in weft.devices())
