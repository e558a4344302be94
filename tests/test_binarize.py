"""Binarization (R's binarize / binarize.numeric / binarize.factor) against R 1.0.1."""

from __future__ import annotations

import csv
import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from conftest import GOLDEN
from golden import tabular_source
from hypothesis import given, settings
from hypothesis import strategies as st

from pybsnsing.questions import (
    QuestionSet,
    binarize,
    binarize_numeric,
    node_questions,
    numeric_cuts,
)
from pybsnsing.rformat import format_r
from pybsnsing.rules import evaluate_rule, parse_rule

# ---------------------------------------------------------------------------
# golden/binarize_random: every instance, kind and every text
# ---------------------------------------------------------------------------


def _load_instance(folder: Path, k: int) -> tuple[np.ndarray, np.ndarray]:
    with open(folder / f"inst_{k:03d}.csv") as fh:
        rows = list(csv.reader(fh))
    assert rows[0] == ["x", "y"]
    x = np.array([float(r[0]) for r in rows[1:]])
    y = np.array([int(r[1]) for r in rows[1:]])
    return x, y


def test_binarize_random_golden() -> None:
    folder = GOLDEN / "binarize_random"
    with open(folder / "solutions.csv") as fh:
        sols = list(csv.DictReader(fh))
    checked = 0
    mismatches = []
    for sol in sols:
        k = int(sol["k"])
        x, y = _load_instance(folder, k)
        assert len(x) == int(sol["n"])
        kind, texts = binarize_numeric(
            x, "x", y, int(sol["target"]), int(sol["segments"]), int(sol["node_size"])
        )
        expected = sol["out"].split(";") if sol["out"] else []
        if kind != sol["kind"] or texts != expected:
            mismatches.append(k)
        checked += 1
    print(f"binarize_random: {checked - len(mismatches)}/{checked} instances identical")
    assert not mismatches
    assert checked == len(sols) == len(list(folder.glob("inst_*.csv")))


def test_binarize_random_exact_cut_columns() -> None:
    """Question answers use the exact cut doubles; the texts print them."""
    folder = GOLDEN / "binarize_random"
    with open(folder / "solutions.csv") as fh:
        sols = [s for s in csv.DictReader(fh) if s["kind"] == "cuts"]
    for sol in sols:
        x, y = _load_instance(folder, int(sol["k"]))
        res = numeric_cuts(x, y, int(sol["target"]), int(sol["segments"]), int(sol["node_size"]))
        assert res.kind == "cuts"
        assert np.all(np.diff(res.gt) >= 0) and np.all(np.diff(res.lt) >= 0)
        assert res.texts("x") == sol["out"].split(";")
        qs = node_questions(
            x[:, None],
            ["x"],
            y,
            int(sol["target"]),
            nseg_numeric=int(sol["segments"]),
            node_size=int(sol["node_size"]),
            num2factor=0,
        )
        m = len(res.gt) + len(res.lt)
        assert qs.texts == res.texts("x")
        cuts = np.r_[res.gt, res.lt]
        for j in range(m):
            want = x > cuts[j] if j < len(res.gt) else x < cuts[j]
            assert np.array_equal(qs.B[:, j].astype(bool), want)


# ---------------------------------------------------------------------------
# a literal transcription of R 1.0.1's binarize.numeric, as an oracle
# ---------------------------------------------------------------------------


