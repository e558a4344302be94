"""Growing a bsnsing tree: the node record and the FIFO growth loop (what R does:
docs/r-quirks.md, *Tree growth*).

The loop is plain Python over nodes; the work at a node (binarization,
external rules, the ENUM search, rule evaluation) lives in its own modules
and runs on plain arrays.

How a node is processed without per-node sorting or text work:

* every column is sorted once at the root (a STABLE argsort, so tied values
  keep row order), and each node carries, per column, its rows in that sorted
  order (global row ids; ``(p, nobs)`` int64).  A split partitions those lists
  stably, so a child's list is exactly the stable sort of the child's rows,
  which are kept in increasing row order as R keeps them -- ties in node
  order, what R's stable ``order()`` gives. Large nodes keep their lists in one
  buffer, each node's children written within its block (:class:`ListSlabs`);
* on large data, a node with a small share of its grower's rows gets a compact copy
  of its rows (:meth:`Grower.localize`): its subtree's kernels then gather from arrays
  of the node's size, not from the whole data (local row ids keep the global order,
  so every kernel sees the same values in the same order);
* the candidate questions are structure (column, kind, exact cut or value;
  :class:`~pybsnsing.questions.QuestionSet`), their answers ranges of those
  sorted lists, bit-packed per class straight into the ENUM's layout (no
  n x m matrix); the ENUM groups come from the structure
  (:func:`~pybsnsing.search.structural_groups`);
* only the chosen questions are written as text, and the rule is then
  evaluated from its TEXT on the node's rows (R quirk Q6: the printed cut).

With more than one numba thread (``NUMBA_NUM_THREADS``, :func:`numba.set_num_threads`)
the nodes are split concurrently by worker threads, one node per thread (the kernels
release the GIL), each node as soon as its parent is done (:class:`_NodePool`); the
nodes are numbered afterwards in queue order, so the tree does not depend on the number
of threads.
"""

from __future__ import annotations

import bisect
import copy
import functools
import itertools
import math
import mmap
import threading
import time
import warnings
from collections import deque
from collections.abc import Callable, Iterable, Mapping
from concurrent.futures import Executor
from dataclasses import dataclass, field
from typing import NamedTuple

import numpy as np

from ._coldstart import cold_start, tiny_problem
from ._lazy import LazyKernels
from .control import BsControl
from .errors import PybsnsingValueError
from .external import ExternalWarning, external_question_set, node_external, r_rpart_fails
from .questions import (
    NodeRows,
    QuestionSource,
    kernel_values,
    plain_names,
    question_set_from_orders,
    r_segments,
    sorted_values,
    stable_argsort,
)
from .rnames import read_quoted
from .rules import column_key, evaluate_rule, evaluated_columns, numeric_comparison, parse_rule
from .search import (
    enum_search,
    enum_search_packed,
    question_groups,
    structural_groups,
)

_packing = LazyKernels("packing")

__all__ = ["Grower", "Node", "NodeColumns", "effective_node_size", "grow_nodes", "grow_tree",
           "make_node", "rule_sides", "splittable"]

#: a child's sorted lists and their values (None, None when the child is not split further)
SortedLists = tuple[np.ndarray | None, np.ndarray | None]

#: a grower of at least this many rows has its nodes carry their sorted values from node
#: to node (:meth:`Grower.keeps_values`): reading a node's values by row id costs more
#: per value than splitting them with the sorted lists from columns of about this length
#: on (2-core VM: 7.7-8.3 ns against 3.4-3.8 ns at 500k-1M rows, 3.2 against 5.6 ns at
#: 250k; the rpart replay's reads come on top; bench/bench_values.py, results/values.txt)
VALUES_MIN_ROWS = 1 << 18
#: ... and a tree of at most this many training values (rows x columns): the values cost
#: one more copy of the data per tree level (the queued nodes of a level hold their sorted
#: lists and values), which the 10-million-row tree cannot afford (10M x 10: peak 6.3 GiB
#: with values, 5.5 GiB without; issue 19's bound is 6 GiB)
VALUES_MAX_ENTRIES = 1 << 25
#: trees of at most this many training values (rows x columns) keep the sorted lists of
#: their large nodes in one buffer held for the whole fit (:class:`ListSlabs`), where
#: fresh arrays free the lists of finished nodes (measured with two such buffers:
#: synthetic1m, 10 million values: peak 758-868 -> 891-972 MiB, no page faults for the
#: lists after the first two levels; 100 million: 5.6 -> 6.2 GiB, past the 6 GiB 10
#: million rows are given)
SLABS_MAX_ENTRIES = 1 << 25

#: solvers that search bit-packed columns (the numba ENUM kernels)
_PACKED_SOLVERS = ("enum_c", "enum")

#: arrays of at least this many bytes that are streamed through (sorted lists and values,
#: packed answers) get memory of the system's default page policy (:func:`streamed_array`)
STREAMED_MIN_BYTES = 1 << 22


def streamed_array(count: int, dtype: type, zeroed: bool = False) -> np.ndarray:
    """A 1-d array of ``count`` elements of ``dtype`` (zeros when ``zeroed``, else
    uninitialised) for data that kernels stream through (sorted lists and values, packed
    answers). From :data:`STREAMED_MIN_BYTES` on (where Python has ``mmap.MAP_ANONYMOUS``):
    its own private anonymous mapping, which gets the system's default pages, instead of
    numpy's memory, which asks for transparent huge pages (``madvise``). Huge pages save
    TLB misses on random access, which these arrays mostly do not get (they are read and
    written in order), and on the project's 2-core VM (THP on request) their first touch cost
    2-3x the system time of 4 KiB pages: synthetic1m, one thread, system time 1.1-1.4 ->
    0.45-0.7 s and the fit 4.20 -> 3.76 s (``bench/bench_1m_ab.py``; the kernel counted
    no compaction stalls, so the cost is in the huge-page faults themselves). The mapping
    is unmapped with the last view of it."""
    dt = np.dtype(dtype)
    nbytes = count * dt.itemsize
    flags = getattr(mmap, "MAP_ANONYMOUS", None)
    if nbytes < max(STREAMED_MIN_BYTES, 1) or flags is None:
        return np.zeros(count, dt) if zeroed else np.empty(count, dt)
    return np.frombuffer(  # (fresh anonymous memory reads as zeros)
        mmap.mmap(-1, nbytes, flags=flags | mmap.MAP_PRIVATE), dt, count)


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
        w1, w0: with case weights (:mod:`pybsnsing.weighted`), the weights of the node's
            rows of code 1 and code 0 (None without weights). ``nobs``, ``n1``, ``n0``
            stay row counts; ``node_class``, ``prob`` and ``prop`` are then weighted.
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
    w1: float | None = None
    w0: float | None = None

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
        if self.w1 is not None:
            d["w1"] = self.w1
            d["w0"] = self.w0
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
            w1=None if d.get("w1") is None else float(d["w1"]),
            w0=None if d.get("w0") is None else float(d["w0"]),
        )


def effective_node_size(control: BsControl, n_train: int) -> int:
    """``node_size``, with 0 meaning ``floor(sqrt(n_train))`` (fixed once per tree)."""
    if control.node_size == 0:
        return int(math.floor(math.sqrt(n_train)))
    return int(control.node_size)


