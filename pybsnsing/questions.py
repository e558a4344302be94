"""Binarization: turning a node's columns into yes/no questions (R's ``binarize``).

This mirrors ``binarize``, ``binarize.numeric`` and ``binarize.factor`` of R
bsnsing 1.0.1 (docs/r-quirks.md, *Questions at a node* and Q5, Q10, Q12):

* a *binary* column (every value 0 or 1 at the node) gives ``name==0`` and
  ``name==1`` (no quotes);
* a *numeric* column gives inequality questions ``name > c`` / ``name < c``
  from :func:`numeric_cuts`, ``c`` printed by :func:`~pybsnsing.rformat.format_r`;
  a perfectly separating column gives none (Q5) unless ``keep_perfect``;
* a *factor-like* column (a factor, or a non-binary numeric with at most
  ``num2factor`` distinct values at the node) gives ``name=='v'`` for EVERY value
  in order of first appearance (small ones included, as 1.0.1 does), plus one
  ``name%in%c('a','b')`` listing the values with fewer than ``bin_size`` rows
  (sorted ``table`` order); a numeric factor-like column gets both kinds.

Two details differ from bsnsing's development versions on GitHub and follow the
CRAN 1.0.1 source: a perfect separation with ``min(n1, n0) < node_size`` gives
no rule (``"empty"``), and the thinning of cuts never stops early, so more than
``segments`` cuts can remain.

Question order: all numeric columns' inequality questions (column by column,
``>`` cuts ascending then ``<`` cuts ascending), then all factor-like columns'
equality questions, then the binary columns' questions.

The answers in :class:`QuestionSet.B` use the EXACT cut doubles, as R's
question matrix does; re-evaluating the TEXT (see :mod:`pybsnsing.rules`) uses
the printed 15-digit value instead (Q6).
"""

from __future__ import annotations

import functools
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, NamedTuple, Protocol

import numpy as np
import pandas as pd

from ._coldstart import ready as compiled_ready
from ._lazy import LazyKernels
from .control import R_NAMES, control_default
from .errors import PybsnsingValueError
from .rformat import format_r, format_r_cached
from .rnames import quote_name, quote_string, read_quoted

if TYPE_CHECKING:
    from concurrent.futures import Executor

_packing = LazyKernels("packing")
_binarize = LazyKernels("binarize")
_sort_kernels = LazyKernels("sort")


__all__ = [
    "NumericCuts",
    "QuestionSet",
    "binarize",
    "binarize_numeric",
    "node_questions",
    "numeric_cuts",
]

_EMPTY = np.empty(0, dtype=np.float64)


class NumericCuts(NamedTuple):
    """Result of :func:`numeric_cuts` for one numeric column.

    ``kind`` is ``"cuts"``, ``"perfect"`` or ``"empty"``.  ``gt``/``lt`` hold the
    exact ``>`` and ``<`` cut doubles, ascending (empty unless ``kind == "cuts"``).
    For ``"perfect"``, ``perfect_op`` is ``">="`` or ``"<="`` and ``perfect_cut``
    the exact cut: R's rule string is ``f"{name} {perfect_op} {format_r(cut)}"``.
    """

    kind: str
    gt: np.ndarray
    lt: np.ndarray
    perfect_op: str = ""
    perfect_cut: float = float("nan")

    def texts(self, name: str) -> list[str]:
        """The question texts R writes for this result (column names or the rule)."""
        if self.kind == "perfect":
            return [f"{name} {self.perfect_op} {format_r(self.perfect_cut)}"]
        return [f"{name} > {format_r(c)}" for c in self.gt.tolist()] + [
            f"{name} < {format_r(c)}" for c in self.lt.tolist()
        ]


# ---------------------------------------------------------------------------
# validation helpers
# ---------------------------------------------------------------------------


def _as_y(y: Any, n: int) -> np.ndarray:
    """Validate a 0/1 response of length ``n``; return it as int8."""
    arr = np.asarray(y)
    if arr.ndim != 1:
        raise PybsnsingValueError(f"y must be one-dimensional, got shape {arr.shape}")
    if arr.shape[0] != n:
        raise PybsnsingValueError(f"length(x) and length(y) do not match: {n} != {arr.shape[0]}")
    if arr.dtype == bool:
        return arr.astype(np.int8)
    if arr.dtype.kind not in "iuf":
        raise PybsnsingValueError(f"y must be numeric 0/1, got dtype {arr.dtype}")
    if arr.dtype.kind == "f" and np.isnan(arr).any():
        raise PybsnsingValueError("y contains missing values")
    if not np.isin(arr, (0, 1)).all():
        raise PybsnsingValueError("y must contain only the values 0 and 1")
    return arr.astype(np.int8)


def _check_target(target: Any) -> int:
    if target not in (0, 1):
        raise PybsnsingValueError(f"Invalid 'target' argument {target!r}. Must be 0 or 1")
    return int(target)


def _check_two_classes(y: np.ndarray) -> None:
    n1 = int(y.sum())
    if n1 == 0 or n1 == y.shape[0]:
        raise PybsnsingValueError("There is only one unique value in y")


def r_segments(segments: float) -> int:
    """``binarize.numeric``: segments below 3 become 3, then ``round()``."""
    s = max(float(segments), 3.0)
    return int(np.rint(s))


# ---------------------------------------------------------------------------
# numeric columns
# ---------------------------------------------------------------------------


def numeric_cuts(
    x: np.ndarray,
    y: np.ndarray,
    target: int,
    segments: float = 20,
    node_size: int = 10,
    *,
    order: np.ndarray | None = None,
) -> NumericCuts:
    """The core of R's ``binarize.numeric`` (docs/r-quirks.md, *Questions at a node*).

    Args:
        x: the node's values of one numeric column (no NaN).
        y: the node's 0/1 response, same length, both classes present.
        target: the class the cuts are built for (0 or 1).
        segments: ``nseg.numeric``: values below 3 become 3, then rounded half
            to even; the most cuts kept per direction (thinning).
        node_size: a perfect separation with fewer than ``node_size`` rows in
            the smaller class gives ``"empty"`` instead of ``"perfect"``.
        order: optionally, a precomputed STABLE ascending order of ``x``
            (``np.argsort(x, kind="stable")``), to save a sort.

    Returns:
        a :class:`NumericCuts`.
    """
    x = np.asarray(x, dtype=np.float64)
    if x.ndim != 1:
        raise PybsnsingValueError(f"x must be one-dimensional, got shape {x.shape}")
    n = x.shape[0]
    yv = _as_y(y, n)
    target = _check_target(target)
    if np.isnan(x).any():
        raise PybsnsingValueError("x contains missing values (NaN); impute them first")
    _check_two_classes(yv)
    if order is None:
        order = np.argsort(x, kind="stable")
    elif np.shape(order) != (n,):
        raise PybsnsingValueError(f"order has shape {np.shape(order)}, expected ({n},)")
    return _cuts_sorted(x[order], yv[order], target, r_segments(segments), node_size)