def _r_binarize_numeric(x, y, target, segments, node_size):  # noqa: C901 - mirrors R
    x = [float(v) for v in x]
    y = [int(v) for v in y]
    segments = max(segments, 3)
    x1 = [a for a, b in zip(x, y, strict=True) if b == 1]
    x0 = [a for a, b in zip(x, y, strict=True) if b == 0]
    min1, max1, min0, max0 = min(x1), max(x1), min(x0), max(x0)
    if (min0 < min1 and max0 < min1) or (min1 < min0 and max1 < min0):
        if min(len(x1), len(x0)) < node_size:
            return "empty", []
        if min0 < min1 and max0 < min1:
            return "perfect", [f"x >= {format_r((max0 + min1) / 2)}"]
        return "perfect", [f"x <= {format_r((max1 + min0) / 2)}"]
    order = sorted(range(len(x)), key=lambda i: x[i])  # stable
    ox = [x[i] for i in order]
    oy = [y[i] for i in order]
    maxmin, minmax = max(min1, min0), min(max1, max0)
    ss = [v for v in ox if v < maxmin]
    lo = max(ss) if ss else maxmin
    ss = [v for v in ox if v > minmax]
    up = min(ss) if ss else minmax
    keep = [i for i, v in enumerate(ox) if lo <= v <= up]
    xx = [ox[i] for i in keep]
    yy = [oy[i] for i in keep]
    nn = len(xx)
    gt = []
    for i in range(1, nn):
        if yy[i - 1] != target and yy[i] == target and xx[i - 1] != xx[i]:
            gt.append((xx[i - 1] + xx[i]) / 2)
    lt = []
    for i in range(nn - 2, -1, -1):
        if yy[i + 1] != target and yy[i] == target and xx[i + 1] != xx[i]:
            lt.insert(0, (xx[i + 1] + xx[i]) / 2)
    if len(gt) > segments:
        bsize = round(sum(v < gt[-1] for v in ox) / segments)  # Python round: half even
        kept = []
        for c in gt[:-1]:
            if not kept:
                cnt = sum(v < c for v in ox)
            else:
                cnt = sum(kept[-1] < v < c for v in ox)
            if cnt >= bsize:
                kept.append(c)
        kept.append(gt[-1])
        gt = [c for c in gt if c in kept]
    if len(lt) > segments:
        bsize = round(sum(v > lt[0] for v in ox) / segments)
        kept = []
        for c in reversed(lt[1:]):
            if not kept:
                cnt = sum(v > c for v in ox)
            else:
                cnt = sum(c < v < kept[0] for v in ox)
            if cnt >= bsize:
                kept.insert(0, c)
        kept.insert(0, lt[0])
        lt = [c for c in lt if c in kept]
    if not gt and not lt:
        return "empty", []
    return "cuts", [f"x > {format_r(c)}" for c in gt] + [f"x < {format_r(c)}" for c in lt]


@st.composite
def _instances(draw):
    n = draw(st.integers(min_value=2, max_value=120))
    ndistinct = draw(st.integers(min_value=1, max_value=n))
    pool = draw(
        st.lists(
            st.floats(min_value=-100, max_value=100, allow_nan=False),
            min_size=ndistinct,
            max_size=ndistinct,
        )
    )
    x = draw(st.lists(st.sampled_from(pool), min_size=n, max_size=n))
    y = draw(st.lists(st.integers(0, 1), min_size=n, max_size=n))
    if len(set(y)) < 2:
        y[0] = 1 - y[0] if n > 1 and y[1] == y[0] else y[0]
        if len(set(y)) < 2:
            y[-1] = 1 - y[0]
    target = draw(st.integers(0, 1))
    segments = draw(st.integers(1, 12))
    node_size = draw(st.integers(0, 12))
    return np.array(x), np.array(y), target, segments, node_size


@settings(max_examples=600, deadline=None)
@given(_instances())
def test_numeric_cuts_equals_literal_r(inst) -> None:
    x, y, target, segments, node_size = inst
    assert binarize_numeric(x, "x", y, target, segments, node_size) == _r_binarize_numeric(
        x, y, target, segments, node_size
    )


def test_thinning_is_uncapped_and_can_exceed_segments() -> None:
    """1.0.1 commented out the 'stop at segments - 1' line: 21 cuts for segments = 20."""
    x = np.arange(44.0)
    y = np.array([0, 1] * 22)
    kind, texts = binarize_numeric(x, "x", y, target=1, segments=20, node_size=1)
    gts = [t for t in texts if t.startswith("x >")]
    assert kind == "cuts"
    assert len(gts) == 21
    assert gts[0] == "x > 2.5" and gts[-1] == "x > 42.5"


def test_bsize_rounds_half_to_even() -> None:
    """bsize = round(50 / 20) = 2 in R (half to even), not 3."""
    x = np.arange(52.0)
    y = np.array([1, 0] * 26)
    # '>' cuts for target 1 at 1.5, 3.5, ..., 49.5 (25 cuts); #(x < 49.5) = 50
    res = numeric_cuts(x, y, 1, segments=20, node_size=1)
    oracle = _r_binarize_numeric(x, y, 1, 20, 1)[1]
    assert res.texts("x") == oracle
    assert len(res.gt) == 25  # every cut has 2 points since the last kept one: all kept


