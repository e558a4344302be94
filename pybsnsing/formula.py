"""Formulas as data: a structural parser for R model formulas (never ``eval``).

``y ~ .``, ``y ~ a + b``, ``y ~ . - c``, ``y ~ `petal length` + x``, ``y ~ x - 1``
and a fixed list of transforms (the ones rpart users write) are read into a
:class:`ParsedFormula`; nothing in a formula is ever executed. What is accepted:

* names: R names (``Cell.size``) or any column name in backticks
  (```petal length```, R's quoting, with backslash escapes);
* ``.``: every data column but the response, in data order;
* ``+`` (add terms), ``-`` (remove terms), ``0``/``1``/``-1`` (the intercept:
  bsnsing drops it, but as in R's ``model.matrix`` a formula without one codes
  the first factor by indicators of all its levels), parentheses;
* ``a:b`` (product of numeric columns) and ``a*b`` (``a + b + a:b``);
* the functions :data:`FUNCTIONS` of one numeric argument (``log``, ``log2``,
  ``log10``, ``log1p``, ``sqrt``, ``exp``, ``expm1``, ``abs``, ``sign``, ``floor``,
  ``ceiling``, ``trunc``, ``round``, the trigonometric and hyperbolic functions and
  their inverses), and ``I(...)`` of arithmetic with ``+ - * / ^``, numbers, numeric
  columns and those functions.

Terms are labelled as R's ``terms()`` labels them (``log(Age)``, ``I(a + b)``,
``x:z``): R's deparse of the expression, variables of an interaction in the
order they first appear in the formula, main effects before interactions.
Anything else (a string, another function, ``%in%``, ``/`` or ``^`` between
terms, an unknown character) is a :class:`~pybsnsing.errors.FormulaError`
naming it.
"""

from __future__ import annotations

import dataclasses
import functools
import math
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from .errors import FormulaError
from .rnames import is_syntactic, quote_name, read_quoted

__all__ = [
    "FUNCTIONS",
    "Expr",
    "ParsedFormula",
    "Term",
    "evaluate_expr",
    "formula_name",
    "parse_expr",
    "parse_formula",
]

def _r_log_of(fn: Any) -> Any:
    """R's ``R_log``-style wrapper of a C logarithm: ``-Inf`` at 0, NaN below."""
    def f(x: float) -> float:
        return fn(x) if x > 0 else (-math.inf if x == 0 else math.nan)
    return f


def _r_exp(x: float) -> float:
    try:
        return math.exp(x)
    except OverflowError:
        return math.inf


def _r_pow(x: float, y: float) -> float:
    """R's ``x ^ y`` for doubles (``arithmetic.c``: ``R_POW``, ``R_pow``), with the C
    library's ``pow``."""
    if y == 2.0:
        return x * x
    if x == 1.0 or y == 0.0:
        return 1.0
    if x == 0.0:
        return 0.0 if y > 0 else (math.inf if y < 0 else y)
    if math.isfinite(x) and math.isfinite(y):
        try:
            return math.pow(x, y)
        except ValueError:  # a negative base, a non-integer exponent
            return math.nan
        except OverflowError:
            odd = x < 0 and y == math.floor(y) and math.fmod(y, 2.0) != 0
            return -math.inf if odd else math.inf
    if math.isnan(x) or math.isnan(y):
        return x + y
    if not math.isfinite(x):
        if x > 0:
            return 0.0 if y < 0 else math.inf
        if math.isfinite(y) and y == math.floor(y):  # (-Inf) ^ n
            return 0.0 if y < 0 else (x if math.fmod(y, 2.0) != 0 else -x)
    if not math.isfinite(y) and x >= 0:
        if y > 0:
            return math.inf if x >= 1 else 0.0
        return math.inf if x < 1 else 0.0
    return math.nan


def _elementwise(fn: Any, nargs: int = 1) -> Any:
    """``fn`` (of Python floats) applied element by element to float64 arrays or numbers,
    broadcast. Python's ``math`` calls the platform's C library, as R does: numpy's own
    vectorised ``exp``, ``log`` and ``power`` differ from it in the last bit for a few per
    cent of the values (``exp(1.0000000000003)``), which changes cuts and ties."""
    ufunc = np.frompyfunc(fn, nargs, 1)

    def apply(*args: Any) -> np.ndarray:
        out = ufunc(*(np.asarray(a, dtype=np.float64) for a in args))
        return np.asarray(out, dtype=np.float64)
    return apply


