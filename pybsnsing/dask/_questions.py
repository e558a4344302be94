"""A large node's internal questions from per-partition statistics (issue 20).

The engine's questions of a node (:func:`pybsnsing.questions.question_set_from_orders`)
read each column's STABLE sorted order of the node's rows.  Here the rows stay in their
partitions; the driver asks every partition for small statistics in a few rounds and
rebuilds exactly the same questions (same kinds, exact cut doubles, texts and order):

1. **stats** (one round): per column the node's min and max, per class min and max, the
   number of values strictly between 0 and 1 (the binary test) and, when a partition
   holds at most ``num2factor + 1`` distinct values, those values with their counts and
   first row id (the factor-like test and its ``==``/``%in%`` questions, in order of first
   appearance);
2. **buckets** (a few rounds): for each numeric column an exact histogram of the node's
   values: buckets ``(lo, hi]`` with their row count, class-1 count, smallest and largest
   value, refined (equal-width sub-buckets between the bucket's min and max) until every
   bucket holds at most ``cap`` rows or a single value.  The same round gives the
   predecessor of ``max(min1, min0)`` and the successor of ``min(max1, max0)`` (the
   trimming of ``binarize.numeric``).  The buckets give the exact sorted position of
   every bucket boundary: an exact distributed order statistic;
3. **runs** (as many rounds as needed, usually one to three): a cut of
   ``binarize.numeric`` lies between two adjacent distinct values (*runs*) where the
   label of the LAST row of the lower run (stable order: the largest row id) differs
   from that of the FIRST row of the upper run; thinning keeps the first cut at or after
   sorted positions that the driver computes as it goes (``bsize`` from the last cut).
   The driver walks the runs bucket by bucket and fetches, only where it walks, a
   mixed-class bucket's rows (value, row id, label; at most ``cap`` rows) or, for a
   single-valued bucket, the first and last row of the value.  A bucket of one class
   holds no cut inside, so it is never fetched (except when a cut rounds onto one of
   its values, which needs the run's count).  Buckets the thinning will probably visit
   are prefetched in the same round.

The driver never holds more than the buckets' table (a few thousand rows per column) and
the fetched buckets (``cap`` rows each, a few dozen per column).  :func:`build_questions`
takes a ``run_round(fn, request)`` callable that applies a worker function to every
partition's rows of the node, so the same code runs on a cluster and, in tests, on
in-memory parts.
"""

from __future__ import annotations

from collections.abc import Callable, Generator, Sequence
from typing import Any

import numpy as np
from numba import njit

from ..errors import PybsnsingValueError
from ..questions import BIN0, BIN1, EQ, GE, GT, IN, LE, LT, QuestionSet
from ..rformat import format_r_cached

__all__ = ["MERGE", "build_questions", "drive", "local_round", "merge_buckets", "merge_fetch",
           "merge_stats", "part_buckets", "part_fetch", "part_stats", "question_steps"]

#: equal-width buckets of the first histogram round, and sub-buckets per refined bucket
_FIRST_BUCKETS = 1024
_SUB_BUCKETS = 64
#: rows of a bucket the runs walk will probably read, narrowed by one more histogram
#: round before it is fetched (fetching a bucket moves its rows); and the rows fetched
#: around each bucket a walk asks for
_FINE_ROWS = 256
_AROUND_ROWS = 4 * _FINE_ROWS