def test_ties_keep_row_order() -> None:
    """Stable sort: tied x values keep their row order, which decides the cuts (Q12)."""
    x = np.array([1.0, 2.0, 2.0, 3.0])
    # the same (x, y) pairs, only the order of the two rows with x = 2 differs
    a = binarize_numeric(x, "x", np.array([0, 1, 0, 1]), 1, node_size=1)
    b = binarize_numeric(x, "x", np.array([0, 0, 1, 1]), 1, node_size=1)
    assert a == ("cuts", ["x > 1.5", "x > 2.5"])
    assert b == ("empty", [])  # the class change falls between tied values: no cut


def test_perfect_and_node_size() -> None:
    x = np.array([1.0, 2.0, 3.0, 10.0, 11.0])
    y = np.array([0, 0, 0, 1, 1])
    assert binarize_numeric(x, "v", y, 1, node_size=2) == ("perfect", ["v >= 6.5"])
    assert binarize_numeric(x, "v", 1 - y, 0, node_size=2) == ("perfect", ["v <= 6.5"])
    assert binarize_numeric(x, "v", y, 1, node_size=3) == ("empty", [])  # min(n1, n0) < 3
    res = numeric_cuts(x, y, 1, node_size=1)
    assert (res.kind, res.perfect_op, res.perfect_cut) == ("perfect", ">=", 6.5)


def test_numeric_cuts_accepts_presorted_order() -> None:
    rng = np.random.default_rng(3)
    x = rng.integers(0, 30, 300).astype(float)
    y = rng.integers(0, 2, 300)
    order = np.argsort(x, kind="stable")
    a = numeric_cuts(x, y, 1, 5, 1)
    b = numeric_cuts(x, y, 1, 5, 1, order=order)
    assert a.kind == b.kind and np.array_equal(a.gt, b.gt) and np.array_equal(a.lt, b.lt)


# ---------------------------------------------------------------------------
# node_questions: column kinds, texts, order, answers
# ---------------------------------------------------------------------------


def _frame() -> tuple[np.ndarray, list[str], np.ndarray]:
    y = np.array([0, 1, 0, 1, 1, 0, 1, 0, 0, 1, 1, 0])
    num = np.array([5.1, 2.0, 4.4, 1.5, 1.0, 6.0, 3.3, 5.5, 3.9, 0.5, 4.0, 4.9])
    lik = np.array([3, 3, 2, 2, 3, 7, 3, 2, 2, 3, 2.5, 2])  # 4 distinct values
    b = np.array([0, 1, 1, 1, 0, 0, 1, 0, 0, 1, 1, 0], dtype=float)
    return np.column_stack([b, lik, num]), ["b", "lik", "num"], y


def test_node_questions_order_and_texts() -> None:
    X, names, y = _frame()
    qs = node_questions(X, names, y, 1, bin_size=5, node_size=1)
    assert isinstance(qs, QuestionSet)
    lik_num = numeric_cuts(X[:, 1], y, 1, 20, 1).texts("lik")
    num_num = numeric_cuts(X[:, 2], y, 1, 20, 1).texts("num")
    factor_part = [
        "lik=='3'",
        "lik=='2'",
        "lik=='7'",
        "lik=='2.5'",
        "lik%in%c('2.5','7')",  # fewer than 5 rows, table (numeric) order
    ]
    assert qs.texts == lik_num + num_num + factor_part + ["b==0", "b==1"]
    assert qs.B.dtype == np.uint8 and qs.B.shape == (12, len(qs.texts))
    assert qs.cols.tolist() == [1] * len(lik_num) + [2] * len(num_num) + [1] * 5 + [0, 0]
    col = dict(zip(qs.texts, qs.B.T.astype(bool), strict=True))
    assert np.array_equal(col["b==1"], X[:, 0] == 1)
    assert np.array_equal(col["lik=='2.5'"], X[:, 1] == 2.5)
    assert np.array_equal(col["lik%in%c('2.5','7')"], np.isin(X[:, 1], [2.5, 7]))
    # every text re-evaluated on the data gives the same answers here
    data = {n: X[:, j] for j, n in enumerate(names)}
    for t, b in col.items():
        assert np.array_equal(evaluate_rule(t, data), b), t


