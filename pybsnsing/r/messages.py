"""Python messages in R's words, for the R package (``rbridge/``).

The R package calls pybsnsing through :func:`call_for_r`, which runs a
function, records its warnings and catches its exception, and returns every
message rewritten by :func:`r_message` so that an R user reads R, not Python:

* control names in R's spelling: ``max_rules`` -> ``max.rules``;
* Python literals as R writes them: ``['a', 'b']`` -> ``c("a", "b")``,
  ``('x', 1)`` -> ``c("x", 1)``, ``True``/``False``/``None`` -> ``TRUE``/
  ``FALSE``/``NULL``, ``nan``/``inf`` -> ``NaN``/``Inf``.

Text inside quotes (a column name, a level, a rule) is left alone, except
that a quoted Python literal list is rewritten as a whole.
"""

from __future__ import annotations

import ast
import contextlib
import io
import math
import re
import warnings
from collections.abc import Callable
from typing import Any

from ..control import CONTROL_PARAMS
from ..rformat import r_literal

__all__ = ["call_for_r", "r_literal", "r_message"]

#: Python names of the control parameters and R's names for them (where they differ),
#: from the control table.
R_CONTROL_NAMES = {p.name: p.r_name for p in CONTROL_PARAMS if p.r_name != p.name}

#: Exceptions that mean "this input is wrong" (their text is the message);
#: any other exception type is named in front of its text.
_INPUT_ERRORS = ("ValueError", "TypeError", "KeyError")

_WORDS = {"True": "TRUE", "False": "FALSE", "None": "NULL", "nan": "NaN", "inf": "Inf"}
_NAME_RE = re.compile(r"\b(" + "|".join(sorted(R_CONTROL_NAMES, key=len, reverse=True)) + r")\b")
_WORD_RE = re.compile(r"(?<![\w.'\"])(-?)(True|False|None|nan|inf)(?![\w'\"])")
_QUOTED_RE = re.compile(r"'(?:[^'\\\n]|\\.)*'|\"(?:[^\"\\\n]|\\.)*\"")


def _scalar(value: Any) -> bool:
    return value is None or isinstance(value, (bool, int, float, str))


def _literal_at(text: str, start: int) -> tuple[int, str] | None:
    """The Python list/tuple literal starting at ``text[start]`` as R code, with its end."""
    open_ch = text[start]
    close_ch = "]" if open_ch == "[" else ")"
    depth = 0
    quote = ""
    i = start
    while i < len(text):
        ch = text[i]
        if quote:
            if ch == "\\":
                i += 2
                continue
            if ch == quote:
                quote = ""
        elif ch in "'\"":
            quote = ch
        elif ch in "[(":
            depth += 1
        elif ch in "])":
            depth -= 1
            if depth == 0:
                if ch != close_ch:
                    return None
                break
        i += 1
    else:
        return None
    try:
        value = _literal_value(ast.parse(text[start:i + 1], mode="eval").body)
    except (ValueError, SyntaxError, MemoryError, RecursionError):
        return None
    if open_ch == "(" and not (isinstance(value, tuple) and value):
        return None  # "(2 splits)", "(0.5)" or "f()": prose, not a tuple
    if not isinstance(value, (list, tuple)):
        return None
    return i + 1, r_literal(list(value))


_NAMES = {"nan": math.nan, "inf": math.inf, "NaN": math.nan, "NA": math.nan}


def _literal_value(node: ast.AST) -> Any:
    """A list or tuple of scalars (``nan``, ``inf`` allowed) from its syntax tree (no eval)."""
    if isinstance(node, (ast.List, ast.Tuple)):
        items = [_scalar_value(e) for e in node.elts]
        return items if isinstance(node, ast.List) else tuple(items)
    raise ValueError("not a list")


def _scalar_value(node: ast.AST) -> Any:
    if isinstance(node, (ast.List, ast.Tuple)):
        return _literal_value(node)
    if isinstance(node, ast.Constant) and _scalar(node.value):
        return node.value
    if isinstance(node, ast.Name) and node.id in _NAMES:
        return _NAMES[node.id]
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
        v = _scalar_value(node.operand)
        if isinstance(v, (int, float)) and not isinstance(v, bool):
            return -v
    raise ValueError("not a scalar")


def _plain_words(segment: str) -> str:
    """Control names and Python words in unquoted text."""
    segment = _NAME_RE.sub(lambda m: R_CONTROL_NAMES[m.group(1)], segment)
    return _WORD_RE.sub(lambda m: m.group(1) + _WORDS[m.group(2)], segment)


