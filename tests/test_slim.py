"""DT-SLIM (pybsnsing.optimal.slim): SAT encodings against brute force, invariants, starting trees.

The heavier check (an ITI tree of the paper's data improved) runs with
``PYBSNSING_SLOW=1``. Test data: tests/data/dtslim (copied from ../shared/data/dtslim).
"""

from __future__ import annotations

import importlib.util
import os
import re
import sys
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("pysat.solvers")

from hypothesis import HealthCheck, given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

from pybsnsing.optimal.sat_encodings import solve_depth  # noqa: E402
from pybsnsing.optimal.slim import (  # noqa: E402
    _predict,
    greedy_fit,
    min_depth_tree,
    slim_improve,
)

DATA = Path(__file__).parent / "data" / "dtslim"
SLOW = os.environ.get("PYBSNSING_SLOW", "") not in ("", "0")
slow = pytest.mark.skipif(not SLOW, reason="slow DT-SLIM checks: PYBSNSING_SLOW=1")


def _bench():
    path = Path(__file__).parent.parent / "bench" / "bench_slim.py"
    spec = importlib.util.spec_from_file_location("bench_slim", path)
    mod = importlib.util.module_from_spec(spec)
    sys.modules["bench_slim"] = mod
    spec.loader.exec_module(mod)
    return mod


def brute_min_depth(X, y, S=None):
    if S is None:
        S = np.arange(len(y))
    if len(set(y[S].tolist())) <= 1:
        return 0
    best = 99
    for f in range(X.shape[1]):
        s = X[S, f] == 1
        if s.all() or not s.any():
            continue
        best = min(best, 1 + max(brute_min_depth(X, y, S[s]), brute_min_depth(X, y, S[~s])))
    return best


def _tiny(rng):
    n, k, K = rng.integers(1, 11), rng.integers(1, 5), rng.integers(2, 4)
    X = rng.integers(0, 2, (n, k)).astype(np.uint8)
    y = rng.integers(0, K, n)
    X, idx = np.unique(X, axis=0, return_index=True)
    return X, y[idx]


@pytest.mark.parametrize("solver", ["g4", "cd19"])
@pytest.mark.parametrize("encoding", ["depth", "partition"])
def test_min_depth_matches_brute_force(encoding, solver):
    rng = np.random.default_rng(7)
    for _ in range(60):
        X, y = _tiny(rng)
        m = min_depth_tree(X, y, encoding=encoding, solver=solver)
        assert m.depth == brute_min_depth(X, y)
        assert m.objective == 0 and m.optimal


def test_cadical_with_time_limit():
    """CaDiCaL has no interrupt in python-sat: with a time limit it is solved in
    conflict-budget slices (answers still exact; a hard call stops near the limit)."""
    rng = np.random.default_rng(11)
    for _ in range(20):
        X, y = _tiny(rng)
        m = min_depth_tree(X, y, encoding="depth", solver="cd19", time_limit=60)
        assert m.depth == brute_min_depth(X, y) and m.optimal


@pytest.mark.parametrize("k", [1, 2, 3, 4])
@pytest.mark.parametrize("encoding", ["depth", "partition", "auto"])
def test_xor_needs_depth_k(k, encoding):
    X = np.array([[(i >> j) & 1 for j in range(k + 1)] for i in range(2 ** (k + 1))], np.uint8)
    y = X[:, :k].sum(1) % 2
    assert min_depth_tree(X, y, encoding=encoding).depth == k


def test_constant_label_depth_zero_and_conflicts():
    X = np.array([[0, 1], [1, 0]], np.uint8)
    assert min_depth_tree(X, ["a", "a"]).depth == 0
    with pytest.raises(ValueError, match="twin"):
        min_depth_tree(np.array([[0], [0]]), [0, 1])


def _load(name):
    a = np.loadtxt(DATA / name, delimiter=",", dtype=np.int64)
    return a[:, :-1].astype(np.uint8), a[:, -1]


