"""Tests of DPDT (pybsnsing.optimal.dpdt_fit / dpdt).

* exactness: with ``tests="all"`` and alpha = 0 the error count is MurTree's optimum
  (depths 2 and 3 on monk1/2/3, tic-tac-toe, vote, hepatitis);
* brute force (hypothesis): on tiny 0/1 data, for every alpha of the grid DPDT's
  objective is the best over all trees, and its trees are exactly the vertices of the
  lower convex hull of all trees' (tests, errors) points;
* the value recursion of the spec (a grid of alphas, leaf first) gives the same values;
* Proposition 2: with ``tests="cart"`` DPDT beats CART (our own, and scikit-learn's as
  an independent reference) and every tree of its cost-complexity pruning path;
* the paper's Table 1 on bank and segment (tests/data/continuous); htru, magic and
  occupancy need ../shared and run with ``PYBSNSING_SLOW=1``;
* the API: fronts, trees, formula, prediction, persistence, plots, limits, costs.
"""

from __future__ import annotations

import functools
import os
import warnings
from fractions import Fraction

import numpy as np
import pandas as pd
import pytest
from conftest import BINARY, REPO, SHARED
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from pybsnsing.optimal import DPDTResult, dpdt, dpdt_fit, murtree_fit
from pybsnsing.optimal.dpdt import (
    DPDTLimitError,
    DPDTLimitWarning,
    DPDTTreeModel,
    cart_fit,
    cart_pruning_path,
)
from pybsnsing.optimal.dpdt import (
    Test as SplitTest,
)

SLOW = os.environ.get("PYBSNSING_SLOW", "") not in ("", "0")
slow = pytest.mark.skipif(not SLOW, reason="slow DPDT checks: PYBSNSING_SLOW=1")
CONTINUOUS = REPO / "tests" / "data" / "continuous"
MONKS = REPO / "tests" / "data" / "dpdt"


@functools.cache
def load_binary(name: str) -> tuple[np.ndarray, np.ndarray]:
    path = MONKS / f"{name}.txt.gz" if name.startswith("monk") else BINARY / f"{name}.txt.gz"
    a = pd.read_csv(path, sep=" ", header=None).to_numpy(dtype=np.int64)
    return np.ascontiguousarray(a[:, 1:], dtype=np.uint8), a[:, 0]


def folds(folder, stem: str):
    """(X_train, y_train, X_test, y_test) of each of the five folds."""
    parts = []
    for k in range(1, 6):
        a = pd.read_csv(folder / f"{stem}.fold{k}.csv", header=None).to_numpy(dtype=float)
        parts.append((a[:, :-1], a[:, -1].astype(np.int64)))
    for k in range(5):
        Xtr = np.vstack([parts[i][0] for i in range(5) if i != k])
        ytr = np.concatenate([parts[i][1] for i in range(5) if i != k])
        yield Xtr, ytr, parts[k][0], parts[k][1]


def tree_point(model: DPDTTreeModel, X, y) -> tuple[int, int]:
    """(errors, sum of rows over split nodes) of a tree, replayed on the data."""
    errors = int((model.predict(X) != np.asarray(y)).sum())
    leaf = model.apply(X)
    depth = np.array([nd.depth for nd in model.nodes])
    return errors, int(depth[leaf].sum())


# ---------------------------------------------------------------------------
# exactness against MurTree
# ---------------------------------------------------------------------------

EXACT_SETS = ["monk1_bin", "monk2_bin", "monk3_bin", "tic-tac-toe", "vote", "hepatitis"]


@pytest.mark.parametrize("depth", [2, 3])
@pytest.mark.parametrize("name", EXACT_SETS)
def test_all_tests_at_alpha_zero_is_murtree_optimum(name, depth):
    X, y = load_binary(name)
    res = dpdt_fit(X, y, depth, tests="all", alphas=[0.0])
    opt = murtree_fit(X, y, max_depth=depth).objective
    assert res.front.errors.iloc[-1] == opt
    tree = res.tree()
    assert tree.objective == opt
    assert int((tree.predict(X) != y).sum()) == opt
    assert tree.depth <= depth
    assert res.complete and tree.optimal


