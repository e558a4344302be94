"""Input classes where pybsnsing once differed from R bsnsing 1.0.1, each pinned.

Every test states pybsnsing's behaviour without R and, where R and the R
package bsnsing are installed (``.ci/setup`` puts bsnsing 1.0.1 into .rlib),
checks it against R itself: ordered factors (``contr.poly``), R's collation
of character data, the logical response's coding text, the class priors of
a numeric multi-class response (quirk Q11), a factor with one value among
the training rows, numbers that print alike at 15 digits, and factor values
unseen in training.
"""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
import pytest
import rdiff

from pybsnsing import bsnsing, read_csv
from pybsnsing.design import DesignWarning, build_design
from pybsnsing.questions import binarize
from pybsnsing.rcollate import r_sort
from pybsnsing.rcontrasts import contr_poly


@pytest.fixture(scope="module")
def r_bs():
    """R with bsnsing loaded (through rpy2), or skip saying why."""
    reason = rdiff.r_unavailable_reason()
    if reason is not None:
        pytest.skip(f"R bsnsing not available: {reason}")
    import rpy2.robjects as ro

    ro.r("suppressPackageStartupMessages(library(bsnsing))")
    return ro


def _r_fit(data: pd.DataFrame, formula: str, **control):
    from pybsnsing.r.bsnsing_r import run_r_bsnsing

    return run_r_bsnsing(formula, data, **control)


def _same_tree(py, fit) -> None:
    trees_py = getattr(py, "trees", [py])
    trees_r = getattr(fit.model, "trees", [fit.model])
    assert [t.tree_signature() for t in trees_py] == [t.tree_signature() for t in trees_r]


# ------------------------------------------------------------------ ordered factors


def test_contr_poly_shape_names_and_orthonormality():
    for k in range(2, 12):
        C, suffixes = contr_poly(k)
        assert C.shape == (k, k - 1)
        assert suffixes == [".L", ".Q", ".C", "^4", "^5", "^6", "^7", "^8", "^9",
                            "^10"][: k - 1]
        np.testing.assert_allclose(C.T @ C, np.eye(k - 1), atol=1e-14)
        np.testing.assert_allclose(C.sum(axis=0), 0, atol=1e-14)
        assert (np.diff(C[:, 0]) > 0).all()  # the linear column increases
    with pytest.raises(ValueError, match="at least two levels"):
        contr_poly(1)


def test_contr_poly_equals_r(r_bs):
    for k in range(2, 13):
        r = np.array(list(r_bs.r(f"contr.poly({k})"))).reshape(k - 1, k).T
        C, suffixes = contr_poly(k)
        assert list(r_bs.r(f"colnames(contr.poly({k}))")) == suffixes
        if k <= 4:  # the ordered factors R bsnsing accepts: bit for bit
            assert C.tobytes() == np.ascontiguousarray(r).tobytes()
        else:
            # R fails there anyway; R's QR (reference LAPACK) rounds differently from one
            # CPU to another: 1.1e-13 apart at k = 12 on an AMD EPYC, within 1e-13 on others
            np.testing.assert_allclose(C, r, rtol=0, atol=1e-12)


def _ordered_frame(k: int, n: int = 90, seed: int = 3) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    levels = [f"l{i}" for i in rng.permutation(k)]  # not alphabetical
    codes = rng.integers(0, k, n)
    y = np.where(rng.random(n) < 0.2 + 0.6 * codes / (k - 1), "yes", "no")
    o = pd.Categorical([levels[c] for c in codes], categories=levels, ordered=True)
    o[rng.random(n) < 0.1] = np.nan
    return pd.DataFrame({"y": pd.Categorical(y, categories=["no", "yes"]), "o": o,
                         "x": rng.normal(size=n)})


