"""Cost-complexity pruning of bsnsing trees, in rpart's and scikit-learn's sense.

The risk of a tree is its training misclassifications (a leaf predicts its majority
class, so its risk is ``min(n1, n0)`` rows; with case weights it is the smaller class
weight, and cross-validation refits and scores the folds with the weights). For a
complexity ``alpha`` (rows per leaf) the best subtree minimises ``risk + alpha *
leaves``. Weakest-link pruning gives the nested sequence of these subtrees: each step
collapses the internal node(s) with the least
``g(t) = (R(t) - R(T_t)) / (leaves(T_t) - 1)`` (exact rational arithmetic; ties collapse
together).

* ``model.cp_table(xval=0)`` -- rpart's ``printcp`` table, root first: ``CP``
  (``alpha / R(root)``: the tree of the row is optimal from this CP up to the
  previous row's), ``nsplit``, ``rel error`` (``R(T) / R(root)``) and, with
  ``xval=k`` folds, ``xerror`` and ``xstd`` (cross-validated misclassifications /
  ``R(root)`` and their standard error ``sqrt(e (1 - e/n)) / R(root)``, rpart's
  formula for 0/1 loss). Each fold's tree is grown with the model's control and
  ``max_depth`` on the training design matrix (missing values already imputed)
  and pruned at the geometric means of adjacent CPs, as rpart does.
* ``model.prune(cp)`` -- the smallest subtree whose CP is ``<= cp``, i.e. the first
  such row of the table (rpart's ``prune.rpart``: splits of complexity ``<= cp``
  go); ``cp = 0`` is the full tree (as scikit-learn's ``ccp_alpha = 0``), even
  where splits of zero gain would tie.
* ``BsnsingClassifier(ccp_alpha=...)``: scikit-learn's scale, ``alpha`` in units
  of the training misclassification RATE per leaf: ``cp = ccp_alpha * n / R(root)``.

A pruned tree is renumbered in creation order, which is exactly the tree the
grower would have produced had those nodes been leaves (``bsnsing(max_depth=d)``
is the full tree pruned below depth ``d``).
"""

from __future__ import annotations

from dataclasses import replace
from fractions import Fraction
from typing import Any

import numpy as np
import pandas as pd

from .errors import InvalidParameterError, PybsnsingValueError
from .export.view import is_multiclass

__all__ = ["collapse", "prune_alpha", "pruning_sequence", "truncate"]


def _risk(nd: Any) -> Any:
    """Training misclassifications of a node as a leaf: ``min(n1, n0)`` rows, or with
    case weights (``w1``/``w0`` set) the smaller class weight as an exact Fraction."""
    if getattr(nd, "w1", None) is not None:
        return Fraction(min(nd.w1, nd.w0))
    return int(min(nd.n1, nd.n0))


def _weights(model: Any) -> np.ndarray | None:
    """The case weights a model was fitted with (None: unweighted)."""
    w = getattr(model, "sample_weight", None)
    return None if w is None else np.asarray(w, dtype=np.float64)


def _weighted_nodes(model: Any) -> bool:
    """Whether the tree was grown with case weights (its nodes carry ``w1``/``w0``)."""
    return getattr(model.nodes[0], "w1", None) is not None


def _total(model: Any) -> float:
    """The training rows, or with case weights their total weight: the weights' sum, or
    the root's ``w1 + w0`` for a tree without its row weights (read back from R)."""
    w = _weights(model)
    if w is not None:
        return float(w.sum())
    if _weighted_nodes(model):
        return float(model.nodes[0].w1 + model.nodes[0].w0)
    return float(len(model.y))


def collapse(model: Any, make_leaf: set[int]) -> Any:
    """A copy of a BsnsingModel with the nodes ``make_leaf`` turned into leaves and
    their descendants removed; nodes renumbered in creation order."""
    dropped: set[int] = set()
    for nd in model.nodes:  # parents come before children
        if nd.parent >= 0 and (nd.parent in dropped or nd.parent in make_leaf):
            dropped.add(nd.number)
    keep = [nd for nd in model.nodes if nd.number not in dropped]
    new_number = {nd.number: k for k, nd in enumerate(keep)}
    nodes = []
    for nd in keep:
        leaf = nd.number in make_leaf or nd.is_leaf
        nodes.append(replace(
            nd,
            number=new_number[nd.number],
            parent=new_number.get(nd.parent, -1),
            lchild=-1 if leaf else new_number[nd.lchild],
            rchild=-1 if leaf else new_number[nd.rchild],
            split_rule="" if leaf else nd.split_rule,
        ))
    out = type(model)(nodes=nodes, ycode=model.ycode, y=model.y, control=model.control,
                      node_size=model.node_size, design=model.design, call=model.call,
                      formula=model.formula)
    out.max_depth = getattr(model, "max_depth", None)
    out.sample_weight = getattr(model, "sample_weight", None)
    return out


