# `pip install ./python` offline: into a fresh venv that sees Debian's numpy, cffi and setuptools
# (--system-site-packages, --no-build-isolation, --no-index), from a copy of python/ so that the
# source tree gets no build folders; then weft imports from the venv, outside the source and build
# trees, with no PYTHONPATH.
import os
import shutil
import subprocess
import sys

from conftest import BUILD, SOURCE


def test_pip_install_offline(tmp_path):
    shutil.copytree(os.path.join(SOURCE, "python"), tmp_path / "src", ignore=shutil.ignore_patterns("build", "*.egg-info"))
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--system-site-packages", str(venv)], check=True)
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "WEFT_NATIVE_DIR")}
    env["WEFT_BUILD_DIR"] = BUILD
    subprocess.run([str(venv / "bin" / "pip"), "install", "-q", "--no-build-isolation", "--no-index",
                    str(tmp_path / "src")], check=True, env=env)
    code = ("import weft; w = weft.World(backend='cpu'); c = w.add_cloth(cols=8, rows=8); w.step(3); "
            "print(weft.__file__, c.positions.shape)")
    r = subprocess.run([str(venv / "bin" / "python"), "-c", code], cwd=str(tmp_path), env=env, check=True,
                       capture_output=True, text=True)
    path, shape = r.stdout.split(" ", 1)
    assert path.startswith(str(venv)) and shape.strip() == "(64, 3)"


def test_wheel_is_tagged_for_its_platform(tmp_path):
    """The wheel carries x86-64 shared libraries: it must say so in its tag (pip then refuses it on
    another platform) and carry a licence, a readme and its dependencies in the metadata."""
    import sysconfig
    import zipfile
    shutil.copytree(os.path.join(SOURCE, "python"), tmp_path / "src", ignore=shutil.ignore_patterns("build", "*.egg-info"))
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "WEFT_NATIVE_DIR")}
    env["WEFT_BUILD_DIR"] = BUILD
    subprocess.run([sys.executable, "-m", "pip", "wheel", "-q", "--no-build-isolation", "--no-index", "--no-deps",
                    "-w", str(tmp_path / "out"), str(tmp_path / "src")], check=True, env=env)
    wheels = os.listdir(tmp_path / "out")
    platform = sysconfig.get_platform().replace("-", "_").replace(".", "_")
    assert wheels == ["weft-0.1.0-py3-none-%s.whl" % platform], wheels
    with zipfile.ZipFile(tmp_path / "out" / wheels[0]) as z:
        names = z.namelist()
        meta = z.read("weft-0.1.0.dist-info/METADATA").decode()
        tag = z.read("weft-0.1.0.dist-info/WHEEL").decode()
    assert "Root-Is-Purelib: false" in tag and "Tag: py3-none-%s" % platform in tag
    assert "weft/_native/libweft.so.0" in names and "weft/py.typed" in names
    assert "weft-0.1.0.dist-info/LICENSE" in names
    for line in ("License: MIT", "Requires-Dist: cffi", "Requires-Dist: numpy", "Description-Content-Type: text/markdown",
                 "# weft for Python"):
        assert line in meta, line


def test_missing_cffi_says_what_to_install(tmp_path):
    """A python3 without cffi (a pyenv or conda one first on PATH) gets an ImportError naming the
    packages and the interpreter, not a bare 'No module named cffi' from deep inside."""
    blocker = tmp_path / "block"
    blocker.mkdir()
    (blocker / "cffi.py").write_text("raise ImportError('No module named cffi (blocked by the test)')\n")
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([str(blocker), os.path.join(BUILD, "python")])
    r = subprocess.run([sys.executable, "-c", "import weft"], env=env, capture_output=True, text=True)
    assert r.returncode != 0
    assert "weft needs cffi and numpy" in r.stderr and "python3-cffi" in r.stderr and sys.executable in r.stderr, r.stderr


def test_make_python_keeps_a_configured_build(tmp_path):
    """`make python` on a build folder configured by hand only builds the package there: no apt-get,
    no npm, no configure with the Makefile's flags (which would rebuild everything). Recorded by
    stand-ins for cmake, apt-get, npm and sudo first on PATH."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    log = tmp_path / "calls.txt"
    for tool in ("cmake", "apt-get", "npm", "sudo", "dpkg"):
        script = bin_dir / tool
        script.write_text("#!/bin/sh\necho %s \"$@\" >> %s\n" % (tool, log))
        script.chmod(0o755)
    build = tmp_path / "by-hand"
    build.mkdir()
    (build / "CMakeCache.txt").write_text("WEFT_WERROR:BOOL=OFF\n")
    env = dict(os.environ, PATH="%s:%s" % (bin_dir, os.environ["PATH"]))
    r = subprocess.run(["make", "-C", SOURCE, "--no-print-directory", "python", "BUILD=%s" % build, "JOBS=2"],
                       env=env, capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    assert log.read_text().splitlines() == ["cmake --build %s -j 2 --target weft_python" % build]
