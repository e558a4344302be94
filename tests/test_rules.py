"""Parsing and evaluating rule texts with R's semantics (spec §6, Q6)."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from conftest import GOLDEN
from golden import tabular_source

from pybsnsing.rformat import format_r
from pybsnsing.rules import (
    Question,
    evaluate_question,
    evaluate_rule,
    evaluated_columns,
    parse_question,
    parse_rule,
    rule_variables,
)


def _all_rules(golden: Path) -> list[str]:
    rules = []
    for path in sorted((golden / "trees").glob("*.json")):
        for rec in json.loads(path.read_text()):
            nodes = rec.get("nodes") or [nd for c in rec["classes"] for nd in c["nodes"]]
            rules.extend(nd["split_rule"] for nd in nodes if nd["split_rule"])
    return rules


def test_every_golden_rule_round_trips() -> None:
    rules = _all_rules(GOLDEN)
    ops: set[str] = set()
    for text in rules:
        qs = parse_rule(text)
        assert " | ".join(q.text for q in qs) == text
        for q in qs:
            ops.add(q.op)
            if isinstance(q.value, float) and q.op != "==":
                assert f"{q.name} {q.op} {format_r(q.value)}" == q.text
    print(f"round-tripped {len(rules)} golden split rules; operators seen: {sorted(ops)}")
    assert len(rules) > 1000
    assert ops == {">", "<", ">=", "==", "%in%"}


def test_parse_question_forms() -> None:
    assert parse_question("x.1 > -0.0614164953585714") == Question(
        "x.1", ">", -0.0614164953585714, (), "-0.0614164953585714"
    )
    q = parse_question("lora < 49.892535")
    assert (q.name, q.op, q.value) == ("lora", "<", 49.892535)
    assert parse_question("V47 >= 0.14745").op == ">="
    assert parse_question("x <= 1e+05").value == 1e5
    q = parse_question("SexFemale==0")
    assert (q.name, q.op, q.value, q.text) == ("SexFemale", "==", 0.0, "SexFemale==0")
    q = parse_question("Start=='13'")
    assert (q.name, q.op, q.value, q.text) == ("Start", "==", "13", "Start=='13'")
    q = parse_question("age%in%c('16','17','18','21')")
    assert (q.op, q.values) == ("%in%", ("16", "17", "18", "21"))
    assert q.text == "age%in%c('16','17','18','21')"
    q = parse_question("f%in%c('a, b','c | d')")  # quotes protect commas and bars
    assert q.values == ("a, b", "c | d")
    assert parse_question("x1 > 0.5").group_key == parse_question("x1 >= 3").group_key == "x1>"
    assert parse_question("x1 < 0.5").group_key == "x1<"
    assert parse_question("b==1").group_key == "b==1"


def test_parse_rule_and_variables() -> None:
    text = "Cl.thickness > 6.5 | Bare.nuclei=='10' | f%in%c('x | y','z') | Cl.thickness < 2"
    qs = parse_rule(text)
    assert [q.name for q in qs] == ["Cl.thickness", "Bare.nuclei", "f", "Cl.thickness"]
    assert qs[2].values == ("x | y", "z")
    assert rule_variables(text) == ["Cl.thickness", "Bare.nuclei", "f"]


@pytest.mark.parametrize(
    "bad",
    [
        "",
        "   ",
        "x >",
        "x > abc",
        "x >> 1",
        "x ! 1",
        "x=='a",
        "x%in%c()",
        "x%in%c('a',)",
        "x%in%c('a'",
        "> 1",
        "x > 1 |",
        "x=='a' | y=='b",
    ],
)
def test_parse_errors(bad: str) -> None:
    with pytest.raises(ValueError, match="cannot parse (question|rule)|empty rule text"):
        parse_rule(bad)


def test_parse_type_errors() -> None:
    with pytest.raises(TypeError, match="rule text must be a str, got NoneType"):
        parse_rule(None)  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="question text must be a str, got int"):
        parse_question(3)  # type: ignore[arg-type]


# ---------------------------------------------------------------------------
# evaluation semantics
# ---------------------------------------------------------------------------


def test_printed_value_is_compared_not_the_exact_cut() -> None:
    """Q6: a value between the exact midpoint and its 15-digit print moves side."""
    a, b = 0.12345678901234501, 0.12345678901234509  # neighbours in the data
    cut = (a + b) / 2
    text = f"x > {format_r(cut)}"
    assert text == "x > 0.123456789012345"
    x = np.array([a, b])
    assert (x > cut).tolist() == [False, True]  # the question column (exact cut)
    assert evaluate_rule(text, {"x": x}).tolist() == [True, True]  # the text


def test_missing_values_are_false() -> None:
    x = np.array([1.0, np.nan, 3.0, np.nan])
    z = np.array([0.0, 1.0, np.nan, np.nan])
    cols = {"x": x, "z": z}
    assert evaluate_rule("x > 2", cols).tolist() == [False, False, True, False]
    assert evaluate_rule("x < 2", cols).tolist() == [True, False, False, False]
    assert evaluate_rule("z==1", cols).tolist() == [False, True, False, False]
    assert evaluate_rule("x=='3'", cols).tolist() == [False, False, True, False]
    assert evaluate_rule("x%in%c('1','3')", cols).tolist() == [True, False, True, False]
    # NA | TRUE is TRUE, NA | FALSE is NA (dropped by which())
    assert evaluate_rule("x > 2 | z==1", cols).tolist() == [False, True, True, False]
    s = pd.Series(["a", None, "b", np.nan], dtype=object)
    assert evaluate_rule("f=='a' | f%in%c('b')", {"f": s}).tolist() == [True, False, True, False]
    cat = pd.Categorical(["a", None, "b", "a"])
    assert evaluate_rule("f=='a'", {"f": cat}).tolist() == [True, False, False, True]


def test_string_equality_on_numbers_uses_as_character() -> None:
    """R's x == 'v' converts x with as.character (15 significant digits)."""
    x = np.array([2.9, 2.9000000000000004, 2.95, 1e5, 100000.0, 13.0, -0.0])
    cols = {"x": x}
    assert evaluate_rule("x=='2.9'", cols).tolist() == [1, 1, 0, 0, 0, 0, 0]
    assert evaluate_rule("x=='1e+05'", cols).tolist() == [0, 0, 0, 1, 1, 0, 0]
    assert not evaluate_rule("x=='100000'", cols).any()  # as.character(1e5) is "1e+05"
    assert evaluate_rule("x=='13'", cols).tolist() == [0, 0, 0, 0, 0, 1, 0]
    assert evaluate_rule("x=='0'", cols).tolist() == [0, 0, 0, 0, 0, 0, 1]
    assert evaluate_rule("x%in%c('2.95','13')", cols).tolist() == [0, 0, 1, 0, 0, 1, 0]
    # unquoted numbers compare numerically
    assert evaluate_rule("x==13", cols).tolist() == [0, 0, 0, 0, 0, 1, 0]
    assert evaluate_rule("x==2.9", cols).tolist() == [1, 0, 0, 0, 0, 0, 0]