def test_bin_size_and_num2factor() -> None:
    X, names, y = _frame()
    qs = node_questions(X, names, y, 0, bin_size=1, node_size=1)
    assert not any("%in%" in t for t in qs.texts)  # no value has fewer than 1 row
    qs = node_questions(X, names, y, 0, num2factor=3, node_size=1)
    assert not any("==" in t and t.startswith("lik") for t in qs.texts)  # 4 > 3 distinct


def test_constant_and_binary_columns() -> None:
    y = np.array([0, 1, 0, 1, 1, 0])
    X = np.column_stack([np.zeros(6), np.full(6, 5.0), [1, 1, 0, 0, 1, 1.0]])
    qs = node_questions(X, ["z", "c", "b"], y, 1)
    # an all-zero column is binary; a constant 5 is numeric (no cut) and factor-like
    assert qs.texts == ["c=='5'", "z==0", "z==1", "b==0", "b==1"]
    assert qs.B[:, 0].all() and qs.B[:, 1].all() and not qs.B[:, 2].any()


def test_keep_perfect_option() -> None:
    y = np.array([0, 0, 0, 1, 1, 1, 0, 1])
    X = np.column_stack([[1.0, 2, 3, 7, 8, 9, 2.5, 11], [4.0, 1, 3, 2, 5, 6, 7, 8]])
    names = ["sep", "mix"]
    default = node_questions(X, names, y, 1, num2factor=0)
    assert not any(t.startswith("sep") for t in default.texts)  # Q5: dropped
    fixed = node_questions(X, names, y, 1, num2factor=0, keep_perfect=True)
    assert fixed.texts[0] == "sep >= 5" and fixed.texts[1:] == default.texts
    assert np.array_equal(fixed.B[:, 0].astype(bool), X[:, 0] >= 5)


def test_true_factor_columns() -> None:
    y = np.array([0, 1, 0, 1, 1, 0, 1, 0])
    codes = np.array([2, 0, 0, 2, 2, 0, 0, 2], dtype=float)  # level 'b' (1) unused
    levels = ["a", "b", "c"]
    qs = node_questions(codes[:, None], ["f"], y, 1, factor_cols=[0], factor_levels=[levels])
    assert qs.texts == ["f=='c'", "f=='a'", "f%in%c('a','b','c')"]  # 4, 0, 4 rows < 5
    assert qs.B[:, 2].all()
    qs = node_questions(
        codes[:, None], ["f"], y, 1, factor_cols=[0], factor_levels=[levels], bin_size=1
    )
    # unused level b has 0 < bin_size rows: R's table() lists it, so it is "small"
    assert qs.texts == ["f=='c'", "f=='a'", "f%in%c('b')"]
    assert not qs.B[:, 2].any()
    with pytest.raises(ValueError, match="more levels"):
        node_questions(
            codes[:, None], ["f"], y, 1, factor_cols=[0], factor_levels=[levels], nseg_factor=1
        )
    # a factor whose labels are 0/1 is a binary column
    qs01 = node_questions(
        codes[:, None] / 2, ["g"], y, 1, factor_cols=[0], factor_levels=[["0", "1"]]
    )
    assert qs01.texts == ["g==0", "g==1"]
    assert np.array_equal(qs01.B[:, 1].astype(bool), codes == 2)


def test_without_matrix_and_orders() -> None:
    X, names, y = _frame()
    full = node_questions(X, names, y, 1)
    light = node_questions(X, names, y, 1, with_matrix=False)
    assert light.texts == full.texts and light.B.shape == (12, 0)
    orders = [np.argsort(X[:, j], kind="stable") for j in range(3)]
    pre = node_questions(X, names, y, 1, orders=orders)
    assert pre.texts == full.texts and np.array_equal(pre.B, full.B)


# ---------------------------------------------------------------------------
# errors
# ---------------------------------------------------------------------------


