"""The ENUM split search of bsnsing (``bslearn`` / ``rcpp_bslearn`` of R bsnsing 1.0.1).

Given a node's 0/1 question matrix ``B`` (n x m) and a 0/1 response ``y`` whose target class
is coded 1, find the OR-rule of at most ``max_rules`` questions that minimises

    v(S) = n1*FP + n0*FN - 2*FP*FN

(``FP`` = rows with y=0 where the rule is true, ``FN`` = rows with y=1 where it is false),
by the breadth-first implicit enumeration of R's compiled code (docs/r-quirks.md, *The
split search*).  Results, tie breaking and the evaluation count ``neval`` are those of R's
``enum_c`` solver, except that all counts are 64-bit (R's C ``int`` products overflow past
about 92 000 balanced rows; Q14).

Two implementations give identical ``cols``, ``objval`` and ``neval``:

* ``solver="enum_c"`` (or ``"enum"``): numba kernels (:mod:`pybsnsing.kernels.enum`) on
  bit-packed columns: level 2 read from per-class Gram matrices, deeper levels with
  pair-count bounds that settle most candidates without touching the rows, chunks of
  parents counted in parallel only when large, the accept/prune logic always sequential;
* ``solver="enum_py"``: a plain NumPy transliteration of the C code, used as the oracle.

``solver="highs"`` (the split as a MIP, solved by HiGHS) and ``solver="greedy"`` (R's greedy
solver) are in :mod:`pybsnsing.mip`; :func:`enum_search` and :func:`bslearn` dispatch to them.

The interpreted R solver ``opt.solver = "enum"`` counts ``neval`` without the candidates
rejected by ``node.size``; both names here give the C count (the fixtures' count).

Public functions: :func:`question_groups`, :func:`enum_search`, :func:`bslearn`; for the tree
grower, which never writes the question texts of the candidates, :func:`structural_groups`
(the same group ids from (variable, direction) keys) and :func:`enum_search_packed` (the
search on columns that are already bit-packed per class).
"""

from __future__ import annotations

import math
import time
import warnings
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, NamedTuple

import numpy as np

from ._lazy import LazyKernels
from .control import control_default
from .errors import PybsnsingTypeError, PybsnsingValueError
from .validation import (
    MAX_RULES_CAP,
    SearchResult,
    as_groups,
    as_int,
    search_args,
    search_limits,
)

_enum = LazyKernels("enum")

__all__ = [
    "SearchResult",
    "BslearnResult",
    "question_groups",
    "structural_groups",
    "enum_search",
    "enum_search_packed",
    "bslearn",
    "SOLVERS",
    "MAX_RULES_CAP",
    "GRAM_MAX_COLS",
]

#: accepted values of ``solver`` / ``opt_solver`` (``"highs"`` and ``"greedy"``: the MIP and
#: R's greedy solver of :mod:`pybsnsing.mip`)
SOLVERS = ("enum_c", "enum", "enum_py", "highs", "greedy")
#: R's MIP solver names: HiGHS is used instead, with a warning
_R_MIP_SOLVERS = ("gurobi", "cplex", "lpSolve")
#: above this many questions the split search builds no Gram matrices (level 2 is then
#: counted on the bits): the default of the numba driver, the weighted search and the
#: distributed fit's choice between summed counters and packed answers
GRAM_MAX_COLS = 4096


class _EnumTuning(NamedTuple):
    """Size thresholds of the numba driver (:func:`_enum_packed`); tests and the warm-up
    pass tiny values to exercise chunk boundaries and the parallel code on small
    problems."""

    #: child slots per chunk (None: ``kernels.enum.CHUNK_SLOTS``)
    chunk_slots: int | None = None
    #: child slots from which a chunk runs in parallel (None: ``kernels.enum.PAR_MIN_SLOTS``)
    par_min_slots: int | None = None
    #: above this many questions the Gram matrices (2 x m^2 int32) are not built
    gram_max_cols: int = GRAM_MAX_COLS
    #: Gram matrices are counted in parallel from this many word operations (m^2 * words)
    gram_par_work: int = 1 << 27
    #: max_rules 2: level two counts each pair it cannot rule out when it reaches it
    #: (``kernels.enum.last_level_two``) rather than from Gram matrices made ahead
    lazy_level_two: bool = True


