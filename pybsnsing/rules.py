"""Parsing and evaluating question and rule TEXTS as R bsnsing does (spec §6, Q6).

R bsnsing 1.0.1 decides node membership (while growing and in ``predict``) with
``with(x, which(eval(parse(text = rule))))``.  So a rule is re-evaluated from
its text, with R's semantics:

* ``name > c``, ``name < c``, ``name >= c``, ``name <= c``: ``c`` is the PRINTED
  number, parsed back as R's parser does (:func:`~pybsnsing.rformat.r_atof`),
  not the exact cut the question was built from;
* ``name==0`` / ``name==1`` (binary questions, unquoted): numeric equality;
* ``name=='v'``: R compares a numeric column with a string by converting the
  column with ``as.character`` (15 significant digits, :func:`format_r`), so
  ``x=='2.9'`` is TRUE where ``format_r(x) == '2.9'``; a factor (categorical or
  string) column compares its labels;
* ``name%in%c('a','b')``: likewise, on ``as.character`` of the column;
* a missing value (NaN/None) makes a question NA, and ``which()`` drops it, so it
  counts as FALSE unless another OR-ed question is TRUE;
* a rule is the OR (``|``) of its questions.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from .rformat import format_r, format_r_array, r_atof

__all__ = [
    "Question",
    "evaluate_question",
    "evaluate_rule",
    "parse_question",
    "parse_rule",
    "rule_variables",
]

_INEQ_OPS = (">=", "<=", ">", "<")
_NAME_RE = re.compile(r"[^\s=<>%'\"|!&()]+")
_INEQ_RE = re.compile(r" (>=|<=|>|<) (\S+)")


@dataclass(frozen=True)
class Question:
    """One parsed question.

    Attributes:
        name: the column (variable) name.
        op: one of ``">" "<" ">=" "<=" "==" "%in%"``.
        value: for inequalities and unquoted ``==`` the number (float, parsed as
            R does); for quoted ``==`` the string between the quotes; None for
            ``%in%``.
        values: the strings of ``%in%c(...)``; empty otherwise.
        literal: the literal text of the value as written (the number text, or
            the quoted string without quotes).
    """

    name: str
    op: str
    value: float | str | None
    values: tuple[str, ...] = ()
    literal: str = ""

    @property
    def text(self) -> str:
        """The question text in R's layout (round-trips the parsed text)."""
        if self.op in _INEQ_OPS:
            return f"{self.name} {self.op} {self.literal}"
        if self.op == "==":
            if isinstance(self.value, str):
                return f"{self.name}=='{self.value}'"
            return f"{self.name}=={self.literal}"
        return f"{self.name}%in%c(" + ",".join(f"'{v}'" for v in self.values) + ")"

    @property
    def group_key(self) -> str:
        """ENUM group: ``name>`` for ``>``/``>=``, ``name<`` for ``<``/``<=``, else the text."""
        if self.op in (">", ">="):
            return self.name + ">"
        if self.op in ("<", "<="):
            return self.name + "<"
        return self.text


def _split_quoted_list(body: str, text: str) -> tuple[str, ...]:
    """``'a','b'`` -> ('a', 'b'); quotes may hold commas."""
    out: list[str] = []
    i = 0
    n = len(body)
    while i < n:
        if body[i] != "'":
            raise ValueError(f"cannot parse the %in% list of question {text!r}")
        j = body.find("'", i + 1)
        if j < 0:
            raise ValueError(f"unterminated quote in question {text!r}")
        out.append(body[i + 1 : j])
        i = j + 1
        if i < n:
            if body[i] != ",":
                raise ValueError(f"cannot parse the %in% list of question {text!r}")
            i += 1
            if i == n:
                raise ValueError(f"cannot parse the %in% list of question {text!r}")
    if not out:
        raise ValueError(f"empty %in% list in question {text!r}")
    return tuple(out)


def parse_question(text: str) -> Question:
    """Parse one question text (``x > 1.5``, ``f=='a'``, ``b==1``, ``f%in%c('a','b')``).

    Raises:
        ValueError: the text is not one of the forms bsnsing writes.
    """
    if not isinstance(text, str):
        raise TypeError(f"question text must be a str, got {type(text).__name__}")
    return _parse_question_cached(text)