def test_errors() -> None:
    X, names, y = _frame()
    with pytest.raises(ValueError, match="more levels than allowed"):
        node_questions(X, names, y, 1, nseg_factor=3)  # 'lik' has 4 distinct values
    with pytest.raises(ValueError, match="do not match"):
        node_questions(X, names, y[:-1], 1)
    with pytest.raises(ValueError, match="do not match"):
        binarize_numeric(X[:, 2], "num", y[:-1], 1)
    bad = X.copy()
    bad[3, 2] = np.nan
    with pytest.raises(ValueError, match="NaN.*num"):
        node_questions(bad, names, y, 1)
    with pytest.raises(ValueError, match="missing"):
        binarize_numeric(bad[:, 2], "num", y, 1)
    with pytest.raises(ValueError, match="only one unique value"):
        node_questions(X, names, np.ones(12, dtype=int), 1)
    with pytest.raises(ValueError, match="0 and 1"):
        node_questions(X, names, y * 2, 1)
    with pytest.raises(ValueError, match="target"):
        node_questions(X, names, y, 2)
    with pytest.raises(ValueError, match="names"):
        node_questions(X, names[:2], y, 1)
    with pytest.raises(ValueError, match="two-dimensional"):
        node_questions(X[:, 0], names, y, 1)


# ---------------------------------------------------------------------------
# the public data-frame binarize()
# ---------------------------------------------------------------------------


class _Ctl:
    bin_size = 1
    nseg_numeric = 3
    nseg_factor = 20
    num2factor = 10
    node_size = 0


def test_public_binarize_dataframe() -> None:
    df = pd.DataFrame(
        {
            "(Intercept)": 1.0,
            "num": [5.1, 2.0, 4.4, 1.5, 1.0, 6.0, 3.3, 5.5],
            "cat": pd.Categorical(["x", "y", "x", "y", "y", "x", "y", "x"], ["x", "y", "z"]),
            "flag": [True, False, True, False, True, False, False, True],
            "s": ["lo", "hi", "lo", "hi", "hi", "mid", "hi", "lo"],
        }
    )
    y = np.array([0, 1, 0, 1, 1, 0, 1, 0])
    out = binarize(df, y, 1, control={"num2factor": 2})
    assert list(out.columns) == [
        "cat=='x'",
        "cat=='y'",
        "cat%in%c('x','y','z')",  # all levels have < 5 rows
        "s=='lo'",
        "s=='hi'",
        "s=='mid'",
        "s%in%c('hi','lo','mid')",
        "flag==0",
        "flag==1",
    ]  # num perfectly separates y: no question (Q5)
    assert (out.dtypes == np.uint8).all() and out.index.equals(df.index)
    assert out["flag==1"].tolist() == df["flag"].astype(int).tolist()
    out2 = binarize(df, y, 1, control=_Ctl(), keep_perfect=True)
    assert out2.columns[0].startswith("num <= ")
    assert "cat%in%c('z')" in out2.columns  # bin_size 1: only the unused level is small
    out3 = binarize(df, y, 1, control={"bin.size": 1})
    assert "cat%in%c('z')" in out3.columns
    with pytest.raises(ValueError, match="missing"):
        binarize(df.assign(num=[np.nan] + [1.0] * 7), y, 1)


# ---------------------------------------------------------------------------
# golden trees: node membership by rule text, and every internal question of a
# split rule is among node_questions() at that node
# ---------------------------------------------------------------------------


def _read_dataset(name: str) -> tuple[list[str], np.ndarray, np.ndarray]:
    """The design matrix R's formula path builds (treatment dummies), before imputation."""
    src = tabular_source(name)  # the package's bundled copy of the CSV (see golden.py)
    man = pd.read_csv(src.manifest)
    cols = pd.read_csv(src.columns, keep_default_na=False)
    m = man[man["name"] == name].iloc[0]
    c = cols[cols["dataset"] == name]
    fac = {r.column: r.levels.split(";") for r in c.itertuples() if r.r_class == "factor"}
    df = pd.read_csv(src.csv, dtype=str, keep_default_na=False)
    rhs = m["formula"].split("~")[1].strip()
    preds = (
        [r.column for r in c.itertuples() if r.role == "predictor"]
        if rhs == "."
        else [s.strip() for s in rhs.split("+")]
    )
    names: list[str] = []
    data: list[np.ndarray] = []
    for p in preds:
        v = df[p].str.strip()
        miss = (v == "").to_numpy()
        if p in fac:
            for lev in fac[p][1:]:
                names.append(p + lev)
                data.append(np.where(miss, np.nan, (v == lev).to_numpy(dtype=float)))
        else:
            names.append(p)
            data.append(np.array([float(s) if s else np.nan for s in v]))
    labels = df[m["response"]].str.strip().to_numpy()
    return names, np.column_stack(data), labels


