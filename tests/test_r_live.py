"""Live differential test against R bsnsing 1.0.1 (rpy2) on generated data.

``tests/rdiff.py`` generates data sets of every input class R bsnsing takes
(see its docstring); each is written to one CSV that R's ``read.csv`` and
:func:`pybsnsing.read_csv` both read, then fitted by both with the same
formula and control. Every node (number, parent, children, n1, n0, rule
text), the print and summary text (apart from the Call line; R's wrong
summary accuracy of one-class trees, quirk Q7, is fixed on purpose), the
predicted probabilities (to 1e-12) and classes must be identical.

Cases where R bsnsing itself stops (an invalid name, an ordered factor with
5+ levels, a factor with one value, ...) are not parity cases; they are
counted and must make up only a minority. ``bench/rdiff.py`` runs any
number of cases and minimises each difference to a small reproducer.

Skipped, saying why, when rpy2, R or the R package bsnsing is missing
(``.ci/setup`` installs bsnsing 1.0.1 from ../shared/reference into .rlib).
"""

from __future__ import annotations

import collections
import os
import warnings

import pytest
import rdiff

N_CASES = int(os.environ.get("PYBSNSING_RLIVE_CASES", "600"))
SEED0 = int(os.environ.get("PYBSNSING_RLIVE_SEED", "20261122"))


@pytest.fixture(scope="module")
def r_ready():
    reason = rdiff.r_unavailable_reason()
    if reason is not None:
        pytest.skip(f"live comparison with R bsnsing not possible: {reason}")


#: wide cases (rdiff.generate_wide_case: 8 to about 25 predictors, up to 1500 rows,
#: formulas with ``. - x``, ``abs(x) + x``, ``exp(x) + x``); about a second each
N_WIDE = int(os.environ.get("PYBSNSING_RLIVE_WIDE_CASES", "30"))


#: the generated runs: (generator, cases, label, share of the cases R bsnsing must fit).
#: The main generator's cases mostly fit; wider data meets more of R's own stops (invalid
#: names, too many levels), so a half of them must fit
RUNS = {"main": (rdiff.generate_case, N_CASES, "", 0.7),
        "wide": (rdiff.generate_wide_case, N_WIDE, ", wide cases", 0.5)}


@pytest.mark.parametrize("run", RUNS)
def test_generated_cases_identical_to_r(r_ready, record_property, run):
    make, n_cases, label, fits = RUNS[run]
    counts: collections.Counter = collections.Counter()
    failures = []
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for seed in range(SEED0, SEED0 + n_cases):
            case = make(seed)
            kind, _r, _py, diffs = rdiff.run_case(case)
            counts[kind] += 1
            if kind == "different":
                failures.append(f"seed {seed}: {case.describe()}\n  " + "\n  ".join(
                    d[:600] for d in diffs[:3]))
    comparable = counts["identical"] + counts["different"] + counts["R predict error"]
    line = (f"live R bsnsing differential{label}: {comparable - counts['different']}/"
            f"{comparable} identical ({dict(counts)})")
    print(line)
    record_property("rlive" if run == "main" else f"rlive_{run}", line)
    assert not failures, line + "\n" + "\n".join(failures[:10])
    # the generator must make enough cases that R bsnsing can fit
    assert comparable >= fits * n_cases, line


#: seeds of bench/rdiff.py runs that once differed from R (bench/results/rdiff.txt): the
#: rpart/backtick cases of session 8 and a character column R reads as complex ('3i')
PAST_DIFFERENCES = (300564, 301849, 700815)


#: wide cases (rdiff.generate_wide_case) that once differed: 930006 (numpy's exp, not the
#: C library's), 930064 (exp overflowing to Inf), 940045 and 940081 (rpart questions on
#: abs() of an imputed column), 940110 (sqrt() of negative values: NA answers, which R's
#: own enum solver counts as yes)
PAST_WIDE_DIFFERENCES = (930006, 930064, 940045, 940081, 940110)


@pytest.mark.parametrize("seed, make", [(s, rdiff.generate_case) for s in PAST_DIFFERENCES]
                         + [(s, rdiff.generate_wide_case) for s in PAST_WIDE_DIFFERENCES])
def test_past_differences_identical_to_r(r_ready, seed, make):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        case = make(seed)
        kind, _r, _py, diffs = rdiff.run_case(case)
    assert kind != "different", "\n".join(d[:600] for d in diffs[:3])
    assert kind in ("identical", "R predict error"), kind


