"""The view model the exporters share (:mod:`~pybsnsing.export.latex`,
:mod:`~pybsnsing.export.dot`, :mod:`~pybsnsing.export.plot`): which trees a model has,
its nodes in R's depth-first order with their depths (:class:`NodeView`; a node of a
tree of three or more classes, such as a MurTree tree's, also has its class counts), and the
texts every drawing writes (class labels, node numbers, ``prob.1``, rule lines).

The functions take any object shaped like a fitted model (:class:`Tree`,
:class:`ClassTrees`): a two-class tree has ``nodes`` (records with ``number``,
``lchild``, ``rchild``, ``node_class``, ``n1``, ``n0``, ``split_rule``) and ``ycode``;
a multi-class model has ``trees`` and ``ylevels``.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Protocol, runtime_checkable

import numpy as np

from ..errors import PybsnsingTypeError, PybsnsingValueError
from ..rformat import as_character

__all__ = ["ClassTrees", "NodeView", "Tree", "is_multiclass", "label_text",
           "node_number_text", "preorder", "prob1", "rule_lines", "select_trees"]


@runtime_checkable
class Tree(Protocol):
    """A two-class tree: node records and the two class labels (code 0, code 1)."""

    nodes: Sequence[Any]
    ycode: Sequence[Any]


@runtime_checkable
class ClassTrees(Protocol):
    """A multi-class model: one two-class tree per class, in ``ylevels`` order."""

    trees: Sequence[Tree]




@dataclass(frozen=True)
class NodeView:
    """One node as the exporters see it, with its depth from the traversal."""

    number: int
    depth: int
    is_leaf: bool
    node_class: int
    n1: int
    n0: int
    split_rule: str
    lchild: int
    rchild: int
    #: the rows of each class, in ``ycode`` order, for a tree of three or more classes
    #: (empty for a two-class tree: ``(n0, n1)``; then ``n0`` is the rows of the first
    #: class and ``n1`` the others)
    counts: tuple[int, ...] = ()

    @property
    def nobs(self) -> int:
        return self.n1 + self.n0

    @property
    def class_counts(self) -> tuple[int, ...]:
        """The rows of each class, in ``ycode`` order: ``(n0, n1)`` for two classes."""
        return self.counts or (self.n0, self.n1)


def is_multiclass(model: Any) -> bool:
    """True for a multi-class model (:class:`ClassTrees` and not itself a :class:`Tree`)."""
    return isinstance(model, ClassTrees) and not isinstance(model, Tree)


def _node_class(nd: Any) -> int:
    value = getattr(nd, "node_class", None)
    if value is None:
        value = nd["class"] if isinstance(nd, dict) else 1 if nd.n1 >= nd.n0 else 0
    return int(value)


def preorder(tree: Tree) -> list[NodeView]:
    """The nodes of a two-class tree depth first, left before right.

    This is the order (and the depth) of R's ``summary.bsnsing`` node table,
    which R's ``plot.bsnsing`` walks. Depths are computed from the links, so
    the ``depth`` field of the records is not needed.
    """
    nodes = list(tree.nodes)
    if not nodes:
        raise PybsnsingValueError("the tree has no nodes")
    by_number = {int(nd.number): nd for nd in nodes}
    if 0 not in by_number:
        raise PybsnsingValueError("the tree has no root node (number 0)")
    out: list[NodeView] = []
    stack: list[tuple[int, int]] = [(0, 0)]
    seen: set[int] = set()
    while stack:
        number, depth = stack.pop()
        if number in seen:
            raise PybsnsingValueError(f"node {number} is reached twice; the tree links are broken")
        seen.add(number)
        nd = by_number[number]
        lchild, rchild = int(nd.lchild), int(nd.rchild)
        leaf = lchild < 0 and rchild < 0
        out.append(NodeView(number=number, depth=depth, is_leaf=leaf,
                            node_class=_node_class(nd), n1=int(nd.n1), n0=int(nd.n0),
                            split_rule=str(nd.split_rule or ""), lchild=lchild,
                            rchild=rchild,
                            counts=tuple(int(c) for c in getattr(nd, "counts", ()) or ())))
        if not leaf:
            stack.append((rchild, depth + 1))
            stack.append((lchild, depth + 1))
    return out


def prob1(n1: int, n0: int) -> float:
    """``prob.1`` of R's summary table: ``n1 / (n1 + n0)`` (0 and 1 at the extremes)."""
    if n1 == 0:
        return 0.0
    if n0 == 0:
        return 1.0
    return n1 / (n1 + n0)


def label_text(label: Any) -> str:
    """A class label as R's ``paste`` prints it: :func:`pybsnsing.rformat.as_character`."""
    return as_character(label)


def node_number_text(number: int) -> str:
    """A node number as R pastes it: R's node numbers are doubles (``1e+05``)."""
    if abs(number) < 100000:
        return str(number)
    from ..rformat import format_r

    return format_r(float(number))


def select_trees(model: Tree | ClassTrees, tree: int | None) -> list[tuple[Tree, str | None]]:
    """The two-class trees to export with a title for each (None for a lone tree).

    For a multi-class model, ``tree=None`` gives every class tree and
    ``tree=k`` (0-based, in ``ylevels`` order) the k-th; for a two-class model
    ``tree`` must be None or 0.
    """
    if not is_multiclass(model):
        if tree not in (None, 0):
            raise PybsnsingValueError(f"a two-class model has a single tree; got tree={tree!r}")
        return [(model, None)]
    trees: Sequence[Any] = model.trees
    levels = list(getattr(model, "ylevels", [t.ycode[1] for t in trees]))
    titles = [f"Tree {k + 1}: {label_text(levels[k])} vs. all.other" for k in range(len(trees))]
    if tree is None:
        return list(zip(trees, titles, strict=True))
    if isinstance(tree, bool) or not isinstance(tree, (int, np.integer)):
        raise PybsnsingTypeError(f"tree must be an integer index, got {tree!r}")
    k = int(tree)
    if not 0 <= k < len(trees):
        raise IndexError(f"tree index {k} out of range for {len(trees)} class trees")
    return [(trees[k], titles[k])]


def rule_lines(rule: str) -> list[str]:
    """A rule's questions one per line, ``or`` before the second and later ones."""
    parts = [p.strip() for p in rule.split(" | ")]
    return [parts[0]] + [f"or {p}" for p in parts[1:]]