def make_node(number: int, parent: int, depth: int, rows: np.ndarray, y: np.ndarray,
              n_train: int, n1: int | None = None) -> Node:
    """A leaf node of the rows ``rows`` (counts of ``y``, share of ``n_train``; ``n1``:
    the class-1 rows when they are counted already)."""
    nobs = int(rows.size)
    if n1 is None:
        n1 = int(y[rows].sum())
    n0 = nobs - n1
    cls = 1 if n1 >= n0 else 0
    return Node(number=number, parent=parent, lchild=-1, rchild=-1, node_class=cls,
                prop=nobs / n_train, nobs=nobs, n1=n1, n0=n0, prob=n1 / nobs, obs=rows,
                split_rule="", split_target=cls, depth=depth)


def splittable(node: Node, node_size: int, stop_prob: float) -> bool:
    """A child is split further only when nobs > node_size, both classes are
    present and its majority share is below stop_prob (docs/r-quirks.md, Q13)."""
    if node.nobs <= node_size or node.n1 == 0 or node.n0 == 0:
        return False
    return max(node.n1, node.n0) / node.nobs < stop_prob


class NodeColumns(Mapping):
    """The node's rows of the design columns, fetched only when a rule names them.

    A name used by several columns maps to the last of them, as the dict of
    columns R's ``with()`` sees here always did.
    """

    def __init__(self, X: np.ndarray, rows: np.ndarray, col_of: dict[str, int]) -> None:
        self._X = X
        self._rows = rows
        self._col_of = col_of

    def __getitem__(self, name: str) -> np.ndarray:
        return self._X[:, self._col_of[name]].take(self._rows)

    def __contains__(self, name: object) -> bool:  # (without fetching the column)
        return name in self._col_of

    def __iter__(self):
        return iter(self._col_of)

    def __len__(self) -> int:
        return len(self._col_of)


#: no labels / no precomputed answers (:func:`rule_sides`)
_NO_LABELS = np.empty(0, np.uint8)
_NO_ANSWERS = np.empty(0, np.bool_)


def rule_sides(rule: str, X: np.ndarray, rows: np.ndarray, col_of: dict[str, int],
               y: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray, int, int]:
    """A node's rows split by its rule text, as :func:`~pybsnsing.rules.evaluate_rule`
    on :class:`NodeColumns` answers it (R evaluates the text): ``(rows where the rule is
    TRUE, the others, class-1 rows of each)``, each side in the order of ``rows``.

    The numeric comparisons on design columns (:func:`~pybsnsing.rules.numeric_comparison`)
    are made by one kernel pass over the rows without the GIL, the other questions (labels,
    ``%in%``, transforms) by :func:`~pybsnsing.rules.evaluate_rule`. ``X``: the design
    matrix, float64 in Fortran order; ``y``: 0/1 labels (uint8) by row id to count (None:
    counts 0)."""
    questions = parse_rule(rule)
    qcol: list[int] = []
    qop: list[int] = []
    qval: list[float] = []
    rest = []
    for q in questions:
        key = column_key(q, col_of)
        code = numeric_comparison(q) if key is not None else -1
        if code < 0:
            rest.append(q)
        else:
            qcol.append(col_of[key])
            qop.append(code)
            qval.append(q.value)
    rows = np.asarray(rows, dtype=np.int64)
    if y is not None and y.shape[0] != X.shape[0]:
        raise PybsnsingValueError(f"{y.shape[0]} labels for {X.shape[0]} rows")
    pre = evaluate_rule(rest, NodeColumns(X, rows, col_of)) if rest else _NO_ANSWERS
    left, right, n1l, n1r = _packing.rule_sides(
        np.asfortranarray(X, dtype=np.float64), rows, _NO_LABELS if y is None else y,
        np.array(qcol, np.int64), np.array(qop, np.int64), np.array(qval, np.float64), pre)
    if n1l < 0:
        raise PybsnsingValueError(f"row ids outside 0..{X.shape[0] - 1}")
    return left, right, int(n1l), int(n1r)


