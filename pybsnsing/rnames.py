"""R's rules for names: ``make.names`` and ``make.unique``.

Used by the CSV reader (column names as ``read.csv`` makes them), the design
matrix (duplicate design column names) and the scikit-learn estimator.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

__all__ = ["make_names", "make_unique"]

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
