"""Parsing and evaluating question and rule TEXTS as R bsnsing does (docs/r-quirks.md,
*Tree growth* and Q6).

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
import math
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from .errors import PybsnsingKeyError, PybsnsingTypeError, PybsnsingValueError
from .rformat import as_character, format_r, format_r_array, format_r_cached, r_atof
from .rnames import quote_name, quote_string, read_quoted

__all__ = [
    "Question",
    "evaluate_question",
    "evaluate_rule",
    "evaluated_columns",
    "NUMERIC_OPS",
    "numeric_comparison",
    "parse_question",
    "parse_rule",
    "rule_variables",
]

_INEQ_OPS = (">=", "<=", ">", "<")
#: the comparisons that :func:`evaluate_question` answers on a numeric column by comparing
#: its values with the question's number (:func:`numeric_comparison`)
NUMERIC_OPS = (">", "<", ">=", "<=", "==")
#: their comparisons, in that order (NaN compares FALSE)
_NUMERIC_COMPARE = (np.greater, np.less, np.greater_equal, np.less_equal, np.equal)
_NAME_RE = re.compile(r"[^\s=<>%'\"|!&()`]+")
_INEQ_RE = re.compile(r" (>=|<=|>|<) (\S+)")


@dataclass(frozen=True)
class Question:
    """One parsed question.

    Attributes:
        name: the column (variable) name: unquoted for a backticked name
            (```petal length``` -> ``petal length``), the call text for a
            transform (``log(Age)``).
        op: one of ``">" "<" ">=" "<=" "==" "%in%"``.
        value: for inequalities and unquoted ``==`` the number (float, parsed as
            R does); for quoted ``==`` the string between the quotes; None for
            ``%in%``.
        values: the strings of ``%in%c(...)``; empty otherwise.
        literal: the literal text of the value as written (the number text, or
            the quoted string without quotes).
        quoted: the name was written in backticks.
    """

    name: str
    op: str
    value: float | str | None
    values: tuple[str, ...] = ()
    literal: str = ""
    quoted: bool = False

    @property
    def label(self) -> str:
        """The name as the text writes it (backticks where R needs them)."""
        return quote_name(self.name) if self.quoted else self.name

    @property
    def text(self) -> str:
        """The question text in R's layout (round-trips the parsed text)."""
        name = self.label
        if self.op in _INEQ_OPS:
            return f"{name} {self.op} {self.literal}"
        if self.op == "==":
            if isinstance(self.value, str):
                return f"{name}=={quote_string(self.value)}"
            return f"{name}=={self.literal}"
        return f"{name}%in%c(" + ",".join(quote_string(v) for v in self.values) + ")"

    @property
    def group_key(self) -> str:
        """ENUM group: ``name>`` for ``>``/``>=``, ``name<`` for ``<``/``<=``, else the text."""
        if self.op in (">", ">="):
            return self.label + ">"
        if self.op in ("<", "<="):
            return self.label + "<"
        return self.text


def _bad(text: str, why: str = "") -> PybsnsingValueError:
    return PybsnsingValueError(f"cannot parse question {text!r}" + (f": {why}" if why else ""))


def _read_string(s: str, i: int, text: str) -> tuple[str, int]:
    try:
        return read_quoted(s, i)
    except ValueError as exc:
        raise _bad(text, str(exc)) from None


def _split_quoted_list(body: str, text: str) -> tuple[str, ...]:
    """``'a','b'`` -> ('a', 'b'); quotes may hold commas and escaped quotes."""
    out: list[str] = []
    i = 0
    n = len(body)
    while i < n:
        if body[i] != "'":
            raise _bad(text, "the %in% list must hold quoted strings")
        value, i = _read_string(body, i, text)
        out.append(value)
        if i < n:
            if body[i] != ",":
                raise _bad(text, "the %in% list must be separated by commas")
            i += 1
            if i == n:
                raise _bad(text, "the %in% list ends with a comma")
    if not out:
        raise _bad(text, "empty %in% list")
    return tuple(out)


def _skip_parens(s: str, i: int, text: str) -> int:
    """Index just past the parenthesis group opening at ``s[i]``."""
    depth = 0
    n = len(s)
    while i < n:
        ch = s[i]
        if ch in "`'\"":
            _, i = _read_string(s, i, text)
            continue
        if ch == "(":
            depth += 1
        elif ch == ")":
            depth -= 1
            if depth == 0:
                return i + 1
        i += 1
    raise _bad(text, "unbalanced parentheses")