def truncate(model: Any, depth: int) -> Any:
    """The tree with every node at ``depth`` made a leaf."""
    return collapse(model, {nd.number for nd in model.nodes
                            if nd.depth >= depth and not nd.is_leaf})


def pruning_sequence(model: Any) -> list[tuple[Fraction, set[int]]]:
    """The weakest-link sequence: ``[(alpha_k, collapsed_k)]`` from the full tree
    (``alpha_0 = 0``, nothing collapsed) to the root alone; ``collapsed_k`` holds the
    ORIGINAL numbers of the nodes that are leaves-by-pruning in subtree ``k``."""
    by = {nd.number: nd for nd in model.nodes}
    internal = [nd.number for nd in model.nodes if not nd.is_leaf]
    collapsed: set[int] = set()
    out: list[tuple[Fraction, set[int]]] = [(Fraction(0), set())]

    def subtree(t: int) -> tuple[int, int]:
        """(risk, leaves) of the current subtree at t."""
        nd = by[t]
        if nd.is_leaf or t in collapsed:
            return _risk(nd), 1
        rl, ll = subtree(nd.lchild)
        rr, lr = subtree(nd.rchild)
        return rl + rr, ll + lr

    while not (by[0].is_leaf or 0 in collapsed):
        live = [t for t in internal if t not in collapsed and _alive(by, t, collapsed)]
        g = {}
        for t in live:
            r_sub, leaves = subtree(t)
            g[t] = Fraction(_risk(by[t]) - r_sub, leaves - 1)
        alpha = min(g.values())
        weakest = {t for t, v in g.items() if v == alpha}
        collapsed = collapsed | weakest
        out.append((alpha, set(collapsed)))
    return out


def _alive(by: dict, t: int, collapsed: set[int]) -> bool:
    """t is in the current tree (no ancestor collapsed)."""
    p = by[t].parent
    while p >= 0:
        if p in collapsed:
            return False
        p = by[p].parent
    return True


def _check_cp(cp: Any) -> float:
    if isinstance(cp, (bool, np.bool_)) or not isinstance(cp, (int, float, np.integer,
                                                                np.floating)):
        raise InvalidParameterError(f"cp must be a number >= 0, got {cp!r}")
    cp = float(cp)
    if not cp >= 0:
        raise InvalidParameterError(f"cp must be a number >= 0, got {cp!r}")
    return cp


