"""Case weights (issue 15): ``sample_weight`` / ``class_weight`` in bsnsing(), the
estimator and the weighted ENUM (pybsnsing.weighted).

Invariants: unit weights give exactly the golden trees (through the weighted code path);
whole-number weights give exactly the tree of the data with rows repeated (rules, weighted
counts = the repeated tree's counts, class, prob, prop, node size) on several data sets
for max_rules 1-3; the weighted search equals a brute-force enumeration of the weighted
objective (first minimiser in size-then-lexicographic order) and, for whole-number
weights, the unweighted search on repeated rows.
"""

from __future__ import annotations

import itertools

import numpy as np
import pandas as pd
import pytest
from golden import record_id, split, tree_records
from hypothesis import given, settings
from hypothesis import strategies as st

from pybsnsing import BsnsingClassifier, bscontrol, bsnsing, load_model
from pybsnsing.datasets import dataset_formula, load_dataset
from pybsnsing.errors import InvalidParameterError, PybsnsingValueError
from pybsnsing.search import enum_search
from pybsnsing.weighted import resolve_weights, weighted_enum_search

RECORDS = tree_records()


def _trees(model):
    return getattr(model, "trees", [model])


# ---------------------------------------------------------------------------------------
# unit weights: the golden trees through the weighted path


@pytest.mark.parametrize("rec", RECORDS, ids=record_id)
def test_unit_weights_golden(rec):
    train, _ = split(rec)
    model = bsnsing(rec["formula"], train, control=bscontrol(**rec["control"]),
                    sample_weight=np.ones(train.shape[0]))
    want = [rec] if rec["model_type"] == "binary" else rec["classes"]
    got = _trees(model)
    assert len(got) == len(want)
    for g, w in zip(got, want, strict=True):
        wn = w["nodes"]
        assert len(g.nodes) == len(wn)
        for a, b in zip(g.nodes, wn, strict=True):
            assert (a.number, a.parent, a.lchild, a.rchild, a.n1, a.n0, a.nobs, a.node_class,
                    a.split_rule, a.split_target, a.depth) == (
                b["number"], b["parent"], b["lchild"], b["rchild"], b["n1"], b["n0"],
                b["nobs"], b["class"], b["split_rule"], b["split_target"], b["depth"])
            assert a.prob == b["prob"] and a.prop == b["prop"]
            assert (a.w1, a.w0) == (a.n1, a.n0)
        if rec["model_type"] == "binary":
            assert g.node_size == rec["control_effective"]["node.size"]


# ---------------------------------------------------------------------------------------
# whole-number weights: the tree of the repeated rows


def _node_view(nd, weighted: bool):
    n1, n0 = (int(nd.w1), int(nd.w0)) if weighted else (nd.n1, nd.n0)
    return (nd.number, nd.parent, nd.lchild, nd.rchild, nd.split_rule, n1, n0,
            nd.node_class, nd.prob, nd.prop, nd.depth)


REPLICATED = [("BreastCancer", {}), ("kyphosis", {}), ("pima", {}), ("titanic", {}),
              ("iris", {}), ("birthwt", {}), ("GlaucomaMVF", {"nseg_numeric": 5}),
              ("mammo", {}), ("BreastCancer", {"import_external": False, "node_size": 3})]


@pytest.mark.parametrize("max_rules", [1, 2, 3])
@pytest.mark.parametrize(("name", "ctrl"), REPLICATED, ids=lambda v: str(v))
def test_integer_weights_are_replicated_rows(name, ctrl, max_rules):
    # complete rows here; with missing values: test_integer_weights_are_replicated_rows_with_na
    df = load_dataset(name).dropna().reset_index(drop=True)
    f = dataset_formula(name)
    rng = np.random.default_rng(max_rules + len(name))
    w = rng.integers(0, 4, df.shape[0])
    rep = df.loc[df.index.repeat(w)].reset_index(drop=True)
    want = bsnsing(f, rep, max_rules=max_rules, **ctrl)
    got = bsnsing(f, df, max_rules=max_rules, sample_weight=w, **ctrl)
    for a, b in zip(_trees(want), _trees(got), strict=True):
        assert [_node_view(n, False) for n in a.nodes] == [_node_view(n, True)
                                                           for n in b.nodes]
        assert a.node_size == b.node_size
    # rows of weight 0 are routed to leaves afterwards: every row is in one leaf
    for t in _trees(got):
        leaves = np.concatenate([nd.obs for nd in t.nodes if nd.is_leaf])
        assert np.sort(leaves).tolist() == list(range(len(t.y)))