def test_integer_bool_and_factor_columns() -> None:
    cols = {
        "i": np.array([0, 1, 2, 3]),
        "b": np.array([True, False, True, False]),
        "f": pd.Categorical(["lo", "hi", "0", "1"]),
        "s": np.array(["lo", "hi", "lo", "mid"]),
    }
    assert evaluate_rule("i > 1.5", cols).tolist() == [False, False, True, True]
    assert evaluate_rule("i=='2'", cols).tolist() == [False, False, True, False]
    assert evaluate_rule("b==1", cols).tolist() == [True, False, True, False]
    assert evaluate_rule("b=='TRUE'", cols).tolist() == [True, False, True, False]
    assert evaluate_rule("f=='hi'", cols).tolist() == [False, True, False, False]
    assert evaluate_rule("f==1", cols).tolist() == [False, False, False, True]  # label '1'
    assert not evaluate_rule("f > 0", cols).any()  # R: not meaningful for factors -> NA
    assert evaluate_rule("s%in%c('lo','mid')", cols).tolist() == [True, False, True, True]
    q = parse_question("i < 2")
    assert evaluate_question(q, pd.Series([1, 2, 3])).tolist() == [True, False, False]
    assert evaluate_question("i < 2", [1.0, 5.0]).tolist() == [True, False]