def _walk(rec, names, D, labels, nodes, ylabel) -> tuple[int, int]:
    ctl = rec["control_effective"]
    internal = not ctl["import.external"]
    tr = np.asarray(rec["train_rows"]) - 1
    X = D[tr].copy()
    for j in range(X.shape[1]):  # training-median imputation (Q4)
        miss = np.isnan(X[:, j])
        if miss.any():
            X[miss, j] = np.median(X[~miss, j])
    y = (labels[tr] == ylabel).astype(np.int8)
    rows = {0: np.arange(len(tr))}
    nsplit = nq = 0
    for nd in sorted(nodes, key=lambda d: d["number"]):
        r = rows[nd["number"]]
        n1 = int(y[r].sum())
        assert (n1, len(r) - n1) == (nd["n1"], nd["n0"]), (rec["config"], nd["number"])
        if nd["is_leaf"]:
            continue
        mask = evaluate_rule(nd["split_rule"], {n: X[r, j] for j, n in enumerate(names)})
        rows[nd["lchild"]], rows[nd["rchild"]] = r[mask], r[~mask]
        if internal:
            qs = node_questions(
                X[r],
                names,
                y[r],
                nd["class"],
                num2factor=ctl["num2factor"],
                nseg_numeric=ctl["nseg.numeric"],
                nseg_factor=ctl["nseg.factor"],
                bin_size=ctl["bin.size"],
                node_size=ctl["node.size"],
                with_matrix=False,
            )
            have = set(qs.texts)
            for q in parse_rule(nd["split_rule"]):
                assert q.text in have, (rec["dataset"], rec["config"], nd["number"], q.text)
                nq += 1
            nsplit += 1
    return nsplit, nq


def test_golden_trees_membership_and_questions() -> None:
    trees = nodes_checked = questions_checked = 0
    for path in sorted((GOLDEN / "trees").glob("*.json")):
        recs = json.loads(path.read_text())
        names, D, labels = _read_dataset(recs[0]["dataset"])
        if len(set(names)) != len(names):
            continue  # duplicate design names (Q9): R evaluates rules on the first one
        for rec in recs:
            if rec["model_type"] == "binary":
                parts = [(rec["nodes"], rec["ycode"][1])]
            else:
                parts = [(c["nodes"], c["label"]) for c in rec["classes"]]
            for nodes, lab in parts:
                a, b = _walk(rec, names, D, labels, nodes, lab)
                trees += 1
                nodes_checked += a
                questions_checked += b
    print(
        f"golden trees: {trees} trees reproduced node by node; {questions_checked} questions "
        f"of {nodes_checked} internal-only split rules found among node_questions()"
    )
    assert trees > 100 and questions_checked > 1000


# ---------------------------------------------------------------------------
# the question ORDER: a literal ENUM (spec §5, max.rules <= 2) on node_questions()
# must pick exactly R's split rule at every node (ties go to the earlier column)
# ---------------------------------------------------------------------------