def _with_na(name):
    """A bundled data set with missing predictor values: its own, or some set here."""
    df = load_dataset(name)
    if not df.drop(columns=dataset_formula(name).split("~")[0].strip()).isna().any().any():
        rng = np.random.default_rng(len(name))
        for col in [c for c in df.columns if pd.api.types.is_float_dtype(df[c])][:2]:
            df.loc[rng.random(df.shape[0]) < 0.1, col] = np.nan
    return df


NA_DATA = [("BreastCancer", {}), ("dystrophy", {}), ("GlaucomaMVF", {"nseg_numeric": 5}),
           ("votes", {}), ("pima", {}), ("iris", {"import_external": False})]


@pytest.mark.parametrize("max_rules", [1, 2])
@pytest.mark.parametrize(("name", "ctrl"), NA_DATA, ids=lambda v: str(v))
def test_integer_weights_are_replicated_rows_with_na(name, ctrl, max_rules):
    """Missing values are imputed with the weighted medians: whole-number weights give
    the repeated data's medians, hence its tree, also with NA."""
    df = _with_na(name)
    f = dataset_formula(name)
    w = np.random.default_rng(7 + max_rules).integers(0, 4, df.shape[0])
    rep = df.loc[df.index.repeat(w)].reset_index(drop=True)
    want = bsnsing(f, rep, max_rules=max_rules, **ctrl)
    got = bsnsing(f, df, max_rules=max_rules, sample_weight=w, **ctrl)
    dw, dg = _trees(want)[0].design, _trees(got)[0].design
    had = ~np.isnan(dw.medians)  # (a column whose NA rows all weigh 0 has none there)
    assert had.any()
    np.testing.assert_array_equal(dg.medians[had], dw.medians[had])
    for a, b in zip(_trees(want), _trees(got), strict=True):
        assert [_node_view(n, False) for n in a.nodes] == [_node_view(n, True)
                                                           for n in b.nodes]
    # predict(impute=True) fills with the same medians, also in a column that had no
    # missing value at fit (the weighted median of the training column)
    new = df.copy()
    for col in new.columns[1:4]:
        new.loc[new.index[::3], col] = np.nan
    np.testing.assert_array_equal(got.predict(new, impute=True),
                                  want.predict(new, impute=True))


def test_weighted_median_is_the_median_of_repeated_values():
    from pybsnsing.rformat import r_median
    from pybsnsing.weighted import weighted_median

    rng = np.random.default_rng(11)
    for _ in range(300):
        n = int(rng.integers(1, 12))
        x = rng.integers(0, 6, n).astype(float)  # ties
        w = rng.integers(0, 4, n)
        if w.sum() == 0:
            w[0] = 1
        assert weighted_median(x, w) == r_median(np.repeat(x, w))
    # unit weights: the median; scaling the weights changes nothing; all zero: unweighted
    x = rng.normal(size=25)
    assert weighted_median(x, np.ones(25)) == r_median(x)
    assert weighted_median(x[:24], np.full(24, 0.25)) == r_median(x[:24])
    assert weighted_median(x, np.zeros(25)) == r_median(x)
    assert weighted_median(np.array([1.0, 2.0, 10.0]), np.array([0.2, 0.2, 0.7])) == 10.0


