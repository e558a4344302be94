"""Growing a bsnsing tree on a Dask cluster, PLANET style (issue 20).

The data stay on the workers, one design-matrix block per partition (built by the
in-memory engine's :func:`~pybsnsing.design.build_design` on each partition, with the
string columns turned into Categoricals of the globally sorted levels, so every block
has the same columns).  The tree grows level by level (the in-memory engine's FIFO
order is level order; node numbers are assigned at the end by replaying that FIFO):

* a node with more than ``local_rows`` rows (a *large* node) is split by the driver
  and the workers together:

  1. **questions** -- the node's internal candidate questions (cuts, ``==``/``%in%``,
     binary) are rebuilt exactly from per-partition statistics, no row moving
     (:mod:`pybsnsing.dask._questions`: min/max per class, small distinct sets, exact
     bucket histograms giving every sorted position, and the few mixed-class buckets
     the cut walk and R's thinning read); the native rpart questions
     (``import_external=True``, the default) still need the node's columns on the driver
     (see *Limits*);
  2. **counters** -- each partition answers those questions on its rows of the node,
     bit-packs them per class (:func:`pybsnsing.kernels.enum.pack_by_class`) and returns
     the per-question class counts and the per-class popcount Gram matrices
     (``max_rules <= 2``), or its packed answers (``max_rules >= 3``: the driver
     stitches them, if ``m x n / 8`` bytes fit in ``gather_limit``, else a clear error
     suggests ``max_rules <= 2``);
  3. **search** -- the driver sums the counters and runs the engine's ENUM kernels
     (:func:`~pybsnsing.kernels.enum.level_one`, :func:`~pybsnsing.kernels.enum.level_two`,
     or :func:`~pybsnsing.search.enum_search_packed` on the stitched answers);
  4. **routing** -- each partition evaluates the rule TEXT on its rows of the node
     (:func:`~pybsnsing.rules.evaluate_rule`, as the engine does) and keeps a node id per
     row; no row moves;

* a splittable node with at most ``local_rows`` rows is collected to ONE worker and its
  whole subtree is grown there by the in-memory engine (:func:`~pybsnsing.tree.grow_tree`
  with the tree's node size).

Every step calls the engine's functions on the same rows in the same order, so the tree is
the in-memory one, node for node (tests/test_dask.py).

Limits (the rest of issue 20):

* rpart's questions (``import_external=True``, the default) replay rpart's unstable
  quicksort and its floating-point sums row by row, so they are not rebuilt from
  histograms: each large node's design columns are gathered to the driver for them
  (``8 p + 1`` bytes a row, plus the engine's sort orders, ``8 p`` bytes a row), one node
  at a time.  With ``import_external=False`` no row of a large node moves: the driver
  holds the bucket tables (about 1 000 - 4 000 buckets per column) and the fetched
  buckets (at most ``max(2048, n / 1024)`` rows each, a few dozen per column);
* ``gather_questions=True`` (comparisons) makes the questions from the gathered rows,
  as the first version did;
* missing predictor values are imputed by the training medians, as the engine does; the
  present values of each such design column are gathered to the driver for its exact
  median; a partition in which a predictor is entirely missing is an error
  (``build_design`` refuses it; repartition);
* solvers other than the packed ENUM (``enum_py``, ``highs``, ``greedy``) and R's rpart
  (``import_external="r"``) search large nodes on the driver with the engine's
  ``find_rule`` on the gathered rows (exact, not distributed).
"""

from __future__ import annotations

import dataclasses
import math
import sys
import time
import warnings
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

from .._optional import require
from ..control import BsControl, resolve_control
from ..design import Design, DesignWarning, build_design, class_priors, code_response
from ..errors import DataError, PybsnsingError, PybsnsingTypeError, PybsnsingValueError
from ..formula import parse_formula
from ..model import BsnsingModel, MBsnsingModel
from ..questions import BIN0, BIN1, EQ, GE, GT, IN, LE, LT, QuestionSet
from ..rcollate import r_sort
from ..tree import Grower, Node, NodeColumns, effective_node_size, grow_tree, splittable

__all__ = ["DaskFitInfo", "bsnsing_dask", "is_dask_frame", "predict_dask"]

#: default ``local_rows``: nodes with at most this many rows are grown on one worker by
#: the in-memory engine.  Provisional, from bench/results/dask.txt (1M rows, a loaded
#: 2-core machine): a distributed split cost ~8 s per 500k-row node, while the engine grows
#: a whole 200k-row subtree in seconds; not yet tuned by a sweep
DEFAULT_LOCAL_ROWS = 200_000
#: default ``gather_limit``: most bytes of packed answers the driver gathers for one node
#: (``max_rules >= 3``)
DEFAULT_GATHER_LIMIT = 1 << 30
#: rows answered at once per partition (bounds the worker's dense answer chunk)
_CHUNK_ROWS = 1 << 16
#: question operators of the worker-side specs
_OP_GT, _OP_LT, _OP_GE, _OP_LE, _OP_IN = range(5)
_PACKED_SOLVERS = ("enum_c", "enum")


def is_dask_frame(obj: Any) -> bool:
    """True for a Dask DataFrame (without importing dask when it is not loaded)."""
    mod = type(obj).__module__ or ""
    if not mod.startswith("dask"):
        return False
    try:
        import dask.dataframe as dd
    except ImportError:  # pragma: no cover - the object came from dask
        return False
    return isinstance(obj, dd.DataFrame)


# ---------------------------------------------------------------------------------------
# worker-side pieces (module-level functions: the workers import them)


@dataclass
class _Block:
    """One partition's design rows: ``X`` (n_k x p, Fortran order), class codes, and
    the global row id of its first row."""

    X: np.ndarray
    codes: np.ndarray
    offset: int = 0


def _to_categorical(pdf: pd.DataFrame, levels: dict[str, list[str]]) -> pd.DataFrame:
    if not levels:
        return pdf
    pdf = pdf.copy()
    for c, lv in levels.items():
        s = pdf[c]
        vals = s.astype(object).where(s.notna(), None)
        pdf[c] = pd.Categorical(vals.map(lambda v: None if v is None else str(v)),
                                categories=lv)
    return pdf


