"""What tree users reach for: depth, leaves, leaf of each row, decision paths, importances.

One interface for every tree model (scikit-learn's names):

=========================  =======================================================
``get_depth()``            depth of the tree (a single leaf has depth 0)
``get_n_leaves()``         number of leaves
``apply(df)``              the leaf (node number) each row of new data reaches
``leaf_of(df)``            the same, on a DataFrame or on a design matrix
``decision_path(df)``      rows x nodes indicator of the nodes each row passes
``variable_importance()``  importance of each input variable (a pandas Series)
``feature_importances_``   the same as an array, in the order of the input variables
=========================  =======================================================

Routing has one home per model class: ``BsnsingModel.leaf_of`` (the rule of each
node evaluated from its text, as ``predict`` does, so a missing value makes a
question FALSE and an unseen factor level is 0 in every dummy) and
``OptimalTreeModel.apply``. ``apply``, ``decision_path`` and ``predict`` all go
through them, so they agree by construction.

Variable importance (rpart's ``variable.importance``, without surrogates): every
split is credited with its Gini decrease in training-row units,

    ``decrease = G(node) - G(left) - G(right)``, where ``G(t) = n_t * (1 - sum_k p_tk^2)``

(``n_t`` rows of the node, ``p_tk`` its class shares). A bsnsing split is an
OR-rule that may ask questions about several input variables; its decrease is
shared EQUALLY among the distinct input variables its questions use (a variable
asked twice in one rule gets one share). The rule is order-independent (the order
of the questions in the rule does not matter) and the shares sum to the split's
decrease. A question's design column is traced back to its input variable: the
dummy ``Cell.shape2`` to the factor ``Cell.shape``, ``sexTRUE`` to ``sex``, a
transform ``log(Age)`` to ``Age`` (``a:b`` to both ``a`` and ``b``). The totals
are divided by their sum (all zero when the tree has no split).

* :class:`~pybsnsing.BsnsingModel`: as above, over ``design.variables``.
* :class:`~pybsnsing.MBsnsingModel`: the decreases of all class trees (each
  one-against-the-rest) are added before normalising.
* :class:`~pybsnsing.optimal.OptimalTreeModel`: each split tests one binary
  feature; a threshold feature ``x<=q`` or a dummy is credited to its input
  variable when the model has a design (:func:`pybsnsing.optimal.murtree`),
  else to the feature itself (:func:`~pybsnsing.optimal.murtree_fit`).

``decision_path`` returns a ``scipy.sparse.csr_matrix`` of 0/1 (column ``j`` is
node number ``j``), as scikit-learn does; scipy comes with scikit-learn (the
``sklearn`` extra). Without scipy, ``decision_path(df, dense=True)`` gives a
dense boolean array.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd

from .errors import PybsnsingValueError, input_errors

if TYPE_CHECKING:  # pragma: no cover
    from .design import Design

__all__ = [
    "gini_mass",
    "input_variables",
    "path_indicator",
    "split_decrease",
]


def gini_mass(counts: Sequence[float] | np.ndarray) -> float:
    """``n * (1 - sum_k p_k^2)``: a node's Gini impurity times its number of rows."""
    c = np.asarray(counts, dtype=np.float64)
    n = float(c.sum())
    if n <= 0:
        return 0.0
    return n - float((c * c).sum()) / n


def _counts(nd: Any) -> tuple[Any, Any]:
    """A node's class counts: the weights ``(w1, w0)`` of a tree grown with case weights,
    else the rows ``(n1, n0)``."""
    if getattr(nd, "w1", None) is not None:
        return nd.w1, nd.w0
    return nd.n1, nd.n0


def split_decrease(parent: Sequence[float], left: Sequence[float],
                   right: Sequence[float]) -> float:
    """The Gini decrease of a split (in training-row units; never negative)."""
    d = gini_mass(parent) - gini_mass(left) - gini_mass(right)
    return max(d, 0.0)


def _column_variables(design: Design | None, label: str, name: str) -> list[str]:
    """The input variables a design column (written ``label`` in a rule) is computed from."""
    if design is None:
        return [name]
    try:
        j = design.names.index(label)
    except ValueError:
        try:
            j = design.names.index(name)
        except ValueError:
            return [name]
    term = design.terms[j]
    if term[0] == "transform":
        from .formula import parse_expr

        out: dict[str, None] = {}
        for expr in design.transforms[term[1]]:
            try:
                for v in parse_expr(expr).variables():
                    out.setdefault(v, None)
            except Exception:  # pragma: no cover - a saved transform always parses
                out.setdefault(expr, None)
        return list(out) or [name]
    return [term[1]]