#: R's power operator ``^`` (element by element, broadcast)
r_power = _elementwise(_r_pow, 2)

def _c_math(fn: Any, poles: dict[float, float] | None = None, odd: bool = False) -> Any:
    """A C library function as R's ``math1`` calls it, through Python's ``math`` (the same
    C library): the C result where Python raises instead, NaN for a domain error (R warns
    "NaNs produced"), ``poles`` for the C library's infinite values at a pole
    (``log1p(-1) = -Inf``), an overflow to ``Inf`` (to ``-Inf`` below 0 when ``odd``)."""
    at_pole = poles or {}

    def f(x: float) -> float:
        try:
            return fn(x)
        except ValueError:
            return at_pole.get(x, math.nan)
        except OverflowError:
            return -math.inf if odd and x < 0 else math.inf
    return f


def _r_sign(x: np.ndarray) -> np.ndarray:
    """R's ``sign()``: 1, 0 or -1 (0 for both zeros), NaN kept."""
    x = np.asarray(x, dtype=np.float64)
    return np.where(x > 0, 1.0, np.where(x < 0, -1.0, np.where(x == 0, 0.0, x)))


#: the functions a formula term may call, and what computes them: R's one-argument
#: ``Math`` functions that call the C library, through the same C library with R's
#: treatment of the edges (``log(0) = -Inf``, ``exp`` overflowing to ``Inf``, NaN where
#: R warns "NaNs produced"); ``sqrt``, ``abs``, ``floor``, ``ceiling``, ``trunc`` and
#: ``round`` (R's default 0 digits: to the nearest, ties to even) are exact in numpy too.
#: (Not R's own algorithms: ``gamma``, ``lgamma``, ``sinpi``, ``signif``, ...)
FUNCTIONS: dict[str, Any] = {
    "log": _elementwise(_r_log_of(math.log)),
    "log2": _elementwise(_r_log_of(math.log2)),
    "log10": _elementwise(_r_log_of(math.log10)),
    "log1p": _elementwise(_c_math(math.log1p, {-1.0: -math.inf})),
    "sqrt": np.sqrt,
    "exp": _elementwise(_r_exp),
    "expm1": _elementwise(_c_math(math.expm1)),
    "abs": np.abs,
    "sign": _r_sign,
    "floor": np.floor,
    "ceiling": np.ceil,
    "trunc": np.trunc,
    "round": np.rint,
    "sin": _elementwise(_c_math(math.sin)),
    "cos": _elementwise(_c_math(math.cos)),
    "tan": _elementwise(_c_math(math.tan)),
    "asin": _elementwise(_c_math(math.asin)),
    "acos": _elementwise(_c_math(math.acos)),
    "atan": _elementwise(_c_math(math.atan)),
    "sinh": _elementwise(_c_math(math.sinh, odd=True)),
    "cosh": _elementwise(_c_math(math.cosh)),
    "tanh": _elementwise(_c_math(math.tanh)),
    "asinh": _elementwise(_c_math(math.asinh)),
    "acosh": _elementwise(_c_math(math.acosh)),
    "atanh": _elementwise(_c_math(math.atanh, {1.0: math.inf, -1.0: -math.inf})),
}

_MAX_DEPTH = 60
_MAX_LENGTH = 100_000
_NUMBER = re.compile(r"(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?")
_NAME = re.compile(r"(?:[^\W\d]|\.(?![0-9]))[\w.]*|\.")  # R's syntactic-name shape
_OPS = "~+-*/^:(),"
#: the characters R's parser skips between tokens in a UTF-8 locale: space, tab, form feed
#: and the Unicode blanks of glibc's ``iswblank`` (not the no-break spaces U+00A0, U+2007,
#: U+202F, nor zero-width ones: R stops with "unexpected input"); line breaks too
_PARSER_SPACE = frozenset(" \t\f\n\r\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006"
                          "\u2008\u2009\u200a\u205f\u3000")


# ---------------------------------------------------------------------------
# tokens
# ---------------------------------------------------------------------------


@dataclass(frozen=True)
class _Tok:
    kind: str  # "name" (plain or backticked), "num", "op", "end"
    text: str  # the name (unquoted), the number text or the operator
    pos: int
    quoted: bool = False


