"""Generated odd and hostile inputs for pybsnsing's public entry points, and their oracle.

Used by ``tests/test_fuzz.py`` (hypothesis, a derandomized subset in CI) and
``bench/fuzz.py`` (any number of cases, counts per outcome). Other front ends
(the command line, the R package) can reuse the generator:

* :func:`random_frame` -- a DataFrame of every pandas dtype (float with ties,
  huge, tiny, subnormal and ``-0.0`` values, ``inf``; int, uint; nullable
  ``Int64``/``Float64``/``boolean``/``string`` with ``<NA>``; categoricals with
  unused, odd or empty-string levels; ordered factors; high-cardinality
  factors; bool; object mixes; all-missing; dates; complex) with odd column
  names (spaces, operators, quotes, backticks, unicode, leading digits, ``1``);
* :func:`generate_case` -- one case for one entry point: ``bsnsing`` (then
  ``predict``, ``save``/``load_model``, pickle, ``summary``, ``to_latex``,
  ``to_dot``, ``plot``), ``predict`` on altered new data (missing, extra,
  reordered, retyped columns, zero rows, NA), odd formulas, odd controls,
  ``binarize``/``bslearn``, ``murtree_fit``/``murtree``, ``BsnsingClassifier``,
  ``load_dataset`` and corrupt model files;
* :func:`run_case` -- runs a case and classifies the outcome: ``correct``
  (every check of the result holds), ``clean error`` (a
  :class:`~pybsnsing.errors.PybsnsingError` whose message names the problem),
  ``unclear error`` (the family, but a message from a library's internals or
  naming nothing), ``unclean error`` (any other exception), ``silent wrong``
  (a result that breaks a check, or no error where one is due). ``hang`` is
  the runner's verdict on a case that does not finish in time.

Every case is determined by its seed: ``generate_case(seed)`` rebuilds it.
"""

from __future__ import annotations

import json
import pickle
import re
import string
import tempfile
import traceback
import warnings
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

OUTCOMES = ("correct", "clean error", "unclean error", "unclear error", "silent wrong", "hang")
GOOD = ("correct", "clean error")

#: column names and levels that real data and hostile users bring
ODD_NAMES = [
    "petal length", "Self-emp-not-inc", "New York", "a-b", "a+b", "a<b", "a>=b", "a=b", "a:b",
    "a/b", "a*b", "o^4", "it's", 'say "hi"', "é", "données", "数据", "ünï cödé", "1st", "1",
    "0", "-1", "`tick`", "back\\slash", "tab\tin", "new\nline", "a|b", "a & b", " pad ",
    "NA", "TRUE", "if", "...", "..1", "_x", ".5x", "x.1", "(x)", "log(x)", "I(x)", "x[1]",
    "x$y", "#hash", "%in%", "~", ".", "y", "X", "a,b", "a;b", "$x$", "{x}", "\\", "''", "``",
    "\u00a0nbsp", "emoji😀", "a" * 60,
]
_PLAIN = ["x", "x1", "x2", "age", "Number", "Start", "f", "g", "v", "w", "z", "Cell.size"]
_LEVEL_CHARS = string.ascii_letters + string.digits + " ._-+<>=:/*^'\"`\\|,;!?#$%&()[]{}~é数"


def _names(rng: np.random.Generator, k: int, odd_rate: float) -> list[str]:
    out: list[str] = []
    while len(out) < k:
        if rng.random() < odd_rate:
            if rng.random() < 0.7:
                name = ODD_NAMES[int(rng.integers(len(ODD_NAMES)))]
            else:
                name = "".join(rng.choice(list(_LEVEL_CHARS), int(rng.integers(1, 8))))
        else:
            name = _PLAIN[int(rng.integers(len(_PLAIN)))] + (
                str(len(out)) if rng.random() < 0.5 else "")
        if name not in out:
            out.append(name)
    return out


def _levels(rng: np.random.Generator, k: int, odd: bool) -> list[str]:
    out: list[str] = []
    guard = 0
    while len(out) < k and guard < 10 * k + 20:
        guard += 1
        r = rng.random()
        if odd and r < 0.3:
            lv = ODD_NAMES[int(rng.integers(len(ODD_NAMES)))]
        elif odd and r < 0.4:
            lv = ""
        elif odd and r < 0.6:
            lv = "".join(rng.choice(list(_LEVEL_CHARS), int(rng.integers(1, 6))))
        elif r < 0.8:
            lv = "".join(rng.choice(list(string.ascii_lowercase), int(rng.integers(1, 4))))
        else:
            lv = str(int(rng.integers(0, 100)))
        if lv not in out:
            out.append(lv)
    while len(out) < k:
        out.append(f"L{len(out)}")
    return out


def _numbers(rng: np.random.Generator, n: int) -> np.ndarray:
    style = int(rng.integers(0, 9))
    if style == 0:
        x = rng.normal(size=n)
    elif style == 1:
        x = rng.integers(0, 4, n).astype(float)  # ties, few values
    elif style == 2:
        x = rng.normal(size=n) * 10.0 ** float(rng.integers(-300, 300))
    elif style == 3:
        x = rng.choice([5e-324, 1e-310, 2.2250738585072014e-308, 0.0, -0.0, 1e-320], n)
    elif style == 4:
        x = rng.choice([1e308, -1e308, 1.7976931348623157e308, 0.0, 1.0], n)
    elif style == 5:
        x = np.round(rng.uniform(-5, 5, n), int(rng.integers(0, 16)))
    elif style == 6:
        x = rng.choice([0.1, 0.2, 0.30000000000000004, 0.3, 1 / 3, 2 / 3], n)
    elif style == 7:
        x = np.full(n, float(rng.normal()))  # constant
    else:
        x = rng.standard_cauchy(n)
    return x


@dataclass
class ColumnInfo:
    name: str
    kind: str
    bad: str = ""  # why pybsnsing must refuse it ("" when it is usable)