@pytest.mark.parametrize("name", ["monks-1_bin.data", "monks-2_bin.data", "monks-3_bin.data",
                                  "tic-tac-toe_bin-0.data"])
def test_encodings_agree_on_subsamples(name):
    X, y = _load(name)
    rng = np.random.default_rng(3)
    for _ in range(2):
        idx = rng.choice(len(y), 24, replace=False)
        a = min_depth_tree(X[idx], y[idx], encoding="depth", time_limit=60)
        b = min_depth_tree(X[idx], y[idx], encoding="partition", time_limit=60)
        assert a.optimal and b.optimal and a.depth == b.depth


def _check_slim(X, y, start, **kw):
    res = slim_improve(start, X, y, **kw)
    depths = [res.initial_depth] + [t["depth"] for t in res.trace]
    assert all(a >= b for a, b in zip(depths, depths[1:], strict=False))
    assert all(t["train_acc"] == 1.0 for t in res.trace)
    assert res.tree.objective == 0
    assert (res.tree.predict(X) == np.asarray(y)).all()
    assert res.final_depth <= res.initial_depth
    return res


@settings(max_examples=25, deadline=None, suppress_health_check=list(HealthCheck))
@given(st.integers(0, 2 ** 31 - 1), st.integers(8, 80), st.integers(2, 8), st.integers(2, 3))
def test_slim_invariants_random(seed, n, k, K):
    rng = np.random.default_rng(seed)
    X = rng.integers(0, 2, (n, k)).astype(np.uint8)
    y = (X[:, 0] ^ X[:, 1 % k]) * (K - 1) + (rng.random(n) < 0.3)
    X, idx = np.unique(X, axis=0, return_index=True)
    y = np.minimum(y[idx], K - 1)
    g = greedy_fit(X, y, criterion="entropy")
    res = _check_slim(X, y, g, budget=60, sat_timeout=5, total_time_limit=10)
    if len(y) <= 40:
        assert min_depth_tree(X, y).depth <= res.final_depth


def test_authors_order_when_unreduced_instance_is_too_big(monkeypatch):
    """The authors' order (improve_depth_first.py): the unreduced whole subtree (ls)
    first; when it cannot be encoded, the whole subtree reduced to its own features
    (la) at the HIGHEST node of the path whose reduced instance fits c(depth) -- here
    the root (60 rows <= c_60(d) = 175)."""
    from pybsnsing.optimal import slim as slim_mod

    rng = np.random.default_rng(3)
    X = rng.integers(0, 2, (60, 40)).astype(np.uint8)
    y = X[:, 0] ^ X[:, 1] ^ (X[:, 2] & X[:, 3])
    X, idx = np.unique(X, axis=0, return_index=True)
    y = y[idx]
    g = greedy_fit(X, y)
    real = slim_mod.encoding_size
    monkeypatch.setattr(slim_mod, "encoding_size",
                        lambda n, k, d, enc="auto": 10 ** 12 if k > 30 else real(n, k, d, enc))
    res = _check_slim(X, y, g, budget=60, sat_timeout=10, total_time_limit=30)
    calls = res.stats["calls"]
    assert res.stats["too_big"] >= 1 and calls
    assert (calls[0]["how"], calls[0]["root_depth"], calls[0]["r"], calls[0]["l"]) == \
        ("la", 0, 1, 1)
    assert all(c["features"] <= 30 for c in calls)
    assert {c["how"] for c in calls} <= {"ls", "la", "lr", "ma", "mr"}
    assert res.final_depth < g.depth


def test_sample_limits_are_the_authors_tables():
    from pybsnsing.optimal.slim import PRESETS, sample_limit

    c = sample_limit(300)
    assert [c(d) for d in range(17)] == [300, 300, 300, 300, 270, 270, 270, 270, 270, 270,
                                         250, 200, 200, 175, 90, 90, 0]
    assert PRESETS[300][1:] == (15, 300.0) and PRESETS[60][1] == 12 and PRESETS[800][1] == 38
    assert sample_limit(800)(38) == 105 and sample_limit(800)(39) == 0
    assert sample_limit(60)(11) == 70 and sample_limit(60)(13) == 0