def _tokenize(text: str) -> list[_Tok]:
    toks: list[_Tok] = []
    i, n = 0, len(text)
    while i < n:
        ch = text[i]
        if ch in _PARSER_SPACE:
            i += 1
            continue
        if ch == "`":
            try:
                name, j = read_quoted(text, i)
            except ValueError:
                raise FormulaError(
                    f"unterminated backtick in formula {text!r} (at position {i})") from None
            toks.append(_Tok("name", name, i, quoted=True))
            i = j
            continue
        if ch in "'\"":
            raise FormulaError(
                f"formula {text!r}: a quoted string is not a term; quote column names "
                "with backticks (`my column`)")
        if ch == "%":
            j = text.find("%", i + 1)
            op = text[i:j + 1] if j > 0 else "%"
            raise FormulaError(f"formula {text!r}: the operator {op!r} is not supported "
                               "(use + - : * and the functions of pybsnsing.formula.FUNCTIONS)")
        m = _NUMBER.match(text, i)
        if m and (ch.isdigit() or ch == "." and m.end() > i + 1):
            end = m.end()
            if end < n and (text[end].isalpha() or text[end] in "_."):
                raise FormulaError(
                    f"formula {text!r}: {text[i:end + 1]!r}... is not a name; a column name "
                    "starting with a digit must be written in backticks (`1st`)")
            toks.append(_Tok("num", text[i:end], i))
            i = end
            continue
        m = _NAME.match(text, i)
        if m:
            toks.append(_Tok("name", m.group(0), i))
            i = m.end()
            continue
        if ch in _OPS:
            toks.append(_Tok("op", ch, i))
            i += 1
            continue
        hint = (" (R's parser does not read it as a space; a column name holding it goes in "
                "backticks)" if ch.isspace() else "")
        raise FormulaError(
            f"formula {text!r}: unexpected character {ch!r} at position {i}{hint}")
    toks.append(_Tok("end", "", n))
    return toks


# ---------------------------------------------------------------------------
# expressions (the arithmetic of transforms)
# ---------------------------------------------------------------------------


def _union_variables(parts: Sequence[Expr]) -> list[str]:
    """The variables of ``parts``, each once, in order of first appearance."""
    out: list[str] = []
    for part in parts:
        for v in part.variables():
            if v not in out:
                out.append(v)
    return out


@dataclass(frozen=True)
class Expr:
    """A node of an arithmetic expression.

    ``kind`` is ``"var"`` (``value`` the column name), ``"num"`` (``value`` the
    number text), ``"neg"``, ``"paren"`` (one arg), ``"op"`` (``value`` one of
    ``+ - * / ^``, two args) or ``"call"`` (``value`` the function, one arg;
    ``I`` included).
    """

    kind: str
    value: str = ""
    args: tuple[Expr, ...] = ()

    def label(self) -> str:
        """R's deparse of the expression."""
        k = self.kind
        if k == "var":
            return formula_name(self.value)
        if k == "num":
            from .rformat import format_r

            return format_r(float(self.value))
        if k == "neg":
            return "-" + self.args[0].label()
        if k == "paren":
            return "(" + self.args[0].label() + ")"
        if k == "op":
            sep = self.value if self.value in "/^" else f" {self.value} "
            return self.args[0].label() + sep + self.args[1].label()
        return f"{self.value}({self.args[0].label()})"

    def variables(self) -> list[str]:
        """The column names used, in order of first use."""
        if self.kind == "var":
            return [self.value]
        return _union_variables(self.args)