def _read_name(s: str, text: str) -> tuple[str, bool, int]:
    """The variable token at the start of ``s``: (name, quoted, end)."""
    if s.startswith("`"):
        name, end = _read_string(s, 0, text)
        return name, True, end
    m = _NAME_RE.match(s)
    if m is None:
        raise _bad(text, "no variable name")
    end = m.end()
    if end < len(s) and s[end] == "(":  # a transform such as log(Age)
        end = _skip_parens(s, end, text)
        _check_transform(s[:end], text)
    return s[:end], False, end


@functools.lru_cache(maxsize=4096)
def _check_transform(call: str, text: str) -> None:
    """A call in a rule must be a transform of the fixed list (``log(Age)``): rule
    texts are data, and nothing else may pass for a column (R would run it)."""
    from .errors import PybsnsingError
    from .formula import parse_expr

    try:
        parse_expr(call)
    except PybsnsingError:
        raise _bad(text, f"{call!r} is neither a column name nor a transform of "
                         "pybsnsing.formula.FUNCTIONS") from None


def parse_question(text: str) -> Question:
    """Parse one question text (``x > 1.5``, ``f=='a'``, ``b==1``, ``f%in%c('a','b')``,
    ```petal length` > 1.5``, ``log(Age) > 2``).

    Raises:
        PybsnsingValueError: the text is not one of the forms bsnsing writes.
    """
    if not isinstance(text, str):
        raise PybsnsingTypeError(f"question text must be a str, got {type(text).__name__}")
    return _parse_question_cached(text)


@functools.lru_cache(maxsize=1 << 16)
def _parse_question_cached(text: str) -> Question:
    s = text.strip()
    name, quoted, end = _read_name(s, text)
    rest = s[end:]
    mi = _INEQ_RE.fullmatch(rest)
    if mi is not None:
        op, lit = mi.group(1), mi.group(2)
        try:
            val = r_atof(lit)
        except ValueError:
            raise _bad(text, f"{lit!r} is not a number") from None
        return Question(name, op, val, (), lit, quoted)
    if rest.startswith("=="):
        lit = rest[2:]
        if lit.startswith("'"):
            value, stop = _read_string(lit, 0, text)
            if stop != len(lit):
                raise _bad(text, "text after the quoted value")
            return Question(name, "==", value, (), value, quoted)
        try:
            val = r_atof(lit)
        except ValueError:
            raise _bad(text, f"{lit!r} is not a number or a quoted string") from None
        return Question(name, "==", val, (), lit, quoted)
    if rest.startswith("%in%c(") and rest.endswith(")"):
        vals = _split_quoted_list(rest[len("%in%c(") : -1], text)
        return Question(name, "%in%", None, vals, "", quoted)
    raise _bad(text)


def split_rule(text: str) -> list[str]:
    """Split a rule on `` | `` outside quotes and backticks."""
    if "'" not in text and '"' not in text and "`" not in text:
        return text.split(" | ")  # (the same: no quotes to skip)
    parts: list[str] = []
    start = 0
    i = 0
    n = len(text)
    while i < n:
        ch = text[i]
        if ch in "'`\"":
            try:
                _, i = read_quoted(text, i)
            except ValueError as exc:
                raise PybsnsingValueError(f"cannot parse rule {text!r}: {exc}") from None
            continue
        if text.startswith(" | ", i):
            parts.append(text[start:i])
            i += 3
            start = i
            continue
        i += 1
    parts.append(text[start:])
    return parts


def parse_rule(text: str) -> list[Question]:
    """Parse a rule text (questions joined by `` | ``) into its questions."""
    if not isinstance(text, str):
        raise PybsnsingTypeError(f"rule text must be a str, got {type(text).__name__}")
    if text.strip() == "":
        raise PybsnsingValueError("empty rule text")
    return [parse_question(p) for p in split_rule(text)]


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
        raise PybsnsingValueError(f"a data column must be one-dimensional, got shape {arr.shape}")
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


def _as_character(kind: str, data: np.ndarray, missing: np.ndarray | None) -> np.ndarray:
    """R's ``as.character`` of a column (object array; missing entries are None)."""
    if kind == "num":
        out = np.array(format_r_array(data), dtype=object)
    elif kind == "lgl":
        out = np.where(data != 0, "TRUE", "FALSE").astype(object)
    else:
        # the numbers of an object column are doubles to R
        out = np.array([as_character(v, numbers_as_double=True) for v in data.tolist()],
                       dtype=object)
    if missing is not None:
        out[missing] = None
    return out


#: a number that R's ``as.character`` writes as the text ``t`` lies within this relative
#: distance of ``float(t)`` (15 significant digits: 5e-15, and an ulp of parsing)
_PRINT_NEAR = 1e-13
#: at most this many targets are screened by distance (one pass over the column each)
_NEAR_MAX_TARGETS = 16


