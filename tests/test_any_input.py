"""Issue 12: any real data, any bad input.

Every column name and factor level works; a formula is data, never code; no
silent wrong answer; every problem is a clear error of pybsnsing's family
(:mod:`pybsnsing.errors`).
"""

from __future__ import annotations

import json
import pickle
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import pybsnsing
from pybsnsing import bsnsing, load_model
from pybsnsing.errors import (
    DataError,
    FormulaError,
    InvalidParameterError,
    ModelFileError,
    PybsnsingError,
    PybsnsingKeyError,
)
from pybsnsing.rnames import is_syntactic, quote_name
from pybsnsing.rules import evaluate_rule, parse_question, parse_rule

ODD_NAMES = ["petal length", "a-b", "a+b", "x<y", "a=b", "a:b", "a/b", "a*b", "o^4", "it's",
             'say "hi"', "é∂ü", "1st", "1", "`tick`", "back\\slash", "tab\there", "a|b",
             " padded ", "NA", "if", "...", "..1", "_x", "a b  c", "(x)", "log(x)"]


def _frame(n: int = 80, seed: int = 0) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    x = rng.normal(size=n)
    z = rng.normal(size=n)
    f = rng.choice(["a", "b", "c"], size=n)
    y = np.where(x + (f == "b") + 0.3 * rng.normal(size=n) > 0.5, "yes", "no")
    return pd.DataFrame({"y": y, "x": x, "z": z, "f": pd.Categorical(f)})


def _fit(formula: str, df: pd.DataFrame, **kw):
    kw.setdefault("import_external", False)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return bsnsing(formula, df, **kw)


def _nodes(model) -> list[tuple]:
    return [(nd.number, nd.n1, nd.n0, nd.lchild) for nd in model.nodes]


# ----------------------------------------------------------------------------- the family


def test_errors_are_one_family_and_the_builtin_types_callers_expect():
    assert issubclass(InvalidParameterError, ValueError)
    assert issubclass(InvalidParameterError, TypeError)
    assert issubclass(FormulaError, ValueError)
    assert issubclass(ModelFileError, ValueError)
    assert issubclass(PybsnsingKeyError, KeyError)
    assert issubclass(DataError, ValueError) and issubclass(DataError, TypeError)
    for cls in (InvalidParameterError, FormulaError, ModelFileError, PybsnsingKeyError,
                DataError):
        assert issubclass(cls, PybsnsingError)
    assert pybsnsing.PybsnsingError is PybsnsingError
    assert str(PybsnsingKeyError("column 'a b' missing")) == "column 'a b' missing"


# ----------------------------------------------------------------------------- names


def test_quote_name_is_r_deparse():
    assert quote_name("Cell.size") == "Cell.size"
    assert quote_name("petal length") == "`petal length`"
    assert quote_name("a`b c") == "`a\\`b c`"  # R: deparse(as.name("a`b c"), backtick = TRUE)
    assert quote_name("a\\b\nc") == "`a\\\\b\\nc`"
    assert quote_name("é") == "é" and is_syntactic("é")
    for name in ("1x", "_x", "if", "TRUE", "NA", "...", "..1", "", ".1a"):
        assert not is_syntactic(name), name
    for name in (".", ".x", "x.1", "x_1", "NA.", "..x"):
        assert is_syntactic(name), name


@pytest.mark.parametrize("name", ODD_NAMES)
def test_any_column_name_fits_predicts_and_round_trips(name, tmp_path):
    df = _frame()
    df = df.rename(columns={"x": name})
    model = _fit("y ~ .", df, max_rules=2)
    assert model.n_splits >= 1
    label = quote_name(name)
    assert label in model.design.names
    used = " | ".join(nd.split_rule for nd in model.nodes if nd.split_rule)
    assert label in used  # x separates the classes: the tree uses it, backticked if needed
    for nd in model.nodes:
        if nd.split_rule:
            assert " | ".join(q.text for q in parse_rule(nd.split_rule)) == nd.split_rule
    p = model.predict(df)
    np.testing.assert_array_equal(p, model.fitted_prob)
    model.save(tmp_path / "m.json")
    np.testing.assert_array_equal(load_model(tmp_path / "m.json").predict(df), p)
    # the explicit formula with the backticked name gives the same tree
    other = _fit(f"y ~ {label} + z + f", df, max_rules=2)
    assert _nodes(other) == _nodes(model)


@pytest.mark.parametrize("level", ["New York", "Self-emp-not-inc", "", "a'b", "x<=1", "1",
                                   "ü ß", "a|b", "a, b", "back\\slash"])