def test_tic_tac_toe_published_optima():
    X, y = load_binary("tic-tac-toe")
    got = [dpdt_fit(X, y, d, tests="all", alphas=[0.0]).front.errors.iloc[-1] for d in (2, 3)]
    assert got == [282, 216]


@slow
def test_tic_tac_toe_depth_four():
    X, y = load_binary("tic-tac-toe")
    assert dpdt_fit(X, y, 4, tests="all", alphas=[0.0]).front.errors.iloc[-1] == 137


# ---------------------------------------------------------------------------
# brute force on tiny data
# ---------------------------------------------------------------------------


def all_tree_points(X: np.ndarray, y: np.ndarray, depth: int, n_classes: int) -> set:
    """The set of (errors, tests x rows) of every tree of depth <= ``depth`` (splits on
    every feature, also those that send every row one way)."""
    memo: dict = {}

    def rec(rows: tuple, d: int) -> frozenset:
        key = (rows, d)
        if key in memo:
            return memo[key]
        idx = np.asarray(rows, dtype=np.int64)
        cnt = np.bincount(y[idx], minlength=n_classes) if idx.size else np.zeros(1, int)
        pts = {(int(idx.size - cnt.max()), 0)}
        if d > 0:
            for f in range(X.shape[1]):
                left = tuple(r for r in rows if X[r, f] == 1)
                right = tuple(r for r in rows if X[r, f] == 0)
                for el, tl in rec(left, d - 1):
                    for er, tr in rec(right, d - 1):
                        pts.add((el + er, tl + tr + len(rows)))
        memo[key] = frozenset(pts)
        return memo[key]

    return set(rec(tuple(range(X.shape[0])), depth))


def enumerate_trees(m: int, depth: int):
    """Every tree over m binary features (nested tuples), literally."""
    yield None
    if depth > 0:
        subs = list(enumerate_trees(m, depth - 1))
        for f in range(m):
            for a in subs:
                for b in subs:
                    yield (f, a, b)


def tree_value(tree, X, y, rows, n_classes) -> tuple[int, int]:
    if tree is None:
        cnt = np.bincount(y[rows], minlength=n_classes) if rows.size else np.zeros(1, int)
        return int(rows.size - cnt.max()), 0
    f, a, b = tree
    el, tl = tree_value(a, X, y, rows[X[rows, f] == 1], n_classes)
    er, tr = tree_value(b, X, y, rows[X[rows, f] == 0], n_classes)
    return el + er, tl + tr + rows.size


def lower_hull(points: set) -> set:
    """Vertices of the lower-left convex hull: the points some alpha >= 0 selects
    (smallest E + alpha T, then smallest T), found by trying every critical alpha and
    the alphas between them."""
    pts = sorted(points)
    crit = {Fraction(0)}
    for e1, t1 in pts:
        for e2, t2 in pts:
            if t2 > t1 and e2 < e1:
                crit.add(Fraction(e1 - e2, t2 - t1))
    crit = sorted(crit)
    probes = crit + [(a + b) / 2 for a, b in zip(crit, crit[1:], strict=False)] + [crit[-1] + 1]
    return {min(pts, key=lambda p: (p[0] + a * p[1], p[1])) for a in probes}


def test_point_sets_match_literal_enumeration():
    rng = np.random.default_rng(5)
    X = rng.integers(0, 2, size=(9, 3))
    y = rng.integers(0, 2, size=9)
    for depth in (1, 2):
        literal = {tree_value(t, X, y, np.arange(9), 2) for t in enumerate_trees(3, depth)}
        assert literal == all_tree_points(X, y, depth, 2)


@st.composite
def tiny_problem(draw):
    n = draw(st.integers(1, 12))
    m = draw(st.integers(1, 4))
    C = draw(st.integers(2, 3))
    X = np.array(draw(st.lists(st.lists(st.integers(0, 1), min_size=m, max_size=m),
                               min_size=n, max_size=n)), dtype=np.uint8)
    y = np.array(draw(st.lists(st.integers(0, C - 1), min_size=n, max_size=n)), dtype=np.int64)
    depth = draw(st.integers(1, 3))
    return X, y, depth


