"""Helpers for the golden-fixture tests: records, data sets, train/test splits."""

from __future__ import annotations

import json
from functools import cache

import pandas as pd
from conftest import SHARED

from pybsnsing.r.convert import strip_call  # noqa: F401  (re-exported for the tests)

TREES = SHARED / "golden" / "trees"
TABULAR = SHARED / "data" / "tabular"


def tree_records() -> list[dict]:
    """Every record of golden/trees/*.json (empty when the material is absent)."""
    if not TREES.is_dir():
        return []
    out = []
    for path in sorted(TREES.glob("*.json")):
        out.extend(json.loads(path.read_text()))
    return out


def record_id(rec: dict) -> str:
    return f"{rec['dataset']}-{rec['config']}"


@cache
def _columns() -> pd.DataFrame:
    return pd.read_csv(TABULAR / "columns.csv", keep_default_na=False)


@cache
def load_shared(name: str) -> pd.DataFrame:
    """A data set read canonically from ../shared/data/tabular."""
    from pybsnsing.datasets import read_canonical

    manifest = pd.read_csv(TABULAR / "manifest.csv")
    file = manifest.loc[manifest["name"] == name, "file"].iloc[0]
    return read_canonical(TABULAR / file, _columns(), name)


def split(rec: dict) -> tuple[pd.DataFrame, pd.DataFrame]:
    """The record's training and test rows (1-based row numbers in the record)."""
    data = load_shared(rec["dataset"])
    train = data.iloc[[r - 1 for r in rec["train_rows"]]].reset_index(drop=True)
    test = data.iloc[[r - 1 for r in rec["test_rows"]]].reset_index(drop=True)
    return train, test
