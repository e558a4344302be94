"""Optimal classification trees: the MurTree solver (Demirović et al., JMLR 2022).

* :func:`murtree_fit` — on a 0/1 feature matrix and labels;
* :func:`murtree_path` / :func:`murtree_cv` — the optimal tree for every node
  budget in one search (shared cache), and the budget picked by cross-validation;
* :func:`murtree` — on a data frame through a formula (design matrix as
  bsnsing builds it, non-binary columns binarised);
* :class:`OptimalTreeModel` — the fitted tree: ``predict``, ``summary``,
  ``to_dict``/``from_dict``;
* :func:`dpdt_fit` / :func:`dpdt` — DPDT (Kohler et al.): the best tree for every
  trade-off between training errors and the expected number of tests, in one solve
  (:class:`DPDTResult`; :mod:`pybsnsing.optimal.dpdt`).
* :func:`min_depth_tree` / :func:`slim_improve` / :func:`greedy_fit` — SAT-based
  minimum-depth trees and DT-SLIM (:mod:`pybsnsing.optimal.slim`; the ``sat`` extra).

The search runs in numba kernels (:mod:`pybsnsing.kernels.murtree`): the
specialised depth-two solver on per-class frequency counters (bit-packed
columns, popcount Gram matrices, incremental updates), dataset cache,
upper/lower bounds, similarity lower bound, dynamic child order, fewest nodes
on ties, the sparse objective, multi-class data and a time limit.
"""

from .binarize import QuantileBinarizer
from .dpdt import DPDTResult, DPDTTreeModel, dpdt, dpdt_fit
from .formula import murtree
from .model import OptimalTreeModel, OptimalTreeNode
from .path import MurTreeCV, MurTreePath, murtree_cv, murtree_path
from .slim import SlimResult, greedy_fit, min_depth_tree, slim_improve
from .solver import murtree_fit

__all__ = [
    "DPDTResult",
    "DPDTTreeModel",
    "MurTreeCV",
    "MurTreePath",
    "OptimalTreeModel",
    "OptimalTreeNode",
    "QuantileBinarizer",
    "SlimResult",
    "dpdt",
    "dpdt_fit",
    "greedy_fit",
    "min_depth_tree",
    "murtree",
    "murtree_cv",
    "murtree_fit",
    "murtree_path",
    "slim_improve",
]
