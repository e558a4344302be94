"""Property-based fuzzing of the public entry points (issue 12).

Every outcome must be a correct result (probabilities in [0, 1], the right
length, labels among the training labels, save/load and pickle identical) or
a :class:`~pybsnsing.errors.PybsnsingError` whose message names the problem.
The generator and the oracle are in ``tests/fuzzgen.py`` (shared with
``bench/fuzz.py``, which runs any number of cases). CI runs a derandomized
subset (the ``ci`` hypothesis profile of ``conftest.py``); ``PYBSNSING_FUZZ``
multiplies the number of examples.
"""

from __future__ import annotations

import json
import os
import pickle
import warnings

import fuzzgen
import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from pybsnsing import bscontrol, bsnsing, load_model
from pybsnsing.control import BsControl
from pybsnsing.errors import (
    FormulaError,
    InvalidParameterError,
    ModelFileError,
    PybsnsingError,
)
from pybsnsing.rnames import quote_name
from pybsnsing.rules import evaluate_rule, parse_rule

SCALE = float(os.environ.get("PYBSNSING_FUZZ", "1"))
_SETTINGS = dict(deadline=None, suppress_health_check=list(HealthCheck))


def _n(k: int) -> int:
    return max(1, int(k * SCALE))


def _quiet_fit(formula, data, **kw):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return bsnsing(formula, data, **kw)


# ----------------------------------------------------------------------------- generated


@settings(max_examples=_n(120), **_SETTINGS)
@given(seed=st.integers(0, 2**31 - 1))
def test_generated_inputs_give_a_correct_result_or_a_clean_error(seed):
    case = fuzzgen.generate_case(seed)
    kind, detail = fuzzgen.run_case(case)
    assert kind in fuzzgen.GOOD, f"{kind}: {case.describe()}\n{detail}"


@pytest.mark.parametrize("entry", sorted(set(fuzzgen.ENTRIES) | set(fuzzgen.EXTRA_ENTRIES)))
def test_every_entry_point_is_fuzzed(entry):
    for seed in range(4):
        case = fuzzgen.generate_case(10_000 + seed, entry)
        kind, detail = fuzzgen.run_case(case)
        assert kind in fuzzgen.GOOD, f"{kind}: {case.describe()}\n{detail}"


def test_every_cli_variant_is_fuzzed():
    """Each command-line variant (files, pipes, options, models) once, through subprocesses."""
    seen: set[str] = set()
    seed = 20_000
    while len(seen) < len(fuzzgen._CLI_VARIANTS) and seed < 20_400:
        case = fuzzgen.generate_case(seed, "cli")
        seed += 1
        if case.variant in seen:
            continue
        seen.add(case.variant)
        kind, detail = fuzzgen.run_case(case)
        assert kind in fuzzgen.GOOD, f"{kind}: {case.describe()}\n{detail}"
    assert seen == set(fuzzgen._CLI_VARIANTS)


def test_the_cli_oracle_catches_a_traceback():
    import subprocess

    case = fuzzgen.Case(seed=0, entry="cli", keywords=["x"])
    proc = subprocess.CompletedProcess([], 1, b"", b"Traceback (most recent call last):\n  boom\n")
    assert fuzzgen._cli_error_verdict(proc, "fit", case)[0] == "unclean error"
    proc = subprocess.CompletedProcess([], 2, b"", b"pybsnsing fit: error: no such file: 'x'\n")
    assert fuzzgen._cli_error_verdict(proc, "fit", case) is None
    err = b"pybsnsing fit: error: unexpected KeyError: 3\n"
    proc = subprocess.CompletedProcess([], 2, b"", err)
    assert fuzzgen._cli_error_verdict(proc, "fit", case)[0] == "unclear error"


def test_the_oracle_catches_bad_outcomes():
    case = fuzzgen.Case(seed=0, entry="fit", keywords=["x"])
    assert fuzzgen.classify_error(AttributeError("'NoneType' object"), case)[0] == \
        "unclean error"
    assert fuzzgen.classify_error(PybsnsingError("numba TypingError: x"), case)[0] == \
        "unclear error"
    assert fuzzgen.classify_error(FormulaError("formula 'y ~ (': unexpected"), case)[0] == \
        "clean error"


# ----------------------------------------------------------------------------- names

_names = st.text(st.characters(blacklist_categories=("Cs",)), min_size=0, max_size=10)


def _frame(n: int = 60, seed: int = 1) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    x = rng.normal(size=n)
    return pd.DataFrame({"y": np.where(x + 0.4 * rng.normal(size=n) > 0, "b", "a"), "x": x,
                         "k": pd.Categorical(rng.choice(["p", "q", "r"], n))})


@settings(max_examples=_n(40), **_SETTINGS)
@given(name=_names)
def test_any_column_name_works(name):
    if name in ("y", "k"):
        return
    df = _frame().rename(columns={"x": name})
    model = _quiet_fit("y ~ .", df, import_external=False)
    assert quote_name(name) in model.design.names
    rules = [nd.split_rule for nd in model.nodes if nd.split_rule]
    assert any(quote_name(name) in r for r in rules)
    for r in rules:
        assert " | ".join(q.text for q in parse_rule(r)) == r
    np.testing.assert_array_equal(model.predict(df), model.fitted_prob)
    again = _quiet_fit(f"y ~ {quote_name(name)} + k", df, import_external=False)
    assert again.tree_signature() == model.tree_signature()