class _Parser:
    def __init__(self, text: str) -> None:
        if len(text) > _MAX_LENGTH:
            raise FormulaError(f"formula of {len(text)} characters is too long "
                               f"(at most {_MAX_LENGTH})")
        self.text = text
        self.toks = _tokenize(text)
        self.i = 0
        self.depth = 0

    # helpers
    def peek(self) -> _Tok:
        return self.toks[self.i]

    def take(self) -> _Tok:
        t = self.toks[self.i]
        self.i += 1
        return t

    def is_op(self, op: str) -> bool:
        t = self.peek()
        return t.kind == "op" and t.text == op

    def expect(self, op: str) -> None:
        t = self.take()
        if t.kind != "op" or t.text != op:
            got = "the end" if t.kind == "end" else repr(t.text)
            raise FormulaError(f"formula {self.text!r}: expected {op!r} at position "
                               f"{t.pos}, found {got}")

    def enter(self) -> None:
        self.depth += 1
        if self.depth > _MAX_DEPTH:
            raise FormulaError(f"formula {self.text[:80]!r}... is nested too deeply "
                               f"(more than {_MAX_DEPTH} levels)")

    def unexpected(self, t: _Tok) -> FormulaError:
        if t.kind == "end":
            return FormulaError(f"formula {self.text!r} ends too early")
        return FormulaError(f"formula {self.text!r}: unexpected {t.text!r} at position {t.pos}")

    # arithmetic: sum := prod (('+'|'-') prod)*; prod := unary (('*'|'/') unary)*;
    # unary := '-' unary | '+' unary | power; power := atom ('^' unary)?
    def arith(self) -> Expr:
        self.enter()
        e = self.arith_prod()
        while self.peek().kind == "op" and self.peek().text in "+-":
            op = self.take().text
            e = Expr("op", op, (e, self.arith_prod()))
        self.depth -= 1
        return e

    def arith_prod(self) -> Expr:
        e = self.arith_unary()
        while self.peek().kind == "op" and self.peek().text in "*/":
            op = self.take().text
            e = Expr("op", op, (e, self.arith_unary()))
        return e

    def arith_unary(self) -> Expr:
        if self.is_op("-") or self.is_op("+"):
            op = self.take().text
            self.enter()
            inner = self.arith_unary()
            self.depth -= 1
            return Expr("neg", "", (inner,)) if op == "-" else inner
        return self.arith_power()

    def arith_power(self) -> Expr:
        e = self.arith_atom()
        if self.is_op("^"):
            self.take()
            self.enter()
            e = Expr("op", "^", (e, self.arith_unary()))
            self.depth -= 1
        return e

    def arith_atom(self) -> Expr:
        t = self.take()
        if t.kind == "num":
            return Expr("num", t.text)
        if t.kind == "name":
            if not t.quoted and self.is_op("("):
                return self.call(t)
            if t.text == "." and not t.quoted:
                raise FormulaError(f"formula {self.text!r}: '.' cannot be used inside an "
                                   "expression")
            return Expr("var", t.text)
        if t.kind == "op" and t.text == "(":
            self.enter()
            e = self.arith()
            self.expect(")")
            self.depth -= 1
            return Expr("paren", "", (e,))
        raise self.unexpected(t)

    def call(self, fname: _Tok) -> Expr:
        name = fname.text
        if name != "I" and name not in FUNCTIONS:
            raise FormulaError(
                f"formula {self.text!r}: the function {name}() is not supported; a term may "
                f"use only I() and {', '.join(f'{f}()' for f in FUNCTIONS)} (formulas are "
                "read as data, never run)")
        self.expect("(")
        self.enter()
        arg = self.arith()
        if self.is_op(","):
            raise FormulaError(f"formula {self.text!r}: {name}() takes a single argument here")
        self.expect(")")
        self.depth -= 1
        return Expr("call", name, (arg,))


def parse_expr(text: str) -> Expr:
    """Parse one arithmetic expression (a transform term such as ``log(Age)``)."""
    if not isinstance(text, str):
        raise FormulaError(f"an expression must be a string, not {type(text).__name__}")
    p = _Parser(text)
    e = p.arith()
    if p.peek().kind != "end":
        raise p.unexpected(p.peek())
    return e


def evaluate_expr(expr: Expr, column: Any) -> np.ndarray:
    """Evaluate an expression; ``column(name)`` returns a column as float64 (NaN missing).

    Invalid results (log of a negative number) are NaN, as in R; no Python code runs.
    """
    k = expr.kind
    if k == "var":
        return column(expr.value)
    if k == "num":
        return np.float64(float(expr.value))
    with np.errstate(all="ignore"):
        if k == "neg":
            return -evaluate_expr(expr.args[0], column)
        if k == "paren":
            return evaluate_expr(expr.args[0], column)
        if k == "op":
            a = evaluate_expr(expr.args[0], column)
            b = evaluate_expr(expr.args[1], column)
            op = expr.value
            if op == "+":
                return np.add(a, b)
            if op == "-":
                return np.subtract(a, b)
            if op == "*":
                return np.multiply(a, b)
            if op == "/":
                return np.divide(a, b)
            return r_power(a, b)
        a = evaluate_expr(expr.args[0], column)
        if expr.value == "I":
            return a
        return FUNCTIONS[expr.value](a)


# ---------------------------------------------------------------------------
# formulas
# ---------------------------------------------------------------------------


