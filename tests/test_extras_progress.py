"""Optional dependencies, progress bars and the compile notice.

* every optional feature whose extra is missing raises ``PybsnsingImportError`` (an
  ``ImportError``) naming ``pip install "pybsnsing[<extra>]"``, never a bare
  ``ModuleNotFoundError``;
* ``progress=True`` shows a bar per node (two classes) or per class tree; it needs tqdm;
  ``progress="auto"`` never fails without it;
* the first compile of a pybsnsing kernel in a process is announced once on stderr.
"""

from __future__ import annotations

import os
import subprocess
import sys

import numpy as np
import pandas as pd
import pytest

import pybsnsing
from pybsnsing import PybsnsingImportError, PybsnsingValueError, bsnsing
from pybsnsing._optional import EXTRAS, available, missing_extra, require
from pybsnsing.datasets import load_dataset


@pytest.fixture()
def kyphosis():
    return load_dataset("kyphosis")


def hide(monkeypatch, *modules: str) -> None:
    """Make modules unimportable (and forget pybsnsing modules that imported them)."""
    for m in modules:
        for name in [k for k in sys.modules if k == m or k.startswith(m + ".")]:
            monkeypatch.delitem(sys.modules, name)
        monkeypatch.setitem(sys.modules, m, None)


def check_extra_error(exc: BaseException, extra: str) -> None:
    assert isinstance(exc, PybsnsingImportError) and isinstance(exc, ImportError)
    assert f'pip install "pybsnsing[{extra}]"' in str(exc)


# ---------------------------------------------------------------------------------------
# the extras


def test_require_and_messages(monkeypatch):
    assert {"plot", "sklearn", "progress", "r", "mip", "sat"} <= set(EXTRAS)
    hide(monkeypatch, "tqdm")
    assert not available("progress")
    with pytest.raises(PybsnsingImportError, match="progress bars needs tqdm") as err:
        require("progress")
    check_extra_error(err.value, "progress")
    assert err.value.name == "tqdm"
    assert "(or: pip install tqdm)" in str(err.value)
    broken = missing_extra("r", cause=RuntimeError("R_HOME is not set"))
    assert "R_HOME is not set" in str(broken)  # installed but broken: says why
    assert require("plot").__name__ == "matplotlib"


def test_plot_without_matplotlib(monkeypatch, kyphosis):
    model = bsnsing("Kyphosis ~ .", kyphosis)
    hide(monkeypatch, "matplotlib")
    with pytest.raises(ImportError, match=r"plot_tree \(drawing a tree\) needs matplotlib") as err:
        model.plot("t.png")
    check_extra_error(err.value, "plot")
    from pybsnsing.export.roc import plot_roc, roc_auc

    roc = roc_auc(kyphosis["Kyphosis"], model.predict(kyphosis), pos_label="present")
    assert 0.5 < roc.auc <= 1  # the numbers need no extra
    with pytest.raises(ImportError,
                       match=r"plot_roc \(drawing an ROC curve\) needs matplotlib") as err:
        plot_roc(roc)
    check_extra_error(err.value, "plot")
    # text drawings need nothing
    assert model.to_latex().startswith("\\documentclass")
    assert model.to_dot().startswith("digraph")


def test_sklearn_without_scikit_learn(monkeypatch):
    hide(monkeypatch, "sklearn")
    monkeypatch.delitem(sys.modules, "pybsnsing.sklearn", raising=False)
    monkeypatch.delitem(pybsnsing.__dict__, "BsnsingClassifier", raising=False)
    with pytest.raises(ImportError, match=r"BsnsingClassifier\) needs scikit-learn") as err:
        from pybsnsing.sklearn import BsnsingClassifier  # noqa: F401
    check_extra_error(err.value, "sklearn")
    with pytest.raises(ImportError, match=r"BsnsingClassifier\) needs scikit-learn") as err:
        pybsnsing.BsnsingClassifier  # noqa: B018
    check_extra_error(err.value, "sklearn")


def test_mip_without_highspy(monkeypatch, kyphosis):
    hide(monkeypatch, "highspy")
    with pytest.raises(ImportError,
                       match=r'opt_solver="highs" \(the MIP split solver\) needs highspy') as err:
        bsnsing("Kyphosis ~ .", kyphosis, opt_solver="highs")
    check_extra_error(err.value, "mip")