_DEFAULT_TUNING = _EnumTuning()


@dataclass(frozen=True)
class BslearnResult:
    """Outcome of :func:`bslearn`, mirroring R's ``list(n.rules, rules, objval, neval)``.

    Attributes:
        cols: chosen columns, 0-based and increasing.
        rules: the chosen questions' texts (column names) joined with ``" | "``; ``""`` when
            no rule was found (R 1.0.1 returns the string ``"NA"`` there, a quirk not
            mirrored).
        n_rules: ``len(cols)``.
        objval: best objective value (``n0*n1/2`` when no rule was found).
        neval: candidate rules evaluated.
    """

    cols: tuple[int, ...]
    rules: str
    n_rules: int
    objval: float
    neval: int


# ---------------------------------------------------------------------------------------
# groups


def _r_strsplit(text: str, sep: str) -> list[str]:
    """``strsplit(text, sep)[[1]]`` of R for a one-character fixed separator.

    R drops one trailing empty piece (``strsplit("a>", ">")`` is ``"a"``) and returns
    ``""`` for the empty string.
    """
    parts = text.split(sep)
    if len(parts) > 1 and parts[-1] == "":
        parts.pop()
    return parts


def _hide_backticked(text: str) -> str:
    """``text`` with every ``<``/``>`` inside backticks replaced (same length)."""
    if "`" not in text:
        return text
    out = list(text)
    inside = False
    i = 0
    while i < len(out):
        ch = out[i]
        if inside and ch == "\\":
            i += 2
            continue
        if ch == "`":
            inside = not inside
        elif inside and ch in "<>":
            out[i] = "\x00"
        i += 1
    return "".join(out)


def question_groups(texts: Sequence[str]) -> np.ndarray:
    """Group id of each question, as R's ``bslearn`` derives it from the column names.

    After normalising ``<=`` to ``<`` and ``>=`` to ``>``, a text that splits into exactly
    two pieces at ``>`` belongs to the group "piece 1 + ``>``" (all ``x > c`` / ``x >= c``
    questions of variable ``x``), and likewise for ``<``; every other question (``x==1``,
    ``f%in%c('a')``, ...) is its own group.  The variable name is the text before the
    operator, stripped of white space (R does not strip; bsnsing always writes ``x > c``).

    Ids are numbered as R numbers them: first the ``>`` groups in order of first appearance,
    then the ``<`` groups, then one new id per remaining question, starting at 1.

    Args:
        texts: the question texts (column names of the question matrix).

    Returns:
        int64 array with one group id per question.
    """
    if isinstance(texts, str):
        raise PybsnsingTypeError("texts must be a sequence of strings, not a single string")
    names = [str(t) for t in texts]
    p = len(names)
    # a name in backticks (pybsnsing's non-syntactic names) is one token: hide its < and >
    std = [_hide_backticked(t).replace("<=", "<").replace(">=", ">") for t in names]
    grp = np.zeros(p, dtype=np.int64)
    keys: dict[str, int] = {}
    for op in (">", "<"):
        for i, t in enumerate(std):
            parts = _r_strsplit(t, op)
            if len(parts) == 2:
                key = parts[0].strip() + op
                if key not in keys:
                    keys[key] = len(keys) + 1
                grp[i] = keys[key]
    nxt = len(keys)
    for i in range(p):
        if grp[i] == 0:
            nxt += 1
            grp[i] = nxt
    return grp


def structural_groups(var: Any, direction: Any) -> np.ndarray:
    """The ids of :func:`question_groups` from structure instead of texts.

    Question ``i`` with ``direction[i] == 0`` (a ``>`` or ``>=`` question) or ``1`` (``<`` or
    ``<=``) belongs to the group of key ``(var[i], direction[i])``; a question with
    ``direction[i] == -1`` is its own group (``var`` is then ignored).  Ids are numbered as
    R numbers them: the ``>`` keys in order of first appearance, then the ``<`` keys, then
    the remaining questions in order, starting at 1.  For texts ``name > c``,
    ``name >= c``, ``name < c``, ``name <= c`` and texts without ``<``/``>`` this equals
    ``question_groups(texts)`` with ``var`` the variable's index.

    Args:
        var: int array, the variable (any integer id) of each question.
        direction: int array of 0, 1 or -1, same length.

    Returns:
        int64 array with one group id per question.
    """
    v = np.ascontiguousarray(var, dtype=np.int64).ravel()
    d = np.ascontiguousarray(direction, dtype=np.int64).ravel()
    if v.shape != d.shape:
        raise PybsnsingValueError(
            f"var and direction differ in length: {v.shape[0]} != {d.shape[0]}")
    ids, status = _enum.group_ids(v, d)
    if status == _enum.GROUPS_OK:
        return ids
    if status == _enum.GROUPS_BAD_DIRECTION:
        raise PybsnsingValueError("direction must hold only -1, 0 and 1")
    return _groups_by_dict(v.tolist(), d.tolist())  # variable ids too far apart for a table


