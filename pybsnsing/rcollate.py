"""R's string collation for factor levels, as in the fixtures' R session.

The golden fixtures were made with R 4.2.2 in the ``C.UTF-8`` locale. That R was built
with ICU, and R uses ICU for collation in every locale other than ``C``/``POSIX`` (and
``C.UTF-8`` is not ``C`` for this purpose), with ICU's ``root`` collator. So
``sort()``, and hence the default levels of ``factor()`` / ``read.csv(stringsAsFactors =
TRUE)``, follow the Unicode Collation Algorithm with the CLDR root order, *not* code
point order:

* white space, then punctuation and symbols
  (`` _-,;:!?.'"()[]{}@*/\\&#%`^+<=>|~$``), then digits, then letters;
* letters compare case-insensitively first (``a < B < c``), digits character by
  character (``"10" < "9"``);
* ties are broken by accents (``e < é < è < ê < ë``), then by case, lower case first
  (``a < A``).

:func:`r_collate_key` reproduces this exactly for ASCII strings (checked against R) and
approximately for other characters: Latin letters with diacritics sort with their base
letter (accents as a secondary difference), ``ß æ œ ø`` expand as in CLDR, other scripts
follow the Latin letters in code point order, and other punctuation and symbols sort
after ``$`` and before the digits.
"""

from __future__ import annotations

import unicodedata

from .errors import PybsnsingValueError

__all__ = ["r_collate_key", "r_sort"]

_PUNCT = "\t\n\v\f\r " + "_-,;:!?.'\"()[]{}@*/\\&#%`^+<=>|~$"
_SYMBOL0 = 100  # other punctuation / symbols: 100 + code point, after '$'
_DIGIT0 = 2_000_000  # digits after all symbols
_LETTER0 = _DIGIT0 + 100  # Latin letters after the digits
_OTHER0 = 3_000_000  # non-Latin letters: after 'z', in code point order
_PRIMARY: dict[str, int] = {ch: i for i, ch in enumerate(_PUNCT)}
for _i, _ch in enumerate("0123456789"):
    _PRIMARY[_ch] = _DIGIT0 + _i
for _i, _ch in enumerate("abcdefghijklmnopqrstuvwxyz"):
    _PRIMARY[_ch] = _LETTER0 + _i
    _PRIMARY[_ch.upper()] = _LETTER0 + _i

# DUCET secondary order of common combining marks (lower sorts first).
_MARKS = [
    0x0301, 0x0300, 0x0306, 0x0302, 0x030C, 0x030A, 0x0308, 0x030B, 0x0303, 0x0307,
    0x0338, 0x0327, 0x0328, 0x0304,
]  # fmt: skip
_MARK_RANK = {m: i + 1 for i, m in enumerate(_MARKS)}
_MARK_OTHER = len(_MARKS) + 1
_STROKE = _MARK_OTHER + 1
_EXPAND = {
    "ß": ("s", "s"),
    "æ": ("a", "e"),
    "Æ": ("A", "E"),
    "œ": ("o", "e"),
    "Œ": ("O", "E"),
    "ø": ("o",),
    "Ø": ("O",),
    "đ": ("d",),
    "Đ": ("D",),
    "ł": ("l",),
    "Ł": ("L",),
}

Element = tuple[int, tuple[int, ...], int]


def _elements(ch: str) -> list[Element]:
    """Collation elements (primary, secondary marks, tertiary) of one character."""
    p = _PRIMARY.get(ch)
    if p is not None:
        return [(p, (), 1 if ch.isupper() else 0)]
    if ch in _EXPAND:
        return [(_PRIMARY[b], (_STROKE,), 1 if b.isupper() else 0) for b in _EXPAND[ch]]
    if unicodedata.combining(ch):
        return [(-1, (_MARK_RANK.get(ord(ch), _MARK_OTHER),), 0)]
    decomp = unicodedata.normalize("NFD", ch)
    if len(decomp) > 1 and decomp[0] in _PRIMARY:
        marks = tuple(_MARK_RANK.get(ord(m), _MARK_OTHER) for m in decomp[1:])
        return [(_PRIMARY[decomp[0]], marks, 1 if ch.isupper() else 0)]
    cat = unicodedata.category(ch)
    if cat[0] == "C":
        return []  # control / format characters are ignorable
    if cat[0] in "PSZ":
        return [(_SYMBOL0 + ord(ch), (), 0)]
    low = ch.lower()
    return [(_OTHER0 + ord(low[0] if low else ch), (), 1 if ch.isupper() else 0)]


CollateKey = tuple[tuple[int, ...], tuple[tuple[int, ...], ...], tuple[int, ...], str]


def r_collate_key(s: str) -> CollateKey:
    """Sort key mirroring R's ``sort()`` of strings in the fixtures' R (ICU root).

    Compares primary weights over the whole string first, then accents, then case
    (lower first); identical keys fall back to code point order.
    """
    elems: list[Element] = []
    for ch in s:
        for e in _elements(ch):
            if e[0] == -1 and elems:  # combining mark: attach to the previous base
                p, marks, t = elems[-1]
                elems[-1] = (p, marks + e[1], t)
            else:
                elems.append(e)
    return (
        tuple(e[0] for e in elems),
        tuple(e[1] for e in elems),
        tuple(e[2] for e in elems),
        s,
    )


def r_sort(values: list[str] | set[str], collation: str = "r") -> list[str]:
    """Sort strings as R's ``sort()`` does (``collation="r"``) or by code point
    (``collation="codepoint"``, R in the ``C`` locale or without ICU)."""
    if collation == "r":
        return sorted(values, key=r_collate_key)
    if collation == "codepoint":
        return sorted(values)
    raise PybsnsingValueError(f"collation must be 'r' or 'codepoint', not {collation!r}")