def test_truncated_subtree_is_top_levels():
    """ma: T' = the top k levels of T_u (cuts at depth k), k as large as fits."""
    from pybsnsing.optimal.slim import _initial_tree, _limits, _Slim

    X, y = _load("monks-1_bin.data")
    g = greedy_fit(X, y)
    yc = np.searchsorted(np.unique(y), y)
    root, _ = _initial_tree(g, X, yc, g.classes_, list(g.feature_names))
    climit, dlimit, t_sat = _limits(300, None, None, 10)
    s = _Slim(root, X, yc, len(g.classes_), climit, dlimit, t_sat, "g4", "auto", "auto")
    sel = s.truncated(s.root)
    assert sel is not None
    inner, k, S, lab, cuts, cols, first, inv = sel
    assert 2 <= k <= s.height[id(s.root)] and len(first) <= climit(k)
    assert all(s.depth_of[id(c)] == k for c in cuts)
    assert all(s.depth_of[id(n)] < k for n in s.nodes if id(n) in inner)


def test_known_local_instance_not_solved_again():
    """A local instance refuted once (UNSAT at its target) is not sent to the solver again."""
    from pybsnsing.optimal.slim import _initial_tree, _limits, _Slim

    X, y = _load("monks-3_bin.data")
    X, y = X[:40], y[:40]
    X, idx = np.unique(X, axis=0, return_index=True)
    y = y[idx]
    m = min_depth_tree(X, y)          # already of minimum depth: every local try fails
    Xc, yc = X, np.searchsorted(np.unique(y), y)
    root, _ = _initial_tree(m, Xc, yc, m.classes_, list(m.feature_names))
    climit, dlimit, t_sat = _limits(60, None, None, 10)
    s = _Slim(root, Xc, yc, len(m.classes_), climit, dlimit, t_sat, "g4", "auto", "auto")
    sel = s.subtree(s.root, 0, False)
    assert not s.compute(s.root, sel, None, 0, False)
    assert s.last_status == "unsat"
    calls = s.stats["sat_calls"]
    assert calls >= 1 and s.stats["known"] == 0
    assert not s.compute(s.root, s.subtree(s.root, 0, False), None, 0, False)
    assert s.stats["sat_calls"] == calls and s.stats["known"] == 1
    assert s.last_status == "unsat"


def test_slim_improves_greedy_tree():
    X, y = _load("monks-1_bin.data")
    g = greedy_fit(X, y)
    res = _check_slim(X, y, g, budget=60, sat_timeout=10, total_time_limit=30)
    assert res.final_depth < g.depth
    assert res.trace and {"time", "depth", "nodes", "train_acc", "method"} <= set(res.trace[0])


def test_impure_tree_rejected():
    X, y = _load("monks-1_bin.data")
    m = min_depth_tree(X[:6], y[:6])
    with pytest.raises(ValueError, match="not perfect"):
        slim_improve(m, X, y)


def test_missing_pysat_names_the_extra(monkeypatch):
    monkeypatch.setitem(sys.modules, "pysat", None)
    monkeypatch.setitem(sys.modules, "pysat.solvers", None)
    with pytest.raises(ImportError, match=r'pybsnsing\[sat\]'):
        min_depth_tree(np.array([[0], [1]]), [0, 1])
    with pytest.raises(ImportError, match=r'pybsnsing\[sat\]'):
        solve_depth(np.array([[0], [1]]), np.array([0, 1]), 1)