def test_unweighted_imputation_unchanged():
    """Without weights the medians are the plain training medians (R bsnsing's)."""
    df = load_dataset("BreastCancer")
    m = bsnsing(dataset_formula("BreastCancer"), df)
    j = m.design.names.index("Bare.nuclei")
    assert m.design.medians[j] == float(df["Bare.nuclei"].median())


def test_zero_weights_drop_rows():
    df = load_dataset("BreastCancer")
    f = dataset_formula("BreastCancer")
    w = np.ones(df.shape[0])
    w[::3] = 0
    got = bsnsing(f, df, sample_weight=w)
    want = bsnsing(f, df[w > 0].reset_index(drop=True))
    assert [nd.split_rule for nd in got.nodes] == [nd.split_rule for nd in want.nodes]
    assert [nd.w1 for nd in got.nodes] == [nd.n1 for nd in want.nodes]
    # the printed tree shows the weighted counts
    assert "w1 " in str(got.summary()) and "w1 " not in str(want.summary())


# ---------------------------------------------------------------------------------------
# the weighted search against brute force


def brute_force_weighted(B, y, w, groups, max_rules, node_size, nsgc):
    """Best rule by full enumeration in (size, lexicographic) order: (cols, objval).

    As R's ENUM (and the unweighted search), a rule is extended only from a rule whose
    covered side weighs at least ``node_size``: a rule is a candidate when each of its
    prefixes (columns in increasing order) covers at least ``node_size``.  With
    ``node_size`` 0 (or at most the smallest positive weight) that is no restriction.
    """
    B = np.asarray(B, dtype=bool)
    y = np.asarray(y, dtype=bool)
    n, m = B.shape
    n1 = float(w[y].sum())
    n0 = float(w[~y].sum())
    best_v, best = n0 * n1 / 2, ()
    for size in range(1, max_rules + 1):
        for cols in itertools.combinations(range(m), size):
            if len({int(groups[c]) for c in cols}) < size:
                continue
            if any(float(w[B[:, list(cols[:k])].any(axis=1)].sum()) < node_size
                   for k in range(1, size)):
                continue
            pred = B[:, list(cols)].any(axis=1)
            tp = float(w[pred & y].sum())
            fp = float(w[pred & ~y].sum())
            fn, tn = n1 - tp, n0 - fp
            if tp + fp < node_size or fn + tn < node_size:
                continue
            if nsgc and not ((tp > fp and fn < tn) or (tp < fp and fn > tn)):
                continue
            v = n1 * fp + n0 * fn - 2 * fp * fn
            if v < best_v:
                best_v, best = v, cols
    return tuple(best), float(best_v)


@st.composite
def weighted_problems(draw):
    n = draw(st.integers(1, 30))
    m = draw(st.integers(1, 7))
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    B = (rng.random((n, m)) < rng.uniform(0.05, 0.7, size=m)).astype(np.int64)
    y = (rng.random(n) < draw(st.floats(0.0, 1.0))).astype(np.int64)
    # multiples of 1/8 (exact sums), some zero
    w = rng.integers(0, 25, n) / 8.0
    if not (w > 0).any():
        w[0] = 1.0
    groups = rng.integers(0, draw(st.integers(1, m)), size=m)
    return (B, y, w, groups, draw(st.integers(1, 3)), draw(st.sampled_from([0, 1, 2.5])),
            draw(st.booleans()))


@settings(max_examples=300, deadline=None)
@given(weighted_problems())
def test_weighted_search_is_brute_force(prob):
    B, y, w, groups, mr, ns, nsgc = prob
    res = weighted_enum_search(B, y, w, groups, max_rules=mr, node_size=ns,
                               no_same_gender_children=nsgc)
    assert (res.cols, res.objval) == brute_force_weighted(B, y, w, groups, mr, ns, nsgc)
    # without a node size every combination is a candidate: the plain brute force
    res0 = weighted_enum_search(B, y, w, groups, max_rules=mr, node_size=0,
                                no_same_gender_children=nsgc)
    Bb, yb = B.astype(bool), y.astype(bool)
    n1, n0 = float(w[yb].sum()), float(w[~yb].sum())
    best = min((n1 * float(w[Bb[:, list(c)].any(axis=1) & ~yb].sum())
                + n0 * float(w[~Bb[:, list(c)].any(axis=1) & yb].sum())
                - 2 * float(w[Bb[:, list(c)].any(axis=1) & ~yb].sum())
                * float(w[~Bb[:, list(c)].any(axis=1) & yb].sum()), len(c), c)
               for k in range(1, mr + 1) for c in itertools.combinations(range(B.shape[1]), k)
               if len({int(groups[j]) for j in c}) == k)
    if not nsgc:
        assert res0.objval == min(best[0], n0 * n1 / 2)


