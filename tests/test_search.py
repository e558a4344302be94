"""Tests of the ENUM split search: :mod:`pybsnsing.search` and :mod:`pybsnsing.kernels.enum`.

* every R fixture of ``golden/enum_random`` (both solvers) and ``golden/enum_dl`` (both
  solvers, the numba one through :func:`bslearn`) is reproduced: columns, objective, neval;
* property tests on small random matrices: the numba objective and rule equal a brute
  force over all rules (node_size <= 1), and numba == NumPy oracle (any settings);
* the kernel's internal paths (chunking, parallel phase, no Gram matrices, thread count)
  give identical results;
* bad inputs raise clear Python errors.
"""

from __future__ import annotations

import contextlib
import csv
import functools
import gzip
import itertools
from functools import cache
from pathlib import Path
from types import SimpleNamespace

import numba
import numpy as np
import pandas as pd
import pytest
from conftest import BINARY, GOLDEN
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from pybsnsing import search
from pybsnsing.kernels import enum as K
from pybsnsing.search import (
    BslearnResult,
    SearchResult,
    bslearn,
    enum_search,
    question_groups,
)

# ---------------------------------------------------------------------------------------
# helpers



@contextlib.contextmanager
def _tuned(**kw):
    """The numba driver with the given :class:`pybsnsing.search._EnumTuning` (tiny chunks,
    forced parallel phases, no Gram matrices) for the duration of a ``with`` block."""
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(search, "_enum_packed",
                   functools.partial(search._enum_packed, tuning=search._EnumTuning(**kw)))
        yield


def _read_csv(path: Path) -> list[dict[str, str]]:
    with open(path, newline="") as fh:
        return list(csv.DictReader(fh))


def _load_instance(path: Path) -> tuple[np.ndarray, np.ndarray]:
    a = np.loadtxt(path, delimiter=",", skiprows=1, dtype=np.int64, ndmin=2)
    return a[:, 1:], a[:, 0]


@cache
def _load_binary(path: str) -> tuple[np.ndarray, np.ndarray]:
    with gzip.open(path, "rt") as fh:
        a = np.loadtxt(fh, dtype=np.int64, ndmin=2)
    return np.ascontiguousarray(a[:, 1:], dtype=np.uint8), a[:, 0]


def _dl(name: str) -> tuple[np.ndarray, np.ndarray]:
    """A DL8.5 0/1 data set (tests/data/binary: copies of ../shared/data/binary)."""
    return _load_binary(str(BINARY / f"{name}.txt.gz"))


def _triple(res: SearchResult) -> tuple[tuple[int, ...], float, int]:
    return res.cols, res.objval, res.neval


def brute_force(B, y, groups, max_rules, node_size, nsgc):
    """Best rule by full enumeration in (size, lexicographic) order: (cols, objval)."""
    B = np.asarray(B, dtype=bool)
    y = np.asarray(y, dtype=bool)
    n, m = B.shape
    n1 = int(y.sum())
    n0 = n - n1
    start = n0 * n1 / 2
    best_v, best = start, ()
    for size in range(1, max_rules + 1):
        for cols in itertools.combinations(range(m), size):
            if len({int(groups[c]) for c in cols}) < size:
                continue
            pred = B[:, list(cols)].any(axis=1)
            tp = int((pred & y).sum())
            fp = int((pred & ~y).sum())
            fn, tn = n1 - tp, n0 - fp
            if tp + fp < node_size or fn + tn < node_size:
                continue
            if nsgc:
                left = tp / (tp + fp) if tp + fp else float("nan")
                right = fn / (fn + tn) if fn + tn else float("nan")
                if not ((left > 0.5 and right < 0.5) or (left < 0.5 and right > 0.5)):
                    continue
            v = n1 * fp + n0 * fn - 2 * fp * fn
            if v < best_v:
                best_v, best = v, cols
    return tuple(best), float(best_v)