def test_readers_give_perfect_initial_trees():
    b = _bench()
    X, y = _load("mammographic_masses_bin-0.data")
    classes = sorted(set(y.tolist()))
    codes = np.searchsorted(classes, y)
    for fname, reader in (("mammographic_masses_bin-0.iti", b.read_iti),
                          ("mammographic_masses_bin-0.tree", b.read_weka)):
        text = (DATA / fname).read_text()
        root = reader(text, classes)
        # J48's leaves may hold errors ("(7.0/2.0)"): exactly those rows differ
        errs = sum(float(e) for e in re.findall(r"/([0-9.]+)\)", text))
        assert (_predict(root, X) != codes).sum() == errs, fname
        assert root.depth() == {"iti": 14, "tree": 18}[fname.rsplit(".", 1)[1]]


@slow
def test_iti_tree_made_shallower():
    b = _bench()
    X, y = _load("mammographic_masses_bin-0.data")
    classes = sorted(set(y.tolist()))
    root = b.read_iti((DATA / "mammographic_masses_bin-0.iti").read_text(), classes)
    res = _check_slim(X, y, root, budget=300, sat_timeout=10, total_time_limit=60)
    assert res.final_depth < root.depth()


# ----------------------------------------------------------------- bsnsing models
def _check_bsnsing_slim(model, data, response, **kw):
    from pybsnsing.model import BsnsingModel
    from pybsnsing.rules import parse_rule

    res = slim_improve(model, **kw)
    assert isinstance(res.tree, BsnsingModel)
    depths = [res.initial_depth] + [t["depth"] for t in res.trace]
    assert all(a >= b for a, b in zip(depths, depths[1:], strict=False))
    assert all(t["train_acc"] == 1.0 for t in res.trace)
    t = res.tree
    assert max(nd.depth for nd in t.nodes) == res.final_depth <= res.initial_depth
    # training error 0, by the model's own routing of the training rows and of the data
    assert (t.fitted_values == t.y).all() and t.accuracy == 1.0
    want = np.asarray(data[response].astype(object))
    assert (t.predict(data, type="class") == want).all()
    for nd in t.nodes:
        if not nd.is_leaf:
            assert parse_rule(nd.split_rule)  # a valid bsnsing rule text
            assert nd.nobs > 0
    assert t.ycode == model.ycode and t.design is model.design
    return res


@pytest.mark.parametrize("features", ["both", "rules", "questions"])
def test_slim_bsnsing_kyphosis(features):
    from pybsnsing import bsnsing
    from pybsnsing.datasets import load_dataset

    d = load_dataset("kyphosis")
    m = bsnsing("Kyphosis ~ .", d)
    res = _check_bsnsing_slim(m, d, "Kyphosis", budget=60, sat_timeout=5, total_time_limit=20,
                              features=features)
    bs_depth = max(nd.depth for nd in m.nodes)
    assert res.stats["bsnsing_depth"] == bs_depth and res.stats["purity_splits"] > 0
    if features != "questions":  # the bsnsing tree itself, grown to purity
        assert res.initial_depth >= bs_depth
    assert res.final_depth < res.initial_depth
    # the kept splits are the bsnsing tree's own texts or purity questions "x <= c"
    own = {nd.split_rule for nd in m.nodes if not nd.is_leaf}
    own |= {q for r in own for q in r.split(" | ")}
    for nd in res.tree.nodes:
        if not nd.is_leaf:
            assert nd.split_rule in own or " <= " in nd.split_rule