def r_message(text: str) -> str:
    """A pybsnsing message as an R user should read it (see the module docstring)."""
    if not isinstance(text, str):
        text = str(text)
    n = len(text)
    out: list[str] = []
    plain_start = i = 0
    while i < n:
        ch = text[i]
        after_name = i > 0 and (text[i - 1].isalnum() or text[i - 1] in "_.")
        if ch == "[" or ch == "(" and not after_name:
            lit = _literal_at(text, i)
            if lit is not None:
                out.append(_plain_words(text[plain_start:i]))
                end, code = lit
                out.append(code)
                i = plain_start = end
                continue
        elif ch in "'\"":
            m = _QUOTED_RE.match(text, i)
            # an apostrophe inside a word ("can't") does not open a quote
            if m is not None and not (ch == "'" and i > 0 and text[i - 1].isalnum()):
                out.append(_plain_words(text[plain_start:i]))
                out.append(m.group(0))
                i = plain_start = m.end()
                continue
        i += 1
    out.append(_plain_words(text[plain_start:]))
    return "".join(out)


def _exception_text(exc: BaseException) -> str:
    if isinstance(exc, KeyError) and len(exc.args) == 1 and isinstance(exc.args[0], str):
        return exc.args[0]
    text = str(exc)
    return text if text else type(exc).__name__


class _Forward(io.TextIOBase):
    """A text stream that hands each finished line (and the rest at the end) to ``send``."""

    def __init__(self, send: Callable[[str], Any]) -> None:
        super().__init__()
        self._send = send
        self._buffer = ""

    def writable(self) -> bool:
        return True

    def write(self, text: str) -> int:
        self._buffer += text
        if "\n" in self._buffer:
            head, _, self._buffer = self._buffer.rpartition("\n")
            self._send(head + "\n")
        return len(text)

    def flush(self) -> None:
        if self._buffer:
            text, self._buffer = self._buffer, ""
            self._send(text)


def call_for_r(fn: Callable[..., Any], *args: Any, _r_stdout: Callable[[str], Any] | None = None,
               _r_stderr: Callable[[str], Any] | None = None, **kwargs: Any) -> dict[str, Any]:
    """Call ``fn(*args, **kwargs)`` for the R package.

    Returns ``{"value", "warnings", "error", "error_type", "stdout",
    "stderr"}``: the result (None after an exception), the distinct warning
    messages and the exception's message (None when there was none), all in
    R's words (:func:`r_message`), and what the call printed on
    ``sys.stdout`` (e.g. the ``verbose`` trace) and ``sys.stderr`` (e.g. the
    note that the kernels are being compiled). With ``_r_stdout`` /
    ``_r_stderr`` (R functions: ``cat`` and ``message``), each line goes to
    them as soon as it is printed instead, so that R shows it at once and
    ``sink()``, ``capture.output()`` and knitr see it.
    A message of an exception other than pybsnsing's own (``PybsnsingError``),
    ValueError, TypeError or KeyError starts with its type, e.g.
    ``"OverflowError: ..."``: such an exception is not an expected input error.
    """
    value = None
    error = None
    error_type = None
    out = _Forward(_r_stdout) if _r_stdout is not None else io.StringIO()
    err = _Forward(_r_stderr) if _r_stderr is not None else io.StringIO()
    with warnings.catch_warnings(record=True) as caught, \
            contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        warnings.simplefilter("always")
        try:
            value = fn(*args, **kwargs)
        except Exception as exc:  # noqa: BLE001 - every error goes back to R as an R error
            error_type = type(exc).__name__
            text = r_message(_exception_text(exc))
            expected = any(t.__name__ in _INPUT_ERRORS or t.__name__ == "PybsnsingError"
                           for t in type(exc).__mro__)
            error = text if expected else f"{error_type}: {text}"
        finally:
            for stream in (out, err):
                if isinstance(stream, _Forward):
                    stream.flush()
    messages: list[str] = []
    for w in caught:
        text = r_message(str(w.message))
        if text not in messages:
            messages.append(text)
    return {"value": value, "warnings": messages, "error": error, "error_type": error_type,
            "stdout": out.getvalue() if isinstance(out, io.StringIO) else "",
            "stderr": err.getvalue() if isinstance(err, io.StringIO) else ""}
