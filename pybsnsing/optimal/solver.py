"""``murtree_fit``: optimal classification trees on binary features (MurTree)."""

from __future__ import annotations

import math
import numbers
import time
from typing import Any

import numpy as np
import pandas as pd

from ..errors import PybsnsingError, PybsnsingValueError
from ..validation import as_whole, check_binary
from . import _engine
from .model import OptimalTreeModel, OptimalTreeNode

__all__ = ["check_binary", "check_settings", "model_from_result", "murtree_fit", "prepare_data"]

MAX_DEPTH_LIMIT = 12


def encode_y(y: Any, n: int) -> tuple[np.ndarray, np.ndarray]:
    """Class labels (sorted, or category order) and integer codes."""
    if isinstance(y, pd.DataFrame):
        if y.shape[1] != 1:
            raise PybsnsingValueError("y must be one column")
        y = y.iloc[:, 0]
    if isinstance(y, pd.Series) and isinstance(y.dtype, pd.CategoricalDtype):
        if y.isna().any():
            raise PybsnsingValueError("y contains missing values")
        present = set(y.unique().tolist())
        classes = np.asarray([c for c in y.cat.categories if c in present])
        index = {c: i for i, c in enumerate(classes.tolist())}
        codes = np.array([index[v] for v in y.tolist()], dtype=np.int64)
    else:
        arr = y.to_numpy() if isinstance(y, pd.Series) else np.asarray(y)
        if arr.ndim != 1:
            if arr.ndim == 2 and 1 in arr.shape:
                arr = arr.ravel()
            else:
                raise PybsnsingValueError(f"y must be 1-dimensional, got shape {arr.shape}")
        if pd.isna(arr).any():
            raise PybsnsingValueError("y contains missing values (NaN/None)")
        try:
            classes, codes = np.unique(arr, return_inverse=True)
        except TypeError as exc:
            raise PybsnsingValueError(f"y labels cannot be ordered: {exc}") from exc
        codes = codes.astype(np.int64).ravel()
    if len(codes) != n:
        raise PybsnsingValueError(f"X_binary has {n} rows but y has {len(codes)} labels")
    return classes, codes


def cost_weights(
    n: int, depth: int, sparse_coefficient: float, fewest_nodes: bool = True
) -> tuple[int, int, int]:
    """Integer weights (A, B, s) of the search cost ``A * errors + B * nodes``.

    ``nodes < 2**s``. Without a sparse penalty ``A = 2**s, B = 1``: fewest
    errors, then fewest nodes, exactly. With ``sparse_coefficient = lam`` the
    per-node penalty ``lam * n`` (in errors) is represented as ``P / K`` with
    ``K = 2**k`` (k <= 30; error below 2**-31 per node) and ``A = K * 2**s``,
    ``B = P * 2**s + 1``: the sparse objective first, then fewest nodes.
    ``fewest_nodes=False`` drops the tie-break: ``A = 1, B = 0`` (errors only)
    and ``A = K, B = P`` (the sparse objective only); ``s = 0``.
    """
    s = max(1, depth)
    if not fewest_nodes:
        if sparse_coefficient <= 0:
            return 1, 0, 0
        A, B, s = cost_weights(n, depth, sparse_coefficient, True)
        return A >> s, (B - 1) >> s, 0
    if sparse_coefficient <= 0:
        return 1 << s, 1, s
    penalty = min(sparse_coefficient * n, n + 1.0)  # beyond n + 1 a leaf wins anyway
    k = min(30, 60 - s - max(1, n.bit_length()) - (depth + 2))
    if k < 6:
        raise PybsnsingValueError("data set too large for the sparse objective at this depth")
    K = 1 << k
    P = int(round(penalty * K))
    return K << s, (P << s) + 1, s


