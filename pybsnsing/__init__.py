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
  problem pybsnsing reports about its input is one of them; :class:`PybsnsingWarning`
  and its subclasses likewise for every warning.

Heavy optional parts (MurTree, scikit-learn, plots) load on first use.
"""

from __future__ import annotations

from importlib import import_module
from typing import Any

from .api import bsnsing
from .control import BsControl, bscontrol
from .errors import (  # noqa: F401 -- re-exported: __all__ takes ERROR/WARNING_CLASSES
    ERROR_CLASSES,
    WARNING_CLASSES,
    ControlWarning,
    DataError,
    DesignWarning,
    DPDTLimitWarning,
    ExternalWarning,
    FormulaError,
    InvalidParameterError,
    MissingValuesWarning,
    ModelFileError,
    PybsnsingError,
    PybsnsingImportError,
    PybsnsingKeyError,
    PybsnsingTypeError,
    PybsnsingValueError,
    PybsnsingWarning,
)
from .model import BsnsingModel, MBsnsingModel, load_model
from .questions import binarize, binarize_numeric
from .search import bslearn

__version__ = "0.1.0"

#: the names loaded on first use, by the module that holds them
_LAZY_MODULES = {
    "pybsnsing.optimal": (
        "murtree",
        "murtree_fit",
        "dpdt",
        "dpdt_fit",
        "min_depth_tree",
        "slim_improve",
    ),
    "pybsnsing.sklearn": ("BsnsingClassifier",),
    "pybsnsing.export.roc": ("roc_auc", "ROC_func"),
    "pybsnsing.datasets._reader": ("read_csv",),
    "pybsnsing._warmup": ("warmup",),
}
_LAZY = {name: module for module, names in _LAZY_MODULES.items() for name in names}

__all__ = [
    "BsControl",
    "ROC_func",
    "BsnsingClassifier",
    "BsnsingModel",
    "MBsnsingModel",
    *ERROR_CLASSES,
    *WARNING_CLASSES,
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
        value = getattr(import_module(_LAZY[name]), name)
        globals()[name] = value
        return value
    raise AttributeError(f"module 'pybsnsing' has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_LAZY))