def test_dataframe_input_and_duplicate_names() -> None:
    df = pd.DataFrame([[0.0, 7.0], [1.0, 2.0]], columns=["V11", "V11"])
    assert evaluate_rule("V11==1", df).tolist() == [False, True]  # the first V11 (Q9)
    df2 = pd.DataFrame({"a": [1.0, 5.0], "b": [3.0, 0.0]})
    assert evaluate_rule("a > 2 | b > 2", df2).tolist() == [True, True]
    assert evaluate_rule(parse_rule("a > 2 | b > 2"), df2).tolist() == [True, True]
    assert evaluate_rule(parse_question("a > 2"), df2).tolist() == [False, True]


def test_evaluation_errors() -> None:
    with pytest.raises(KeyError, match="V11.1"):
        evaluate_rule("V11.1 > 0.5", {"V11": np.zeros(3)})  # R: object 'V11.1' not found
    with pytest.raises(KeyError,
                       match=r"object 'zz' not found \(the rule uses a column the data lack\)"):
        evaluate_rule("zz > 0.5", pd.DataFrame({"a": [1.0]}))
    with pytest.raises(ValueError, match="different lengths"):
        evaluate_rule("a > 1 | b > 1", {"a": np.zeros(3), "b": np.zeros(4)})
    with pytest.raises(ValueError, match="a rule needs at least one question"):
        evaluate_rule([], {"a": np.zeros(3)})
    with pytest.raises(ValueError, match="one-dimensional"):
        evaluate_rule("a > 1", {"a": np.zeros((3, 2))})


def test_large_column_string_equality_is_fast() -> None:
    rng = np.random.default_rng(0)
    x = rng.integers(0, 7, 1_000_000) / 2.0
    got = evaluate_rule("x=='1.5' | x%in%c('2','3')", {"x": x})
    assert np.array_equal(got, np.isin(x, [1.5, 2.0, 3.0]))


# ---------------------------------------------------------------------------
# golden trees: the root rule re-evaluated on the training rows gives the children
# ---------------------------------------------------------------------------

NUMERIC_ONLY = ["circ", "diam", "grid", "obli", "ring", "norm3p5", "pima", "Sonar", "kyphosis"]


@pytest.mark.parametrize("name", NUMERIC_ONLY)
def test_golden_children_by_rule_text(name: str) -> None:
    """Every split node's children are the rows where its rule text is TRUE / not TRUE."""
    path = GOLDEN / "trees" / f"{name}.json"
    recs = json.loads(path.read_text())
    df = pd.read_csv(tabular_source(name).csv, dtype=str)  # the bundled copy of the CSV
    rhs = recs[0]["formula"].split("~")[1].strip()
    resp = recs[0]["formula"].split("~")[0].strip()
    preds = [c for c in df.columns if c != resp] if rhs == "." else rhs.split(" + ")
    data = {p: np.array([float(v) for v in df[p]]) for p in preds}
    labels = df[resp].to_numpy()
    checked = 0
    for rec in recs:
        tr = np.asarray(rec["train_rows"]) - 1
        cols = {k: v[tr] for k, v in data.items()}
        y = labels[tr] == rec["ycode"][1]
        rows = {0: np.arange(len(tr))}
        for nd in rec["nodes"]:
            r = rows[nd["number"]]
            assert (int(y[r].sum()), int((~y[r]).sum())) == (nd["n1"], nd["n0"])
            if nd["split_rule"]:
                left = evaluate_rule(nd["split_rule"], {k: v[r] for k, v in cols.items()})
                rows[nd["lchild"]] = r[left]
                rows[nd["rchild"]] = r[~left]
                checked += 1
    assert checked > 0