def murtree_fit(X_binary: Any, y: Any, max_depth: int = 3, max_num_nodes: int | None = None,
                sparse_coefficient: float = 0.0, time_limit: float | None = 600,
                fewest_nodes: bool = True, sample_weight: Any = None,
                class_weight: Any = None) -> OptimalTreeModel:
    """Fit an optimal classification tree on binary features with MurTree.

    The tree minimises the training misclassifications subject to
    depth <= ``max_depth`` and at most ``max_num_nodes`` feature (branching)
    nodes; among trees with the fewest misclassifications it has the fewest
    nodes. A feature node sends rows with the feature = 0 left and = 1 right;
    a leaf predicts its majority class. Any number of classes.

    Args:
        X_binary: 0/1 matrix (n x m): numpy array (bool or numbers) or a data
            frame of 0/1 columns (its column names become the feature names).
        y: class labels of the rows (any hashable, orderable labels; a
            categorical series keeps its category order).
        max_depth: the maximum depth (0 gives a single leaf); at most 12.
        max_num_nodes: the maximum number of feature nodes (None: 2^depth - 1).
        sparse_coefficient: MurTree's sparse objective: each feature node costs
            ``sparse_coefficient * n`` misclassifications, i.e. the tree minimises
            ``errors / n + sparse_coefficient * nodes`` (0 = plain
            misclassification). ``objective`` still reports the misclassifications,
            ``sparse_objective`` the penalised value.
        time_limit: seconds (None = no limit). When the limit stops the search
            the best tree found so far is returned with ``optimal = False``
            (at worst the optimal tree of depth <= 2).
        fewest_nodes: among the optimal trees return one with the fewest
            feature nodes (default). This needs a proof that no smaller tree is
            as good, which can cost far more than the optimum itself when many
            trees tie (for example when zero-error trees exist: mushroom at
            depth 5). ``False`` minimises the objective alone and stops at the
            first optimal tree found, as MurTree's and STreeD's (pystreed)
            default objective does; the misclassifications (and the sparse
            objective) are the same, the tree may have more nodes (never a
            split whose children are no better than a leaf).
        sample_weight: whole-number weight of each row (None: 1): the tree minimises
            the weighted misclassifications, exactly the tree of the data with each row
            repeated that many times (restriction: weights must be whole numbers -- the
            MurTree engine counts rows -- and the work grows with their total; rows of
            weight 0 are left out). The model's counts, ``objective`` and ``n_samples``
            are then weighted.
        class_weight: a dict ``{class label: whole number}`` multiplying
            ``sample_weight`` (``"balanced"`` only where it gives whole numbers).

    Returns:
        The fitted :class:`~pybsnsing.optimal.model.OptimalTreeModel`.

    Raises:
        ValueError: non-binary or missing features, length mismatch, bad
            settings, missing labels.
    """
    t0 = time.perf_counter()
    max_depth, max_num_nodes, n_nodes, sparse_coefficient, time_limit, fewest_nodes = (
        check_settings(max_depth, max_num_nodes, sparse_coefficient, time_limit, fewest_nodes))
    X, names, classes, codes = prepare_data(X_binary, y)
    if sample_weight is not None or class_weight is not None:
        X, codes = _repeat_by_weight(X, classes, codes, sample_weight, class_weight)
    n = X.shape[0]
    d_eff, n_eff = _engine.normalise(max_depth, n_nodes)
    A, B, s = cost_weights(n, d_eff, sparse_coefficient, fewest_nodes)
    packed = _engine.pack(X, codes, len(classes))
    res = _engine.search(packed, d_eff, n_eff, A, B, time_limit)
    return model_from_result(
        res, names=names, classes=classes, A=A, B=B, max_depth=max_depth,
        max_num_nodes=max_num_nodes, sparse_coefficient=sparse_coefficient,
        time_limit=time_limit, n_samples=n, runtime=time.perf_counter() - t0)


def _repeat_by_weight(X: np.ndarray, classes: np.ndarray, codes: np.ndarray,
                      sample_weight: Any, class_weight: Any) -> tuple[np.ndarray, np.ndarray]:
    """The rows repeated by their whole-number weights (see :func:`murtree_fit`)."""
    from ..weighted import resolve_weights

    w = resolve_weights(None, list(classes), codes, sample_weight, class_weight)
    if w is None:  # the caller passes a sample_weight or a class_weight
        raise PybsnsingError("internal error: _repeat_by_weight without weights")
    if not np.all(w == np.floor(w)):
        raise PybsnsingValueError(
            "murtree_fit takes whole-number weights only (the MurTree engine counts rows; "
            "a row of weight k counts as k rows); scale fractional weights to whole numbers")
    reps = w.astype(np.int64)
    return np.repeat(X, reps, axis=0), np.repeat(codes, reps)