@settings(max_examples=150, deadline=None)
@given(weighted_problems())
def test_weighted_search_integer_weights_is_search_on_repeated_rows(prob):
    B, y, w, groups, mr, ns, nsgc = prob
    wi = np.ceil(w).astype(np.int64)
    if wi.sum() == 0:
        wi[0] = 1
    ns = int(ns)
    got = weighted_enum_search(B, y, wi, groups, max_rules=mr, node_size=ns,
                               no_same_gender_children=nsgc)
    want = enum_search(np.repeat(B, wi, axis=0), np.repeat(y, wi), groups, max_rules=mr,
                       node_size=ns, no_same_gender_children=nsgc)
    assert (got.cols, got.objval) == (want.cols, want.objval)


def test_weighted_search_deep_levels_with_bounds():
    """Level 3-4 on a larger problem (the pair bounds settle children): brute force."""
    rng = np.random.default_rng(7)
    n, m = 300, 14
    B = (rng.random((n, m)) < rng.uniform(0.05, 0.4, size=m)).astype(np.int64)
    y = (rng.random(n) < 0.4).astype(np.int64)
    w = rng.integers(1, 9, n) / 4.0
    groups = np.arange(m)
    for mr in (3, 4):
        res = weighted_enum_search(B, y, w, groups, max_rules=mr, node_size=5)
        assert (res.cols, res.objval) == brute_force_weighted(B, y, w, groups, mr, 5, False)


# ---------------------------------------------------------------------------------------
# the user-facing options


def _imbalanced(n=2000, seed=0):
    rng = np.random.default_rng(seed)
    x1 = rng.normal(size=n)
    x2 = rng.normal(size=n)
    p = 1 / (1 + np.exp(-(3 * x1 + 2 * x2 - 7)))
    y = np.where(rng.random(n) < p, "rare", "common")
    return pd.DataFrame({"x1": x1, "x2": x2, "y": pd.Categorical(y, ["common", "rare"])})


def test_class_weight_balanced_finds_the_minority():
    df = _imbalanced()
    share = (df["y"] == "rare").mean()
    assert share < 0.05
    plain = bsnsing("y ~ .", df)
    bal = bsnsing("y ~ .", df, class_weight="balanced")
    assert (plain.predict(df, type="class") == "rare").sum() < (
        bal.predict(df, type="class") == "rare").sum()
    # balanced: both classes weigh n/2 at the root
    root = bal.nodes[0]
    assert root.w1 == pytest.approx(df.shape[0] / 2) and root.w0 == pytest.approx(
        df.shape[0] / 2)
    # a dict by label; the same as sample weights by class
    d = bsnsing("y ~ .", df, class_weight={"rare": 3})
    s = bsnsing("y ~ .", df, sample_weight=np.where(df["y"] == "rare", 3, 1))
    assert d.tree_signature() == s.tree_signature()
    assert [n.w1 for n in d.nodes] == [n.w1 for n in s.nodes]