@settings(max_examples=60, suppress_health_check=[HealthCheck.too_slow])
@given(tiny_problem())
def test_brute_force_objective_and_convex_hull(problem):
    X, y, depth = problem
    classes, codes = np.unique(y, return_inverse=True)
    C = len(classes)
    pts = all_tree_points(X, codes, depth, C)
    grid = np.linspace(0, 1, 41)
    res = dpdt_fit(X, y, depth, tests="all", alphas=grid, exact_hull=True)
    n = len(y)
    # the distinct (errors, tests) points are the lower convex hull of all trees' points
    front = {(int(e), int(round(t * n))) for e, t in zip(res.front.errors, res.front.avg_tests,
                                                          strict=True)}
    assert front == lower_hull(pts)
    # for every alpha of the grid, the optimum over all trees
    for a in grid:
        fa = Fraction(float(a))
        best = min(e + fa * t for e, t in pts)
        tree = res.tree_at(a)
        e, t = tree_point(tree, X, y)
        assert e + fa * t == best
        assert res.objective(a) == pytest.approx(float(best) / n, rel=1e-12, abs=1e-15)
    # every front tree is what its row says
    for i in range(len(res.front)):
        e, t = tree_point(res.tree(i), X, y)
        assert (e, t) == (res.front.errors[i], round(res.front.avg_tests[i] * n))


def grid_values(X, y, depth, alphas, C):
    """The spec's recursion on a grid of alphas (exhaustive tests, leaf first):
    V(s) = min(e(s), alpha |X_s| + V(s_L) + V(s_R)), vectorised over alpha."""
    def rec(rows, d):
        cnt = np.bincount(y[rows], minlength=C)
        v = np.full(alphas.shape, float(rows.size - cnt.max()))
        if d == 0 or rows.size == 0:
            return v
        for f in range(X.shape[1]):
            left = rows[X[rows, f] == 1]
            right = rows[X[rows, f] == 0]
            q = alphas * rows.size + rec(left, d - 1) + rec(right, d - 1)
            v = np.minimum(v, q)
        return v

    return rec(np.arange(len(y)), depth)


def test_hull_equals_the_grid_recursion():
    rng = np.random.default_rng(11)
    X = rng.integers(0, 2, size=(40, 5), dtype=np.uint8)
    y = (X[:, 0] ^ X[:, 1]) | (rng.random(40) < 0.2)
    grid = np.linspace(0, 1, 201)
    res = dpdt_fit(X, y, 3, tests="all", alphas=grid)
    ref = grid_values(X, y.astype(np.int64), 3, grid, 2)
    ours = np.array([res.objective(a) * len(y) for a in grid])
    np.testing.assert_allclose(ours, ref, rtol=0, atol=1e-9)


# ---------------------------------------------------------------------------
# Proposition 2: DPDT with CART tests beats CART and its pruning path
# ---------------------------------------------------------------------------


def cart_problem(seed: int, n: int = 200, classes: int = 3):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 4))
    score = X[:, 0] + 0.7 * X[:, 1] * X[:, 2] + 0.5 * rng.normal(size=n)
    y = np.digitize(score, np.quantile(score, np.linspace(0, 1, classes + 1)[1:-1]))
    return X, y


def sk_points(X, y, depth, criterion):
    """(errors, tests x rows) of scikit-learn's CART and every tree of its
    cost-complexity pruning path."""
    tree_mod = pytest.importorskip("sklearn.tree")
    base = tree_mod.DecisionTreeClassifier(max_depth=depth, criterion=criterion, random_state=0)
    alphas = base.cost_complexity_pruning_path(X, y).ccp_alphas
    out = []
    for a in alphas:
        clf = tree_mod.DecisionTreeClassifier(max_depth=depth, criterion=criterion,
                                              random_state=0, ccp_alpha=max(a, 0.0)).fit(X, y)
        t = clf.tree_
        internal = t.feature >= 0
        out.append((int((clf.predict(X) != y).sum()), int(t.n_node_samples[internal].sum())))
    return out


