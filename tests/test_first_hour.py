"""A newcomer's first hour, scripted: from a freshly built wheel in a new virtual
environment (no system site-packages) with the core dependencies only, then with the
user extras.

1. build the wheel (``pip wheel --no-deps``): it carries the LICENSE;
2. install it into a new venv: numpy, pandas and numba come from PyPI, nothing else
   (no matplotlib, scikit-learn, tqdm, pytest);
3. run the README's Python example verbatim (the first ```python block under
   "Python in ten lines");
4. the command line on a multi-class CSV: fit, predict (with an id column), demo,
   --version, and the one-line error that names the plot extra;
5. the optional features name their extra (plot, sklearn, progress);
6. install the plot, progress and sklearn extras: the README's picture and
   scikit-learn examples verbatim, fit --plot, demo with its picture, progress=True.

Slow (downloads from PyPI, compiles the kernels in the new environment: 2-4 minutes):
runs with ``PYBSNSING_SLOW=1`` (CI) or ``PYBSNSING_FIRST_HOUR=1``.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
_ON = any(os.environ.get(v, "") not in ("", "0") for v in ("PYBSNSING_SLOW",
                                                            "PYBSNSING_FIRST_HOUR"))
pytestmark = pytest.mark.skipif(
    not _ON, reason="first-hour install test (downloads, 2-4 min): PYBSNSING_SLOW=1")


def readme_blocks(lang: str) -> list[tuple[str, str]]:
    """(section heading, code) of every ```lang block of README.md, in order."""
    text = (REPO / "README.md").read_text(encoding="utf-8")
    out, heading = [], ""
    for m in re.finditer(rf"^(#+ [^\n]*)$|^```{lang}\n(.*?)^```", text, re.M | re.S):
        if m.group(1):
            heading = m.group(1).lstrip("#").strip()
        else:
            out.append((heading, m.group(2)))
    return out


class Env:
    """A fresh virtual environment with the wheel installed."""

    def __init__(self, root: Path, wheel: Path) -> None:
        self.root = root
        self.work = root / "work"
        self.work.mkdir()
        self.venv = root / "venv"
        subprocess.run([sys.executable, "-m", "venv", str(self.venv)], check=True,
                       timeout=300)
        self.python = self.venv / "bin" / "python"
        self.env = {k: v for k, v in os.environ.items()
                    if k not in ("PYTHONPATH", "VIRTUAL_ENV", "NUMBA_CACHE_DIR",
                                 "PYBSNSING_QUIET_COMPILE")}
        self.env["PATH"] = f"{self.venv / 'bin'}{os.pathsep}{os.environ.get('PATH', '')}"
        self.env["MPLBACKEND"] = "Agg"
        self.pip_install(str(wheel))

    def pip_install(self, *args: str) -> None:
        # --no-compile: no .pyc for scipy & co. (a minute on a busy machine)
        out = subprocess.run([str(self.python), "-m", "pip", "install", "-q", "--no-compile",
                              "--disable-pip-version-check", *args],
                             capture_output=True, text=True, env=self.env, timeout=900)
        assert out.returncode == 0, out.stdout + out.stderr

    def installed(self) -> set[str]:
        out = subprocess.run([str(self.python), "-m", "pip", "list", "--format=freeze"],
                             capture_output=True, text=True, env=self.env, check=True)
        return {line.split("==")[0].lower() for line in out.stdout.split()}

    def py(self, code: str, timeout: float = 600) -> subprocess.CompletedProcess:
        return subprocess.run([str(self.python), "-c", code], cwd=self.work,
                              capture_output=True, text=True, env=self.env, timeout=timeout)

    def cli(self, *args: str, timeout: float = 600) -> subprocess.CompletedProcess:
        exe = self.venv / "bin" / "pybsnsing"
        return subprocess.run([str(exe), *args], cwd=self.work, capture_output=True,
                              text=True, env=self.env, timeout=timeout)


@pytest.fixture(scope="module")
def wheel(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("wheel")
    res = subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps", "-q",
                          "--disable-pip-version-check", "-w", str(out), str(REPO)],
                         capture_output=True, text=True, timeout=600)
    assert res.returncode == 0, res.stdout + res.stderr
    (whl,) = out.glob("pybsnsing-*.whl")
    return whl


@pytest.fixture(scope="module")
def env(tmp_path_factory, wheel):
    e = Env(tmp_path_factory.mktemp("first_hour"), wheel)
    yield e
    # hundreds of MB: removed in the background (deleting takes a minute on a busy disk)
    subprocess.Popen(["rm", "-rf", str(e.venv)], stdout=subprocess.DEVNULL,
                     stderr=subprocess.DEVNULL, start_new_session=True)


def test_wheel_carries_the_license(wheel):
    names = zipfile.ZipFile(wheel).namelist()
    lic = [n for n in names if n.endswith("licenses/LICENSE")]
    assert lic, names[-10:]
    text = zipfile.ZipFile(wheel).read(lic[0]).decode()
    assert text.startswith("MIT License")
    meta = zipfile.ZipFile(wheel).read(
        next(n for n in names if n.endswith(".dist-info/METADATA"))).decode()
    assert "License-Expression: MIT" in meta
    for extra in ("plot", "sklearn", "progress", "mip", "r", "all", "test", "dev"):
        assert f"Provides-Extra: {extra}" in meta
    core = [ln for ln in meta.splitlines()
            if ln.startswith("Requires-Dist:") and "extra ==" not in ln]
    assert sorted(ln.split()[1].split(">")[0].split("=")[0] for ln in core) == [
        "numba", "numpy", "pandas"]


def test_core_install_has_no_extras(env):
    have = env.installed()
    assert {"pybsnsing", "numpy", "pandas", "numba"} <= have
    for extra in ("matplotlib", "scikit-learn", "tqdm", "pytest", "hypothesis", "ruff",
                  "highspy", "rpy2", "formulaic"):
        assert extra not in have, extra


def test_readme_python_example_verbatim(env):
    blocks = readme_blocks("python")
    heading, code = blocks[0]
    assert heading.startswith("Python in ten lines")
    out = env.py(code)
    assert out.returncode == 0, out.stderr
    assert "Decision Tree:" in out.stdout or "Accuracy" in out.stdout
    assert (env.work / "model.json").stat().st_size > 0
    # a cold cache: the compile is announced, once
    assert out.stderr.count("compiling pybsnsing's kernels") == 1, out.stderr
    assert "Traceback" not in out.stderr
    again = env.py(code)  # now loaded from the cache: no notice
    assert again.returncode == 0 and "compiling" not in again.stderr


def test_cli_on_a_multiclass_csv_core_only(env):
    write = env.py("from pybsnsing.datasets import load_dataset\n"
                   "d = load_dataset('iris')\n"
                   "d.insert(0, 'id', range(1, len(d) + 1))\n"
                   "d.to_csv('iris.csv', index=False)\n")
    assert write.returncode == 0, write.stderr
    v = env.cli("--version")
    assert v.returncode == 0 and v.stdout.startswith("pybsnsing ")
    fit = env.cli("fit", "iris.csv", "--formula", "Species ~ . - id", "--save", "iris.json")
    assert fit.returncode == 0, fit.stderr
    assert "Tree 3:" in fit.stdout and "Traceback" not in fit.stderr
    pred = env.cli("predict", "iris.json", "iris.csv", "--id", "id", "--type", "class")
    assert pred.returncode == 0, pred.stderr
    lines = pred.stdout.splitlines()
    assert lines[0] == "id,class" and lines[1].startswith("1,") and len(lines) == 151
    demo = env.cli("demo", "--dataset", "iris")
    assert demo.returncode == 0, demo.stderr
    assert 'pip install "pybsnsing[plot]"' in demo.stderr  # no picture, and why
    plot = env.cli("fit", "iris.csv", "--formula", "Species ~ .", "--plot", "t.png")
    assert plot.returncode == 2
    assert plot.stderr.count("\n") == 1 and 'pip install "pybsnsing[plot]"' in plot.stderr
    bad = env.cli("predict", "iris.json", str(env.work))
    assert bad.returncode == 2 and bad.stderr.count("\n") == 1 and "Traceback" not in bad.stderr


def test_optional_features_name_their_extra(env):
    code = (
        "import pybsnsing\n"
        "from pybsnsing.datasets import load_dataset\n"
        "m = pybsnsing.bsnsing('Kyphosis ~ .', load_dataset('kyphosis'))\n"
        "def check(fn, extra):\n"
        "    try:\n"
        "        fn()\n"
        "    except ImportError as e:\n"
        "        assert isinstance(e, pybsnsing.PybsnsingImportError), type(e)\n"
        "        assert f'pip install \"pybsnsing[{extra}]\"' in str(e), str(e)\n"
        "        print('ok', extra)\n"
        "    else:\n"
        "        raise AssertionError(extra)\n"
        "check(lambda: m.plot('t.png'), 'plot')\n"
        "check(lambda: pybsnsing.BsnsingClassifier, 'sklearn')\n"
        "check(lambda: pybsnsing.bsnsing('Kyphosis ~ .', load_dataset('kyphosis'),"
        " progress=True), 'progress')\n"
        "pybsnsing.bsnsing('Kyphosis ~ .', load_dataset('kyphosis'), progress='auto')\n"
    )
    out = env.py(code)
    assert out.returncode == 0, out.stdout + out.stderr
    assert out.stdout.split() == ["ok", "plot", "ok", "sklearn", "ok", "progress"]


def test_with_the_user_extras(env):
    env.pip_install("matplotlib>=3.7", "tqdm>=4.60", "scikit-learn>=1.3")
    blocks = readme_blocks("python")
    # the README's picture example, after its first example (it continues it)
    heading, first = blocks[0]
    picture = next(code for h, code in blocks[1:] if "plot(" in code)
    out = env.py(first + "\n" + picture)
    assert out.returncode == 0, out.stderr
    assert (env.work / "tree.png").read_bytes().startswith(b"\x89PNG")
    sk = next(code for h, code in blocks if "BsnsingClassifier" in code)
    out = env.py(sk)
    assert out.returncode == 0, out.stderr
    assert 0.6 < float(out.stdout.split()[-1]) <= 1.0
    fit = env.cli("fit", "iris.csv", "--formula", "Species ~ . - id", "--plot", "iris.png")
    assert fit.returncode == 0, fit.stderr
    assert (env.work / "iris.png").read_bytes().startswith(b"\x89PNG")
    demo = env.cli("demo", "--dataset", "iris", "--plot", "demo.png")
    assert demo.returncode == 0 and "Traceback" not in demo.stderr
    assert (env.work / "demo.png").stat().st_size > 0
    prog = env.py("import pybsnsing\nfrom pybsnsing.datasets import load_dataset\n"
                  "pybsnsing.bsnsing('Species ~ .', load_dataset('iris'), progress=True)\n")
    assert prog.returncode == 0 and "class trees" in prog.stderr
    # (pybsnsing warmup itself, which compiles every kernel, is tested by test_cli.py)
    helped = env.cli("warmup", "--help")
    assert helped.returncode == 0 and "compile" in helped.stdout
