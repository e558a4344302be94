"""Shared test fixtures: where the golden fixtures and the reference material live.

* ``GOLDEN`` (``tests/golden``): the repository's copies of the R bsnsing 1.0.1 golden
  fixtures (``../shared/golden``), so that a fresh clone runs every parity test;
  ``PYBSNSING_GOLDEN`` points the tests at another folder with the same layout.
* ``BINARY`` (``tests/data/binary``): copies of the 0/1 MurTree/DL8.5 data files the
  tests use (part of ``../shared/data/binary``).
* The tabular data sets come from the package's bundled copies
  (:func:`pybsnsing.datasets.load_dataset`); see ``golden.py``.
* ``SHARED`` (``../shared`` or ``PYBSNSING_SHARED``): the full reference material, needed
  only by the tests that compare the bundled copies with it or use data that is not
  bundled; the ``shared`` fixture skips them, with a reason, when it is absent.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest
import rdiff
from hypothesis import settings

# CI runs the property tests with a fixed seed sequence (reproducible failures)
# and no per-example deadline (a loaded 2-core machine, numba compiling).
settings.register_profile("ci", derandomize=True, deadline=None, print_blob=True)
settings.register_profile("dev", deadline=None)
settings.load_profile("ci" if os.environ.get("CI") else "dev")

# R bsnsing 1.0.1 lives in the project's private R library (.rlib, made by
# .ci/setup); R must see it before rpy2 starts R in this process.
rdiff.use_private_r_library()

# Starting R through rpy2 puts R's library folders (/usr/lib/R/lib:/usr/lib/x86_64-linux-gnu)
# on LD_LIBRARY_PATH for the process's children. A Python started by a later test (a Dask
# worker, the command line, the compile child) then loads the system's libpython instead of
# its own and fails ("undefined symbol" in an extension module). The loader of this process
# read the variable at start-up, so R keeps working when each test starts with the value
# the process had before R started.
_LD_LIBRARY_PATH = os.environ.get("LD_LIBRARY_PATH")


@pytest.hookimpl(tryfirst=True)
def pytest_runtest_setup(item):
    if _LD_LIBRARY_PATH is None:
        os.environ.pop("LD_LIBRARY_PATH", None)
    else:
        os.environ["LD_LIBRARY_PATH"] = _LD_LIBRARY_PATH


REPO = Path(__file__).resolve().parents[1]
SHARED = Path(os.environ.get("PYBSNSING_SHARED", REPO.parent / "shared"))
GOLDEN = Path(os.environ.get("PYBSNSING_GOLDEN") or REPO / "tests" / "golden")
BINARY = REPO / "tests" / "data" / "binary"


def tree_nodes(model) -> list[list[dict]]:
    """Every node of every tree of a fitted model (one per class when there are several),
    field by field: for comparing two fits node for node."""
    trees = getattr(model, "trees", None) or [model]
    return [[n.to_dict() for n in t.nodes] for t in trees]


@pytest.fixture(scope="session")
def shared() -> Path:
    """Path of the reference material (../shared); skips the test when it is absent.

    Only for tests that need what the repository does not carry (the full
    ``data/tabular`` folder that the bundled data sets are checked against).
    """
    if not (SHARED / "data" / "tabular").is_dir():
        pytest.skip(f"compares the bundled data with the reference files of ../shared/data/"
                    f"tabular, not found at {SHARED} (set PYBSNSING_SHARED)")
    return SHARED


def pytest_terminal_summary(terminalreporter) -> None:
    """Print how many golden-fixture parity tests passed (works under xdist too)."""
    passed = terminalreporter.stats.get("passed", [])
    failed = terminalreporter.stats.get("failed", [])
    for prefix, label in (("tests/test_parity_trees.py::test_binary_tree", "binary"),
                          ("tests/test_parity_trees.py::test_multiclass_tree", "multiclass")):
        n_pass = sum(r.nodeid.startswith(prefix) for r in passed)
        n_fail = sum(r.nodeid.startswith(prefix) for r in failed)
        if n_pass or n_fail:
            terminalreporter.write_line(
                f"golden {label} tree records reproduced: {n_pass} of {n_pass + n_fail}"
            )