def _enum_oracle(B: np.ndarray, yp: np.ndarray, texts: list[str], ctl: dict) -> str:
    """Spec §5 ENUM for max.rules <= 2, vectorised over the second question."""
    node_size, nsgc = ctl["node.size"], ctl["no.same.gender.children"]
    n = len(yp)
    n1 = int(yp.sum())
    n0 = n - n1
    Bf = B.astype(np.float64)
    P, N = Bf[yp == 1], Bf[yp == 0]
    t, f = P.sum(0), N.sum(0)
    groups = np.unique([q.group_key for q in map(_pq, texts)], return_inverse=True)[1]

    def assess(TP, FP):
        FN, TN = n1 - TP, n0 - FP
        v = n1 * FP + n0 * FN - 2 * FP * FN
        npos = TP + FP
        ok = (npos >= node_size) & (n - npos >= node_size)
        acc = np.ones_like(ok)
        if nsgc:
            with np.errstate(invalid="ignore", divide="ignore"):
                lft, rgt = TP / (TP + FP), FN / (FN + TN)
            acc = ((lft > 0.5) & (rgt < 0.5)) | ((lft < 0.5) & (rgt > 0.5))
        return v, ok, acc, FP, FN

    vbest, best, level = n0 * n1 / 2, (), []
    v, ok, acc, FP, FN = assess(t, f)
    for j in np.flatnonzero(ok).tolist():
        if v[j] < vbest and acc[j]:
            vbest, best = v[j], (j,)
        if FP[j] >= n0 / 2:
            tau = v[j] if FN[j] <= n1 / 2 else n0 * (n1 - FN[j])
        else:
            tau = n1 * FP[j] if FN[j] <= n1 / 2 else 0
        if tau < vbest:
            level.append((j, FP[j], FN[j], tau))
    if ctl["max.rules"] >= 2 and level:
        parents = [lv[0] for lv in level]
        G1, G0 = P[:, parents].T @ P, N[:, parents].T @ N  # Gram rows of the parents
        for row, (i, fpi, fni, tau) in enumerate(level):
            if tau >= vbest:
                continue
            js = np.arange(i + 1, B.shape[1])
            v2, ok2, acc2, fp2, fn2 = assess(t[i] + t[js] - G1[row, js], f[i] + f[js] - G0[row, js])
            good = ok2 & acc2 & (groups[js] != groups[i]) & ~((fp2 == fpi) & (fn2 == fni))
            if good.any() and v2[good].min() < vbest:
                k = int(np.flatnonzero(good & (v2 == v2[good].min()))[0])
                vbest, best = v2[k], (i, int(js[k]))
    return " | ".join(texts[k] for k in best)


def _pq(text: str):
    from pybsnsing.rules import parse_question

    return parse_question(text)


def test_golden_trees_enum_oracle_picks_r_rule() -> None:
    nodes_checked = 0
    for path in sorted((GOLDEN / "trees").glob("*.json")):
        recs = json.loads(path.read_text())
        names, D, labels = _read_dataset(recs[0]["dataset"])
        if len(set(names)) != len(names):
            continue
        for rec in recs:
            ctl = rec["control_effective"]
            if ctl["import.external"] or ctl["max.rules"] > 2:
                continue
            parts = (
                [(rec["nodes"], rec["ycode"][1])]
                if rec["model_type"] == "binary"
                else [(c["nodes"], c["label"]) for c in rec["classes"]]
            )
            tr = np.asarray(rec["train_rows"]) - 1
            X = D[tr].copy()
            for j in range(X.shape[1]):
                miss = np.isnan(X[:, j])
                if miss.any():
                    X[miss, j] = np.median(X[~miss, j])
            for nodes, lab in parts:
                y = (labels[tr] == lab).astype(np.int8)
                rows = {0: np.arange(len(tr))}
                for nd in nodes:
                    r = rows[nd["number"]]
                    data = {nm: X[r, j] for j, nm in enumerate(names)}
                    share = max(nd["n1"], nd["n0"]) / nd["nobs"]
                    queued = nd["n1"] and nd["n0"] and nd["nobs"] > ctl["node.size"]
                    if nd["number"] == 0 or (queued and share < ctl["stop.prob"]):
                        qs = node_questions(
                            X[r],
                            names,
                            y[r],
                            nd["class"],
                            num2factor=ctl["num2factor"],
                            nseg_numeric=ctl["nseg.numeric"],
                            nseg_factor=ctl["nseg.factor"],
                            bin_size=ctl["bin.size"],
                            node_size=ctl["node.size"],
                        )
                        yp = y[r] if nd["class"] == 1 else 1 - y[r]
                        pick = _enum_oracle(qs.B, yp, qs.texts, ctl) if qs.texts else ""
                        if pick:
                            left = evaluate_rule(pick, data)
                            if left.all() or not left.any():
                                pick = ""  # null split: leaf
                        assert pick == nd["split_rule"], (rec["dataset"], rec["config"], nd)
                        nodes_checked += 1
                    if nd["split_rule"]:
                        left = evaluate_rule(nd["split_rule"], data)
                        rows[nd["lchild"]], rows[nd["rchild"]] = r[left], r[~left]
    print(f"ENUM oracle on node_questions() reproduced R's choice at {nodes_checked} nodes")
    assert nodes_checked > 1000