def test_any_factor_level_works(level):
    df = _frame()
    df["f"] = pd.Categorical(np.where(df["f"] == "b", level, df["f"].astype(str)),
                             categories=["a", level, "c"])
    model = _fit("y ~ f + z", df)
    assert model.n_splits >= 1
    np.testing.assert_array_equal(model.predict(df), model.fitted_prob)
    assert model.design.names == [quote_name("f" + level), "fc", "z"]
    assert any(quote_name("f" + level) in nd.split_rule for nd in model.nodes)
    # the same data with the levels as plain strings
    plain = df.assign(f=df["f"].astype(object))
    np.testing.assert_array_equal(model.predict(plain), model.fitted_prob)


def test_levels_with_quotes_are_escaped_in_binarize_and_parse_back():
    df = pd.DataFrame({"g": ["it's", "a|b", "c\\d", "plain"] * 10})
    y = np.array([1, 0, 1, 0] * 10)
    bx = pybsnsing.binarize(df, y, 1, {"num2factor": 10, "bin_size": 1})
    for text in bx.columns:
        q = parse_question(text)
        assert q.text == text
        np.testing.assert_array_equal(evaluate_rule(text, df), bx[text].to_numpy() == 1)


def test_rules_on_the_design_names_resolve_backticked_columns():
    data = pd.DataFrame({"petal length": [1.0, 2.0, 3.0], "x": [0.0, 5.0, 1.0]})
    np.testing.assert_array_equal(evaluate_rule("`petal length` > 1.5 | x > 4", data),
                                  [False, True, True])
    assert parse_question("`a\\`b` > 1").name == "a`b"


def test_ordered_factor_with_five_levels_fits_with_backticked_column():
    rng = np.random.default_rng(2)
    lv = ["v1", "v2", "v3", "v4", "v5"]
    o = rng.choice(lv, size=120)
    df = pd.DataFrame({"y": np.where(np.isin(o, ["v2", "v5"]), "a", "b"),
                       "o": pd.Categorical(o, categories=lv, ordered=True)})
    model = _fit("y ~ .", df)
    assert model.design.names == ["o.L", "o.Q", "o.C", "`o^4`"]
    np.testing.assert_array_equal(model.predict(df), model.fitted_prob)


def test_sklearn_estimator_takes_any_names_and_levels():
    from pybsnsing.sklearn import BsnsingClassifier

    df = _frame().rename(columns={"x": "petal length (cm)"})
    df["f"] = pd.Categorical(df["f"].map({"a": "New York", "b": "Self-emp", "c": ""}))
    X, y = df.drop(columns="y"), df["y"]
    clf = BsnsingClassifier(import_external=False).fit(X, y)
    assert (clf.predict(X) == y).mean() > 0.8
    assert clf.predict_proba(X).shape == (len(X), 2)


# ----------------------------------------------------------------------------- formulas


def test_formula_is_never_executed(tmp_path):
    marker = tmp_path / "pwned"
    df = _frame()
    for formula in (f"y ~ I(__import__('os').system('touch {marker}'))",
                    f"y ~ x + __import__('os').system('touch {marker}')",
                    f"y ~ eval(compile('open(\"{marker}\", \"w\")', 's', 'exec'))",
                    f"y ~ {{open('{marker}', 'w')}}",
                    f"y ~ x + `{marker}`"):
        with pytest.raises(PybsnsingError,
                           match="is not a term|unexpected character|are not in data"):
            _fit(formula, df)
    assert not marker.exists()


@pytest.mark.parametrize("formula, match", [
    ("y ~ x +", "ends too early"),
    ("y ~ (x + z", "expected"),
    ("y ~ x + z)", r"unbalanced '\)'"),
    ("y ~ x +* z", "unexpected"),
    ("y x", "form 'response ~ predictors'"),
    ("~ x", "no response"),
    ("y ~ x ~ z", "more than one"),
    ("y ~ `x", "unterminated backtick"),
    ("y ~ 'x'", "quoted string"),
    ("y ~ x %in% z", "%in%"),
    ("y ~ foo(x)", r"foo\(\) is not supported"),
    ("y ~ log(x, 2)", "single argument"),
    ("y ~ 2", "number 2 is not a term"),
    ("y ~ x / z", "not supported"),
    ("y ~ (x + z)^2", "not supported"),
    ("y ~ 1", "no predictors"),
    ("y ~ x - x", "no predictors"),
    ("log(y) ~ x", "one column name"),
    ("y ~ 1x", "backticks"),
    ("y ~ x $ z", "unexpected character"),
    ("y ~ " + "(" * 500 + "x" + ")" * 500, "nested too deeply"),
    ("y ~ nope", "nope"),
])
def test_bad_formulas_give_clear_formula_errors(formula, match):
    with pytest.raises(PybsnsingError, match=match):
        _fit(formula, _frame())


