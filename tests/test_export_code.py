"""Rules out: export_text, the tree as Python source and as an SQL CASE expression.

The exported Python and SQL must give exactly ``predict``'s results, on every bundled
data set, with missing values and unseen factor levels in the new data.
"""

from __future__ import annotations

import math
import sqlite3
import warnings

import numpy as np
import pandas as pd
import pytest

import pybsnsing as pb
from pybsnsing.datasets import dataset_formula, list_datasets, load_dataset
from pybsnsing.export.code import _PY_HELPERS, compile_python, export_text, to_python, to_sql
from pybsnsing.rformat import format_r
from pybsnsing.rules import parse_rule

DATASETS = list(list_datasets()["name"])
SEEN: dict[str, set] = {"terms": set(), "ops": set()}


def _messy(df: pd.DataFrame, response: str, seed: int = 0) -> pd.DataFrame:
    """``df`` with 10% missing values per predictor and unseen factor levels."""
    rng = np.random.default_rng(seed)
    new = df.copy()
    for c in new.columns:
        if c == response:
            continue
        if isinstance(new[c].dtype, pd.CategoricalDtype):
            new[c] = new[c].cat.add_categories(["zz_unseen"])
            new.loc[rng.random(len(new)) < 0.1, c] = "zz_unseen"
        elif new[c].dtype.kind in "iu":
            new[c] = new[c].astype("Int64")
        new.loc[rng.random(len(new)) < 0.1, c] = None
    return new.drop(columns=[response])


def _sqlite(frame: pd.DataFrame) -> tuple[sqlite3.Connection, dict[str, str]]:
    out = frame.copy()
    for c in out.columns:
        if isinstance(out[c].dtype, pd.CategoricalDtype):
            out[c] = out[c].astype(object)
    names = {c: f"c{i}" for i, c in enumerate(out.columns)}  # SQLite folds case
    con = sqlite3.connect(":memory:")
    out.rename(columns=names).to_sql("t", con, index=False)
    return con, names


def _record_kinds(model) -> None:
    trees = getattr(model, "trees", [model])
    design = trees[0].design
    for t in trees:
        for nd in t.nodes:
            if nd.is_leaf:
                continue
            for q in parse_rule(nd.split_rule):
                j = design.names.index(q.label)
                SEEN["terms"].add(design.terms[j][0])
                SEEN["ops"].add("==str" if isinstance(q.value, str) or q.op == "%in%"
                                else q.op)


@pytest.mark.parametrize("name", DATASETS)
def test_python_and_sql_equal_predict(name):
    df = load_dataset(name)
    if len(df) > 600:
        df = df.sample(600, random_state=1).reset_index(drop=True)
    response = list_datasets().set_index("name").loc[name, "response"]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        model = pb.bsnsing(dataset_formula(name), df)
        new = _messy(df, response)
        want_class = model.predict(new, type="class")
        want_prob = model.predict(new, type="prob")
    _record_kinds(model)
    rows = new.to_dict("records")
    f_class = compile_python(model)
    f_prob = compile_python(model, type="prob")
    assert [f_class(r) for r in rows] == list(want_class)
    got_prob = np.array([f_prob(r) for r in rows], dtype=np.float64)
    np.testing.assert_array_equal(got_prob.reshape(want_prob.shape), want_prob)
    con, names = _sqlite(new)
    sql_class = [r[0] for r in con.execute(
        f"SELECT {to_sql(model, column_names=names)} FROM t")]
    assert sql_class == list(want_class)
    if isinstance(model, pb.BsnsingModel):
        sql_prob = [r[0] for r in con.execute(
            f"SELECT {to_sql(model, type='prob', column_names=names)} FROM t")]
        np.testing.assert_array_equal(np.array(sql_prob), want_prob)


def test_the_data_sets_ask_every_kind_of_question():
    """mammo's tree asks numeric, dummy and as.character (x=='v') questions."""
    df = load_dataset("mammo")
    model = pb.bsnsing(dataset_formula("mammo"), df)
    _record_kinds(model)
    assert {"numeric", "dummy"} <= SEEN["terms"]
    assert {">", "<", "==", "==str"} <= SEEN["ops"]