def test_nullable_and_object_columns() -> None:
    b = pd.Series([True, None, False], dtype="boolean")
    assert evaluate_rule("b==1", {"b": b}).tolist() == [True, False, False]
    assert evaluate_rule("b=='FALSE'", {"b": b}).tolist() == [False, False, True]
    i = pd.Series([1, None, 3], dtype="Int64")
    assert evaluate_rule("i > 1.5", {"i": i}).tolist() == [False, False, True]
    o = np.array([1e5, "a", 2.5, None], dtype=object)
    assert evaluate_rule("o%in%c('1e+05','2.5')", {"o": o}).tolist() == [True, False, True, False]


def test_string_equality_on_numbers_equals_formatting_every_entry() -> None:
    """``x == 'v'`` / ``x %in% c(...)`` on a numeric column (screened by distance to the
    targets, then formatted) equals formatting every entry with R's ``as.character``:
    values that print alike at 15 digits, signed zeros, subnormals, huge values, NaN,
    +-Inf, and targets that are not finite numbers or are many."""
    from pybsnsing.rules import _match_strings

    rng = np.random.default_rng(11)
    base = np.array([2.9, 0.1, 1e5, 13.0, 0.0, 5e-324, 1.7976931348623157e308, -1.815,
                     123456789012345.6, 1e-300])
    with np.errstate(over="ignore"):  # (the largest double's neighbours are inf)
        ulps = np.concatenate([base, np.nextafter(base, np.inf), np.nextafter(base, -np.inf),
                               base * (1 + 3e-15), base * (1 - 4e-15), -base,
                               [np.nan, np.inf, -np.inf, -0.0]])
    texts = sorted({format_r(v) for v in ulps} | {"NaN", "Inf", "abc", "2.90", "1e5", ""})
    for _ in range(200):
        x = rng.choice(ulps, size=int(rng.integers(0, 40)))
        targets = list(rng.choice(texts, size=int(rng.integers(0, 20))))
        want = np.array([not np.isnan(v) and format_r(v) in set(targets) for v in x],
                        dtype=bool)
        missing = np.isnan(x)
        got = _match_strings("num", x, missing if missing.any() else None, targets)
        assert got.tolist() == want.tolist(), (x, targets)


# ---------------------------------------------------------------------------------------
# the tree's kernel split of a node's rows (pybsnsing.tree.rule_sides) answers as
# evaluate_rule on the node's columns


_SIDE_VALUES = [0.0, -0.0, 1.0, -1.5, 0.1, 1e-300, 2.5e15, np.inf, -np.inf, np.nan]


def _side_rules(draw, names: list[str], X: np.ndarray) -> str:
    from hypothesis import strategies as st

    parts = []
    for _ in range(draw(st.integers(1, 4))):
        j = draw(st.integers(0, len(names) - 1))
        op = draw(st.sampled_from([">", "<", ">=", "<=", "==", "in", "=='"]))
        v = draw(st.sampled_from([*X[:, j].tolist(), *_SIDE_VALUES]))
        text = format_r(v)
        if op == "in":  # labels: evaluate_rule answers them (as.character of the values)
            parts.append(f"{names[j]}%in%c('{text}','1')")
        elif op == "=='":
            parts.append(f"{names[j]}=='{text}'")
        elif op == "==":
            parts.append(f"{names[j]}=={text}")
        else:
            parts.append(f"{names[j]} {op} {text}")
    return " | ".join(parts)


def test_rule_sides_answer_as_evaluate_rule() -> None:
    from hypothesis import given
    from hypothesis import strategies as st

    from pybsnsing.tree import NodeColumns, rule_sides

    names = ["a", "b", "`c d`"]

    @given(st.data())
    def check(data) -> None:
        n = data.draw(st.integers(0, 40))
        X = np.asfortranarray(np.array(
            data.draw(st.lists(st.lists(st.sampled_from(_SIDE_VALUES), min_size=3,
                                        max_size=3), min_size=n, max_size=n)),
            dtype=np.float64).reshape(n, 3))
        y = np.array(data.draw(st.lists(st.integers(0, 1), min_size=n, max_size=n)),
                     dtype=np.uint8)
        rows = np.array(sorted(data.draw(st.sets(st.integers(0, max(n - 1, 0)),
                                                 max_size=n))), dtype=np.int64)
        if n == 0:
            rows = rows[:0]
        rule = _side_rules(data.draw, names, X) if n else "a > 1"
        col_of = {nm: j for j, nm in enumerate(names)}
        left = evaluate_rule(rule, NodeColumns(X, rows, col_of))
        got_l, got_r, n1l, n1r = rule_sides(rule, X, rows, col_of, y)
        assert got_l.tolist() == rows[left].tolist()
        assert got_r.tolist() == rows[~left].tolist()
        assert (n1l, n1r) == (int(y[rows[left]].sum()), int(y[rows[~left]].sum()))
        # without labels: no counts
        assert rule_sides(rule, X, rows, col_of)[2:] == (0, 0)

    check()