def _column(rng: np.random.Generator, n: int, kind: str, y01: np.ndarray) -> Any:
    """Values of one predictor column of ``kind`` (weakly related to y01)."""
    signal = y01 if rng.random() < 0.6 else rng.integers(0, 2, n)
    if kind == "float":
        x = _numbers(rng, n)
        if rng.random() < 0.5:
            x = x + signal * (np.nanstd(x[np.isfinite(x)]) if np.isfinite(x).any() else 1.0)
        return x
    if kind == "float_na":
        x = rng.normal(size=n) + signal
        x[rng.random(n) < 0.2] = np.nan
        return x
    if kind == "float_inf":
        x = rng.normal(size=n)
        x[int(rng.integers(n))] = np.inf if rng.random() < 0.5 else -np.inf
        return x
    if kind == "int":
        return (rng.integers(-3, 5, n) + signal).astype(np.int64)
    if kind == "uint8":
        return (rng.integers(0, 3, n) + signal).astype(np.uint8)
    if kind == "Int64":
        s = pd.array(rng.integers(0, 6, n) + signal, dtype="Int64")
        s[rng.random(n) < 0.2] = pd.NA
        return s
    if kind == "Float64":
        s = pd.array(rng.normal(size=n) + signal, dtype="Float64")
        s[rng.random(n) < 0.2] = pd.NA
        return s
    if kind == "bool":
        return (signal == 1) ^ (rng.random(n) < 0.2)
    if kind == "boolean":
        s = pd.array((signal == 1) ^ (rng.random(n) < 0.2), dtype="boolean")
        s[rng.random(n) < 0.2] = pd.NA
        return s
    if kind in ("category", "ordered", "string", "object_str", "highcard"):
        k = int(rng.integers(2, 7)) if kind != "highcard" else max(2, n // int(rng.integers(1, 4)))
        lv = _levels(rng, k, odd=rng.random() < 0.5)
        codes = (rng.integers(0, k, n) + signal) % k
        values = np.array(lv, dtype=object)[codes]
        if rng.random() < 0.3:
            values[rng.random(n) < 0.15] = None
        if kind == "category" or kind == "highcard":
            extra = ["unused level"] if rng.random() < 0.3 else []
            cats = list(dict.fromkeys(lv + extra))
            return pd.Categorical(values, categories=cats)
        if kind == "ordered":
            return pd.Categorical(values, categories=lv, ordered=True)
        if kind == "string":
            return pd.array(values, dtype="string")
        return values
    if kind == "int_category":
        return pd.Categorical((rng.integers(0, 3, n) + signal) % 3)
    if kind == "object_num":
        return np.array([int(v) if rng.random() < 0.5 else float(v)
                         for v in rng.integers(0, 5, n) + signal], dtype=object)
    if kind == "object_bool":
        return np.array([bool(v) for v in signal], dtype=object)
    if kind == "all_na":
        return np.full(n, np.nan)
    if kind == "all_none":
        return np.array([None] * n, dtype=object)
    if kind == "object_mixed":
        vals = np.array(["a", 1, 2.5, True, None][: int(rng.integers(2, 5))], dtype=object)
        return vals[rng.integers(0, len(vals), n)]
    if kind == "datetime":
        return pd.to_datetime(rng.integers(0, 10**9, n), unit="s")
    if kind == "timedelta":
        return pd.to_timedelta(rng.integers(0, 10**6, n), unit="s")
    if kind == "complex":
        return rng.normal(size=n) + 1j * rng.normal(size=n)
    raise AssertionError(kind)


GOOD_KINDS = ["float", "float", "float_na", "int", "uint8", "Int64", "Float64", "bool",
              "boolean", "category", "ordered", "string", "object_str", "highcard",
              "int_category", "object_num", "object_bool", "float_inf"]
BAD_KINDS = {"all_na": "missing", "all_none": "missing",
             "object_mixed": "mixes", "datetime": "type", "timedelta": "type",
             "complex": "complex"}


def random_frame(rng: np.random.Generator, n: int | None = None, p: int | None = None,
                 bad_rate: float = 0.05, odd_rate: float = 0.3,
                 response: str | None = None) -> tuple[pd.DataFrame, str, list[ColumnInfo]]:
    """A DataFrame with a response column and ``p`` predictors of random kinds.

    Returns the frame, the response name and the predictors' kinds (with ``bad``
    set for a kind pybsnsing must refuse).
    """
    n = int(rng.integers(2, 160)) if n is None else n
    p = int(rng.integers(1, 6)) if p is None else p
    names = _names(rng, p + 1, odd_rate)
    yname = names[0] if response is None else response
    names = [nm for nm in names if nm != yname][:p]
    y01 = rng.integers(0, 2, n)
    cols: dict[str, Any] = {}
    info: list[ColumnInfo] = []
    for nm in names:
        if rng.random() < bad_rate:
            kind = list(BAD_KINDS)[int(rng.integers(len(BAD_KINDS)))]
            bad = BAD_KINDS[kind]
        else:
            kind = GOOD_KINDS[int(rng.integers(len(GOOD_KINDS)))]
            bad = ""
        cols[nm] = _column(rng, n, kind, y01)
        info.append(ColumnInfo(nm, kind, bad))
    cols[yname] = _response(rng, n, y01)
    order = list(cols)
    if rng.random() < 0.5:
        order = [yname] + [c for c in order if c != yname]
    frame = pd.DataFrame({c: cols[c] for c in order})
    return frame, yname, info


def _response(rng: np.random.Generator, n: int, y01: np.ndarray) -> Any:
    style = int(rng.integers(0, 11))
    if style == 0:
        return pd.Categorical(np.where(y01 == 1, "yes", "no"))
    if style == 1:
        return np.where(y01 == 1, "B", "a")  # strings
    if style == 2:
        return y01.astype(np.int64)
    if style == 3:
        return y01 == 1
    if style == 4:
        s = pd.array(y01 == 1, dtype="boolean")
        s[rng.random(n) < 0.1] = pd.NA
        return s
    if style == 5:
        return y01.astype(float)
    if style == 6:  # three to five classes
        k = int(rng.integers(3, 6))
        lv = _levels(rng, k, odd=rng.random() < 0.3)
        return pd.Categorical(np.array(lv, dtype=object)[(rng.integers(0, k, n) + y01) % k],
                              categories=lv)
    if style == 7:
        return pd.array(np.where(y01 == 1, "pos", "neg"), dtype="string")
    if style == 8:
        y = np.where(y01 == 1, 1.0, -1.0)
        y[rng.random(n) < 0.1] = np.nan
        return y
    if style == 9:
        return pd.array(y01 + rng.integers(0, 2, n) * 2, dtype="Int64")  # 0..3
    lv = _levels(rng, 2, odd=True)
    return pd.Categorical(np.array(lv, dtype=object)[y01], categories=lv)


# ----------------------------------------------------------------------------- controls

_CONTROL_GOOD: dict[str, Any] = {
    "bin_size": lambda r: int(r.integers(1, 20)),
    "nseg_numeric": lambda r: int(r.integers(3, 30)),
    "nseg_factor": lambda r: int(r.integers(3, 60)),
    "num2factor": lambda r: int(r.integers(0, 20)),
    "node_size": lambda r: int(r.integers(0, 15)),
    "stop_prob": lambda r: float(r.choice([0.5, 0.8, 0.9, 0.99, 0.9999, 1.0])),
    "max_rules": lambda r: int(r.choice([1, 1, 2, 2, 3, 4])),
    "import_external": lambda r: bool(r.integers(0, 2)) if r.random() < 0.8 else "rpart",
    "suppress_internal": lambda r: bool(r.random() < 0.15),
    "no_same_gender_children": lambda r: bool(r.integers(0, 2)),
    "keep_perfect_separation": lambda r: bool(r.integers(0, 2)),
    "opt_solver": lambda r: str(r.choice(["enum_c", "enum", "enum_py"])),
    "greedy_level": lambda r: float(r.uniform(0, 1)),
    "n0n1_cap": lambda r: int(r.integers(1, 100000)),
}
_ODD_VALUES = [float("inf"), -float("inf"), float("nan"), 10**30, 2**31, -(2**40), True, False,
               "3", "", None, [1], {"a": 1}, (2,), 1.5, -1, 0, np.int64(3), np.float32(2.0),
               np.True_, np.array(2), np.array([1, 2]), complex(1, 1), b"x", 1e308, 5e-324,
               "rpart", "r", "enum_c", "gini", "error", np.nan]


def _controls(rng: np.random.Generator, odd: bool) -> tuple[dict, list[str]]:
    """Control keyword arguments; with ``odd`` one or two of them get odd values."""
    ctrl: dict[str, Any] = {}
    for key, make in _CONTROL_GOOD.items():
        if rng.random() < 0.3:
            ctrl[key] = make(rng)
    if "import_external" not in ctrl and rng.random() < 0.5:
        ctrl["import_external"] = False
    touched: list[str] = []
    if odd:
        keys = list(_CONTROL_GOOD) + ["verbose", "opt_model", "solver_timelimit",
                                      "max.rules", "bin.size", "nope"]
        for _ in range(int(rng.integers(1, 3))):
            key = keys[int(rng.integers(len(keys)))]
            ctrl[key] = _ODD_VALUES[int(rng.integers(len(_ODD_VALUES)))]
            touched.append(key)
    # a generous search budget keeps the worst case (many questions, max_rules 10) short
    if "max_rules" in ctrl and isinstance(ctrl["max_rules"], int) and ctrl["max_rules"] > 4:
        ctrl["solver_timelimit"] = 2.0
    if "verbose" in ctrl and (isinstance(ctrl["verbose"], np.ndarray)
                              or ctrl["verbose"] not in (False, 0, 0.0)):
        ctrl.pop("verbose")  # the trace goes to stdout
    return ctrl, touched


# ----------------------------------------------------------------------------- formulas

_FORMULA_PIECES = ["+", "-", "*", ":", "/", "^", "(", ")", "~", ".", "1", "0", "-1", "`", "'",
                   '"', "log(", "sqrt(", "exp(", "abs(", "I(", "foo(", ",", " ", "%in%", "$",
                   "__import__('os').system('true')", "x", "2", "1e3", "[", "]", "{", "}", "\\",
                   "lambda: 0", "#", ";", "\n"]


def _odd_formula(rng: np.random.Generator, yname: str, preds: list[str]) -> str:
    from pybsnsing.formula import formula_name as quote_name

    style = int(rng.integers(0, 6))
    q = [quote_name(c) for c in preds] or ["x"]
    if style == 0:  # pieces at random
        return "".join(rng.choice(_FORMULA_PIECES, int(rng.integers(1, 12))))
    if style == 1:  # a valid-looking formula with one odd piece
        terms = list(rng.choice(q, int(rng.integers(1, len(q) + 1))))
        terms.insert(int(rng.integers(len(terms) + 1)), str(rng.choice(_FORMULA_PIECES)))
        return f"{quote_name(yname)} ~ " + " + ".join(terms)
    if style == 2:  # transforms
        fn = str(rng.choice(["log", "sqrt", "exp", "abs", "I", "log10"]))
        a = str(rng.choice(q))
        b = str(rng.choice(q))
        op = str(rng.choice(["+", "-", "*", "/", "^"]))
        inner = a if fn != "I" else f"{a} {op} {b}"
        extra = " + " + a if rng.random() < 0.5 else ""
        return f"{quote_name(yname)} ~ {fn}({inner}){extra}"
    if style == 3:  # interactions and intercepts
        a, b = str(rng.choice(q)), str(rng.choice(q))
        tail = str(rng.choice(["", " - 1", " + 0", " + 1", " - " + a]))
        return f"{quote_name(yname)} ~ {a} {rng.choice(['*', ':', '+'])} {b}{tail}"
    if style == 4:  # names without quotes (may be invalid)
        return f"{yname} ~ " + " + ".join(preds[: int(rng.integers(1, len(preds) + 1))] or ["."])
    return "".join(chr(int(c)) for c in rng.integers(32, 0x2FF, int(rng.integers(1, 30))))


# ----------------------------------------------------------------------------- cases


@dataclass
class Case:
    """One generated input. ``must_fail``: a reason pybsnsing must refuse it ("" if none);
    ``keywords``: words of which a clear error message names at least one."""

    seed: int
    entry: str
    data: pd.DataFrame | None = None
    formula: Any = None
    control: dict = field(default_factory=dict)
    newdata: pd.DataFrame | None = None
    variant: str = ""
    must_fail: str = ""
    keywords: list[str] = field(default_factory=list)
    extra: dict = field(default_factory=dict)

    def describe(self) -> str:
        shape = None if self.data is None else self.data.shape
        return (f"seed {self.seed}: {self.entry}/{self.variant} formula={self.formula!r} "
                f"control={self.control!r} data={shape} must_fail={self.must_fail!r}")


ENTRIES = (["fit"] * 30 + ["predict"] * 16 + ["formula"] * 10 + ["control"] * 8
           + ["binarize"] * 6 + ["murtree"] * 5 + ["classifier"] * 7 + ["dataset"] * 2
           + ["model_file"] * 8 + ["frame"] * 8)
#: entry points not drawn at random (slow: each case runs subprocesses); ask for them by name
EXTRA_ENTRIES = ("cli",)


def generate_case(seed: int, entry: str | None = None) -> Case:
    """The case of ``seed`` (optionally for one entry point)."""
    rng = np.random.default_rng(seed)
    entry = entry or ENTRIES[int(rng.integers(len(ENTRIES)))]
    case = Case(seed=seed, entry=entry)
    if entry == "dataset":
        from pybsnsing.datasets import list_datasets

        names = list(list_datasets()["name"])
        choice = [None, 3, ["iris"], "iris", "IRIS", "nope", "", "../etc/passwd",
                  str(rng.choice(names)), str(rng.choice(names))]
        case.extra["name"] = choice[int(rng.integers(len(choice)))]
        case.variant = repr(case.extra["name"])
        case.keywords = ["data set", "name"]
        return case
    bad_rate = 0.15 if entry == "frame" else 0.0
    data, yname, info = random_frame(rng, bad_rate=bad_rate,
                                     odd_rate=0.6 if entry == "frame" else 0.3)
    case.data = data
    preds = [c.name for c in info]
    case.keywords = [str(c) for c in data.columns] + preds
    from pybsnsing.formula import formula_name as quote_name

    if rng.random() < 0.6 or not preds:
        case.formula = f"{quote_name(yname)} ~ ."
        used = list(preds)
    else:
        k = int(rng.integers(1, len(preds) + 1))
        used = [str(c) for c in rng.choice(preds, k, replace=False)]
        case.formula = f"{quote_name(yname)} ~ " + " + ".join(quote_name(c) for c in used)
    case.extra["response"] = yname
    case.extra["info"] = info
    case.extra["used"] = used
    bad = [c for c in info if c.bad and c.name in used]
    if bad:
        case.must_fail = f"column {bad[0].name!r}: {bad[0].bad}"
        case.keywords += [bad[0].bad, bad[0].name]
    odd_ctrl = entry == "control"
    case.control, touched = _controls(rng, odd_ctrl)
    case.keywords += touched + [t.replace("_", ".") for t in touched]
    if entry == "formula":
        case.formula = _odd_formula(rng, yname, preds)
        case.keywords += ["formula", "term", "column", "response"]
    if entry == "frame" and rng.random() < 0.3:
        _frame_trouble(rng, case)
    if entry == "predict":
        case.variant = str(rng.choice(["reorder", "extra", "zero", "missing_col", "retype",
                                       "na", "strings", "unseen", "logical_strings",
                                       "not_frame", "dup"]))
    if entry == "binarize":
        case.variant = str(rng.choice(["binarize", "bslearn"]))
    if entry == "murtree":
        case.variant = str(rng.choice(["murtree", "murtree_fit"]))
        case.extra["depth"] = int(rng.choice([0, 1, 2, 3]))
    if entry == "classifier":
        case.variant = str(rng.choice(["frame", "array"]))
    if entry == "model_file":
        case.variant = str(rng.choice(["truncate", "flip", "drop_key", "retype", "wrap",
                                       "garbage", "ycode", "children", "rule"]))
        case.extra["cut"] = float(rng.random())
        case.extra["pick"] = int(rng.integers(0, 2**31))
    if entry == "fit" and rng.random() < 0.05:
        case.extra["plot"] = True
    if entry == "cli":
        case.variant = str(rng.choice(_CLI_VARIANTS, p=_CLI_WEIGHTS))
        case.extra["odd_flag"] = str(rng.choice(sorted(_CLI_NUMERIC)))
        case.extra["odd_text"] = str(rng.choice(_CLI_ODD_TEXT))
        case.extra["odd_formula"] = rng.random() < 0.15
        if case.extra["odd_formula"]:
            case.formula = _odd_formula(rng, yname, preds)
        case.keywords += ["file", "directory", "formula", "option", "control", "model", "column",
                          "argument", "invalid", "--"]
    return case


def _frame_trouble(rng: np.random.Generator, case: Case) -> None:
    """Duplicate, non-string or MultiIndex column names (must be refused when used)."""
    df = case.data
    style = int(rng.integers(0, 3))
    if style == 0 and df.shape[1] > 1:
        col = str(df.columns[-1])
        case.data = pd.concat([df, df[[col]]], axis=1)
        case.must_fail = "duplicate"
        case.keywords += ["duplicate"]
        case.variant = "duplicate names"
        if not case.formula.endswith("~ .") and col not in case.extra["used"]:
            case.must_fail = ""
            if col == case.extra["response"]:
                case.must_fail = "duplicate"
    elif style == 1:
        case.data = df.copy()
        case.data[7] = 0.5
        case.variant = "int name"
        if case.formula.endswith("~ ."):
            case.must_fail = "not strings"
            case.keywords += ["string"]
    else:
        case.data = df.copy()
        case.data.columns = pd.MultiIndex.from_tuples([(str(c), "a") for c in df.columns])
        case.variant = "MultiIndex"
        case.must_fail = "MultiIndex"
        case.keywords += ["MultiIndex"]


# ----------------------------------------------------------------------------- the oracle

#: texts that give away a message from a library's internals
INTERNAL_MARKERS = (
    "Traceback", "numba", "nopython", "object has no attribute", "'NoneType'",
    "unhashable type", "truth value of", "invalid literal for", "could not convert",
    "index out of bounds", "list index out of range", "unsupported operand",
    "is not subscriptable", "positional argument", "unexpected keyword", "formulaic",
    "ufunc", "<class '", "boolean value of NA", "Cannot cast", "maximum recursion",
    "not supported between instances", "Length of values", "cannot reshape",
    "operands could not be broadcast", "object is not iterable", "codec can't",
)
_GENERIC = ("column", "formula", "control", "response", "factor", "level", "class",
            "newdata", "data", "model file", "parameter", "must", "name", "type", "value",
            "term", "expected", "missing", "file", "label", "row", "feature", "depth")


class Verdict(Exception):
    """A failed check: the result is silently wrong."""


def _check(cond: bool, what: str) -> None:
    if not cond:
        raise Verdict(what)


def classify_error(exc: BaseException, case: Case) -> tuple[str, str]:
    """``clean error``, ``unclear error`` or ``unclean error`` for an exception."""
    from pybsnsing.errors import PybsnsingError

    msg = str(exc)
    detail = f"{type(exc).__name__}: {msg[:300]}"
    if not isinstance(exc, PybsnsingError):
        tb = "".join(traceback.format_exception(type(exc), exc, exc.__traceback__)[-3:])
        return "unclean error", detail + "\n" + tb[-800:]
    if not msg.strip() or any(m in msg for m in INTERNAL_MARKERS):
        return "unclear error", detail
    words = [k for k in case.keywords if k] + list(_GENERIC)
    if not any(w in msg for w in words):
        return "unclear error", detail
    return "clean error", detail


def run_case(case: Case) -> tuple[str, str]:
    """Run ``case``; return (outcome, detail)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        np.seterr(all="ignore")
        try:
            _RUNNERS[case.entry](case)
        except Verdict as v:
            return "silent wrong", str(v)
        except _CliVerdict as v:
            return v.args[0], v.args[1]
        except _CliClean:
            return "clean error", "CLI: one-line error, exit 2"
        except Exception as exc:  # noqa: BLE001 - classified
            if isinstance(exc, MemoryError):
                return "unclean error", "MemoryError"
            return classify_error(exc, case)
    if case.must_fail:
        return "silent wrong", f"no error, yet {case.must_fail}"
    return "correct", ""


def _fit(case: Case):
    from pybsnsing import bsnsing

    return bsnsing(case.formula, case.data, **case.control)


def _kept_rows(case: Case) -> pd.DataFrame:
    y = case.data[case.extra["response"]]
    return case.data.loc[~np.asarray(pd.isna(y), dtype=bool)]


def _labels_of(model) -> list:
    return list(model.ycode) if hasattr(model, "ycode") else list(model.ylevels)


def _check_predictions(model, newdata: pd.DataFrame, what: str) -> tuple[np.ndarray, np.ndarray]:
    prob = np.asarray(model.predict(newdata, type="prob"), dtype=float)
    cls = np.asarray(model.predict(newdata, type="class"), dtype=object)
    n = len(newdata)
    multi = hasattr(model, "ylevels")
    _check(prob.shape == ((n, len(model.ylevels)) if multi else (n,)),
           f"{what}: probabilities of shape {prob.shape} for {n} rows")
    _check(bool(np.all((prob >= 0) & (prob <= 1))), f"{what}: probabilities outside [0, 1]")
    if multi and n:
        s = prob.sum(axis=1)
        _check(bool(np.all(np.isclose(s, 1.0) | (s == 0))), f"{what}: rows do not sum to 1")
    _check(cls.shape == (n,), f"{what}: {cls.shape} classes for {n} rows")
    labels = _labels_of(model)
    _check(all(any(c == lab and type(c) is type(lab) for lab in labels) for c in cls.tolist()),
           f"{what}: a predicted class is not a training class")
    return prob, cls


def _same(a: np.ndarray, b: np.ndarray) -> bool:
    a = np.asarray(a)
    b = np.asarray(b)
    if a.shape != b.shape:
        return False
    if a.dtype.kind == "f" and b.dtype.kind == "f":
        return bool(np.array_equal(a, b, equal_nan=True))
    return a.tolist() == b.tolist()


def _complete_rows(case: Case, model) -> np.ndarray | None:
    """Rows whose design values were not imputed (predict must equal the fit there)."""
    trees = getattr(model, "trees", [model])
    design = trees[0].design
    if design is None:
        return None
    if design.imputed is None:
        return np.ones(design.X.shape[0], dtype=bool)
    return ~design.imputed.any(axis=1)


def run_fit(case: Case) -> None:
    from pybsnsing import BsnsingModel, MBsnsingModel, load_model
    from pybsnsing.rules import parse_rule

    model = _fit(case)
    _check(isinstance(model, (BsnsingModel, MBsnsingModel)), "fit returned no model")
    kept = _kept_rows(case)
    trees = getattr(model, "trees", [model])
    for t in trees:
        _check(len(t.fitted_prob) == len(kept), "fitted values of the wrong length")
        _check(bool(np.all((t.fitted_prob >= 0) & (t.fitted_prob <= 1))), "fitted prob range")
        for nd in t.nodes:
            if nd.split_rule:
                text = " | ".join(q.text for q in parse_rule(nd.split_rule))
                _check(text == nd.split_rule, f"rule {nd.split_rule!r} does not parse back")
    # the variables of y ~ . are every other column
    if isinstance(case.formula, str) and case.formula.replace(" ", "").endswith("~."):
        want = [c for c in case.data.columns if c != case.extra["response"]]
        _check(trees[0].design.variables == want,
               f"y ~ . used {trees[0].design.variables}, not {want}")
    prob, cls = _check_predictions(model, kept, "predict(training rows)")
    complete = _complete_rows(case, model)
    if not hasattr(model, "trees") and complete is not None:
        _check(_same(prob[complete], model.fitted_prob[complete]),
               "predict(training rows) differs from the fitted probabilities")
    str(model)
    str(model.summary())
    # JSON and pickle round trips
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "model.json"
        model.save(path)
        again = load_model(path)
        p2 = again.predict(kept, type="prob")
        c2 = np.asarray(again.predict(kept, type="class"), dtype=object)
        _check(_same(p2, prob), "save/load changed the probabilities")
        _check(c2.tolist() == cls.tolist() and [type(v) for v in c2.tolist()] == [
            type(v) for v in cls.tolist()], "save/load changed the classes")
        _check(str(again.summary()) == str(model.summary()), "save/load changed the summary")
        pk = pickle.loads(pickle.dumps(model))
        _check(_same(pk.predict(kept, type="prob"), prob), "pickle changed the probabilities")
        from pybsnsing.export.dot import to_dot
        from pybsnsing.export.latex import to_latex

        _check(isinstance(to_latex(model), str), "to_latex gave no text")
        _check(isinstance(to_dot(model), str), "to_dot gave no text")
        if case.extra.get("plot"):
            import matplotlib

            matplotlib.use("Agg")
            import matplotlib.pyplot as plt

            model.plot(Path(tmp) / "tree.png")
            plt.close("all")


def _first_used(model) -> str | None:
    trees = getattr(model, "trees", [model])
    design = trees[0].design
    return design.variables[0] if design.variables else None


def run_predict(case: Case) -> None:
    from pybsnsing.errors import PybsnsingError

    model = _fit(case)
    kept = _kept_rows(case).drop(columns=[case.extra["response"]])
    base_p, base_c = _check_predictions(model, kept, "predict")
    v = case.variant
    var = _first_used(model)
    if v == "reorder":
        cols = list(kept.columns)[::-1]
        _check(_same(model.predict(kept[cols]), base_p), "reordered columns changed predict")
    elif v == "extra":
        new = kept.copy()
        new["__extra__"] = "?"
        _check(_same(model.predict(new), base_p), "an extra column changed predict")
    elif v == "zero":
        _check_predictions(model, kept.iloc[:0], "predict(zero rows)")
    elif v == "missing_col" and var is not None:
        case.keywords += [var]
        try:
            model.predict(kept.drop(columns=[var]))
        except PybsnsingError as exc:
            _check(var in str(exc), f"the missing column {var!r} is not named: {exc}")
            return
        raise Verdict(f"predict without the column {var!r} gave no error")
    elif v == "retype" and var is not None:
        col = kept[var]
        same_values = None
        if pd.api.types.is_integer_dtype(col.dtype) and not pd.api.types.is_bool_dtype(col.dtype):
            same_values = col.astype("float64") if not col.isna().any() else None
        elif isinstance(col.dtype, pd.CategoricalDtype):
            same_values = col.astype(object)
        elif pd.api.types.is_bool_dtype(col.dtype) and not col.isna().any():
            same_values = col.astype(object)
        elif col.dtype == object:
            same_values = pd.Categorical(col)
        if same_values is not None:
            new = kept.copy()
            new[var] = same_values
            _check(_same(model.predict(new), base_p), f"retyping {var!r} changed predict")
    elif v == "na":
        new = kept.copy().astype(object)
        if len(new):
            new.iloc[0, :] = None
        _check_predictions(model, new, "predict(NA row)")
    elif v == "strings" and var is not None:
        new = kept.copy()
        new[var] = new[var].astype(str)
        _check_predictions(model, new, "predict(columns as strings)")
    elif v == "unseen" and var is not None:
        new = kept.copy()
        new[var] = new[var].astype(object)
        if len(new):
            new.iloc[0, new.columns.get_loc(var)] = "never seen ~ `x`"
        _check_predictions(model, new, "predict(unseen level)")
    elif v == "logical_strings":
        new = kept.copy()
        changed = False
        for c in new.columns:
            if pd.api.types.is_bool_dtype(new[c].dtype) and not new[c].isna().any():
                new[c] = np.where(new[c].to_numpy(dtype=bool), "TRUE", "FALSE")
                changed = True
        if changed:
            _check(_same(model.predict(new), base_p), "logical given as strings changed predict")
    elif v == "not_frame":
        try:
            model.predict(kept.to_numpy())
        except PybsnsingError:
            return
        raise Verdict("predict accepted an array")
    elif v == "dup" and var is not None:
        new = pd.concat([kept, kept[[var]]], axis=1)
        try:
            model.predict(new)
        except PybsnsingError as exc:
            _check("duplicate" in str(exc), f"duplicate column not named: {exc}")
            return
        raise Verdict("predict accepted duplicate columns")


def run_formula(case: Case) -> None:
    run_fit(case)


def run_binarize(case: Case) -> None:
    from pybsnsing import binarize, bslearn
    from pybsnsing.rules import parse_question

    df = case.data.drop(columns=[case.extra["response"]])
    y = np.random.default_rng(case.seed).integers(0, 2, len(df))
    target = int(case.seed % 2)
    bx = binarize(df, y, target, case.control or None)
    _check(isinstance(bx, pd.DataFrame) and len(bx) == len(df), "binarize: wrong shape")
    if bx.shape[1]:
        _check(bool(np.isin(bx.to_numpy(), [0, 1]).all()), "binarize: values not 0/1")
    for text in bx.columns:
        _check(parse_question(text).text == text, f"binarize: {text!r} does not parse back")
    if case.variant == "bslearn" and bx.shape[1]:
        res = bslearn(bx, y, None)
        _check(all(0 <= c < bx.shape[1] for c in res.cols), "bslearn: columns out of range")


def run_murtree(case: Case) -> None:
    from pybsnsing.optimal import murtree, murtree_fit

    depth = case.extra["depth"]
    if case.variant == "murtree":
        model = murtree(case.formula, case.data, max_depth=depth, time_limit=20)
        kept = _kept_rows(case)
        pred = model.predict(kept)
        _check(len(pred) == len(kept), "murtree: wrong number of predictions")
        return
    rng = np.random.default_rng(case.seed)
    n = len(case.data)
    X = rng.integers(0, 2, (n, int(rng.integers(1, 6))))
    if rng.random() < 0.2:
        X = X.astype(float)
        X[0, 0] = rng.choice([2.0, np.nan, -1.0])
        case.must_fail = "X_binary not 0/1"
        case.keywords += ["binary", "0/1", "X_binary", "NaN"]
    y = case.data[case.extra["response"]]
    if pd.isna(y).any():
        case.must_fail = case.must_fail or "missing labels"
        case.keywords += ["missing", "label"]
    model = murtree_fit(X, y, max_depth=depth, time_limit=20)
    pred = model.predict(X)
    _check(len(pred) == n, "murtree_fit: wrong number of predictions")


def run_classifier(case: Case) -> None:
    from pybsnsing.sklearn import BsnsingClassifier

    y = case.data[case.extra["response"]]
    X = case.data.drop(columns=[case.extra["response"]])
    keep = ~np.asarray(pd.isna(y), dtype=bool)
    X, y = X.loc[keep], y[keep]
    if case.variant == "array":
        X = X.to_numpy()
    ctrl = {k: v for k, v in case.control.items() if "." not in k}
    clf = BsnsingClassifier(**ctrl)
    clf.fit(X, y)
    proba = clf.predict_proba(X)
    pred = clf.predict(X)
    _check(proba.shape == (len(y), len(clf.classes_)), "classifier: proba shape")
    _check(bool(np.all((proba >= 0) & (proba <= 1))), "classifier: proba range")
    _check(set(pd.unique(pd.Series(pred, dtype=object))) <= set(clf.classes_.tolist()),
           "classifier: predicted classes not among classes_")


def run_dataset(case: Case) -> None:
    from pybsnsing.datasets import list_datasets, load_dataset

    name = case.extra["name"]
    df = load_dataset(name)
    _check(isinstance(df, pd.DataFrame) and len(df) > 0, "load_dataset gave no data")
    _check(name in list(list_datasets()["name"]), f"load_dataset accepted {name!r}")


def run_model_file(case: Case) -> None:
    from pybsnsing import load_model
    from pybsnsing.errors import ModelFileError

    model = _fit(case)
    d = model.to_dict()
    text = json.dumps(d)
    rng = np.random.default_rng(case.extra["pick"])
    v = case.variant
    if v == "truncate":
        raw = text[: int(case.extra["cut"] * len(text))].encode()
    elif v == "flip":
        b = bytearray(text.encode())
        for _ in range(int(rng.integers(1, 4))):
            b[int(rng.integers(len(b)))] = int(rng.integers(0, 256))
        raw = bytes(b)
    elif v == "wrap":
        raw = json.dumps([d]).encode()
    elif v == "garbage":
        raw = bytes(rng.integers(0, 256, int(rng.integers(0, 200))).astype(np.uint8))
    else:
        obj = json.loads(text)
        target = obj["trees"][0] if obj.get("type") == "mbsnsing" else obj
        if v == "drop_key":
            target.pop(str(rng.choice(sorted(target))))
        elif v == "retype":
            key = str(rng.choice(sorted(target)))
            target[key] = [None, "x", 3, -1, 1e308, [], {}, True][int(rng.integers(8))]
        elif v == "ycode":
            target["ycode"] = target["ycode"][:1]
        elif v == "children":
            nd = target["nodes"][int(rng.integers(len(target["nodes"])))]
            nd["lchild"] = int(rng.integers(-2, 50))
        elif v == "rule":
            nd = target["nodes"][0]
            nd["split_rule"] = str(rng.choice(["__import__('os').system('true')", "x >",
                                                 "`a > 1", "nope > 1", "x %in% 3", ""]))
        raw = json.dumps(obj).encode()
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "model.json"
        path.write_bytes(raw)
        try:
            again = load_model(path)
        except ModelFileError as exc:
            _check(str(exc).startswith("not a valid pybsnsing model file: "),
                   f"model file error without the prefix: {exc}")
            return
        kept = _kept_rows(case)
        _check_predictions(again, kept, "predict after loading a changed file")


def run_frame(case: Case) -> None:
    run_fit(case)


# ----------------------------------------------------------------------------- the CLI

_CLI_VARIANTS = ["fit", "odd_control", "stdin", "gzip", "corrupt_gz", "directory",
                 "missing_file", "missing_folder", "closed_pipe", "bad_model", "id"]
_CLI_WEIGHTS = np.array([8, 3, 1, 1, 1, 1, 1, 1, 1, 1, 1], dtype=float) / 20
#: CLI options taking a number (Python control name -> option)
_CLI_NUMERIC = {k: "--" + k.replace("_", "-") for k in
                ("bin_size", "nseg_numeric", "nseg_factor", "num2factor", "node_size",
                 "stop_prob", "max_rules", "greedy_level", "n0n1_cap", "solver_timelimit")}
_CLI_ODD_TEXT = ["inf", "-inf", "nan", "NA", "1e400", "-1", "1.5", "abc", "", "0x10", "1_000",
                 "99999999999999999999999", "2", "0", " 3", "TRUE"]


def _cli_args(ctrl: dict) -> list[str]:
    """The command-line options of the control keywords of a case."""
    out: list[str] = []
    for key, value in ctrl.items():
        if key == "import_external":
            if value is not True:  # True is the default, which the CLI's call leaves out
                out += ["--external", "none" if value is False else str(value)]
        elif isinstance(value, bool):
            if value and key in ("suppress_internal", "no_same_gender_children",
                                 "keep_perfect_separation"):
                out.append("--" + key.replace("_", "-"))
        else:
            out += ["--" + key.replace("_", "-"), str(value)]
    return out


def _cli(args: list[str], stdin: bytes | None = None, timeout: float = 300.0,
         shell_pipe: str | None = None):
    """Run ``python -m pybsnsing ARGS`` (optionally piped into ``shell_pipe``)."""
    import os
    import shlex
    import subprocess
    import sys

    env = dict(os.environ, PYTHONWARNINGS="ignore", MPLBACKEND="Agg")
    env.pop("PYBSNSING_DEBUG", None)
    cmd = [sys.executable, "-m", "pybsnsing", *args]
    if shell_pipe:
        line = " ".join(shlex.quote(c) for c in cmd) + " | " + shell_pipe
        return subprocess.run(["bash", "-o", "pipefail", "-c", line], capture_output=True,
                              env=env, timeout=timeout)
    return subprocess.run(cmd, input=stdin, capture_output=True, env=env, timeout=timeout)


def _cli_error_verdict(proc, command: str, case: Case) -> tuple[str, str] | None:
    """None for a clean CLI error (exit 2, one line, the command named, a clear message)."""
    err = proc.stderr.decode("utf-8", "replace")
    lines = [ln for ln in err.splitlines() if ln.strip() and ": warning: " not in ln
             and "compiling pybsnsing" not in ln]
    detail = f"exit {proc.returncode}: {err[-600:]}"
    if "Traceback" in err or proc.returncode not in (1, 2) or proc.returncode < 0:
        return "unclean error", detail
    if len(lines) != 1 or not (lines[0].startswith(f"pybsnsing {command}: error: ")
                               or lines[0].startswith(f"usage: pybsnsing {command}")
                               or lines[0].startswith("pybsnsing: error:")
                               or f"pybsnsing {command}: error:" in lines[0]):
        # argparse prints its usage line then one error line: accept exactly that shape
        if not (len(lines) >= 2 and lines[0].startswith("usage:")
                and lines[-1].startswith(f"pybsnsing {command}: error: ")):
            return "unclean error", detail
    msg = lines[-1]
    if any(m in msg for m in INTERNAL_MARKERS) or re.search(r"unexpected \w*(Error|Exception)",
                                                             msg):
        return "unclear error", detail
    words = [k for k in case.keywords if k] + list(_GENERIC)
    if not any(w in msg for w in words):
        return "unclear error", detail
    return None


class _CliClean(Exception):
    """The CLI gave a clean error where one was due."""


def run_cli(case: Case) -> None:
    """The command line on the case's data written as CSV: ``fit --save`` then ``predict``.

    Oracle: the API on the same file (:func:`pybsnsing.read_csv` then ``bsnsing``).
    Where the API fits, the CLI must save the same tree and write the same
    predictions; where the API refuses, the CLI must exit with status 2 and one
    line naming the problem. File troubles (a directory, a corrupt ``.gz``, a
    missing input, ``--save``/``--output`` into a missing folder, a corrupt model)
    must be one-line errors; predicting into a closed pipe must exit quietly.
    """
    import gzip

    from pybsnsing import bsnsing, load_model, read_csv
    from pybsnsing.errors import PybsnsingError
    from pybsnsing.formula import formula_name as quote_name

    v = case.variant
    with tempfile.TemporaryDirectory() as tmp_name:
        tmp = Path(tmp_name)
        csv = tmp / "data.csv"
        case.data.to_csv(csv, index=False)
        try:
            frame = read_csv(csv)
        except PybsnsingError:
            frame = None
        formula = case.formula
        if frame is not None and not case.extra.get("odd_formula"):
            # read.csv's make.names renames odd headers: the formula uses the names read
            names = dict(zip(map(str, case.data.columns), map(str, frame.columns), strict=False))
            y = names.get(case.extra["response"], case.extra["response"])
            if formula.rstrip().endswith("~ ."):
                formula = f"{quote_name(y)} ~ ."
            else:
                used = [names.get(u, u) for u in case.extra["used"]]
                formula = f"{quote_name(y)} ~ " + " + ".join(quote_name(u) for u in used)
        ctrl = dict(case.control)
        model_path = tmp / "model.json"
        fit_args = ["fit", str(csv), "--formula", formula, "--quiet", "--save", str(model_path)]
        fit_args += _cli_args(ctrl)
        stdin = None
        expect_error = ""
        if v == "odd_control":
            flag = _CLI_NUMERIC[case.extra["odd_flag"]]
            fit_args += [flag, case.extra["odd_text"]]
            case.keywords += [flag, case.extra["odd_flag"], case.extra["odd_text"]]
        elif v == "stdin":
            fit_args[1] = "-"
            stdin = csv.read_bytes()
        elif v == "gzip":
            gz = tmp / "data.csv.gz"
            gz.write_bytes(gzip.compress(csv.read_bytes()))
            fit_args[1] = str(gz)
        elif v == "corrupt_gz":
            gz = tmp / "data.csv.gz"
            raw = gzip.compress(csv.read_bytes())
            gz.write_bytes(raw[: max(1, len(raw) // 2)] + b"\x00garbage")
            fit_args[1] = str(gz)
            expect_error = "corrupt .gz"
        elif v == "directory":
            fit_args[1] = str(tmp)
            expect_error = "a directory as input"
        elif v == "missing_file":
            fit_args[1] = str(tmp / "nope.csv")
            expect_error = "a missing input file"
        elif v == "missing_folder":
            fit_args[fit_args.index("--save") + 1] = str(tmp / "no" / "such" / "model.json")
            expect_error = "--save into a missing folder"
        proc = _cli(fit_args, stdin=stdin)
        if expect_error:
            if proc.returncode == 0:
                raise Verdict(f"exit 0 for {expect_error}")
            verdict = _cli_error_verdict(proc, "fit", case)
            if verdict:
                raise _CliVerdict(*verdict)
            raise _CliClean
        if v == "odd_control":
            if proc.returncode != 0:
                verdict = _cli_error_verdict(proc, "fit", case)
                if verdict:
                    raise _CliVerdict(*verdict)
                raise _CliClean
            # accepted: the value was a valid number for that option; the model must work
            load_model(model_path)
            return
        # the oracle: the API on the same file and formula
        api_exc: BaseException | None = None
        api = None
        try:
            if frame is None:
                read_csv(csv)
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                api = bsnsing(formula, frame, **ctrl)
        except PybsnsingError as exc:
            api_exc = exc
        if api_exc is not None:
            if proc.returncode == 0:
                raise Verdict(f"the CLI fitted where the API said: {api_exc}")
            verdict = _cli_error_verdict(proc, "fit", case)
            if verdict:
                raise _CliVerdict(*verdict)
            raise _CliClean
        if proc.returncode != 0:
            raise _CliVerdict("unclean error", "the API fitted but the CLI failed: "
                              + proc.stderr.decode("utf-8", "replace")[-600:])
        out = proc.stdout.decode("utf-8", "replace")
        saved = load_model(model_path)
        _check(_without_call(saved.to_dict()) == _without_call(api.to_dict()),
               "the CLI saved another tree than the API fits")
        api_text = [ln for t in getattr(api, "trees", [api]) for ln in str(t.summary()).split("\n")]
        _check(all(line in out for line in api_text if line.strip() and "Call" not in line
                   and "bsnsing(" not in line),
               "the CLI's summary differs from the API's")
        # predict: to a file, with an id column, into a closed pipe, or with a broken model
        ptype = "class" if v == "id" else "prob"
        pred_args = ["predict", str(model_path), str(csv), "--quiet", "--type", ptype]
        if v == "bad_model":
            bad = tmp / "bad.json"
            bad.write_text(model_path.read_text()[: len(model_path.read_text()) // 2])
            pred_args[1] = str(bad)
            proc = _cli(pred_args)
            if proc.returncode == 0:
                raise Verdict("predict with a truncated model file exited 0")
            verdict = _cli_error_verdict(proc, "predict", case)
            if verdict:
                raise _CliVerdict(*verdict)
            return
        if v == "closed_pipe":
            proc = _cli(pred_args, shell_pipe="head -c 1 >/dev/null")
            err = proc.stderr.decode("utf-8", "replace")
            _check("Traceback" not in err and "Error" not in err,
                   f"predict into a closed pipe was not quiet: {err[-400:]}")
            return
        if v == "id":
            pred_args += ["--id", str(frame.columns[0])]
        pred_args += ["--output", str(tmp / "pred.csv")]
        proc = _cli(pred_args)
        if proc.returncode != 0:
            raise _CliVerdict("unclean error", "predict failed on the training file: "
                              + proc.stderr.decode("utf-8", "replace")[-600:])
        got = pd.read_csv(tmp / "pred.csv", keep_default_na=False, dtype=str)
        want = api.predict(frame, type=ptype)
        _check(len(got) == len(frame), "predict wrote the wrong number of rows")
        if ptype == "prob":
            cols = [c for c in got.columns]
            mat = np.asarray(got[cols].astype(float))
            _check(np.allclose(mat.reshape(np.shape(want)), np.asarray(want, dtype=float),
                               rtol=0, atol=1e-12), "the CLI's probabilities differ from the API's")
        else:
            _check(got["class"].tolist() == [str(c) for c in np.asarray(want).tolist()],
                   "the CLI's classes differ from the API's")


def _without_call(d: Any) -> Any:
    """A saved model's dict without its ``call`` (the CLI spells only the options given)."""
    if isinstance(d, dict):
        return {k: _without_call(v) for k, v in d.items() if k != "call"}
    if isinstance(d, list):
        return [_without_call(v) for v in d]
    return d


class _CliVerdict(Exception):
    """An outcome decided by the CLI runner: (outcome, detail)."""


_RUNNERS = {
    "fit": run_fit,
    "predict": run_predict,
    "formula": run_formula,
    "control": run_fit,
    "binarize": run_binarize,
    "murtree": run_murtree,
    "classifier": run_classifier,
    "dataset": run_dataset,
    "model_file": run_model_file,
    "frame": run_frame,
    "cli": run_cli,
}


def summarise(counts: dict[str, int]) -> str:
    total = sum(counts.values())
    return ", ".join(f"{k}: {counts.get(k, 0)}" for k in OUTCOMES) + f" (total {total})"


__all__ = ["Case", "GOOD", "OUTCOMES", "classify_error", "generate_case", "random_frame",
           "run_case", "summarise"]