@dataclass(frozen=True)
class Term:
    """One term of the right-hand side: the product of its factors.

    ``factors`` are expressions: a plain column (``Expr("var")``) or a transform.
    ``label`` is R's term label (``x``, ``log(Age)``, ``x:z``).
    """

    factors: tuple[Expr, ...]
    label: str

    @property
    def is_variable(self) -> bool:
        """A plain column (no transform, no interaction)."""
        return len(self.factors) == 1 and self.factors[0].kind == "var"

    @property
    def variable(self) -> str:
        return self.factors[0].value

    def variables(self) -> list[str]:
        return _union_variables(self.factors)


@dataclass
class ParsedFormula:
    """A parsed formula: the response column, the terms (R's order) and the intercept."""

    response: str
    terms: list[Term]
    intercept: bool = True
    text: str = ""
    variables: list[str] = field(default_factory=list)
    dot: bool = False


# a term during parsing: a tuple of factor keys (labels), ordered by first appearance
_TermKey = tuple[str, ...]


class _FormulaParser(_Parser):
    def __init__(self, text: str, columns: list[str], response: str) -> None:
        super().__init__(text)
        self.columns = columns
        self.response = response
        self.exprs: dict[str, Expr] = {}  # factor label -> expression
        self.order: dict[str, int] = {}  # factor label -> first appearance
        self.intercept = True
        self.dot = False

    def factor(self, e: Expr) -> str:
        lab = e.label()
        if lab not in self.exprs:
            self.exprs[lab] = e
            self.order[lab] = len(self.order)
        return lab

    def key(self, labels: list[str] | tuple[str, ...]) -> _TermKey:
        return tuple(sorted(set(labels), key=self.order.__getitem__))

    # rhs := ['-'|'+'] part (('+'|'-') part)*
    def rhs(self) -> list[_TermKey]:
        self.enter()
        terms: list[_TermKey] = []
        sign = "+"
        if self.is_op("-") or self.is_op("+"):
            sign = self.take().text
        while True:
            part = self.product()
            self.apply(terms, part, sign)
            if self.is_op("+") or self.is_op("-"):
                sign = self.take().text
                continue
            break
        self.depth -= 1
        return terms

    def apply(self, terms: list[_TermKey], part: list[_TermKey] | str, sign: str) -> None:
        if isinstance(part, str):  # "0" or "1"
            self.intercept = (part == "1") == (sign == "+")
            return
        if sign == "+":
            for t in part:
                if t not in terms:
                    terms.append(t)
        else:
            for t in part:
                if t in terms:
                    terms.remove(t)

    def chain(self, op: str, operand: Callable[[], list[_TermKey] | str],
              combine: Callable[[list[_TermKey], list[_TermKey]], list[_TermKey]]
              ) -> list[_TermKey] | str:
        """``operand (op operand)*``, combined from the left (numbers refused)."""
        left = operand()
        while self.is_op(op):
            self.take()
            right = operand()
            left = combine(self.no_intercept(left, op), self.no_intercept(right, op))
        return left

    def product(self) -> list[_TermKey] | str:
        def cross(a: list[_TermKey], b: list[_TermKey]) -> list[_TermKey]:
            out = list(a)
            for t in b:
                if t not in out:
                    out.append(t)
            for x in a:
                for y in b:
                    t = self.key(x + y)
                    if t not in out:
                        out.append(t)
            return out

        left = self.chain("*", self.inter, cross)
        if self.is_op("/") or self.is_op("^"):
            t = self.peek()
            raise FormulaError(
                f"formula {self.text!r}: the operator {t.text!r} between terms (position "
                f"{t.pos}) is not supported; write a power or a ratio inside I(), e.g. "
                "I(x^2) or I(a/b)")
        return left

    def no_intercept(self, part: list[_TermKey] | str, op: str) -> list[_TermKey]:
        if isinstance(part, str):
            raise FormulaError(f"formula {self.text!r}: the number {part} cannot be used "
                               f"with {op!r}")
        return part

    def inter(self) -> list[_TermKey] | str:
        return self.chain(
            ":", self.atom, lambda a, b: list(dict.fromkeys(self.key(x + y) for x in a for y in b))
        )

    def atom(self) -> list[_TermKey] | str:
        t = self.peek()
        if t.kind == "num":
            self.take()
            try:
                v = float(t.text)
            except ValueError:  # pragma: no cover - the tokenizer only gives numbers
                v = math.nan
            if v in (0.0, 1.0):
                return "1" if v == 1.0 else "0"
            raise FormulaError(f"formula {self.text!r}: the number {t.text} is not a term "
                               "(only 0, 1 and -1 set the intercept)")
        if t.kind == "name":
            self.take()
            if not t.quoted and self.is_op("("):
                e = self.call(t)
                return [(self.factor(e),)]
            if t.text == "." and not t.quoted:
                self.dot = True
                out: list[_TermKey] = []
                for c in self.columns:
                    if c != self.response:
                        out.append((self.factor(Expr("var", c)),))
                return out
            return [(self.factor(Expr("var", t.text)),)]
        if t.kind == "op" and t.text == "(":
            self.take()
            inner = self.rhs()
            self.expect(")")
            return inner
        raise self.unexpected(t)