def test_formula_must_be_a_string():
    with pytest.raises(FormulaError, match="must be a string"):
        _fit(None, _frame())
    with pytest.raises(FormulaError, match="must be a string"):
        _fit(42, _frame())


def test_intercept_terms_and_removals():
    df = _frame()
    base = _fit("y ~ x + z", df)
    for formula in ("y ~ x + z + 1", "y ~ 1 + x + z", "y ~ . - f", "y ~ (x + z)",
                    "y ~ x + z + x", "y ~ `x` + z"):
        assert _nodes(_fit(formula, df)) == _nodes(base), formula
        assert _fit(formula, df).design.names == ["x", "z"], formula


def test_no_intercept_codes_the_first_factor_by_all_levels_as_r():
    df = _frame()
    df["g"] = df["x"] > 0
    assert _fit("y ~ f + z - 1", df).design.names == ["fa", "fb", "fc", "z"]
    assert _fit("y ~ 0 + z + g + f", df).design.names == ["z", "gFALSE", "gTRUE", "fb", "fc"]
    assert _fit("y ~ -1 + x", df).design.names == ["x"]


def test_transforms_are_computed_from_a_fixed_list_and_recomputed_at_predict():
    df = _frame()
    df["a"] = np.abs(df["x"]) + 1
    m = _fit("y ~ a + log(a) + sqrt(a) + exp(z) + abs(x) + I(a + z) + I(a * z) + a:z + x*z", df)
    assert m.design.names == ["a", "log(a)", "sqrt(a)", "exp(z)", "abs(x)", "`I(a + z)`",
                              "`I(a * z)`", "x", "z", "`a:z`", "`z:x`"]  # as R names them
    X = m.design.X
    np.testing.assert_allclose(X[:, 1], np.log(df["a"]))
    np.testing.assert_allclose(X[:, 6], df["a"] * df["z"])
    np.testing.assert_allclose(X[:, 10], df["x"] * df["z"])
    np.testing.assert_array_equal(m.predict(df), m.fitted_prob)
    # a rule on log(a) written as R writes it evaluates on the raw data too
    np.testing.assert_array_equal(evaluate_rule("log(a) > 0.5", df), np.log(df["a"]) > 0.5)


def test_transforms_of_factors_are_clear_errors():
    with pytest.raises(FormulaError, match="'f'.*numeric columns only"):
        _fit("y ~ log(f)", _frame())
    with pytest.raises(FormulaError, match="'f'.*numeric columns only"):
        _fit("y ~ x:f", _frame())


# ----------------------------------------------------------------------------- silent wrong


def test_dot_keeps_a_column_named_1():
    df = _frame().rename(columns={"x": "1"})
    model = _fit("y ~ .", df)
    assert model.design.variables == ["1", "z", "f"]
    assert model.design.names[0] == "`1`"


def test_logical_predictor_given_as_strings_at_predict_time():
    df = _frame()
    df["g"] = df["x"] > 0.3
    model = _fit("y ~ g + z", df)
    assert any("gTRUE" in nd.split_rule for nd in model.nodes)
    expected = model.predict(df)
    for true, false in (("TRUE", "FALSE"), ("True", "False"), ("true", "false"), ("T", "F")):
        new = df.assign(g=np.where(df["g"], true, false))
        np.testing.assert_array_equal(model.predict(new), expected)
    np.testing.assert_array_equal(model.predict(df.assign(g=df["g"].astype(int))), expected)
    np.testing.assert_array_equal(model.predict(df.assign(g=df["g"].astype("boolean"))),
                                  expected)


def test_complex_predictors_are_an_error_not_a_lost_imaginary_part():
    df = _frame()
    df["c"] = df["x"] + 1j * df["z"]
    with pytest.raises(DataError, match="'c'.*complex"):
        _fit("y ~ c", df)
    with pytest.raises(DataError, match="complex"):
        _fit("y ~ .", df.assign(c=df["c"].astype(object)))
    model = _fit("y ~ x", df)
    with pytest.raises(DataError, match="complex"):
        model.predict(df.assign(x=df["c"]))