def _near_targets(data: np.ndarray, targets: set[str]) -> np.ndarray | None:
    """The entries of the numeric ``data`` that could be written as one of ``targets``:
    within :data:`_PRINT_NEAR` (relative) of a target's value; None when a target is
    not a finite number (``'abc'``, ``'NaN'``) or there are many targets (then every
    non-missing entry is a candidate)."""
    if len(targets) > _NEAR_MAX_TARGETS:
        return None
    near = None
    for t in targets:
        try:
            c = float(t)
        except ValueError:
            return None
        if not math.isfinite(c):
            return None
        w = _PRINT_NEAR * abs(c)
        hit = (data >= c - w) & (data <= c + w)  # (NaN: False)
        near = hit if near is None else near | hit
    return near


def _match_strings(
    kind: str, data: np.ndarray, missing: np.ndarray | None, targets: Sequence[str]
) -> np.ndarray:
    """``as.character(col) %in% targets``, formatting only the distinct values (of a
    numeric column: only those near a target, :func:`_near_targets`)."""
    tset = set(targets)
    if kind == "num":
        ok = _near_targets(data, tset)
        if ok is None:
            ok = ~np.isnan(data)
        vals = data[ok]
        res = np.zeros(data.shape[0], dtype=bool)
        distinct = set(vals.tolist()) if vals.size <= 4096 else np.unique(vals).tolist()
        hit = [v for v in distinct if format_r_cached(v) in tset]
        if len(hit) == len(distinct):
            res[ok] = True
        elif hit:
            res[ok] = np.isin(vals, hit)
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
        if not isinstance(q.value, float):
            raise PybsnsingTypeError(
                f"question on {q.name!r} with {q.op!r}: the value must be a float (or, for "
                f"'==', a str), got {type(q.value).__name__}")
        if kind == "str":
            if q.op == "==":
                # factor == number: R compares the labels with as.character(number)
                return _match_strings(kind, data, missing, [format_r(q.value)])
            # R: '>' not meaningful for factors -> NA -> FALSE
            return np.zeros(data.shape[0], dtype=bool)
        compare = _NUMERIC_COMPARE[numeric_comparison(q)]
        with np.errstate(invalid="ignore"):
            return compare(data, q.value)
    if q.op == "==" and isinstance(q.value, str):  # a number was answered above
        return _match_strings(kind, data, missing, [q.value])
    return _match_strings(kind, data, missing, q.values)


def numeric_comparison(q: Question) -> int:
    """The index in :data:`NUMERIC_OPS` of the comparison by which :func:`evaluate_question`
    answers ``q`` on a numeric column (the values compared with the float ``q.value``,
    NaN answering FALSE), or -1 when it answers ``q`` otherwise (labels, ``%in%``, or an
    error). A kernel that makes these comparisons on float64 columns answers as
    :func:`evaluate_question` does."""
    if isinstance(q.value, float) and q.op in NUMERIC_OPS:
        return NUMERIC_OPS.index(q.op)
    return -1


def column_key(q: Question, keys: Mapping[str, Any]) -> str | None:
    """The key of ``keys`` (a mapping from column name) holding ``q``'s column, looked up
    as :func:`evaluate_rule` looks it up in such a mapping (the name as written, then
    unquoted); None when neither is a key (a transform, or a missing column), or when
    the name is a call that R computes from the columns it uses (:func:`_call_variables`)."""
    if _call_variables(q, keys) is not None:
        return None
    for key in (q.label, q.name):
        if key in keys:
            return key
    return None


@functools.lru_cache(maxsize=4096)
def _parsed_call(name: str) -> Any:
    """The expression of a call name such as ``log(Age)`` (None: not a call pybsnsing
    can compute, or one without variables)."""
    from .errors import PybsnsingError
    from .formula import parse_expr

    if "(" not in name:
        return None
    try:
        expr = parse_expr(name)
    except PybsnsingError:
        return None
    return expr if expr.variables() else None


def _call_variables(q: Question,
                    columns: Mapping[str, Any] | pd.DataFrame) -> list[str] | None:
    """The keys of ``columns`` that an unquoted call name (``log(Age)``) uses, when all of
    them are there: R's ``eval(parse(text = rule))`` computes ``log(Age)`` from the column
    ``Age`` (a call, not the name of the design column ``log(Age)``), so where ``Age``
    was imputed or ``log`` gives NaN the two differ. None otherwise (then the column
    named ``log(Age)`` is used, where R stops with "object 'Age' not found")."""
    if q.quoted:
        return None
    expr = _parsed_call(q.name)
    if expr is None:
        return None
    def present(key: str) -> bool:
        if isinstance(columns, pd.DataFrame):
            return _lookup(columns, key) is not None
        return key in columns

    keys = []
    for var in expr.variables():
        key = next((k for k in (var, quote_name(var)) if present(k)), None)
        if key is None:
            return None
        keys.append(key)
    return keys