def test_ordered_factor_by_hand():
    rng = np.random.default_rng(5)
    n = 300
    o = pd.Categorical(rng.choice(["lo", "mid", "hi"], n), categories=["lo", "mid", "hi"],
                       ordered=True)
    df = pd.DataFrame({"o": o, "x": rng.normal(size=n)})
    df["y"] = np.where((df["o"] == "hi") | (df["x"] > 1), "yes", "no")
    model = pb.bsnsing("y ~ .", df)
    _record_kinds(model)
    assert "poly" in SEEN["terms"]
    new = pd.DataFrame({"o": ["hi", "zz", None, "lo", "mid"], "x": [0.0, 2.0, 0.0, np.nan, 0.5]})
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        want = list(model.predict(new, type="class"))
    assert [compile_python(model)(r) for r in new.to_dict("records")] == want
    con = sqlite3.connect(":memory:")
    new.to_sql("t", con, index=False)
    assert [r[0] for r in con.execute(f"SELECT {to_sql(model)} FROM t")] == want


def test_logical_column_and_unseen_and_missing_by_hand():
    rng = np.random.default_rng(3)
    n = 300
    df = pd.DataFrame({"g": rng.random(n) < 0.5, "f": pd.Categorical(rng.choice(list("abc"), n)),
                       "x": rng.normal(size=n)})
    df["y"] = np.where((df["g"] & (df["x"] > 0)) | (df["f"] == "c"), "yes", "no")
    model = pb.bsnsing("y ~ .", df)
    text = " ".join(nd.split_rule for nd in model.nodes)
    assert "gTRUE" in text and "fc" in text
    new = pd.DataFrame({"g": pd.array([True, None, False, True], dtype="boolean"),
                        "f": ["c", "zz", None, "a"], "x": [1.0, 1.0, np.nan, 2.0]})
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        want = list(model.predict(new, type="class"))
    rows = [{"g": True, "f": "c", "x": 1.0}, {"g": None, "f": "zz", "x": 1.0},
            {"g": False, "f": None, "x": float("nan")}, {"g": "T", "f": "a", "x": 2}]
    assert [compile_python(model)(r) for r in rows] == want
    con = sqlite3.connect(":memory:")
    new.assign(g=new["g"].astype(object)).to_sql("t", con, index=False)
    assert [r[0] for r in con.execute(f"SELECT {to_sql(model)} FROM t")] == want


def test_fallback_number_format_is_r():
    ns: dict = {}
    exec(_PY_HELPERS.replace("from pybsnsing.rformat import format_r as _format_r",
                             "raise ImportError"), ns)
    rng = np.random.default_rng(1)
    values = [1e5, 123456.0, 1e-4, 0.001, 13.0, -1.815, 0.5, 1e15, 1e-20, 2.5e300,
              100000.5, -0.0, 0.1 + 0.2, 1 / 3, 123456789012345678.0]
    values += list(rng.normal(scale=10.0 ** rng.integers(-8, 9, 300)))
    values += [round(float(v), int(d))
               for v, d in zip(rng.normal(size=200), rng.integers(0, 6, 200), strict=True)]
    for v in values:
        assert ns["_format_r"](v) == format_r(v), v
    assert ns["_chr"](True) == "TRUE" and ns["_chr"](np.int64(3)) == "3"
    assert ns["_na"](pd.NA) and ns["_na"](None) and ns["_na"](math.nan)
    assert not ns["_na"]("a")


def test_export_text_shape_and_digits():
    df = load_dataset("kyphosis")
    model = pb.bsnsing("Kyphosis ~ .", df)
    text = export_text(model)
    lines = text.splitlines()
    root = model.nodes[0].split_rule
    assert lines[0] == f"|--- {root}"
    assert f"|--- not ({root})" in lines
    n_leaf_lines = sum("class: " in ln for ln in lines)
    assert n_leaf_lines == model.get_n_leaves()
    for ln in lines:
        assert ln.startswith("|")
    deep = [ln for ln in lines if ln.startswith("|   |   |--- ")]
    assert bool(deep) == (model.get_depth() >= 2)
    short = export_text(model, digits=2, show_proportion=True)
    assert "prob" in short and short != text
    assert "|----- " in export_text(model, spacing=5)
    with pytest.raises(pb.errors.PybsnsingValueError,
                       match="digits must be a positive integer or None, got 0"):
        export_text(model, digits=0)


