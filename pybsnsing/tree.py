"""Growing a bsnsing tree (spec §6): the node record and the FIFO growth loop.

The loop is plain Python over nodes; the work at a node (binarization,
external rules, the ENUM search, rule evaluation) lives in its own modules
and runs on plain arrays.
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass, field

import numpy as np

from .control import BsControl
from .questions import node_questions
from .rules import evaluate_rule
from .search import enum_search, question_groups

__all__ = ["Node", "grow_tree", "effective_node_size"]


@dataclass
class Node:
    """One node of a bsnsing tree (the 13 fields of R's ``tree.nodes``, plus depth).

    Attributes:
        number: node number (root 0, numbered in creation order).
        parent: parent number, -1 at the root.
        lchild, rchild: children (-1 for a leaf); the left child holds the
            rows where the split rule is TRUE.
        node_class: 1 when ``n1 >= n0``, else 0.
        prop: ``nobs / n_train``.
        nobs, n1, n0: training rows at the node, of code 1, of code 0.
        prob: ``n1 / nobs``.
        obs: 0-based training row indices at the node.
        split_rule: the rule text (``""`` for a leaf).
        split_target: the class the rule was searched for (= node_class).
        depth: root = 0.
    """

    number: int
    parent: int
    lchild: int
    rchild: int
    node_class: int
    prop: float
    nobs: int
    n1: int
    n0: int
    prob: float
    obs: np.ndarray = field(repr=False)
    split_rule: str
    split_target: int
    depth: int = 0

    @property
    def is_leaf(self) -> bool:
        return self.lchild < 0

    def to_dict(self, include_obs: bool = True) -> dict:
        """The node as plain Python values."""
        d = {
            "number": self.number,
            "parent": self.parent,
            "lchild": self.lchild,
            "rchild": self.rchild,
            "node_class": self.node_class,
            "prop": self.prop,
            "nobs": self.nobs,
            "n1": self.n1,
            "n0": self.n0,
            "prob": self.prob,
            "split_rule": self.split_rule,
            "split_target": self.split_target,
            "depth": self.depth,
        }
        if include_obs:
            d["obs"] = self.obs.tolist()
        return d

    @classmethod
    def from_dict(cls, d: dict) -> Node:
        """Inverse of :meth:`to_dict`."""
        return cls(
            number=int(d["number"]),
            parent=int(d["parent"]),
            lchild=int(d["lchild"]),
            rchild=int(d["rchild"]),
            node_class=int(d["node_class"]),
            prop=float(d["prop"]),
            nobs=int(d["nobs"]),
            n1=int(d["n1"]),
            n0=int(d["n0"]),
            prob=float(d["prob"]),
            obs=np.asarray(d.get("obs", []), dtype=np.int64),
            split_rule=str(d["split_rule"]),
            split_target=int(d["split_target"]),
            depth=int(d.get("depth", 0)),
        )


def effective_node_size(control: BsControl, n_train: int) -> int:
    """``node_size``, with 0 meaning ``floor(sqrt(n_train))`` (fixed once per tree)."""
    if control.node_size == 0:
        return int(math.floor(math.sqrt(n_train)))
    return int(control.node_size)


def _make_node(number: int, parent: int, depth: int, rows: np.ndarray, y: np.ndarray,
               n_train: int) -> Node:
    nobs = int(rows.size)
    n1 = int(y[rows].sum())
    n0 = nobs - n1
    cls = 1 if n1 >= n0 else 0
    return Node(number=number, parent=parent, lchild=-1, rchild=-1, node_class=cls,
                prop=nobs / n_train, nobs=nobs, n1=n1, n0=n0, prob=n1 / nobs, obs=rows,
                split_rule="", split_target=cls, depth=depth)


def _splittable(node: Node, node_size: int, stop_prob: float) -> bool:
    """A child is split further only when nobs > node_size, both classes are
    present and its majority share is below stop_prob (spec §6)."""
    if node.nobs <= node_size or node.n1 == 0 or node.n0 == 0:
        return False
    return max(node.n1, node.n0) / node.nobs < stop_prob


def find_rule(X: np.ndarray, names: list[str], y: np.ndarray, target: int,
              control: BsControl, node_size: int) -> str:
    """The split rule text at a node (``""`` when there is none).

    ``X``/``y`` are the node's rows; ``y`` is coded 0/1 and ``target`` is the
    node's majority class.
    """
    texts: list[str] = []
    blocks: list[np.ndarray] = []
    if not control.suppress_internal:
        qs = node_questions(
            X, names, y, target,
            num2factor=control.num2factor, nseg_numeric=control.nseg_numeric,
            nseg_factor=control.nseg_factor, bin_size=control.bin_size,
            node_size=node_size, keep_perfect=control.keep_perfect_separation,
        )
        texts.extend(qs.texts)
        blocks.append(qs.B)
    method = control.external_method
    if method is not None:
        from .external import external_questions

        ext_texts, ext_B = external_questions(X, names, y, method=method)
        texts.extend(ext_texts)
        blocks.append(ext_B)
    if not texts:
        return ""
    B = blocks[0] if len(blocks) == 1 else np.hstack(blocks)
    yt = y if target == 1 else 1 - y
    result = enum_search(
        B, yt, question_groups(texts),
        max_rules=control.max_rules, node_size=node_size,
        no_same_gender_children=control.no_same_gender_children,
        time_limit=control.solver_timelimit, solver=control.opt_solver,
    )
    if not result.cols:
        return ""
    return " | ".join(texts[j] for j in result.cols)


def grow_tree(X: np.ndarray, names: list[str], y: np.ndarray, control: BsControl,
              progress=None) -> tuple[list[Node], int]:
    """Grow a bsnsing tree on the design matrix ``X`` with 0/1 response ``y``.

    Returns the nodes in number order and the node size used.
    """
    n_train = X.shape[0]
    y = np.asarray(y, dtype=np.int64)
    node_size = effective_node_size(control, n_train)
    root = _make_node(0, -1, 0, np.arange(n_train, dtype=np.int64), y, n_train)
    nodes = [root]
    queue = [root]
    head = 0
    t0 = time.perf_counter()
    while head < len(queue):
        node = queue[head]
        head += 1
        rows = node.obs
        Xn = X[rows]
        yn = y[rows]
        rule = find_rule(Xn, names, yn, node.node_class, control, node_size)
        if control.verbose:
            print(f"node {node.number}: nobs {node.nobs}, n1 {node.n1}, n0 {node.n0}, "
                  f"rule: {rule or '(leaf)'} [{time.perf_counter() - t0:.2f}s]")
        if not rule:
            continue
        left = evaluate_rule(rule, {nm: Xn[:, j] for j, nm in enumerate(names)})
        n_left = int(left.sum())
        if n_left == 0 or n_left == rows.size:
            continue
        node.split_rule = rule
        lnode = _make_node(len(nodes), node.number, node.depth + 1, rows[left], y, n_train)
        rnode = _make_node(len(nodes) + 1, node.number, node.depth + 1, rows[~left], y,
                           n_train)
        node.lchild, node.rchild = lnode.number, rnode.number
        nodes.extend((lnode, rnode))
        for child in (lnode, rnode):
            if _splittable(child, node_size, control.stop_prob):
                queue.append(child)
        if progress is not None:
            progress(len(nodes))
    return nodes, node_size