def test_slim_bsnsing_multiclass_and_errors():
    from pybsnsing import bsnsing
    from pybsnsing.datasets import load_dataset
    from pybsnsing.model import MBsnsingModel

    d = load_dataset("iris")
    m = bsnsing("Species ~ .", d, control={"import_external": False})
    res = slim_improve(m, budget=60, sat_timeout=5, total_time_limit=15)
    assert isinstance(res.tree, MBsnsingModel) and len(res.tree.trees) == 3
    for t in res.tree.trees:
        assert t.accuracy == 1.0
    assert res.final_depth <= res.initial_depth
    assert (res.tree.predict(d, type="class") == np.asarray(d["Species"].astype(object))).all()
    with pytest.raises(ValueError, match="own training rows"):
        slim_improve(m.trees[0], np.zeros((3, 1)), [0, 1, 0])
    # a model without its training design matrix needs the training data frame
    from pybsnsing.model import model_from_dict

    bare = model_from_dict(m.to_dict(include_data=False))
    with pytest.raises(ValueError, match="training data"):
        slim_improve(bare, budget=60)
    res2 = slim_improve(bare, d, budget=60, sat_timeout=5, total_time_limit=15)
    assert (res2.tree.predict(d, type="class") == np.asarray(d["Species"].astype(object))).all()
    with pytest.raises(ValueError, match="features must be"):
        slim_improve(m.trees[0], features="nope")


def test_slim_bsnsing_conflicting_rows_rejected():
    import pandas as pd

    from pybsnsing import bsnsing

    d = pd.DataFrame({"x": [1.0, 1.0, 2.0, 3.0, 4.0, 5.0] * 3,
                      "y": ["a", "b", "a", "b", "a", "b"] * 3})
    m = bsnsing("y ~ x", d)
    with pytest.raises(ValueError, match="no perfect tree"):
        slim_improve(m, budget=60)


@settings(max_examples=8, deadline=None, suppress_health_check=list(HealthCheck))
@given(st.integers(0, 2 ** 31 - 1), st.integers(30, 120))
def test_slim_bsnsing_invariants_random(seed, n):
    import pandas as pd

    from pybsnsing import bsnsing

    rng = np.random.default_rng(seed)
    d = pd.DataFrame({"a": rng.integers(0, 6, n).astype(float), "b": rng.random(n).round(2),
                      "c": pd.Categorical(rng.choice(["u", "v", "w"], n))})
    y = (d.a > 2) ^ (d.b > 0.5) ^ (rng.random(n) < 0.15)
    d["y"] = np.where(y, "yes", "no")
    d = d.drop_duplicates(subset=["a", "b", "c"]).reset_index(drop=True)
    if d.y.nunique() < 2:
        return
    m = bsnsing("y ~ .", d)
    for features in ("both", "questions"):
        _check_bsnsing_slim(m, d, "y", budget=60, sat_timeout=3, total_time_limit=6,
                            features=features)


@pytest.mark.parametrize("d", [1, 2, 3])
def test_depth_encoding_is_the_same_in_small_blocks(monkeypatch, d):
    """The depth encoding builds its clauses block by block (CHUNK_CELLS): tiny blocks,
    so that every block boundary falls inside the rows (a block used to read the class
    bits of all rows: a broadcast error once a tree had more rows than one block), give
    the same clauses as one block."""
    import pybsnsing.optimal.sat_encodings as E

    rng = np.random.default_rng(d)
    X = rng.integers(0, 2, (37, 5)).astype(np.uint8)
    y = rng.integers(0, 3, 37)
    whole, _ = E.encode_depth(X, y, d)
    monkeypatch.setattr(E, "CHUNK_CELLS", 1)
    blocks, _ = E.encode_depth(X, y, d)
    assert blocks == whole and len(whole) > 0


@pytest.mark.parametrize("encoding", ["depth", "partition"])
def test_streamed_blocks_are_the_encoding(encoding):
    """solve_depth hands the solver the clauses block by block (depth_blocks /
    partition_blocks) instead of one list: the blocks are exactly encode_*'s clauses, the
    count solve_depth reports is theirs, and its answer is still the brute-force one."""
    import pybsnsing.optimal.sat_encodings as E

    rng = np.random.default_rng(11)
    for _ in range(12):
        X, y = _tiny(rng)
        if len(set(y.tolist())) < 2:
            continue
        best = brute_min_depth(X, y)
        for d in (max(best - 1, 1), best):
            blocks, _ = getattr(E, f"{encoding}_blocks")(X, y, d)
            whole, _ = getattr(E, f"encode_{encoding}")(X, y, d)
            assert [c for b in blocks for c in b] == whole
            status, tree, info = solve_depth(X, y, d, encoding=encoding, time_limit=30)
            assert info["clauses"] == len(whole)
            assert status == ("sat" if d >= best else "unsat")
            if tree is not None:
                assert (_predict(tree, X) == y).all() and tree.depth() <= d


