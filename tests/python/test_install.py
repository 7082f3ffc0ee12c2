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