@settings(max_examples=_n(40), **_SETTINGS)
@given(level=_names)
def test_any_factor_level_works(level):
    df = _frame()
    if level in ("p", "r"):
        return
    # an object array: numpy's fixed-width strings would drop trailing NUL characters
    labels = np.array([level if x > 0.3 else "p" if x > -0.5 else "r" for x in df["x"]],
                      dtype=object)
    df["k"] = pd.Categorical(labels, categories=["p", level, "r"])
    model = _quiet_fit("y ~ k", df, import_external=False)
    assert model.design.names == [quote_name("k" + level), "kr"]
    np.testing.assert_array_equal(model.predict(df), model.fitted_prob)
    np.testing.assert_array_equal(model.predict(df.assign(k=labels.astype(object))),
                                  model.fitted_prob)


@settings(max_examples=_n(40), **_SETTINGS)
@given(level=_names, other=_names)
def test_binarize_texts_of_any_level_parse_back_and_evaluate(level, other):
    from pybsnsing import binarize

    if level == other:
        return
    g = np.array([level, other] * 8 + [level], dtype=object)
    y = (np.arange(17) % 2 == 0).astype(int)
    bx = binarize(pd.DataFrame({"g g": g}), y, 1, {"bin_size": 1})
    for text in bx.columns:
        assert " | ".join(q.text for q in parse_rule(text)) == text
        np.testing.assert_array_equal(evaluate_rule(text, pd.DataFrame({"g g": g})),
                                      bx[text].to_numpy() == 1)


# ----------------------------------------------------------------------------- formulas

_formula_chars = st.lists(
    st.sampled_from(list("xyzk ~+-*/^:().`'\"01%,$[]{}#;\\_") + ["log(", "I(", "exp(",
                                                                  "__import__", "\n"]),
    max_size=20).map("".join)


@settings(max_examples=_n(150), **_SETTINGS)
@given(rhs=_formula_chars)
def test_any_formula_text_fits_or_is_a_clean_error(rhs):
    df = _frame().assign(z=np.arange(60.0))
    for formula in (rhs, "y ~ " + rhs):
        try:
            model = _quiet_fit(formula, df, import_external=False)
        except PybsnsingError as exc:
            assert str(exc).strip()
            continue
        assert len(model.predict(df)) == len(df)


# ----------------------------------------------------------------------------- controls

_values = st.one_of(
    st.none(), st.booleans(), st.integers(-(2**70), 2**70),
    st.floats(allow_nan=True, allow_infinity=True), st.text(max_size=6),
    st.lists(st.integers(), max_size=2), st.sampled_from([np.int64(3), np.float32(0.5),
                                                         np.True_, np.str_("enum"),
                                                         np.array(2.0), complex(1, 2)]),
)


@settings(max_examples=_n(200), **_SETTINGS)
@given(key=st.sampled_from(sorted(BsControl.__dataclass_fields__) + ["max.rules", "nope"]),
       value=_values)
def test_any_control_value_is_a_control_or_an_invalid_parameter_error(key, value):
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            ctrl = bscontrol(**{key: value})
    except InvalidParameterError as exc:
        assert key.replace(".", "_") in str(exc) or key in str(exc)
        return
    d = json.loads(json.dumps(ctrl.to_r_dict()))  # plain JSON values
    assert isinstance(d, dict)
    for f in BsControl.__dataclass_fields__:
        assert type(getattr(ctrl, f)) in (bool, int, float, str), (f, getattr(ctrl, f))


# ----------------------------------------------------------------------------- model files


@pytest.fixture(scope="module")
def saved_model(tmp_path_factory):
    path = tmp_path_factory.mktemp("m") / "model.json"
    df = _frame()
    model = _quiet_fit("y ~ .", df)
    model.save(path)
    return path.read_bytes(), df


@settings(max_examples=_n(80), **_SETTINGS)
@given(edits=st.lists(st.tuples(st.floats(0, 1), st.integers(0, 255)), min_size=1,
                      max_size=4), cut=st.floats(0, 1))
def test_corrupt_model_files_load_or_say_why(saved_model, tmp_path_factory, edits, cut):
    raw, df = saved_model
    b = bytearray(raw)
    for where, byte in edits:
        b[int(where * (len(b) - 1))] = byte
    b = b[: max(0, int(cut * len(b))) if cut < 0.5 else len(b)]
    path = tmp_path_factory.mktemp("c") / "m.json"
    path.write_bytes(bytes(b))
    try:
        model = load_model(path)
    except ModelFileError as exc:
        assert str(exc).startswith("not a valid pybsnsing model file: ")
        return
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            p = model.predict(df)
        except PybsnsingError:
            return
    assert p.shape == (len(df),) and np.all((p >= 0) & (p <= 1))


def test_pickle_round_trip(saved_model):
    _, df = saved_model
    model = _quiet_fit("y ~ .", df)
    np.testing.assert_array_equal(pickle.loads(pickle.dumps(model)).predict(df),
                                  model.predict(df))