def test_resolve_weights_and_errors():
    codes = np.array([0, 0, 0, 1])
    w = resolve_weights(None, ["a", "b"], codes, None, "balanced")
    assert w.tolist() == [4 / 6] * 3 + [2.0]
    assert resolve_weights(None, ["a", "b"], codes, [1, 2, 3, 4], {"b": 0.5}).tolist() == [
        1, 2, 3, 2]
    df = load_dataset("kyphosis")
    f = dataset_formula("kyphosis")
    with pytest.raises(InvalidParameterError, match="one weight per row"):
        bsnsing(f, df, sample_weight=[1, 2])
    with pytest.raises(InvalidParameterError, match="non-negative"):
        bsnsing(f, df, sample_weight=-np.ones(df.shape[0]))
    with pytest.raises(InvalidParameterError, match="NaN"):
        bsnsing(f, df, sample_weight=np.full(df.shape[0], np.nan))
    with pytest.raises(InvalidParameterError, match="class_weight"):
        bsnsing(f, df, class_weight="equal")
    with pytest.raises(InvalidParameterError, match="not one of"):
        bsnsing(f, df, class_weight={"maybe": 2})
    with pytest.raises(InvalidParameterError, match="opt_solver"):
        bsnsing(f, df, sample_weight=np.ones(df.shape[0]), opt_solver="enum_py")


def test_weights_save_load_and_estimator(tmp_path):
    df = load_dataset("BreastCancer")
    f = dataset_formula("BreastCancer")
    w = np.random.default_rng(1).uniform(0.5, 2.0, df.shape[0])
    m = bsnsing(f, df, sample_weight=w)
    path = tmp_path / "m.json"
    m.save(path)
    back = load_model(path)
    assert [(n.w1, n.w0) for n in back.nodes] == [(n.w1, n.w0) for n in m.nodes]
    assert str(back) == str(m)
    # the estimator: fit(sample_weight) and class_weight give the same trees
    X = df.drop(columns="Class")
    y = df["Class"].astype(str)
    est = BsnsingClassifier().fit(X, y, sample_weight=w)
    assert [n.split_rule for n in est.model_.nodes] == [n.split_rule for n in m.nodes]
    cw = BsnsingClassifier(class_weight="balanced").fit(X, y)
    ref = bsnsing(f, df, class_weight="balanced")
    assert [n.split_rule for n in cw.model_.nodes] == [n.split_rule for n in ref.nodes]
    assert "class_weight" in cw.get_params()


def test_weighted_tree_through_r_parts():
    """The R node list carries node.w1/node.w0 for a weighted tree only; the tree read
    back (without its row weights, as from R) prints, prunes and ranks variables alike."""
    from pybsnsing.r.convert import R_NODE_FIELDS, model_from_r_parts, model_to_r_parts

    df = load_dataset("BreastCancer")
    f = dataset_formula("BreastCancer")
    w = np.random.default_rng(5).uniform(0.0, 3.0, df.shape[0])
    m = bsnsing(f, df, sample_weight=w)
    parts = model_to_r_parts(m)
    for d in parts["tree.nodes"]:
        assert tuple(d) == (*R_NODE_FIELDS, "node.w1", "node.w0")
    back = model_from_r_parts(parts)
    assert getattr(back, "sample_weight", None) is None
    assert [(n.w1, n.w0) for n in back.nodes] == [(n.w1, n.w0) for n in m.nodes]
    assert str(back.summary()) == str(m.summary())
    assert back.printcp() == m.printcp()
    pd.testing.assert_frame_equal(back.cp_table(), m.cp_table())
    pd.testing.assert_series_equal(back.variable_importance(), m.variable_importance())
    for cp in m.cp_table()["CP"]:
        assert back.prune(cp).tree_signature() == m.prune(cp).tree_signature()
    np.testing.assert_array_equal(back.predict(df), m.predict(df))
    with_data = model_from_r_parts(parts, design=m.design)  # no row weights: no CV
    with pytest.raises(PybsnsingValueError, match="needs the row weights"):
        with_data.cp_table(xval=3)
    unweighted = model_to_r_parts(bsnsing(f, df))
    for d in unweighted["tree.nodes"]:
        assert tuple(d) == R_NODE_FIELDS
    multi = model_to_r_parts(bsnsing("Species ~ .", load_dataset("iris"),
                                     sample_weight=np.tile([1.0, 2.0, 3.0], 50)))
    assert "node.w1" in multi["trees"][1]["tree.nodes"][0]