@st.composite
def problems(draw, max_n=40, max_m=8, max_rules=(1, 3), node_size_max=1):
    """A random 0/1 matrix, labels, groups and search settings."""
    n = draw(st.integers(1, max_n))
    m = draw(st.integers(1, max_m))
    seed = draw(st.integers(0, 2**32 - 1))
    rng = np.random.default_rng(seed)
    dens = rng.uniform(0.05, 0.7, size=m)
    B = (rng.random((n, m)) < dens).astype(np.int64)
    y = (rng.random(n) < draw(st.floats(0.0, 1.0))).astype(np.int64)
    ngroups = draw(st.integers(1, m))
    groups = rng.integers(0, ngroups, size=m)
    mr = draw(st.integers(*max_rules))
    ns = draw(st.integers(0, node_size_max if node_size_max >= 0 else n))
    nsgc = draw(st.booleans())
    return B, y, groups, mr, ns, nsgc


# ---------------------------------------------------------------------------------------
# groups


def test_question_groups_r_numbering():
    texts = [
        "a > 1",
        "b < 2",
        "a > 3",
        "a >= 5",
        "b <= 1",
        "a < 0",
        "c==1",
        "f%in%c('x','y')",
        "V1",
        "a>7",
    ]
    # '>' groups first (a>), then '<' groups (b<, a<), then one id per other question
    assert question_groups(texts).tolist() == [1, 2, 1, 1, 2, 3, 4, 5, 6, 1]
    assert question_groups(texts).dtype == np.int64
    assert question_groups([]).tolist() == []
    # R's strsplit: a text with two '>' is its own group; a trailing '>' is dropped
    assert question_groups(["x > 1 > 2", "x > 1", "x>"]).tolist() == [2, 1, 3]
    with pytest.raises(TypeError, match="texts must be a sequence of strings, not a single string"):
        question_groups("x > 1")


# ---------------------------------------------------------------------------------------
# golden fixtures


def test_enum_random_fixtures():
    d = GOLDEN / "enum_random"
    rows = _read_csv(d / "solutions.csv")
    checked = 0
    bad = []
    for r in rows:
        X, y = _load_instance(d / f"inst_{int(r['k']):03d}.csv")
        assert X.shape == (int(r["n"]), int(r["p"]))
        grp = [int(g) for g in r["grp"].split()]
        exp = (
            tuple(int(c) for c in r["sol_cols"].split()),
            float(r["sol_vbest"]),
            int(r["neval"]),
        )
        for solver in ("enum_c", "enum_py"):
            res = enum_search(
                X,
                y,
                grp,
                max_rules=int(r["max_rules"]),
                node_size=int(r["node_size"]),
                no_same_gender_children=bool(int(r["no_same_gender_children"])),
                solver=solver,
            )
            if _triple(res) != exp:
                bad.append((r["k"], solver, _triple(res), exp))
        checked += 1
    print(f"enum_random: {checked} of {len(rows)} instances checked with 2 solvers")
    assert not bad, bad[:5]
    assert checked == len(rows) > 0


def test_enum_dl_fixtures():
    rows = _read_csv(GOLDEN / "enum_dl" / "results.csv")
    checked = 0
    bad = []
    for r in rows:
        X, y = _dl(r["dataset"])
        assert X.shape == (int(r["n"]), int(r["n_features"]))
        mr = int(r["max_rules"])
        exp_cols = tuple(int(c) - 1 for c in r["cols_1based"].split())
        exp = (exp_cols, float(r["objval"]), int(r["neval"]))
        ctrl = SimpleNamespace(max_rules=mr, node_size=1, no_same_gender_children=False,
                               solver_timelimit=180, opt_solver="enum_c")
        res = bslearn(X, y, ctrl)
        got = (res.cols, res.objval, res.neval)
        if got != exp or res.rules != r["rule"] or res.n_rules != int(r["n_rules"]):
            bad.append((r["dataset"], mr, "bslearn", got, res.rules, exp, r["rule"]))
        ref = enum_search(X, y, None, max_rules=mr, node_size=1, solver="enum_py")
        if _triple(ref) != exp:
            bad.append((r["dataset"], mr, "enum_py", _triple(ref), exp))
        assert (ref.n1, ref.n0) == (int(r["n1"]), int(r["n0"]))
        checked += 1
    print(f"enum_dl: {checked} of {len(rows)} rows checked (bslearn/numba and enum_py)")
    assert not bad, bad[:5]
    assert checked == len(rows) > 0


