# README's Python section: its example runs as written (from the source folder, as the README's
# commands are) and prints what its comment says.
import os
import re
import subprocess
import sys

from conftest import SOURCE, have_renderer


def readme_example():
    with open(os.path.join(SOURCE, "README.md"), encoding="utf-8") as f:
        text = f.read()
    section = text[text.index("## Python"):]
    return re.search(r"```python\n(.*?)```", section, re.S).group(1)


def test_readme_example_runs():
    code = readme_example()
    lines = [line for line in code.splitlines() if line.strip()]
    assert len(lines) <= 10, len(lines)
    if not have_renderer():
        code = code.replace("weft.render(", "(lambda *a, **k: None)(")  # no Vulkan device: the rest still runs
    r = subprocess.run([sys.executable, "-c", code], cwd=SOURCE, capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr
    clearance, energy = (float(x) for x in r.stdout.split())
    assert clearance >= 0.5 + 0.01 - 1e-4 and energy > 0