def _groups_by_dict(var: list[int], direction: list[int]) -> np.ndarray:
    """:func:`structural_groups` on Python lists, the keys numbered by first appearance
    with dicts: for variable ids too far apart for :func:`~pybsnsing.kernels.enum.group_ids`'s
    table."""
    first: tuple[dict[int, int], dict[int, int]] = ({}, {})
    for a, b in zip(var, direction, strict=True):
        if b >= 0 and a not in first[b]:
            first[b][a] = len(first[b])
    base = (1, 1 + len(first[0]))
    rest = 1 + len(first[0]) + len(first[1])
    out = []
    for a, b in zip(var, direction, strict=True):
        if b >= 0:
            out.append(base[b] + first[b][a])
        else:
            out.append(rest)
            rest += 1
    return np.array(out, dtype=np.int64)


# ---------------------------------------------------------------------------------------
# the NumPy reference implementation (oracle)


def _tau(fp: int, fn: int, n1: int, n0: int, v: int) -> float:
    """The lower bound of paper Proposition 1 for every superset of a rule (FP, FN)."""
    if fp >= n0 / 2:
        return v if fn <= n1 / 2 else n0 * (n1 - fn)
    return n1 * fp if fn <= n1 / 2 else 0


def _accepted(tp: int, fp: int, fn: int, tn: int, nsgc: bool) -> bool:
    """The no.same.gender.children test (always true without it); R's 0/0 NaN rejects."""
    if not nsgc:
        return True
    left = tp / (tp + fp) if tp + fp else math.nan
    right = fn / (fn + tn) if fn + tn else math.nan
    return (left > 0.5 and right < 0.5) or (left < 0.5 and right > 0.5)


def _enum_py(
    B: np.ndarray,
    y: np.ndarray,
    grp: np.ndarray,
    max_rules: int,
    node_size: int,
    nsgc: bool,
    time_limit: float,
) -> tuple[tuple[int, ...], float, int]:
    """Plain NumPy transliteration of ``rcpp_bslearn`` (the oracle).

    Children of one parent are counted with one vectorised product; the accept / keep /
    prune logic runs candidate by candidate exactly as in the C code.
    """
    t0 = time.thread_time()
    n, m = B.shape
    pos = y == 1
    n1 = int(pos.sum())
    n0 = n - n1
    # class-wise boolean copies, one row per question (question x row)
    Bp = np.ascontiguousarray(B[pos].T, dtype=bool)
    Bn = np.ascontiguousarray(B[~pos].T, dtype=bool)
    vbest: float = n0 * n1 / 2
    best: tuple[int, ...] = ()
    neval = 0

    # level 1: every single column
    level: list[tuple[tuple[int, ...], int, int, float]] = []
    tps = np.count_nonzero(Bp, axis=1)
    fps = np.count_nonzero(Bn, axis=1)
    for j in range(m):
        tp, fp = int(tps[j]), int(fps[j])
        fn = n1 - tp
        neval += 1
        if tp + fp < node_size or n - tp - fp < node_size:
            continue
        v = n1 * fp + n0 * fn - 2 * fp * fn
        if v < vbest and _accepted(tp, fp, fn, n0 - fp, nsgc):
            vbest, best = v, (j,)
        tau = _tau(fp, fn, n1, n0, v)
        if tau < vbest:
            level.append(((j,), fp, fn, tau))

    # further levels
    while level:
        if len(level[0][0]) >= max_rules:
            break
        nxt: list[tuple[tuple[int, ...], int, int, float]] = []
        for cols, pfp, pfn, ptau in level:
            if ptau >= vbest:
                continue
            used = set(grp[list(cols)].tolist())
            cand = [j for j in range(cols[-1] + 1, m) if int(grp[j]) not in used]
            if not cand:
                continue
            # rows the parent leaves uncovered; a child adds those its new column covers
            free_p = ~Bp[list(cols)].any(axis=0)
            free_n = ~Bn[list(cols)].any(axis=0)
            add_tp = np.count_nonzero(Bp[cand] & free_p, axis=1).tolist()
            add_fp = np.count_nonzero(Bn[cand] & free_n, axis=1).tolist()
            ptp = n1 - pfn
            for j, atp, afp in zip(cand, add_tp, add_fp, strict=True):
                tp, fp = ptp + atp, pfp + afp
                fn = n1 - tp
                neval += 1
                if tp + fp < node_size or n - tp - fp < node_size:
                    continue
                if fp == pfp and fn == pfn:
                    continue
                v = n1 * fp + n0 * fn - 2 * fp * fn
                if v < vbest and _accepted(tp, fp, fn, n0 - fp, nsgc):
                    vbest, best = v, (*cols, j)
                tau = _tau(fp, fn, n1, n0, v)
                if tau < vbest:
                    nxt.append(((*cols, j), fp, fn, tau))
        level = nxt
        if time.thread_time() - t0 > time_limit:
            break
    return best, float(vbest), neval