# ---------------------------------------------------------------------------------------
# property tests


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(problems(max_n=40, max_m=8, max_rules=(1, 3), node_size_max=1))
def test_numba_equals_brute_force(prob):
    B, y, groups, mr, ns, nsgc = prob
    res = enum_search(B, y, groups, max_rules=mr, node_size=ns, no_same_gender_children=nsgc)
    cols, objval = brute_force(B, y, groups, mr, ns, nsgc)
    assert res.objval == objval
    assert res.cols == cols
    assert res.n1 == int(y.sum()) and res.n0 == len(y) - int(y.sum())


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(problems(max_n=60, max_m=10, max_rules=(1, 5), node_size_max=-1))
def test_numba_equals_oracle(prob):
    B, y, groups, mr, ns, nsgc = prob
    kw = dict(max_rules=mr, node_size=ns, no_same_gender_children=nsgc)
    a = enum_search(B, y, groups, solver="enum_c", **kw)
    b = enum_search(B, y, groups, solver="enum_py", **kw)
    assert _triple(a) == _triple(b)


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(problems(max_n=80, max_m=14, max_rules=(3, 5), node_size_max=-1))
def test_kernel_paths_agree(prob):
    """Tiny chunks (many chunk boundaries), forced parallel phase and the path without
    Gram matrices all give the oracle's result."""
    B, y, groups, mr, ns, nsgc = prob
    kw = dict(max_rules=mr, node_size=ns, no_same_gender_children=nsgc)
    ref = _triple(enum_search(B, y, groups, solver="enum_py", **kw))
    for chunk, par_min, gram_max in ((1, 1, 4096), (64, 1, 4096), (64, 10**9, 0),
                                     (1, 1, 0)):
        with _tuned(chunk_slots=chunk, par_min_slots=par_min, gram_max_cols=gram_max):
            assert _triple(enum_search(B, y, groups, **kw)) == ref, (chunk, par_min, gram_max)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(problems(max_n=300, max_m=24, max_rules=(2, 2), node_size_max=-1))
def test_lazy_level_two_equals_the_gram_path(prob):
    """max_rules 2: the last level counting only the pairs its bound cannot rule out
    (kernels.enum.last_level_two) gives the Gram path's and the oracle's rule, objective
    and neval (node sizes, no.same.gender.children and groups included)."""
    B, y, groups, mr, ns, nsgc = prob
    kw = dict(max_rules=mr, node_size=ns, no_same_gender_children=nsgc)
    lazy = _triple(enum_search(B, y, groups, **kw))
    with _tuned(lazy_level_two=False):
        gram = _triple(enum_search(B, y, groups, **kw))
    assert lazy == gram == _triple(enum_search(B, y, groups, solver="enum_py", **kw))


def test_lazy_level_two_skips_pairs_on_informative_data(monkeypatch):
    """Not vacuous: with one strong question, most pairs are ruled out by the bound
    before any count (the kernel run as Python with its pair count spied on; neval
    counts every pair all the same, and the result is the compiled kernel's)."""
    from pybsnsing.kernels import enum as K

    rng = np.random.default_rng(5)
    n, m = 2000, 30
    B = (rng.random((n, m)) < 0.3).astype(np.uint8)
    y = (rng.random(n) < 0.5).astype(np.uint8)
    B[:, 0] = y ^ (rng.random(n) < 0.05)  # a question that nearly separates the classes
    Xp, Xn = K.pack_by_class(B, y)
    n1, n0 = np.int64(y.sum()), np.int64(n - y.sum())
    cp, cn = K.popcount_rows(Xp), K.popcount_rows(Xn)
    keep, pfp, pfn, ptau, vb2, _ = K.level_one(cp, cn, n1, n0, np.int64(1), False, n0 * n1)
    args = (Xp, Xn, cp, cn, np.arange(m, dtype=np.int64), n1, n0, keep.reshape(-1, 1), pfp,
            pfn, ptau, vb2, np.int64(1), False)
    compiled = K.last_level_two(*args)
    counts: list[tuple[int, int]] = []

    def and_count(X, a, j):
        counts.append((a, j))
        return np.int64(np.unpackbits((X[a] & X[j]).view(np.uint8)).sum())

    monkeypatch.setattr(K, "_and_count", and_count)
    assert tuple(K.last_level_two.py_func(*args)) == tuple(compiled)
    neval = int(compiled[3])
    assert neval > 100 and len(set(counts)) < neval / 4