def _edge_cases() -> dict[str, rdiff.Case]:
    """Hand-made data sets at the edges of R's numeric handling: infinite values (values
    for bsnsing's own questions, missing for its rpart calls; counted in the medians that
    impute NA) and function terms that R evaluates from their column (``log`` of a
    negative or zero value, ``sqrt`` of a negative, ``abs`` of an imputed value)."""
    import numpy as np

    rng = np.random.default_rng(3)
    n = 60
    y = ["a" if v < 0.5 else "b" for v in rng.random(n)]
    z = [repr(float(v)) for v in np.round(rng.normal(size=n), 2)]
    u = [repr(float(v)) for v in np.round(rng.normal(size=n) * 3, 1)]

    def case(cols: dict, formula: str = "y ~ .", control: dict | None = None) -> rdiff.Case:
        spec = {"y": {"class": "character"}} | {c: {"class": "numeric"} for c in cols}
        return rdiff.Case(seed=0, columns={"y": y, **cols}, spec=spec, formula=formula,
                          control=control or {}, train_rows=list(range(1, 46)),
                          test_rows=list(range(46, n + 1)))

    def col(f) -> list:
        return [f(i) for i in range(n)]

    with_inf = col(lambda i: "Inf" if i % 3 == 0 else z[i])
    with_minf = col(lambda i: "-Inf" if i % 4 == 0 else z[(i * 7) % n])
    return {
        "all Inf": case({"x": ["Inf"] * n, "z": z}),
        "Inf and NA": case({"x": col(lambda i: "Inf" if i % 7 == 0 else (
            None if i % 5 == 0 else z[(i * 3) % n])), "z": z}),
        "only -Inf and Inf": case({"x": col(lambda i: ("-Inf", "Inf")[int(i * 7 % 11 < 5)]),
                                   "z": z}),
        "Inf, rpart questions": case({"x": with_inf, "w": with_minf},
                                     control={"import.external": True, "max.rules": 3}),
        "Inf, no rpart": case({"x": with_inf, "w": with_minf},
                              control={"import.external": False}),
        "Inf, few values": case({"x": col(lambda i: ["Inf", "1", "2", "-Inf"][i % 4]), "z": z}),
        "log(x), x <= 0": case({"x": col(lambda i: repr(float(i % 4 - 1)))},
                               formula="y ~ log(x) + x"),
        "sqrt(u), u < 0": case({"u": u, "z": z}, formula="y ~ sqrt(u) + u + z"),
        "sqrt(u), R's enum": case({"u": u, "z": z}, formula="y ~ sqrt(u) + u + z",
                                  control={"opt.solver": "enum", "max.rules": 3}),
        "abs(u), u imputed": case({"u": col(lambda i: None if i % 6 == 0 else u[i]), "z": z},
                                  formula="y ~ abs(u) + u + z"),
        "exp(x) overflows": case({"x": col(lambda i: repr(float(i % 9) * 100.0)), "z": z},
                                 formula="y ~ exp(x) + x + z"),
    }


EDGE_CASES = _edge_cases()


@pytest.mark.parametrize("name", EDGE_CASES)
def test_edge_cases_identical_to_r(r_ready, name):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        kind, _r, _py, diffs = rdiff.run_case(EDGE_CASES[name])
    assert kind == "identical", f"{kind}: " + "\n".join(d[:600] for d in diffs[:3])


def _clash_case(control: dict, seed: int) -> rdiff.Case:
    """A 0/1 factor ``V1`` (dummy ``V11``) beside a numeric ``V11`` (R quirk Q9), the
    signal in two other numeric columns, where rpart has splits to offer (the numeric
    ``V11`` is constant: a rule on its renamed ``V11.1`` would stop R)."""
    import numpy as np

    rng = np.random.default_rng(seed)
    n = 90
    v2 = np.round(rng.normal(size=n), 2)
    v3 = np.round(rng.normal(size=n), 2)
    y = ["b" if a + 0.7 * b + e > 0 else "a"
         for a, b, e in zip(v2, v3, rng.normal(scale=0.7, size=n), strict=True)]
    cols = {"y": y, "V1": [str(int(v)) for v in rng.integers(0, 2, n)],
            "V11": ["2.5"] * n,  # (constant: no question on it can split a node)
            "V2": [repr(float(v)) for v in v2], "V3": [repr(float(v)) for v in v3]}
    spec = {"y": {"class": "character"}, "V1": {"class": "factor", "levels": ["0", "1"]},
            "V11": {"class": "numeric"}, "V2": {"class": "numeric"},
            "V3": {"class": "numeric"}}
    return rdiff.Case(seed=0, columns=cols, spec=spec, formula="y ~ .", control=control,
                      train_rows=list(range(1, 71)), test_rows=list(range(71, n + 1)))


@pytest.mark.parametrize("seed", [0, 3, 5])
def test_clashing_design_names_r_loses_its_rpart_questions(r_ready, seed):
    """Q9: with two design columns named ``V11``, R's rpart call stops on the duplicate
    names at every node, so R's tree is the one grown without rpart questions, which is
    pybsnsing's tree without them; pybsnsing renames the duplicate, with a warning."""
    with_rpart = _clash_case({"import.external": True}, seed)
    without = _clash_case({"import.external": False}, seed)
    with rdiff.case_csv(with_rpart) as path:
        r_with = rdiff.run_r(with_rpart, path)
        r_without = rdiff.run_r(without, path)
        py_without = rdiff.run_py(without, path)
        py_with = rdiff.run_py(with_rpart, path)
    assert r_with.error is None and py_with.error is None
    assert r_with.trees == r_without.trees  # R: no rpart questions at any node
    assert rdiff.compare(r_without, py_without) == []  # pybsnsing without them: R's tree
    assert any("V11 -> V11.1" in w for w in py_with.warnings)
    assert py_with.trees != py_without.trees  # (the rpart questions matter on this data)