@pytest.mark.parametrize("criterion", ["gini", "entropy"])
@pytest.mark.parametrize("seed", range(3))
@pytest.mark.parametrize("depth,gen", [(2, {"cart_depth": 1}), (3, {"cart_depth": 2}),
                                       (3, {"cart_leaves": (3,)}), (4, {"cart_depth": 3})])
def test_proposition_2(seed, depth, gen, criterion):
    X, y = cart_problem(seed)
    n = len(y)
    grid = np.linspace(0, 1, 201)
    res = dpdt_fit(X, y, depth, tests="cart", alphas=grid, criterion=criterion, **gen)
    own = [(t.objective, round(t.avg_tests * n)) for _a, t in
           cart_pruning_path(cart_fit(X, y, depth, criterion=criterion))]
    sk = sk_points(X, y, depth, criterion)
    for a in grid:
        v = res.objective(a) * n
        assert v <= min(e + a * t for e, t in own) + 1e-9
        assert v <= min(e + a * t for e, t in sk) + 1e-9
    # alpha = 0: at least CART's training accuracy (the dpdt-py test)
    assert res.front.errors.iloc[-1] <= min(e for e, _t in sk)


@pytest.mark.parametrize("criterion", ["gini", "entropy"])
def test_own_cart_is_scikit_learns_cart(criterion):
    tree_mod = pytest.importorskip("sklearn.tree")
    for seed in range(3):
        X, y = cart_problem(seed, n=300)
        for depth in (1, 3, 5):
            ours = cart_fit(X, y, depth, criterion=criterion)
            sk = tree_mod.DecisionTreeClassifier(max_depth=depth, criterion=criterion,
                                                 random_state=0).fit(X, y)
            # same training errors; predictions differ at most where tied splits or
            # tied leaf majorities are resolved differently in small nodes
            assert ours.objective == int((sk.predict(X) != y).sum())
            assert (ours.predict(X) == sk.predict(X)).mean() >= 0.95


def test_cart_generator_is_cart_fit():
    """The generator's depth-first CART (gathered values, boundary points only) gives
    the split nodes of cart_fit's tree (plain scan of every cut), in pre-order."""
    from pybsnsing.kernels import dpdt as K
    from pybsnsing.kernels.sort import argsort_rows

    rng = np.random.default_rng(2)
    for trial in range(40):
        n = int(rng.integers(2, 200))
        X = rng.normal(size=(n, int(rng.integers(1, 5))))
        if trial % 2:
            X = np.round(X, 1)  # ties
        C = int(rng.integers(2, 4))
        y = rng.integers(0, C, n).astype(np.int64)
        xt = np.ascontiguousarray(X.T)
        order = np.ascontiguousarray(argsort_rows(xt), dtype=np.int32)
        xlx = K.xlogx_table(n)
        for depth in (1, 3, 4):
            for crit, name in ((K.ENTROPY, "entropy"), (K.GINI, "gini")):
                for leaf in (1, 3):
                    a = K.cart_tests(xt, y, C, order, depth, 0, leaf, crit, xlx,
                                     np.zeros(n, np.uint8))
                    tree = cart_fit(X, y, depth, criterion=name, min_samples_leaf=leaf)
                    pre = [(t.column, t.threshold) for t in
                           (tree.tests[nd.feature] for nd in tree.nodes if not nd.is_leaf)]
                    assert pre == list(zip(a[0].tolist(), a[1].tolist(), strict=True))