@pytest.mark.parametrize(
    ("name", "mr"),
    [("hepatitis", 4), ("vote", 4), ("soybean", 4), ("lymph", 4), ("primary-tumor", 5)],
)
def test_deeper_levels_on_dl_data(name, mr):
    """Levels 3+ stored and a generic last level (k >= 3) against the oracle on real data
    (random matrices rarely reach deep levels with many kept candidates)."""
    X, y = _dl(name)
    ref = _triple(enum_search(X, y, max_rules=mr, node_size=1, solver="enum_py"))
    assert _triple(enum_search(X, y, max_rules=mr, node_size=1)) == ref
    with _tuned(chunk_slots=5000, par_min_slots=1):
        assert _triple(enum_search(X, y, max_rules=mr, node_size=1)) == ref
    with _tuned(chunk_slots=5000, par_min_slots=1, gram_max_cols=0):
        assert _triple(enum_search(X, y, max_rules=mr, node_size=1)) == ref


# ---------------------------------------------------------------------------------------
# determinism, limits, compilation


def test_thread_count_does_not_change_results():
    cases = [("ionosphere", 3), ("vehicle", 4), ("anneal", 4)]
    old = numba.get_num_threads()
    try:
        for name, mr in cases:
            X, y = _dl(name)
            with _tuned(par_min_slots=1):  # every chunk in parallel when threads > 1
                numba.set_num_threads(old)
                par = _triple(enum_search(X, y, max_rules=mr))
                numba.set_num_threads(1)
                ser = _triple(enum_search(X, y, max_rules=mr))
            assert par == ser, name
    finally:
        numba.set_num_threads(old)


def test_time_limit_stops_after_a_whole_level():
    X, y = _dl("anneal")
    for solver in ("enum_c", "enum_py"):
        two = enum_search(X, y, max_rules=2, node_size=1, solver=solver)
        cut = enum_search(X, y, max_rules=3, node_size=1, time_limit=0, solver=solver)
        assert _triple(cut) == _triple(two)
        full = enum_search(X, y, max_rules=3, node_size=1, solver=solver)
        assert full.neval > cut.neval and full.objval < cut.objval


def test_no_rule_and_one_class():
    B = np.array([[1, 0], [0, 1], [1, 1], [0, 0]])
    res = enum_search(B, [1, 1, 1, 1], max_rules=2)
    assert res == SearchResult(cols=(), objval=0.0, neval=2, n1=4, n0=0)
    # a question that does not separate more than half the pairs is not a rule
    res = enum_search([[1], [1], [0], [0]], [1, 0, 1, 0], max_rules=1)
    assert res.cols == () and res.objval == 2.0 and res.neval == 1


