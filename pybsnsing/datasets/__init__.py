"""Bundled classification data sets of the bsnsing cross-check.

The package ships 33 of the 35 tabular data sets that the R bsnsing 1.0.1 golden
fixtures were made from, as gzip-compressed CSV files whose content is byte-identical to
the reference CSVs, with copies of their ``manifest.csv`` and ``columns.csv`` (rows of
the shipped sets only). ``synthetic100k`` and ``synthetic1m`` are not shipped (too
large); read them from the reference material with :func:`read_canonical`.

>>> from pybsnsing.datasets import load_dataset, dataset_formula
>>> df = load_dataset("BreastCancer")
>>> dataset_formula("BreastCancer")
'Class ~ .'

:func:`load_dataset` uses the *canonical reader* (:func:`read_canonical`), the one used
for every fixture: R's ``read.csv(file, stringsAsFactors = TRUE, na.strings = c("",
"NA"))``, then each column listed in ``columns.csv`` with ``r_class == "factor"`` made a
factor with exactly the listed levels, in that order. So integer-looking columns are
``int64`` (``"Int64"`` where values are missing) even where the original R object held
doubles (``columns.csv`` ``plain_read_csv_class`` vs ``r_class``); pass
``r_classes=True`` to get those as ``float64``. Doubles parse exactly (correctly
rounded). Factor levels are in R's order.

Provenance and licences
-----------------------
The data come from the reference material of the bsnsing cross-check (its
``data/README.md`` and ``manifest.csv``; see :func:`dataset_info` for each set's
``source`` and ``notes``):

* ``bsnsing_test all.RData``: the benchmark collection of github profyliu/bsnsing_test
  (``data/all.RData``), mostly classic UCI data sets;
* ``bsnsing CRAN``: the data sets shipped with the CRAN package bsnsing 1.0.1 (``auto``,
  ``BreastCancer``, ``GlaucomaMVF``, ``iris``), which are identical to the all.RData
  copies and were kept once (deduplicated);
* ``mlbench``: data sets of the R package mlbench 2.1.3 (``Sonar``, ``Ionosphere``,
  ``Vehicle``, ``Satellite``; ``Glass`` and ``pima`` are the same data as mlbench's
  ``Glass`` and ``PimaIndiansDiabetes``);
* ``rpart``: ``kyphosis`` from the R package rpart 4.1.19;
* ``synthetic``: ``synthetic20k``, generated with seed 2024 by the cross-check script
  ``run_synthetic.R`` (``x1..x10`` i.i.d. N(0,1); ``y = "pos"`` iff
  ``x1 + x2*x3 - 0.5*x4 + 0.5*(x5 > 1) + N(0, 0.5^2) > 0``).

The data are redistributed for testing and benchmarking under the terms of their
original sources (the R packages named above and the collections they cite); consult
those sources before other uses. The reference README gives no further licence for the
tabular sets. (Its binary MurTree/DL8.5 files, which are MIT-licensed, are not shipped
here.) all.RData's ``Iris`` (iris plus N(0, 0.001) noise) is shipped as ``Iris_jitter``
so that it does not clash with ``iris`` on case-insensitive file systems.
"""

from __future__ import annotations

import csv
import difflib
import gzip
import io
from functools import cache, lru_cache
from importlib import resources
from typing import Any

import pandas as pd

from ._reader import make_names, r_as_character, read_canonical, read_csv_r, restore_factors

__all__ = [
    "list_datasets",
    "load_dataset",
    "dataset_formula",
    "dataset_columns",
    "dataset_info",
    "read_canonical",
    "read_csv_r",
    "restore_factors",
    "make_names",
    "r_as_character",
    "NOT_BUNDLED",
]

#: Data sets of the reference manifest that are not shipped (too large).
NOT_BUNDLED: dict[str, str] = {
    "synthetic100k": "synthetic100k.csv.gz",
    "synthetic1m": "synthetic1m.csv.gz",
}

_DATA = "data"


def _data_bytes(filename: str) -> bytes:
    return resources.files(__name__).joinpath(_DATA, filename).read_bytes()


@lru_cache(maxsize=1)
def _manifest_rows() -> tuple[dict[str, str], ...]:
    text = _data_bytes("manifest.csv").decode("utf-8")
    return tuple(csv.DictReader(io.StringIO(text)))


@lru_cache(maxsize=1)
def _columns_table() -> pd.DataFrame:
    text = _data_bytes("columns.csv").decode("utf-8")
    rows = list(csv.DictReader(io.StringIO(text)))
    df = pd.DataFrame(rows, columns=list(rows[0].keys()))
    df["n_missing"] = df["n_missing"].astype("int64")
    df["must_restore_factor"] = df["must_restore_factor"].map({"TRUE": True, "FALSE": False})
    return df