def test_ordered_factor_design_uses_polynomial_contrasts():
    df = _ordered_frame(4)
    design, _ = build_design("y ~ o + x", df)
    assert design.names == ["o.L", "o.Q", "o.C", "x"]
    C, _ = contr_poly(4)
    codes = df["o"].cat.codes.to_numpy()
    seen = codes >= 0
    np.testing.assert_array_equal(design.X[seen, :3], C[codes[seen]])
    # a missing value gets each column's training median, as R bsnsing does
    med = [np.median(C[codes[seen], j]) for j in range(3)]
    np.testing.assert_array_equal(design.X[~seen, :3], np.tile(med, ((~seen).sum(), 1)))


@pytest.mark.parametrize("k", [2, 3, 4])
def test_ordered_factor_tree_equals_r(r_bs, k):
    df = _ordered_frame(k)
    py = bsnsing("y ~ .", df)
    fit = _r_fit(df, "y ~ .")
    _same_tree(py, fit)
    assert any(".L" in nd.split_rule or ".Q" in nd.split_rule or ".C" in nd.split_rule
               for nd in py.nodes)
    from pybsnsing.r.bsnsing_r import r_predict

    np.testing.assert_allclose(py.predict(df), r_predict(fit.robject, df), rtol=0, atol=1e-12)


def test_ordered_factor_with_five_levels_fits_where_r_stops_on_an_invalid_name(r_bs):
    # R bsnsing stops on the column name o^4 ("invalid name"); pybsnsing goes beyond it
    # and writes the name in backticks, as R deparses a non-syntactic name (issue 12)
    df = _ordered_frame(5)
    model = bsnsing("y ~ .", df)
    assert model.design.names == ["o.L", "o.Q", "o.C", "`o^4`", "x"]
    np.testing.assert_array_equal(model.predict(df, impute=True), model.fitted_prob)
    with pytest.raises(Exception, match="invalid name"):
        _r_fit(df, "y ~ .")


# ------------------------------------------------------------------ collation

_STRINGS = ["a", "ab", "Ab", "B", "b", "_x", "x_1", "x.1", "X1", "10", "9", "Z", "z9", "aB",
            "AB", "ba", "Ba", "a.b", "a_b", "A1", "1a"]


def test_r_sort_is_icu_order_and_codepoint_is_an_option():
    assert r_sort(["B", "Ab", "ab", "a"]) == ["a", "ab", "Ab", "B"]
    assert r_sort(["B", "Ab", "ab", "a"], "codepoint") == ["Ab", "B", "a", "ab"]


def test_r_sort_equals_r_sort_on_random_strings(r_bs):
    rng = np.random.default_rng(11)
    chars = "aAbBzZ019._-!#$%&()*+,;<=>?@[]^{|}~ '"
    words = sorted({"".join(rng.choice(list(chars), rng.integers(1, 5))) for _ in range(600)})
    words += _STRINGS
    r_sorted = list(r_bs.r["sort"](r_bs.StrVector(words)))
    assert r_sort(words) == r_sorted


def _char_frame() -> pd.DataFrame:
    rng = np.random.default_rng(5)
    n = 120
    s = rng.choice(["ab", "Ab", "B", "a", "b"], n)
    y = np.where(rng.random(n) < np.where(np.isin(s, ["Ab", "b"]), 0.85, 0.2), "T", "F")
    return pd.DataFrame({"y": y, "s": s.astype(object), "x": rng.normal(size=n)})


def test_character_columns_take_r_level_order():
    df = _char_frame()
    design, _ = build_design("y ~ s", df)
    assert design.names == ["sab", "sAb", "sb", "sB"]  # levels a < ab < Ab < b < B
    design_c, _ = build_design("y ~ s", df, collation="codepoint")
    assert design_c.names == ["sB", "sa", "sab", "sb"]  # Ab < B < a < ab < b
    m = bsnsing("y ~ s", df, collation="codepoint")
    assert all(nd.split_rule == "" or nd.split_rule.startswith("s") for nd in m.nodes)


def test_character_columns_tree_equals_r(r_bs):
    df = _char_frame()
    _same_tree(bsnsing("y ~ .", df), _r_fit(df, "y ~ ."))