# ---------------------------------------------------------------------------------------
# importances and pruning of a weighted tree use the weights


def test_weighted_importance_and_pruning_equal_repeated_rows():
    df = load_dataset("BreastCancer").dropna().reset_index(drop=True)
    f = dataset_formula("BreastCancer")
    w = np.random.default_rng(3).integers(1, 4, df.shape[0])
    rep = df.loc[df.index.repeat(w)].reset_index(drop=True)
    got = bsnsing(f, df, sample_weight=w, import_external=False, node_size=5)
    want = bsnsing(f, rep, import_external=False, node_size=5)
    pd.testing.assert_series_equal(got.variable_importance(), want.variable_importance())
    a, b = got.cp_table(), want.cp_table()
    pd.testing.assert_frame_equal(a, b)
    for cp in a["CP"]:
        assert [n.split_rule for n in got.prune(cp).nodes] == [
            n.split_rule for n in want.prune(cp).nodes]
    assert got.printcp().splitlines()[0] == want.printcp().splitlines()[0]
    # cross-validation refits the folds with the weights: same figures as a fit whose
    # folds are weighted (a fold never splits a repeated row here, so no equality with
    # the repeated data); errors are weighted and the table is well-formed
    cx = got.cp_table(xval=3)
    assert np.isfinite(cx["xerror"]).all() and (cx["xerror"] >= 0).all()


# ---------------------------------------------------------------------------------------
# murtree_fit: whole-number weights


def test_murtree_weights_are_repeated_rows():
    from pybsnsing.optimal import murtree_fit

    rng = np.random.default_rng(5)
    X = rng.integers(0, 2, (120, 6))
    y = np.where((X[:, 0] & X[:, 1]) | (X[:, 2] & ~X[:, 3] & 1), "a", "b")
    flip = rng.random(120) < 0.15
    y = np.where(flip, np.where(y == "a", "b", "a"), y)
    w = rng.integers(0, 4, 120)
    got = murtree_fit(X, y, max_depth=3, sample_weight=w)
    want = murtree_fit(np.repeat(X, w, axis=0), np.repeat(y, w), max_depth=3)
    assert got.objective == want.objective
    assert [(n.feature, n.left, n.right, n.counts.tolist()) for n in got.nodes] == [
        (n.feature, n.left, n.right, n.counts.tolist()) for n in want.nodes]
    # the weighted objective is minimal: no worse than the unweighted optimum's weighted errors
    plain = murtree_fit(X, y, max_depth=3)
    pred = plain.predict(X)
    assert got.objective <= int(np.sum(w * (pred != y)))
    cw = murtree_fit(X, y, max_depth=3, class_weight={"a": 3})
    sw = murtree_fit(X, y, max_depth=3, sample_weight=np.where(y == "a", 3, 1))
    assert cw.objective == sw.objective
    with pytest.raises(ValueError, match="whole-number"):
        murtree_fit(X, y, max_depth=2, sample_weight=np.full(120, 0.5))


def test_estimator_ccp_alpha_with_weights():
    """ccp_alpha is per unit of the total weight: integer weights prune as repeated rows."""
    df = load_dataset("BreastCancer").dropna().reset_index(drop=True)
    X = df.drop(columns="Class")
    y = df["Class"].astype(str)
    w = np.random.default_rng(4).integers(1, 4, df.shape[0])
    rep = df.loc[df.index.repeat(w)].reset_index(drop=True)
    for alpha in (0.002, 0.01):
        a = BsnsingClassifier(ccp_alpha=alpha, import_external=False).fit(X, y, sample_weight=w)
        b = BsnsingClassifier(ccp_alpha=alpha, import_external=False).fit(
            rep.drop(columns="Class"), rep["Class"].astype(str))
        assert [n.split_rule for n in a.model_.nodes] == [n.split_rule for n in b.model_.nodes]
