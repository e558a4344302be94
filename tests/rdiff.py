"""Live differential testing against R bsnsing 1.0.1 (through rpy2).

A seeded generator makes data sets that nobody prepared: mixed column types
(continuous numbers with heavy ties, few distinct values, huge and tiny
magnitudes, negatives; integers; factors with 2-30 levels in non-alphabetical
order, rare and unused levels; ordered factors; logicals; character columns
with mixed case, digits and punctuation), missing values, every response
kind R bsnsing takes (2-level factor, 0/1 and other integer pairs, logical,
character, 3-6 level factor, integer multi-class), ``y ~ .`` or a column
subset, and random values of every ``bscontrol()`` parameter.
:func:`generate_wide_case` puts several such data sets side by side (8 to
about 25 predictors, up to 1500 rows) with other formula shapes (``. - x``,
``abs(x) + x``, ``exp(x) + x``).

Each case is written to ONE CSV file. R reads it with
``read.csv(stringsAsFactors = TRUE, na.strings = c("", "NA"))`` and pybsnsing
with :func:`pybsnsing.read_csv` (R's reader, value for value); both then apply
the same column classes (``factor(levels = ...)``, ``ordered``,
``as.character``, ``as.integer``, ``as.numeric``). Both fit
``bsnsing(formula, data = train, <control>)`` and predict the test rows.
:func:`compare` lists every difference: tree nodes (number, parent,
children, n1, n0, rule text), print and summary text (apart from the Call
line), predicted probabilities (to 1e-12) and classes.

Used by ``tests/test_r_live.py`` (a bounded, seeded run in CI) and by
``bench/rdiff.py`` (any number of cases, with each difference minimised).
"""

from __future__ import annotations

import contextlib
import dataclasses
import os
import string
import sys
import tempfile
import warnings
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

REPO = Path(__file__).resolve().parents[1]

# ----------------------------------------------------------------------------- cases


@dataclass
class Case:
    """One generated data set with its formula, control and train/test split.

    ``columns`` holds the CSV fields as strings (``None`` = an empty field);
    ``spec`` the R class each column is given after ``read.csv``
    (``{"class": "factor" | "ordered" | "character" | "integer" | "numeric" |
    "logical" | "asis", "levels": [...]}``); ``control`` uses R's names.
    """

    seed: int
    columns: dict[str, list[str | None]]
    spec: dict[str, dict]
    formula: str
    control: dict[str, Any]
    train_rows: list[int]  # 1-based, increasing
    test_rows: list[int]
    notes: list[str] = field(default_factory=list)

    @property
    def n(self) -> int:
        return len(next(iter(self.columns.values())))

    def csv_text(self) -> str:
        names = list(self.columns)
        lines = [",".join(names)]
        for i in range(self.n):
            lines.append(",".join(_csv_field(self.columns[c][i]) for c in names))
        return "\n".join(lines) + "\n"

    def describe(self) -> str:
        kinds = ", ".join(f"{k}:{v['class']}" for k, v in self.spec.items())
        return (f"seed={self.seed} n={self.n} train={len(self.train_rows)} "
                f"formula={self.formula!r} control={self.control} columns=[{kinds}]")

    def replace(self, **kw: Any) -> Case:
        return dataclasses.replace(self, **kw)


def _csv_field(v: str | None) -> str:
    if v is None:
        return ""
    if any(ch in v for ch in ',"\n\r') or v != v.strip() or v in ("NA",):
        return '"' + v.replace('"', '""') + '"'
    return v


_LETTERS = string.ascii_letters
_LEVEL_CHARS = string.ascii_letters + string.digits + "._"
_ODD_CHARS = "!#$%&'()*,;?@[]{}|~`"


def _word(rng: np.random.Generator, chars: str, lo: int = 1, hi: int = 6) -> str:
    k = int(rng.integers(lo, hi + 1))
    return "".join(chars[int(i)] for i in rng.integers(0, len(chars), k))


def _levels(rng: np.random.Generator, k: int, odd: bool) -> list[str]:
    """k distinct level strings in a random (non-alphabetical) order."""
    out: list[str] = []
    while len(out) < k:
        style = rng.integers(0, 6)
        if style == 0:
            w = str(int(rng.integers(0, 100)))  # numbers as labels
        elif style == 1:
            w = _word(rng, string.ascii_lowercase, 1, 3)
        elif style == 2:  # case variants of one another
            base = out[int(rng.integers(0, len(out)))] if out else _word(rng, _LETTERS, 1, 3)
            w = "".join(c.upper() if rng.random() < 0.5 else c.lower() for c in base)
        else:
            w = _word(rng, _LEVEL_CHARS, 1, 5)
            if w[0] in "._":
                w = "L" + w
        if odd and rng.random() < 0.3:
            w = w + _ODD_CHARS[int(rng.integers(0, len(_ODD_CHARS)))] + _word(rng, _LETTERS, 1, 2)
        if w not in out:
            out.append(w)
    rng.shuffle(out)
    return out