def test_character_multiclass_response_class_order_equals_r(r_bs):
    df = _char_frame()
    df["y"] = df["s"]
    df["s"] = np.random.default_rng(1).choice(["u", "v"], len(df))
    py = bsnsing("y ~ .", df)
    assert py.ylevels == ["a", "ab", "Ab", "b", "B"]
    _same_tree(py, _r_fit(df, "y ~ ."))


# ------------------------------------------------------------------ logical response


def test_logical_response_coding_text_is_r_text():
    df = _char_frame()
    df["y"] = df["y"] == "T"
    m = bsnsing("y ~ .", df)
    assert m.coding_scheme == "Response coding: True ==> 1   False ==> 0"
    assert list(m.ycode) == [False, True]


# ------------------------------------------------------------------ Q11 priors


def _int_multiclass() -> pd.DataFrame:
    rng = np.random.default_rng(2)
    n = 200
    y = rng.choice([1, 2, 3, 5], n)
    x = y + rng.normal(0, 0.8, n)
    return pd.DataFrame({"y": y, "x": x})


def test_numeric_multiclass_priors_follow_r_with_a_warning():
    df = _int_multiclass()
    with pytest.warns(DesignWarning, match=r"by position, quirk Q11.*\[5\]"):
        m = bsnsing("y ~ x", df)
    share = df["y"].value_counts(normalize=True).sort_index().to_numpy()
    np.testing.assert_array_equal(m.yprior[:3], share[:3])
    assert m.yprior[3] == 0  # class 5: position 5 of a 4-entry table is NA in R
    assert not (m.predict(df, type="class") == 5).any()
    # a factor response gives priors by class, in R and here
    fac = df.assign(y=pd.Categorical(df["y"]))
    with warnings.catch_warnings():
        warnings.simplefilter("error", DesignWarning)
        mf = bsnsing("y ~ x", fac)
    np.testing.assert_array_equal(mf.yprior, share)


def test_numeric_multiclass_predictions_equal_r(r_bs):
    from pybsnsing.r.bsnsing_r import r_predict

    df = _int_multiclass()
    with pytest.warns(DesignWarning):
        py = bsnsing("y ~ x", df)
    fit = _r_fit(df, "y ~ x")
    np.testing.assert_allclose(py.predict(df), r_predict(fit.robject, df), rtol=0, atol=1e-12)
    assert [str(v) for v in py.predict(df, type="class")] == list(
        r_predict(fit.robject, df, "class"))


# ------------------------------------------------------------------ one-value factor


def test_factor_with_one_value_in_training_fits_where_r_stops(r_bs):
    df = _char_frame()
    df["f"] = pd.Categorical(["u"] * len(df), categories=["u", "v"])
    with pytest.warns(DesignWarning, match="'f' takes a single value"):
        m = bsnsing("y ~ x + f", df)
    assert m.tree_signature() == bsnsing("y ~ x", df).tree_signature()
    with pytest.raises(Exception, match="has only one unique level"):
        _r_fit(df, "y ~ x + f")


# ------------------------------------------------------------------ values printing alike


def test_values_printing_alike_share_one_equality_question():
    x = [1.0000000000007, 1.0000000000007003, 1.0000000000007006, 1.0000000000007,
         2.5, 1.0000000000007006]
    bx = binarize(pd.DataFrame({"n": x}), [0, 1, 1, 0, 1, 0], target=1,
                  control={"num2factor": 10, "bin.size": 1})
    eq = [c for c in bx.columns if "==" in c]
    assert eq == ["n=='1.0000000000007'", "n=='2.5'"]
    # the shared question answers for the LAST value with that text, as R overwrites
    assert bx["n=='1.0000000000007'"].tolist() == [0, 0, 1, 0, 0, 1]