@functools.lru_cache(maxsize=1 << 16)
def _parse_question_cached(text: str) -> Question:
    s = text.strip()
    m = _NAME_RE.match(s)
    if m is None:
        raise ValueError(f"cannot parse question {text!r}: no variable name")
    name = m.group(0)
    rest = s[m.end() :]
    mi = _INEQ_RE.fullmatch(rest)
    if mi is not None:
        op, lit = mi.group(1), mi.group(2)
        try:
            val = r_atof(lit)
        except ValueError as exc:
            raise ValueError(f"cannot parse the number of question {text!r}") from exc
        return Question(name, op, val, (), lit)
    if rest.startswith("=="):
        lit = rest[2:]
        if len(lit) >= 2 and lit[0] == "'" and lit[-1] == "'" and "'" not in lit[1:-1]:
            return Question(name, "==", lit[1:-1], (), lit[1:-1])
        try:
            val = r_atof(lit)
        except ValueError as exc:
            raise ValueError(f"cannot parse question {text!r}") from exc
        return Question(name, "==", val, (), lit)
    if rest.startswith("%in%c(") and rest.endswith(")"):
        vals = _split_quoted_list(rest[len("%in%c(") : -1], text)
        return Question(name, "%in%", None, vals, "")
    raise ValueError(f"cannot parse question {text!r}")


def _split_rule(text: str) -> list[str]:
    """Split a rule on `` | `` outside single quotes."""
    parts: list[str] = []
    buf: list[str] = []
    inq = False
    i = 0
    n = len(text)
    while i < n:
        ch = text[i]
        if ch == "'":
            inq = not inq
        if not inq and text.startswith(" | ", i):
            parts.append("".join(buf))
            buf = []
            i += 3
            continue
        buf.append(ch)
        i += 1
    if inq:
        raise ValueError(f"unterminated quote in rule {text!r}")
    parts.append("".join(buf))
    return parts


def parse_rule(text: str) -> list[Question]:
    """Parse a rule text (questions joined by `` | ``) into its questions."""
    if not isinstance(text, str):
        raise TypeError(f"rule text must be a str, got {type(text).__name__}")
    if text.strip() == "":
        raise ValueError("empty rule text")
    return [parse_question(p) for p in _split_rule(text)]


def rule_variables(text: str) -> list[str]:
    """The distinct variable names a rule uses, in order of first use."""
    seen: dict[str, None] = {}
    for q in parse_rule(text):
        seen.setdefault(q.name, None)
    return list(seen)


# ---------------------------------------------------------------------------
# evaluation
# ---------------------------------------------------------------------------


def _column_kind(col: Any) -> tuple[str, np.ndarray, np.ndarray | None]:
    """Classify a data column.

    Returns ``(kind, data, missing)`` where kind is ``"num"`` (float64 data),
    ``"lgl"`` (bool data as float64) or ``"str"`` (object array of labels), and
    ``missing`` a bool mask (None when nothing is missing).
    """
    if isinstance(col, pd.Series):
        if isinstance(col.dtype, pd.CategoricalDtype):
            col = col.astype(object).to_numpy()
        elif pd.api.types.is_bool_dtype(col.dtype):
            miss = col.isna().to_numpy()
            data = col.to_numpy(dtype=np.float64, na_value=np.nan)
            return "lgl", data, (miss if miss.any() else None)
        elif pd.api.types.is_numeric_dtype(col.dtype):
            col = col.to_numpy(dtype=np.float64, na_value=np.nan)
        else:
            col = col.to_numpy(dtype=object)
    elif isinstance(col, pd.Categorical):
        col = np.asarray(col, dtype=object)
    arr = np.asarray(col)
    if arr.ndim != 1:
        raise ValueError(f"a data column must be one-dimensional, got shape {arr.shape}")
    if arr.dtype == bool:
        return "lgl", arr.astype(np.float64), None
    if arr.dtype.kind in "iuf":
        data = arr.astype(np.float64, copy=False)
        miss = np.isnan(data)
        return "num", data, (miss if miss.any() else None)
    if arr.dtype.kind in "US":
        return "str", arr.astype(object), None
    # object: labels, possibly with None/NaN
    miss = pd.isna(arr)
    miss_any = bool(np.any(miss))
    return "str", arr, (np.asarray(miss, dtype=bool) if miss_any else None)


def _label(v: Any) -> str:
    """``as.character`` of one element of an object column."""
    if isinstance(v, str):
        return v
    if isinstance(v, bool | np.bool_):
        return "TRUE" if v else "FALSE"
    if isinstance(v, int | float | np.integer | np.floating):
        return format_r(float(v))
    return str(v)


def _as_character(kind: str, data: np.ndarray, missing: np.ndarray | None) -> np.ndarray:
    """R's ``as.character`` of a column (object array; missing entries are None)."""
    if kind == "num":
        out = np.array(format_r_array(data), dtype=object)
    elif kind == "lgl":
        out = np.where(data != 0, "TRUE", "FALSE").astype(object)
    else:
        out = np.array([_label(v) for v in data.tolist()], dtype=object)
    if missing is not None:
        out[missing] = None
    return out


