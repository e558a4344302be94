"""A third live differential check: random pandas frames fitted by R bsnsing and pybsnsing.

Unlike ``bench/rdiff.py`` (CSV files that both read), the data go to R in memory
(``pybsnsing.r.bsnsing_r.run_r_bsnsing``: pandas -> R through rpy2), so pandas dtypes
are exercised: float with NaN and +-Inf, int, nullable ``Int64`` with NA, bool,
``category``, object strings; responses factor / integer 0-1 / 3-class character;
formulas ``y ~ .`` or ``y ~ f(x) + .`` (``log``, ``sqrt``, ``exp``, ``abs``); some
``max_rules``, ``import_external = FALSE``, ``opt_solver = "enum"``. Compares every
tree's node signature and the predicted probabilities (to 1e-12).

    .venv/bin/python bench/rdiff_frames.py 1000 150     # seeds 1000..1149
    .venv/bin/python bench/rdiff_frames.py 1000 150 --odd-names
        (the same cases with the columns renamed to odd names R takes as they are:
        dots, underscores, a leading dot, capitals, non-ASCII letters, V1; the
        response Outcome, class, Y or y.resp)

Needs R with bsnsing 1.0.1 in R_LIBS (``.ci/setup`` puts it in .rlib).
"""

from __future__ import annotations

import argparse
import collections
import warnings
from typing import Any

import numpy as np
import pandas as pd

from pybsnsing import bsnsing
from pybsnsing.r.bsnsing_r import r_predict, run_r_bsnsing


def _column(rng: np.random.Generator, n: int, sig: np.ndarray) -> Any:
    kind = rng.choice(["float", "int", "Int64", "bool", "cat", "str", "floatinf", "neg"])
    if kind == "float":
        v = np.round(sig * rng.normal() + rng.normal(size=n), int(rng.integers(0, 4)))
        v[rng.random(n) < rng.choice([0, 0.1])] = np.nan
        return v
    if kind == "floatinf":
        v = sig + rng.normal(size=n)
        v[rng.random(n) < 0.1] = rng.choice([np.inf, -np.inf])
        return v
    if kind == "neg":
        return np.round(rng.normal(size=n) * 5 + sig, 1)
    if kind == "int":
        return rng.integers(-5, 6, n) + (sig > 0)
    if kind == "Int64":
        v = pd.array(rng.integers(0, 8, n) + (sig > 0), dtype="Int64")
        v[rng.random(n) < 0.1] = pd.NA
        return v
    if kind == "bool":
        return (sig + rng.normal(size=n)) > 0
    if kind == "cat":
        return pd.Categorical(rng.choice(["a", "b", "c"], n))
    return np.where(sig + rng.normal(size=n) > 0, "u", rng.choice(["v", "w"], n)).astype(object)


def make_case(seed: int) -> tuple[str, pd.DataFrame, dict]:
    """The formula, data and control of one case (deterministic in ``seed``)."""
    rng = np.random.default_rng(seed)
    n = int(rng.integers(15, 300))
    sig = rng.normal(size=n)
    cols = {f"x{j}": _column(rng, n, sig) for j in range(int(rng.integers(1, 6)))}
    score = sig + rng.normal(scale=0.7, size=n)
    ycls = rng.choice(["factor", "int01", "char3"])
    if ycls == "factor":
        y: Any = pd.Categorical(np.where(score > 0, "yes", "no"))
    elif ycls == "int01":
        y = (score > 0).astype(np.int32)
    else:
        y = np.where(score > 0.5, "A", np.where(score < -0.5, "B", "C")).astype(object)
    df = pd.DataFrame({"y": y, **cols})
    nums = [c for c, v in cols.items()
            if np.asarray(v).dtype.kind == "f" or str(getattr(v, "dtype", "")) == "Int64"]
    formula = "y ~ ."
    if nums and rng.random() < 0.4:
        fun = str(rng.choice(["log", "sqrt", "exp", "abs"]))
        formula = f"y ~ {fun}({rng.choice(nums)}) + ."
    ctl: dict[str, Any] = {}
    if rng.random() < 0.5:
        ctl["max_rules"] = int(rng.integers(1, 4))
    if rng.random() < 0.3:
        ctl["import_external"] = False
    if rng.random() < 0.2:
        ctl["opt_solver"] = "enum"
    return formula, df, ctl


#: predictor names for ``--odd-names`` (syntactic R names, so that R's rule text parses)
ODD_NAMES = ("Temp.max", "x_1", "B", "a", "..x", "X.1.2", "zz9", ".hidden", "Ab", "b.B",
             "y2", "TRUEish", "\u00e9te", "V1", "x.y_z")


def rename_odd(seed: int, formula: str, df: pd.DataFrame) -> tuple[str, pd.DataFrame]:
    """The case with its columns renamed to :data:`ODD_NAMES` (deterministic in ``seed``)
    and the response to one of four names; the formula follows (it has one of
    :func:`make_case`'s shapes, ``y ~ .`` or ``y ~ f(x) + .``)."""
    rng = np.random.default_rng(seed + 7)
    preds = [c for c in df.columns if c != "y"]
    mapping = dict(zip(preds, rng.choice(ODD_NAMES, size=len(preds), replace=False),
                       strict=True))
    for old, new in mapping.items():
        formula = formula.replace(f"({old})", f"({new})")
    yname = str(rng.choice(["Outcome", "class", "Y", "y.resp"]))
    formula = formula.replace("y ~", f"{yname} ~", 1)
    return formula, df.rename(columns={**mapping, "y": yname})


def run_case(seed: int, odd_names: bool = False) -> str:
    """The outcome of case ``seed`` (printing the seed of a difference)."""
    formula, df, ctl = make_case(seed)
    if odd_names:
        formula, df = rename_odd(seed, formula, df)
    try:
        fit = run_r_bsnsing(formula, df, **ctl)
    except Exception:  # R's own stops are not parity cases
        fit = None
    try:
        py = bsnsing(formula, df, **ctl)
    except Exception as exc:
        py, py_error = None, f"{type(exc).__name__}: {exc}"
    if fit is None:
        return "both error" if py is None else "R error/py fits"
    if py is None:
        print("R fits, pybsnsing stops:", seed, formula, py_error[:200])
        return "R fits/py error"
    trees_py = [t.tree_signature() for t in getattr(py, "trees", [py])]
    trees_r = [t.tree_signature() for t in getattr(fit.model, "trees", [fit.model])]
    if trees_py != trees_r:
        print("DIFFERENT", seed, formula, ctl, dict(df.dtypes.astype(str)))
        return "different"
    try:
        same = np.allclose(np.asarray(py.predict(df)), np.asarray(r_predict(fit.robject, df)),
                           atol=1e-12, equal_nan=True)
    except Exception:  # R's predict stops on some data it fitted
        return "R predict error"
    if not same:
        print("PREDICTIONS DIFFER", seed, formula)
    return "identical" if same else "predictions differ"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("start", type=int, nargs="?", default=1000)
    ap.add_argument("cases", type=int, nargs="?", default=150)
    ap.add_argument("--odd-names", action="store_true",
                    help="rename the columns to odd R names (rename_odd)")
    args = ap.parse_args()
    counts: collections.Counter = collections.Counter()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for seed in range(args.start, args.start + args.cases):
            counts[run_case(seed, args.odd_names)] += 1
    comparable = counts["identical"] + counts["different"] + counts["predictions differ"]
    print(f"{counts['identical']}/{comparable} identical (seeds {args.start}.."
          f"{args.start + args.cases - 1}{', odd names' if args.odd_names else ''}): "
          f"{dict(counts)}")


if __name__ == "__main__":
    main()