def input_variables(rule: str, design: Design | None) -> list[str]:
    """The distinct input variables an OR-rule's questions use, in order of first use."""
    from .rules import parse_rule

    seen: dict[str, None] = {}
    for q in parse_rule(rule):
        for v in _column_variables(design, q.label, q.name):
            seen.setdefault(v, None)
    return list(seen)


def path_indicator(leaf_index: np.ndarray, parent_index: np.ndarray, n_nodes: int,
                   dense: bool = False) -> Any:
    """Rows x nodes 0/1 indicator of the nodes from the root to each row's leaf.

    Args:
        leaf_index: the position (0 .. n_nodes-1) of each row's leaf.
        parent_index: the position of each node's parent (-1 at the root).
        n_nodes: the number of nodes.
        dense: a boolean numpy array instead of a ``scipy.sparse.csr_matrix``.
    """
    leaf_index = np.asarray(leaf_index, dtype=np.int64)
    # the path of every node, root first (nodes are few; rows are many)
    paths: list[list[int]] = []
    for j in range(n_nodes):
        p = parent_index[j]
        paths.append((paths[p] if p >= 0 else []) + [j])
    lengths = np.array([len(p) for p in paths], dtype=np.int64)
    indptr = np.zeros(leaf_index.size + 1, dtype=np.int64)
    np.cumsum(lengths[leaf_index], out=indptr[1:])
    flat = [np.asarray(p, dtype=np.int64) for p in paths]
    indices = (np.concatenate([flat[k] for k in leaf_index.tolist()])
               if leaf_index.size else np.zeros(0, dtype=np.int64))
    if dense:
        out = np.zeros((leaf_index.size, n_nodes), dtype=bool)
        rows = np.repeat(np.arange(leaf_index.size), lengths[leaf_index])
        out[rows, indices] = True
        return out
    from ._optional import require

    sparse = require("sklearn", "decision_path as a sparse matrix (scipy; or pass dense=True)",
                     module="scipy.sparse")
    data = np.ones(indices.size, dtype=np.int64)
    return sparse.csr_matrix((data, indices, indptr), shape=(leaf_index.size, n_nodes))


def _normalised(totals: dict[str, float], order: Iterable[str]) -> pd.Series:
    keys = list(dict.fromkeys(list(order) + list(totals)))
    s = pd.Series([float(totals.get(k, 0.0)) for k in keys], index=keys, dtype=np.float64)
    total = float(s.sum())
    if total > 0:
        s = s / total
    return s


def _sorted(s: pd.Series) -> pd.Series:
    """Decreasing importance (ties keep the variables' order), as rpart prints them."""
    order = np.argsort(-s.to_numpy(), kind="stable")
    return s.iloc[order]


# ---------------------------------------------------------------------------
# bsnsing trees
# ---------------------------------------------------------------------------


class _OneTreeShape:
    """Depth and leaves of one tree of ``nodes`` (each with ``depth`` and ``is_leaf``)."""

    nodes: list

    def get_depth(self) -> int:
        """Depth of the tree: the most splits from the root to a leaf (0 for a single
        leaf)."""
        return max((nd.depth for nd in self.nodes), default=0)

    def get_n_leaves(self) -> int:
        """Number of leaves."""
        return sum(nd.is_leaf for nd in self.nodes)