def evaluated_columns(X: np.ndarray, names: Sequence[str]) -> dict[int, np.ndarray]:
    """The design columns whose values differ from what R's text evaluation sees.

    R bsnsing answers its rpart questions (and re-evaluates its rules) by evaluating the
    TEXT on the node's design data frame: a question on the design column ``log(x)``
    computes ``log(x)`` from the column ``x`` (:func:`_call_variables`). That gives other
    values than the design column where ``log`` gives NaN (a negative ``x``: the design
    column holds the median imputed there, the text evaluation NaN, answering FALSE) or
    where ``x`` was imputed (``abs(median(x))`` is not ``median(abs(x))``). Returns
    ``{column: the values R's evaluation computes}`` for the columns where any value
    differs (NaN equal to NaN); usually empty."""
    X = np.asarray(X, dtype=np.float64)
    cols = {nm: X[:, j] for j, nm in enumerate(names)}
    out: dict[int, np.ndarray] = {}
    for j, nm in enumerate(names):
        if nm.startswith("`") or "(" not in nm:
            continue
        q = Question(nm, "==", 0.0)
        if _call_variables(q, cols) is None:
            continue
        vals = _get_column(cols, q)
        if not np.array_equal(vals, X[:, j], equal_nan=True):
            out[j] = vals
    return out


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
    if not questions:  # parse_rule never gives none
        raise PybsnsingValueError("a rule needs at least one question")
    first, *rest = questions
    cache: dict[str, Any] = {first.label: _get_column(columns, first)}
    out = evaluate_question(first, cache[first.label]).copy()
    for q in rest:
        if q.label not in cache:
            cache[q.label] = _get_column(columns, q)
        ans = evaluate_question(q, cache[q.label])
        if ans.shape != out.shape:
            raise PybsnsingValueError(
                f"columns of the rule have different lengths ({out.shape[0]} vs "
                f"{ans.shape[0]} for {q.name!r})"
            )
        out |= ans
    return out


def _lookup(columns: Mapping[str, Any] | pd.DataFrame, name: str) -> Any:
    """The column ``name`` (the first of that name in a DataFrame), or None."""
    if isinstance(columns, pd.DataFrame):
        if name not in columns.columns:
            return None
        loc = columns.columns.get_loc(name)
        if isinstance(loc, slice):
            return columns.iloc[:, loc.start]
        if isinstance(loc, np.ndarray):
            return columns.iloc[:, int(np.flatnonzero(loc)[0])]
        return columns.iloc[:, loc]
    try:
        return columns[name]
    except KeyError:
        return None


def _get_column(columns: Mapping[str, Any] | pd.DataFrame, q: Question | str) -> Any:
    """The values a question's name stands for: for a call such as ``log(Age)`` whose
    columns are in ``columns``, its value computed from them (R's ``with(data,
    log(Age))``; a fixed list of functions), else the column of that name (as written,
    then unquoted), else the call computed from the data's columns."""
    if isinstance(q, str):
        q = Question(q, "==", 0.0)
    if _call_variables(q, columns) is None:
        for key in dict.fromkeys((q.label, q.name)):
            col = _lookup(columns, key)
            if col is not None:
                return col
    expr = None if q.quoted else _parsed_call(q.name)
    if expr is not None:
        from .formula import evaluate_expr

        def column(var: str) -> np.ndarray:
            col = _lookup(columns, var)
            if col is None:
                col = _lookup(columns, quote_name(var))
            if col is None:
                raise PybsnsingKeyError(f"object {var!r} not found (the rule uses "
                                        f"{q.name!r}, and the data lack {var!r})")
            kind, data, missing = _column_kind(col)
            if kind == "str":
                raise PybsnsingValueError(f"{q.name!r}: the column {var!r} is not numeric")
            return data

        with np.errstate(all="ignore"):  # log(-1): NaN, as R (whose warning is dropped)
            value = evaluate_expr(expr, column)
        n = len(column(expr.variables()[0]))
        return np.broadcast_to(np.asarray(value, dtype=np.float64), (n,)).copy()
    raise PybsnsingKeyError(
        f"object {q.name!r} not found (the rule uses a column the data lack)")