@pytest.mark.parametrize("last_split", ["generator", "best"])
def test_last_level_unit_costs_change_nothing(last_split):
    """With unit costs a state whose children are leaves keeps one test: under
    ``last_split="generator"`` its generator's root test when that test has the fewest
    errors of any threshold split (the shortcut), under ``"best"`` the fewest-errors
    split of all. Explicit unit costs take the general path (every test, resp. every
    feature's best split, into the hull): same fronts, same trees."""
    rng = np.random.default_rng(1)
    used = 0
    for trial in range(12):
        n = int(rng.integers(20, 200))
        X = rng.normal(size=(n, 3))
        if trial % 2:
            X = np.round(X, 1)
        y = (X[:, 0] + rng.normal(size=n) > 0).astype(int) + (X[:, 2] > 0.5) * (trial % 3 == 0)
        for depth, K in ((2, 2), (3, 3)):
            a = dpdt_fit(X, y, depth, cart_depth=K, exact_hull=True, last_split=last_split)
            b = dpdt_fit(X, y, depth, cart_depth=K, exact_hull=True, feature_costs=np.ones(3),
                         last_split=last_split)
            cols = ["errors", "avg_tests", "n_nodes", "depth"]
            assert a.front[cols].equals(b.front[cols])
            assert all(a.tree(i).tests == b.tree(i).tests for i in range(len(a.front)))
            used += a.stats["last_level_shortcuts"]
            assert b.stats["last_level_shortcuts"] == 0
    assert (used > 0) == (last_split == "generator")


def _node_rows(tree, X, k):
    """The rows of ``X`` that reach node ``k`` of a DPDT tree (threshold tests)."""
    parent = {}
    for nd in tree.nodes:
        if not nd.is_leaf:
            parent[nd.left] = (nd.id, True)
            parent[nd.right] = (nd.id, False)
    m = np.ones(X.shape[0], dtype=bool)
    while k in parent:
        k, left = parent[k]
        t = tree.tests[tree.nodes[k].feature]
        goes = X[:, t.column] <= t.threshold
        m &= goes if left else ~goes
    return m


def _fewest_errors_stump(X, y):
    """(errors, column, threshold) of the fewest-errors split ``x <= t`` by brute force
    (first column, then lowest threshold, of a tie; None if no split)."""
    best = None
    for j in range(X.shape[1]):
        v = np.unique(X[:, j])
        for t in (v[:-1] + v[1:]) / 2:
            left = X[:, j] <= t
            e = sum(int(m.sum() - np.bincount(y[m]).max()) for m in (left, ~left))
            if best is None or e < best[0]:
                best = (e, j, t)
    return best


def test_last_split_best_is_the_fewest_errors_stump():
    """``last_split="best"`` (the paper's code): at depth 1 the tree is the fewest-errors
    stump of all (the generator plays no part); at depth 2 and 3 every split node whose
    children are leaves holds its rows' fewest-errors stump, and alpha = 0 gives no
    more errors than the generator's own tests (``"generator"``)."""
    rng = np.random.default_rng(5)
    for trial in range(25):
        n = int(rng.integers(10, 120))
        X = rng.normal(size=(n, 3))
        if trial % 2:
            X = np.round(X, 1)  # ties
        y = (X[:, 0] + 0.8 * X[:, 1] * X[:, 2] + 0.6 * rng.normal(size=n) > 0).astype(int)
        y += (X[:, 2] > 0.8) * (trial % 3 == 0)
        e, j, t = _fewest_errors_stump(X, y)
        one = dpdt_fit(X, y, 1, cart_depth=1, alphas=[0.0]).tree()
        leaf = n - np.bincount(y).max()
        if e < leaf:
            assert one.tests == [SplitTest("le", j, t)] and one.objective == e
        for depth in (2, 3):
            best = dpdt_fit(X, y, depth, cart_depth=2, alphas=[0.0])
            gen = dpdt_fit(X, y, depth, cart_depth=2, alphas=[0.0], last_split="generator")
            assert best.front.errors.iloc[-1] <= gen.front.errors.iloc[-1]
            tree = best.tree()
            for k, nd in enumerate(tree.nodes):
                if nd.is_leaf or nd.depth != depth - 1:
                    continue
                m = _node_rows(tree, X, k)
                ref = _fewest_errors_stump(X[m], y[m])
                test = tree.tests[nd.feature]
                assert (test.column, test.threshold) == (ref[1], ref[2])