def test_values_printing_alike_equal_r_binarize(r_bs):
    x = [1.0000000000007, 1.0000000000007003, 1.0000000000007006, 1.0000000000007,
         2.5, 1.0000000000007006]
    y = [0, 1, 1, 0, 1, 0]
    bx = binarize(pd.DataFrame({"n": x}), y, target=1, control={"num2factor": 10})
    r = r_bs.r("function(x, y) bsnsing::binarize(data.frame(n = x), y, target = 1, "
               "control = bscontrol(num2factor = 10))")(r_bs.FloatVector(x), r_bs.IntVector(y))
    assert list(r.names) == list(bx.columns)
    for j, name in enumerate(bx.columns):
        assert [int(v) for v in r[j]] == bx[name].tolist()


# ------------------------------------------------------------------ unseen levels


def test_unseen_level_is_zero_in_every_dummy_as_in_r(r_bs, tmp_path):
    rng = np.random.default_rng(4)
    n = 150
    f = rng.choice(["a", "b", "c"], n)
    y = np.where(rng.random(n) < np.where(f == "a", 0.9, 0.15), "p", "q")
    train = pd.DataFrame({"y": pd.Categorical(y), "f": pd.Categorical(f, ["a", "b", "c", "d"]),
                          "x": rng.normal(size=n)})
    test = train.head(6).copy()
    test["f"] = test["f"].cat.add_categories("e")
    test.loc[[0, 3], "f"] = "e"  # a level training never saw
    py = bsnsing("y ~ .", train)
    with pytest.warns(DesignWarning, match="not seen in training"):
        p_py = py.predict(test)
    # a row with 'e' is predicted as one whose every dummy is 0 (the baseline level 'a')
    as_a = test.copy()
    as_a.loc[[0, 3], "f"] = "a"
    np.testing.assert_array_equal(p_py[[0, 3]], py.predict(as_a)[[0, 3]])
    from pybsnsing.r.bsnsing_r import r_predict

    fit = _r_fit(train, "y ~ .")
    np.testing.assert_allclose(p_py, r_predict(fit.robject, test), rtol=0, atol=1e-12)


# ------------------------------------------------------------------ the CSV both read


def test_generated_csv_reads_identically_in_r(r_bs, tmp_path):
    case = rdiff.generate_case(7)
    path = tmp_path / "case.csv"
    path.write_text(case.csv_text())
    py = read_csv(path)
    r = r_bs.r("function(p) read.csv(p, stringsAsFactors = TRUE, na.strings = c('', 'NA'))")(
        str(path))
    from pybsnsing.r.convert import r_to_pandas

    pd.testing.assert_frame_equal(py, r_to_pandas(r))


# ------------------------------------------------------------------ rpart and odd names


def test_rpart_questions_dropped_as_in_r_when_a_name_has_a_backtick(r_bs):
    from pybsnsing.external import ExternalWarning, r_rpart_fails

    assert r_rpart_fails(["a`b"]) and r_rpart_fails(["a\\b"])
    assert not r_rpart_fails(["a b", "x!", "log(x)", "é"])
    rng = np.random.default_rng(13)
    n = 120
    s = rng.choice(["u", "v", "w`W"], n, p=[0.45, 0.45, 0.1])  # w`W sorts last: a dummy
    x = rng.normal(size=n)
    y = np.where(rng.random(n) < np.where(x > 0.3, 0.85, 0.2), "p", "q")
    df = pd.DataFrame({"y": y, "s": s.astype(object), "x": x})
    with pytest.warns(ExternalWarning, match="backtick or backslash"):
        py = bsnsing("y ~ x + s", df)
    # R's rpart call fails on the dummy `sw\`W`: its tree has no rpart questions
    fit = _r_fit(df, "y ~ x + s")
    assert py.tree_signature() == fit.model.tree_signature()
    assert py.tree_signature() == bsnsing("y ~ x + s", df,
                                          import_external=False).tree_signature()
    # with a plain level name the rpart questions are used and the tree differs
    plain = df.assign(s=df["s"].str.replace("`", ""))
    assert bsnsing("y ~ x + s", plain).tree_signature() != py.tree_signature()
