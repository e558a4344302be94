"""The MurTree node-count path: optimal trees for every node budget, and its tuning.

:func:`murtree_path` finds the optimal tree of depth <= ``max_depth`` for every
budget of feature nodes 0, 1, ..., 2^depth - 1 (the node-count front of the
MurTree paper, section 4.5.5 "incremental solving"): one search state serves
every budget, so the subproblems solved (and the lower bounds proven) for a
small budget are reused by the larger ones, and each budget's search starts
from the previous budget's optimum as its upper bound.

:func:`murtree_cv` picks the budget by k-fold cross-validation (the paper's
tuning, section 5.4): a path on each training part, every budget's tree
scored on the held-out part, the budget with the fewest held-out
misclassifications (ties: the smaller budget), refitted on all rows.
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

from ..errors import PybsnsingValueError
from . import _engine
from .model import OptimalTreeModel
from .solver import check_settings, cost_weights, model_from_result, prepare_data

__all__ = ["MurTreeCV", "MurTreePath", "murtree_cv", "murtree_path"]


@dataclass
class MurTreePath:
    """Optimal trees of depth <= ``max_depth`` for the node budgets 0..``budgets[-1]``.

    Attributes:
        max_depth: the depth limit of every tree.
        budgets: the node budgets 0, 1, ..., max_num_nodes.
        errors: the optimal training misclassifications per budget (non-increasing).
        num_nodes: feature nodes of each budget's tree (the fewest with those errors
            when ``fewest_nodes``).
        optimal: whether each budget's tree is proven optimal (False after the time
            limit: then the best tree found so far).
        models: the tree of each budget (:class:`OptimalTreeModel`).
        runtime: seconds for the whole path.
    """

    max_depth: int
    budgets: np.ndarray
    errors: np.ndarray
    num_nodes: np.ndarray
    optimal: np.ndarray
    models: list[OptimalTreeModel] = field(repr=False)
    runtime: float = 0.0

    def model(self, budget: int) -> OptimalTreeModel:
        """The optimal tree with at most ``budget`` feature nodes."""
        if not 0 <= budget < len(self.models):
            raise PybsnsingValueError(
                f"budget must be in [0, {len(self.models) - 1}], got {budget}")
        return self.models[budget]

    def to_frame(self) -> pd.DataFrame:
        """One row per budget: budget, errors, num_nodes, optimal."""
        return pd.DataFrame({"budget": self.budgets, "errors": self.errors,
                             "num_nodes": self.num_nodes, "optimal": self.optimal})


def murtree_path(
    X_binary: Any,
    y: Any,
    max_depth: int = 3,
    max_num_nodes: int | None = None,
    time_limit: float | None = 600,
    fewest_nodes: bool = True,
) -> MurTreePath:
    """Optimal trees for every node budget 0..``max_num_nodes`` (default 2^depth - 1).

    Each point is what ``murtree_fit(X_binary, y, max_depth, max_num_nodes=budget,
    fewest_nodes=fewest_nodes)`` returns (the same misclassifications, and with
    ``fewest_nodes`` the same node count), computed with one shared cache: much
    less work than the separate fits. Once a budget's tree meets the class-count
    lower bound of the largest budget (for example zero errors), the larger
    budgets share it without a search.

    Args:
        X_binary, y, max_depth, fewest_nodes: as in
            :func:`~pybsnsing.optimal.murtree_fit`.
        max_num_nodes: the largest budget of the path (None: 2^depth - 1).
        time_limit: seconds for the whole path (None = no limit); budgets not
            finished get the best tree found (``optimal`` False).

    Returns:
        A :class:`MurTreePath`.
    """
    t0 = time.perf_counter()
    max_depth, top, time_limit, fewest_nodes, (X, names, classes, codes) = _path_inputs(
        X_binary, y, max_depth, max_num_nodes, time_limit, fewest_nodes)
    return _path(X, names, classes, codes, max_depth, top, time_limit, fewest_nodes, t0)


def _path_inputs(X_binary, y, max_depth, max_num_nodes, time_limit, fewest_nodes):
    """(max_depth, the largest budget, time_limit, fewest_nodes, (X, names, classes,
    codes)), checked as :func:`~pybsnsing.optimal.murtree_fit` checks them."""
    max_depth, _mnn, top, _sparse, time_limit, fewest_nodes = check_settings(
        max_depth, max_num_nodes, 0.0, time_limit, fewest_nodes)
    return max_depth, top, time_limit, fewest_nodes, prepare_data(X_binary, y)


def _path(X, names, classes, codes, max_depth, top, time_limit, fewest_nodes, t0):
    n = X.shape[0]
    deadline = t0 + time_limit
    d_top, _ = _engine.normalise(max_depth, top)
    A, B, _s = cost_weights(n, max(d_top, 1), 0.0, fewest_nodes)
    packed = _engine.pack(X, codes, len(classes))
    engine = _engine.Engine(packed, max(d_top, 1), A, B)
    root_counts = np.bincount(codes, minlength=len(classes)).astype(np.int64)
    floor = int(_engine.class_count_bound(root_counts, top, A, B))
    models: list[OptimalTreeModel] = []
    prev: _engine.SearchResult | None = None
    for budget in range(top + 1):
        t1 = time.perf_counter()
        d, nn = _engine.normalise(max_depth, budget)
        if prev is not None and prev.optimal and prev.cost <= floor:
            res = prev  # meets the bound of the largest budget: optimal for every budget
        elif time.perf_counter() > deadline and prev is not None:
            res = _engine.SearchResult(prev.feature, prev.left, prev.right, prev.counts,
                                       prev.cost, False, prev.stats)
        else:
            res = engine.search(d, nn, deadline if budget > 0 else math.inf, incumbent=prev)
        models.append(model_from_result(
            res, names=names, classes=classes, A=A, B=B, max_depth=max_depth,
            max_num_nodes=budget, sparse_coefficient=0.0, time_limit=time_limit,
            n_samples=n, runtime=time.perf_counter() - t1))
        prev = res
    return MurTreePath(
        max_depth=max_depth,
        budgets=np.arange(top + 1),
        errors=np.array([m.objective for m in models], dtype=np.int64),
        num_nodes=np.array([m.num_nodes for m in models], dtype=np.int64),
        optimal=np.array([m.optimal for m in models], dtype=bool),
        models=models,
        runtime=time.perf_counter() - t0,
    )


@dataclass
class MurTreeCV:
    """Cross-validated choice of the node budget (see :func:`murtree_cv`).

    Attributes:
        budgets: the node budgets tried.
        cv_errors: held-out misclassifications per budget, summed over the folds.
        cv_error_rate: ``cv_errors / n``.
        fold_errors: (folds, budgets) held-out misclassifications.
        best_budget: the budget with the fewest held-out misclassifications
            (ties: the smallest).
        path: the path on all rows; ``model`` is its tree of ``best_budget``.
    """

    budgets: np.ndarray
    cv_errors: np.ndarray
    cv_error_rate: np.ndarray
    fold_errors: np.ndarray
    best_budget: int
    path: MurTreePath = field(repr=False)
    model: OptimalTreeModel = field(repr=False)

    def to_frame(self) -> pd.DataFrame:
        """One row per budget: budget, cv_errors, cv_error_rate and the full-data path."""
        df = self.path.to_frame().rename(columns={"errors": "train_errors"})
        df.insert(1, "cv_errors", self.cv_errors)
        df.insert(2, "cv_error_rate", self.cv_error_rate)
        return df


def stratified_folds(codes: np.ndarray, k: int, seed: int | None) -> np.ndarray:
    """Fold number (0..k-1) of each row: each class dealt round-robin after a shuffle."""
    rng = np.random.default_rng(seed)
    fold = np.empty(len(codes), dtype=np.int64)
    start = 0
    for c in np.unique(codes):
        rows = np.flatnonzero(codes == c)
        rng.shuffle(rows)
        fold[rows] = (start + np.arange(len(rows))) % k
        start += len(rows)
    return fold


def murtree_cv(X_binary: Any, y: Any, max_depth: int = 3, max_num_nodes: int | None = None,
               cv: int = 5, random_state: int | None = 0, time_limit: float | None = 600,
               fewest_nodes: bool = True) -> MurTreeCV:
    """Pick the node budget by stratified k-fold cross-validation (MurTree's tuning).

    A :func:`murtree_path` on each training part; every budget's tree predicts the
    held-out part; the budget with the fewest held-out misclassifications over
    all folds wins (ties: the smaller budget, the simpler tree), and its tree on
    all rows (from the full-data path) is returned.

    Args:
        X_binary, y, max_depth, max_num_nodes, fewest_nodes: as in :func:`murtree_path`.
        cv: number of folds (>= 2, at most the number of rows).
        random_state: seed of the fold assignment.
        time_limit: seconds for each path (the folds' and the full one).

    Returns:
        A :class:`MurTreeCV`.
    """
    t0 = time.perf_counter()
    max_depth, top, time_limit, fewest_nodes, (X, names, classes, codes) = _path_inputs(
        X_binary, y, max_depth, max_num_nodes, time_limit, fewest_nodes)
    n = X.shape[0]
    if isinstance(cv, bool) or not isinstance(cv, int | np.integer) or not 2 <= cv <= n:
        raise PybsnsingValueError(f"cv must be an integer in [2, {n}], got {cv!r}")
    fold = stratified_folds(codes, int(cv), random_state)
    fold_errors = np.zeros((int(cv), top + 1), dtype=np.int64)
    for k in range(int(cv)):
        train = fold != k
        test = ~train
        tr_codes = codes[train]
        present = np.unique(tr_codes)  # classes of the training part, coded 0..c-1
        sub = _path(np.ascontiguousarray(X[train]), names, present,
                    np.searchsorted(present, tr_codes), max_depth, top, time_limit,
                    fewest_nodes, time.perf_counter())
        Xt = X[test]
        yt = codes[test]
        for b, model in enumerate(sub.models):
            fold_errors[k, b] = int((model.predict(Xt) != yt).sum())
    cv_errors = fold_errors.sum(axis=0)
    best = int(np.argmin(cv_errors))
    full = _path(X, names, classes, codes, max_depth, top, time_limit, fewest_nodes, t0)
    return MurTreeCV(
        budgets=np.arange(top + 1),
        cv_errors=cv_errors,
        cv_error_rate=cv_errors / n,
        fold_errors=fold_errors,
        best_budget=best,
        path=full,
        model=full.models[best],
    )