class BinaryTreeAccessors(_OneTreeShape):
    """Accessors of :class:`~pybsnsing.BsnsingModel` (it provides ``nodes``,
    ``design`` and ``leaf_of``)."""

    nodes: list
    design: Any

    def apply(self, X: pd.DataFrame | np.ndarray, impute: bool = False) -> np.ndarray:
        """The leaf (node number) each row reaches; ``X`` a DataFrame of the predictors
        (or a design matrix). ``predict`` routes rows the same way."""
        return self.leaf_of(X, impute=impute)  # type: ignore[attr-defined]

    def decision_path(self, X: pd.DataFrame | np.ndarray, impute: bool = False,
                      dense: bool = False) -> Any:
        """Rows x nodes indicator (CSR) of the nodes each row passes, root to leaf;
        column ``j`` is node number ``j``. ``dense=True`` gives a bool array."""
        leaf = self.apply(X, impute=impute)
        parent = np.array([nd.parent for nd in self.nodes], dtype=np.int64)
        return path_indicator(leaf, parent, len(self.nodes), dense=dense)

    def _split_decreases(self) -> dict[str, float]:
        """Unnormalised Gini decrease credited to each input variable."""
        by_number = {nd.number: nd for nd in self.nodes}
        totals: dict[str, float] = {}
        for nd in self.nodes:
            if nd.is_leaf:
                continue
            lc, rc = by_number[nd.lchild], by_number[nd.rchild]
            dec = split_decrease(_counts(nd), _counts(lc), _counts(rc))
            variables = input_variables(nd.split_rule, self.design)
            share = dec / len(variables)
            for v in variables:
                totals[v] = totals.get(v, 0.0) + share
        return totals

    def _variable_order(self) -> list[str]:
        return list(self.design.variables) if self.design is not None else []

    def variable_importance(self, sort: bool = True) -> pd.Series:
        """Normalised Gini importance of each input variable (sums to 1 unless the tree
        has no split; 0 for unused variables); see :mod:`pybsnsing.inspection` for how an
        OR-rule's decrease is shared. ``sort=True``: largest first, as rpart prints it."""
        s = _normalised(self._split_decreases(), self._variable_order())
        return _sorted(s) if sort else s

    @property
    def feature_importances_(self) -> np.ndarray:
        """:meth:`variable_importance` as an array in ``design.variables`` order."""
        return self.variable_importance(sort=False).to_numpy()


class MultiTreeAccessors:
    """Accessors of :class:`~pybsnsing.MBsnsingModel` (one tree per class): arrays with
    one column per class tree, as scikit-learn's ensembles give them."""

    trees: list

    def get_depth(self) -> int:
        """The largest depth of the class trees."""
        return max(t.get_depth() for t in self.trees)

    def get_n_leaves(self) -> int:
        """The leaves of all class trees together."""
        return sum(t.get_n_leaves() for t in self.trees)

    def apply(self, X: pd.DataFrame | np.ndarray, impute: bool = False) -> np.ndarray:
        """n x K: the leaf each row reaches in each class's tree."""
        return self.leaf_of(X, impute=impute)

    def leaf_of(self, X: pd.DataFrame | np.ndarray, impute: bool = False) -> np.ndarray:
        """n x K: the leaf each row reaches in each class's tree (see ``BsnsingModel.leaf_of``)."""
        if isinstance(X, pd.DataFrame) and self.trees:
            X = self.trees[0]._design_matrix(X, impute)
            impute = False
        return np.column_stack([t.leaf_of(X, impute=impute) for t in self.trees])

    def decision_path(self, X: pd.DataFrame | np.ndarray, impute: bool = False,
                      dense: bool = False) -> tuple[Any, np.ndarray]:
        """``(indicator, n_nodes_ptr)`` as scikit-learn's forests: the class trees'
        indicators side by side; columns ``n_nodes_ptr[k]:n_nodes_ptr[k+1]`` are tree k's."""
        leaves = self.apply(X, impute=impute)
        ptr = np.cumsum([0] + [len(t.nodes) for t in self.trees]).astype(np.int64)
        blocks = []
        for k, t in enumerate(self.trees):
            parent = np.array([nd.parent for nd in t.nodes], dtype=np.int64)
            blocks.append(path_indicator(leaves[:, k], parent, len(t.nodes), dense=dense))
        if dense:
            return np.hstack(blocks), ptr
        import scipy.sparse as sp

        return sp.hstack(blocks, format="csr"), ptr

    def variable_importance(self, sort: bool = True) -> pd.Series:
        """Normalised Gini importance over all class trees (their decreases added)."""
        totals: dict[str, float] = {}
        for t in self.trees:
            for k, v in t._split_decreases().items():
                totals[k] = totals.get(k, 0.0) + v
        order = self.trees[0]._variable_order() if self.trees else []
        s = _normalised(totals, order)
        return _sorted(s) if sort else s

    @property
    def feature_importances_(self) -> np.ndarray:
        """:meth:`variable_importance` as an array in the input variables' order."""
        return self.variable_importance(sort=False).to_numpy()


# ---------------------------------------------------------------------------
# optimal trees
# ---------------------------------------------------------------------------