@pytest.mark.parametrize("name", ["monk1_bin", "tic-tac-toe", "hepatitis"])
def test_binary_cart_space_equals_threshold_space(name, monkeypatch):
    """On 0/1 data the "cart" generator works on row indices (_BinaryCartSpace): the
    same fronts, tests and trees as the sorted-lists space (_ThresholdSpace)."""
    import sys

    D = sys.modules["pybsnsing.optimal.dpdt"]
    X, y = load_binary(name)
    rng = np.random.default_rng(3)
    settings_ = [dict(cart_depth=2), dict(cart_depth=4, criterion="entropy"),
                 dict(cart_leaves=(5, 3)), dict(cart_depth=3, min_samples_leaf=4)]
    fast = [dpdt_fit(X, y, 3, exact_hull=True, **kw) for kw in settings_]
    yr = rng.permutation(y)  # a harder labelling too
    fast.append(dpdt_fit(X, yr, 3, cart_depth=3, exact_hull=True))
    monkeypatch.setattr(D, "_BinaryCartSpace", D._ThresholdSpace)
    slow_ = [dpdt_fit(X, y, 3, exact_hull=True, **kw) for kw in settings_]
    slow_.append(dpdt_fit(X, yr, 3, cart_depth=3, exact_hull=True))
    cols = ["errors", "avg_tests", "n_nodes", "depth", "alpha_min", "alpha_max"]
    for a, b in zip(fast, slow_, strict=True):
        assert a.front[cols].equals(b.front[cols])
        assert a.stats["states"] == b.stats["states"]
        for i in range(len(a.front)):
            assert a.tree(i).tests == b.tree(i).tests
            assert str(a.tree(i)) == str(b.tree(i))


def test_pruning_path_is_nested_and_ends_in_a_leaf():
    X, y = cart_problem(3)
    path = cart_pruning_path(cart_fit(X, y, 5))
    alphas = [a for a, _t in path]
    assert alphas == sorted(alphas)
    sizes = [t.num_nodes for _a, t in path]
    assert sizes == sorted(sizes, reverse=True) and sizes[-1] == 0
    errs = [t.objective for _a, t in path]
    assert errs == sorted(errs)


# ---------------------------------------------------------------------------
# the paper's Table 1 (depth 3, alpha = 0, train accuracy, mean over five folds)
# ---------------------------------------------------------------------------

# paper: DPDT-5, DPDT-4 train accuracy (%)
TABLE1 = {"banknote": (98.0, 98.0), "segment": (88.2, 88.2), "HTRU_2": (98.0, 98.0),
          "magic04": (83.0, 82.7), "occupancy": (99.4, 99.3)}
# what the five folds here give (bench/results/dpdt_table1.txt; the defaults: entropy
# generator, last_split="best" as the code of the paper's experiments): every set within
# 0.2 points but segment, 87.65/87.65, 0.55 under the paper's 88.2. On the paper's own
# training sets (Quant-BnB's json splits, not shipped) the same settings give 88.20/88.20
# on segment and every other set within 0.1 point (bench/results/dpdt_table1_paper_split.txt),
# so the remaining difference is the split (the folds here are not the paper's), not the
# method. The tolerance for segment is therefore 0.6 points.
TOLERANCE = {"segment": 0.6}


def table1_accuracy(splits, K):
    accs = [100 * dpdt_fit(Xtr, ytr, 3, cart_depth=K, alphas=[0.0]).front.accuracy.iloc[-1]
            for Xtr, ytr, *_ in splits]
    return float(np.mean(accs))


@pytest.mark.parametrize("stem", ["banknote", "segment"])
def test_table1_small_sets(stem):
    for K, paper in zip((5, 4), TABLE1[stem], strict=True):
        acc = table1_accuracy(list(folds(CONTINUOUS, stem)), K)
        assert abs(acc - paper) <= TOLERANCE.get(stem, 0.3), (stem, K, acc)