def _naive_greedy_cover(X, y):
    """Greedy maximum cover as the authors' min_key2 describes it, in plain Python."""
    n, k = X.shape
    pairs = {f: {(a, b) for a in range(n) for b in range(n)
                 if y[a] != y[b] and X[a, f] != X[b, f]} for f in range(k)}
    key = []
    while True:
        f = max(pairs, key=lambda g: (len(pairs[g]), -g), default=None)
        if f is None or not pairs[f]:
            return sorted(key)
        key.append(f)
        hit = pairs.pop(f)
        for g in pairs:
            pairs[g] -= hit


def _is_support(X, y, cols):
    seen = {}
    for row, c in zip(map(tuple, X[:, cols]), y.tolist(), strict=True):
        if seen.setdefault(row, c) != c:
            return False
    return True


def test_greedy_cover_support_set():
    """The third support-set heuristic (the authors' min_key2, greedy maximum cover)
    matches a plain implementation, is a support set, and support_set keeps the
    smallest of the three."""
    from pybsnsing.optimal.slim import _initial_tree, _limits, _Slim, greedy_cover

    rng = np.random.default_rng(5)
    for _ in range(25):
        n, k = int(rng.integers(4, 30)), int(rng.integers(2, 12))
        X = rng.integers(0, 2, (n, k)).astype(np.uint8)
        y = (X[:, 0] ^ (X[:, 1] & X[:, k - 1])).astype(np.int64) + (X[:, 2 % k] > 0) * 2
        X = np.vstack([X, X[:3]])             # duplicate rows are counted once
        y = np.concatenate([y, y[:3]])
        cand = np.flatnonzero(X.min(0) != X.max(0))
        got = greedy_cover(X, y, cand)
        assert got.tolist() == [int(cand[f]) for f in _naive_greedy_cover(X[:, cand], y)]
        assert _is_support(X, y, got)
        g = greedy_fit(X, y)
        root, _ = _initial_tree(g, X, y, g.classes_, list(g.feature_names))
        climit, dlimit, t_sat = _limits(60, None, None, 5)
        s = _Slim(root, X, y, len(g.classes_), climit, dlimit, t_sat, "g4", "auto", "auto")
        both = s.support_set(X, y, cand)
        assert _is_support(X, y, both) and len(both) <= len(got)


def test_known_timeout_not_solved_again():
    """A local instance that timed out is not sent again with (about) as many seconds
    left: the second try would time out too (the seconds left differ by microseconds
    between tries, which used to send it again)."""
    from pybsnsing.optimal.slim import _initial_tree, _Slim

    rng = np.random.default_rng(2)
    X = rng.integers(0, 2, (150, 30)).astype(np.uint8)
    y = (X[:, 0] ^ X[:, 1] ^ X[:, 2] ^ (X[:, 3] & X[:, 4])).astype(np.int64)
    g = greedy_fit(X, y)
    root, _ = _initial_tree(g, X, y, g.classes_, list(g.feature_names))
    s = _Slim(root, X, y, 2, lambda d: 1000, 30, 0.02, "g4", "auto", "auto")
    sel = s.subtree(s.root, 0, True)       # every row, every feature: seconds to encode
    assert sel is not None
    assert not s.compute(s.root, sel, None, 0, True)
    assert s.last_status == "timeout" and s.stats["sat_calls"] == 1
    for _ in range(3):
        assert not s.compute(s.root, s.subtree(s.root, 0, True), None, 0, True)
        assert s.last_status == "timeout"
    assert s.stats["sat_calls"] == 1 and s.stats["known"] == 3