def default_cap(n: int) -> int:
    """Most rows of a multi-valued bucket (what one fetch moves per bucket)."""
    return max(2048, n // 1024)


# ---------------------------------------------------------------------------------------
# worker side: ``x`` the node's values of one column (row order), ``y`` 0/1 labels,
# ``ids`` global row ids (increasing)


@njit(cache=True)
def _small_distinct(x, kmax):  # pragma: no cover - numba
    """The distinct values of ``x`` (first appearance order), their counts and first
    index, or empty arrays and False when there are more than ``kmax``."""
    vals = np.empty(kmax + 1, np.float64)
    cnts = np.zeros(kmax + 1, np.int64)
    first = np.zeros(kmax + 1, np.int64)
    k = 0
    for i in range(x.shape[0]):
        v = x[i]
        hit = -1
        for u in range(k):
            if vals[u] == v:
                hit = u
                break
        if hit < 0:
            if k == kmax:
                return vals[:0], cnts[:0], first[:0], False
            vals[k] = v
            first[k] = i
            hit = k
            k += 1
        cnts[hit] += 1
    return vals[:k], cnts[:k], first[:k], True


@njit(cache=True)
def _bucket_stats(idx, x, y, nb):  # pragma: no cover - numba
    """Per bucket: rows, class-1 rows, min and max value."""
    cnt = np.zeros(nb, np.int64)
    c1 = np.zeros(nb, np.int64)
    mn = np.full(nb, np.inf)
    mx = np.full(nb, -np.inf)
    for i in range(x.shape[0]):
        b = idx[i]
        cnt[b] += 1
        c1[b] += y[i]
        if x[i] < mn[b]:
            mn[b] = x[i]
        if x[i] > mx[b]:
            mx[b] = x[i]
    return cnt, c1, mn, mx


@njit(cache=True)
def _locate(x, edges):  # pragma: no cover - numba
    """``np.searchsorted(edges, x, side="left")`` (``edges`` sorted) from a guide table
    of equal-width slots over the finite edges and a short exact walk (x not NaN)."""
    ne = edges.shape[0]
    out = np.empty(x.shape[0], np.int64)
    a = 0
    while a < ne and not np.isfinite(edges[a]):
        a += 1
    b = ne - 1
    while b >= 0 and not np.isfinite(edges[b]):
        b -= 1
    if a > b or not edges[b] > edges[a] or not np.isfinite(edges[b] - edges[a]):
        for i in range(x.shape[0]):  # (no guide: no range, or one wider than DBL_MAX)
            out[i] = np.searchsorted(edges, x[i])
        return out
    lo = edges[a]
    span = edges[b] - lo
    G = 4 * ne
    guide = np.searchsorted(edges, lo + np.arange(G + 1) * (span / G))
    scale = G / span
    for i in range(x.shape[0]):
        v = x[i]
        f = (v - lo) * scale
        if f >= 0.0 and f < G:
            s = int(f)
        elif f >= G:
            s = G
        else:  # below the guide (or NaN: the walk finds the slot)
            s = 0
        k = guide[s]
        while k > 0 and v <= edges[k - 1]:
            k -= 1
        while k < ne and v > edges[k]:
            k += 1
        out[i] = k
    return out


@njit(cache=True)
def _col_stats(x, y):  # pragma: no cover - numba
    """Per column: min, max, per-class min and max, rows strictly between 0 and 1."""
    mn1 = np.inf
    mx1 = -np.inf
    mn0 = np.inf
    mx0 = -np.inf
    between = 0
    for i in range(x.shape[0]):
        v = x[i]
        if y[i] == 1:
            mn1 = min(mn1, v)
            mx1 = max(mx1, v)
        else:
            mn0 = min(mn0, v)
            mx0 = max(mx0, v)
        if v > 0.0 and v < 1.0:
            between += 1
    return min(mn1, mn0), max(mx1, mx0), mn1, mx1, mn0, mx0, between


@njit(cache=True)
def _pred_succ(x, a, b):  # pragma: no cover - numba
    """The largest value ``< a`` (-inf: none) and the smallest ``> b`` (inf: none)."""
    pred = -np.inf
    succ = np.inf
    for i in range(x.shape[0]):
        v = x[i]
        if v < a and v > pred:
            pred = v
        if v > b and v < succ:
            succ = v
    return pred, succ


def part_stats(cols: Callable[[int], np.ndarray], y: np.ndarray, ids: np.ndarray,
               req: dict) -> dict:
    """Round 1 on one partition: ``req = {"cols": [...], "kmax": num2factor + 1}``."""
    out: dict[int, Any] = {}
    if y.shape[0] == 0:
        return out
    for j in req["cols"]:
        x = cols(j)
        vals, cnts, first, ok = _small_distinct(x, int(req["kmax"]))
        mn, mx, mn1, mx1, mn0, mx0, between = _col_stats(x, y)
        out[j] = (float(mn), float(mx), float(mn1), float(mx1), float(mn0), float(mx0),
                  int(between), (vals, cnts, ids[first]) if ok else None)
    return out


def part_buckets(cols: Callable[[int], np.ndarray], y: np.ndarray, ids: np.ndarray,
                 req: dict) -> dict:
    """A histogram round on one partition: ``req[j] = (edges, a, b, rlo, rhi)``; bucket
    ``i`` is ``edges[i-1] < x <= edges[i]``; returns the non-empty buckets' (index,
    count, class-1 count, min, max), and (when ``a``/``b`` are given) the largest value
    ``< a`` and the smallest ``> b``.  A refinement round (``rlo``/``rhi`` given: the
    sorted disjoint intervals ``rlo < x <= rhi`` of the buckets being refined) counts
    only the rows in those intervals: the other buckets are unchanged."""
    out: dict[int, Any] = {}
    if y.shape[0] == 0:
        return out
    for j, (edges, a, b, rlo, rhi) in req.items():
        x = cols(j)
        idx = _locate(x, edges)
        cnt, c1, mn, mx = _bucket_stats(idx, x, y, edges.shape[0] + 1)
        nz = np.flatnonzero(cnt)
        if rlo is not None:  # only the buckets inside the refined intervals
            up = np.where(nz < edges.shape[0], edges[np.minimum(nz, edges.shape[0] - 1)],
                          np.inf)
            k = np.searchsorted(rlo, up, side="left") - 1
            ok = k >= 0
            ok[ok] = up[ok] <= rhi[k[ok]]
            nz = nz[ok]
        pred = succ = None
        if a is not None:
            pred, succ = _pred_succ(x, float(a), float(b))
            pred, succ = float(pred), float(succ)
        out[j] = (nz, cnt[nz], c1[nz], mn[nz], mx[nz], pred, succ)
    return out


def part_fetch(cols: Callable[[int], np.ndarray], y: np.ndarray, ids: np.ndarray,
               req: dict) -> dict:
    """A runs round on one partition: ``req[j] = (lo, hi, rows)``, sorted disjoint
    intervals ``lo < x <= hi``; for an interval with ``rows`` True its rows (value, row id,
    label), else (one value) its count and first and last row id and label."""
    out: dict[int, Any] = {}
    if y.shape[0] == 0:
        return out
    for j, (lo, hi, rows) in req.items():
        x = cols(j)
        k = _locate(x, lo) - 1
        if hi.shape[0] and hi[0] == -np.inf:  # the bucket of -Inf (edge -Inf: _edges)
            k[x == -np.inf] = 0
        ok = k >= 0
        ok[ok] = x[ok] <= hi[k[ok]]
        sel = np.flatnonzero(ok)
        ks = k[sel]
        want = rows[ks]
        rsel = sel[want]
        res_rows = (ks[want], x[rsel], ids[rsel], y[rsel].astype(np.int8))
        summ = {}
        ssel, sk = sel[~want], ks[~want]
        for kk in np.unique(sk).tolist():
            r = ssel[sk == kk]
            summ[kk] = (int(r.shape[0]), int(ids[r[0]]), int(y[r[0]]), int(ids[r[-1]]),
                        int(y[r[-1]]))
        out[j] = (res_rows, summ)
    return out


def _merge_columns(results: Sequence[dict], merge_column: Callable[[list], Any]) -> dict:
    """Several partitions' results of a round (dicts by column) as one partition's: the
    non-empty results' entries of each column merged by ``merge_column``."""
    results = [r for r in results if r]
    if len(results) <= 1:
        return results[0] if results else {}
    return {j: merge_column([r[j] for r in results]) for j in results[0]}


def merge_stats_column(st: list, kmax: int) -> tuple:
    """Several partitions' :func:`part_stats` entries of one column as one: ``(min, max,
    min and max of class 1, of class 0, #between, distinct values)``, the distinct values
    ``(values, counts, first row ids)`` only when every partition has them and there are
    at most ``kmax`` (else None)."""
    dist = None
    if all(s[7] is not None for s in st):
        vals = np.unique(np.concatenate([s[7][0] for s in st]))
        if vals.shape[0] <= kmax:
            cnts = np.zeros(vals.shape[0], np.int64)
            first = np.full(vals.shape[0], np.iinfo(np.int64).max)
            for s in st:
                u = np.searchsorted(vals, s[7][0])
                cnts[u] += s[7][1]
                first[u] = np.minimum(first[u], s[7][2])
            dist = (vals, cnts, first)
    return (min(s[0] for s in st), max(s[1] for s in st), min(s[2] for s in st),
            max(s[3] for s in st), min(s[4] for s in st), max(s[5] for s in st),
            sum(s[6] for s in st), dist)


def merge_stats(results: Sequence[dict], req: dict) -> dict:
    """Several partitions' :func:`part_stats` as one partition's (worker side)."""
    kmax = int(req["kmax"])
    return _merge_columns(results, lambda st: merge_stats_column(st, kmax))


def _merge_bucket_column(parts: list) -> tuple:
    nz = np.unique(np.concatenate([pt[0] for pt in parts]))
    cnt = np.zeros(nz.shape[0], np.int64)
    c1 = np.zeros(nz.shape[0], np.int64)
    mn = np.full(nz.shape[0], np.inf)
    mx = np.full(nz.shape[0], -np.inf)
    for pz, c, k1, a, b, _, _ in parts:
        u = np.searchsorted(nz, pz)
        cnt[u] += c
        c1[u] += k1
        mn[u] = np.minimum(mn[u], a)
        mx[u] = np.maximum(mx[u], b)
    pred = succ = None
    if parts[0][5] is not None:
        pred = max(pt[5] for pt in parts)
        succ = min(pt[6] for pt in parts)
    return (nz, cnt, c1, mn, mx, pred, succ)


def merge_buckets(results: Sequence[dict], req: dict) -> dict:
    """Several partitions' :func:`part_buckets` as one partition's (worker side)."""
    return _merge_columns(results, _merge_bucket_column)


def _merge_fetch_column(parts: list) -> tuple:
    rows = tuple(np.concatenate([pt[0][i] for pt in parts]) for i in range(4))
    summ: dict[int, tuple] = {}
    for pt in parts:
        for kk, s in pt[1].items():
            o = summ.get(kk)
            if o is None:
                summ[kk] = s
                continue
            fst = o[1:3] if o[1] <= s[1] else s[1:3]
            lst = o[3:5] if o[3] >= s[3] else s[3:5]
            summ[kk] = (o[0] + s[0], *fst, *lst)
    return (rows, summ)


def merge_fetch(results: Sequence[dict], req: dict) -> dict:
    """Several partitions' :func:`part_fetch` as one partition's (worker side)."""
    return _merge_columns(results, _merge_fetch_column)


#: the worker-side merge of each round function's partition results
MERGE: dict[str, Callable[[Sequence[dict], dict], dict]] = {
    "part_stats": merge_stats, "part_buckets": merge_buckets, "part_fetch": merge_fetch}


def local_round(parts: Sequence[tuple[np.ndarray, np.ndarray, np.ndarray]]
                ) -> Callable[[Callable, dict], list]:
    """A ``run_round`` on in-memory parts ``(X rows, 0/1 labels, global row ids)``."""
    def run(fn: Callable, req: dict) -> list:
        return [fn(lambda j, X=X: np.ascontiguousarray(X[:, j]), y, ids, req)
                for X, y, ids in parts]
    return run


# ---------------------------------------------------------------------------------------
# the driver


class _Need(Exception):
    def __init__(self, buckets: set[int]) -> None:
        super().__init__()
        self.buckets = buckets


class _Col:
    """One numeric column's bucket table and fetched runs at the node."""

    def __init__(self, j: int, n: int) -> None:
        self.j = j
        self.n = n
        self.edges = np.empty(0)
        self.fetched: dict[int, list[tuple]] = {}  # bucket -> runs (v, count, fl, ll)
        self.force: set[int] = set()

    def set_table(self, nz, cnt, c1, mn, mx) -> None:
        self.b = nz  # bucket numbers (index into the edge list)
        self.cnt, self.c1, self.mn, self.mx = cnt, c1, mn, mx
        self.cum = np.cumsum(cnt)
        self.start = self.cum - cnt

    def interval(self, k: int) -> tuple[float, float]:
        b = int(self.b[k])
        lo = self.edges[b - 1] if b > 0 else -np.inf
        hi = self.edges[b] if b < self.edges.shape[0] else np.inf
        return float(lo), float(hi)

    def runs(self, k: int) -> list[tuple]:
        """Bucket ``k``'s runs ``(value, count, first label, last label, cum_le)``; a
        one-class bucket of several values gives its first and last run only (count
        and, for the first, cum_le unknown: None)."""
        if k in self.fetched:
            out = []
            c = int(self.start[k])
            for v, cn, fl, ll in self.fetched[k]:
                c += cn
                out.append((v, cn, fl, ll, c))
            return out
        cnt, c1 = int(self.cnt[k]), int(self.c1[k])
        pure = c1 == 0 or c1 == cnt
        if pure and k not in self.force:
            lab = 1 if c1 else 0
            if self.mn[k] == self.mx[k]:
                return [(float(self.mn[k]), cnt, lab, lab, int(self.cum[k]))]
            return [(float(self.mn[k]), None, lab, lab, None),
                    (float(self.mx[k]), None, lab, lab, int(self.cum[k]))]
        raise _Need({k})

    def bucket_of_pos(self, pos: int) -> int:
        return int(np.searchsorted(self.cum, pos, side="right"))

    def bucket_of_value(self, v: float) -> int:
        return int(np.searchsorted(self.mx, v, side="left"))

    def forward(self, k0: int, lo: float, up: float):
        """Consecutive run pairs (r, s) with r from bucket ``k0`` on, lo <= r, s <= up."""
        prev = None
        for k in range(k0, self.cnt.shape[0]):
            if self.mn[k] > up:
                return
            for run in self.runs(k):
                if run[0] > up:
                    return
                if run[0] < lo:
                    continue
                if prev is not None:
                    yield prev, run
                prev = run

    def backward(self, k0: int, lo: float, up: float):
        """Consecutive run pairs (r, s), descending, with s in bucket ``k0`` or below."""
        nxt = None
        for k in range(k0, -1, -1):
            if self.mx[k] < lo:
                return
            for run in reversed(self.runs(k)):
                if run[0] < lo:
                    return
                if run[0] > up:
                    continue
                if nxt is not None:
                    yield run, nxt
                nxt = run


def _is_trans(r: tuple, s: tuple, kind: int, target: int) -> bool:
    """gt (kind 0): last row of r not target, first row of s target; lt (1): reverse."""
    a, b = r[3] == target, s[2] == target
    return (not a and b) if kind == 0 else (a and not b)


def _cut(col: _Col, r: tuple, s: tuple) -> tuple[float, int, int]:
    """(cut, #x < cut, #x <= cut) of the cut between runs r < s (R's midpoint)."""
    cut = (r[0] + s[0]) / 2
    if r[4] is None:
        raise _Need({col.bucket_of_value(r[0])})
    lt = le = r[4]
    if cut <= r[0]:
        if r[1] is None:
            raise _Need({col.bucket_of_value(r[0])})
        lt = r[4] - r[1]
    if cut >= s[0]:
        if s[1] is None:
            raise _Need({col.bucket_of_value(s[0])})
        le = r[4] + s[1]
    return cut, lt, le


def _numeric_cuts(col: _Col, lo: float, up: float, target: int, segs: int
                  ) -> tuple[list[float], list[float]]:
    """The thinned ``>`` and ``<`` cuts (ascending), as ``_cuts_sorted`` keeps them."""
    k_lo = col.bucket_of_value(lo)
    first: list[list[tuple]] = [[], []]
    for r, s in col.forward(k_lo, lo, up):
        for kind in (0, 1):
            if len(first[kind]) <= segs and _is_trans(r, s, kind, target):
                first[kind].append((r, s))
        if len(first[0]) > segs and len(first[1]) > segs:
            break
    out: list[list[float]] = []
    for kind in (0, 1):
        trans = first[kind]
        if len(trans) <= segs:
            out.append([_cut(col, r, s)[0] for r, s in trans])
            continue
        out.append(_thin(col, lo, up, target, segs, kind, trans[0]))
    return out[0], out[1]


def _thin(col: _Col, lo: float, up: float, target: int, segs: int, kind: int,
          first_t: tuple) -> list[float]:
    """R's thinning (``thin_gt_kernel`` / ``thin_lt_kernel``) walking the runs."""
    n = col.n
    k_up = col.bucket_of_value(up)
    if kind == 0:
        last = next(t for t in col.backward(min(k_up, col.cnt.shape[0] - 1), lo, up)
                     if _is_trans(*t, 0, target))
        _, lt_last, _ = _cut(col, *last)
        bsize = int(np.rint(lt_last / segs))
        kept = []
        thr = bsize
        while True:
            k0 = col.bucket_of_pos(thr - 1)
            try:
                t = next((t for t in col.forward(k0, lo, up)
                          if _is_trans(*t, 0, target) and _cut(col, *t)[1] >= thr), None)
            except _Need as need:
                need.buckets |= _predict(col, thr, bsize, +1)
                raise
            if t is None or t[0][0] >= last[0][0]:
                break
            kept.append(t)
            thr = _cut(col, *t)[2] + bsize
        kept.append(last)
    else:
        _, _, le_first = _cut(col, *first_t)
        bsize = int(np.rint((n - le_first) / segs))
        kept = []
        thr = n - bsize  # keep the largest cut with #x <= cut <= thr
        while True:
            k0 = min(col.bucket_of_pos(max(thr, 0)), col.cnt.shape[0] - 1)
            try:
                t = next((t for t in col.backward(k0, lo, up)
                          if _is_trans(*t, 1, target) and _cut(col, *t)[2] <= thr), None)
            except _Need as need:
                need.buckets |= _predict(col, thr, bsize, -1)
                raise
            if t is None or t[0][0] <= first_t[0][0]:
                break
            kept.append(t)
            thr = _cut(col, *t)[1] - bsize
        kept.append(first_t)
        kept.reverse()
    cuts = [_cut(col, *t)[0] for t in kept]
    # R keeps every cut equal to a kept one (cuts[cuts %in% keep]): two cuts are equal
    # only when both round onto the run value between them
    mult: dict[float, int] = {}
    for (r, s), c in zip(kept, cuts, strict=True):
        if c not in mult:
            mult[c] = _twins(col, c, lo, up, target, kind) if c in (r[0], s[0]) else 1
    return [c for c in sorted(mult) for _ in range(mult[c])]


def _twins(col: _Col, v: float, lo: float, up: float, target: int, kind: int) -> int:
    """How many cuts of the pairs around run ``v`` equal ``v``."""
    k = col.bucket_of_value(v)
    out = 0
    for r, s in col.forward(max(k - 1, 0), lo, up):
        if r[0] > v:
            break
        if (r[0] == v or s[0] == v) and _is_trans(r, s, kind, target) and \
                (r[0] + s[0]) / 2 == v:
            out += 1
    return out


def _predict(col: _Col, thr: int, bsize: int, step: int) -> set[int]:
    """Buckets the rest of the thinning will probably visit (prefetched)."""
    out = set()
    nb = col.cnt.shape[0]
    for i in range(0, col.n // max(bsize, 1) + 2):
        pos = thr + step * i * bsize
        if pos < 0 or pos > col.n:
            break
        k = col.bucket_of_pos(min(max(pos - 1, 0), col.n - 1))
        for kk in (k, k + step):
            if 0 <= kk < nb and 0 < col.c1[kk] < col.cnt[kk]:
                out.add(kk)
    return out


def _around(col: _Col, k: int, rows: int, fwd: bool = True, back: bool = True
            ) -> set[int]:
    """Bucket ``k`` and the mixed-class buckets next to it (not yet fetched), forward
    and backward, up to about ``rows`` rows each way."""
    out = {k}
    nb = col.cnt.shape[0]
    for step, on in ((1, fwd), (-1, back)):
        tot, kk = 0, k + step
        while on and 0 <= kk < nb and tot < rows and len(out) < 256:
            if kk not in col.fetched and 0 < col.c1[kk] < col.cnt[kk]:
                out.add(kk)
                tot += int(col.cnt[kk])
            kk += step
    return out


def _guess(col: _Col, lo: float, up: float, segs: int) -> set[int]:
    """The buckets the first walks and the thinning will probably read: the ends of the
    trimmed range and the positions ``i * bsize`` (``bsize`` guessed from the range)."""
    nb = col.cnt.shape[0]
    k_lo, k_up = col.bucket_of_value(lo), min(col.bucket_of_value(up), nb - 1)
    rows = _AROUND_ROWS
    out = _around(col, k_lo, rows, back=False) | _around(col, k_up, rows, fwd=False)
    b_gt = max(int(np.rint(col.cum[k_up] / segs)), 1)
    b_lt = max(int(np.rint((col.n - col.start[k_lo]) / segs)), 1)
    out |= _predict(col, b_gt, b_gt, +1) | _predict(col, col.n - b_lt, b_lt, -1)
    return out


def _factor_questions(values: np.ndarray, counts: np.ndarray, first: np.ndarray,
                      bin_size: int) -> list[tuple[int, float, Any, np.ndarray]]:
    """``_factor_block`` of a factor-like numeric column from its distinct values
    (sorted), counts and first row ids: (kind, value, label, value set) per question."""
    labels = [format_r_cached(v) for v in values.tolist()]
    tab: dict[str, int] = {}
    for lab, c in zip(labels, counts.tolist(), strict=True):
        tab[lab] = tab.get(lab, 0) + c
    small = [lab for lab, c in tab.items() if c < bin_size]
    appear = np.argsort(first, kind="stable")
    slot: dict[str, int] = {}
    qs: list[list] = []
    for uu in appear.tolist():
        lab = labels[uu]
        q = slot.setdefault(lab, len(qs))
        if q == len(qs):
            qs.append([EQ, 0.0, lab, None])
        qs[q][1] = float(values[uu])
        qs[q][3] = np.array([float(values[uu])])
    out = [tuple(q) for q in qs]
    if small:
        small_set = set(small)
        vals = np.array([float(v) for v, lab in zip(values.tolist(), labels, strict=True)
                         if lab in small_set])
        out.append((IN, np.nan, tuple(small), vals))
    return out


def build_questions(run_round: Callable[[Callable, dict], list], names: Sequence[str],
                    n: int, n1: int, target: int, *, segments: int, num2factor: int,
                    nseg_factor: int, bin_size: int, node_size: float,
                    keep_perfect: bool = False, cap: int | None = None,
                    stats: dict | None = None) -> tuple[QuestionSet, dict[int, np.ndarray]]:
    """The node's internal questions, as :func:`~pybsnsing.questions.
    question_set_from_orders` makes them from the node's rows (without answer ranges),
    and the value sets of its ``==`` / ``%in%`` questions.

    ``run_round(fn, request)`` applies ``fn(cols, y, ids, request)`` to every partition's
    rows of the node (``cols(j)``: the node's values of column j in row order; ``y``: 0/1
    labels; ``ids``: global row ids) and returns the results in partition order (or
    several partitions' results merged by :data:`MERGE`).  ``stats`` (optional) counts
    the rounds.  :func:`question_steps` is the same computation as a generator, for
    driving the rounds of many nodes at once.
    """
    return drive(question_steps(names, n, n1, target, segments=segments,
                                num2factor=num2factor, nseg_factor=nseg_factor,
                                bin_size=bin_size, node_size=node_size,
                                keep_perfect=keep_perfect, cap=cap), run_round, stats)


def drive(steps: Generator[tuple[Callable, dict], list, Any],
          run_round: Callable[[Callable, dict], list], stats: dict | None = None) -> Any:
    """Run a :func:`question_steps` generator with ``run_round``; its result."""
    try:
        fn, req = next(steps)
        while True:
            if stats is not None:
                stats["question_rounds"] = stats.get("question_rounds", 0) + 1
            fn, req = steps.send(run_round(fn, req))
    except StopIteration as stop:
        return stop.value


def question_steps(names: Sequence[str], n: int, n1: int, target: int, *, segments: int,
                   num2factor: int, nseg_factor: int, bin_size: int, node_size: float,
                   keep_perfect: bool = False, cap: int | None = None
                   ) -> Generator[tuple[Callable, dict], list,
                                  tuple[QuestionSet, dict[int, np.ndarray]]]:
    """:func:`build_questions` as a generator: it yields each round's ``(fn, request)``,
    is sent the partitions' (or workers' merged) results, and returns the questions."""
    p = len(names)
    cap = default_cap(n) if cap is None else cap
    res = yield part_stats, {"cols": list(range(p)), "kmax": num2factor + 1}
    res = [r for r in res if r]
    sec, numeric, trim, factor_like = _classify_columns(
        res, names, n, n1, num2factor=num2factor, nseg_factor=nseg_factor,
        node_size=node_size, keep_perfect=keep_perfect)
    bounds = yield from _histogram_rounds(numeric, trim, cap, segments)
    cuts = yield from _runs_rounds(numeric, bounds, target, segments, cap)
    return _assemble(sec, trim, cuts, factor_like, bin_size, names)


def _classify_columns(res: list, names: Sequence[str], n: int, n1: int, *, num2factor: int,
                      nseg_factor: int, node_size: float, keep_perfect: bool) -> tuple:
    """From the partitions' column statistics: (the columns by section -- inequalities,
    factor-like, binary question blocks --, the numeric columns' bucket tables, each
    inequality column's trimming ("perfect", op, cut) or ("cuts", maxmin, minmax, min,
    max), the factor-like columns' (values, counts, first rows))."""
    p = len(names)
    sec: tuple[list, list, list] = ([], [], [])  # (col, kind, value, label, set)
    numeric: dict[int, _Col] = {}
    trim: dict[int, tuple] = {}
    factor_like: dict[int, tuple] = {}
    for j in range(p):
        mn, mx, mn1, mx1, mn0, mx0, between, dist = merge_stats_column(
            [r[j] for r in res], num2factor)
        if mn in (0.0, 1.0) and mx in (0.0, 1.0) and between == 0:
            sec[2].append([(j, BIN0, 0.0, None, np.array([0.0])),
                           (j, BIN1, 1.0, None, np.array([1.0]))])
            continue
        if dist is not None:
            factor_like[j] = dist
        if (mn0 < mn1 and mx0 < mn1) or (mn1 < mn0 and mx1 < mn0):
            if min(n1, n - n1) >= node_size and keep_perfect:
                if mn0 < mn1 and mx0 < mn1:
                    c = (mx0 + mn1) / 2
                    sec[0].append(j)
                    trim[j] = ("perfect", GE, c)
                else:
                    c = (mx1 + mn0) / 2
                    sec[0].append(j)
                    trim[j] = ("perfect", LE, c)
        else:
            sec[0].append(j)
            trim[j] = ("cuts", max(mn1, mn0), min(mx1, mx0), mn, mx)
            numeric[j] = _Col(j, n)
        if j in factor_like:
            if factor_like[j][0].shape[0] > nseg_factor:
                raise PybsnsingValueError(
                    f"Factor {names[j]} has more levels than allowed segments "
                    f"({factor_like[j][0].shape[0]} distinct values at the node > "
                    f"nseg_factor = {nseg_factor}).")
            sec[1].append(j)

    return sec, numeric, trim, factor_like


_DBL_MAX = float(np.finfo(np.float64).max)


def _edges(lo: float, hi: float, k: int, upper: bool = True) -> np.ndarray:
    """Bucket edges for the values in ``[lo, hi]``: ``k`` equal-width buckets (``k + 1``
    edges; without the last one when not ``upper``). An infinite end gets a bucket of its
    own instead (edges ``-Inf`` and ``DBL_MAX``: ``(-inf, -Inf]`` holds the ``-Inf``
    values, ``(DBL_MAX, inf]`` the ``Inf`` ones) and the finite values between are
    bucketed by a later round, from their own (finite) range."""
    if np.isfinite(lo) and np.isfinite(hi):
        with np.errstate(over="ignore", invalid="ignore"):
            e = np.linspace(lo, hi, k + 1)
        if not np.isfinite(e).all():  # a range wider than DBL_MAX: halve it
            e = np.array([lo, lo / 2 + hi / 2, hi])
        return e if upper else e[:-1]
    e = [v for v in (lo, hi) if np.isfinite(v)]
    if lo == -np.inf:
        e.append(-np.inf)
    if hi == np.inf:
        e.append(_DBL_MAX)
    if not upper and np.isfinite(hi):
        e.remove(hi)
    return np.array(sorted(e), dtype=np.float64)


def _bucket_interval(edges: np.ndarray, b: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The intervals ``(lo, hi]`` of buckets ``b`` of the edge list ``edges``."""
    ne = edges.shape[0]
    lo = np.where(b > 0, edges[np.maximum(b - 1, 0)], -np.inf)
    hi = np.where(b < ne, edges[np.minimum(b, ne - 1)], np.inf)
    return lo, hi


def _histogram_rounds(numeric: dict, trim: dict, cap: int, segments: int = 20
                      ) -> Generator[tuple[Callable, dict], list, dict]:
    """Histogram rounds: exact buckets of every numeric column (bucket tables set
    in ``numeric``); returns the trimming bounds of each column.  The first round counts
    every row in equal-width buckets; each further round re-counts only the rows of the
    buckets being refined (too many rows and more than one value), the other buckets
    keep their counts."""
    bounds: dict[int, tuple[float, float]] = {}
    req: dict[int, tuple] = {}
    tab: dict[int, tuple] = {}
    for j, col in numeric.items():
        _, maxmin, minmax, mn, mx = trim[j]
        col.edges = np.unique(_edges(mn, mx, _FIRST_BUCKETS))
        req[j] = (col.edges, maxmin, minmax, None, None)
        nb = col.edges.shape[0] + 1
        tab[j] = (np.zeros(nb, np.int64), np.zeros(nb, np.int64), np.full(nb, np.inf),
                  np.full(nb, -np.inf))
    first_round = True
    narrowed: set[int] = set()
    while req:
        res = yield part_buckets, req
        res = [r for r in res if r]
        nxt: dict[int, tuple] = {}
        for j in req:
            col = numeric[j]
            parts = [r[j] for r in res]
            cnt, c1, bmn, bmx = tab[j]
            for nz, c, k1, a, b, _, _ in parts:
                cnt[nz] += c
                c1[nz] += k1
                bmn[nz] = np.minimum(bmn[nz], a)
                bmx[nz] = np.maximum(bmx[nz], b)
            if first_round:
                _, maxmin, minmax, _, _ = trim[j]
                pred = max(pt[5] for pt in parts)
                succ = min(pt[6] for pt in parts)
                bounds[j] = (pred if pred > -np.inf else maxmin,
                             succ if succ < np.inf else minmax)
            nz = np.flatnonzero(cnt)
            split = nz[(cnt[nz] > cap) & (bmn[nz] < bmx[nz])]
            size = cap
            if not split.shape[0]:
                col.set_table(nz, cnt[nz], c1[nz], bmn[nz], bmx[nz])
                if j in narrowed or cap <= _FINE_ROWS:
                    continue
                # once: narrow the mixed buckets the walks will probably read
                narrowed.add(j)
                ks = [k for k in _guess(col, *bounds[j], segments)
                      if col.cnt[k] > _FINE_ROWS and col.mn[k] < col.mx[k]
                      and 0 < col.c1[k] < col.cnt[k]]
                if not ks:
                    continue
                split = np.sort(col.b[ks])
                size = _FINE_ROWS
            new = [_edges(bmn[b], bmx[b], min(2 * int(cnt[b]) // size + 2, _SUB_BUCKETS),
                          upper=False)
                   for b in split]
            old = col.edges
            col.edges = np.unique(np.concatenate([old, *new]))
            # the unrefined buckets keep their counts, under their new numbers (every
            # old edge is a new edge: a bucket keeps its upper edge)
            keep = np.setdiff1d(nz, split, assume_unique=True)
            up = np.where(keep < old.shape[0], old[np.minimum(keep, old.shape[0] - 1)],
                          np.inf)
            kn = np.where(keep < old.shape[0], np.searchsorted(col.edges, up),
                          col.edges.shape[0])
            nb = col.edges.shape[0] + 1
            t = (np.zeros(nb, np.int64), np.zeros(nb, np.int64), np.full(nb, np.inf),
                 np.full(nb, -np.inf))
            for dst, src in zip(t, (cnt, c1, bmn, bmx), strict=True):
                dst[kn] = src[keep]
            tab[j] = t
            rlo, rhi = _bucket_interval(old, split)
            nxt[j] = (col.edges, None, None, rlo, rhi)
        req = nxt
        first_round = False
    return bounds


def _runs_rounds(numeric: dict, bounds: dict, target: int, segments: int, cap: int
                 ) -> Generator[tuple[Callable, dict], list, dict]:
    """Runs rounds: each numeric column's cuts, walking its runs and fetching the
    buckets the walk needs."""
    cuts: dict[int, tuple[list[float], list[float]]] = {}
    pending = dict(numeric)
    first_fetch = True
    while pending:
        need: dict[int, set[int]] = {}
        if first_fetch:  # the buckets the walks will probably visit
            for j, col in numeric.items():
                need[j] = {k for k in _guess(col, *bounds[j], segments)
                           if 0 < col.c1[k] < col.cnt[k]}
            first_fetch = False
        for j, col in list(pending.items()):
            lo, up = bounds[j]
            try:
                cuts[j] = _numeric_cuts(col, lo, up, target, segments)
                del pending[j]
            except _Need as e:
                mixed = set()
                for k in e.buckets:
                    mixed |= _around(col, k, min(cap, _AROUND_ROWS))
                need[j] = {k for k in (mixed | e.buckets | need.get(j, set()))
                           if k not in col.fetched}
                if not need[j]:
                    raise RuntimeError("pybsnsing.dask: the runs walk made no progress") \
                        from e
                col.force |= e.buckets
        need = {j: ks for j, ks in need.items() if j in pending and ks}
        if not need:
            break
        req = {}
        for j, ks in need.items():
            col = numeric[j]
            ks_s = sorted(ks)
            iv = [col.interval(k) for k in ks_s]
            rows = np.array([col.cnt[k] <= cap or col.mn[k] < col.mx[k] for k in ks_s])
            req[j] = (np.array([a for a, _ in iv]), np.array([b for _, b in iv]), rows)
            need[j] = ks_s  # type: ignore[assignment]
        res = yield part_fetch, req
        _store_fetched(numeric, need, req, res)
    return cuts


def _store_fetched(numeric: dict, need: dict, req: dict, res: list) -> None:
    """The fetched buckets' runs (rows, or a one-value summary) into ``col.fetched``."""
    for j, ks_s in need.items():
        col = numeric[j]
        _, _, rows = req[j]
        parts = [r[j] for r in res if r]
        kk = np.concatenate([pt[0][0] for pt in parts])
        xs = np.concatenate([pt[0][1] for pt in parts])
        ids = np.concatenate([pt[0][2] for pt in parts])
        ys = np.concatenate([pt[0][3] for pt in parts])
        o = np.lexsort((ids, xs, kk))  # by bucket, value, row id (the stable order)
        kk, xs, ys = kk[o], xs[o], ys[o]
        bnd = np.searchsorted(kk, np.arange(len(ks_s) + 1))
        for q, k in enumerate(ks_s):
            if rows[q]:
                x, yy = xs[bnd[q]:bnd[q + 1]], ys[bnd[q]:bnd[q + 1]]
                if x.shape[0] == 0:
                    col.fetched[k] = []
                    continue
                st_ = np.flatnonzero(np.r_[True, x[1:] != x[:-1]])
                en = np.r_[st_[1:], x.shape[0]]
                col.fetched[k] = list(zip(x[st_].tolist(), (en - st_).tolist(),
                                          yy[st_].tolist(), yy[en - 1].tolist(), strict=True))
            else:
                sm = [pt[1][q] for pt in parts if q in pt[1]]
                tot = sum(s[0] for s in sm)
                fl = min(sm, key=lambda s: s[1])[2]
                ll = max(sm, key=lambda s: s[3])[4]
                col.fetched[k] = [(float(col.mn[k]), tot, fl, ll)]


def _assemble(sec: tuple, trim: dict, cuts: dict, factor_like: dict, bin_size: int,
              names: Sequence[str]) -> tuple[QuestionSet, dict[int, np.ndarray]]:
    """The question set in R's order (inequalities, factor-like, binary) and the value
    sets of its ``==`` / ``%in%`` questions."""
    # assemble in R's order: inequalities, factor-like, binary
    items: list[tuple] = []
    for j in sec[0]:
        if trim[j][0] == "perfect":
            items.append((j, trim[j][1], trim[j][2], None, None))
            continue
        gt, lt = cuts[j]
        items.extend((j, GT, c, None, None) for c in gt)
        items.extend((j, LT, c, None, None) for c in lt)
    for j in sec[1]:
        vals, cnts, first = factor_like[j]
        items.extend((j, kind, v, lab, s)
                     for kind, v, lab, s in _factor_questions(vals, cnts, first, bin_size))
    for blk in sec[2]:
        items.extend(blk)
    sets = {q: it[4] for q, it in enumerate(items) if it[4] is not None}
    labels = {q: it[3] for q, it in enumerate(items) if it[3] is not None}
    qs = QuestionSet(np.empty((0, 0), np.uint8), np.array([it[0] for it in items], np.int64),
                     kinds=np.array([it[1] for it in items], np.int8),
                     values=np.array([it[2] for it in items], np.float64), names=list(names),
                     labels=labels)
    return qs, sets
