"""Helpers for the golden-fixture tests: records, data sets, train/test splits.

The fixtures are the repository's copies in ``tests/golden`` (``conftest.GOLDEN``). The
data sets they were made from are read from the package's bundled copies
(:func:`pybsnsing.datasets.load_dataset`: byte-identical gzip copies of the reference
CSVs, read with the same canonical reader), so no ``../shared`` is needed. A data set
that is not bundled (``synthetic100k``, ``synthetic1m``) is read from
``../shared/data/tabular`` when that is present; otherwise the test is skipped, saying so.
"""

from __future__ import annotations

import json
from functools import cache
from importlib import resources
from pathlib import Path
from typing import NamedTuple

import pandas as pd
import pytest
from conftest import GOLDEN, SHARED

from pybsnsing.datasets import NOT_BUNDLED, list_datasets
from pybsnsing.r.convert import strip_call  # noqa: F401  (re-exported for the tests)

TREES = GOLDEN / "trees"
#: the package's bundled data: manifest.csv, columns.csv and <file>.gz per data set
BUNDLE = Path(str(resources.files("pybsnsing.datasets").joinpath("data")))
SHARED_TABULAR = SHARED / "data" / "tabular"


def tree_records() -> list[dict]:
    """Every record of golden/trees/*.json."""
    if not TREES.is_dir():
        raise FileNotFoundError(
            f"golden fixtures not found at {TREES} (tests/golden is part of the repository; "
            "PYBSNSING_GOLDEN, when set, must name a folder with trees/*.json)"
        )
    out = []
    for path in sorted(TREES.glob("*.json")):
        out.extend(json.loads(path.read_text()))
    return out


def record_id(rec: dict) -> str:
    return f"{rec['dataset']}-{rec['config']}"


class TabularSource(NamedTuple):
    """Where a data set's files are: its manifest.csv, columns.csv and CSV file.

    ``csv`` is the package's gzip copy (``<file>.gz``) for a bundled data set; pandas
    (by the suffix) and R's ``read.csv`` (``file()`` detects gzip) read it directly.
    """

    manifest: Path
    columns: Path
    csv: Path


@cache
def _bundled() -> frozenset[str]:
    return frozenset(list_datasets()["name"])


def tabular_source(name: str) -> TabularSource:
    """The files of data set ``name``: bundled copy, else ../shared, else skip."""
    if name in _bundled():
        folder, suffix = BUNDLE, ".gz"
    elif (SHARED_TABULAR / "manifest.csv").is_file():
        folder, suffix = SHARED_TABULAR, ""
    else:
        why = "too large to bundle" if name in NOT_BUNDLED else "unknown to the bundle"
        pytest.skip(
            f"data set {name} is not bundled with pybsnsing ({why}) and the reference "
            f"material is not at {SHARED_TABULAR} (set PYBSNSING_SHARED)"
        )
    manifest = pd.read_csv(folder / "manifest.csv")
    file = manifest.loc[manifest["name"] == name, "file"]
    if file.empty:
        pytest.skip(f"data set {name} is in neither the bundle nor {SHARED_TABULAR}")
    return TabularSource(folder / "manifest.csv", folder / "columns.csv",
                         folder / (file.iloc[0] + suffix))


@cache
def load_data(name: str) -> pd.DataFrame:
    """A data set read exactly as the fixtures did (the canonical reader).

    Bundled sets come from :func:`pybsnsing.datasets.load_dataset`; the others are
    read with :func:`pybsnsing.datasets.read_canonical` from ../shared (or skipped).
    """
    from pybsnsing.datasets import load_dataset, read_canonical

    if name in _bundled():
        return load_dataset(name)
    src = tabular_source(name)
    columns = pd.read_csv(src.columns, keep_default_na=False)
    return read_canonical(src.csv, columns, name)


def split(rec: dict) -> tuple[pd.DataFrame, pd.DataFrame]:
    """The record's training and test rows (1-based row numbers in the record)."""
    data = load_data(rec["dataset"])
    train = data.iloc[[r - 1 for r in rec["train_rows"]]].reset_index(drop=True)
    test = data.iloc[[r - 1 for r in rec["test_rows"]]].reset_index(drop=True)
    return train, test