def enum_levels(step: Callable[..., tuple], pcols: np.ndarray, pfp: np.ndarray,
                pfn: np.ndarray, ptau: np.ndarray, vb: Any, best: tuple[int, ...],
                neval: int, max_rules: int, time_limit: float,
                t0: float) -> tuple[tuple[int, ...], Any, int]:
    """The breadth-first level loop of ENUM after level 1, shared by the unweighted
    numba driver and the weighted search (:mod:`pybsnsing.weighted`).

    ``pcols`` (rules of one question, one a row) with their FP, FN and bounds ``pfp``,
    ``pfn``, ``ptau``; ``vb`` the best objective so far (in the caller's units), ``best``
    its rule, ``neval`` the rules evaluated.  ``step(k, store, pcols, pfp, pfn, ptau, vb)``
    extends the rules of ``k`` questions by one (keeping the children only when
    ``store``) and returns ``(ccols, cfp, cfn, ctau, vb, bp, bj, ne)``: the kept children,
    the new best value, the parent row and column of a new best rule (``bp < 0``: none)
    and the rules evaluated.  The CPU time limit is checked after each whole level, as R
    does.  Returns ``(best, vb, neval)``.
    """
    k = 1
    while pcols.shape[0] > 0 and k < max_rules:
        ccols, cfp, cfn, ctau, vb, bp, bj, ne = step(k, k + 1 < max_rules, pcols, pfp, pfn,
                                                     ptau, vb)
        neval += int(ne)
        if bp >= 0:
            best = (*(int(c) for c in pcols[bp]), int(bj))
        pcols, pfp, pfn, ptau = ccols, cfp, cfn, ctau
        k += 1
        if time.thread_time() - t0 > time_limit:
            break
    return best, vb, neval


# ---------------------------------------------------------------------------------------
# the numba driver


