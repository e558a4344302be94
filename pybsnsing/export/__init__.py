"""Outputs of fitted models: ROC curves (:mod:`pybsnsing.export.roc`), plots and the like.

This package imports nothing heavy on import; import the submodules you need, e.g.
``from pybsnsing.export.roc import roc_auc, plot_roc``. The names below are also
reachable lazily as attributes of this package.
"""

from __future__ import annotations

from typing import Any

__all__ = ["ROC_func", "RocResult", "roc_auc", "plot_roc"]

_LAZY = {"ROC_func": "roc", "RocResult": "roc", "roc_auc": "roc", "plot_roc": "roc"}


def __getattr__(name: str) -> Any:
    if name in _LAZY:
        from importlib import import_module

        return getattr(import_module(f"{__name__}.{_LAZY[name]}"), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


# Tree drawings (pybsnsing.export.plot / .latex / .dot), also reachable lazily.
__all__ += ["plot_tree", "to_latex", "to_dot"]
_LAZY.update({"plot_tree": "plot", "to_latex": "latex", "to_dot": "dot"})

# Rules out (pybsnsing.export.code): text, Python source, SQL CASE expression.
__all__ += ["export_text", "to_python", "to_sql", "compile_python"]
_LAZY.update({"export_text": "code", "to_python": "code", "to_sql": "code",
              "compile_python": "code"})
