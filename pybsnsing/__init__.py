"""pybsnsing: classification trees by recursive optimal boolean rule composition.

The public names:

* :func:`bsnsing` — fit a tree from a formula and a DataFrame (R's ``bsnsing``);
* :func:`bscontrol` / :class:`BsControl` — the control parameters;
* :func:`binarize`, :func:`binarize_numeric`, :func:`bslearn` — R's building blocks;
* :class:`BsnsingModel`, :class:`MBsnsingModel` — fitted models; :func:`load_model`;
* :func:`roc_auc` — the tie-correct AUC (scikit-learn's ``roc_auc_score``);
  :func:`ROC_func` — R bsnsing's ``ROC_func`` (order-dependent on ties);
* :func:`read_csv` — R's ``read.csv`` value for value (column classes, factor levels,
  doubles bit for bit);
* :func:`murtree`, :func:`murtree_fit` — MurTree optimal trees (:mod:`pybsnsing.optimal`);
* :func:`dpdt`, :func:`dpdt_fit` — DPDT: the trees of every accuracy/complexity trade-off;
* :class:`BsnsingClassifier` — the scikit-learn estimator (:mod:`pybsnsing.sklearn`);
* :func:`warmup` — compile or load every numba kernel ahead of the first fit;
* :class:`PybsnsingError` and its subclasses (:mod:`pybsnsing.errors`) — every
  problem pybsnsing reports about its input is one of them.

Heavy optional parts (MurTree, scikit-learn, plots) load on first use.
"""

from __future__ import annotations

from importlib import import_module
from typing import Any

from .api import bsnsing
from .control import BsControl, bscontrol
from .errors import (
    DataError,
    FormulaError,
    InvalidParameterError,
    ModelFileError,
    PybsnsingError,
    PybsnsingImportError,
    PybsnsingKeyError,
    PybsnsingTypeError,
    PybsnsingValueError,
)
from .model import BsnsingModel, MBsnsingModel, load_model
from .questions import binarize, binarize_numeric
from .search import bslearn

__version__ = "0.1.0"

_LAZY = {
    "murtree": ("pybsnsing.optimal", "murtree"),
    "murtree_fit": ("pybsnsing.optimal", "murtree_fit"),
    "dpdt": ("pybsnsing.optimal", "dpdt"),
    "dpdt_fit": ("pybsnsing.optimal", "dpdt_fit"),
    "min_depth_tree": ("pybsnsing.optimal", "min_depth_tree"),
    "slim_improve": ("pybsnsing.optimal", "slim_improve"),
    "BsnsingClassifier": ("pybsnsing.sklearn", "BsnsingClassifier"),
    "roc_auc": ("pybsnsing.export.roc", "roc_auc"),
    "ROC_func": ("pybsnsing.export.roc", "ROC_func"),
    "read_csv": ("pybsnsing.datasets._reader", "read_csv"),
    "warmup": ("pybsnsing._warmup", "warmup"),
}

__all__ = [
    "BsControl",
    "ROC_func",
    "BsnsingClassifier",
    "BsnsingModel",
    "DataError",
    "FormulaError",
    "InvalidParameterError",
    "MBsnsingModel",
    "ModelFileError",
    "PybsnsingError",
    "PybsnsingImportError",
    "PybsnsingKeyError",
    "PybsnsingTypeError",
    "PybsnsingValueError",
    "binarize",
    "binarize_numeric",
    "bscontrol",
    "bslearn",
    "bsnsing",
    "dpdt",
    "dpdt_fit",
    "load_model",
    "min_depth_tree",
    "murtree",
    "murtree_fit",
    "slim_improve",
    "read_csv",
    "roc_auc",
    "warmup",
]


def __getattr__(name: str) -> Any:
    if name in _LAZY:
        module, attr = _LAZY[name]
        value = getattr(import_module(module), attr)
        globals()[name] = value
        return value
    raise AttributeError(f"module 'pybsnsing' has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_LAZY))