def _enum_packed(
    Xp: np.ndarray,
    Xn: np.ndarray,
    n1: int,
    n0: int,
    grp: np.ndarray,
    max_rules: int,
    node_size: int,
    nsgc: bool,
    time_limit: float,
    t0: float,
    tuning: _EnumTuning = _DEFAULT_TUNING,
) -> tuple[tuple[int, ...], float, int]:
    """Level-by-level driver of the numba kernels on bit-packed columns (``t0``: the
    search's start time; the time limit is checked between levels).

    Level 1 from the column popcounts, level 2 from the per-class Gram matrices, deeper
    levels on bit-packed columns with pair-count pruning; the last level stores nothing.
    ``max_rules`` 1, and 2 where level two counts its pairs lazily, in one kernel call
    (:func:`pybsnsing.kernels.enum.enum_upto_two`).
    """
    import numba

    K = _enum
    m = Xp.shape[0]
    n1_, n0_, ns_ = np.int64(n1), np.int64(n0), np.int64(node_size)
    nsgc_ = bool(nsgc)
    use_gram = m <= tuning.gram_max_cols
    if max_rules == 1 or (max_rules == 2 and use_gram and tuning.lazy_level_two):
        # one kernel call (the level loop below would check the time limit only after
        # the last level, which changes nothing)
        vb2, j1, j2, neval = K.enum_upto_two(Xp, Xn, grp, n1_, n0_, ns_, nsgc_,
                                             max_rules == 2)
        best = () if j1 < 0 else (int(j1),) if j2 < 0 else (int(j1), int(j2))
        return best, int(vb2) / 2.0, int(neval)
    cp = K.popcount_rows(Xp)
    cn = K.popcount_rows(Xn)
    vb2 = np.int64(n0) * np.int64(n1)
    nthreads = int(numba.get_num_threads())
    chunk = np.int64(K.CHUNK_SLOTS if tuning.chunk_slots is None else tuning.chunk_slots)
    par_min = np.int64(K.PAR_MIN_SLOTS if tuning.par_min_slots is None
                       else tuning.par_min_slots)

    keep, pfp, pfn, ptau, vb2, best_j = K.level_one(cp, cn, n1_, n0_, ns_, nsgc_, vb2)
    neval = m
    best: tuple[int, ...] = (int(best_j),) if best_j >= 0 else ()
    pcols = keep.reshape(-1, 1)
    if pcols.shape[0] == 0:
        return best, int(vb2) / 2.0, neval

    if use_gram:
        words = Xp.shape[1] + Xn.shape[1]
        par = nthreads > 1 and m * m * words >= tuning.gram_par_work
        # max_rules 2: level two, the last, reads only the pairs of the kept questions
        rows = keep if max_rules == 2 else None
        Gp = K.gram_counts(Xp, par, rows)
        Gn = K.gram_counts(Xn, par, rows)
    else:
        Gp = Gn = np.zeros((1, 1), dtype=np.int32)

    def step(k: int, store: bool, pcols: np.ndarray, pfp: np.ndarray, pfn: np.ndarray,
             ptau: np.ndarray, vb2: Any) -> tuple:
        if k == 1 and use_gram:
            return K.level_two(cp, cn, Gp, Gn, grp, n1_, n0_, pcols, pfp, pfn, ptau, vb2,
                               ns_, nsgc_, store)
        if store:
            return K.extend_level(Xp, Xn, cp, cn, Gp, Gn, use_gram, grp, n1_, n0_, pcols,
                                  pfp, pfn, ptau, vb2, ns_, nsgc_, nthreads > 1, chunk, par_min)
        # the last level: nothing stored
        vb2, bp, bj, ne = K.last_level(Xp, Xn, cp, cn, Gp, Gn, use_gram, grp, n1_, n0_,
                                       pcols, pfp, pfn, ptau, vb2, ns_, nsgc_,
                                       np.int64(nthreads), chunk, par_min)
        none = np.empty(0, dtype=np.int64)
        return np.empty((0, k + 1), dtype=np.int64), none, none, none, vb2, bp, bj, ne

    best, vb2, neval = enum_levels(step, pcols, pfp, pfn, ptau, vb2, best, neval, max_rules,
                                   time_limit, t0)
    return best, int(vb2) / 2.0, neval


# ---------------------------------------------------------------------------------------
# public API