def test_every_cadical_name_is_sliced():
    """python-sat has no ``interrupt`` for any CaDiCaL: all its names must be solved in
    conflict slices (with the timer, "cd15" raised in the timer thread and ran on
    past its time limit)."""
    from pysat.solvers import SolverNames

    from pybsnsing.optimal.sat_encodings import _NO_INTERRUPT

    names = {n for attr in dir(SolverNames) if attr.startswith("cadical")
             for n in getattr(SolverNames, attr)}
    assert names and names <= set(_NO_INTERRUPT)


@pytest.mark.filterwarnings("error::pytest.PytestUnhandledThreadExceptionWarning")
@pytest.mark.parametrize("solver", ["cd15", "cd19"])
def test_cadical_time_limit_kept(solver):
    """A hard call (parity of 6 features, depth 5 asked) stops near its time limit."""
    import time

    rng = np.random.default_rng(5)
    X = np.unique(rng.integers(0, 2, (160, 24)).astype(np.uint8), axis=0)
    y = X[:, :6].sum(1) % 2
    t = time.perf_counter()
    status, _, _ = solve_depth(X, y, 5, encoding="depth", solver=solver, time_limit=0.5)
    assert status == "timeout" and time.perf_counter() - t < 5


def test_clause_cap_follows_the_available_memory(monkeypatch):
    # an encoding's peak is budgeted at BYTES_PER_CLAUSE: with little memory available,
    # larger local instances are skipped instead of the process being killed
    import pybsnsing.optimal.slim as S

    monkeypatch.setattr(S, "_available_memory", lambda: 4 << 30)
    assert S.clause_cap() == int(0.6 * (4 << 30) / S.BYTES_PER_CLAUSE)
    monkeypatch.setattr(S, "_available_memory", lambda: 1 << 50)
    assert S.clause_cap() == S.MAX_CLAUSES
    monkeypatch.setattr(S, "_available_memory", lambda: None)
    assert S.clause_cap() == S.MAX_CLAUSES
    monkeypatch.setattr(S, "_available_memory", lambda: 1 << 20)
    assert S.clause_cap() == 1_000_000
    monkeypatch.undo()
    free = S._available_memory()
    assert free is None or free > 0


# --------------------------------------------------------------------------- MurTree first
def test_murtree_depth_matches_brute_force():
    """murtree_depth answers solve_depth's question (a perfect tree of depth <= d?)
    exactly: SAT at the brute-force minimum depth (with a perfect tree of depth <= d),
    UNSAT one below."""
    from pybsnsing.optimal.slim import murtree_depth

    rng = np.random.default_rng(17)
    seen = set()
    for _ in range(80):
        X, y = _tiny(rng)
        y = np.unique(y, return_inverse=True)[1]
        m = brute_min_depth(X, y)
        for d in range(max(1, m - 1), m + 2):
            status, tree, _ = murtree_depth(X, y, d, 30)
            seen.add(status)
            assert status == ("sat" if d >= m else "unsat")
            if tree is not None:
                assert tree.depth() <= d
                assert (_predict(tree, X) == y).all()
    assert seen == {"sat", "unsat"}


def test_murtree_depth_on_a_chain():
    """A chain-like instance (each feature isolates one row, as one-hot columns of a
    continuous attribute), the shape of weka australian's small local instances whose
    UNSAT proofs took Glucose minutes: MurTree, SAT and brute force agree."""
    from pybsnsing.optimal.slim import murtree_depth

    n = 9
    X = np.eye(n, dtype=np.uint8)[:, : n - 1]  # feature j: row j alone; row n-1: all zero
    y = (np.arange(n) == n - 1).astype(np.int64)  # the all-zero row is the odd one out
    m = brute_min_depth(X, y)
    assert m == n - 1
    assert murtree_depth(X, y, m, 10)[0] == "sat"
    assert murtree_depth(X, y, m - 1, 10)[0] == "unsat"
    assert solve_depth(X, y, m - 1, encoding="depth", time_limit=60)[0] == "unsat"
    with pytest.raises(ValueError, match="depth must be"):
        murtree_depth(X, y, 17, 1)