def _match_strings(
    kind: str, data: np.ndarray, missing: np.ndarray | None, targets: Sequence[str]
) -> np.ndarray:
    """``as.character(col) %in% targets``, formatting only the distinct values."""
    tset = set(targets)
    if kind == "num":
        ok = ~np.isnan(data)
        vals = data[ok]
        res = np.zeros(data.shape[0], dtype=bool)
        if vals.size == 0:
            return res
        uniq, inv = np.unique(vals, return_inverse=True)
        hit = np.fromiter((format_r(v) in tset for v in uniq.tolist()), dtype=bool, count=uniq.size)
        res[ok] = hit[inv.ravel()]
        return res
    if kind == "lgl":
        res = np.where(data != 0, "TRUE" in tset, "FALSE" in tset)
        if missing is not None:
            res &= ~missing
        return res
    labels = _as_character(kind, data, missing)
    return np.fromiter((v is not None and v in tset for v in labels), dtype=bool, count=len(labels))


def evaluate_question(q: Question | str, col: Any) -> np.ndarray:
    """Evaluate one question on one column; NA counts as FALSE.

    Args:
        q: a :class:`Question` or question text.
        col: the column's values (numpy array, pandas Series/Categorical, list).

    Returns:
        a bool array.
    """
    if isinstance(q, str):
        q = parse_question(q)
    kind, data, missing = _column_kind(col)
    if q.op in _INEQ_OPS or (q.op == "==" and not isinstance(q.value, str)):
        assert isinstance(q.value, float)
        if kind == "str":
            if q.op == "==":
                # factor == number: R compares the labels with as.character(number)
                return _match_strings(kind, data, missing, [format_r(q.value)])
            # R: '>' not meaningful for factors -> NA -> FALSE
            return np.zeros(data.shape[0], dtype=bool)
        v = q.value
        with np.errstate(invalid="ignore"):
            if q.op == ">":
                return data > v
            if q.op == "<":
                return data < v
            if q.op == ">=":
                return data >= v
            if q.op == "<=":
                return data <= v
            return data == v
    if q.op == "==":
        assert isinstance(q.value, str)
        return _match_strings(kind, data, missing, [q.value])
    return _match_strings(kind, data, missing, q.values)


def evaluate_rule(
    rule: str | Question | Sequence[Question],
    columns: Mapping[str, Any] | pd.DataFrame,
) -> np.ndarray:
    """Evaluate a rule (the OR of its questions) on data, as R's ``which(eval(parse(...)))``.

    Args:
        rule: the rule text, one :class:`Question`, or a list of them.
        columns: the data: a mapping from column name to values, or a DataFrame.
            When a name occurs several times in a DataFrame, the first column is
            used (as R's ``with()`` does).

    Returns:
        a bool array, True where the rule is TRUE (rows that go LEFT).

    Raises:
        KeyError: a variable of the rule is not in ``columns``.
        ValueError: the columns used have different lengths, or the text is bad.
    """
    if isinstance(rule, str):
        questions = parse_rule(rule)
    elif isinstance(rule, Question):
        questions = [rule]
    else:
        questions = list(rule)
        if not questions:
            raise ValueError("a rule needs at least one question")
    out: np.ndarray | None = None
    cache: dict[str, Any] = {}
    for q in questions:
        if q.name not in cache:
            cache[q.name] = _get_column(columns, q.name)
        ans = evaluate_question(q, cache[q.name])
        if out is None:
            out = ans.copy()
        else:
            if ans.shape != out.shape:
                raise ValueError(
                    f"columns of the rule have different lengths ({out.shape[0]} vs "
                    f"{ans.shape[0]} for {q.name!r})"
                )
            out |= ans
    assert out is not None
    return out


def _get_column(columns: Mapping[str, Any] | pd.DataFrame, name: str) -> Any:
    if isinstance(columns, pd.DataFrame):
        if name not in columns.columns:
            raise KeyError(f"object {name!r} not found (the rule uses a column the data lack)")
        loc = columns.columns.get_loc(name)
        if isinstance(loc, slice):
            return columns.iloc[:, loc.start]
        if isinstance(loc, np.ndarray):
            return columns.iloc[:, int(np.flatnonzero(loc)[0])]
        return columns.iloc[:, loc]
    try:
        return columns[name]
    except KeyError:
        raise KeyError(
            f"object {name!r} not found (the rule uses a column the data lack)"
        ) from None
