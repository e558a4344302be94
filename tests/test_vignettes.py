"""Every Python vignette runs to completion and writes its figures."""

from __future__ import annotations

import runpy
import sys
from pathlib import Path

import pytest

VIGNETTES = Path(__file__).resolve().parents[1] / "vignettes"
SCRIPTS = sorted(p for p in VIGNETTES.glob("*.py") if not p.name.startswith("_"))
EXPECTED = {
    "getting_started.py": ["breastcancer_roc.png", "breastcancer_tree.png",
                           "breastcancer_tree.tex"],
    "control_parameters.py": ["control_parameters.csv"],
    "multiclass.py": ["iris_trees.png"],
    "beyond-r-bsnsing.py": ["breastcancer_tree.py", "breastcancer_tree.sql"],
}


def test_vignettes_found():
    assert {p.name for p in SCRIPTS} >= set(EXPECTED) | {"optimal_trees.py", "speed.py"}


@pytest.mark.parametrize("script", SCRIPTS, ids=lambda p: p.stem)
def test_vignette_runs(script, tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("PYBSNSING_VIGNETTE_OUT", str(tmp_path))
    monkeypatch.setenv("MPLBACKEND", "Agg")
    monkeypatch.syspath_prepend(str(VIGNETTES))
    sys.modules.pop("_common", None)
    runpy.run_path(str(script), run_name="__main__")
    assert capsys.readouterr().out.strip()
    for name in EXPECTED.get(script.name, []):
        f = tmp_path / name
        assert f.is_file() and f.stat().st_size > 0, name