def test_rule_sides_bad_rule_and_unknown_column() -> None:
    from pybsnsing.errors import PybsnsingKeyError, PybsnsingValueError
    from pybsnsing.tree import rule_sides

    X = np.asfortranarray(np.arange(6, dtype=np.float64).reshape(3, 2))
    rows = np.arange(3, dtype=np.int64)
    col_of = {"a": 0, "b": 1}
    with pytest.raises(PybsnsingValueError):
        rule_sides("a >> 1", X, rows, col_of)
    with pytest.raises(PybsnsingKeyError):
        rule_sides("a > 1 | zz < 2", X, rows, col_of)
    left, right, _, _ = rule_sides("a > 3 | b <= 1", X, rows, col_of)
    assert left.tolist() == [0, 2] and right.tolist() == [1]
    for bad in ([0, 3], [-1]):  # row ids outside X: an error, not a read past its end
        with pytest.raises(PybsnsingValueError, match="row ids outside"):
            rule_sides("a > 3", X, np.array(bad, np.int64), col_of)
    with pytest.raises(PybsnsingValueError, match="2 labels for 3 rows"):
        rule_sides("a > 3", X, rows, col_of, np.zeros(2, np.uint8))


def test_split_rule_without_quotes_splits_as_with_them() -> None:
    """split_rule's shortcut for texts without quotes (str.split) cuts where its scan
    does (forced by one backticked question in front)."""
    from hypothesis import given
    from hypothesis import strategies as st

    from pybsnsing.rules import split_rule

    @given(st.text(alphabet="ab |<>=1.%", max_size=30))
    def check(text: str) -> None:
        assert split_rule(text) == split_rule("`z` | " + text)[1:]

    check()


def test_a_call_is_computed_from_its_column_as_r_evaluates_the_text():
    """R evaluates ``log(x) < 0.5`` by computing ``log(x)`` from the column ``x`` (a call,
    not the name of the design column ``log(x)``): where ``log`` gives NaN the design
    column holds an imputed value, the text evaluation NaN (FALSE). Without ``x`` in the
    data the column named ``log(x)`` is used (R stops: "object 'x' not found")."""
    x = np.array([-1.0, 0.0, 1.0, 2.0])
    imputed = np.array([0.0, -np.inf, 0.0, np.log(2.0)])  # log(x), NaN imputed by 0
    cols = {"x": x, "log(x)": imputed}
    assert evaluate_rule("log(x) < 0.5", cols).tolist() == [False, True, True, False]
    assert evaluate_rule("log(x)=='0'", cols).tolist() == [False, False, True, False]
    assert evaluate_rule("log(x) < 0.5", {"log(x)": imputed}).tolist() == [True] * 3 + [False]
    # a backticked name is a column name
    assert evaluate_rule("`log(x)` < 0.5", {"x": x, "`log(x)`": imputed}).tolist() == [
        True, True, True, False]


def test_evaluated_columns_lists_the_columns_r_evaluates_otherwise():
    x = np.array([-1.0, 0.0, 1.0, 2.0, 3.0])
    X = np.column_stack([np.ones(5), x, np.sqrt(np.abs(x)), np.exp(x)])
    names = ["z", "x", "sqrt(x)", "exp(x)"]
    out = evaluated_columns(X, names)
    assert list(out) == [2]  # sqrt(-1) is NaN; exp(x) equals its design column
    assert np.isnan(out[2][0]) and np.array_equal(out[2][1:], X[1:, 2])
    assert evaluated_columns(X[:, [0, 2, 3]], ["z", "sqrt(x)", "exp(x)"]) == {}