def _manifest_row(name: str) -> dict[str, str]:
    if not isinstance(name, str):
        from ..errors import PybsnsingTypeError

        raise PybsnsingTypeError(
            f"the data set name must be a string such as 'iris', not {type(name).__name__} "
            f"{name!r:.60}; see pybsnsing.datasets.list_datasets()")
    for row in _manifest_rows():
        if row["name"] == name:
            return row
    names = [row["name"] for row in _manifest_rows()]
    from ..errors import PybsnsingValueError

    if name in NOT_BUNDLED:
        raise PybsnsingValueError(
            f"data set {name!r} is not bundled with pybsnsing (too large); read "
            f"{NOT_BUNDLED[name]} from the bsnsing reference data with "
            "pybsnsing.datasets.read_canonical(path, columns, dataset)"
        )
    hints = [n for n in names if n.lower() == name.lower()]
    hints += [n for n in difflib.get_close_matches(name, names, n=3, cutoff=0.6) if n not in hints]
    msg = f"unknown data set {name!r}"
    if hints:
        msg += f"; did you mean {', '.join(repr(h) for h in hints)}?"
    msg += f" (names are case-sensitive; available: {', '.join(names)})"
    raise PybsnsingValueError(msg)


def list_datasets() -> pd.DataFrame:
    """The bundled data sets, in manifest order.

    Returns
    -------
    pandas.DataFrame
        Columns ``name``, ``n`` (rows), ``p`` (predictors the formula uses), ``n_classes``,
        ``class_labels`` (tuple of labels in R factor level order), ``response`` and
        ``formula``.
    """
    rows = _manifest_rows()
    return pd.DataFrame(
        {
            "name": [r["name"] for r in rows],
            "n": pd.array([int(r["n"]) for r in rows], dtype="int64"),
            "p": pd.array([int(r["p"]) for r in rows], dtype="int64"),
            "n_classes": pd.array([int(r["n_classes"]) for r in rows], dtype="int64"),
            "class_labels": [tuple(r["class_labels"].split(";")) for r in rows],
            "response": [r["response"] for r in rows],
            "formula": [r["formula"] for r in rows],
        }
    )


def dataset_formula(name: str) -> str:
    """The R formula used for every fixture of data set ``name`` (e.g. ``'Class ~ .'``)."""
    return _manifest_row(name)["formula"]


def dataset_info(name: str) -> dict[str, Any]:
    """The full manifest record of ``name``: file, response, formula, n, p, classes, notes.

    ``file`` is the reference CSV's name; the bundled copy is ``file + ".gz"``.
    """
    row = dict(_manifest_row(name))
    for key in ("n", "p", "n_classes"):
        row[key] = int(row[key])
    row["class_labels"] = tuple(row["class_labels"].split(";"))
    return row


def dataset_columns(name: str | None = None) -> pd.DataFrame:
    """The ``columns.csv`` rows of ``name`` (all bundled data sets when None).

    Columns: ``dataset, column, role, r_class, levels, n_missing, plain_read_csv_class,
    must_restore_factor``.
    """
    table = _columns_table()
    if name is None:
        return table.copy()
    _manifest_row(name)  # validates the name
    return table[table["dataset"] == name].reset_index(drop=True)


@cache
def _load_cached(name: str) -> pd.DataFrame:
    row = _manifest_row(name)
    raw = gzip.decompress(_data_bytes(row["file"] + ".gz"))
    return read_canonical(io.BytesIO(raw), _columns_table(), name)


def load_dataset(name: str, *, r_classes: bool = False) -> pd.DataFrame:
    """Load a bundled data set with the canonical reader.

    Parameters
    ----------
    name
        Data set name as in :func:`list_datasets` (case-sensitive).
    r_classes
        If True, columns that ``columns.csv`` lists with ``r_class == "numeric"`` but that
        ``read.csv`` reads as integers are returned as ``float64``, the class they had in
        the original R object (e.g. the 0/1 response ``y`` of ``circ``, which R bsnsing
        rejects as a double, quirk Q1). The default (False) is the fixtures' read.

    Returns
    -------
    pandas.DataFrame
        A fresh copy; factor columns are ``Categorical`` with R's level order, integer
        columns ``int64`` (``"Int64"`` where values are missing), doubles ``float64``.

    Raises
    ------
    ValueError
        For an unknown name (the message lists close matches) or a data set that is not
        bundled.
    """
    if not isinstance(name, str):
        _manifest_row(name)  # raises: the name must be a string
    df = _load_cached(name).copy(deep=True)
    if r_classes:
        cols = dataset_columns(name)
        for col in cols.loc[cols["r_class"] == "numeric", "column"]:
            if col in df.columns and not pd.api.types.is_float_dtype(df[col].dtype):
                df[col] = df[col].astype("float64")
    return df
