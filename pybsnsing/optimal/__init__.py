"""Optimal classification trees: the MurTree solver (Demirović et al., JMLR 2022).

* :func:`murtree_fit` — on a 0/1 feature matrix and labels;
* :func:`murtree` — on a data frame through a formula (design matrix as
  bsnsing builds it, non-binary columns binarised);
* :class:`OptimalTreeModel` — the fitted tree: ``predict``, ``summary``,
  ``to_dict``/``from_dict``.

The search runs in numba kernels (:mod:`pybsnsing.kernels.murtree`): the
specialised depth-two solver on per-class frequency counters (bit-packed
columns, popcount Gram matrices, incremental updates), dataset cache,
upper/lower bounds, similarity lower bound, dynamic child order, fewest nodes
on ties, the sparse objective, multi-class data and a time limit.
"""

from .binarize import QuantileBinarizer
from .formula import murtree
from .model import OptimalTreeModel, OptimalTreeNode
from .solver import murtree_fit

__all__ = [
    "OptimalTreeModel",
    "OptimalTreeNode",
    "QuantileBinarizer",
    "murtree",
    "murtree_fit",
]