def test_multiclass_and_classifier_and_optimal():
    from pybsnsing.sklearn import BsnsingClassifier

    df = load_dataset("iris")
    model = pb.bsnsing("Species ~ .", df)
    assert export_text(model).count("vs all.other") == 3
    with pytest.raises(pb.errors.PybsnsingValueError,
                       match="to_sql of a multi-class model gives the class only"):
        to_sql(model, type="prob")
    clf = BsnsingClassifier().fit(df.drop(columns="Species"), df["Species"])
    f = compile_python(clf)
    X = df.drop(columns="Species")
    assert [f(r) for r in X.to_dict("records")] == list(clf.predict(X))


def test_optimal_tree_export():
    from pybsnsing.optimal import OptimalTreeModel, OptimalTreeNode

    mk = OptimalTreeNode
    nodes = [mk(0, 0, 0, "x<=2", 1, 2, np.array([6, 6]), 0),
             mk(1, 1, -1, None, -1, -1, np.array([1, 5]), 1),
             mk(2, 1, -1, None, -1, -1, np.array([5, 1]), 0)]
    m = OptimalTreeModel(nodes=nodes, classes_=np.array(["a", "b"]),
                         feature_names=["x<=2", "z"], objective=2, optimal=True, runtime=0.0,
                         max_depth=1, max_num_nodes=None, n_samples=12)
    X = pd.DataFrame({"x<=2": [0, 1, 1, 0], "z": [1, 1, 0, 0]})
    f = compile_python(m)
    assert [f(r) for r in X.to_dict("records")] == list(m.predict(X.to_numpy()))
    fp = compile_python(m, type="prob")
    np.testing.assert_array_equal(np.array([fp(r) for r in X.to_dict("records")]),
                                  m.predict(X.to_numpy(), type="prob"))
    con = sqlite3.connect(":memory:")
    X.to_sql("t", con, index=False)
    assert [r[0] for r in con.execute(f"SELECT {to_sql(m)} FROM t")] == list(
        m.predict(X.to_numpy()))
    lines = export_text(m).splitlines()
    assert lines[0] == "|--- x > 2" and "|--- x <= 2" in lines


def test_optimal_three_classes_sql_prob_equals_predict():
    """An optimal tree of three classes: to_sql(type="prob") is one CASE per class, named
    by it; the columns equal predict(type="prob") exactly, and type="class" predict."""
    from pybsnsing.optimal import murtree_fit

    rng = np.random.default_rng(4)
    X = pd.DataFrame(rng.integers(0, 2, (300, 5)), columns=["a", "b", "c d", "e", "f"])
    lab = (X["a"] & X["b"]) + X["c d"] + (rng.random(300) < 0.1)
    y = np.array(["lo", "mid", "hi", "top"])[lab.to_numpy()]
    m = murtree_fit(X, y, max_depth=3)
    assert len(m.classes_) >= 3
    new = pd.DataFrame(rng.integers(0, 2, (64, 5)), columns=X.columns)
    con = sqlite3.connect(":memory:")
    new.rename(columns={"c d": "c_d"}).to_sql("t", con, index=False)
    sql = to_sql(m, type="prob", column_names={"c d": "c_d"})
    cur = con.execute(f"SELECT {sql} FROM t")
    assert [d[0] for d in cur.description] == [str(c) for c in m.classes_]
    got = np.array(cur.fetchall(), dtype=np.float64)
    np.testing.assert_array_equal(got, m.predict(new.to_numpy(), type="prob"))
    assert [r[0] for r in con.execute(
        f"SELECT {to_sql(m, column_names={'c d': 'c_d'})} FROM t")] == list(
        m.predict(new.to_numpy()))


def test_to_python_rejects_bad_arguments():
    df = load_dataset("kyphosis")
    model = pb.bsnsing("Kyphosis ~ .", df)
    with pytest.raises(pb.errors.PybsnsingValueError,
                       match="type must be 'class' or 'prob', got 'raw'"):
        to_python(model, type="raw")
    with pytest.raises(pb.errors.PybsnsingValueError,
                       match="name must be a Python identifier, got 'not a name'"):
        to_python(model, name="not a name")
    with pytest.raises(pb.errors.PybsnsingTypeError,
                       match="expected a fitted pybsnsing tree model, got object"):
        to_sql(object())
    t = pb.bsnsing("Kyphosis ~ log(Age) + Number", df)
    if any("log(Age)" in nd.split_rule for nd in t.nodes):
        with pytest.raises(pb.errors.PybsnsingValueError, match="transform"):
            to_sql(t)