class OptimalTreeAccessors(_OneTreeShape):
    """Accessors of :class:`~pybsnsing.optimal.OptimalTreeModel` (it provides
    ``nodes``, ``feature_names``, ``design`` and ``apply``)."""

    nodes: list
    feature_names: list
    design: Any

    def leaf_of(self, X: Any) -> np.ndarray:
        """The leaf (node id) each row reaches (same as ``apply``)."""
        return self.apply(X)  # type: ignore[attr-defined]

    def decision_path(self, X: Any, dense: bool = False) -> Any:
        """Rows x nodes indicator (CSR) of the nodes each row passes; column ``j`` is
        node id ``j``. ``dense=True`` gives a bool array."""
        leaf = self.apply(X)  # type: ignore[attr-defined]
        parent = np.full(len(self.nodes), -1, dtype=np.int64)
        for nd in self.nodes:
            if not nd.is_leaf:
                parent[nd.left] = nd.id
                parent[nd.right] = nd.id
        return path_indicator(leaf, parent, len(self.nodes), dense=dense)

    def _feature_variable(self, name: str) -> str:
        design = self.design
        if design is None:
            return name
        if name in design.names:
            return _column_variables(design, name, name)[0]
        col, sep, _ = name.rpartition("<=")
        if sep and col in design.names:
            return _column_variables(design, col, col)[0]
        return name

    def _variable_order(self) -> list[str]:
        if self.design is not None:
            return list(self.design.variables)
        return list(self.feature_names)

    def variable_importance(self, sort: bool = True) -> pd.Series:
        """Normalised Gini importance of each input variable (binary feature when the
        model has no design)."""
        totals: dict[str, float] = {}
        for nd in self.nodes:
            if nd.is_leaf:
                continue
            dec = split_decrease(nd.counts, self.nodes[nd.left].counts,
                                 self.nodes[nd.right].counts)
            v = self._feature_variable(str(nd.feature_name))
            totals[v] = totals.get(v, 0.0) + dec
        s = _normalised(totals, self._variable_order())
        return _sorted(s) if sort else s

    @property
    def feature_importances_(self) -> np.ndarray:
        """Normalised Gini importance of each binary feature, in ``feature_names`` order."""
        totals = np.zeros(len(self.feature_names), dtype=np.float64)
        for nd in self.nodes:
            if not nd.is_leaf:
                totals[nd.feature] += split_decrease(
                    nd.counts, self.nodes[nd.left].counts, self.nodes[nd.right].counts)
        s = totals.sum()
        return totals / s if s > 0 else totals


def check_fitted_tree(model: Any) -> None:
    """Raise when ``model`` is not a tree model with accessors."""
    if not hasattr(model, "get_depth"):
        raise PybsnsingValueError(
            f"expected a fitted pybsnsing tree model, got {type(model).__name__}")


# ---------------------------------------------------------------------------
# the scikit-learn estimator
# ---------------------------------------------------------------------------


class EstimatorAccessors:
    """Accessors of :class:`~pybsnsing.sklearn.BsnsingClassifier`, through ``model_``.

    ``X`` is validated and named as ``predict`` does it. For three or more classes
    (one tree per class) ``apply`` gives n x K and ``decision_path`` a pair
    ``(indicator, n_nodes_ptr)``, as scikit-learn's ensembles.
    """

    def _fitted_model(self) -> Any:
        from sklearn.utils.validation import check_is_fitted

        check_is_fitted(self)
        return self.model_  # type: ignore[attr-defined]

    def _new_frame(self, X: Any) -> pd.DataFrame:
        with input_errors():
            frame, _ = self._frame(X, fit=False)  # type: ignore[attr-defined]
        return frame

    def get_depth(self) -> int:
        """Depth of the fitted tree (the largest of the class trees)."""
        return int(self._fitted_model().get_depth())

    def get_n_leaves(self) -> int:
        """Leaves of the fitted tree (of all class trees together)."""
        return int(self._fitted_model().get_n_leaves())

    def apply(self, X: Any) -> np.ndarray:
        """The leaf (node number) each row of ``X`` reaches."""
        model = self._fitted_model()
        return model.apply(self._new_frame(X))

    def decision_path(self, X: Any, dense: bool = False) -> Any:
        """Rows x nodes indicator (CSR) of the nodes each row of ``X`` passes."""
        model = self._fitted_model()
        return model.decision_path(self._new_frame(X), dense=dense)

    @property
    def feature_importances_(self) -> np.ndarray:
        """Normalised Gini importance of each column of ``X`` (``n_features_in_`` values,
        in column order; see :mod:`pybsnsing.inspection`)."""
        model = self._fitted_model()
        imp = model.variable_importance(sort=False)
        names = [str(c) for c in self.model_feature_names_]  # type: ignore[attr-defined]
        return np.array([float(imp.get(nm, 0.0)) for nm in names], dtype=np.float64)