def _lhs(text: str) -> tuple[str, str]:
    """The response name and the right-hand side text of ``text``."""
    p = _Parser(text)
    toks = p.toks
    tilde = [k for k, t in enumerate(toks) if t.kind == "op" and t.text == "~"]
    if not tilde:
        raise FormulaError(
            f"formula must have the form 'response ~ predictors', got {text!r}")
    if len(tilde) > 1:
        raise FormulaError(f"formula {text!r} has more than one '~'")
    left = toks[:tilde[0]]
    if not left:
        raise FormulaError(f"formula {text!r} has no response (the left of '~' is empty)")
    if len(left) != 1 or left[0].kind != "name" or (left[0].text == "." and
                                                     not left[0].quoted):
        lhs = text[:toks[tilde[0]].pos].strip()
        raise FormulaError(
            f"formula {text!r}: the response must be one column name, got {lhs!r} "
            "(transform the response column before fitting)")
    return left[0].text, text[toks[tilde[0]].pos + 1:]


def parse_formula(formula: Any, columns: list[str]) -> ParsedFormula:
    """Parse ``formula`` against the data columns ``columns`` (for ``.``).

    Returns the response, the terms in R's order (main effects first, then
    interactions, each group in order of appearance) and whether the formula
    keeps the intercept.

    Raises:
        FormulaError: the formula is not a string, cannot be parsed, uses
            something outside the supported list, or has no predictors.
    """
    if not isinstance(formula, str):
        raise FormulaError(
            f"formula must be a string such as 'y ~ x1 + x2', not {type(formula).__name__}")
    parsed = _parse_formula(formula, tuple(columns))  # (memoised: a copy of its lists)
    return dataclasses.replace(parsed, terms=list(parsed.terms),
                               variables=list(parsed.variables))


@functools.lru_cache(maxsize=64)
def _parse_formula(formula: str, columns: tuple[str, ...]) -> ParsedFormula:
    """:func:`parse_formula` of a string formula (cross-validation and grid searches fit
    the same formula on the same columns again and again)."""
    response, rhs = _lhs(formula)
    p = _FormulaParser(rhs, list(columns), response)
    p.text = formula
    p.factor(Expr("var", response))  # R's variable order starts with the response
    keys = p.rhs()
    if p.peek().kind != "end":
        t = p.peek()
        if t.kind == "op" and t.text == ")":
            raise FormulaError(f"formula {formula!r}: unbalanced ')'")
        raise p.unexpected(t)
    keys = [k for k in keys if k != (formula_name(response),)]  # the response is no predictor
    keys = sorted(keys, key=len)  # stable: main effects first, as R orders terms
    terms = []
    for k in keys:
        factors = tuple(p.exprs[lab] for lab in k)
        terms.append(Term(factors, ":".join(k)))
    variables: list[str] = []
    for t in terms:
        for v in t.variables():
            if v not in variables:
                variables.append(v)
    return ParsedFormula(response=response, terms=terms, intercept=p.intercept,
                         text=formula, variables=variables, dot=p.dot)


def formula_name(name: str) -> str:
    """A column name as a formula must write it: :func:`~pybsnsing.rnames.quote_name`,
    and a column named ``.`` in backticks (a bare ``.`` means every column)."""
    return "`.`" if name == "." else quote_name(name)


def term_label_is_plain(label: str) -> bool:
    """Whether R bsnsing could use ``label`` in a rule as it is: a syntactic name, or
    a call of the fixed functions free of the characters R bsnsing rejects."""
    if is_syntactic(label):
        return True
    return bool(re.fullmatch(r"[A-Za-z][A-Za-z0-9]*\([^+<=>:/*^\-\s`'\"\\]*\)", label))