class PruningMixin:
    """``cp_table`` and ``prune`` of :class:`~pybsnsing.BsnsingModel`."""

    nodes: list

    def _root_risk(self) -> Any:
        r = _risk(self.nodes[0])
        return r if r > 0 else 1

    def _sequence_table(self) -> tuple[list[tuple[Fraction, set[int]]], pd.DataFrame]:
        seq = pruning_sequence(self)
        root = self._root_risk()
        rows = []
        by = {nd.number: nd for nd in self.nodes}
        for alpha, collapsed in seq:
            risk = 0
            nsplit = 0
            for nd in self.nodes:
                if not _alive(by, nd.number, collapsed):
                    continue
                if nd.is_leaf or nd.number in collapsed:
                    risk += _risk(nd)
                else:
                    nsplit += 1
            rows.append({"CP": float(alpha / root), "nsplit": nsplit,
                         "rel error": float(Fraction(risk) / Fraction(root))})
        table = pd.DataFrame(rows[::-1]).reset_index(drop=True)
        table.index = pd.RangeIndex(1, len(table) + 1)
        return seq[::-1], table

    def cp_table(self, xval: int = 0, seed: int = 0) -> pd.DataFrame:
        """rpart's ``printcp`` table (root first): CP, nsplit, rel error, and with
        ``xval`` folds (>= 2) xerror and xstd; see :mod:`pybsnsing.prune`."""
        if isinstance(xval, bool) or not isinstance(xval, (int, np.integer)) or xval < 0 \
                or xval == 1:
            raise InvalidParameterError(f"xval must be 0 or a whole number >= 2, got {xval!r}")
        _, table = self._sequence_table()
        if xval:
            errors = self._cross_validated_errors(table["CP"].to_numpy(), int(xval), seed)
            root = float(self._root_risk())
            n = _total(self)
            table["xerror"] = errors / root
            table["xstd"] = np.sqrt(errors * (1.0 - errors / n)) / root
        return table

    def printcp(self, xval: int = 0, seed: int = 0) -> str:
        """rpart's ``printcp`` text of :meth:`cp_table`."""
        table = self.cp_table(xval=xval, seed=seed)
        n = len(self.y)
        risk: Any = _risk(self.nodes[0])
        total: Any = n
        if _weighted_nodes(self):  # weighted: the root's smaller class weight of the total
            risk, total = f"{float(risk):.6g}", f"{_total(self):.6g}"
        root_error = float(_risk(self.nodes[0])) / _total(self)
        lines = [f"Root node error: {risk}/{total} = {root_error:.5g}", "",
                 f"n= {n} ", "", table.to_string(float_format=lambda v: f"{v:.6g}")]
        return "\n".join(lines)

    def prune(self, cp: float) -> Any:
        """The smallest subtree whose :meth:`cp_table` CP is ``<= cp`` (rpart's
        ``prune(tree, cp)``); ``cp = 0``: the full tree. A new model; this one is kept."""
        cp = _check_cp(cp)
        if cp == 0:
            return collapse(self, set())
        seq, table = self._sequence_table()
        chosen: set[int] = set()
        for (_, collapsed), value in zip(seq, table["CP"], strict=True):
            if value <= cp:
                chosen = collapsed
                break  # rows from the root: the first (smallest tree) within cp
        return collapse(self, chosen)

    def _cross_validated_errors(self, cps: np.ndarray, xval: int, seed: int) -> np.ndarray:
        from .weighted import grow_any_tree

        design = getattr(self, "design", None)
        if design is None or getattr(design, "X", None) is None or design.X.size == 0:
            raise PybsnsingValueError(
                "cross-validation needs the training design matrix (a model saved with "
                "include_data=False has none)")
        if _weighted_nodes(self) and _weights(self) is None:
            raise PybsnsingValueError(
                "cross-validation of a tree grown with case weights needs the row weights "
                "(a tree read back from R carries only its nodes' weights)")
        X = design.X
        y = np.asarray(self.y, dtype=np.int64)
        n = len(y)
        if xval > n:
            raise InvalidParameterError(f"xval ({xval}) is larger than the rows ({n})")
        fold = np.random.default_rng(seed).permutation(np.arange(n) % xval)
        w = _weights(self)
        # rpart: each row's cp is the geometric mean of its CP and the previous row's
        upper = np.concatenate(([np.inf], cps[:-1]))
        with np.errstate(invalid="ignore"):
            xcp = np.where(cps == 0, 0.0, np.sqrt(cps * upper))
        errors = np.zeros(len(cps), dtype=np.float64)
        for k in range(xval):
            train = fold != k
            test = ~train
            wt = None if w is None else w[train]
            if y[train].min() == y[train].max() or (wt is not None and not (wt > 0).any()):
                nodes, node_size = _single_leaf(y[train])
            else:
                nodes, node_size = grow_any_tree(X[train], design.names, y[train], self.control,
                                             max_depth=getattr(self, "max_depth", None),
                                             sample_weight=wt)
            sub = type(self)(nodes=nodes, ycode=self.ycode, y=y[train], control=self.control,
                             node_size=node_size, design=design)
            sub.sample_weight = wt
            for i, c in enumerate(xcp):
                pruned = sub.prune(float(c)) if np.isfinite(c) else collapse(sub, {0})
                leaf = pruned.leaf_of(X[test], names=design.names)
                cls = np.array([nd.node_class for nd in pruned.nodes])[leaf]
                wrong = cls != y[test]
                errors[i] += float(np.sum(wrong) if w is None else np.sum(w[test][wrong]))
        return errors


def _single_leaf(y: np.ndarray) -> tuple[list, int]:
    from .tree import make_node

    n = len(y)
    return [make_node(0, -1, 0, np.arange(n, dtype=np.int64), y, n)], 0


class MultiPruningMixin:
    """``prune`` of :class:`~pybsnsing.MBsnsingModel`: each class tree pruned at ``cp``."""

    trees: list

    def prune(self, cp: float) -> Any:
        """Every class tree pruned at ``cp`` (see ``BsnsingModel.prune``)."""
        _check_cp(cp)
        trees = [t.prune(cp) for t in self.trees]
        for t in trees[1:]:
            t.design = trees[0].design
        m: Any = self
        return type(self)(trees=trees, ylevels=m.ylevels, yprior=m.yprior, call=m.call,
                          formula=m.formula)

    def cp_table(self, xval: int = 0, seed: int = 0) -> dict:
        """One :meth:`BsnsingModel.cp_table` per class (a dict by class label)."""
        m: Any = self
        return {lv: t.cp_table(xval=xval, seed=seed)
                for lv, t in zip(m.ylevels, self.trees, strict=True)}


def prune_alpha(model: Any, ccp_alpha: float) -> Any:
    """Prune at scikit-learn's ``ccp_alpha`` (cost of a leaf in training
    misclassification rate): ``cp = ccp_alpha * n / R(root)``, per class tree."""
    alpha = _check_cp(ccp_alpha)
    if is_multiclass(model):
        out = model.prune(0.0)
        out.trees = [_prune_one(t, alpha) for t in model.trees]
        for t in out.trees[1:]:
            t.design = out.trees[0].design
        return out
    return _prune_one(model, alpha)


def _prune_one(tree: Any, alpha: float) -> Any:
    if alpha == 0:
        return collapse(tree, set())
    total = _total(tree)  # with case weights, alpha is per unit of the total weight
    return tree.prune(alpha * total / float(tree._root_risk()))