def test_factor_values_match_levels_as_r_does_at_predict():
    df = _frame()
    df["k"] = pd.Categorical(np.where(df["x"] > 0, "1", "2"))
    model = _fit("y ~ k", df)
    as_numbers = df.assign(k=np.where(df["x"] > 0, 1, 2))
    np.testing.assert_array_equal(model.predict(as_numbers), model.predict(df))


# ----------------------------------------------------------------------------- clean errors


def test_column_name_problems_are_data_errors():
    df = _frame()
    with pytest.raises(DataError, match="duplicate column names.*'x'"):
        _fit("y ~ .", pd.concat([df, df[["x"]]], axis=1))
    multi = df.copy()
    multi.columns = pd.MultiIndex.from_tuples([(c, "a") for c in df.columns])
    with pytest.raises(DataError, match="MultiIndex"):
        _fit("y ~ .", multi)
    ints = df.copy()
    ints[0] = df["x"]
    with pytest.raises(DataError, match="not strings"):
        _fit("y ~ .", ints)
    assert _fit("y ~ x + z", ints).design.names == ["x", "z"]  # unused: no problem
    model = _fit("y ~ x + z", df)
    with pytest.raises(DataError, match="duplicate"):
        model.predict(pd.concat([df, df[["x"]]], axis=1))
    with pytest.raises(PybsnsingKeyError, match="'z'"):
        model.predict(df.drop(columns="z"))


@pytest.mark.parametrize("dtype", ["string", "Int64", "boolean", "Float64"])
def test_nullable_dtypes_with_na_just_work(dtype):
    df = _frame(120)
    if dtype == "string":
        col = df["f"].astype(str).astype("string")
    elif dtype == "Int64":
        col = (df["x"] * 3).round().astype("Int64")
    elif dtype == "boolean":
        col = (df["x"] > 0).astype("boolean")
    else:
        col = df["x"].astype("Float64")
    col = col.copy()
    col.iloc[::7] = pd.NA
    df["v"] = col
    model = _fit("y ~ v + z", df)
    p = model.predict(df)
    assert p.shape == (len(df),) and np.all((p >= 0) & (p <= 1))
    plain = df.assign(v=df["v"].astype(object).where(df["v"].notna(), None))
    if dtype in ("Int64", "Float64"):
        plain["v"] = df["v"].astype("float64")
    np.testing.assert_array_equal(model.predict(plain), p)
    # as the response too
    resp = df.assign(y=df["y"].astype("string"))
    resp.loc[3, "y"] = pd.NA
    assert _fit("y ~ x", resp).n_train == len(df) - 1


def test_arrow_dictionary_and_date_columns_are_factors_and_days():
    """Arrow-backed columns as Parquet readers give them: a dictionary column is the
    factor of its dictionary (levels in dictionary order, unused ones kept, chunks with
    different dictionaries unified), a date32/date64 column R's Date (days since
    1970-01-01), as predictor, response and in newdata; the same tree as the plain
    pandas columns."""
    pa = pytest.importorskip("pyarrow")
    rng = np.random.default_rng(4)
    n = 160
    z = rng.normal(size=n)
    y = np.where(z + rng.normal(size=n) * 0.6 > 0, "a", "b")
    lab = np.where(z > 0.3, "p", np.where(z < -0.5, "r", "q")).astype(object)
    lab[::13] = None
    levels = ["q", "r", "p", "unused"]
    cat = pd.Categorical(lab, categories=levels)
    codes = cat.codes.astype(np.int32)
    half = n // 2
    chunks = [pa.DictionaryArray.from_arrays(pa.array(codes[:half], mask=codes[:half] < 0),
                                             pa.array(levels)),
              # the second chunk's dictionary in another order, with a value of its own
              pa.DictionaryArray.from_arrays(
                  pa.array([[2, 1, 0, 3][c] if c >= 0 else 0 for c in codes[half:]],
                           pa.int32(), mask=codes[half:] < 0),
                  pa.array(["p", "r", "q", "unused", "extra"]))]
    dict_t = pd.ArrowDtype(pa.dictionary(pa.int32(), pa.string()))
    f_arrow = pd.Series(pd.arrays.ArrowExtensionArray(pa.chunked_array(chunks)))
    assert f_arrow.dtype == dict_t
    days = (z * 40).round().astype(np.int64) + 18000
    missing = np.arange(n) % 17 == 5
    d32 = pd.array(pa.array(days.astype(np.int32), mask=missing).cast(pa.date32()),
                   dtype=pd.ArrowDtype(pa.date32()))
    d64 = pd.array(pa.array(days * 86_400_000, mask=missing).cast(pa.date64()),
                   dtype=pd.ArrowDtype(pa.date64()))
    plain_days = np.where(missing, np.nan, days.astype(float))
    y_arrow = pd.array(pa.array(y.tolist()).dictionary_encode(), dtype=dict_t)
    arrow = pd.DataFrame({"y": y_arrow, "f": f_arrow, "d": d32, "e": d64})
    # (dictionary_encode orders the dictionary by first appearance: the levels' order)
    plain = pd.DataFrame({"y": pd.Categorical(y, categories=pd.unique(y)),
                          "f": cat.add_categories("extra"),
                          "d": plain_days, "e": plain_days})
    a, b = _fit("y ~ .", arrow), _fit("y ~ .", plain)
    assert a.design.names == b.design.names == ["fr", "fp", "funused", "fextra", "d", "e"]
    assert a.tree_signature() == b.tree_signature()
    assert any(r.startswith(("d ", "e ")) or " d " in r for r in
               (nd.split_rule for nd in a.nodes))
    np.testing.assert_array_equal(a.predict(arrow), b.predict(plain))
    complete = ~missing & pd.notna(lab)  # (predict does not impute, as R)
    np.testing.assert_array_equal(a.predict(arrow)[complete], a.fitted_prob[complete])