@slow
@pytest.mark.parametrize("stem", ["HTRU_2", "magic04", "occupancy"])
def test_table1_large_sets(stem):
    d = SHARED / "data" / "continuous"
    if not d.is_dir():
        pytest.skip(f"needs ../shared/data/continuous (not found at {d})")
    if stem == "occupancy":
        a = pd.read_csv(d / "occupancy.train.csv", header=None).to_numpy(dtype=float)
        splits = [(a[:, :-1], a[:, -1].astype(np.int64))]
    else:
        splits = list(folds(d, stem))
    for K, paper in zip((5, 4), TABLE1[stem], strict=True):
        acc = table1_accuracy(splits, K)
        assert abs(acc - paper) <= TOLERANCE.get(stem, 0.3), (stem, K, acc)


# ---------------------------------------------------------------------------
# API
# ---------------------------------------------------------------------------


@pytest.fixture(scope="module")
def bank():
    Xtr, ytr, Xte, yte = next(folds(CONTINUOUS, "banknote"))
    return Xtr, ytr, Xte, yte


def test_front_table_and_trees(bank):
    Xtr, ytr, Xte, yte = bank
    res = dpdt_fit(Xtr, ytr, 3, cart_depth=2, alphas=100)
    assert isinstance(res, DPDTResult)
    f = res.front
    assert list(f.columns[:4]) == ["alpha_min", "alpha_max", "errors", "accuracy"]
    assert f.avg_tests.is_monotonic_increasing and f.errors.is_monotonic_decreasing
    assert f.avg_tests.iloc[0] == 0 and f.n_nodes.iloc[0] == 0  # the root leaf
    assert (f.alpha_min <= f.alpha_max).all() and f.alpha_min.iloc[-1] == 0
    n = len(ytr)
    for i in range(len(f)):
        t = res.tree(i)
        assert tree_point(t, Xtr, ytr) == (f.errors[i], round(f.avg_tests[i] * n))
        assert t.num_nodes == f.n_nodes[i] and t.depth == f.depth[i]
    # the grid front is a subset of the exact hull
    hull = dpdt_fit(Xtr, ytr, 3, cart_depth=2, exact_hull=True).front
    assert set(zip(f.errors, f.n_nodes, strict=True)) <= set(zip(hull.errors, hull.n_nodes,
                                                                 strict=True))
    best = res.best(Xte, yte)
    assert best.validation_accuracy == max(res.scores(Xte, yte).accuracy)
    assert (res.predict(Xte) == res.tree().predict(Xte)).all()
    text = str(res.tree())
    assert "root" in text and "<=" in text and "DPDT tree" in text
    assert "DPDT front" in str(res)


def test_multiclass_formula_front_door_and_persistence(tmp_path):
    from pybsnsing.datasets import load_dataset

    iris = load_dataset("iris")
    res = dpdt("Species ~ .", iris, max_depth=3, cart_depth=2)
    tree = res.tree()
    assert set(tree.classes_) == set(iris.Species.astype(str)) or len(tree.classes_) == 3
    pred = tree.predict(iris)
    assert (pred == iris.Species.to_numpy()).mean() >= 0.97
    path = tmp_path / "tree.json"
    tree.save(path)
    back = DPDTTreeModel.load(path)
    assert (back.predict(iris) == pred).all()
    assert back.tests == tree.tests
    assert tree.predict(iris, type="prob").shape == (150, 3)
    assert "Confusion matrix" in tree.summary()


def test_binary_generators_through_the_formula():
    from pybsnsing.datasets import load_dataset

    ky = load_dataset("kyphosis")
    exact = dpdt("Kyphosis ~ .", ky, max_depth=2, tests="all")
    top = dpdt("Kyphosis ~ .", ky, max_depth=2, tests="binary", top_b=3)
    assert exact.front.errors.iloc[-1] <= top.front.errors.iloc[-1]
    m = exact.tree()
    assert (m.predict(ky) == ky.Kyphosis.to_numpy()).sum() == len(ky) - m.objective
    # "binary" with every feature is "all"
    nfeat = len(exact.feature_names)
    full = dpdt("Kyphosis ~ .", ky, max_depth=2, tests="binary", top_b=nfeat)
    assert full.front.errors.tolist() == exact.front.errors.tolist()