def _cuts_sorted(
    ox: np.ndarray, oy: np.ndarray, target: int, segs: int, node_size: float,
    ow: np.ndarray | None = None,
) -> NumericCuts:
    """:func:`numeric_cuts` on validated, stably sorted data (``ox`` ascending).

    ``ow``: the rows' weights in the same order (None: every row counts 1); the counts of
    the perfect-separation test and of the thinning are then sums of weights, as for the
    data with each row repeated ``w`` times.
    """
    n = ox.shape[0]
    is1 = oy == 1
    i1 = int(np.argmax(is1))
    j1 = n - 1 - int(np.argmax(is1[::-1]))
    i0 = int(np.argmin(is1))
    j0 = n - 1 - int(np.argmin(is1[::-1]))
    min1, max1 = float(ox[i1]), float(ox[j1])
    min0, max0 = float(ox[i0]), float(ox[j0])
    if (min0 < min1 and max0 < min1) or (min1 < min0 and max1 < min0):
        if ow is None:
            n1 = int(np.count_nonzero(is1))
            small = min(n1, n - n1)
        else:
            w1 = float(ow[is1].sum())
            small = min(w1, float(ow.sum()) - w1)
        if small < node_size:
            return NumericCuts("empty", _EMPTY, _EMPTY)
        if min0 < min1 and max0 < min1:
            return NumericCuts("perfect", _EMPTY, _EMPTY, ">=", (max0 + min1) / 2)
        return NumericCuts("perfect", _EMPTY, _EMPTY, "<=", (max1 + min0) / 2)

    # trim the useless ends: keep lo <= x <= up
    maxmin = max(min1, min0)
    minmax = min(max1, max0)
    i = int(np.searchsorted(ox, maxmin, side="left"))
    lo = ox[i - 1] if i > 0 else maxmin
    i = int(np.searchsorted(ox, minmax, side="right"))
    up = ox[i] if i < n else minmax
    start = int(np.searchsorted(ox, lo, side="left"))
    stop = int(np.searchsorted(ox, up, side="right"))
    xx = ox[start:stop]
    ty = is1[start:stop] if target == 1 else ~is1[start:stop]
    if xx.shape[0] < 2:  # R: stop("This should not happen.")
        raise RuntimeError("binarize.numeric: fewer than 2 points in the trimmed range")

    differ = xx[:-1] != xx[1:]
    gt_idx = np.flatnonzero(~ty[:-1] & ty[1:] & differ)
    lt_idx = np.flatnonzero(ty[:-1] & ~ty[1:] & differ)
    with np.errstate(invalid="ignore"):  # -Inf and Inf: NaN, as in R
        gt = (xx[gt_idx] + xx[gt_idx + 1]) / 2
        lt = (xx[lt_idx + 1] + xx[lt_idx]) / 2

    if gt.shape[0] > segs:
        gt = _thin(ox, gt, gt_idx + start, segs, greater=True, ow=ow)
    if lt.shape[0] > segs:
        lt = _thin(ox, lt, lt_idx + start, segs, greater=False, ow=ow)
    if gt.shape[0] + lt.shape[0] == 0:
        return NumericCuts("empty", _EMPTY, _EMPTY)
    return NumericCuts("cuts", gt, lt)


