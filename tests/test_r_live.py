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


@pytest.mark.parametrize("seed", PAST_DIFFERENCES)
def test_past_differences_identical_to_r(r_ready, seed):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        case = rdiff.generate_case(seed)
        kind, _r, _py, diffs = rdiff.run_case(case)
    assert kind != "different", "\n".join(d[:600] for d in diffs[:3])
    assert kind in ("identical", "R predict error"), kind