def _design_part(pdf: pd.DataFrame, formula: str, collation: str,
                 levels: dict[str, list[str]], y_distinct: pd.Series,
                 names: list[str], ylevels: list) -> _Block:
    """Build a partition's design block (worker side)."""
    p = len(names)
    if pdf.shape[0] == 0:
        return _Block(np.empty((0, p), order="F"), np.empty(0, np.int16))
    pdf = _to_categorical(pdf, levels)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DesignWarning)
        design, y = build_design(formula, pdf, collation=collation)
    if list(design.names) != list(names):
        raise DataError(f"a partition's design columns {design.names} differ from the "
                        f"first partition's {names}")
    X = np.asfortranarray(design.X, dtype=np.float64)
    if design.imputed is not None:  # undo the partition's medians: the tree's come later
        X[np.asarray(design.imputed, dtype=bool)] = np.nan
    resp = code_response(pd.concat([y.reset_index(drop=True), y_distinct],
                                   ignore_index=True), collation=collation)
    if list(resp.levels) != list(ylevels):
        raise DataError(f"a partition codes the response as {resp.levels}, not {ylevels}")
    codes = np.asarray(resp.codes[: y.shape[0]], dtype=np.int16)
    return _Block(X, codes)


def _distinct(s: pd.Series) -> pd.Series:
    """The distinct non-missing values of a column (a partition's, or merged ones)."""
    return s.dropna().drop_duplicates()


def _missing_cols(block: _Block) -> np.ndarray:
    return np.flatnonzero(np.isnan(block.X).any(axis=0))


def _present_values(block: _Block, j: int) -> np.ndarray:
    x = block.X[:, j]
    return x[~np.isnan(x)]


def _impute(block: _Block, medians: np.ndarray) -> _Block:
    X = block.X
    if np.isnan(X).any():
        X = X.copy(order="F")
        for j in np.flatnonzero(~np.isnan(medians)):
            X[np.isnan(X[:, j]), j] = medians[j]
    return _Block(X, block.codes, block.offset)


def _set_offset(block: _Block, offset: int) -> _Block:
    return _Block(block.X, block.codes, offset)


def _block_len(block: _Block) -> int:
    return int(block.codes.shape[0])


def _y01(block: _Block, cls: int | None) -> np.ndarray:
    if cls is None:
        return block.codes.astype(np.int64)
    return (block.codes == cls).astype(np.int64)


def _rows_of(block: _Block, assign: np.ndarray | None, tid: int) -> np.ndarray:
    n = block.codes.shape[0]
    if assign is None:
        return np.arange(n, dtype=np.int64) if tid == 0 else np.empty(0, np.int64)
    return np.flatnonzero(assign == tid)


def _counts(block: _Block, cls: int | None) -> tuple[int, int]:
    y = _y01(block, cls)
    return int(y.shape[0]), int(y.sum())


def _node_data(block: _Block, assign: np.ndarray | None, tids: Sequence[int],
               cls: int | None) -> dict[int, tuple[np.ndarray, np.ndarray, np.ndarray]]:
    """The partition's rows of nodes ``tids``: (X rows, 0/1 labels, global row ids)."""
    y = _y01(block, cls)
    out = {}
    for tid in tids:
        r = _rows_of(block, assign, tid)
        out[tid] = (block.X[r], y[r], r + block.offset)
    return out


def _node_round(block: _Block, assign: np.ndarray | None, tid: int, cls: int | None,
                fn: Any, req: dict) -> Any:
    """Apply a question-building round ``fn`` (:mod:`pybsnsing.dask._questions`) to the
    partition's rows of node ``tid`` (worker side)."""
    r = _rows_of(block, assign, tid)
    y = _y01(block, cls)[r]
    X = block.X
    full = r.shape[0] == X.shape[0]

    def cols(j: int) -> np.ndarray:
        return np.ascontiguousarray(X[:, j]) if full else X[:, j].take(r)

    return fn(cols, y, r + block.offset, req)


def _pick(d: dict, key: int) -> Any:
    return d[key]


def _answers(X: np.ndarray, spec: dict) -> np.ndarray:
    """Dense (n x m) uint8 answers of the question spec on rows ``X``."""
    cols, ops, vals, sets = spec["cols"], spec["ops"], spec["vals"], spec["sets"]
    m = cols.shape[0]
    B = np.zeros((X.shape[0], m), dtype=np.uint8)
    for (j, op), qs in spec["groups"].items():
        x = X[:, j]
        if op == _OP_IN:
            for q in qs:
                B[:, q] = np.isin(x, sets[q])
            continue
        v = vals[qs]
        if op == _OP_GT:
            B[:, qs] = x[:, None] > v[None, :]
        elif op == _OP_LT:
            B[:, qs] = x[:, None] < v[None, :]
        elif op == _OP_GE:
            B[:, qs] = x[:, None] >= v[None, :]
        else:
            B[:, qs] = x[:, None] <= v[None, :]
    del ops
    return B