def test_r_without_rpy2(monkeypatch, kyphosis):
    hide(monkeypatch, "rpy2")
    from pybsnsing.r import rpart as r_rpart

    r_rpart.r_available.cache_clear()
    r_rpart._helpers.cache_clear()
    try:
        with pytest.raises(ImportError, match="R through rpy2 needs rpy2") as err:
            bsnsing("Kyphosis ~ .", kyphosis, import_external="r")
        check_extra_error(err.value, "r")
    finally:
        r_rpart.r_available.cache_clear()
        r_rpart._helpers.cache_clear()


# ---------------------------------------------------------------------------------------
# progress


def test_progress_per_node_for_two_classes(kyphosis, capsys):
    model = bsnsing("Kyphosis ~ .", kyphosis, progress=True)
    err = capsys.readouterr().err
    assert "growing the tree" in err
    assert f"{len(model.nodes)} nodes" in err  # the bar counted every node


def test_progress_per_class_tree(capsys):
    model = bsnsing("Species ~ .", load_dataset("iris"), progress=True)
    err = capsys.readouterr().err
    assert "class trees" in err and "3/3" in err
    assert f"tree 3: {len(model.trees[2].nodes)} nodes" in err


def test_progress_needs_tqdm_only_when_asked(monkeypatch, kyphosis, capsys):
    hide(monkeypatch, "tqdm")
    with pytest.raises(ImportError, match=r"a progress bar \(progress=True\) needs tqdm") as err:
        bsnsing("Kyphosis ~ .", kyphosis, progress=True)
    check_extra_error(err.value, "progress")
    bsnsing("Kyphosis ~ .", kyphosis, progress="auto")  # no bar, no error
    bsnsing("Species ~ .", load_dataset("iris"), progress="auto")
    bsnsing("Kyphosis ~ .", kyphosis)
    assert capsys.readouterr().err == ""


def test_progress_auto_is_silent_off_a_terminal(kyphosis, capsys):
    bsnsing("Species ~ .", load_dataset("iris"), progress="auto")
    assert capsys.readouterr().err == ""


@pytest.mark.parametrize("bad", ["yes", "always", pd.NA])
def test_progress_bad_values(kyphosis, bad):
    with pytest.raises((PybsnsingValueError, TypeError),
                       match="progress must be True, False or 'auto', got "):
        bsnsing("Kyphosis ~ .", kyphosis, progress=bad)


# ---------------------------------------------------------------------------------------
# the compile notice


def test_compile_notice_once_per_process(monkeypatch, capsys):
    import numba

    import pybsnsing.kernels as K

    monkeypatch.delenv("PYBSNSING_QUIET_COMPILE", raising=False)
    monkeypatch.setattr(K, "_announced", set())

    def twice(x):
        return 2 * x

    def thrice(x):
        return 3 * x

    twice.__module__ = "pybsnsing.kernels.enum"  # as if it were one of the kernels
    thrice.__module__ = "pybsnsing.kernels.rpart"
    assert numba.njit(twice)(np.int64(2)) == 4
    assert numba.njit(thrice)(np.int64(2)) == 6
    err = capsys.readouterr().err
    assert err.count("compiling pybsnsing's kernels") == 1
    assert "once per install" in err and "pybsnsing warmup" in err

    def own(x):  # the user's own numba code: not announced
        return x

    monkeypatch.setattr(K, "_announced", set())
    numba.njit(own)(1)
    assert capsys.readouterr().err == ""
    monkeypatch.setenv("PYBSNSING_QUIET_COMPILE", "1")
    numba.njit(twice)(np.float64(1.0))
    assert capsys.readouterr().err == ""


def test_no_compile_notice_once_the_kernels_are_cached(tmp_path):
    """With the MurTree kernels in numba's cache a new process prints no notice (its
    object-mode clock block is rebuilt in every process, and is not announced)."""

    code = ("import numpy as np; from pybsnsing.optimal import murtree_fit;"
            "X = np.eye(6, dtype=np.uint8)[:, :4]; y = [0, 1, 0, 1, 1, 0];"
            "murtree_fit(X, y, max_depth=3)")
    env = {k: v for k, v in os.environ.items() if k != "PYBSNSING_QUIET_COMPILE"}
    run = [subprocess.run([sys.executable, "-c", code], env=env, capture_output=True,
                          text=True, cwd=tmp_path, timeout=600) for _ in range(2)]
    assert run[0].returncode == 0 and run[1].returncode == 0, run[1].stderr
    assert "compiling" not in run[1].stderr, run[1].stderr