def test_murtree_depth_deeper_than_murtree_fit_allows():
    """Above murtree_fit's depth 12: a 15-row chain (feature j is 1 on row j only, the
    all-zero row alone in its class) needs depth 14 -- each split isolates one row, so
    the all-zero row's path tests all 14 features."""
    from pybsnsing.optimal.slim import murtree_depth

    n = 15
    X = np.eye(n, dtype=np.uint8)[:, : n - 1]
    y = (np.arange(n) == n - 1).astype(np.int64)
    status, tree, _ = murtree_depth(X, y, 14, 60)
    assert status == "sat" and tree.depth() == 14 and (_predict(tree, X) == y).all()
    assert murtree_depth(X, y, 13, 60)[0] == "unsat"



@pytest.mark.parametrize("murtree_seconds", [0, None, 5.0])
def test_slim_with_and_without_murtree_first(murtree_seconds):
    X, y = _load("monks-1_bin.data")
    g = greedy_fit(X, y)
    res = _check_slim(X, y, g, budget=60, sat_timeout=10, total_time_limit=60,
                      murtree_seconds=murtree_seconds)
    st_ = res.tree.stats
    if murtree_seconds == 0:
        assert st_["murtree_calls"] == 0 and st_["sat_calls"] > 0
        assert all(c["encoding"] != "murtree" for c in st_["calls"])
    else:
        assert st_["murtree_calls"] > 0 and st_["murtree_answers"] > 0
        assert st_["murtree_calls"] == sum(c["encoding"] == "murtree" for c in st_["calls"])
        # a question MurTree left open went on to SAT, nothing else did
        assert st_["sat_calls"] == st_["murtree_calls"] - st_["murtree_answers"] + sum(
            c["target"] > 16 for c in st_["calls"] if c["encoding"] != "murtree")
    assert res.final_depth < g.depth


def test_slim_same_depths_with_murtree_first():
    """MurTree and SAT answer the same questions: from the same tree, with time to
    spare, DT-SLIM ends at the same depth either way."""
    X, y = _load("monks-3_bin.data")
    g = greedy_fit(X, y)
    a = _check_slim(X, y, g, budget=60, sat_timeout=30, murtree_seconds=0)
    b = _check_slim(X, y, g, budget=60, sat_timeout=30, murtree_seconds=30)
    assert a.tree.stats["completed"] and b.tree.stats["completed"]
    assert [t["depth"] for t in a.trace] == [t["depth"] for t in b.trace]


@pytest.mark.parametrize("bad", [-1, float("nan"), "5", True])
def test_slim_murtree_seconds_checked(bad):
    X, y = _load("monks-1_bin.data")
    with pytest.raises(ValueError, match="murtree_seconds"):
        slim_improve(greedy_fit(X, y), X, y, budget=60, murtree_seconds=bad)


@slow
@pytest.mark.parametrize(("start", "name"), [
    ("iti", "mammographic_masses_bin"), ("iti", "hungarian-un"), ("weka", "hungarian-un")])
def test_ci_instances_made_shallower(start, name):
    """The bench's three CI instances (``bench_slim.py --ci``), fold 0 of the paper's own
    starting tree, 15 s each under the d300 preset: shallower, training error 0 and the
    depth non-increasing after every replacement (run_one asserts both)."""
    from conftest import SHARED

    data = SHARED / "data" / "dtslim"
    if not (data / "split").is_dir():
        pytest.skip(f"the paper's DT-SLIM folds and trees: not found at {data}")
    b = _bench()
    assert (start, name) in b.CI_SET
    d0, d1, *_ = b.run_one(data, start, name, 0, budget=300, time_limit=15.0,
                           sat_timeout=None)
    assert d1 < d0