def _stitch(parts: Sequence[tuple[np.ndarray, int]], m: int) -> np.ndarray:
    """Concatenate bit-packed rows: part ``(X, nbits)`` holds ``nbits`` bits (padding 0)
    per question row; the result has the bits of all parts one after another."""
    total = sum(nb for _, nb in parts)
    W = max(1, (total + 63) // 64)
    out = np.zeros((m, W + 1), dtype=np.uint64)
    off = 0
    for X, nb in parts:
        if nb == 0:
            continue
        w = (nb + 63) // 64
        X = X[:, :w]
        base, s = off >> 6, off & 63
        if s == 0:
            out[:, base:base + w] |= X
        else:
            out[:, base:base + w] |= X << np.uint64(s)
            out[:, base + 1:base + w + 1] |= X >> np.uint64(64 - s)
        off += nb
    return np.ascontiguousarray(out[:, :W])


def _partition_counters(block: _Block, assign: np.ndarray | None, tid: int, spec: dict,
                        target: int, cls: int | None, packed: bool) -> dict:
    """A partition's counters of one node (worker side): class sizes, per-question
    popcounts and Gram matrices, or (``packed``) the packed answers themselves."""
    from ..kernels import enum as K

    r = _rows_of(block, assign, tid)
    y = _y01(block, cls)[r]
    yt = (y == target).astype(np.uint8)
    m = spec["cols"].shape[0]
    pp: list[tuple[np.ndarray, int]] = []
    pn: list[tuple[np.ndarray, int]] = []
    for a in range(0, r.shape[0], _CHUNK_ROWS):
        rr = r[a:a + _CHUNK_ROWS]
        B = _answers(block.X[rr], spec)
        yc = yt[a:a + _CHUNK_ROWS]
        Xp, Xn = K.pack_by_class(B, yc)
        n1 = int(yc.sum())
        pp.append((Xp, n1))
        pn.append((Xn, int(yc.shape[0]) - n1))
    n1 = sum(nb for _, nb in pp)
    n0 = sum(nb for _, nb in pn)
    Xp = _stitch(pp, m)
    Xn = _stitch(pn, m)
    if packed:
        return {"n1": n1, "n0": n0, "Xp": Xp, "Xn": Xn}
    return {"n1": n1, "n0": n0, "cp": K.popcount_rows(Xp), "cn": K.popcount_rows(Xn),
            "Gp": K.gram_counts(Xp, False).astype(np.int64),
            "Gn": K.gram_counts(Xn, False).astype(np.int64)}


def _route(block: _Block, assign: np.ndarray | None, splits: dict, names: list[str],
           cls: int | None, want_ids: bool) -> tuple[np.ndarray, dict]:
    """Route a partition's rows of the split nodes to their children (worker side):
    the new node id of every row (-1: in no large node any more) and, per child, its
    rows, class-1 rows and (``want_ids``) global row ids."""
    n = block.codes.shape[0]
    new = np.full(n, -1, dtype=np.int32)
    y = _y01(block, cls)
    col_of = {nm: j for j, nm in enumerate(names)}
    from ..rules import evaluate_rule

    stats: dict[int, tuple] = {}
    for tid, (rule, lt, rt) in splits.items():
        r = _rows_of(block, assign, tid)
        if r.shape[0] == 0:
            for c in (lt, rt):
                stats[c] = (0, 0, np.empty(0, np.int64) if want_ids else None)
            continue
        left = evaluate_rule(rule, NodeColumns(block.X, r, col_of))
        for c, rows in ((lt, r[left]), (rt, r[~left])):
            new[rows] = c
            stats[c] = (int(rows.shape[0]), int(y[rows].sum()),
                        rows + block.offset if want_ids else None)
    return new, stats


def _grow_local(parts: Sequence[tuple[np.ndarray, np.ndarray, np.ndarray]], control: BsControl,
                names: list[str]) -> tuple[list[Node], np.ndarray]:
    """Grow a node's whole subtree on one worker with the in-memory engine; returns the
    engine's nodes (local row positions in ``obs``) and the node's global row ids."""
    parts = [p for p in parts if p[1].shape[0]]
    X = np.concatenate([p[0] for p in parts], axis=0)
    y = np.concatenate([p[1] for p in parts])
    ids = np.concatenate([p[2] for p in parts])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        nodes, _ = grow_tree(X, names, y, control)
    return nodes, ids


# ---------------------------------------------------------------------------------------
# the driver


@dataclass
class DaskFitInfo:
    """What a Dask fit did: per level, the seconds, the nodes split distributedly, the
    nodes grown locally and the bytes gathered to / sent from the driver."""

    levels: list[dict] = field(default_factory=list)
    setup_seconds: float = 0.0
    total_seconds: float = 0.0
    n_partitions: int = 0

    def table(self) -> str:
        """The per-level figures as text."""
        lines = ["level  large  local  seconds  MB_gathered  MB_sent"]
        for d in self.levels:
            lines.append(f"{d['level']:5d}  {d['large']:5d}  {d['local']:5d}  "
                         f"{d['seconds']:7.2f}  {d['bytes_gathered'] / 1e6:11.1f}  "
                         f"{d['bytes_sent'] / 1e6:7.2f}")
        return "\n".join(lines)


def _nbytes(obj: Any) -> int:
    if isinstance(obj, np.ndarray):
        return int(obj.nbytes)
    if isinstance(obj, dict):
        return sum(_nbytes(v) for v in obj.values())
    if isinstance(obj, (list, tuple)):
        return sum(_nbytes(v) for v in obj)
    return 8


@dataclass
class _DNode:
    """A node while the tree grows (temporary id ``tid``)."""

    tid: int
    depth: int
    nobs: int
    n1: int
    obs: np.ndarray | None = None
    rule: str = ""
    left: _DNode | None = None
    right: _DNode | None = None
    local: tuple[list[Node], np.ndarray] | None = None

    @property
    def n0(self) -> int:
        return self.nobs - self.n1


def _question_spec(sources: list, Xn: np.ndarray | None, ordm: np.ndarray | None,
                   qsets: dict[int, np.ndarray] | None = None) -> dict | None:
    """The node's questions as worker-side specs (operator, column, exact value or
    value set per question), or None when a source is of another kind."""
    from ..external import NodeExternal

    cols: list[int] = []
    ops: list[int] = []
    vals: list[float] = []
    sets: dict[int, np.ndarray] = {}
    sorted_cols: dict[int, np.ndarray] = {}

    def ox(j: int) -> np.ndarray:
        if j not in sorted_cols:
            sorted_cols[j] = Xn[:, j].take(ordm[j])
        return sorted_cols[j]

    for s in sources:
        if isinstance(s, QuestionSet) and s.ranges is None:
            _internal_spec(s, qsets or {}, 0, cols, ops, vals, sets)
        elif isinstance(s, QuestionSet):
            r = s._require_ranges()
            for k in range(s.m):
                j, kind = int(s.cols[k]), int(s.kinds[k])
                q = len(cols)
                cols.append(j)
                if kind in (GT, LT, GE, LE):
                    ops.append({GT: _OP_GT, LT: _OP_LT, GE: _OP_GE, LE: _OP_LE}[kind])
                    vals.append(float(s.values[k]))
                    continue
                ops.append(_OP_IN)
                vals.append(math.nan)
                if kind in (BIN0, BIN1):
                    sets[q] = np.array([float(kind - BIN0)])
                elif kind in (EQ, IN):
                    lo = r.rlo[r.rptr[k]:r.rptr[k + 1]]
                    sets[q] = np.unique(ox(j)[lo])
                else:  # pragma: no cover - a kind this version does not know
                    return None
        elif isinstance(s, NodeExternal):
            n = ordm.shape[1]
            for k in range(s.m):
                j, pos = int(s.cols[k]), int(s.pos[k])
                thr = float(ox(j)[pos]) if pos < n else math.inf
                cols.append(j)
                ops.append(_OP_GE if s.ge[k] else _OP_LT)
                vals.append(thr)
        else:
            return None
    return _spec(cols, ops, vals, sets)


def _internal_spec(qs: QuestionSet, qsets: dict[int, np.ndarray], base: int,
                   cols: list, ops: list, vals: list, sets: dict) -> None:
    """Append the distributed internal questions ``qs`` (value sets ``qsets``) to a
    spec under construction."""
    for k in range(qs.m):
        kind = int(qs.kinds[k])
        q = len(cols)
        cols.append(int(qs.cols[k]))
        if kind in (GT, LT, GE, LE):
            ops.append({GT: _OP_GT, LT: _OP_LT, GE: _OP_GE, LE: _OP_LE}[kind])
            vals.append(float(qs.values[k]))
        else:
            ops.append(_OP_IN)
            vals.append(math.nan)
            sets[q] = qsets[k]
    del base


def _spec(cols: list, ops: list, vals: list, sets: dict) -> dict:
    cols_a = np.asarray(cols, dtype=np.int64)
    ops_a = np.asarray(ops, dtype=np.int8)
    groups: dict[tuple[int, int], list[int]] = {}
    for q in range(cols_a.shape[0]):
        groups.setdefault((int(cols_a[q]), int(ops_a[q])), []).append(q)
    return {"cols": cols_a, "ops": ops_a, "vals": np.asarray(vals, dtype=np.float64),
            "sets": sets, "groups": {k: np.asarray(v, np.int64) for k, v in groups.items()}}


class _DaskTree:
    """The state of one two-class tree grown on the cluster."""

    def __init__(self, client: Any, blocks: list, names: list[str], control: BsControl,
                 cls: int | None, n_train: int, n1: int, local_rows: int, gather_limit: int,
                 keep_obs: bool, verbose: bool, info: DaskFitInfo,
                 gather_questions: bool = False) -> None:
        self.client = client
        self.gather_questions = gather_questions
        self.blocks = blocks
        self.names = names
        self.control = control
        self.cls = cls
        self.n_train = n_train
        self.n1 = n1
        self.local_rows = local_rows
        self.gather_limit = gather_limit
        self.keep_obs = keep_obs
        self.verbose = verbose
        self.info = info
        self.node_size = effective_node_size(control, n_train)
        # the engine on a node's rows must use the tree's node size, not its own
        self.local_control = dataclasses.replace(control, node_size=self.node_size) \
            if control.node_size == 0 else control
        self.assign: list = [None] * len(blocks)
        self.next_tid = 1
        self._warned = False

    # -------------------------------------------------------------- one large node
    def _gather_node(self, nd: _DNode) -> tuple[np.ndarray, np.ndarray, int]:
        c = self.client
        futs = [c.submit(_node_data, b, a, [nd.tid], self.cls, pure=False)
                for b, a in zip(self.blocks, self.assign, strict=True)]
        parts = [d[nd.tid] for d in c.gather(futs)]
        Xn = np.concatenate([p[0] for p in parts], axis=0)
        yn = np.concatenate([p[1] for p in parts])
        return np.asfortranarray(Xn), yn, sum(_nbytes(p) for p in parts)

    def _run_round(self, nd: _DNode, stats: dict) -> Any:
        """A ``run_round`` for :func:`pybsnsing.dask._questions.build_questions` on the
        partitions' rows of node ``nd``."""
        c = self.client

        def run(fn: Any, req: dict) -> list:
            stats["bytes_sent"] += _nbytes(req) * len(self.blocks)
            futs = [c.submit(_node_round, b, a, nd.tid, self.cls, fn, req, pure=False)
                    for b, a in zip(self.blocks, self.assign, strict=True)]
            res = c.gather(futs)
            stats["bytes_gathered"] += _nbytes(res)
            return res

        return run

    def split_large(self, nd: _DNode, stats: dict) -> str:
        """The rule of a large node (``""``: none)."""
        t0 = time.perf_counter()
        target = 1 if nd.n1 >= nd.n0 else 0
        found = self._large_sources(nd, stats, target, t0)
        if isinstance(found, str):  # found on the gathered rows
            return found
        sources, qsets, Xn, ordm = found
        m = sum(s.m for s in sources)
        if m == 0:
            stats["question_seconds"] += time.perf_counter() - t0
            return ""
        spec = _question_spec(sources, Xn, ordm, qsets)
        del Xn, ordm, found
        if spec is None:  # _large_sources returns only sources _question_spec handles
            raise PybsnsingError("internal error: a large node's questions have no "
                                 "worker-side spec")
        offsets = np.cumsum([0] + [s.m for s in sources]).tolist()

        def text(k: int) -> str:
            i = int(np.searchsorted(offsets, k, side="right")) - 1
            return sources[i].text(k - offsets[i])

        grp = self._groups(sources, text, m)
        t1 = time.perf_counter()
        cols = self._search_large(nd, spec, grp, m, target, stats)
        stats["search_seconds"] += time.perf_counter() - t1
        stats["question_seconds"] += t1 - t0
        return " | ".join(text(j) for j in cols)

    def _large_sources(self, nd: _DNode, stats: dict, target: int, t0: float) -> Any:
        """The question sources of a large node, with the question sets of the internal
        questions, and the node's gathered columns and sorted orders (None when not
        gathered); or the rule itself (a str) when it is found on the gathered rows."""
        from ..external import NodeExternal
        from ..questions import r_segments
        from ._questions import build_questions

        control = self.control
        ext = control.external_method
        n = nd.nobs
        rows = np.arange(n, dtype=np.int64)
        sources: list = []
        qsets: dict[int, np.ndarray] = {}
        Xn = ordm = None
        if control.opt_solver in _PACKED_SOLVERS and ext != "r" and not self.gather_questions:
            # the internal questions from per-partition statistics (no rows move)
            if not control.suppress_internal:
                qs, qsets = build_questions(
                    self._run_round(nd, stats), self.names, n, nd.n1, target,
                    segments=r_segments(control.nseg_numeric), num2factor=control.num2factor,
                    nseg_factor=control.nseg_factor, bin_size=control.bin_size,
                    node_size=self.node_size, keep_perfect=control.keep_perfect_separation,
                    stats=stats)
                if qs.m:
                    sources.append(qs)
            if ext == "rpart":
                # rpart's questions replay its sort and sums row by row: the node's
                # columns are gathered (8 p + 1 bytes a row; see the module notes)
                Xn, yn, nb = self._gather_node(nd)
                stats["bytes_gathered"] += nb
                stats["rpart_rows"] += n
                g = self._grower(Xn, yn)
                if g.external is not None:
                    ordm = g.root_orders()
                    es = g._external(rows, ordm, True)
                    if not isinstance(es, NodeExternal):
                        return self._finish_gathered(g, rows, ordm, target, stats, t0)
                    if es.m:
                        sources.append(es)
                del g
        else:
            Xn, yn, nb = self._gather_node(nd)
            stats["bytes_gathered"] += nb
            g = self._grower(Xn, yn)
            ordm = g.root_orders()
            if control.opt_solver not in _PACKED_SOLVERS:
                return self._finish_gathered(g, rows, ordm, target, stats, t0)
            sources = g._sources(rows, ordm, target, True)
            if _question_spec(sources, Xn, ordm) is None:
                return self._finish_gathered(g, rows, ordm, target, stats, t0)
            del g
        return sources, qsets, Xn, ordm

    def _groups(self, sources: list, text: Any, m: int) -> Any:
        """The group id of each question (structural keys, else from the texts)."""
        from ..questions import plain_names
        from ..search import question_groups, structural_groups

        grp = None
        if plain_names(self.names):
            keys = [src.group_keys() for src in sources]
            if all(k is not None for k in keys):
                grp = structural_groups(np.concatenate([k[0] for k in keys]),
                                        np.concatenate([k[1] for k in keys]))
        if grp is None:
            grp = question_groups([text(k) for k in range(m)])
        return grp

    def _search_large(self, nd: _DNode, spec: Any, grp: Any, m: int, target: int,
                      stats: dict) -> tuple[int, ...]:
        """The chosen questions of a large node: the partitions' counters (summed) or
        packed answers (stitched) searched on the driver."""
        from ..search import GRAM_MAX_COLS, enum_search_packed

        control = self.control
        n = nd.nobs
        packed = control.max_rules >= 3 or m > GRAM_MAX_COLS
        if packed and m * (n / 8) > self.gather_limit:
            raise PybsnsingValueError(
                f"node with {n} rows and {m} questions: max_rules = {control.max_rules} "
                f"needs its packed answers on the driver ({m * n / 8 / 2**20:.0f} MiB > "
                f"gather_limit = {self.gather_limit / 2**20:.0f} MiB); use max_rules <= 2 "
                "(searched from summed counters), a larger gather_limit, or a smaller "
                "local_rows")
        c = self.client
        spec_f = c.scatter(spec, broadcast=True, hash=False)
        stats["bytes_sent"] += _nbytes(spec)
        futs = [c.submit(_partition_counters, b, a, nd.tid, spec_f, target, self.cls,
                         packed, pure=False)
                for b, a in zip(self.blocks, self.assign, strict=True)]
        res = c.gather(futs)
        stats["bytes_gathered"] += _nbytes(res)
        n1 = sum(r["n1"] for r in res)
        n0 = sum(r["n0"] for r in res)
        if packed:
            Xp = _stitch([(r["Xp"], r["n1"]) for r in res], m)
            Xq = _stitch([(r["Xn"], r["n0"]) for r in res], m)
            del res
            return enum_search_packed(
                Xp, Xq, n1, n0, grp, max_rules=control.max_rules, node_size=self.node_size,
                no_same_gender_children=control.no_same_gender_children,
                time_limit=control.solver_timelimit).cols
        return self._search_counters(res, n1, n0, grp)

    def _search_counters(self, res: list, n1: int, n0: int, grp: Any) -> tuple[int, ...]:
        """Levels 1 and 2 of ENUM on the partitions' summed counters."""
        from ..kernels import enum as K

        control = self.control
        cp = np.sum([r["cp"] for r in res], axis=0)
        cn = np.sum([r["cn"] for r in res], axis=0)
        Gp = np.sum([r["Gp"] for r in res], axis=0).astype(np.int32)
        Gn = np.sum([r["Gn"] for r in res], axis=0).astype(np.int32)
        n1_, n0_ = np.int64(n1), np.int64(n0)
        ns_, nsgc = np.int64(self.node_size), bool(control.no_same_gender_children)
        vb2 = np.int64(n0) * np.int64(n1)
        keep, pfp, pfn, ptau, vb2, best_j = K.level_one(cp, cn, n1_, n0_, ns_, nsgc, vb2)
        cols = (int(best_j),) if best_j >= 0 else ()
        if control.max_rules >= 2 and keep.shape[0]:
            pcols = keep.reshape(-1, 1)
            out = K.level_two(cp, cn, Gp, Gn, np.asarray(grp, np.int64), n1_, n0_,
                              pcols, pfp, pfn, ptau, vb2, ns_, nsgc, False)
            bp, bj = out[5], out[6]
            if bp >= 0:
                cols = (int(pcols[bp][0]), int(bj))
        return cols

    def _grower(self, Xn: np.ndarray, yn: np.ndarray) -> Grower:
        with warnings.catch_warnings():
            if self._warned:
                warnings.simplefilter("ignore")
            g = Grower(Xn, self.names, yn, self.control, self.node_size)
        self._warned = True
        return g

    def _finish_gathered(self, g: Grower, rows: np.ndarray, ordm: np.ndarray, target: int,
                         stats: dict, t0: float) -> str:
        """The engine's own search on the gathered rows (solvers other than the packed
        ENUM, R's rpart)."""
        rule = g.find_rule(rows, ordm, target)
        stats["search_seconds"] += time.perf_counter() - t0
        return rule

    # -------------------------------------------------------------- growth
    def grow(self) -> list[Node]:
        c = self.client
        root = _DNode(0, 0, self.n_train, self.n1,
                      obs=np.arange(self.n_train, dtype=np.int64))
        frontier = [root]
        level = 0
        while frontier:
            t0 = time.perf_counter()
            stats = {"level": level, "large": 0, "local": 0, "bytes_gathered": 0,
                     "bytes_sent": 0, "question_seconds": 0.0, "search_seconds": 0.0,
                     "question_rounds": 0, "rpart_rows": 0}
            large = [nd for nd in frontier if nd.nobs > self.local_rows]
            small = [nd for nd in frontier if nd.nobs <= self.local_rows]
            stats["large"], stats["local"] = len(large), len(small)
            local_futs = {}
            if small:
                tids = [nd.tid for nd in small]
                pf = [c.submit(_node_data, b, a, tids, self.cls, pure=False)
                      for b, a in zip(self.blocks, self.assign, strict=True)]
                for nd in small:
                    parts = [c.submit(_pick, f, nd.tid, pure=False) for f in pf]
                    local_futs[nd.tid] = c.submit(_grow_local, parts, self.local_control,
                                                  self.names, pure=False)
            splits = {}
            for nd in large:
                rule = self.split_large(nd, stats)
                if rule:
                    nd.rule = rule
                    splits[nd.tid] = (rule, self.next_tid, self.next_tid + 1)
                    self.next_tid += 2
            nxt: list[_DNode] = []
            if splits:
                routed = [c.submit(_route, b, a, splits, self.names, self.cls, True,
                                   pure=False)
                          for b, a in zip(self.blocks, self.assign, strict=True)]
                self.assign = [c.submit(_pick, f, 0, pure=False) for f in routed]
                st = c.gather([c.submit(_pick, f, 1, pure=False) for f in routed])
                stats["bytes_gathered"] += _nbytes(st)
                for nd in large:
                    if nd.tid not in splits:
                        continue
                    _, lt, rt = splits[nd.tid]
                    kids = []
                    for ct in (lt, rt):
                        nobs = sum(s[ct][0] for s in st)
                        n1 = sum(s[ct][1] for s in st)
                        ids = np.concatenate([s[ct][2] for s in st])
                        kids.append(_DNode(ct, nd.depth + 1, nobs, n1, obs=ids))
                    if kids[0].nobs == 0 or kids[1].nobs == 0:
                        nd.rule = ""  # the engine: a rule true on all or none -> leaf
                        continue
                    nd.left, nd.right = kids
                    for k in kids:
                        if self._splittable(k):
                            nxt.append(k)
            for nd in small:
                nd.local = c.gather(local_futs[nd.tid])
                stats["bytes_gathered"] += _nbytes(nd.local[1])
            stats["seconds"] = time.perf_counter() - t0
            self.info.levels.append(stats)
            if self.verbose:
                print(f"[pybsnsing.dask] level {level}: {len(large)} distributed node(s), "
                      f"{len(small)} local subtree(s), {stats['seconds']:.2f}s, "
                      f"{stats['bytes_gathered'] / 1e6:.1f} MB gathered", file=sys.stderr)
            frontier = nxt
            level += 1
        return self._number(root)

    def _splittable(self, nd: _DNode) -> bool:
        probe = Node(0, -1, -1, -1, 0, 0.0, nd.nobs, nd.n1, nd.n0, 0.0,
                     np.empty(0, np.int64), "", 0)
        return splittable(probe, self.node_size, self.control.stop_prob)

    def _number(self, root: _DNode) -> list[Node]:
        """Replay the engine's FIFO to number the nodes."""
        n_train = self.n_train
        out: list[Node] = []

        def make(number: int, parent: int, depth: int, nobs: int, n1: int,
                 obs: np.ndarray) -> Node:
            n0 = nobs - n1
            cls = 1 if n1 >= n0 else 0
            return Node(number=number, parent=parent, lchild=-1, rchild=-1, node_class=cls,
                        prop=nobs / n_train, nobs=nobs, n1=n1, n0=n0, prob=n1 / nobs,
                        obs=obs, split_rule="", split_target=cls, depth=depth)

        # a queue item: (output node, _DNode) or (output node, (local nodes, ids, k))
        rn = make(0, -1, 0, root.nobs, root.n1, root.obs)
        out.append(rn)
        queue: list[tuple[Node, Any]] = [(rn, root)]
        head = 0
        while head < len(queue):
            node, src = queue[head]
            head += 1
            if isinstance(src, _DNode) and src.local is not None:
                lnodes, ids = src.local
                src = (lnodes, ids, 0)
            if isinstance(src, _DNode):
                if not src.rule or src.left is None or src.right is None:
                    continue
                node.split_rule = src.rule
                kids = [(src.left, src.left.nobs, src.left.n1, src.left.obs),
                        (src.right, src.right.nobs, src.right.n1, src.right.obs)]
            else:
                lnodes, ids, k = src
                ln = lnodes[k]
                if ln.is_leaf:
                    continue
                node.split_rule = ln.split_rule
                kids = []
                for ck in (ln.lchild, ln.rchild):
                    c = lnodes[ck]
                    kids.append(((lnodes, ids, ck), c.nobs, c.n1, ids.take(c.obs)))
            nums = []
            for csrc, nobs, n1, obs in kids:
                cn = make(len(out), node.number, node.depth + 1, nobs, n1, obs)
                out.append(cn)
                nums.append(cn.number)
                queue.append((cn, csrc))
            node.lchild, node.rchild = nums
        if not self.keep_obs:
            for nd in out:
                if not nd.is_leaf:
                    nd.obs = np.empty(0, np.int64)
        return out


def _client_of(client: Any) -> Any:
    distributed = require("dask", "the Dask fit", "distributed")
    if client is None:
        try:
            return distributed.get_client()
        except ValueError as exc:
            raise PybsnsingValueError(
                "no Dask client: pass client=Client(...) (a LocalCluster or a scheduler "
                "address) or create one first") from exc
    if isinstance(client, str):
        return distributed.Client(client)
    return client


def bsnsing_dask(formula: str, data: Any, client: Any = None,
                 control: BsControl | dict | None = None, *,
                 local_rows: int = DEFAULT_LOCAL_ROWS,
                 gather_limit: int = DEFAULT_GATHER_LIMIT,
                 keep_obs: bool = True, collation: str = "r", verbose: bool = False,
                 gather_questions: bool = False,
                 **control_kwargs: Any) -> BsnsingModel | MBsnsingModel:
    """Fit a bsnsing tree on a Dask DataFrame: :func:`pybsnsing.bsnsing` on a cluster.

    Args:
        formula: as :func:`pybsnsing.bsnsing`.
        data: a ``dask.dataframe.DataFrame`` (e.g. ``dd.read_parquet(folder)``); its row
            order (partitions in order) is the training row order.
        client: a ``distributed.Client``, a scheduler address (``"tcp://host:8786"``) or
            None for the current client.
        control: a :class:`~pybsnsing.control.BsControl` or dict; or control parameters
            as keywords, as :func:`pybsnsing.bsnsing` takes them.
        local_rows: splittable nodes with at most this many rows are collected to one
            worker and grown there by the in-memory engine (``0``: every node is split
            distributedly; a value >= the rows: the whole tree on one worker).
        gather_limit: most bytes of packed answers gathered on the driver for one node
            (``max_rules >= 3``; larger nodes raise an error suggesting ``max_rules <= 2``).
        keep_obs: keep the training rows of every node (``Node.obs``), as the in-memory
            fit does; False keeps them for the leaves only (the fitted values need them).
        collation: as :func:`pybsnsing.bsnsing`.
        verbose: one progress line per level on standard error.
        gather_questions: make a large node's questions on the driver from its gathered
            rows (the first version's way; for comparisons) instead of from
            per-partition statistics.

    Returns:
        the same model :func:`pybsnsing.bsnsing` returns on the same rows, with the
        attribute ``dask_info`` (:class:`DaskFitInfo`: seconds and bytes per level).

    Raises:
        PybsnsingImportError: dask/distributed missing (``pip install "pybsnsing[dask]"``).
        PybsnsingTypeError: ``data`` is not a Dask DataFrame.
        DataError: inconsistent partitions.
    """
    require("dask", "the Dask fit", "dask.dataframe")
    if not is_dask_frame(data):
        raise PybsnsingTypeError(
            f"data must be a dask.dataframe.DataFrame, not {type(data).__name__}")
    for nm, v in (("local_rows", local_rows), ("gather_limit", gather_limit)):
        if not isinstance(v, (int, np.integer)) or isinstance(v, bool) or v < 0:
            raise PybsnsingValueError(f"{nm} must be an integer >= 0, got {v!r}")
    c = _client_of(client)
    t_start = time.perf_counter()
    ctrl = resolve_control(control, **control_kwargs)
    info = DaskFitInfo(n_partitions=int(data.npartitions))
    head, levels, y_distinct, response = _levels_and_response(data, formula, collation)
    ylevels = list(response.levels)
    tmpl = _design_template(formula, head, levels, collation)
    names = list(tmpl.names)
    blocks, n_train = _design_blocks(c, data, formula, collation, levels, y_distinct, names,
                                     ylevels)
    blocks, tmpl.medians = _impute_blocks(c, blocks, names)
    if n_train == 0:
        raise PybsnsingValueError("data has no rows with a response")
    info.setup_seconds = time.perf_counter() - t_start
    codes = np.concatenate(c.gather([c.submit(lambda b: b.codes, b, pure=False)
                                     for b in blocks]))
    from ..api import call_text

    call = call_text(formula, ctrl, control_kwargs)

    opts = (local_rows, gather_limit, keep_obs, verbose, info, gather_questions)
    try:
        model = _fit_models(c, blocks, names, ctrl, tmpl, response, codes, n_train, call,
                            formula, opts)
    finally:
        c.cancel(blocks)
    info.total_seconds = time.perf_counter() - t_start
    model.dask_info = info
    return model


def _fit_models(c: Any, blocks: list, names: list[str], ctrl: BsControl, tmpl: Design,
                response: Any, codes: np.ndarray, n_train: int, call: str, formula: str,
                opts: tuple) -> Any:
    """The model of :func:`bsnsing_dask`: one tree for two classes, one tree per class
    (class against all others) otherwise. ``opts``: (local_rows, gather_limit, keep_obs,
    verbose, info, gather_questions) of :class:`_DaskTree`."""
    ylevels = list(response.levels)

    def fit_one(cls: int | None, ycode: list) -> BsnsingModel:
        y01 = codes.astype(np.int64) if cls is None else (codes == cls).astype(np.int64)
        tree = _DaskTree(c, blocks, names, ctrl, cls, n_train, int(y01.sum()), *opts)
        nodes = tree.grow()
        return BsnsingModel(nodes=nodes, ycode=ycode, y=y01, control=ctrl,
                            node_size=tree.node_size, design=tmpl, call=call, formula=formula)

    if len(ylevels) == 2:
        return fit_one(None, ylevels)
    trees = [fit_one(k, ["all.other", ylevels[k]]) for k in range(len(ylevels))]
    resp = dataclasses.replace(response, codes=codes.astype(np.int64),
                               labels=np.asarray(ylevels, dtype=object)[codes])
    prior, changed = class_priors(resp)
    if changed:  # stacklevel 3: the caller of bsnsing_dask
        warnings.warn(
            "class priors computed as R bsnsing 1.0.1 computes them for a numeric "
            f"response (by position, quirk Q11): the classes {changed} get other "
            "priors than their share; make the response a Categorical",
            DesignWarning, stacklevel=3)
    return MBsnsingModel(trees=trees, ylevels=ylevels, yprior=prior, call=call,
                         formula=formula)


def _levels_and_response(data: Any, formula: str, collation: str) -> tuple:
    """The global facts of a Dask frame: (its first row, the levels of its string
    columns, the distinct responses, the coded response), from the partitions' distinct
    values merged on the driver (no shuffle)."""
    import dask

    meta = data._meta
    str_cols = [col for col in meta.columns if isinstance(col, str) and (
        meta[col].dtype.kind == "O" or pd.api.types.is_string_dtype(meta[col].dtype))
        and not isinstance(meta[col].dtype, pd.CategoricalDtype)]
    head = data.head(1, npartitions=-1)
    if head.shape[0] == 0:
        raise PybsnsingValueError("data has no rows")
    response_name = parse_formula(formula, [col for col in meta.columns
                                            if isinstance(col, str)]).response
    uniq = {col: data[col].map_partitions(_distinct, meta=meta[col]) for col in str_cols}
    y_uniq = data[response_name].map_partitions(_distinct, meta=meta[response_name])
    uniq_v, y_distinct = dask.compute(uniq, y_uniq)
    levels: dict[str, list[str]] = {}
    y_distinct = _distinct(y_distinct)
    for col, vals in uniq_v.items():
        vv = _distinct(vals).tolist()
        if col != response_name and all(isinstance(v, str) for v in vv):
            levels[col] = r_sort([str(v) for v in vv], collation)
    y_distinct = pd.Series(y_distinct).reset_index(drop=True)
    y_distinct.name = response_name
    return head, levels, y_distinct, code_response(y_distinct, collation=collation)


def _design_template(formula: str, head: pd.DataFrame, levels: dict[str, list[str]],
                     collation: str) -> Design:
    """The design of the first row with the global levels, without rows (medians NaN)."""
    with warnings.catch_warnings():  # one row: its factors take a single value
        warnings.simplefilter("ignore", DesignWarning)
        design, _ = build_design(formula, _to_categorical(head, levels), collation=collation)
    names = list(design.names)
    return Design(X=np.empty((0, len(names))), names=names,
                  medians=np.full(len(names), np.nan), terms=design.terms,
                  variables=design.variables, response_name=design.response_name,
                  factor_levels=design.factor_levels, transforms=design.transforms,
                  imputed=None)


def _design_blocks(c: Any, data: Any, formula: str, collation: str,
                   levels: dict[str, list[str]], y_distinct: pd.Series, names: list[str],
                   ylevels: list) -> tuple[list, int]:
    """The partitions' design blocks on the workers (row offsets set), and the rows."""
    from dask import delayed

    parts = data.to_delayed()
    blocks0 = [delayed(_design_part)(p, formula, collation, levels, y_distinct, names,
                                     ylevels) for p in parts]
    blocks0 = c.compute(blocks0)
    lens = c.gather([c.submit(_block_len, b, pure=False) for b in blocks0])
    offs = np.cumsum([0] + list(lens))[:-1].tolist()
    blocks = [c.submit(_set_offset, b, int(o), pure=False)
              for b, o in zip(blocks0, offs, strict=True)]
    return blocks, int(sum(lens))


def _impute_blocks(c: Any, blocks: list, names: list[str]) -> tuple[list, np.ndarray]:
    """Missing predictor values imputed with the training medians of the design columns,
    as the engine imputes them (exact: the present values of those columns are
    gathered); the blocks and the medians (NaN where nothing is missing)."""
    miss = sorted({int(j) for cols in c.gather([c.submit(_missing_cols, b, pure=False)
                                                 for b in blocks]) for j in cols})
    medians = np.full(len(names), np.nan)
    for j in miss:
        vals = np.concatenate(c.gather([c.submit(_present_values, b, j, pure=False)
                                        for b in blocks]))
        if vals.shape[0] == 0:
            raise PybsnsingValueError(
                f"predictor columns with only missing values: {[names[j]]}")
        medians[j] = float(np.median(vals))
    if miss:
        blocks = [c.submit(_impute, b, medians, pure=False) for b in blocks]
    return blocks, medians


def _predict_part(pdf: pd.DataFrame, model: Any, type: str, impute: bool) -> pd.Series:
    if pdf.shape[0] == 0:
        dtype = np.float64 if type == "prob" else object
        return pd.Series(np.empty(0, dtype=dtype), index=pdf.index, name="prediction")
    pred = model.predict(pdf, type=type, impute=impute)
    if getattr(pred, "ndim", 1) == 2:
        pred = list(pred)
    return pd.Series(pred, index=pdf.index, name="prediction")


def predict_dask(model: BsnsingModel | MBsnsingModel, data: Any, type: str = "prob",
                 impute: bool = False) -> Any:
    """``model.predict`` on a Dask DataFrame, partition by partition: a lazy Dask Series
    (call ``.compute()``).  Two-class models only for ``type="prob"``; string columns of
    the partitions are read as the training levels, as :meth:`BsnsingModel.predict`
    does."""
    require("dask", "predicting a Dask DataFrame", "dask.dataframe")
    if not is_dask_frame(data):
        raise PybsnsingTypeError(
            f"data must be a dask.dataframe.DataFrame, not {type(data).__name__}")
    if isinstance(model, MBsnsingModel) and type == "prob":
        raise PybsnsingValueError("predict_dask gives type='class' for a multi-class model "
                                  "(its probabilities are a matrix)")
    meta = pd.Series(np.empty(0, dtype=np.float64 if type == "prob" else object),
                     name="prediction")
    return data.map_partitions(_predict_part, model, type, impute, meta=meta)