class ListSlabs:
    """One flat buffer that holds the sorted lists of every large node of a tree (and
    one for their values), each node's children written within the node's own block
    (:func:`~pybsnsing.kernels.packing.split_orders_in_place`), instead of fresh arrays
    for every split (fresh memory costs a page fault per page on first touch).

    Rows of the root are positions ``0..n-1``; a node holds a contiguous range
    ``[s, s + m)`` of them and its lists, (p, m) C-ordered, are the block
    ``[p s, p (s + m))`` of the buffer. Its children split the range (left first): their
    lists are the two parts of the block, written there when the node is split (its own
    lists are not read afterwards). The smaller child's lists wait in a stash of half the
    buffer's size meanwhile, the node's part of it starting at ``p s // 2`` (at most
    ``p m // 2`` long). Nodes being split hold disjoint ranges, so they may be split
    concurrently. (Two buffers, the children written to the other one, took 70-110 MiB
    more at synthetic1m's peak and 12,000-20,000 more page faults.)"""

    def __init__(self, p: int, n: int, values: bool) -> None:
        self.p = p
        self.orders = streamed_array(p * n, np.int64)
        self.stash = streamed_array(max(p * n // 2, 1), np.int64)
        self.values: np.ndarray | None = None
        self.stash_values: np.ndarray | None = None
        if values:
            self.values = streamed_array(p * n, np.float64)
            self.stash_values = streamed_array(max(p * n // 2, 1), np.float64)

    def root(self) -> SortedLists:
        """The root's (p, n) lists and values (None without values): the buffers."""
        p = self.p
        return (self.orders.reshape(p, -1),
                None if self.values is None else self.values.reshape(p, -1))

    def drop_unused_values(self, queue: Iterable[_Task]) -> None:
        """Let the value buffers go once no queued node carries values (only the nodes
        of growers of many rows do, :meth:`Grower.keeps_values`: the top levels); nodes
        being split meanwhile keep their block alive and split it in place with a stash
        of their own."""
        if self.values is not None and all(t.ordv is None for t in queue):
            self.values = self.stash_values = None

    def holds(self, lists: np.ndarray) -> bool:
        """Whether ``lists`` is a block of the order buffer."""
        return lists.base is self.orders

    def stashes(self, lists: np.ndarray, values: np.ndarray | None, count: int
                ) -> tuple[np.ndarray, np.ndarray]:
        """The stash of ``count`` elements of the node whose lists are the block
        ``lists`` of the order buffer, and of its values ``values`` (an empty array for
        None; a fresh one when the values are not the same block of the value buffer)."""
        at = (lists.ctypes.data - self.orders.ctypes.data) // self.orders.itemsize
        stash = self.stash[at // 2: at // 2 + count]
        if values is None:
            return stash, np.empty(0, np.float64)
        buf = self.values
        if (buf is not None and self.stash_values is not None and values.base is buf
                and values.ctypes.data - buf.ctypes.data == at * buf.itemsize):
            return stash, self.stash_values[at // 2: at // 2 + count]
        return stash, streamed_array(count, np.float64)


class PackScratch(threading.local):
    """Each thread's reused buffer for the packed answers of the node it splits
    (``Xp``/``Xn`` of :meth:`Grower._pack`, dead once the node's rule is found): zeroed
    again instead of fresh zeroed memory for every node (a page fault per page on first
    touch). Answers of more than :data:`SCRATCH_MAX_BYTES` (the largest nodes) get fresh
    arrays, so that the buffer does not keep the root's size through the fit."""

    def __init__(self) -> None:
        self.buf = np.empty(0, np.uint64)

    def zeros(self, *shapes: tuple[int, int]) -> list[np.ndarray]:
        """Zeroed uint64 C-ordered arrays of these shapes, views of this thread's buffer."""
        sizes = [a * b for a, b in shapes]
        total = sum(sizes)
        if 8 * total > SCRATCH_MAX_BYTES:
            return self.fresh(*shapes)
        if self.buf.shape[0] < total:  # (doubling, within the cap)
            grown = min(2 * self.buf.shape[0], SCRATCH_MAX_BYTES // 8)
            self.buf = np.empty(max(total, grown), np.uint64)
        flat = self.buf[:total]
        flat.fill(0)
        out, at = [], 0
        for sh, k in zip(shapes, sizes, strict=True):
            out.append(flat[at:at + k].reshape(sh))
            at += k
        return out

    @staticmethod
    def fresh(*shapes: tuple[int, int]) -> list[np.ndarray]:
        """Zeroed uint64 C-ordered arrays of these shapes, each in fresh memory
        (:func:`streamed_array`)."""
        return [streamed_array(a * b, np.uint64, zeroed=True).reshape(a, b) for a, b in shapes]


#: the largest packed answers of a node (bytes, both classes) taken from a thread's
#: reused buffer (:class:`PackScratch`)
SCRATCH_MAX_BYTES = 1 << 24


#: at most this many external questions at a node: native rpart's split table with
#: ``maxdepth = 2`` has at most 3 split nodes of 1 primary and 4 competitor splits, each
#: asked both ways (a source with more is packed anew: :class:`_EarlyPack`)
EXTERNAL_MAX_QUESTIONS = 2 * 3 * (1 + 4)


class _EarlyPack:
    """The first question source of a node (its internal questions) packed in the
    splitting thread while the helper thread still makes the external ones (the largest
    nodes, alone: :meth:`Grower.find_rule`), into arrays with room for
    :data:`EXTERNAL_MAX_QUESTIONS` more rows; :meth:`finish` packs the other sources
    after it. The same packed answers, rows and order as :meth:`Grower._pack`."""

    def __init__(self, grower: Grower, node: NodeRows, target: int) -> None:
        self.grower = grower
        self.node = node
        self.target = target
        self.packed: tuple[int, np.ndarray, np.ndarray] | None = None
        self.first: QuestionSource | None = None

    def pack_first(self, source: QuestionSource) -> None:
        self.packed = self.grower._packed_arrays(self.node.rows, self.target,
                                                 source.m + EXTERNAL_MAX_QUESTIONS)
        source.pack_node(self.node, self.packed[1], self.packed[2], 0)
        self.first = source

    def finish(self, sources: list[QuestionSource], offsets: list[int],
               helper: Executor | None) -> tuple[int, np.ndarray, np.ndarray] | None:
        """``(n1, Xp, Xn)`` of all the sources, the others packed after the first (the
        last one sharing its work with ``helper``); None when the first was not packed
        here or the others do not fit."""
        if self.packed is None or not sources or sources[0] is not self.first:
            return None
        n1, Xp, Xn = self.packed
        m = offsets[-1]
        if m > Xp.shape[0]:
            return None
        for s, off in zip(sources[1:], offsets[1:], strict=False):
            s.pack_node(self.node, Xp, Xn, off, helper)
        return n1, Xp[:m], Xn[:m]


class Grower:
    """The per-tree state of the growth loop: the design matrix in column order, the
    labels, scratch arrays indexed by row id, and the work done at one node."""

    def __init__(self, X: np.ndarray, names: list[str], y: np.ndarray, control: BsControl,
                 node_size: int) -> None:
        self.X = np.asfortranarray(X, dtype=np.float64)
        n, p = self.X.shape
        self.names = list(names)
        if len(self.names) != p:
            raise ValueError(f"{len(self.names)} names given for {p} columns")
        self.y = np.ascontiguousarray(y, dtype=np.int64)
        self.yb = self.y.astype(np.uint8)
        self.control = control
        self.node_size = node_size
        self.segments = r_segments(control.nseg_numeric)
        self.col_of = {nm: j for j, nm in enumerate(self.names)}
        self.plain = plain_names(self.names)
        self.external = control.external_method
        raw = [read_quoted(nm, 0)[0] if nm.startswith("`") else nm for nm in self.names]
        if self.external is not None and r_rpart_fails(raw):
            warnings.warn(
                "a design column name holds a backtick or backslash "
                f"({[nm for nm in raw if r_rpart_fails([nm])]}): R's rpart call "
                "fails on such names and R bsnsing then uses no rpart questions at all; "
                "pybsnsing does the same (import_external has no effect)",
                ExternalWarning,
                stacklevel=4,
            )
            self.external = None
        self.n_train = n  # the training rows (a local grower's: still the whole tree's)
        self.gid: np.ndarray | None = None  # a local grower's row ids in the training rows
        self.slot = np.zeros(n, dtype=np.int64)  # class-wise bit slot of a node's rows
        self.gmask = np.zeros(n, dtype=bool)  # partition scratch
        self.pos = np.zeros(n, dtype=np.int64)  # row id -> position in the node
        # the packed external path needs finite values (rpart treats infinite ones as
        # missing: the dense path replays that, with surrogate splits)
        self.finite = bool(np.isfinite(self.X).all())
        # columns such as log(x) whose external questions R answers from x (its text
        # evaluation), where that differs from the design column: answered densely
        self.evaluated = evaluated_columns(self.X, self.names) if any(
            "(" in nm for nm in self.names) else {}
        self.xt: np.ndarray | None = None  # X.T, for the packed external path
        self.slabs: ListSlabs | None = None  # where large nodes' lists go (grow_tree)
        self.scratch: PackScratch | None = None  # reused packed answers (grow_nodes)
        self.w: np.ndarray | None = None  # row weights (pybsnsing.weighted)
        if not control.suppress_internal and np.isnan(self.X).any():
            bad = [self.names[j] for j in range(p) if np.isnan(self.X[:, j]).any()]
            raise ValueError(f"missing values (NaN) in column(s) {bad}; impute them first")

    def worker_copy(self) -> Grower:
        """A copy that shares the data and has its own scratch arrays (``slot``, ``pos``,
        ``gmask``): finds rules in another thread (:func:`grow_nodes`)."""
        if self.external == "rpart":
            self._packed_external_inputs()  # built once, shared
        g = copy.copy(self)
        g.slot = np.zeros_like(self.slot)
        g.gmask = np.zeros_like(self.gmask)
        g.pos = np.zeros_like(self.pos)
        return g

    def make_node(self, number: int, parent: int, depth: int, rows: np.ndarray,
                  n1: int | None = None) -> Node:
        """A leaf node of ``rows`` (its counts; :func:`make_node`)."""
        return make_node(number, parent, depth, rows, self.y, self.n_train, n1)

    def rule_sides(self, rule: str, rows: np.ndarray) -> tuple[np.ndarray, np.ndarray, int, int]:
        """The node's rows split by ``rule`` and the class-1 rows of each side
        (:func:`rule_sides`)."""
        return rule_sides(rule, self.X, rows, self.col_of, self.yb)

    def task(self, node: Node, ordm: np.ndarray, rows: np.ndarray,
             ordv: np.ndarray | None = None) -> _Task:
        """The growth task of a child to split further: in this grower, or in a grower of
        its own (:meth:`localize`) when it holds at most ``1 / LOCAL_SHRINK`` of this
        grower's rows (and this grower has at least ``LOCAL_MIN_ROWS``)."""
        n_here = self.X.shape[0]
        if n_here >= LOCAL_MIN_ROWS and rows.shape[0] * LOCAL_SHRINK <= n_here:
            g, lrows, lord = self.localize(rows, ordm)
            return _Task(node, lord, g, lrows, ordv if g.keeps_values() else None)
        return _Task(node, ordm, self if self.gid is not None else None, rows, ordv)

    def keeps_values(self) -> bool:
        """Whether this grower's nodes carry their sorted values (``ordv``) from node to
        node: when its columns are long enough (:data:`VALUES_MIN_ROWS`) that reading the
        values by row id costs more than splitting them along with the sorted lists, in a
        tree small enough (:data:`VALUES_MAX_ENTRIES`) to hold them."""
        return (self.X.shape[0] >= VALUES_MIN_ROWS
                and self.n_train * self.X.shape[1] <= VALUES_MAX_ENTRIES)

    def localize(self, rows: np.ndarray, ordm: np.ndarray
                 ) -> tuple[Grower, np.ndarray, np.ndarray]:
        """A grower holding a compact copy of the rows ``rows`` (increasing) and their
        sorted lists ``ordm`` in its own row ids ``0..n-1`` (same order as the row ids
        here, so every kernel sees the same values in the same order; rewritten in place
        when ``ordm`` is a block of :attr:`slabs`); its ``gid`` maps them back to
        training row ids. Nodes of disjoint rows may be split with it
        concurrently (its scratch arrays are only touched at a node's own rows).

        Returns ``(grower, local rows, local sorted lists)``."""
        n = rows.shape[0]
        g = copy.copy(self)
        g.X = self.rows_matrix(rows)
        g.evaluated = {j: v.take(rows) for j, v in self.evaluated.items()}
        g.y = self.y.take(rows)
        g.yb = self.yb.take(rows)
        if self.w is not None:
            g.w = self.w.take(rows)
        g.gid = rows if self.gid is None else self.gid.take(rows)
        g.slot = np.zeros(n, dtype=np.int64)
        g.gmask = np.zeros(n, dtype=bool)
        g.pos = np.zeros(n, dtype=np.int64)
        g.xt = None
        if self.external == "rpart":
            g._packed_external_inputs()  # made here: shared by threads
        # (a block of the buffers is the child's own: rewritten in place)
        own = self.slabs is not None and self.slabs.holds(ordm)
        return g, np.arange(n, dtype=np.int64), self.positions(rows, ordm, in_place=own)

    def can_split(self, node: Node) -> bool:
        """Whether a child is split further (:func:`splittable`)."""
        return splittable(node, self.node_size, self.control.stop_prob)

    def describe(self, node: Node, rule: str, seconds: float) -> str:
        """The verbose line of a node."""
        return (f"node {node.number}: nobs {node.nobs}, n1 {node.n1}, n0 {node.n0}, "
                f"rule: {rule or '(leaf)'} [{seconds:.2f}s]")

    def root_orders(self) -> np.ndarray:
        """(p, n) int64: every column's stable ascending order of all rows."""
        return self.root_lists(False)[0]

    def root_lists(self, values: bool) -> SortedLists:
        """The root's sorted lists: every column's stable ascending order of all rows
        ((p, n) int64) and, when ``values``, the values in that order ((p, n) float64,
        taken by the sort: :func:`~pybsnsing.questions.stable_argsort`; else None), in
        the first of :attr:`slabs` when there are slabs. Large data: one column per
        thread (numpy sorts and gathers without the GIL)."""
        import numba

        n, p = self.X.shape
        if self.slabs is not None:
            ordm, ordv = self.slabs.root()
            ordv = ordv if values else None
        else:
            ordm = streamed_array(p * n, np.int64).reshape(p, n)
            ordv = streamed_array(p * n, np.float64).reshape(p, n) if values else None

        def sort(j: int) -> None:
            stable_argsort(self.X[:, j], None if ordv is None else ordv[j], out=ordm[j])

        width = min(p, int(numba.get_num_threads())) if n >= CONCURRENT_MIN_ROWS else 1
        if width > 1:
            from concurrent.futures import ThreadPoolExecutor

            with ThreadPoolExecutor(width) as pool:
                list(pool.map(sort, range(p)))
        else:
            for j in range(p):
                sort(j)
        return ordm, ordv

    def partition(self, ordm: np.ndarray, ordv: np.ndarray | None, rows_left: np.ndarray,
                  want_left: bool, want_right: bool, helper: Executor | None = None
                  ) -> tuple[SortedLists, SortedLists]:
        """Split the node's sorted lists ``ordm`` and their values ``ordv`` (None: none)
        into the children's (stable: ties keep order): ``((left ordm, left ordv), (right
        ordm, right ordv))``; ``(None, None)`` for a child not wanted, ``(ordm, None)``
        without values. A node whose lists are a block of :attr:`slabs` is split within
        that block (with ``helper``, an idle thread pool: the sides of half of the
        columns there, then the values there while this thread splits the lists);
        another large node's children get fresh arrays (with ``helper``: the second half
        of the columns split there)."""
        p, n = ordm.shape
        g = self.gmask
        g[rows_left] = True
        nl = rows_left.shape[0]
        if n >= PARTITION_KERNEL_MIN_ROWS:  # one numba pass
            valued = ordv is not None
            bits = np.packbits(g, bitorder="little")
            g[rows_left] = False
            if self.slabs is not None and self.slabs.holds(ordm):  # within its block
                lists = ordm.reshape(-1)
                vals = kernel_values(ordv).reshape(-1) if valued else np.empty(0, np.float64)
                stash, stash_v = self.slabs.stashes(ordm, ordv, p * min(nl, n - nl))
                if helper is None:
                    ok = _packing.split_orders_in_place(lists, vals, p, bits, nl, stash,
                                                        stash_v)
                else:  # the sides, a half of the columns each; the lists and the values
                    sides = np.empty(p * n, np.uint8)
                    half = helper.submit(_packing.column_sides, lists, p, bits, sides,
                                         p // 2, p)
                    _packing.column_sides(lists, p, bits, sides, 0, p // 2)
                    half.result()
                    other = (helper.submit(_packing.split_by_sides, vals, p, sides, nl,
                                           stash_v) if valued else None)
                    ok = _packing.split_by_sides(lists, p, sides, nl, stash)
                    ok = (other is None or other.result()) and ok  # (waits for the values)
                left, right = lists[:p * nl], lists[p * nl:]
                left_v, right_v = vals[:p * nl], vals[p * nl:]
            else:
                left, right = streamed_array(p * nl, np.int64), streamed_array(
                    p * (n - nl), np.int64)
                if valued:
                    left_v = streamed_array(p * nl, np.float64)
                    right_v = streamed_array(p * (n - nl), np.float64)
                else:
                    left_v = right_v = np.empty(0, np.float64)
                args = (ordm, kernel_values(ordv), bits, left, right, left_v, right_v)
                h = p // 2 if helper is not None else 0
                if h:  # each half is split on its own: its lists, its blocks
                    rest = helper.submit(_packing.split_orders,
                                         *_column_half(args, h, nl, n, False))
                    ok = _packing.split_orders(*_column_half(args, h, nl, n, True)) & \
                        rest.result()
                else:
                    ok = _packing.split_orders(*args)
            if not ok:  # (a node's sorted lists hold its rows: never expected)
                raise RuntimeError("partition: the sorted lists do not hold the node's rows")
            sides = ((left, left_v, nl, want_left), (right, right_v, n - nl, want_right))
            return tuple((o.reshape(p, k), v.reshape(p, k) if valued else None)
                         if want else (None, None) for o, v, k, want in sides)
        sel = g.take(ordm)
        g[rows_left] = False
        out = []
        for s, want in ((sel, want_left), (~sel, want_right)):
            out.append((ordm[s].reshape(p, -1), None if ordv is None else ordv[s].reshape(p, -1))
                       if want else (None, None))
        return out[0], out[1]

    def find_rule(self, rows: np.ndarray, ordm: np.ndarray, target: int,
                  helper: Executor | None = None, ordv: np.ndarray | None = None,
                  n1: int | None = None) -> str:
        """The split rule text of the node with rows ``rows`` (increasing row ids) and
        sorted lists ``ordm`` (``""`` when there is none): sources -> groups -> pack ->
        search -> texts. ``helper``: an idle thread pool that builds and packs the
        external questions while this thread does the internal ones; ``ordv``: the values
        of ``ordm`` (:func:`pybsnsing.questions.sorted_values`; None: read by row id);
        ``n1``: the node's class-1 rows when they are counted already."""
        control = self.control
        packed = control.opt_solver in _PACKED_SOLVERS
        node = NodeRows(ordm, rows, self.slot, self.pos)
        early = _EarlyPack(self, node, target) if packed and helper is not None else None
        found = self._node_questions(rows, ordm, target, packed, helper, ordv, n1, early)
        if found is None:
            return ""
        sources, offsets, text, grp = found
        kw = dict(max_rules=control.max_rules, node_size=self.node_size,
                  no_same_gender_children=control.no_same_gender_children,
                  time_limit=control.solver_timelimit)
        nobs = rows.shape[0]
        if packed:
            n1, Xp, Xn = self._pack(sources, offsets, node, target, helper, early)
            result = enum_search_packed(Xp, Xn, n1, nobs - n1, grp, **kw)
        else:  # the NumPy oracle, the MIP / greedy solvers (mip.py), or an unknown name
            self.pos[rows] = np.arange(nobs, dtype=np.int64)
            blocks = [s.dense_node(node) for s in sources]
            B = blocks[0] if len(blocks) == 1 else np.hstack(blocks)
            yt = (self.y.take(rows) == target).astype(np.uint8)
            result = enum_search(B, yt, grp, solver=control.opt_solver, model=control.opt_model,
                                 greedy_level=control.greedy_level, **kw)
        return " | ".join(text(j) for j in result.cols)

    def _node_questions(self, rows: np.ndarray, ordm: np.ndarray, target: int, packed: bool,
                        helper: Executor | None = None, ordv: np.ndarray | None = None,
                        n1: int | None = None, early: _EarlyPack | None = None
                        ) -> tuple[list[QuestionSource], list[int], Callable[[int], str],
                                   np.ndarray] | None:
        """The node's question sources (:meth:`question_sources`), where each one's questions
        start (the last entry is their number), the text of question ``k`` and the ENUM
        group ids; None when the node has no questions. ``early``: see
        :meth:`question_sources`."""
        sources = self.question_sources(rows, ordm, target, packed, helper, ordv, n1, early)
        offsets, text = self._question_index(sources)
        if offsets[-1] == 0:
            return None
        return sources, offsets, text, self._search_groups(sources, text, offsets[-1])

    def _pack(self, sources: list[QuestionSource], offsets: list[int], node: NodeRows,
              target: int, helper: Executor | None = None, early: _EarlyPack | None = None
              ) -> tuple[int, np.ndarray, np.ndarray]:
        """``(n1, Xp, Xn)``: the node's target-class row count and the answers of its
        ``offsets[-1]`` questions bit-packed per class (slots in node order; with a
        ``helper``, the last source is packed in its thread, the sources writing disjoint
        rows, or a lone source shares its work with it). ``early``: the first source
        packed already, while the helper made the others (:class:`_EarlyPack`)."""
        if early is not None:
            done = early.finish(sources, offsets, helper)
            if done is not None:
                return done
        n1, Xp, Xn = self._packed_arrays(node.rows, target, offsets[-1])
        jobs = list(zip(sources, offsets, strict=False))
        if helper is not None and len(jobs) == 1:  # the one source shares the work
            s, off = jobs[0]
            s.pack_node(node, Xp, Xn, off, helper)
            return n1, Xp, Xn
        last = None
        if helper is not None and len(jobs) > 1:
            s, off = jobs.pop()
            last = helper.submit(s.pack_node, node, Xp, Xn, off)
        for s, off in jobs:
            s.pack_node(node, Xp, Xn, off)
        if last is not None:
            last.result()
        return n1, Xp, Xn

    def question_sources(self, rows: np.ndarray, ordm: np.ndarray, target: int,
                         packed: bool, helper: Executor | None = None,
                         ordv: np.ndarray | None = None, n1: int | None = None,
                         early: _EarlyPack | None = None) -> list[QuestionSource]:
        """The node's non-empty question sources: internal questions (counted with the
        row weights ``self.w`` when there are any), then external (made in the thread of
        ``helper`` meanwhile, when there is one; ``early``: the internal questions are
        packed in this thread meanwhile). ``ordv``: the values of ``ordm`` (None: the
        question builders read them by row id); ``n1``: the node's class-1 rows (None:
        counted here)."""
        control = self.control
        sources: list[QuestionSource] = []
        external = None
        if self.external is not None and helper is not None and not control.suppress_internal:
            external = helper.submit(self.external_source, rows, ordm, packed, ordv)
        if not control.suppress_internal:
            if n1 is None:
                n1 = int(self.y.take(rows).sum())
            if n1 == 0 or n1 == rows.shape[0]:
                raise PybsnsingValueError("There is only one unique value in y")
            sources.append(question_set_from_orders(
                self.X, self.yb, ordm, self.names, target, segments=self.segments,
                num2factor=control.num2factor, nseg_factor=control.nseg_factor,
                bin_size=control.bin_size, node_size=self.node_size,
                keep_perfect=control.keep_perfect_separation, weights=self.w, ordv=ordv,
            ))
        if external is not None:
            if early is not None and sources and sources[0].m:
                early.pack_first(sources[0])
            sources.append(external.result())
        elif self.external is not None:
            sources.append(self.external_source(rows, ordm, packed, ordv))
        return [s for s in sources if s.m]

    def external_source(self, rows: np.ndarray, ordm: np.ndarray, packed: bool,
                        ordv: np.ndarray | None = None) -> QuestionSource:
        """The node's external questions: native rpart packed straight from the sorted
        lists when the search is packed and the names and values allow it, else answered
        on the node's rows (native rpart, or R's rpart through rpy2). ``ordv``: the
        values of ``ordm``, read by native rpart (None: it gathers them)."""
        method = self.external
        if method == "rpart" and packed and self.plain and self.finite and not self.evaluated:
            xt, yf = self._packed_external_inputs()
            return node_external(self.X, xt, yf, ordm, rows, self.names, ordv)
        # Fortran order makes external's X.T contiguous
        orders = self.positions(rows, ordm) if method == "rpart" else None
        xm = self.rows_matrix(rows)
        answer_x = None
        if self.evaluated:
            answer_x = xm.copy(order="F")
            for j, vals in self.evaluated.items():
                answer_x[:, j] = vals.take(rows)
        return external_question_set(xm, self.names, self.y.take(rows),
                                     method=method, orders=orders, answer_X=answer_x,
                                     nan_answer=int(self.control.opt_solver == "enum"))

    def rows_matrix(self, rows: np.ndarray) -> np.ndarray:
        """The rows ``rows`` of ``X``, column-major, copied column by column (a take
        along axis 0 would first copy the whole Fortran-ordered matrix)."""
        out = np.empty((rows.shape[0], self.X.shape[1]), dtype=np.float64, order="F")
        for j in range(self.X.shape[1]):
            self.X[:, j].take(rows, out=out[:, j], mode="clip")  # (unbuffered: ids in range)
        return out

    def positions(self, rows: np.ndarray, ordm: np.ndarray, in_place: bool = False
                  ) -> np.ndarray:
        """The sorted lists ``ordm`` of the node with rows ``rows`` (increasing) as
        positions in ``rows`` (the node's own row ids ``0..n-1``): a new array, or
        ``ordm`` rewritten when ``in_place``."""
        self.pos[rows] = np.arange(rows.shape[0], dtype=np.int64)
        if not in_place:
            return self.pos.take(ordm)
        _packing.relabel(ordm, self.pos)
        return ordm

    def _packed_arrays(self, rows: np.ndarray, target: int, m: int
                       ) -> tuple[int, np.ndarray, np.ndarray]:
        """``(n1, Xp, Xn)`` for the packed answers of ``m`` questions at the node of
        ``rows``: its target-class row count (the class-wise slots set in ``self.slot``)
        and zeroed arrays of ``m`` rows per class (this thread's scratch, or fresh)."""
        n1 = int(_packing.node_slots(rows, self.yb, np.int64(target), self.slot))
        shape_p = (m, max(1, (n1 + 63) // 64))
        shape_n = (m, max(1, (rows.shape[0] - n1 + 63) // 64))
        if self.scratch is not None:
            Xp, Xn = self.scratch.zeros(shape_p, shape_n)
        else:
            Xp, Xn = PackScratch.fresh(shape_p, shape_n)
        return n1, Xp, Xn

    def _packed_external_inputs(self) -> tuple[np.ndarray, np.ndarray]:
        """``X.T`` (C order, made at the first use) and the 0/1 labels for native rpart's
        packed questions: as uint8 (``yb``), which the replay gathers by row id in every
        column (an eighth of float64's cache footprint; its sums are the same)."""
        if self.xt is None:
            self.xt = np.ascontiguousarray(self.X.T)
        return self.xt, self.yb

    @staticmethod
    def _question_index(sources: list[QuestionSource]) -> tuple[list[int], Callable[[int], str]]:
        """Where each source's questions start in the node's question list (the last
        entry is their number) and the text of question ``k``."""
        offsets = list(itertools.accumulate((s.m for s in sources), initial=0))

        def text(k: int) -> str:
            i = bisect.bisect_right(offsets, k) - 1
            return sources[i].text(k - offsets[i])

        return offsets, text

    def _search_groups(self, sources: list[QuestionSource], text: Callable[[int], str],
                       m: int) -> np.ndarray:
        """ENUM group ids of the node's ``m`` questions: from structure, else from texts."""
        grp = self._groups(sources)
        return question_groups([text(k) for k in range(m)]) if grp is None else grp

    def _groups(self, sources: list[QuestionSource]) -> np.ndarray | None:
        """ENUM group ids from structure; None when only the texts can tell."""
        if not self.plain:
            return None
        keys = [s.group_keys() for s in sources]
        if any(k is None for k in keys):
            return None
        return structural_groups(np.concatenate([k[0] for k in keys]),
                                 np.concatenate([k[1] for k in keys]))


def _column_half(args: tuple, h: int, nl: int, n: int, first: bool) -> tuple:
    """:func:`~pybsnsing.kernels.packing.split_orders`'s arguments ``(ordm, ordv, bits,
    left, right, left_v, right_v)`` for the columns before ``h`` (``first``) or from
    ``h`` on: their rows of the lists and values, their parts of the flat blocks (a call
    writes only within the blocks it is given)."""
    ordm, ordv, bits, left, right, left_v, right_v = args
    rows = slice(None, h) if first else slice(h, None)

    def part(a: np.ndarray, k: int) -> np.ndarray:
        return a[: h * k] if first else a[h * k:]

    valued = left_v.shape[0] > 0
    return (ordm[rows], ordv[rows] if valued else ordv, bits, part(left, nl),
            part(right, n - nl), part(left_v, nl) if valued else left_v,
            part(right_v, n - nl) if valued else right_v)


def find_rule(X: np.ndarray, names: list[str], y: np.ndarray, target: int,
              control: BsControl, node_size: int) -> str:
    """The split rule text at a node (``""`` when there is none).

    ``X``/``y`` are the node's rows; ``y`` is coded 0/1 and ``target`` is the
    node's majority class.
    """
    g = Grower(X, names, y, control, node_size)
    return g.find_rule(np.arange(g.X.shape[0], dtype=np.int64), g.root_orders(), target)


def grow_tree(X: np.ndarray, names: list[str], y: np.ndarray, control: BsControl,
              progress=None, max_depth: int | None = None) -> tuple[list[Node], int]:
    """Grow a bsnsing tree on the design matrix ``X`` with 0/1 response ``y``.

    ``max_depth`` (None: R bsnsing's growth, no limit): nodes at that depth stay
    leaves. As a node's split depends only on its own rows, the tree is the full
    tree with the nodes below ``max_depth`` removed (numbers in the same order).
    Row weights: :func:`pybsnsing.weighted.grow_any_tree`.

    Returns the nodes in number order and the node size used.
    """
    prepare_kernels()
    n_train = X.shape[0]
    y = np.asarray(y, dtype=np.int64)
    node_size = effective_node_size(control, n_train)
    grower = Grower(X, names, y, control, node_size)
    root = make_node(0, -1, 0, np.arange(n_train, dtype=np.int64), y, n_train)
    if CONCURRENT_MIN_ROWS <= n_train and n_train * grower.X.shape[1] <= SLABS_MAX_ENTRIES:
        # large nodes' lists in two reused buffers
        grower.slabs = ListSlabs(grower.X.shape[1], n_train, grower.keeps_values())
    # (the root's lists are made in grow_nodes: no reference here outlives the root)
    return grow_nodes(grower, root, None, max_depth, progress), node_size


def grow_nodes(grower: Grower, root: Node, ordm: np.ndarray | None, max_depth: int | None,
               progress=None) -> list[Node]:
    """Grow the tree breadth-first from ``root`` (its rows' sorted orders ``ordm``; None:
    all the grower's rows, sorted here with their values when the grower
    :meth:`~Grower.keeps_values`): each node's rule by ``grower.find_rule``, its children
    by ``grower.make_node``, split further where ``grower.can_split``. Returns the nodes
    in number order.

    The nodes are split by :class:`_NodePool` (in worker threads with more than one numba
    thread, in any order); they are numbered here, in R's order: breadth first, the
    children of a node when its turn comes (the verbose log and ``progress`` too)."""
    control = grower.control
    nodes = [root]
    grower.scratch = PackScratch()  # (shared by the growers' copies: one per thread)
    if ordm is None:
        ordm, ordv = grower.root_lists(grower.keeps_values())
    else:
        ordv = sorted_values(grower.X, ordm) if grower.keeps_values() else None
    first = _Task(root, ordm, None, root.obs, ordv)
    del ordv
    del ordm
    t0 = time.perf_counter()
    turns: deque[Node] = deque([root])  # the nodes split further, in number order
    live = control.verbose or progress is not None
    with _NodePool(grower, max_depth, first) as pool:
        del first
        if not live:  # no log to write as the nodes are done: number them at the end
            pool.wait_all()
        while turns:
            node = turns.popleft()
            done = pool.result(node)
            if done is None:  # at max_depth
                continue
            if control.verbose:
                print(grower.describe(node, done.rule, time.perf_counter() - t0))
            if done.left is None or done.right is None:
                continue
            node.split_rule = done.rule
            done.left.number, done.right.number = len(nodes), len(nodes) + 1
            done.left.parent = done.right.parent = node.number
            node.lchild, node.rchild = done.left.number, done.right.number
            nodes.extend((done.left, done.right))
            if done.grow_left:
                turns.append(done.left)
            if done.grow_right:
                turns.append(done.right)
            if progress is not None:
                progress(len(nodes))
    return nodes


class _Task(NamedTuple):
    """A queued node: its sorted lists and rows in the row ids of ``grower`` (None: the
    tree's grower, or a worker thread's copy of it; else a local grower,
    :meth:`Grower.localize`)."""

    node: Node
    ordm: np.ndarray
    grower: Grower | None
    rows: np.ndarray
    ordv: np.ndarray | None = None  # the values of ordm (None: gathered when needed)


@dataclass
class _Split:
    """What :func:`split_node` found at a node: the rule (``""``: none), the children
    (None when the rule sends all rows one way; numbered by the caller) and the growth
    tasks of the children that are split further (None for the others)."""

    rule: str
    left: Node | None = None
    right: Node | None = None
    task_left: _Task | None = None
    task_right: _Task | None = None


def _within_depth(depth: int, max_depth: int | None) -> bool:
    """Whether a node at ``depth`` may be split under the depth limit (None: no limit)."""
    return max_depth is None or depth < max_depth


def split_node(grower: Grower, node: Node, ordm: np.ndarray, max_depth: int | None,
               rows: np.ndarray | None = None, helper: Executor | None = None,
               ordv: np.ndarray | None = None) -> _Split:
    """A node's rule, its children and their growth tasks: the work at one node, which
    depends on the node alone (children get their numbers and their parent's number
    from :func:`grow_nodes`: a node may be split before it is numbered).
    ``rows``/``ordm``: the node's rows and sorted lists in ``grower``'s row ids (default
    ``node.obs``, the training row ids); ``helper``: see :meth:`Grower.find_rule`;
    ``ordv``: the values of ``ordm`` (:func:`pybsnsing.questions.sorted_values`; None:
    read by row id)."""
    if rows is None:
        rows = node.obs
    rule = grower.find_rule(rows, ordm, node.node_class, helper, ordv, node.n1)
    if not rule:
        return _Split(rule)
    rows_left, rows_right, n1_left, n1_right = grower.rule_sides(rule, rows)
    n_left = rows_left.shape[0]
    if n_left == 0 or n_left == rows.size:
        return _Split(rule)
    lnode = grower.make_node(-1, -1, node.depth + 1, rows_left, n1_left)
    rnode = grower.make_node(-1, -1, node.depth + 1, rows_right, n1_right)
    if grower.gid is not None:  # a local grower: the nodes keep training row ids
        lnode.obs = grower.gid.take(rows_left)
        rnode.obs = grower.gid.take(rows_right)
    split_l = split_r = False
    if _within_depth(lnode.depth, max_depth):
        split_l = grower.can_split(lnode)
        split_r = grower.can_split(rnode)
    task_l = task_r = None
    if split_l or split_r:
        (ord_l, val_l), (ord_r, val_r) = grower.partition(ordm, ordv, rows_left, split_l,
                                                          split_r, helper)
        if ord_l is not None:
            task_l = grower.task(lnode, ord_l, rows_left, val_l)
        if ord_r is not None:
            task_r = grower.task(rnode, ord_r, rows_right, val_r)
    return _Split(rule, lnode, rnode, task_l, task_r)


#: nodes with at least this many rows are split by any worker thread, smaller ones by the
#: first worker only (their per-node Python work, which holds the GIL, dominates); a
#: tree of fewer training rows is grown in the calling thread
CONCURRENT_MIN_ROWS = 4096
#: the same for trees of at least BIG_TREE_ROWS training rows, which have many nodes of
#: a few thousand rows (synthetic1m, 2 threads: 6.6 -> 6.1 s; below 20000 rows the
#: lower threshold made fits of 3000 rows 5 % slower)
CONCURRENT_MIN_ROWS_BIG_TREE = 1024
BIG_TREE_ROWS = 20000

#: nodes of at least this many rows split their sorted lists in one pass of a numba kernel
#: (:func:`~pybsnsing.kernels.packing.split_orders`), smaller ones with NumPy's take and
#: masks. The kernel is 2.6-4x faster from 1024 rows on (10 columns: 36 against 92 us at
#: 1024 rows, 58 against 221 at 2048) and holds no GIL while other nodes are split; below,
#: the gain is a few microseconds, which would not pay for the kernel's compile (1.5 s)
#: in the first fit after an install on small data
PARTITION_KERNEL_MIN_ROWS = 1024

#: after a node of at least this many rows, the C heap's free memory goes back to the
#: operating system (:func:`release_freed_memory`)
TRIM_MIN_ROWS = 20000

@functools.cache
def _malloc_trim() -> Callable[[int], int] | None:
    """glibc's ``malloc_trim`` (None where there is none)."""
    try:
        import ctypes

        return ctypes.CDLL("libc.so.6").malloc_trim
    except (OSError, AttributeError):
        return None


def release_freed_memory(margin: int = 0) -> None:
    """Give the C heap's free memory back to the operating system (glibc's
    ``malloc_trim``; a no-op elsewhere) when the resident memory plus ``margin`` bytes
    reaches the process's high-water mark (:func:`_near_peak`). A large node frees arrays
    of tens of MB; with worker threads they come from per-thread heaps that glibc does
    not shrink by itself, so the process's memory would keep the high-water mark of
    every thread (synthetic1m, 2 threads: peak 1026 -> 823 MiB). Trimming always,
    though, handed the same memory back and forth: every page touched again after a trim
    is a page fault (synthetic1m: about 200,000 of them, 1.5-2 s of system time on the
    project's VM); far below the peak, the freed memory is kept for reuse."""
    trim = _malloc_trim()
    if trim is not None and _near_peak(margin):
        trim(0)


#: after a node of n rows and p columns, the heap is trimmed when what TRIM_MARGIN nodes
#: like it hold in sorted lists and values (16 * n * p bytes each) could take the process
#: past its peak
TRIM_MARGIN = 4


def _near_peak(margin: int = 0) -> bool:
    """Whether the resident memory plus ``margin`` bytes reaches the process's peak
    (Linux: ``/proc/self/statm`` and ``getrusage``; True where unknown)."""
    try:
        import resource

        with open("/proc/self/statm", "rb") as f:
            resident = int(f.read().split()[1]) * resource.getpagesize()
        peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
    except (OSError, ValueError, IndexError, ImportError):
        return True
    return resident + margin >= peak


#: a node of at least this many rows split while no other node is being split or waits
#: (the root) has a helper thread: its external questions made and packed there
#: meanwhile, or with internal questions only half of their packing; and half of its
#: partition (:meth:`Grower.partition`). Its own kernels may use all numba threads.
HELPER_MIN_ROWS = 1 << 16

#: a child holding at most 1/LOCAL_SHRINK of its grower's rows, where the grower holds at
#: least LOCAL_MIN_ROWS, gets a compact copy of its rows (:meth:`Grower.localize`)
LOCAL_SHRINK = 4
LOCAL_MIN_ROWS = 1 << 16


class _Done(NamedTuple):
    """What :func:`grow_nodes` needs of a split node: :class:`_Split` without the
    children's sorted lists (``grow_left``/``grow_right``: whether a child is split
    further)."""

    rule: str
    left: Node | None
    right: Node | None
    grow_left: bool
    grow_right: bool


class _NodePool:
    """Splits the nodes of a tree (:func:`split_node`), each child that is split further
    as soon as its parent is done: with one numba thread in the calling thread, in queue
    order; with ``w`` > 1, in ``w`` worker threads that take the nodes waiting, the
    oldest first, each with its own copy of the grower's scratch arrays
    (:meth:`Grower.worker_copy`) and numba's serial kernels. Nodes of fewer than
    ``min_rows`` rows, whose work is mostly Python under the GIL, are split by the first
    worker only. The split of a node depends on the node alone, so the order does not
    change the tree; :meth:`result` hands the nodes' splits to :func:`grow_nodes`, which
    numbers them."""

    def __init__(self, grower: Grower, max_depth: int | None, first: _Task) -> None:
        import numba

        self.grower = grower
        self.max_depth = max_depth
        self.width = int(numba.get_num_threads())
        self.min_rows = (CONCURRENT_MIN_ROWS_BIG_TREE if grower.n_train >= BIG_TREE_ROWS
                         else CONCURRENT_MIN_ROWS)
        if grower.n_train < self.min_rows:  # no node is ever large enough: one thread
            self.width = 1
        self.cond = threading.Condition()
        # waiting nodes: (sequence number, task); large ones (any worker) and small ones
        self.large: deque[tuple[int, _Task]] = deque()
        self.small: deque[tuple[int, _Task]] = deque()
        self.seq = itertools.count()
        self.running = 0
        self.results: dict[int, _Done | None] = {}  # id(node) -> its split
        self.error: BaseException | None = None
        self.stop = False
        self.threads: list[threading.Thread] = []
        self.helper: Executor | None = None
        self._put(first)

    def __enter__(self) -> _NodePool:
        if self.width > 1:
            for k in range(self.width):
                t = threading.Thread(target=self._work, args=(k,), daemon=True,
                                     name=f"pybsnsing-node_{k}")
                self.threads.append(t)
                t.start()
        return self

    def __exit__(self, *exc) -> None:
        with self.cond:
            self.stop = True
            self.cond.notify_all()
        for t in self.threads:
            t.join()
        if self.helper is not None:
            self.helper.shutdown(wait=True)

    def _put(self, task: _Task) -> None:
        """Queue a node (the caller holds the lock or is the only thread)."""
        big = task.node.nobs >= self.min_rows
        (self.large if big else self.small).append((next(self.seq), task))

    def _idle(self) -> bool:
        """Whether every node is done (no node waits or is being split)."""
        return self.running == 0 and not self.large and not self.small

    def _take(self, k: int) -> tuple[_Task, bool] | None:
        """The next node for worker ``k`` (None when none is left: every node done, or
        stopped), and whether it is alone (no other node waits or is being split). The
        caller holds the lock or is the only thread; worker ``k`` > 0 takes only large
        nodes."""
        while not self.stop:
            queues = [q for q in ((self.large, self.small) if k == 0 else (self.large,)) if q]
            if queues:
                q = min(queues, key=lambda d: d[0][0])
                task = q.popleft()[1]
                lone = self._idle()  # (before it counts as running)
                self.running += 1
                return task, lone
            if self._idle():
                return None
            self.cond.wait()
        return None

    def _work(self, k: int) -> None:
        """Worker thread ``k``: split nodes until none is left."""
        import numba

        numba.set_num_threads(1)  # (thread-local) one node per thread
        grower = self.grower if k == 0 else self.grower.worker_copy()
        while True:
            with self.cond:
                got = self._take(k)
            if got is None:
                return
            if not self._step(grower, *got):
                return

    def _step(self, grower: Grower, task: _Task, lone: bool) -> bool:
        """Split one taken node and queue its children (False: it failed, the error is
        kept for :meth:`result` and every thread stops)."""
        node = task.node
        try:
            done = self._split(grower, task, lone)
        except BaseException as exc:  # handed to the calling thread
            with self.cond:
                self.error = self.error or exc
                self.stop = True
                self.running -= 1
                self.cond.notify_all()
            return False
        del task
        with self.cond:
            if done is None:
                self.results[id(node)] = None
            else:
                for t in (done.task_left, done.task_right):
                    if t is not None:
                        self._put(t)
                self.results[id(node)] = _Done(done.rule, done.left, done.right,
                                               done.task_left is not None,
                                               done.task_right is not None)
            del done
            self.running -= 1
            slabs = self.grower.slabs
            if slabs is not None:
                slabs.drop_unused_values(t for _, t in itertools.chain(self.large, self.small))
            self.cond.notify_all()
        if node.nobs >= TRIM_MIN_ROWS:
            # the margin: what the next nodes of this size may allocate meanwhile
            release_freed_memory(TRIM_MARGIN * 16 * node.nobs * self.grower.X.shape[1])
        return True

    def _split(self, grower: Grower, task: _Task, lone: bool) -> _Split | None:
        """The node's :func:`split_node` (None at the depth limit). A large node alone
        (:data:`HELPER_MIN_ROWS`) has the helper thread and all numba threads."""
        node = task.node
        if not _within_depth(node.depth, self.max_depth):
            return None
        if task.grower is not None:
            grower = task.grower
        if not (lone and self.width > 1 and node.nobs >= HELPER_MIN_ROWS):
            return split_node(grower, node, task.ordm, self.max_depth, task.rows, None,
                              task.ordv)
        import numba

        if self.helper is None:
            from concurrent.futures import ThreadPoolExecutor

            self.helper = ThreadPoolExecutor(1, thread_name_prefix="pybsnsing-node-helper")
        numba.set_num_threads(self.width)
        try:
            return split_node(grower, node, task.ordm, self.max_depth, task.rows,
                              self.helper, task.ordv)
        finally:
            numba.set_num_threads(1)

    def wait_all(self) -> None:
        """Wait until every node is done (or one failed)."""
        if self.width == 1:
            return
        with self.cond:
            while not self.stop and not self._idle():
                self.cond.wait()

    def result(self, node: Node) -> _Done | None:
        """The split of ``node`` (a node that was queued; None at the depth limit), once
        it is done: split here with one thread (the nodes come in queue order)."""
        key = id(node)
        if self.width == 1:
            while key not in self.results and self.error is None:
                got = self._take(0)
                if got is None:
                    break
                self._step(self.grower, *got)
        else:
            with self.cond:
                while key not in self.results and self.error is None and not self._idle():
                    self.cond.wait()
        if self.error is not None:
            raise self.error
        return self.results.pop(key)


def prepare_kernels() -> None:
    """Before every fit: with an empty numba cache (the first fit after an install), have
    the tree's kernels compiled in two processes (:func:`pybsnsing._coldstart.cold_start`);
    a no-op after the first call of the process."""
    cold_start(_rpart_kernel, _compile_parent_half)


def _rpart_kernel():
    """The rpart replay's entry kernel: its numba cache entry tells a first fit after an
    install (:func:`pybsnsing._coldstart.cold_start`)."""
    from .kernels import rpart

    return rpart.rpart_anova_rows


def _compile_parent_half() -> None:
    """This process's share of a first fit's compiles (the child's is
    :func:`pybsnsing._warmup.child_main`): rpart's column sort, the packing of external
    questions (from a made-up split table), then a tiny fit without external questions
    (question packing, the ENUM search of max_rules 2, cut thinning)."""
    from .control import bscontrol
    from .external import external_from_splits
    from .kernels import rpart as R

    X, names, y = tiny_problem(200)
    g = Grower(X, names, y, bscontrol(), 1)
    ordm = g.root_orders()
    rows = np.arange(X.shape[0], dtype=np.int64)
    R.root_sources(np.ascontiguousarray(g.X.T), ordm, rows, sorted_values(g.X, ordm))
    ext = external_from_splits(g.X, ordm, g.names, np.zeros(1, dtype=np.int64), np.zeros(1))
    g._pack([ext], [0, ext.m], NodeRows(ordm, rows, g.slot, g.pos), 1)
    grow_tree(X, names, y, bscontrol(import_external=False))