def enum_search(B: Any, y: Any, groups: Any = None, *, max_rules: int = 2,
                node_size: int = 1, no_same_gender_children: bool = False,
                time_limit: float = 180.0, solver: str = "enum_c", model: str = "gini",
                greedy_level: float = 0.9) -> SearchResult:
    """Find the best OR-rule of at most ``max_rules`` questions (R's ``rcpp_bslearn``).

    Args:
        B: n x m 0/1 question matrix (any integer, boolean or 0/1 float dtype).
        y: n labels, 0/1, with the *target* class coded 1 (the caller recodes).
        groups: one integer group id per column; two columns of one group never appear in
            one rule.  ``None``: every column is its own group.
        max_rules: most questions in the rule, 1..10.
        node_size: both sides of the rule (rows where it is true / false) must hold at least
            this many rows (0: no constraint, 1: both sides non-empty).  There is no
            automatic ``floor(sqrt(n))`` here: that is the tree grower's job.
        no_same_gender_children: accept an improving rule only if TP/(TP+FP) and
            FN/(FN+TN) lie strictly on opposite sides of 0.5 (a 0/0 share rejects).
        time_limit: CPU seconds of the calling thread (``time.thread_time``: R's C
            search reads ``clock()`` of its one-threaded process), checked only after a
            whole level of extensions, as R does.
        solver: ``"enum_c"`` or ``"enum"`` (numba kernels) or ``"enum_py"`` (NumPy oracle).
            All give identical results, ``neval`` always counted as R's C code counts.
            ``"highs"`` (the MIP, :func:`pybsnsing.mip.mip_search`; R's ``"gurobi"``,
            ``"cplex"`` and ``"lpSolve"`` are accepted with a warning) and ``"greedy"``
            (R's greedy solver, :func:`pybsnsing.mip.greedy_search`).
        model: ``"gini"`` or ``"error"``; used only by ``"highs"`` and ``"greedy"`` (ENUM
            always minimises the Gini objective, as R 1.0.1 does).
        greedy_level: used only by ``"greedy"``.

    Returns:
        :class:`SearchResult`.

    Raises:
        ValueError, TypeError: on malformed inputs (non-0/1 values, NaN, length mismatch,
            empty matrix, groups of the wrong length, max_rules outside 1..10, ...).
    """
    if solver in _R_MIP_SOLVERS:
        from .control import ControlWarning

        warnings.warn(f"opt_solver {solver!r} is not available in pybsnsing; HiGHS ('highs') "
                      "is used instead", ControlWarning, stacklevel=2)
        solver = "highs"
    if solver not in SOLVERS:
        raise PybsnsingValueError(f"solver must be one of {SOLVERS}, got {solver!r}")
    if solver in ("highs", "greedy"):
        from .mip import split_search

        return split_search(B, y, groups, solver=solver, max_rules=max_rules,
                            node_size=node_size, no_same_gender_children=no_same_gender_children,
                            time_limit=time_limit, model=model, greedy_level=greedy_level)
    Bm, yv, grp, max_rules, node_size = search_args(B, y, groups, max_rules, node_size,
                                                    MAX_RULES_CAP)
    n, m = Bm.shape
    nsgc, time_limit = search_limits(no_same_gender_children, time_limit)

    n1 = int(yv.sum())
    if solver == "enum_py":
        cols, objval, neval = _enum_py(Bm, yv, grp, max_rules, node_size, nsgc, time_limit)
    else:
        t0 = time.thread_time()
        Xp, Xn = _enum.pack_by_class(Bm, yv)
        cols, objval, neval = _enum_packed(Xp, Xn, n1, n - n1, grp, max_rules, node_size,
                                           nsgc, time_limit, t0)
    return SearchResult(cols=tuple(cols), objval=float(objval), neval=int(neval), n1=n1,
                        n0=n - n1)


