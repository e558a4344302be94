"""Formula front end: R model.matrix-compatible columns, NA rules, response coding,
and clear errors for bad input."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from pybsnsing import bsnsing
from pybsnsing.design import DesignWarning, build_design, code_response
from pybsnsing.rformat import r_median


def _df(n=40, seed=0):
    rng = np.random.default_rng(seed)
    return pd.DataFrame({
        "y": pd.Categorical(rng.choice(["no", "yes"], n), categories=["no", "yes"]),
        "f": pd.Categorical(rng.choice(["a", "b", "c"], n), categories=["a", "b", "c"]),
        "g": rng.random(n) < 0.5,
        "x": rng.normal(size=n),
        "i": rng.integers(0, 5, n),
    })


def test_treatment_contrast_names_like_r():
    d, _ = build_design("y ~ .", _df())
    assert d.names == ["fb", "fc", "gTRUE", "x", "i"]
    assert d.X.dtype == np.float64


def test_unused_factor_levels_give_zero_columns_like_r():
    df = _df()
    df["f"] = pd.Categorical(df["f"].astype(str), categories=["a", "b", "c", "z"])
    d, _ = build_design("y ~ f", df)
    assert d.names == ["fb", "fc", "fz"]
    assert (d.X[:, 2] == 0).all()


def test_formula_subsets_and_minus():
    d, _ = build_design("y ~ x + f", _df())
    assert d.names == ["x", "fb", "fc"]
    d, _ = build_design("y ~ . - i", _df())
    assert "i" not in d.names


def test_missing_values_get_training_medians_after_dummy_coding():
    df = _df()
    df.loc[[0, 1], "x"] = np.nan
    df.loc[[2], "f"] = np.nan
    d, _ = build_design("y ~ x + f", df)
    xs = df["x"].dropna().to_numpy()
    assert d.X[0, 0] == np.median(xs) == d.medians[0]
    fb = (df["f"].dropna() == "b").to_numpy(dtype=float)
    assert d.X[2, 1] == np.median(fb)


def test_infinite_values_are_kept_and_count_in_the_medians():
    """R bsnsing keeps Inf and -Inf (is.na() is FALSE for them) and imputes NA by
    ``median(x, na.rm = TRUE)``, whose middle values may be infinite."""
    df = _df()
    n = len(df)
    x = np.linspace(-1.0, 1.0, n)
    x[:3] = [np.inf, np.inf, -np.inf]
    x[3] = np.nan
    df["x"] = x
    d, _ = build_design("y ~ x", df)
    assert d.X[0, 0] == np.inf and d.X[2, 0] == -np.inf
    assert d.X[3, 0] == d.medians[0] == r_median(x[~np.isnan(x)])
    df["x"] = np.r_[np.nan, np.inf, np.inf, np.ones(n - 3)]
    d, _ = build_design("y ~ x", df)
    assert d.medians[0] == 1.0
    df["x"] = np.r_[np.nan, np.full(n - 10, np.inf), np.ones(9)]
    d, _ = build_design("y ~ x", df)
    assert d.medians[0] == np.inf == d.X[0, 0]


def test_r_median_is_rs_mean_of_the_two_middle_values():
    """R's median of an even count is mean() of the two middle values, summed in long
    double: no overflow, and for values of unlike sign and magnitude not always
    ``(a + b) / 2`` (values checked in R 4.2.2)."""
    assert r_median(np.array([1e308, 1.6e308])) == 1.3e308
    assert r_median(np.array([0.1, 0.2])) == 0.15000000000000002
    # R 4.2.2: median(c(7.471997767184528e-07, -10.323129077351167)) is
    # -5.161564165075696; (a + b) / 2 is -5.161564165075695
    pair = np.array([7.471997767184528e-07, -10.323129077351167])
    assert r_median(pair) == -5.161564165075696 != (pair[0] + pair[1]) / 2
    assert r_median(np.array([1.0, np.inf])) == np.inf
    assert np.isnan(r_median(np.array([-np.inf, np.inf])))
    assert r_median(np.array([3.0, 1.0, 2.0])) == 2.0
    assert np.isnan(r_median(np.array([])))


def test_r_median_equals_live_r():
    """r_median against R's median() on 3000 random vectors: even and odd lengths,
    values of unlike magnitudes and signs, infinities, huge values."""
    try:
        import rpy2.robjects as ro
    except Exception as exc:  # ImportError, or rpy2 failing to find/start R
        pytest.skip(f"rpy2/R not available: {type(exc).__name__}: {exc}")
    rng = np.random.default_rng(5)
    vecs = []
    for _ in range(3000):
        k = int(rng.integers(1, 7))
        v = rng.normal(size=k) * 10.0 ** rng.integers(-6, 6, size=k)
        if rng.random() < 0.1:
            v[0] = rng.choice([np.inf, -np.inf, 1.7e308, -1.7e308])
        vecs.append(v)
    # pairs whose long double mean differs from (a + b) / 2 (about 1 in 10^4), found
    # with numpy's long double where it is x87's 80-bit format
    a = np.abs(rng.normal(size=200_000)) * 10.0 ** rng.integers(-8, -2, size=200_000)
    b = -np.abs(rng.normal(size=200_000)) * 10.0 ** rng.integers(0, 3, size=200_000)
    if np.finfo(np.longdouble).nmant == 63:
        la, lb = a.astype(np.longdouble), b.astype(np.longdouble)
        m = (la + lb) / 2
        m = (m + ((la - m) + (lb - m)) / 2).astype(np.float64)
        hard = np.flatnonzero(m != (a + b) / 2)
        vecs += [np.array([a[i], b[i]]) for i in hard[:50].tolist()]
    flat = ro.FloatVector(np.concatenate(vecs).tolist())
    lens = ro.IntVector([len(v) for v in vecs])
    r_med = list(ro.r("function(x, n) vapply(split(x, rep(seq_along(n), n)), median, 0)")(
        flat, lens))
    got = [r_median(v) for v in vecs]
    bad = [(v, a, b) for v, a, b in zip(vecs, got, r_med, strict=True)
           if not (a == b or (np.isnan(a) and np.isnan(b)))]
    assert not bad, bad[:5]
    if np.finfo(np.longdouble).nmant == 63:
        assert sum(r_median(v) != np.median(v) for v in vecs if not np.isinf(v).any()) >= 10


def test_response_coding_factor_last_present_level_is_one():
    y = pd.Series(pd.Categorical(["b", "c", "b"], categories=["a", "b", "c", "d"]))
    r = code_response(y)
    assert r.levels == ["b", "c"] and r.codes.tolist() == [0, 1, 0]


def test_response_coding_numbers_and_logicals():
    assert code_response(pd.Series([2, 1, 2])).codes.tolist() == [1, 0, 1]
    assert code_response(pd.Series([1.0, 0.0])).levels == [0.0, 1.0]
    assert code_response(pd.Series([True, False])).codes.tolist() == [1, 0]


def test_duplicate_design_names_are_made_unique_with_a_warning():
    df = pd.DataFrame({
        "y": [0, 1] * 10,
        "V1": pd.Categorical(["0", "1"] * 10, categories=["0", "1"]),
        "V11": np.arange(20.0),
    })
    with pytest.warns(DesignWarning, match="V11 -> V11.1"):
        d, _ = build_design("y ~ .", df)
    assert d.names == ["V11", "V11.1"]


@pytest.mark.parametrize(
    "make, exc, match",
    [
        (lambda df: df.iloc[:0], ValueError, "no rows"),
        (lambda df: df.assign(y="yes"), ValueError, "single class"),
        (lambda df: df.assign(x=np.nan), ValueError, "only missing values"),
        (lambda df: df.assign(x=np.r_[np.nan, np.nan, np.resize([-np.inf, np.inf], len(df) - 2)]),
         ValueError, "median of the other values is undefined"),
        (lambda df: df.rename(columns={"x": "x-1"}).assign(z=1j), ValueError, "complex"),
        (lambda df: df.assign(f=pd.Categorical(["a"] * len(df))), ValueError, "single level"),
        (lambda df: df.to_numpy(), TypeError, "DataFrame"),
    ],
)
def test_bad_input_gives_clear_errors(make, exc, match):
    with pytest.raises(exc, match=match):
        bsnsing("y ~ .", make(_df()), import_external=False)


def test_names_r_rejects_are_backticked_in_the_design():
    d, _ = build_design("y ~ .", _df().rename(columns={"x": "x-1"}))
    assert "`x-1`" in d.names  # R bsnsing: "invalid name"; pybsnsing goes beyond it


def test_missing_column_in_formula():
    with pytest.raises(KeyError, match="nope"):
        bsnsing("y ~ x + nope", _df(), import_external=False)
    with pytest.raises(KeyError, match="response"):
        bsnsing("nope ~ x", _df(), import_external=False)


def test_three_classes_give_one_tree_per_class():
    from pybsnsing import MBsnsingModel

    df = _df()
    df["y"] = pd.Categorical(np.resize(["a", "b", "c"], len(df)))
    m = bsnsing("y ~ x + i", df, import_external=False)
    assert isinstance(m, MBsnsingModel) and m.nclass == 3


def test_missing_response_rows_are_dropped_with_a_warning():
    df = _df()
    df.loc[3, "y"] = np.nan
    with pytest.warns(DesignWarning, match="1 rows with a missing response"):
        d, y = build_design("y ~ x", df)
    assert d.X.shape[0] == len(df) - 1 == len(y)


def test_unseen_levels_and_missing_values_at_predict_time():
    df = _df(200, seed=3)
    m = bsnsing("y ~ .", df, import_external=False, node_size=5)
    new = df.head(6).copy()
    new["f"] = new["f"].astype(object)
    new.loc[0, "f"] = "zzz"           # never seen in training
    new.loc[1, "x"] = np.nan          # missing: R does not impute, questions are FALSE
    with pytest.warns(DesignWarning, match="zzz"):
        p = m.predict(new)
    assert p.shape == (6,) and np.isfinite(p).all()
    # with impute=True the missing x is replaced by the training median
    p2 = m.predict(new, impute=True)
    med = new.copy()
    med.loc[1, "x"] = np.median(df["x"])
    with pytest.warns(DesignWarning):
        np.testing.assert_array_equal(p2, m.predict(med, impute=True))


def test_non_numbers_in_a_numeric_column_at_predict_time_warn():
    df = _df(100, seed=5)
    m = bsnsing("y ~ x + i", df, import_external=False)
    with pytest.warns(DesignWarning, match="not numbers"):
        p = m.predict(df.head(3).assign(x=["a", "1.5", None]))
    assert p.shape == (3,)


def test_newdata_missing_columns_are_named_as_typed():
    """The error names each missing predictor as its name is (an invisible character
    too), and escaped beside when a name holds characters that do not print."""
    import pybsnsing as pb

    rng = np.random.default_rng(3)
    odd, plain = "\xa0nbsp", "x_1"
    df = pd.DataFrame({"y": rng.integers(0, 2, 60), odd: rng.normal(size=60),
                       plain: rng.normal(size=60)})
    model = pb.bsnsing("y ~ .", df)
    with pytest.raises(KeyError) as info:
        model.predict(df[["y"]])
    msg = str(info.value)
    assert f"'{odd}'" in msg and f"'{plain}'" in msg and repr(odd) in msg
    with pytest.raises(KeyError) as info:
        model.predict(df[["y", odd]])
    assert str(info.value) == "newdata lacks the predictor columns 'x_1'"