def test_bsnsing_rules_as_tests():
    from pybsnsing.datasets import load_dataset

    bc = load_dataset("BreastCancer").iloc[:300]
    res = dpdt("Class ~ .", bc, max_depth=2, tests="bsnsing", bsnsing_depth=1,
               bsnsing_control={"max_rules": 2})
    tree = res.tree()
    assert tree.num_nodes >= 1
    assert all(t.kind == "rule" for t in tree.tests)
    assert any(" | " in t.rule for t in tree.tests) or tree.tests
    assert int((tree.predict(bc) != bc.Class.to_numpy()).sum()) == tree.objective
    assert res.front.accuracy.iloc[-1] > 0.9
    assert "NOT (" in str(tree)


def test_plots(tmp_path, bank):
    Xtr, ytr, Xte, yte = bank
    res = dpdt_fit(Xtr, ytr, 3, cart_depth=2)
    res.tree().plot(tmp_path / "tree.png")
    res.plot(tmp_path / "front.png", cart=True)
    res.plot(tmp_path / "front_test.svg", metric="errors", X=Xte, y=yte, cart=True)
    for f in ("tree.png", "front.png", "front_test.svg"):
        assert (tmp_path / f).stat().st_size > 1000


def test_limits(bank):
    Xtr, ytr, *_ = bank
    with pytest.raises(DPDTLimitError, match="max_states"):
        dpdt_fit(Xtr, ytr, 3, cart_depth=3, max_states=50, on_limit="raise")
    with pytest.warns(DPDTLimitWarning):
        res = dpdt_fit(Xtr, ytr, 3, cart_depth=3, max_states=50)
    assert not res.complete and res.stats["limit"]
    full = dpdt_fit(Xtr, ytr, 3, cart_depth=3)
    assert res.stats["states"] < full.stats["states"]
    greedy = dpdt_fit(Xtr, ytr, 3, cart_depth=1)
    assert res.front.errors.iloc[-1] <= greedy.front.errors.iloc[-1]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DPDTLimitWarning)
        quick = dpdt_fit(Xtr, ytr, 4, cart_depth=4, time_limit=1e-9)
    assert not quick.complete and "time" in quick.stats["limit"]


def test_feature_costs_change_the_trade_off(bank):
    Xtr, ytr, *_ = bank
    plain = dpdt_fit(Xtr, ytr, 2, cart_depth=2)
    root = plain.tree().tests[plain.tree().nodes[0].feature].column
    costs = np.ones(Xtr.shape[1])
    costs[root] = 50.0
    dear = dpdt_fit(Xtr, ytr, 2, cart_depth=2, feature_costs=costs)
    assert (dear.front.avg_cost >= dear.front.avg_tests).all()
    mid = dear.tree_at(0.01)
    assert all(t.column != root for t in mid.tests)


def test_input_checks():
    X = np.random.default_rng(0).random((20, 3))
    y = np.arange(20) % 2
    with pytest.raises(ValueError, match="tests"):
        dpdt_fit(X, y, tests="exhaustive")
    with pytest.raises(ValueError, match="binary"):
        dpdt_fit(X, y, tests="all")
    Xn = X.copy()
    Xn[0, 0] = np.nan
    with pytest.raises(ValueError, match="missing"):
        dpdt_fit(Xn, y)
    with pytest.raises(ValueError, match="cart_leaves"):
        dpdt_fit(X, y, cart_leaves=(1,))
    with pytest.raises(ValueError, match="feature_costs"):
        dpdt_fit(X, y, feature_costs=[1, 0.5, 1])
    with pytest.raises(ValueError, match="alphas"):
        dpdt_fit(X, y, alphas=[-1.0])
    res = dpdt_fit(X, np.zeros(20), 3)  # one class: a leaf
    assert len(res.front) == 1 and res.front.errors[0] == 0