def _counts(ox: np.ndarray, cuts: np.ndarray, pos: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """#(ox < cut) and #(ox <= cut) for cuts that are midpoints of ox[pos], ox[pos + 1].

    Normally both counts are ``pos + 1``; when the two values are adjacent
    doubles the midpoint rounds onto one of them, and those few cuts are
    counted by binary search.
    """
    base = (pos + 1).astype(np.int64)
    cnt_lt = base.copy()
    cnt_le = base.copy()
    on_lo = cuts <= ox[pos]
    if on_lo.any():
        cnt_lt[on_lo] = np.searchsorted(ox, cuts[on_lo], side="left")
    on_hi = cuts >= ox[pos + 1]
    if on_hi.any():
        cnt_le[on_hi] = np.searchsorted(ox, cuts[on_hi], side="right")
    return cnt_lt, cnt_le


def _thin(
    ox: np.ndarray, cuts: np.ndarray, pos: np.ndarray, segs: int, *, greater: bool,
    ow: np.ndarray | None = None,
) -> np.ndarray:
    """R's thinning of an ascending cut list (docs/r-quirks.md, *Questions at a node*: thinning).

    ``pos[i]`` is the index in ``ox`` of the lower of the two values whose
    midpoint is ``cuts[i]``.  ``ow``: row weights in ``ox``'s order (None: counts).
    """
    n = ox.shape[0]
    cnt_lt, cnt_le = _counts(ox, cuts, pos)
    size = int  # R's round() of a count: half to even (np.rint), an int bin size
    if ow is not None:  # the same walk on cumulative weights (float64 counts and size)
        wcum = np.concatenate(([0.0], np.cumsum(ow, dtype=np.float64)))
        cnt_lt, cnt_le, n = wcum[cnt_lt], wcum[cnt_le], float(wcum[-1])
        size = float
    if greater:
        keep = _binarize.thin_gt_kernel(cnt_lt, cnt_le, size(np.rint(cnt_lt[-1] / segs)))
    else:
        keep = _binarize.thin_lt_kernel(cnt_lt, cnt_le, n, size(np.rint((n - cnt_le[0]) / segs)))
    # R: cutpoints[cutpoints %in% keep.cp]
    return cuts[np.isin(cuts, cuts[keep])]


def binarize_numeric(
    x: Any,
    name: str,
    y: Any,
    target: int,
    segments: float = 20,
    node_size: int = 10,
) -> tuple[str, list[str]]:
    """R's ``binarize.numeric`` as texts.

    Returns ``(kind, texts)``: ``("cuts", ["name > c", ..., "name < c", ...])``
    (``>`` cuts ascending, then ``<`` cuts ascending), ``("perfect", [rule])``
    with R's single rule string ``name >= c`` or ``name <= c``, or
    ``("empty", [])``.
    """
    res = numeric_cuts(np.asarray(x, dtype=np.float64), y, target, segments, node_size)
    return res.kind, res.texts(name)


# ---------------------------------------------------------------------------
# a whole node
# ---------------------------------------------------------------------------


#: Question kinds (:attr:`QuestionSet.kinds`): ``x > c``, ``x < c``, the perfect rules
#: ``x >= c`` / ``x <= c`` (``keep_perfect``), ``x=='v'``, ``x%in%c(...)``, and the two
#: questions ``x==0`` / ``x==1`` of a binary column.
GT, LT, GE, LE, EQ, IN, BIN0, BIN1 = range(8)
#: names of the kinds, indexed by kind code
KINDS = ("gt", "lt", "ge", "le", "eq", "in", "binary0", "binary1")
_INEQ_TEXT = (" > ", " < ", " >= ", " <= ")
#: ENUM group direction by kind (:meth:`QuestionSet.group_keys`): 0 for > and >=, 1 for <
#: and <=, -1 for the others
_DIRECTION = np.array([0, 1, 0, 1, -1, -1, -1, -1], np.int64)


class _Ranges(NamedTuple):
    """Which rows answer each question YES, as ranges of the columns' sorted orders.

    ``ordm[j]`` is column j's stable ascending order of row ids; question q's YES rows are
    ``ordm[cols[q], rlo[r]:rhi[r]]`` for ``r`` in ``rptr[q]:rptr[q + 1]``, together with
    those of its base question ``base[q]`` (-1: none), a question of the same column
    whose YES rows are a subset.  ``proc`` lists the questions so that every base comes
    before the questions built on it.
    """

    ordm: np.ndarray
    base: np.ndarray
    rptr: np.ndarray
    rlo: np.ndarray
    rhi: np.ndarray
    proc: np.ndarray


class NodeRows(NamedTuple):
    """Where a tree node's rows are, for a :class:`QuestionSource` to write its answers.

    ``ordm``: (p, n) int64, per design column the node's row ids in stable ascending
    order; ``rows``: the node's row ids, increasing; ``slot``: class-wise bit slot by row
    id (:func:`pybsnsing.kernels.packing.node_slots`; set before :meth:`~QuestionSource.
    pack_node`); ``local``: row id -> position in ``rows`` (set before
    :meth:`~QuestionSource.dense_node`).
    """

    ordm: np.ndarray
    rows: np.ndarray
    slot: np.ndarray
    local: np.ndarray


class QuestionSource(Protocol):
    """A node's candidate questions from one source, as the tree's search uses them.

    The sources are the internal questions (:class:`QuestionSet`), the native rpart
    questions (:class:`pybsnsing.external.NodeExternal`) and R's rpart questions
    (:class:`pybsnsing.external.ExternalQuestionSet`); the tree concatenates them
    without knowing which is which, as rpart's ``bsplit.c`` calls its method table.
    """

    @property
    def m(self) -> int:
        """Number of questions."""
        ...

    def text(self, k: int) -> str:
        """The text R writes for question ``k``."""
        ...

    def group_keys(self) -> tuple[np.ndarray, np.ndarray] | None:
        """ENUM group keys ``(var, direction)`` (see :meth:`QuestionSet.group_keys`), or
        None when only the texts can tell."""
        ...

    def pack_node(self, node: NodeRows, Xp: np.ndarray, Xn: np.ndarray, offset: int,
                  share: Executor | None = None) -> None:
        """Bit-pack the answers into rows ``offset ..`` of ``Xp``/``Xn`` (zeroed; the
        layout of :mod:`pybsnsing.kernels.packing`). ``share``: an idle thread pool that
        may take part of the work (the call returns when all of it is done)."""
        ...

    def dense_node(self, node: NodeRows) -> np.ndarray:
        """The (n, m) uint8 answers, rows in ``node.rows`` order."""
        ...


class QuestionSet:
    """The candidate questions of one node, as structure; texts are made on demand.

    Each question ``k`` is described by its source column ``cols[k]``, its kind
    ``kinds[k]`` (one of :data:`KINDS`: ``gt``/``lt`` cuts, the perfect rules ``ge``/``le``,
    ``eq``, ``in``, ``binary0``/``binary1``) and ``values[k]``, the exact cut (``gt``,
    ``lt``, ``ge``, ``le``) or the exact value / level code (``eq``; NaN otherwise).  The
    answers use these exact doubles, as R's question matrix does; the printed texts
    (:attr:`texts`, :meth:`text`) are what R writes, and re-evaluating a text (see
    :mod:`pybsnsing.rules`) uses the printed 15-digit value instead (Q6).

    Attributes:
        B: ``uint8`` matrix (n rows x m questions, Fortran order) of answers, or n x 0
            when it was not requested.
        cols: int64, the input column of each question.
        kinds: int8 kind codes.
        values: float64 exact cut or value.
        names: the input column names.
    """

    def __init__(
        self,
        B: np.ndarray,
        cols: np.ndarray | None = None,
        *,
        kinds: np.ndarray | None = None,
        values: np.ndarray | None = None,
        names: Sequence[str] | None = None,
        labels: dict[int, Any] | None = None,
        ranges: _Ranges | None = None,
        xsrc: np.ndarray | None = None,
    ) -> None:
        self.B = B
        self._texts: list[str] | None = None
        m = 0 if kinds is None else int(kinds.shape[0])
        self.cols = np.empty(0, np.int64) if cols is None else np.asarray(cols, np.int64)
        self.kinds = np.full(m, -1, np.int8) if kinds is None else kinds
        self.values = np.full(m, np.nan) if values is None else values
        self.names = [] if names is None else list(names)
        self._labels = {} if labels is None else labels
        self._ranges = ranges
        # the values by row id of numeric columns (with ``ranges``): the labels of their
        # ``==`` / ``%in%`` questions are made from it when a text needs them
        self._xsrc = xsrc

    @property
    def m(self) -> int:
        """Number of questions."""
        return int(self.kinds.shape[0])

    def text(self, k: int) -> str:
        """The text R writes for question ``k``."""
        kind = int(self.kinds[k])
        name = self.names[int(self.cols[k])]
        if kind <= LE:
            return name + _INEQ_TEXT[kind] + format_r(float(self.values[k]))
        if kind == EQ:
            return f"{name}=={quote_string(self._label(k))}"
        if kind == IN:
            return f"{name}%in%c(" + ",".join(quote_string(lab) for lab in self._label(k)) + ")"
        return f"{name}=={kind - BIN0}"

    def _label(self, k: int) -> Any:
        """The label of question ``k`` (``eq``: the value's, ``in``: a tuple of them)."""
        lab = self._labels.get(k)
        if lab is not None or self._xsrc is None:
            return self._labels[k] if lab is None else lab
        if int(self.kinds[k]) == EQ:
            return format_r_cached(float(self.values[k]))
        # the %in% values: the first value of each of its runs, ascending
        r = self._require_ranges()
        j = int(self.cols[k])
        rows = r.ordm[j].take(r.rlo[r.rptr[k]:r.rptr[k + 1]])
        return tuple(format_r_cached(v) for v in self._xsrc[:, j].take(rows).tolist())

    @property
    def texts(self) -> list[str]:
        """All m question texts, exactly as R writes them (made on first access)."""
        if self._texts is None:
            self._texts = [self.text(k) for k in range(self.m)]
        return self._texts

    def group_keys(self) -> tuple[np.ndarray, np.ndarray] | None:
        """ENUM group keys ``(var, direction)`` without the texts, or None.

        ``direction`` is 0 for ``>``/``>=`` questions, 1 for ``<``/``<=`` and -1 (own
        group, ``var`` -1) for the others: what :func:`pybsnsing.search.question_groups`
        derives from the texts, provided no text holds a ``<`` or ``>`` other than its
        operator and the column names are distinct and free of surrounding white space.
        None when that does not hold (then use the texts).
        """
        if not plain_names(self.names):
            return None
        for lab in self._labels.values():  # (numeric labels are never in _labels)
            labs = (lab,) if isinstance(lab, str) else lab
            if any(("<" in t or ">" in t) for t in labs):
                return None
        direction = _DIRECTION.take(self.kinds)
        var = np.where(direction >= 0, self.cols, -1)
        return var, direction

    def pack(self, slot: np.ndarray, Xp: np.ndarray, Xn: np.ndarray) -> None:
        """Bit-pack the answers into rows ``0..m-1`` of ``Xp``/``Xn`` (see
        :func:`pybsnsing.kernels.packing.pack_questions`; ``slot`` by row id)."""
        r = self._require_ranges()
        _packing.pack_questions(r.ordm, slot, self.cols, r.base, r.rptr, r.rlo, r.rhi, r.proc,
                                Xp, Xn)

    def dense(self, local: np.ndarray, n: int) -> np.ndarray:
        """The n x m ``uint8`` answer matrix (Fortran order); row ``local[i]`` is row id
        ``i`` of the orders the set was built from."""
        r = self._require_ranges()
        BT = np.zeros((self.m, n), dtype=np.uint8)
        if self.m:
            _packing.fill_dense(r.ordm, np.asarray(local, dtype=np.int64), self.cols, r.base,
                                r.rptr, r.rlo, r.rhi, r.proc, BT)
        return BT.T

    def pack_node(self, node: NodeRows, Xp: np.ndarray, Xn: np.ndarray, offset: int,
                  share: Executor | None = None) -> None:
        """:meth:`QuestionSource.pack_node` (the set was built from ``node.ordm``). With
        ``share``, the questions of the columns after the middle question are packed in
        its thread (a question's base is of its own column: the halves write disjoint
        rows)."""
        pack_questions = _packing.pack_questions
        r = self._require_ranges()
        args = (r.ordm, node.slot, self.cols, r.base, r.rptr, r.rlo, r.rhi)
        out = (Xp[offset:], Xn[offset:])
        cut = _column_cut(self.cols, r.proc) if share is not None else 0
        if cut == 0:
            pack_questions(*args, r.proc, *out)
            return
        rest = share.submit(pack_questions, *args, r.proc[cut:], *out)
        pack_questions(*args, r.proc[:cut], *out)
        rest.result()

    def dense_node(self, node: NodeRows) -> np.ndarray:
        """:meth:`QuestionSource.dense_node`."""
        return self.dense(node.local, node.rows.shape[0])

    @property
    def ranges(self) -> _Ranges | None:
        """The answer ranges (see ``_Ranges``: ordm, base, rptr, rlo, rhi, proc), or None."""
        return self._ranges

    def _require_ranges(self) -> _Ranges:
        if self._ranges is None:
            raise PybsnsingValueError("this QuestionSet carries no answer ranges")
        return self._ranges


def plain_names(names: Sequence[str]) -> bool:
    """Distinct names without ``<``/``>`` and without surrounding white space (a name
    in backticks, as the design writes non-syntactic names, is always plain)."""
    return _plain_names(tuple(names))


@functools.lru_cache(maxsize=256)
def _plain_names(names: tuple[str, ...]) -> bool:  # (asked at every node of a tree)
    if len(set(names)) != len(names):
        return False
    return not any(("<" in t or ">" in t or t != t.strip()) and not _backticked(t)
                   for t in names)


def _backticked(name: str) -> bool:
    if len(name) < 2 or name[0] != "`":
        return False
    try:
        _, end = read_quoted(name, 0)
    except ValueError:
        return False
    return end == len(name)


class _Block(NamedTuple):
    """The questions of one column in one section (indices local to the block)."""

    col: int
    kinds: np.ndarray
    values: np.ndarray
    base: np.ndarray
    rcount: np.ndarray
    rlo: np.ndarray
    rhi: np.ndarray
    proc: np.ndarray
    labels: dict[int, Any]


_I64 = np.int64


def _ineq_block(j: int, ox: np.ndarray, gt: np.ndarray, lt: np.ndarray) -> _Block:
    """The ``>`` cuts (ascending, nested suffixes) and ``<`` cuts (nested prefixes)."""
    n = ox.shape[0]
    g, l = gt.shape[0], lt.shape[0]
    m = g + l
    lo = np.searchsorted(ox, gt, side="right").astype(_I64)  # x > c: positions lo..n-1
    hi = np.searchsorted(ox, lt, side="left").astype(_I64)  # x < c: positions 0..hi-1
    kinds = np.empty(m, np.int8)
    kinds[:g] = GT
    kinds[g:] = LT
    base = np.empty(m, _I64)
    rlo = np.empty(m, _I64)
    rhi = np.empty(m, _I64)
    if g:
        base[: g - 1] = np.arange(1, g)
        base[g - 1] = -1
        rlo[:g] = lo
        rhi[: g - 1] = lo[1:]
        rhi[g - 1] = n
    if l:
        base[g] = -1
        base[g + 1 :] = np.arange(g, m - 1)
        rlo[g] = 0
        rlo[g + 1 :] = hi[:-1]
        rhi[g:] = hi
    proc = np.concatenate((np.arange(g - 1, -1, -1, dtype=_I64), np.arange(g, m, dtype=_I64)))
    return _Block(j, kinds, np.concatenate((gt, lt)), base, np.ones(m, _I64), rlo, rhi, proc,
                  {})


def _single_block(j: int, kinds: list[int], values: list[float], lo: list[int],
                  hi: list[int]) -> _Block:
    """Questions with one range each and no base."""
    m = len(kinds)
    return _Block(j, np.array(kinds, np.int8), np.array(values, np.float64),
                  np.full(m, -1, _I64), np.ones(m, _I64), np.array(lo, _I64),
                  np.array(hi, _I64), np.arange(m, dtype=_I64), {})


def _factor_block(
    j: int,
    name: str,
    ordj: np.ndarray,
    ox: np.ndarray,
    starts: np.ndarray,
    bin_size: int,
    levels: list[str] | None,
    ow: np.ndarray | None = None,
) -> _Block:
    """R 1.0.1's ``binarize.factor`` for one factor-like numeric or true factor column.

    ``levels`` is None for a numeric column (labels are ``format_r`` of the values;
    ``table`` sorts the values numerically) and the level labels for a true factor
    (``table`` lists every level, used or not, in level order, so an unused level counts
    as a small one).  An ``eq`` question for EVERY value in order of first appearance
    (small ones included, as 1.0.1 does: "Keep the small level bucket anyway"; values
    that print alike share one question, see below), then one
    ``in`` question for the values with fewer than ``bin_size`` rows, if any.
    """
    n = ox.shape[0]
    values = ox[starts]  # sorted distinct values (or codes)
    ends = np.append(starts[1:], n)  # (np.r_ costs ~30 us a call)
    counts = ends - starts
    if ow is not None:  # weighted: a value's count is the weight of its rows
        wcum = np.concatenate(([0.0], np.cumsum(ow, dtype=np.float64)))
        counts = wcum[ends] - wcum[starts]
    first_row = ordj[starts]  # stable sort: first row of each run = first appearance
    appear = np.argsort(first_row, kind="stable")
    if levels is None:
        labels = [format_r_cached(v) for v in values.tolist()]
        # table(x, y): levels are unique(as.character(sort(unique(x))))
        tab: dict[str, int] = {}
        for lab, c in zip(labels, counts.tolist(), strict=True):
            tab[lab] = tab.get(lab, 0) + c
        small = [lab for lab, c in tab.items() if c < bin_size]
    else:
        labels = [levels[int(v)] for v in values]
        cnt_by_code = dict(zip(values.astype(np.int64).tolist(), counts.tolist(), strict=True))
        small = [lab for c, lab in enumerate(levels) if cnt_by_code.get(c, 0) < bin_size]
    # R assigns bx[text] <- (x == value) for each value in order of first appearance:
    # two values that print alike (15 significant digits) share ONE column, at the first
    # one's place, answering for the later value (the later assignment overwrites).
    slot: dict[str, int] = {}
    vals: list[float] = []
    lo: list[int] = []
    hi: list[int] = []
    lab_of: dict[int, Any] = {}
    for uu in appear.tolist():
        lab = labels[uu]
        q = slot.setdefault(lab, len(vals))
        if q == len(vals):
            vals.append(0.0)
            lo.append(0)
            hi.append(0)
            lab_of[q] = lab
        vals[q], lo[q], hi[q] = float(values[uu]), int(starts[uu]), int(ends[uu])
    k = len(vals)
    kinds = [EQ] * k
    rcount = [1] * k
    if small:
        small_set = set(small)
        runs = [v for v in range(len(values)) if labels[v] in small_set]
        kinds.append(IN)
        vals.append(np.nan)
        lo.extend(int(starts[v]) for v in runs)
        hi.extend(int(ends[v]) for v in runs)
        rcount.append(len(runs))
        lab_of[k] = tuple(small)
    m = len(kinds)
    return _Block(j, np.array(kinds, np.int8), np.array(vals, np.float64),
                  np.full(m, -1, _I64), np.array(rcount, _I64), np.array(lo, _I64),
                  np.array(hi, _I64), np.arange(m, dtype=_I64), lab_of)


def _check_nseg_factor(name: str, nuniq: int, nseg_factor: int) -> None:
    if nuniq > nseg_factor:
        raise PybsnsingValueError(
            f"Factor {name} has more levels than allowed segments "
            f"({nuniq} distinct values at the node > nseg_factor = {nseg_factor})."
        )


def _run_starts(ox: np.ndarray) -> np.ndarray:
    n = ox.shape[0]
    if n == 0:
        return np.empty(0, _I64)
    d = np.empty(n, dtype=bool)
    d[0] = True
    np.not_equal(ox[1:], ox[:-1], out=d[1:])
    return np.flatnonzero(d)


def _true_factor_block(j: int, name: str, ordj: np.ndarray, ox: np.ndarray,
                       levels: list[str], nseg_factor: int, bin_size: int,
                       ow: np.ndarray | None) -> tuple[int, _Block]:
    """The block of a true factor column (values are level codes) and its section in R's
    question order (2: binary, labels 0/1; 1: factor)."""
    n = ox.shape[0]
    starts = _run_starts(ox)
    codes = ox[starts]
    if (codes < 0).any() or (codes >= len(levels)).any() or (codes % 1 != 0).any():
        raise PybsnsingValueError(f"factor column {name!r} holds invalid level codes")
    if all(levels[int(c)] in ("0", "1") for c in codes):
        # R's binary test sees the labels: a factor with labels 0/1 is binary
        ends = np.append(starts[1:], n)
        hits = [[u for u, c in enumerate(codes.tolist()) if levels[int(c)] == v]
                for v in ("0", "1")]
        return 2, _Block(
            j, np.array([BIN0, BIN1], np.int8), np.array([0.0, 1.0]),
            np.full(2, -1, _I64), np.array([len(h) for h in hits], _I64),
            starts[hits[0] + hits[1]].astype(_I64), ends[hits[0] + hits[1]].astype(_I64),
            np.arange(2, dtype=_I64), {})
    _check_nseg_factor(name, starts.shape[0], nseg_factor)
    return 1, _factor_block(j, name, ordj, ox, starts, bin_size, levels, ow)


def _numeric_blocks(sec: tuple[list[_Block], list[_Block], list[_Block]], j: int, name: str,
                    ordj: np.ndarray, ox: np.ndarray, y: np.ndarray, target: int, *,
                    segments: int, num2factor: int, nseg_factor: int, bin_size: int,
                    node_size: float, keep_perfect: bool, ow: np.ndarray | None) -> None:
    """Append the blocks of a numeric column to the sections of R's question order
    (0: inequalities, 1: factor-like equalities, 2: binary)."""
    n = ox.shape[0]
    lo_v, hi_v = ox[0], ox[-1]
    if (lo_v == 0.0 or lo_v == 1.0) and (hi_v == 0.0 or hi_v == 1.0):
        # at most the two values 0 and 1 when no value lies strictly between
        k0 = int(np.searchsorted(ox, 0.0, side="right"))
        k1 = int(np.searchsorted(ox, 1.0, side="left"))
        if k0 == k1:  # x==0: the first k0 positions, x==1: the rest
            sec[2].append(_single_block(j, [BIN0, BIN1], [0.0, 1.0], [0, k0], [k0, n]))
            return
    oy = y.take(ordj)
    res = _cuts_sorted(ox, oy, target, segments, node_size, ow)
    if res.kind == "cuts":
        sec[0].append(_ineq_block(j, ox, res.gt, res.lt))
    elif res.kind == "perfect" and keep_perfect:
        c = res.perfect_cut
        if res.perfect_op == ">=":
            blk = _single_block(j, [GE], [c], [int(np.searchsorted(ox, c, "left"))], [n])
        else:
            blk = _single_block(j, [LE], [c], [0], [int(np.searchsorted(ox, c, "right"))])
        sec[0].append(blk)
    nuniq = 1 + int(np.count_nonzero(ox[1:] != ox[:-1])) if n else 0
    if nuniq <= num2factor:
        _check_nseg_factor(name, nuniq, nseg_factor)
        sec[1].append(_factor_block(j, name, ordj, ox, _run_starts(ox), bin_size, None, ow))


def question_set_from_orders(
    X: np.ndarray,
    y: np.ndarray,
    ordm: np.ndarray,
    names: Sequence[str],
    target: int,
    *,
    segments: int,
    num2factor: int,
    nseg_factor: int,
    bin_size: int,
    node_size: float,
    factor_levels: dict[int, list[str]] | None = None,
    keep_perfect: bool = False,
    weights: np.ndarray | None = None,
    ordv: np.ndarray | None = None,
) -> QuestionSet:
    """The questions of a node from the stable sorted orders of its columns (the core of
    :func:`node_questions`, used directly by the tree grower).

    Args:
        X: values by row id (ids x p, best Fortran order); only the rows in ``ordm`` are
            read.
        y: 0/1 labels by row id (original coding; both classes present at the node).
        ordm: (p, n) int64, row ``j`` the node's row ids sorted STABLY by column j, ties
            in node order (``ordm[j] = ids[np.argsort(X[ids, j], kind="stable")]`` for
            the node's ids in node order).
        names: the p column names.
        target: the split target, 0 or 1.
        segments: the already rounded ``nseg.numeric`` (see :func:`r_segments`).
        num2factor, nseg_factor, bin_size, node_size, keep_perfect: as
            :func:`node_questions`.
        factor_levels: ``{column: level labels}`` of the true factor columns (values
            are level codes).
        weights: row weights by row id (float64; None: every row counts 1). The counts
            of binarization (perfect separation against ``node_size``, the thinning of
            cuts, small factor values against ``bin_size``) are then sums of weights.
        ordv: (p, n) float64, the values in the order of ``ordm``
            (:func:`sorted_values`; None: read by row id). The tree grower splits it
            with ``ordm`` from node to node on large data, so that no node there reads
            its values by row id.

    Returns:
        a :class:`QuestionSet` with answer ranges (``B`` is n x 0; see
        :meth:`QuestionSet.pack` and :meth:`QuestionSet.dense`).
    """
    p, n = ordm.shape
    fcols = factor_levels or {}
    if weights is None and not fcols and n:
        qs = _numeric_question_set(X, y, ordm, ordv, names, target, segments=segments,
                                   num2factor=num2factor, nseg_factor=nseg_factor,
                                   bin_size=bin_size, node_size=node_size,
                                   keep_perfect=keep_perfect)
        if qs is not None:
            return qs
    sec: tuple[list[_Block], list[_Block], list[_Block]] = ([], [], [])
    for j in range(p):
        ordj = ordm[j]
        ox = X[:, j].take(ordj) if ordv is None else ordv[j]
        ow = None if weights is None else weights.take(ordj)
        name = names[j]
        if j in fcols:
            k, blk = _true_factor_block(j, name, ordj, ox, fcols[j], nseg_factor, bin_size, ow)
            sec[k].append(blk)
            continue
        _numeric_blocks(sec, j, name, ordj, ox, y, target, segments=segments,
                        num2factor=num2factor, nseg_factor=nseg_factor, bin_size=bin_size,
                        node_size=node_size, keep_perfect=keep_perfect, ow=ow)
    return _assemble([b for s in sec for b in s], ordm, names)


def _numeric_question_set(X: np.ndarray, y: np.ndarray, ordm: np.ndarray,
                          ordv: np.ndarray | None, names: Sequence[str], target: int, *,
                          segments: int, num2factor: float, nseg_factor: float, bin_size: float,
                          node_size: float, keep_perfect: bool) -> QuestionSet | None:
    """:func:`question_set_from_orders` for numeric, unweighted columns in one compiled
    call (:func:`pybsnsing.kernels.binarize.node_questions_kernel`); the value labels of
    the ``==`` / ``%in%`` questions are made when a text is asked for. None where the
    kernel defers to the column-by-column code (a factor-like column with two values
    that may print alike, a node without both classes, or a perfect rule to keep)."""
    if not compiled_ready("questions"):  # a first fit's child still compiles the kernel
        return None
    K = _binarize
    if not X.flags.f_contiguous or X.dtype != np.float64:
        X = np.asfortranarray(X, dtype=np.float64)
    if y.dtype != np.uint8:
        y = y.view(np.uint8) if y.dtype == np.int8 else y.astype(np.uint8)
    if not ordm.flags.c_contiguous or ordm.dtype != _I64:
        ordm = np.ascontiguousarray(ordm, dtype=_I64)
    ordv = kernel_values(ordv)
    n = ordm.shape[1]
    nf = n if num2factor >= n else max(int(num2factor), 0)
    cols, kinds, base, proc, rptr, values, rlo, rhi, status = K.node_questions_kernel(
        X, ordv, y, ordm, int(target), int(segments), float(node_size), float(num2factor), nf,
        float(bin_size), float(nseg_factor), bool(keep_perfect))
    code = int(status[0])
    if code == K.NQ_TRIMMED:  # R: stop("This should not happen.")
        raise RuntimeError("binarize.numeric: fewer than 2 points in the trimmed range")
    if code == K.NQ_NSEG_FACTOR:
        _check_nseg_factor(names[int(status[1])], int(status[2]), nseg_factor)
    if code != K.NQ_OK:
        return None
    m, r = int(status[3]), int(status[4])
    ranges = _Ranges(ordm, base[:m], rptr[: m + 1], rlo[:r], rhi[:r], proc[:m])
    return QuestionSet(_no_answers(n), cols[:m], kinds=kinds[:m].astype(np.int8),
                       values=values[:m], names=names, ranges=ranges, xsrc=X)


def _column_cut(cols: np.ndarray, proc: np.ndarray) -> int:
    """Where the processing order ``proc`` of questions of columns ``cols`` is cut in two
    at a change of column (the questions of a column come together in ``proc``): the
    change nearest its middle; 0 when all are of one column."""
    qc = cols[proc]
    change = np.flatnonzero(qc[1:] != qc[:-1]) + 1
    if change.size == 0:
        return 0
    return int(change[np.argmin(np.abs(change - proc.shape[0] // 2))])


def _no_answers(n: int) -> np.ndarray:
    return np.empty((n, 0), np.uint8)


def _assemble(blocks: list[_Block], ordm: np.ndarray, names: Sequence[str]) -> QuestionSet:
    """Concatenate the blocks (already in R's question order) into one QuestionSet."""
    if not blocks:
        e = np.empty(0, _I64)
        return QuestionSet(np.empty((ordm.shape[1], 0), np.uint8), e,
                           kinds=np.empty(0, np.int8), values=np.empty(0), names=names,
                           ranges=_Ranges(ordm, e, np.zeros(1, _I64), e, e, e))
    sizes = [b.kinds.shape[0] for b in blocks]
    offs = np.cumsum([0, *sizes])
    cols = np.repeat(np.array([b.col for b in blocks], _I64), sizes)
    base = np.concatenate([np.where(b.base >= 0, b.base + o, -1)
                           for b, o in zip(blocks, offs.tolist(), strict=False)])
    proc = np.concatenate([b.proc + o for b, o in zip(blocks, offs.tolist(), strict=False)])
    rcount = np.concatenate([b.rcount for b in blocks])
    rptr = np.zeros(rcount.shape[0] + 1, _I64)
    np.cumsum(rcount, out=rptr[1:])
    labels: dict[int, Any] = {}
    for b, o in zip(blocks, offs.tolist(), strict=False):
        for k, lab in b.labels.items():
            labels[o + k] = lab
    ranges = _Ranges(ordm, base, rptr, np.concatenate([b.rlo for b in blocks]),
                     np.concatenate([b.rhi for b in blocks]), proc)
    return QuestionSet(np.empty((ordm.shape[1], 0), np.uint8), cols,
                       kinds=np.concatenate([b.kinds for b in blocks]),
                       values=np.concatenate([b.values for b in blocks]), names=names,
                       labels=labels, ranges=ranges)


def _factor_map(factor_cols: Sequence[int] | None,
                factor_levels: Sequence[Sequence[Any]] | None) -> dict[int, list[str]]:
    """``{column: level labels}`` of :func:`node_questions`' factor columns."""
    fcols: dict[int, list[str]] = {}
    if factor_cols is not None:
        if factor_levels is None or len(factor_levels) != len(factor_cols):
            raise PybsnsingValueError("factor_levels must give the levels of every factor column")
        for j, levs in zip(factor_cols, factor_levels, strict=True):
            fcols[int(j)] = [str(v) for v in levs]
    return fcols


#: from this many values on, :func:`stable_argsort` sorts doubles with the radix kernel
#: (and other numbers with numpy's unstable sort, ties repaired)
FAST_SORT_MIN = 4096


def stable_argsort(x: np.ndarray, values: np.ndarray | None = None,
                   out: np.ndarray | None = None) -> np.ndarray:
    """``np.argsort(x, kind="stable")`` of a 1-d numeric array, the same permutation
    faster. Doubles: the stable radix sort of :func:`pybsnsing.kernels.sort.radix_argsort`
    (1M doubles, 2-core VM: 35-42 ms, against 92-130 ms for numpy's unstable sort and
    the gather of the sorted values). Other numbers: numpy's unstable sort (SIMD on
    x86), then the equal values (and NaNs, which sort last) put back in index order by
    one sort of (run, index) keys when there are any. Below :data:`FAST_SORT_MIN`
    values numpy's stable sort itself.

    ``values`` (optional, ``x``'s length and dtype): receives ``x`` in that order, the
    sorted values, bit for bit (``-0.0`` and ``0.0`` tie but differ). ``out``
    (optional, int64, ``x``'s length): receives the order, which is returned."""
    x = np.asarray(x)
    n = x.shape[0]
    for a, what in ((values, "values"), (out, "out")):
        if a is not None and a.shape != (n,):
            raise ValueError(f"{what} has shape {a.shape}, the sort {(n,)}")
    if (n >= FAST_SORT_MIN and x.dtype == np.float64 and n < _sort_kernels.RADIX_MAX_ROWS):
        o = out if _kernel_ready(out, np.int64) else np.empty(n, np.int64)
        v = values if values is None or _kernel_ready(values, np.float64) else np.empty(n)
        _sort_kernels.radix_argsort(np.ascontiguousarray(x), o,
                                    _NO_SORTED_VALUES if v is None else v)
        if v is not values:
            values[...] = v
    else:
        if n < FAST_SORT_MIN or x.dtype.kind not in "fiu" or n > 3_000_000_000:
            o = np.argsort(x, kind="stable")
        else:
            o = _repaired_argsort(x, values)
        if values is not None:
            np.take(x, o, out=values, mode="clip")
    if out is None or o is out:
        return o
    out[...] = o
    return out


def _repaired_argsort(x: np.ndarray, values: np.ndarray | None) -> np.ndarray:
    """:func:`stable_argsort` by numpy's unstable sort, ties put back in index order
    (``values``, when given, is used as scratch for the sorted values)."""
    n = x.shape[0]
    o = np.argsort(x, kind="quicksort")
    # (mode "clip": the ids are in range, and "raise" buffers the output)
    xs = np.take(x, o, out=values, mode="clip") if values is not None else x[o]
    tie = xs[1:] == xs[:-1]
    if x.dtype.kind == "f":
        nan = np.isnan(xs[-1:])
        if nan[0]:  # the trailing NaNs are one run
            tie |= np.isnan(xs[1:]) & np.isnan(xs[:-1])
    if not tie.any():
        return o
    run = np.empty(n, np.int64)
    run[0] = 0
    np.cumsum(~tie, out=run[1:])
    key = run * n + o
    key.sort()
    return key % n


#: "no sorted values" for the radix sort
_NO_SORTED_VALUES = np.empty(0, np.float64)


def _kernel_ready(a: np.ndarray | None, dtype: type) -> bool:
    """Whether the kernels can write ``a`` in place (given, C-contiguous, ``dtype``)."""
    return a is not None and a.dtype == dtype and a.flags.c_contiguous and a.flags.writeable


#: "no sorted values" for the kernels that take them (they then read the values by row id)
NO_VALUES = np.empty((0, 0), dtype=np.float64)


def kernel_values(ordv: np.ndarray | None) -> np.ndarray:
    """A node's sorted values as the kernels take them: C-ordered float64, or
    :data:`NO_VALUES` for None (the kernels then read the values by row id)."""
    if ordv is None:
        return NO_VALUES
    return np.ascontiguousarray(ordv, dtype=np.float64)


def sorted_values(X: np.ndarray, ordm: np.ndarray) -> np.ndarray:
    """(p, n), ``X``'s dtype: ``X[ordm[j], j]`` in each row ``j``, the values of a node's
    columns in the order of its sorted lists ``ordm`` (row ids of ``X``, n x p)."""
    p, n = ordm.shape
    out = np.empty((p, n), dtype=np.asarray(X).dtype)
    for j in range(p):
        # mode "clip": the ids are in range, and "raise" (the default) buffers ``out``
        # (3-4x slower on a million rows)
        np.take(X[:, j], ordm[j], out=out[j], mode="clip")
    return out


def _order_matrix(X: np.ndarray, orders: Sequence[np.ndarray | None] | None) -> np.ndarray:
    """(p, n) stable sort orders of the columns of ``X``; a given ``orders[j]`` is used as
    it is (checked for its shape only)."""
    n, p = X.shape
    ordm = np.empty((p, n), dtype=_I64)
    for j in range(p):
        order = orders[j] if orders is not None else None
        if order is None:
            stable_argsort(X[:, j], out=ordm[j])
        else:
            if np.shape(order) != (n,):
                raise PybsnsingValueError(
                    f"orders[{j}] has shape {np.shape(order)}, expected ({n},)")
            ordm[j] = order
    return ordm


def node_questions(
    X: np.ndarray,
    names: Sequence[str],
    y: Any,
    target: int,
    *,
    num2factor: int = 10,
    nseg_numeric: float = 20,
    nseg_factor: int = 20,
    bin_size: int = 5,
    node_size: int = 1,
    factor_cols: Sequence[int] | None = None,
    factor_levels: Sequence[Sequence[str]] | None = None,
    keep_perfect: bool = False,
    orders: Sequence[np.ndarray | None] | None = None,
    with_matrix: bool = True,
) -> QuestionSet:
    """All candidate questions of one node, like R's ``binarize`` (docs/r-quirks.md).

    Args:
        X: the node's rows of the design matrix, float64 (n x p), no NaN.
        names: the p column names.
        y: the node's 0/1 response (original coding); both classes present.
        target: the node's majority class (the split target), 0 or 1.
        num2factor: a non-binary numeric column with at most this many distinct
            values at the node also gets equality questions.
        nseg_numeric: ``segments`` for the inequality cuts.
        nseg_factor: a factor(-like) column with more distinct values at the node
            is an error (as in R).
        bin_size: values/levels with fewer rows are pooled into one extra
            ``%in%`` question.
        node_size: see :func:`numeric_cuts` (matters only for the perfect rule).
        factor_cols: indices of columns that are true factors; their X values
            are 0-based level codes into ``factor_levels``.
        factor_levels: for each entry of ``factor_cols``, the level labels in
            level order (all levels, used or not, as R's ``table`` lists them).
        keep_perfect: the fix of quirk Q5: a perfectly separating numeric column
            contributes its perfect rule (``x >= c`` / ``x <= c``) as a question
            instead of nothing.  Default False mirrors R.
        orders: optionally, per column, a precomputed STABLE ascending order of
            that column's node values (``np.argsort(X[:, j], kind="stable")``),
            e.g. maintained from a presort at the root; None entries are sorted
            here.  Saves the O(n log n) sorts.
        with_matrix: False skips building ``B`` (it is then n x 0).

    Returns:
        a :class:`QuestionSet` (texts made on first access).
    """
    X = np.asarray(X, dtype=np.float64)
    if X.ndim != 2:
        raise PybsnsingValueError(f"X must be two-dimensional, got shape {X.shape}")
    X = np.asfortranarray(X)  # contiguous columns: every pass below is per column
    n, p = X.shape
    names = list(names)
    if len(names) != p:
        raise PybsnsingValueError(f"{len(names)} names given for {p} columns")
    if orders is not None and len(orders) != p:
        raise PybsnsingValueError(f"{len(orders)} orders given for {p} columns")
    yv = _as_y(y, n)
    target = _check_target(target)
    if np.isnan(X).any():
        bad = [names[j] for j in range(p) if np.isnan(X[:, j]).any()]
        raise PybsnsingValueError(f"missing values (NaN) in column(s) {bad}; impute them first")
    _check_two_classes(yv)
    fcols = _factor_map(factor_cols, factor_levels)
    ordm = _order_matrix(X, orders)
    qs = question_set_from_orders(
        X, yv, ordm, names, target, segments=r_segments(nseg_numeric),
        num2factor=num2factor, nseg_factor=nseg_factor, bin_size=bin_size,
        node_size=node_size, factor_levels=fcols, keep_perfect=keep_perfect,
    )
    if with_matrix:
        qs.B = qs.dense(np.arange(n, dtype=_I64), n)
    return qs

# ---------------------------------------------------------------------------
# the public data-frame front end
# ---------------------------------------------------------------------------


#: binarize()'s node size when the control does not give one: 1, not R's default 0.
#: The two differ only when a class is empty at the node: R's binarize.numeric then
#: writes a "perfect" rule at +-Inf (min() of no values), pybsnsing writes none.
_BINARIZE_NODE_SIZE = 1


def _control_value(control: Any, name: str) -> Any:
    """A control value of ``binarize`` (Python or R name; missing: the table's default)."""
    default = _BINARIZE_NODE_SIZE if name == "node_size" else control_default(name)
    if control is None:
        return default
    if isinstance(control, dict):
        return control.get(name, control.get(R_NAMES[name], default))
    return getattr(control, name, default)


def binarize(
    x: pd.DataFrame,
    y: Any,
    target: int,
    control: Any = None,
    *,
    keep_perfect: bool = False,
) -> pd.DataFrame:
    """R's ``binarize(x, y, target, control)``: a DataFrame of 0/1 question columns.

    Args:
        x: the data.  Numeric and bool columns are numeric data (bool is 0/1, so
            binary); pandas categorical columns are factors with their
            categories as levels; object/string columns are factors with their
            sorted distinct values as levels (what R's ``read.csv(...,
            stringsAsFactors = TRUE)`` gives).  A column named ``(Intercept)`` is
            dropped, as in R.  Missing values are an error.
        y: the 0/1 response.
        target: 0 or 1.
        control: an object (e.g. ``BsControl``) or dict with ``bin_size``,
            ``nseg_numeric``, ``nseg_factor``, ``num2factor``, ``node_size``;
            None means R's defaults (5, 20, 20, 10, and node size 1).
        keep_perfect: see :func:`node_questions`.

    Returns:
        a DataFrame of ``uint8`` columns named by the question texts, in R's order.
    """
    if not isinstance(x, pd.DataFrame):
        x = pd.DataFrame(x)
    x = x.drop(columns=["(Intercept)"], errors="ignore")
    n = x.shape[0]
    names = [quote_name(str(c)) for c in x.columns]
    mat = np.empty((n, len(names)), dtype=np.float64)
    fcols: list[int] = []
    flevels: list[list[str]] = []
    for j, c in enumerate(x.columns):
        s = x[c]
        if isinstance(s.dtype, pd.CategoricalDtype):
            codes = s.cat.codes.to_numpy()
            if (codes < 0).any():
                raise PybsnsingValueError(f"missing values in factor column {names[j]!r}")
            mat[:, j] = codes
            fcols.append(j)
            flevels.append([str(v) for v in s.cat.categories])
        elif pd.api.types.is_bool_dtype(s.dtype):
            if s.isna().any():
                raise PybsnsingValueError(f"missing values in column {names[j]!r}")
            mat[:, j] = s.to_numpy(dtype=np.float64)
        elif pd.api.types.is_numeric_dtype(s.dtype):
            mat[:, j] = s.to_numpy(dtype=np.float64, na_value=np.nan)
        else:
            if s.isna().any():
                raise PybsnsingValueError(f"missing values in factor column {names[j]!r}")
            strs = s.astype(str).to_numpy()
            levels, codes = np.unique(strs, return_inverse=True)
            mat[:, j] = codes
            fcols.append(j)
            flevels.append(levels.tolist())
    qs = node_questions(
        mat,
        names,
        y,
        target,
        num2factor=_control_value(control, "num2factor"),
        nseg_numeric=_control_value(control, "nseg_numeric"),
        nseg_factor=_control_value(control, "nseg_factor"),
        bin_size=_control_value(control, "bin_size"),
        node_size=_control_value(control, "node_size"),
        factor_cols=fcols,
        factor_levels=flevels,
        keep_perfect=keep_perfect,
    )
    out = pd.DataFrame(qs.B, index=x.index, copy=False)
    out.columns = qs.texts
    return out
