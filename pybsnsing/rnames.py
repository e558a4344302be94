"""R's rules for names: ``make.names`` and ``make.unique``.

Used by the CSV reader (column names as ``read.csv`` makes them), the design
matrix (duplicate design column names) and the scikit-learn estimator.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Iterable, Sequence

__all__ = ["is_syntactic", "make_names", "make_unique", "quote_name", "quote_string", "read_quoted"]

_RESERVED = frozenset(
    {
        "if", "else", "repeat", "while", "function", "for", "next", "break", "in",
        "TRUE", "FALSE", "NULL", "Inf", "NaN", "NA", "NA_integer_", "NA_real_",
        "NA_character_", "NA_complex_",
    }
)  # fmt: skip


def _make_name(name: str) -> str:
    """R's ``make.names`` for one name (without making it unique)."""
    if not name or not (name[0].isalpha() or name[0] == "."):
        name = "X" + name
    elif name[0] == "." and len(name) > 1 and name[1].isdigit():
        name = "X" + name
    name = "".join(ch if (ch.isalnum() or ch in "._") else "." for ch in name)
    if name in _RESERVED:
        name += "."
    return name


def make_names(names: Iterable[str], unique: bool = True) -> list[str]:
    """Mirror R's ``make.names(names, unique = unique)``.

    Invalid characters become ``.``, names that do not start with a letter or a dot not
    followed by a digit get an ``X`` prefix, reserved words get a ``.`` suffix, and with
    ``unique=True`` duplicates are renamed as R's ``make.unique(sep = ".")`` does
    (``a``, ``a`` -> ``a``, ``a.1``; a suffix that already exists is skipped).
    """
    out = [_make_name(str(n)) for n in names]
    return make_unique(out) if unique else out


def make_unique(names: Sequence[str]) -> list[str]:
    """R's ``make.unique(names, sep = ".")``: later duplicates get ``.1``, ``.2``, ...

    A suffix that already exists among the names is skipped (``a, a, a.1`` ->
    ``a, a.2, a.1``), as in R.
    """
    taken = set(names)
    seen: set[str] = set()
    counters: dict[str, int] = {}
    result: list[str] = []
    for name in names:
        if name not in seen:
            seen.add(name)
            result.append(name)
            continue
        k = counters.get(name, 1)
        while f"{name}.{k}" in taken:
            k += 1
        new = f"{name}.{k}"
        counters[name] = k + 1
        taken.add(new)
        seen.add(new)
        result.append(new)
    return result


# ---------------------------------------------------------------------------
# syntactic names and R's backtick quoting (deparse(as.name(x), backtick = TRUE))
# ---------------------------------------------------------------------------

_DOTS = re.compile(r"\.\.(\.|[0-9]+)")
_ESCAPES = {"\\": "\\\\", "`": "\\`", "\n": "\\n", "\t": "\\t", "\r": "\\r", "\0": "\\0",
            "\a": "\\a", "\b": "\\b", "\f": "\\f", "\v": "\\v"}
_UNESCAPES = {"\\": "\\", "`": "`", "'": "'", '"': '"', "n": "\n", "t": "\t", "r": "\r",
              "0": "\0", "a": "\a", "b": "\b", "f": "\f", "v": "\v", " ": " "}


@functools.lru_cache(maxsize=1 << 16)
def is_syntactic(name: str) -> bool:
    """Whether ``name`` is a syntactically valid R name (``make.names(name) == name``).

    A letter (any alphabet) or a dot not followed by a digit, then letters, digits,
    dots and underscores; not a reserved word (``if``, ``TRUE``, ``NA``, ``...``, ``..1``).
    Such names appear unquoted in R code and in pybsnsing's rule texts.
    """
    if not isinstance(name, str) or not name:
        return False
    if _DOTS.fullmatch(name):
        return False
    return _make_name(name) == name


def _escape(text: str, quote: str) -> str:
    out = []
    for ch in text:
        if ch == quote or ch == "\\" or ch in _ESCAPES and ch != "`":
            out.append("\\" + ch if ch in (quote, "\\") else _ESCAPES[ch])
        elif ord(ch) < 32 or ord(ch) == 127:
            out.append(f"\\x{ord(ch):02x}")
        else:
            out.append(ch)
    return "".join(out)


@functools.lru_cache(maxsize=1 << 16)
def quote_name(name: str) -> str:
    """``name`` as R code writes it: unchanged when syntactic, else in backticks with
    backslash escapes (what R's ``deparse(as.name(name), backtick = TRUE)`` gives,
    e.g. ``petal length`` -> ```petal length```)."""
    if is_syntactic(name):
        return name
    return "`" + _escape(name, "`") + "`"


def quote_string(text: str, quote: str = "'") -> str:
    """A string as a quoted R literal (``'a'``; the quote and ``\\`` escaped, control
    characters as R's escapes); ``quote='"'`` gives R's own deparse (``"a"``)."""
    return quote + _escape(text, quote) + quote


def read_quoted(text: str, start: int) -> tuple[str, int]:
    """Read the quoted token (backticks or quotes) starting at ``text[start]``.

    Returns the unescaped content and the index just past the closing quote.

    Raises:
        ValueError: an unterminated quote or an unknown escape.
    """
    quote = text[start]
    out: list[str] = []
    i = start + 1
    n = len(text)
    while i < n:
        ch = text[i]
        if ch == quote:
            return "".join(out), i + 1
        if ch == "\\":
            if i + 1 >= n:
                break
            nxt = text[i + 1]
            if nxt == "x" and i + 3 < n + 0 and re.fullmatch(r"[0-9a-fA-F]{2}", text[i + 2:i + 4]):
                out.append(chr(int(text[i + 2:i + 4], 16)))
                i += 4
                continue
            if nxt not in _UNESCAPES:
                raise ValueError(f"unknown escape '\\{nxt}' in {text!r}")
            out.append(_UNESCAPES[nxt])
            i += 2
            continue
        out.append(ch)
        i += 1
    raise ValueError(f"unterminated {quote} in {text!r}")