@pytest.mark.parametrize("kwargs, match", [
    ({"bin_size": float("inf")}, "bin_size"),
    ({"bin_size": 10**30}, "bin_size"),
    ({"nseg_numeric": float("nan")}, "nseg_numeric"),
    ({"max_rules": True}, "max_rules"),
    ({"node_size": "3"}, "node_size"),
    ({"stop_prob": float("nan")}, "stop_prob"),
    ({"stop_prob": "high"}, "stop_prob"),
    ({"verbose": 2}, "verbose"),
    ({"import_external": "yes"}, "import_external"),
    ({"max.rules": 11}, "max_rules"),
    ({"nope": 1}, "nope"),
])
def test_bad_controls_are_invalid_parameter_errors(kwargs, match):
    with pytest.raises(InvalidParameterError, match=match):
        _fit("y ~ x", _frame(), **kwargs)


def test_numpy_scalar_controls_are_normalised_so_save_works(tmp_path):
    model = _fit("y ~ x + z", _frame(), import_external=np.True_, max_rules=np.int64(3),
                 stop_prob=np.float32(0.99), opt_solver=np.str_("enum_c"))
    assert type(model.control.import_external) is bool
    assert type(model.control.max_rules) is int
    model.save(tmp_path / "m.json")
    assert load_model(tmp_path / "m.json").control == model.control


def test_load_dataset_bad_names():
    from pybsnsing.datasets import load_dataset

    for bad in (None, 3, ["iris"]):
        with pytest.raises(PybsnsingError, match="data set name"):
            load_dataset(bad)
    with pytest.raises(PybsnsingError, match="nope"):
        load_dataset("nope")


def _saved(tmp_path: Path) -> tuple[Path, dict]:
    model = _fit("y ~ .", _frame())
    path = tmp_path / "m.json"
    model.save(path)
    return path, json.loads(path.read_text())


@pytest.mark.parametrize("mutate, reason", [
    (lambda d: [d], "a JSON object"),
    (lambda d: "model", "a JSON object"),
    (lambda d: {**d, "ycode": ["no"]}, "ycode"),
    (lambda d: {**d, "type": "tree"}, "type"),
    (lambda d: {k: v for k, v in d.items() if k != "nodes"}, "nodes"),
    (lambda d: {**d, "nodes": [{**d["nodes"][0], "lchild": 99}] + d["nodes"][1:]}, "child"),
    (lambda d: {**d, "nodes": []}, "nodes"),
    (lambda d: {**d, "control": {"max.rules": "x"}}, "max_rules"),
    (lambda d: {**d, "design": {**d["design"], "terms": [["exec", "x"]]}}, "term"),
    (lambda d: {**d, "design": {**d["design"], "transforms": [["__import__('os')"]],
                                "terms": [["transform", 0]] * len(d["design"]["names"])}},
     "transform"),
    (lambda d: {**d, "nodes": [{**d["nodes"][0], "split_rule": "nope > 1"}] + d["nodes"][1:]},
     "nope"),
])
def test_corrupt_model_files_say_not_a_valid_model_file(tmp_path, mutate, reason):
    path, d = _saved(tmp_path)
    path.write_text(json.dumps(mutate(d)))
    with pytest.raises(ModelFileError, match=f"not a valid pybsnsing model file: .*{reason}"):
        load_model(path)