def test_counts_are_64_bit():
    n = 200_000  # n0 * n1 = 1e10 overflows R's 32-bit int
    y = np.zeros(n, dtype=np.int8)
    y[: n // 2] = 1
    B = np.zeros((n, 2), dtype=bool)
    B[: n // 2 + 10, 0] = True  # FP = 10, FN = 0
    B[:: 2, 1] = True
    for solver in ("enum_c", "enum_py"):
        res = enum_search(B, y, max_rules=2, solver=solver)
        assert res.cols == (0,)
        assert res.objval == float((n // 2) * 10)


def test_kernels_compile_once():
    rng = np.random.default_rng(1)
    B = rng.integers(0, 2, (50, 12))
    y = rng.integers(0, 2, 50)
    variants = [
        (B, y),
        (B.astype(bool), y.astype(bool)),
        (B.astype(np.int8), y.astype(np.float64)),
        (B.astype(np.float32), y.astype(np.uint8)),
        (pd.DataFrame(B), pd.Series(y)),
    ]
    for Bv, yv in variants:
        for mr in (1, 2, 3, 4):
            enum_search(Bv, yv, list(range(12)), max_rules=mr, node_size=2,
                        no_same_gender_children=True)
    # one signature per kernel (the serial and parallel loops call the phase kernels with
    # the same argument types); the level drivers get a second one only when a level is
    # large enough for the parallel code (par=True instead of None)
    for disp in (K.popcount_rows, K._gram_serial, K._gram_parallel, K._gram_blocked,
                 K._gram_blocked_parallel, K._gram_strip, K.level_one,
                 K._stored_phase1, K._last_phase1, K._last_phase1_k2, K._fill_chunk,
                 K.enum_upto_two):
        assert len(disp.signatures) <= 1, disp
    # level 2 gets a second one when it stores its children (store=True instead of None)
    for disp in (K._extend_level, K._level_two):
        assert len(disp.signatures) <= 2, disp
        assert len({str(s[:-3]) for s in disp.signatures}) <= 1, disp
    # the last level: one per parent width case (k2, kg: True / None for two questions),
    # each serial or parallel
    assert len(K._last_level.signatures) <= 4
    assert len({str(s[:-5]) for s in K._last_level.signatures}) <= 1


@pytest.mark.parametrize("m,W", [(1, 3), (2, 1), (5, 7), (13, 40), (64, 130), (130, 9)])
def test_gram_kernels_equal_numpy(m, W):
    """The pair-by-pair, the 4 x 4 blocked and the parallel blocked Gram matrices are
    the AND-popcounts of every pair of rows, computed with numpy (diagonal 0)."""
    rng = np.random.default_rng(m * 1000 + W)
    X = rng.integers(0, 2**63, size=(m, W), dtype=np.uint64)
    X[:, -1] &= np.uint64(2**40 - 1)  # padding-like last words
    bits = np.unpackbits(X.view(np.uint8), axis=1).astype(np.int64)
    ref = bits @ bits.T
    np.fill_diagonal(ref, 0)
    kernels = (K._gram_serial, K._gram_blocked, K._gram_parallel, K._gram_blocked_parallel)
    for kernel in kernels:
        G = np.zeros((m, m), np.int32)
        kernel(X, G, np.arange(m, dtype=np.int64))
        assert np.array_equal(G, ref), kernel
    # a subset of the rows: their pairs with every later row (mirrored), the rest 0
    for rows in (rng.permutation(m)[: (m + 1) // 2], [m - 1], [0]):
        rows = np.sort(np.asarray(rows, dtype=np.int64))
        want = np.zeros_like(ref)
        for i in rows:
            want[i, i + 1:] = ref[i, i + 1:]
            want[i + 1:, i] = ref[i + 1:, i]
        for kernel in kernels:
            G = np.zeros((m, m), np.int32)
            kernel(X, G, rows)
            assert np.array_equal(G, want), (kernel, rows)
        for par in (False, True):
            assert np.array_equal(K.gram_counts(X, par, rows), want)


# ---------------------------------------------------------------------------------------
# bslearn


def test_bslearn_dataframe_groups_and_text():
    rng = np.random.default_rng(7)
    n = 120
    x = rng.normal(size=n)
    y = (x + 0.3 * rng.normal(size=n) > 0.2).astype(np.int64)
    cols = {
        "x > 0.1": x > 0.1,
        "x > 0.3": x > 0.3,
        "x >= 0.5": x >= 0.5,
        "x < -1": x < -1,
        "z==1": rng.random(n) < 0.2,
    }
    bx = pd.DataFrame({k: v.astype(np.int64) for k, v in cols.items()})
    ctrl = SimpleNamespace(max_rules=3, node_size=1, no_same_gender_children=False,
                           solver_timelimit=180.0, opt_solver="enum_c")
    res = bslearn(bx, y, ctrl)
    assert isinstance(res, BslearnResult)
    groups = question_groups(bx.columns)
    assert len({int(groups[c]) for c in res.cols}) == len(res.cols)
    assert res.rules == " | ".join(bx.columns[c] for c in res.cols)
    assert res.n_rules == len(res.cols)
    ref = enum_search(bx.to_numpy(), y, groups, max_rules=3, node_size=1)
    assert (res.cols, res.objval, res.neval) == _triple(ref)
    # y is used as given (no recoding), like R's bslearn
    flipped = bslearn(bx, 1 - y, ctrl)
    ref_flipped = enum_search(bx.to_numpy(), 1 - y, groups, max_rules=3, node_size=1)
    assert (flipped.cols, flipped.objval, flipped.neval) == _triple(ref_flipped)


def test_bslearn_defaults_and_arrays():
    rng = np.random.default_rng(3)
    B = rng.integers(0, 2, (80, 6))
    y = rng.integers(0, 2, 80)
    res = bslearn(B, y)  # R's bscontrol() defaults: max.rules 2, node.size 0
    ref = enum_search(B, y, None, max_rules=2, node_size=0)
    assert (res.cols, res.objval, res.neval) == _triple(ref)
    assert res.rules == " | ".join(f"V{c + 1}" for c in res.cols)
    # explicit groups override, and a partial control object takes defaults
    res2 = bslearn(B, y, SimpleNamespace(max_rules=3), groups=[0, 0, 0, 1, 1, 1])
    ref2 = enum_search(B, y, [0, 0, 0, 1, 1, 1], max_rules=3, node_size=0)
    assert (res2.cols, res2.objval, res2.neval) == _triple(ref2)
    none = bslearn(np.ones((5, 2), dtype=int), [1, 0, 1, 0, 1])
    assert none.rules == "" and none.n_rules == 0 and none.cols == ()
    with pytest.raises(ValueError, match="solver"):
        bslearn(B, y, SimpleNamespace(opt_solver="nope"))


# ---------------------------------------------------------------------------------------
# bad inputs


@pytest.mark.parametrize(
    ("B", "y", "kw", "exc", "match"),
    [
        ([[0, 2], [1, 0]], [0, 1], {}, ValueError, "only 0 and 1"),
        ([[0, np.nan], [1, 0]], [0, 1], {}, ValueError, "NaN"),
        ([[0, 1], [1, 0]], [0, np.nan], {}, ValueError, "NaN"),
        ([[0, 1], [1, 0]], [0, 2], {}, ValueError, "only 0 and 1"),
        ([[0, 1], [1, 0]], [0, 1, 1], {}, ValueError, "length of y"),
        (np.zeros((0, 3)), [], {}, ValueError, "no rows"),
        (np.zeros((3, 0)), [0, 1, 0], {}, ValueError, "no columns"),
        ([0, 1, 1], [0, 1, 1], {}, ValueError, "2-D"),
        ([["a", "b"], ["c", "d"]], [0, 1], {}, TypeError, "B"),
        ([[0, 1], [1, 0]], [[0, 1]], {}, ValueError, "1-D"),
        ([[0, 1], [1, 0]], [0, 1], {"groups": [1, 2, 3]}, ValueError, "groups"),
        ([[0, 1], [1, 0]], [0, 1], {"groups": [1.5, 2]}, ValueError, "whole"),
        ([[0, 1], [1, 0]], [0, 1], {"max_rules": 0}, ValueError, "max_rules"),
        ([[0, 1], [1, 0]], [0, 1], {"max_rules": 11}, ValueError, "max_rules"),
        ([[0, 1], [1, 0]], [0, 1], {"max_rules": 2.5}, TypeError, "max_rules"),
        ([[0, 1], [1, 0]], [0, 1], {"node_size": -1}, ValueError, "node_size"),
        ([[0, 1], [1, 0]], [0, 1], {"time_limit": -1}, ValueError, "time_limit"),
        ([[0, 1], [1, 0]], [0, 1], {"solver": "nope"}, ValueError, "solver"),
    ],
)
def test_bad_inputs(B, y, kw, exc, match):
    groups = kw.pop("groups", None)
    with pytest.raises(exc, match=match):
        enum_search(np.asarray(B, dtype=object) if isinstance(B, list) else B, y, groups,
                    **kw)