def check_settings(
    max_depth: Any, max_num_nodes: Any, sparse_coefficient: Any, time_limit: Any,
    fewest_nodes: Any,
) -> tuple[int, int | None, int, float, float, bool]:
    """Checked settings of :func:`murtree_fit`: (max_depth, max_num_nodes, node budget
    (``max_num_nodes`` capped at 2^depth - 1), sparse_coefficient, time_limit (inf for
    None), fewest_nodes)."""
    max_depth = as_whole(max_depth, "max_depth", 0, MAX_DEPTH_LIMIT)
    limit = (1 << max_depth) - 1
    if max_num_nodes is not None:
        max_num_nodes = as_whole(max_num_nodes, "max_num_nodes", 0)
    n_nodes = limit if max_num_nodes is None else min(max_num_nodes, limit)
    if isinstance(sparse_coefficient, bool) or not isinstance(sparse_coefficient, numbers.Real):
        raise PybsnsingValueError(
            f"sparse_coefficient must be a number, not {sparse_coefficient!r}")
    sparse_coefficient = float(sparse_coefficient)
    if not math.isfinite(sparse_coefficient) or sparse_coefficient < 0:
        raise PybsnsingValueError(
            f"sparse_coefficient must be >= 0 and finite, got {sparse_coefficient}")
    if time_limit is None:
        time_limit = math.inf
    if isinstance(time_limit, bool) or not isinstance(time_limit, numbers.Real):
        raise PybsnsingValueError(f"time_limit must be a number of seconds, not {time_limit!r}")
    time_limit = float(time_limit)
    if not time_limit > 0:
        raise PybsnsingValueError(f"time_limit must be positive, got {time_limit}")
    if not isinstance(fewest_nodes, bool | np.bool_):
        raise PybsnsingValueError(f"fewest_nodes must be True or False, not {fewest_nodes!r}")
    return max_depth, max_num_nodes, n_nodes, sparse_coefficient, time_limit, bool(fewest_nodes)


def prepare_data(X_binary: Any, y: Any) -> tuple[np.ndarray, list[str], np.ndarray, np.ndarray]:
    """(X as uint8 0/1, feature names, class labels, integer class codes), checked."""
    if isinstance(X_binary, pd.DataFrame):
        names = [str(c) for c in X_binary.columns]
    else:
        names = None
    X = check_binary(X_binary, "X_binary")
    n, m = X.shape
    if names is None:
        names = [f"x{j}" for j in range(m)]
    if n == 0:
        raise PybsnsingValueError("X_binary has no rows")
    classes, codes = encode_y(y, n)
    return X, names, classes, codes


def model_from_result(
    res: _engine.SearchResult, *, names: list[str], classes: np.ndarray, A: int, B: int,
    max_depth: int, max_num_nodes: int | None, sparse_coefficient: float, time_limit: float,
    n_samples: int, runtime: float,
) -> OptimalTreeModel:
    """The :class:`OptimalTreeModel` of a search result (node arrays in pre-order)."""
    feature = res.feature.tolist()
    left = res.left.tolist()
    right = res.right.tolist()
    counts = res.counts.astype(np.int64)
    pred = counts.argmax(axis=1).tolist()
    depth = [0] * len(feature)
    nodes: list[OptimalTreeNode] = []
    errors = 0
    n_feat_nodes = 0
    for k, f in enumerate(feature):  # pre-order: a node's depth is known before its children
        if f >= 0:
            depth[left[k]] = depth[right[k]] = depth[k] + 1
            n_feat_nodes += 1
        else:
            errors += int(counts[k].sum() - counts[k].max())
        nodes.append(
            OptimalTreeNode(
                id=k,
                depth=depth[k],
                feature=f,
                feature_name=names[f] if f >= 0 else None,
                left=left[k],
                right=right[k],
                counts=counts[k],
                prediction=pred[k],
            )
        )
    if res.optimal and errors * A + n_feat_nodes * B != res.cost:
        raise RuntimeError(  # pragma: no cover - internal consistency check
            f"MurTree internal error: tree cost {errors * A + n_feat_nodes * B} "
            f"differs from the search's {res.cost}"
        )
    return OptimalTreeModel(
        nodes=nodes,
        classes_=classes,
        feature_names=names,
        objective=int(errors),
        optimal=bool(res.optimal),
        runtime=runtime,
        max_depth=max_depth,
        max_num_nodes=max_num_nodes,
        sparse_coefficient=sparse_coefficient,
        time_limit=time_limit,
        n_samples=n_samples,
        stats=res.stats,
    )