def _num_text(rng: np.random.Generator, x: float) -> str:
    """A decimal string for x: shortest round-trip, or a random number of digits."""
    r = rng.random()
    if r < 0.4:
        return repr(float(x))
    if r < 0.6:
        return f"{x:.17g}"
    return f"{x:.{int(rng.integers(1, 16))}g}"


def _numeric_column(rng: np.random.Generator, n: int, y: np.ndarray) -> tuple[list, str]:
    kind = ["cont", "ties", "few", "huge", "tiny", "neg", "int", "bin01", "close", "const",
            "bigint", "signed0", "sub"][int(rng.integers(0, 13))]
    signal = (y - y.mean()) * rng.normal(0, 1.5)
    if kind == "cont":
        x = rng.normal(0, 1, n) + signal
        vals = [_num_text(rng, v) for v in x]
    elif kind == "ties":
        pool = np.round(rng.normal(0, 3, int(rng.integers(5, 30))), int(rng.integers(0, 3)))
        x = pool[rng.integers(0, len(pool), n)] + np.round(signal)
        vals = [_num_text(rng, v) for v in x]
    elif kind == "few":
        pool = np.round(rng.normal(0, 10, int(rng.integers(2, 12))), 2)
        idx = np.clip(rng.integers(0, len(pool), n) + (signal > 0), 0, len(pool) - 1)
        vals = [_num_text(rng, v) for v in pool[idx]]
    elif kind == "huge":
        x = (rng.normal(0, 1, n) + signal) * 10.0 ** rng.integers(5, 300)
        vals = [_num_text(rng, v) for v in x]
    elif kind == "tiny":
        x = (rng.normal(0, 1, n) + signal) * 10.0 ** -rng.integers(5, 300)
        vals = [_num_text(rng, v) for v in x]
    elif kind == "neg":
        x = -np.abs(rng.normal(0, 100, n) + 30 * signal)
        vals = [_num_text(rng, v) for v in x]
    elif kind == "int":
        x = rng.integers(-50, 50, n) + np.round(5 * signal).astype(int)
        vals = [str(int(v)) for v in x]
    elif kind == "bin01":
        x = (rng.random(n) < 0.5 + 0.3 * np.tanh(signal)).astype(int)
        vals = [str(int(v)) for v in x]
    elif kind == "const":  # one value (R: an equality question that every row answers)
        vals = [_num_text(rng, float(np.round(rng.normal(0, 5), 3)))] * n
    elif kind == "bigint":
        x = rng.integers(-2_000_000_000, 2_000_000_000, n)
        vals = [str(int(v)) for v in x]
    elif kind == "signed0":  # -0, 0 and a few small values
        pool = ["-0", "0", "0.0", "-0.0", "1e-320", "-1e-320", "0.5"]
        idx = np.clip(rng.integers(0, len(pool), n) + (signal > 0), 0, len(pool) - 1)
        vals = [pool[i] for i in idx]
    elif kind == "sub":  # 17-digit decimals: R's own decimal conversion matters
        x = rng.normal(0, 1, n) + signal
        vals = [f"{v:.17f}" if rng.random() < 0.5 else f"{v:.16e}" for v in x]
    else:  # distinct numbers that print alike at 15 significant digits
        base = 1.0 + float(rng.integers(1, 9)) * 1e-13
        pool = [base + k * 2.220446049250313e-16 for k in range(int(rng.integers(2, 6)))]
        idx = np.clip(rng.integers(0, len(pool), n) + (signal > 0), 0, len(pool) - 1)
        vals = [repr(pool[i]) for i in idx]
    return vals, kind


