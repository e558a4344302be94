"""Shared test fixtures: where the reference material (../shared) lives."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from hypothesis import settings

# CI runs the property tests with a fixed seed sequence (reproducible failures)
# and no per-example deadline (a loaded 2-core machine, numba compiling).
settings.register_profile("ci", derandomize=True, deadline=None, print_blob=True)
settings.register_profile("dev", deadline=None)
settings.load_profile("ci" if os.environ.get("CI") else "dev")

REPO = Path(__file__).resolve().parents[1]
SHARED = Path(os.environ.get("PYBSNSING_SHARED", REPO.parent / "shared"))


@pytest.fixture(scope="session")
def shared() -> Path:
    """Path of the reference material; skips the test when it is absent."""
    if not SHARED.is_dir():
        pytest.skip(f"reference material not found at {SHARED} (set PYBSNSING_SHARED)")
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