def test_truncated_binary_and_missing_model_files(tmp_path):
    path, _ = _saved(tmp_path)
    text = path.read_text()
    for k in (0, 1, len(text) // 2, len(text) - 1):
        path.write_text(text[:k])
        with pytest.raises(ModelFileError, match="not a valid pybsnsing model file"):
            load_model(path)
    path.write_bytes(b"\x89PNG\r\n\x1a\n\x00\xff")
    with pytest.raises(ModelFileError, match="not a valid pybsnsing model file"):
        load_model(path)
    with pytest.raises(ModelFileError, match="no such file"):
        load_model(tmp_path / "absent.json")
    with pytest.raises(ModelFileError, match="directory"):
        load_model(tmp_path)


def test_pickle_round_trip_and_the_docs_warn_that_unpickling_runs_code():
    model = _fit("y ~ .", _frame())
    again = pickle.loads(pickle.dumps(model))
    np.testing.assert_array_equal(again.predict(_frame()), model.predict(_frame()))
    assert "pickle" in (pybsnsing.model.__doc__ or "")
    assert "runs code" in (pybsnsing.model.__doc__ or "")


def test_predict_with_zero_rows_extra_and_reordered_columns():
    df = _frame()
    model = _fit("y ~ .", df)
    assert model.predict(df.iloc[:0]).shape == (0,)
    assert model.predict(df.iloc[:0], type="class").shape == (0,)
    shuffled = df[["f", "z", "y", "x"]].assign(extra="?")
    np.testing.assert_array_equal(model.predict(shuffled), model.predict(df))
    with pytest.raises(PybsnsingError, match="newdata must be a pandas DataFrame"):
        model.predict(df.to_numpy())
    # an array as wide as the design matrix is not read as one (leaf_of takes design
    # matrices; predict takes the predictors only as a DataFrame)
    width = len(model.design.names)
    with pytest.raises(PybsnsingError, match="newdata must be a pandas DataFrame"):
        model.predict(np.zeros((3, width)))
    with pytest.raises(PybsnsingError, match="type"):
        model.predict(df, type="probability")


def test_rule_texts_are_data_too(tmp_path):
    # a call in a rule must be a transform of the fixed list: nothing else passes for a
    # column (R would run it when it re-evaluates the rule, and so would a model file)
    with pytest.raises(PybsnsingError, match="neither a column name nor a transform"):
        parse_question("system('touch x') > 1")
    assert parse_question("log(Age) > 1").name == "log(Age)"
    path, d = _saved(tmp_path)
    d["nodes"][0]["split_rule"] = "__import__('os').system('true') > 1"
    path.write_text(json.dumps(d))
    with pytest.raises(ModelFileError, match="split rule"):
        load_model(path)


def test_the_r_helper_checks_formula_and_control_names_before_r_parses_them():
    pytest.importorskip("rpy2")
    from pybsnsing.r.bsnsing_r import run_r_bsnsing

    df = _frame()
    with pytest.raises(FormulaError, match=r"unexpected character ';'"):
        run_r_bsnsing('y ~ x); system("true"); (1', df)
    with pytest.raises(InvalidParameterError, match="invalid control parameter names"):
        run_r_bsnsing("y ~ x", df, **{"x = system('true'), y": 1})


def test_formula_spaces_are_rs():
    """Between tokens the formula skips what R's parser skips in a UTF-8 locale (ASCII
    blanks and glibc's Unicode blanks such as U+3000); a no-break space is not one (R:
    "unexpected input"), so a formula naming a column that starts with one is an error,
    not a fit on the column without it."""
    rng = np.random.default_rng(5)
    df = pd.DataFrame({"y": rng.integers(0, 2, 40), "a": rng.normal(size=40),
                       "\xa0y": rng.integers(0, 2, 40)})
    plain = bsnsing("y ~ a", df)
    for spaced in ("y ~\u3000a", "y\u2003~ a", "\ty ~ a\f"):
        assert bsnsing(spaced, df).tree_signature() == plain.tree_signature()
    for odd in ("\xa0", "\u2007", "\u202f", "\u200b", "\x0b"):
        with pytest.raises(FormulaError, match="unexpected character"):
            bsnsing(f"{odd}y ~ a", df)
    backticked = bsnsing("`\xa0y` ~ a", df)
    assert np.array_equal(backticked.y, df["\xa0y"].to_numpy())