def _with_infinities(rng: np.random.Generator, vals: list) -> list:
    """``vals`` with a few entries written as R reads infinities (``Inf``, ``-Inf``,
    ``inf``): R bsnsing keeps them as values; its rpart calls treat them as missing."""
    out = list(vals)
    n = len(out)
    for i in rng.choice(n, int(rng.integers(1, max(2, n // 6))), replace=False).tolist():
        out[i] = str(rng.choice(["Inf", "-Inf", "inf", "-Inf"]))
    return out


def draw_control(rng: np.random.Generator, n: int, ncols: int) -> dict[str, Any]:
    """A random subset of ``bscontrol()``'s parameters (R names) with random values, for
    a data set of ``n`` rows and ``ncols`` columns (response included): each parameter
    with chance 0.35; now and then values out of range that R corrects with a warning;
    ``max.rules`` at most 3 where R's own search would take minutes."""
    ctl: dict[str, Any] = {}
    choices = {
        "bin.size": lambda: int(rng.integers(0, 12)),
        "nseg.numeric": lambda: int(rng.integers(2, 30)),
        "nseg.factor": lambda: int(rng.integers(8, 40)),
        "num2factor": lambda: int(rng.integers(2, 25)),
        "node.size": lambda: int(rng.integers(0, 15)),
        "stop.prob": lambda: float(np.round(rng.uniform(0.6, 1.0), 3)),
        "max.rules": lambda: int(rng.integers(1, 5)),
        "import.external": lambda: bool(rng.random() < 0.5),
        "suppress.internal": lambda: bool(rng.random() < 0.3),
        "no.same.gender.children": lambda: bool(rng.random() < 0.5),
        "opt.model": lambda: str(rng.choice(["gini", "error"])),
        "opt.solver": lambda: str(rng.choice(["enum_c", "enum"])),
        "solver.timelimit": lambda: float(rng.choice([60, 180, 1000])),
        "greedy.level": lambda: float(np.round(rng.uniform(0, 1), 2)),
        "n0n1.cap": lambda: int(rng.integers(1, 100000)),
    }
    if rng.random() < 0.05:  # out-of-range values R corrects with a warning
        choices["stop.prob"] = lambda: float(rng.choice([1.5, -0.2]))
        choices["node.size"] = lambda: int(rng.integers(20, 80))
    for key, draw in choices.items():
        if rng.random() < 0.35:
            ctl[key] = draw()
    if ctl.get("max.rules", 2) >= 4 and (n > 150 or ncols > 4):
        ctl["max.rules"] = 3  # R's own search takes minutes there
    if ctl.get("suppress.internal") and not ctl.get("import.external", True):
        ctl["suppress.internal"] = False
    return ctl


def generate_case(seed: int, *, max_rows: int = 400) -> Case:
    """A random data set, formula, control and split (deterministic in ``seed``)."""
    rng = np.random.default_rng(seed)
    irng = np.random.default_rng([seed, 1])  # infinite values: the other draws stay as they were
    n = int(rng.integers(12, max_rows + 1)) if rng.random() < 0.8 else int(
        rng.integers(12, 60))
    cols: dict[str, list] = {}
    spec: dict[str, dict] = {}
    notes: list[str] = []

    # ---- response
    ykind = ["factor2", "int01", "intpair", "logical", "character2", "factork", "intk",
             "characterk"][int(rng.choice(8, p=[.22, .12, .08, .1, .06, .22, .12, .08]))]
    k = 2 if ykind in ("factor2", "int01", "intpair", "logical", "character2") else int(
        rng.integers(3, 7))
    probs = rng.dirichlet(np.ones(k) * 2)
    ycls = rng.choice(k, size=n, p=probs)
    for c in range(k):  # every class present at least twice
        ycls[rng.choice(n, 2, replace=False)] = c
    if ykind in ("factor2", "factork", "character2", "characterk"):
        labels = _levels(rng, k, odd=False)
        yv = [labels[c] for c in ycls]
        lv = labels + (["unusedY"] if ykind == "factor2" and rng.random() < 0.2 else [])
        spec_y = {"class": "factor", "levels": lv} if ykind.startswith("factor") else {
            "class": "character"}
    elif ykind == "int01":
        yv = [str(int(c)) for c in ycls]
        spec_y = {"class": "integer"}
    elif ykind == "intpair":
        vals = sorted(rng.choice(np.arange(-3, 10), 2, replace=False).tolist())
        yv = [str(vals[c]) for c in ycls]
        spec_y = {"class": "integer"}
    elif ykind == "logical":
        yv = ["TRUE" if c else "FALSE" for c in ycls]
        spec_y = {"class": "logical"}
    else:  # intk
        vals = sorted(rng.choice(np.arange(0, 12), k, replace=False).tolist())
        yv = [str(vals[c]) for c in ycls]
        spec_y = {"class": "integer"}
    yname = "y"
    cols[yname] = yv
    spec[yname] = spec_y
    notes.append(f"response {ykind}")

    # ---- predictors
    p = int(rng.integers(1, 7))
    ysig = (ycls == ycls.max()).astype(float) if k == 2 else (ycls / max(k - 1, 1))
    for j in range(p):
        pk = ["num", "num", "num", "factor", "ordered", "logical", "character", "int"][
            int(rng.integers(0, 8))]
        name = f"{pk[0]}{j + 1}"
        if pk in ("num", "int"):
            vals, sub = _numeric_column(rng, n, ysig)
            if pk == "int":
                vals = [str(int(rng.integers(-20, 20) + 3 * s)) for s in ysig]
                sub = "int"
            spec[name] = {"class": "numeric" if sub not in ("int", "bin01") else "integer"}
            if spec[name]["class"] == "numeric" and irng.random() < 0.1:
                vals = _with_infinities(irng, vals)
                sub += " with Inf"
            cols[name] = vals
            notes.append(f"{name} {sub}")
        elif pk in ("factor", "ordered", "character"):
            if pk == "ordered":  # R bsnsing stops from 5 levels on ("o^4": invalid name)
                nl = int(rng.integers(2, 5)) if rng.random() < 0.85 else int(rng.integers(5, 8))
            else:
                nl = int(rng.integers(2, 31)) if rng.random() < 0.3 else int(rng.integers(2, 8))
            lv = _levels(rng, nl, odd=(pk == "character" and rng.random() < 0.1))
            w = rng.dirichlet(np.ones(nl))
            shift = (ysig > 0.5).astype(int) * int(rng.integers(0, 2))
            idx = (rng.choice(nl, size=n, p=w) + shift) % nl
            vals = [lv[i] for i in idx]
            cols[name] = vals
            if pk == "character":
                spec[name] = {"class": "character"}
            else:
                unused = [f"zz{u}" for u in range(int(rng.integers(0, 2)))] if pk == "factor" \
                    else []
                order = lv + unused
                spec[name] = {"class": pk, "levels": order}
        else:  # logical
            vals = ["TRUE" if (rng.random() < 0.3 + 0.4 * s) else "FALSE" for s in ysig]
            cols[name] = vals
            spec[name] = {"class": "logical"}
        if rng.random() < 0.25:  # missing values
            rate = rng.uniform(0.01, 0.3)
            cols[name] = [None if rng.random() < rate else v for v in cols[name]]

    preds = [c for c in cols if c != yname]
    if rng.random() < 0.6 or len(preds) == 1:
        formula = f"{yname} ~ ."
    else:
        sub = sorted(rng.choice(preds, int(rng.integers(1, len(preds))), replace=False),
                     key=preds.index)
        formula = f"{yname} ~ " + " + ".join(sub)

    # ---- control (R names; a random subset of the parameters)
    ctl = draw_control(rng, n, len(cols))

    ntrain = max(8, int(round(n * rng.uniform(0.5, 0.85))))
    train = sorted((rng.choice(n, ntrain, replace=False) + 1).tolist())
    test = [i for i in range(1, n + 1) if i not in set(train)] or [1]
    return Case(seed=seed, columns=cols, spec=spec, formula=formula, control=ctl,
                train_rows=train, test_rows=test, notes=notes)


#: the formula shapes of :func:`generate_wide_case`, with their chances
_WIDE_FORMULAS = (("dot", 0.45), ("minus", 0.25), ("function", 0.3))


def generate_wide_case(seed: int, *, max_rows: int = 1500) -> Case:
    """A wider case (8 to about 25 predictors; rows as :func:`generate_case` draws them,
    up to a random bound of 60 to ``max_rows``) with other formula shapes: the
    predictors of several :func:`generate_case` data sets side by side (``name_k`` for
    the k-th: its first rows, recycled when it has fewer), and ``y ~ .``, ``y ~ . - x``,
    or a numeric column (missing values allowed) also through a function (``exp``,
    ``abs``, ``log``, ``sqrt``: ``y ~ log(x) + x + ...``; R evaluates the rules on ``x``,
    where ``log`` may give NaN or ``-Inf`` and ``exp`` ``Inf``). Deterministic in
    ``seed``; the response, the control (``max.rules`` at most 2) and the first
    predictors are the first data set's."""
    rng = np.random.default_rng([seed, 7])
    base = generate_case(seed, max_rows=int(rng.integers(60, max_rows + 1)))
    n = base.n
    cols, spec = dict(base.columns), dict(base.spec)
    want = int(rng.integers(9, 23))  # columns, the response included
    for k in range(1, 12):
        if len(cols) >= want:
            break
        other = generate_case(seed * 31 + k, max_rows=max_rows)
        take = [i % other.n for i in range(n)]  # its first n rows (recycled when shorter)
        for c, v in other.columns.items():
            if c != "y":
                cols[f"{c}_{k}"], spec[f"{c}_{k}"] = [v[i] for i in take], other.spec[c]
    preds = [c for c in cols if c != "y"]
    numeric = [c for c in preds if spec[c]["class"] in ("numeric", "integer")]
    names, chances = zip(*_WIDE_FORMULAS, strict=True)
    shape = str(rng.choice(names, p=chances))
    if shape == "function" and not numeric:
        shape = "dot"
    if shape == "minus":
        formula = f"y ~ . - {preds[int(rng.integers(0, len(preds)))]}"
    elif shape == "dot":
        formula = "y ~ ."
    else:  # (with the column itself in the model: R evaluates the rules on it)
        c = numeric[int(rng.integers(0, len(numeric)))]
        fun = rng.choice(["exp", "abs", "log", "sqrt"])
        formula = "y ~ " + " + ".join([f"{fun}({c})"] + preds)
    control = dict(base.control)
    if control.get("max.rules", 2) > 2:  # R's search of 3+ rules among the questions of
        control["max.rules"] = 2  # 20 columns takes many minutes (its pure-R enum: hours)
    ntrain = max(8, int(round(n * rng.uniform(0.5, 0.85))))
    train = sorted((rng.choice(n, ntrain, replace=False) + 1).tolist())
    test = [i for i in range(1, n + 1) if i not in set(train)] or [1]
    note = f"wide: {len(preds)} predictors, formula {shape}"
    return base.replace(columns=cols, spec=spec, formula=formula, control=control,
                        train_rows=train, test_rows=test, notes=base.notes + [note])


# ----------------------------------------------------------------------------- Python side


def apply_spec_py(df: pd.DataFrame, spec: dict[str, dict]) -> pd.DataFrame:
    """The R conversions of :func:`_R_READ` done in pandas."""
    from pybsnsing.datasets import r_as_character

    out = df.copy()
    for name, s in spec.items():
        col = out[name]
        cls = s["class"]
        if cls in ("factor", "ordered"):
            chars = r_as_character(col)
            lv = list(s["levels"])
            chars[[c is not None and c not in set(lv) for c in chars]] = None
            out[name] = pd.Categorical(chars, categories=lv, ordered=cls == "ordered")
        elif cls == "character":
            out[name] = pd.Series(r_as_character(col), index=out.index, dtype=object)
        elif cls == "integer":
            if not pd.api.types.is_integer_dtype(col.dtype):
                raise AssertionError(f"column {name} read as {col.dtype}, not integer")
        elif cls == "numeric":
            out[name] = col.astype("float64") if not col.isna().any() else pd.to_numeric(
                col.astype("Float64"), errors="raise").astype("float64")
        elif cls == "logical":
            if not pd.api.types.is_bool_dtype(col.dtype):
                raise AssertionError(f"column {name} read as {col.dtype}, not logical")
    return out


def read_case_py(csv: str | Path, spec: dict[str, dict]) -> pd.DataFrame:
    import pybsnsing

    reader = getattr(pybsnsing, "read_csv", None)
    if reader is None:
        from pybsnsing.datasets import read_csv_r as reader
    return apply_spec_py(reader(csv), spec)


@dataclass
class Outcome:
    """What one implementation did on a case."""

    error: str | None = None
    print_text: str = ""
    summary_text: str = ""
    trees: list[list[tuple]] = field(default_factory=list)  # per class tree: node tuples
    prob: np.ndarray | None = None
    cls: list[str] | None = None
    predict_error: str | None = None
    warnings: list[str] = field(default_factory=list)


def _py_nodes(tree) -> list[tuple]:
    return [(nd.number, nd.parent, nd.lchild, nd.rchild, int(nd.n1), int(nd.n0),
             nd.split_rule) for nd in sorted(tree.nodes, key=lambda nd: nd.number)]


def run_py(case: Case, csv: str | Path) -> Outcome:
    from pybsnsing import bsnsing

    data = read_case_py(csv, case.spec)
    train = data.iloc[[r - 1 for r in case.train_rows]].reset_index(drop=True)
    test = data.iloc[[r - 1 for r in case.test_rows]].reset_index(drop=True)
    out = Outcome()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            model = bsnsing(case.formula, train, **case.control)
        except Exception as exc:  # noqa: BLE001 - recorded as the outcome
            out.error = f"{type(exc).__name__}: {exc}"
            return out
        out.print_text = str(model)
        out.summary_text = str(model.summary())
        trees = getattr(model, "trees", [model])
        out.trees = [_py_nodes(t) for t in trees]
        try:
            prob = model.predict(test, type="prob")
            out.prob = np.asarray(prob, dtype=float)
            out.cls = [_label(v) for v in model.predict(test, type="class")]
        except Exception as exc:  # noqa: BLE001
            out.predict_error = f"{type(exc).__name__}: {exc}"
    out.warnings = [str(w.message) for w in caught]
    return out


def _label(v: Any) -> str:
    if isinstance(v, (bool, np.bool_)):
        return "TRUE" if v else "FALSE"
    if isinstance(v, (float, np.floating)) and float(v).is_integer():
        return str(int(v))
    return str(v)


# ----------------------------------------------------------------------------- R side

#: R lines that load bsnsing, read a case's CSV as ``d`` and give each column its class
#: from ``spec`` (the body's start of every R function run on a case file)
R_READ_CASE = r"""
  suppressPackageStartupMessages(library(bsnsing))
  d <- read.csv(csv, stringsAsFactors = TRUE, na.strings = c("", "NA"))
  for (nm in names(spec)) {
    s <- spec[[nm]]
    cls <- s[["class"]]
    if (cls == "factor") d[[nm]] <- factor(as.character(d[[nm]]), levels = s[["levels"]])
    else if (cls == "ordered") d[[nm]] <- factor(as.character(d[[nm]]), levels = s[["levels"]],
                                                 ordered = TRUE)
    else if (cls == "character") d[[nm]] <- as.character(d[[nm]])
    else if (cls == "integer") d[[nm]] <- as.integer(d[[nm]])
    else if (cls == "numeric") d[[nm]] <- as.numeric(d[[nm]])
    else if (cls == "logical") d[[nm]] <- as.logical(d[[nm]])
  }
"""

_R_RUN = r"""
function(csv, spec, formula, ctrl, train_rows, test_rows) {
""" + R_READ_CASE + r"""  train <- d[train_rows, , drop = FALSE]
  test <- d[test_rows, , drop = FALSE]
  rownames(train) <- NULL
  rownames(test) <- NULL
  warns <- character(0)
  res <- list(error = NULL)
  bs <- withCallingHandlers(
    tryCatch(eval(as.call(c(list(as.name("bsnsing"), formula = stats::as.formula(formula),
                                 data = as.name("train")), ctrl))),
             error = function(e) { res$error <<- conditionMessage(e); NULL }),
    warning = function(w) { warns <<- c(warns, conditionMessage(w));
                            invokeRestart("muffleWarning") })
  res$warnings <- warns
  if (is.null(bs)) {
    if (is.null(res$error)) res$error <- "bsnsing returned NULL"
    return(res)
  }
  cap <- function(expr) paste(utils::capture.output(expr), collapse = "\n")
  res$print <- tryCatch(cap(print(bs)), error = function(e) paste("ERROR:", conditionMessage(e)))
  res$summary <- tryCatch(cap(print(summary(bs))),
                          error = function(e) paste("ERROR:", conditionMessage(e)))
  trees <- if (inherits(bs, "mbsnsing")) lapply(seq_len(bs$nclass), function(i) bs[[i]]) else
    list(bs)
  res$trees <- lapply(trees, function(t) {
    nd <- t$tree.nodes[order(sapply(t$tree.nodes, function(z) z$node.number))]
    list(number = sapply(nd, function(z) as.integer(z$node.number)),
         parent = sapply(nd, function(z) as.integer(z$node.parent)),
         lchild = sapply(nd, function(z) as.integer(z$node.lchild)),
         rchild = sapply(nd, function(z) as.integer(z$node.rchild)),
         n1 = sapply(nd, function(z) as.integer(z$node.n1)),
         n0 = sapply(nd, function(z) as.integer(z$node.n0)),
         rule = sapply(nd, function(z) as.character(z$node.split.rule)))
  })
  pr <- tryCatch({
    p <- suppressWarnings(predict(bs, test, type = "prob"))
    cl <- suppressWarnings(predict(bs, test, type = "class"))
    list(prob = as.numeric(p), dim = if (is.null(dim(p))) integer(0) else dim(p),
         cls = as.character(cl))
  }, error = function(e) list(error = conditionMessage(e)))
  res$predict <- pr
  res
}
"""

_R_FN: list = []


def use_private_r_library() -> None:
    """Put the project's private R library (``.rlib``, where ``.ci/setup``
    installs R bsnsing 1.0.1) on ``R_LIBS`` before R starts in this process."""
    lib = REPO / ".rlib"
    current = os.environ.get("R_LIBS", "")
    if lib.is_dir() and str(lib) not in current.split(os.pathsep):
        os.environ["R_LIBS"] = f"{lib}{os.pathsep}{current}" if current else str(lib)


def r_unavailable_reason() -> str | None:
    """Why R bsnsing cannot be run here (None when it can)."""
    use_private_r_library()
    from pybsnsing.r.bsnsing_r import r_bsnsing_unavailable_reason

    return r_bsnsing_unavailable_reason()


def r_unavailable_exit() -> int | None:
    """For the bench scripts that run R bsnsing: say why it cannot run here (on stderr)
    and return the exit code 2, or None when it can."""
    reason = r_unavailable_reason()
    if reason is None:
        return None
    print(f"cannot run R bsnsing: {reason}", file=sys.stderr)
    return 2


def _r_fn():
    if not _R_FN:
        import rpy2.robjects as ro

        _R_FN.append(ro.r(_R_RUN))
    return _R_FN[0]


def run_r(case: Case, csv: str | Path) -> Outcome:
    import rpy2.robjects as ro

    from pybsnsing.r.bsnsing_r import _plain_to_r, _r_to_plain

    spec = ro.ListVector({k: ro.ListVector({kk: (ro.StrVector(vv) if isinstance(vv, list)
                                                 else vv) for kk, vv in v.items()})
                          for k, v in case.spec.items()})
    ctrl = _plain_to_r(case.control) if case.control else ro.r("list()")
    res = _r_to_plain(_r_fn()(str(csv), spec, case.formula, ctrl,
                              ro.IntVector(case.train_rows), ro.IntVector(case.test_rows)))
    out = Outcome(warnings=_as_list(res.get("warnings")))
    if res.get("error"):
        out.error = _scalar(res["error"])
        return out
    out.print_text = _scalar(res["print"])
    out.summary_text = _scalar(res["summary"])
    for t in res["trees"]:
        cols = [_as_list(t[k]) for k in ("number", "parent", "lchild", "rchild", "n1", "n0",
                                          "rule")]
        out.trees.append([tuple(v) for v in zip(*cols, strict=True)])
    pr = res["predict"]
    if pr.get("error"):
        out.predict_error = _scalar(pr["error"])
    else:
        prob = np.asarray(_as_list(pr["prob"]), dtype=float)
        dims = _as_list(pr.get("dim"))
        if len(dims) == 2:
            prob = prob.reshape(dims[1], dims[0]).T
        out.prob = prob
        out.cls = [str(v) for v in _as_list(pr["cls"])]
    return out


def _as_list(v: Any) -> list:
    if v is None:
        return []
    return v if isinstance(v, list) else [v]


def _scalar(v: Any) -> Any:
    return v[0] if isinstance(v, list) and len(v) == 1 else v


# ----------------------------------------------------------------------------- compare


def fix_q7(text: str) -> str:
    """R 1.0.1 quirk Q7 (a wrong summary accuracy when every fitted value is one
    class) is fixed on purpose (README, "Deliberate differences"): recompute
    each accuracy line from the confusion matrix printed above it when that
    matrix has a single row."""
    lines = text.split("\n")
    out = list(lines)
    for i, line in enumerate(lines):
        if line != "Confusion matrix:" or i + 3 >= len(lines):
            continue
        header = lines[i + 2].split()[1:]
        rows = []
        for j in range(i + 3, len(lines)):
            if lines[j].startswith("Accuracy: "):
                if len(rows) == 1 and rows[0][0] in header:
                    counts = [int(v) for v in rows[0][1:]]
                    acc = counts[header.index(rows[0][0])] / sum(counts)
                    out[j] = f"Accuracy: {acc:.4f}"
                break
            rows.append(lines[j].split())
    return "\n".join(out)


def compare(r: Outcome, py: Outcome) -> list[str]:
    """Differences between R's and pybsnsing's outcome ([] = identical)."""
    from pybsnsing.r.convert import strip_call

    if r.error is not None:
        return []  # R fails: not a parity case (see classify)
    if py.error is not None:
        return [f"pybsnsing fails where R fits: {py.error}"]
    diffs: list[str] = []
    if len(r.trees) != len(py.trees):
        return [f"{len(r.trees)} R trees vs {len(py.trees)} pybsnsing trees"]
    for t, (rt, pt) in enumerate(zip(r.trees, py.trees, strict=True)):
        if rt != pt:
            for a, b in zip(rt, pt, strict=False):
                if a != b:
                    diffs.append(f"tree {t} node: R {a} vs py {b}")
                    break
            else:
                diffs.append(f"tree {t}: {len(rt)} R nodes vs {len(pt)} pybsnsing nodes")
    if strip_call(r.print_text) != strip_call(py.print_text):
        diffs.append("print text differs:\nR:\n" + strip_call(r.print_text) + "\npy:\n"
                     + strip_call(py.print_text))
    if fix_q7(strip_call(r.summary_text)) != strip_call(py.summary_text):
        diffs.append("summary text differs:\nR:\n" + strip_call(r.summary_text) + "\npy:\n"
                     + strip_call(py.summary_text))
    if r.predict_error is None:
        if py.predict_error is not None:
            diffs.append(f"pybsnsing predict fails where R predicts: {py.predict_error}")
        else:
            if r.prob.shape != py.prob.shape or not np.allclose(r.prob, py.prob, rtol=0,
                                                                 atol=1e-12):
                diffs.append(f"prob differs: R {np.asarray(r.prob).ravel()[:8]} vs py "
                             f"{np.asarray(py.prob).ravel()[:8]}")
            if r.cls != py.cls:
                bad = [i for i, (a, b) in enumerate(zip(r.cls, py.cls, strict=False)) if a != b]
                diffs.append(f"class differs at {len(bad)} rows, e.g. R {r.cls[bad[0]]!r} vs "
                             f"py {py.cls[bad[0]]!r}" if bad else "class lengths differ")
    return diffs


def known_quirk(case: Case) -> str | None:
    """The documented R bsnsing 1.0.1 bug that makes R's answer wrong on this
    case, where pybsnsing deliberately differs (README, "Deliberate
    differences"), or None.

    * Q2: a numeric response with two values, the smaller being 1 (``{1, k}``):
      R recodes it to all zeros (``y[y == max] <- 1; y[y == min] <- 0``) and
      either stops or, with ``suppress.internal = TRUE``, grows a tree on a
      response of one class.
    """
    y = case.spec["y"]
    if y["class"] in ("integer", "numeric"):
        values = {float(case.columns["y"][r - 1]) for r in case.train_rows
                  if case.columns["y"][r - 1] is not None}
        if len(values) == 2 and min(values) == 1:
            return "Q2"
    return None


def classify(r: Outcome, py: Outcome, case: Case | None = None) -> str:
    """'identical', 'different', 'R error/py error', 'R error/py fits',
    'R predict error' or 'R quirk Qn' (a documented deliberate difference)."""
    quirk = known_quirk(case) if case is not None else None
    if quirk is not None:
        return f"R quirk {quirk}"
    if r.error is not None:
        return "R error/py error" if py.error is not None else "R error/py fits"
    if compare(r, py):
        return "different"
    if r.predict_error is not None:
        return "R predict error"
    return "identical"


@contextlib.contextmanager
def case_csv(case: Case):
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / f"case{case.seed}.csv"
        path.write_text(case.csv_text(), encoding="utf-8")
        yield path


def run_case(case: Case) -> tuple[str, Outcome, Outcome, list[str]]:
    with case_csv(case) as csv:
        r = run_r(case, csv)
        py = run_py(case, csv)
    return classify(r, py, case), r, py, compare(r, py)


# ----------------------------------------------------------------------------- minimise


def _drop_column(case: Case, name: str) -> Case | None:
    preds = [c for c in case.columns if c != "y"]
    if name not in preds or len(preds) == 1:
        return None
    cols = {k: v for k, v in case.columns.items() if k != name}
    spec = {k: v for k, v in case.spec.items() if k != name}
    formula = case.formula
    if "~ ." not in formula:
        terms = [t.strip() for t in formula.split("~", 1)[1].split("+")]
        terms = [t for t in terms if t != name]
        if not terms:
            return None
        formula = "y ~ " + " + ".join(terms)
    return case.replace(columns=cols, spec=spec, formula=formula)


def _keep_rows(case: Case, keep: list[int]) -> Case | None:
    """Keep the CSV rows ``keep`` (1-based, increasing)."""
    new_index = {r: i + 1 for i, r in enumerate(keep)}
    train = [new_index[r] for r in case.train_rows if r in new_index]
    test = [new_index[r] for r in case.test_rows if r in new_index]
    if len(train) < 4 or not test:
        return None
    cols = {k: [v[r - 1] for r in keep] for k, v in case.columns.items()}
    return case.replace(columns=cols, train_rows=train, test_rows=test)


def minimise(case: Case, still_fails, budget: int = 300) -> Case:
    """Shrink a failing case greedily (columns, control entries, test rows,
    then training rows in halving chunks) while ``still_fails(case)`` holds."""
    calls = 0

    def ok(c: Case | None) -> bool:
        nonlocal calls
        if c is None or calls >= budget:
            return False
        calls += 1
        try:
            return bool(still_fails(c))
        except Exception:  # noqa: BLE001 - a harness failure is not the same failure
            return False

    changed = True
    while changed and calls < budget:
        changed = False
        for name in [c for c in case.columns if c != "y"]:
            c2 = _drop_column(case, name)
            if ok(c2):
                case, changed = c2, True
        for key in list(case.control):
            c2 = case.replace(control={k: v for k, v in case.control.items() if k != key})
            if ok(c2):
                case, changed = c2, True
        if len(case.test_rows) > 1:
            keep = sorted(case.train_rows + case.test_rows[:1])
            c2 = _keep_rows(case, keep)
            if ok(c2):
                case, changed = c2, True
        rows = sorted(case.train_rows + case.test_rows)
        chunk = max(1, len(rows) // 2)
        while chunk >= 1 and calls < budget:
            i = 0
            progressed = False
            while i < len(rows):
                keep = rows[:i] + rows[i + chunk:]
                c2 = _keep_rows(case, keep)
                if ok(c2):
                    case, rows, changed, progressed = c2, list(range(1, len(keep) + 1)), True, True
                else:
                    i += chunk
            if not progressed:
                chunk //= 2
    return case


def is_different(case: Case) -> bool:
    return run_case(case)[0] == "different"