def enum_search_packed(Xp: np.ndarray, Xn: np.ndarray, n1: int, n0: int, groups: Any = None,
                       *, max_rules: int = 2, node_size: int = 1,
                       no_same_gender_children: bool = False,
                       time_limit: float = 180.0) -> SearchResult:
    """:func:`enum_search` (numba solver) on columns already bit-packed per class.

    ``Xp`` / ``Xn``: uint64 arrays (m x words), row ``j`` the answers of question ``j`` on
    the ``n1`` target-class rows / the ``n0`` other rows, bit ``t`` of word ``w`` being the
    class's row ``64*w + t`` (any fixed order of the rows within a class), padding bits 0,
    at least one word; the layout of :func:`pybsnsing.kernels.enum.pack_by_class`.  The
    tree grower builds them straight from its sorted orders, without an n x m matrix.
    Other arguments and the result as :func:`enum_search`.
    """
    t0 = time.thread_time()
    Xp = np.ascontiguousarray(Xp, dtype=np.uint64)
    Xn = np.ascontiguousarray(Xn, dtype=np.uint64)
    n1, n0 = int(n1), int(n0)
    if Xp.ndim != 2 or Xn.ndim != 2 or Xp.shape[0] != Xn.shape[0]:
        raise PybsnsingValueError(
            f"Xp and Xn must be 2-D with equal rows, got {Xp.shape}, {Xn.shape}")
    m = Xp.shape[0]
    if m == 0:
        raise PybsnsingValueError("no columns (no questions to search)")
    if n1 < 0 or n0 < 0 or n1 + n0 == 0:
        raise PybsnsingValueError(f"bad class counts n1={n1}, n0={n0}")
    if Xp.shape[1] != max(1, (n1 + 63) // 64) or Xn.shape[1] != max(1, (n0 + 63) // 64):
        raise PybsnsingValueError("the packed widths do not match n1 and n0")
    grp = as_groups(groups, m)
    max_rules = as_int(max_rules, "max_rules", 1, MAX_RULES_CAP)
    node_size = as_int(node_size, "node_size", 0)
    cols, objval, neval = _enum_packed(Xp, Xn, n1, n0, grp, max_rules, node_size,
                                       bool(no_same_gender_children), float(time_limit), t0)
    return SearchResult(cols=tuple(cols), objval=float(objval), neval=int(neval), n1=n1,
                        n0=n0)


#: the controls bslearn reads, with R's defaults (from the control table)
_CONTROL_DEFAULTS: dict[str, Any] = {
    name: control_default(name)
    for name in ("max_rules", "node_size", "no_same_gender_children", "solver_timelimit",
                 "opt_solver", "opt_model", "greedy_level")
}


def bslearn(bx: Any, y: Any, control: Any = None, groups: Any = None) -> BslearnResult:
    """R's ``bslearn(bx, y, control)``: the best OR-rule for the class coded 1 in ``y``.

    ``y`` is used exactly as given: R's ``bslearn`` does **not** recode it (it sets
    ``n1 = sum(y == 1)``, ``n0 = n - n1`` and searches rules that capture the rows with
    ``y == 1``).  In a tree, R's ``bsnsing.default`` passes ``y`` when the node's majority
    (split target) is class 1 (``n1 >= n0``) and ``1L - y`` otherwise; the enum_dl fixtures
    call ``bslearn`` on the raw labels, which this function reproduces.

    Args:
        bx: 0/1 question matrix: a pandas DataFrame (its column names are the question
            texts, and the groups are read from them with :func:`question_groups`) or a
            2-D array (columns named ``V1..Vm`` as R's ``as.data.frame`` names them, each
            column its own group unless ``groups`` is given).
        y: 0/1 labels, one per row of ``bx``.
        control: any object with attributes ``max_rules``, ``node_size``,
            ``no_same_gender_children``, ``solver_timelimit``, ``opt_solver``,
            ``opt_model`` and ``greedy_level`` (e.g. a ``pybsnsing.control.BsControl``);
            missing attributes and ``None`` take R's ``bscontrol()`` defaults: 2, 0, False,
            180, ``"enum_c"``, ``"gini"``, 0.9 (``opt_model`` and ``greedy_level`` matter only
            for ``opt_solver = "highs"`` / ``"greedy"``).  ``node_size`` is used
            as given: 0 is no constraint here (R's automatic ``floor(sqrt(n))`` happens in
            ``bsnsing.default`` before the tree is grown, not in ``bslearn``).
        groups: optional explicit group ids (one per column); overrides the names.

    Returns:
        :class:`BslearnResult` (``rules`` is ``""`` when no rule beats ``n0*n1/2``).
    """
    if isinstance(bx, np.ndarray) or not hasattr(bx, "columns"):
        arr = np.asarray(bx)
        names = [f"V{j + 1}" for j in range(arr.shape[1])] if arr.ndim == 2 else []
        grp_in = groups
    else:
        names = [str(c) for c in bx.columns]
        arr = bx.to_numpy()
        grp_in = question_groups(names) if groups is None else groups
    if isinstance(control, dict):  # R's list(max.rules = 3) or Python names, checked
        from .control import bscontrol

        control = bscontrol(**control)
    settings = {
        key: getattr(control, key, default) if control is not None else default
        for key, default in _CONTROL_DEFAULTS.items()
    }
    res = enum_search(
        arr,
        np.asarray(y),
        grp_in,
        max_rules=settings["max_rules"],
        node_size=settings["node_size"],
        no_same_gender_children=settings["no_same_gender_children"],
        time_limit=settings["solver_timelimit"],
        solver=str(settings["opt_solver"]),
        model=str(settings["opt_model"]),
        greedy_level=settings["greedy_level"],
    )
    rules = " | ".join(names[c] for c in res.cols)
    return BslearnResult(cols=res.cols, rules=rules, n_rules=len(res.cols), objval=res.objval,
                         neval=res.neval)
