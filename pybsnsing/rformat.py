"""R's number formatting and number parsing, as R 4.2.2 does them on x86_64 Linux.

bsnsing writes every cut value into a question text with ``paste``, i.e. with
``as.character()`` of a double, and later re-evaluates the rule TEXT with
``eval(parse(text = rule))``.  Both directions matter for faithful trees:

* :func:`format_r` reproduces ``as.character(x)`` for a double ``x``: R's
  ``formatReal`` with ``digits = 15`` on the single value (the shortest decimal
  of at most 15 significant digits that rounds back to the same 15 digits), then
  fixed notation when its width is ``<=`` the scientific width (``scipen = 0``),
  printed by C's ``sprintf`` with trailing zeros dropped.  Examples: ``1e+05``,
  ``123456``, ``1e-04``, ``0.001``, ``49.892535``, ``-0.0614164953585714``.
* :func:`r_atof` reproduces how R's parser turns a numeric literal of such a
  text back into a double (``R_strtod``: digits accumulated and scaled in x87
  80-bit ``long double``, then rounded to double).  This is *not* always the
  correctly rounded double that Python's :func:`float` gives; the two differ by
  one ulp for a small share of 15-digit strings.

R computes the number of significant digits (``scientific()`` in
``src/main/format.c``) by scaling in ``long double`` and rounding with
``nearbyintl``.  This module does the same computation exactly with rational
arithmetic (rounding to a 64-bit significand after each operation), so the
result does not depend on the platform's ``long double``.  A fast path based on
Python's correctly rounded ``%e`` formatting is used whenever the 15-digit
rounding is not within a whisker of a tie, where both computations provably
agree.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from fractions import Fraction

import numpy as np

__all__ = ["format_r", "format_r_array", "r_atof"]

#: R's ``R_print.digits`` inside ``as.character`` (``DBL_DIG``).
_DIGITS = 15
#: ``KP_MAX`` of format.c when R has a ``long double`` wider than double.
_KP_MAX = 27
#: ``tbl[k + 1]`` of format.c: the double literal ``1ek`` widened to long double.
_TBL = [Fraction(float(f"1e{k}")) for k in range(_KP_MAX + 1)]
_TEN14 = 10**14
_DBL_MAX = Fraction(1.7976931348623157e308)
_TWO64 = 1 << 64
#: Largest k for which the double literal 1ek is exactly 10**k.
_EXACT_TBL_MAX = 22


def _round_bits(q: Fraction, bits: int = 64) -> Fraction:
    """Round ``q`` to ``bits`` significant bits, ties to even (x87 long double)."""
    if q == 0:
        return q
    neg = q < 0
    if neg:
        q = -q
    n, d = q.numerator, q.denominator
    e = n.bit_length() - d.bit_length()
    # make 2**e <= q < 2**(e + 1)
    if (n << max(0, -e)) < (d << max(0, e)):
        e -= 1
    shift = bits - 1 - e
    m = round(Fraction(n << shift, d) if shift >= 0 else Fraction(n, d << -shift))
    out = Fraction(m, 1 << shift) if shift >= 0 else Fraction(m << -shift)
    return -out if neg else out


def _round_ratio(num: int, den: int, bits: int) -> tuple[int, int]:
    """``num/den > 0`` rounded to ``bits`` significant bits, ties to even: ``(m, e)``, m*2**e."""
    e = num.bit_length() - den.bit_length()
    if (num << max(0, -e)) < (den << max(0, e)):
        e -= 1
    shift = bits - 1 - e
    if shift >= 0:
        q, r = divmod(num << shift, den)
    else:
        q, r = divmod(num, den << -shift)
    if 2 * r > den or (2 * r == den and q & 1):
        q += 1
    return q, -shift


def _round_int(m: int, e: int, bits: int) -> tuple[int, int]:
    """``m * 2**e`` (m > 0) rounded to ``bits`` significant bits, ties to even."""
    drop = m.bit_length() - bits
    if drop <= 0:
        return m, e
    q, r = divmod(m, 1 << drop)
    half = 1 << (drop - 1)
    if r > half or (r == half and q & 1):
        q += 1
    return q, e + drop


def _scientific_exact(r: float) -> tuple[int, int, bool]:
    """R's ``scientific()`` for ``r > 0`` with ``digits = 15``: (kpower, nsig, roundingwidens)."""
    kp = math.floor(math.log10(r)) - _DIGITS + 1
    rr = Fraction(r)
    if abs(kp) <= _KP_MAX:
        if kp > 0:
            rp = _round_bits(rr / _TBL[kp])
        elif kp < 0:
            rp = _round_bits(rr * _TBL[-kp])
        else:
            rp = rr
    else:  # powl(10, kp), taken as correctly rounded
        rp = _round_bits(rr / _round_bits(Fraction(10) ** kp))
    if rp < _TEN14:
        rp = _round_bits(rp * 10)
        kp -= 1
    alpha = round(rp)  # nearbyintl: ties to even
    nsig = _DIGITS
    for _ in range(_DIGITS):
        if alpha % 10 == 0:
            alpha //= 10
            nsig -= 1
        else:
            break
    if nsig == 0:
        nsig = 1
        kp += 1
    kpower = kp + _DIGITS - 1
    return kpower, nsig, _rounding_widens(r, kpower)


def _rounding_widens(r: float, kpower: int) -> bool:
    """The ``roundingwidens`` flag of R's ``scientific()``."""
    if not (0 < kpower <= _KP_MAX) or not r < 10**kpower:
        return False
    rgt = min(max(_DIGITS - kpower, 0), _KP_MAX)
    fuzz = 0.5 / float(_TBL[rgt])
    return Fraction(r) < _round_bits(_TBL[kpower] - Fraction(fuzz))


def _scientific(r: float) -> tuple[int, int, bool]:
    """(kpower, nsig, roundingwidens) for ``r > 0``, fast path when unambiguous."""
    kp = math.floor(math.log10(r)) - _DIGITS + 1
    if _EXACT_TBL_MAX < abs(kp) <= _KP_MAX + 1:
        # R scales by tbl[|kp|] = (long double)1e23..1e27, which are not exact
        # powers of ten: R's digit count can differ from correct rounding here.
        return _scientific_exact(r)
    wide = f"{r:.24e}"  # 25 correctly rounded significant digits
    tail = int(wide[16:26])  # digits 16..25: the part cut off at 15 digits
    if abs(tail - 5_000_000_000) <= 20_000_000:  # near a tie: do R's arithmetic
        return _scientific_exact(r)
    s = f"{r:.14e}"
    mant, _, expo = s.partition("e")
    digits = mant.replace(".", "").rstrip("0")
    nsig = max(len(digits), 1)
    kpower = int(expo)
    rw = nsig == 1 and digits == "1" and _rounding_widens(r, kpower)
    return kpower, nsig, rw


def _drop0(s: str) -> str:
    """R's ``EncodeRealDrop0``: drop trailing zeros after the decimal point
    (and the point itself when nothing is left), in fixed or scientific text."""
    mant, e, expo = s.partition("e")
    if "." in mant:
        mant = mant.rstrip("0").rstrip(".")
    return mant + e + expo


def format_r(x: float) -> str:
    """``as.character(x)`` of R 4.2.2 for one double (what ``paste`` writes).

    >>> [format_r(v) for v in (1e5, 123456.0, 1e-4, 0.001, 13.0, -1.815, 0.5)]
    ['1e+05', '123456', '1e-04', '0.001', '13', '-1.815', '0.5']
    """
    x = float(x)
    if math.isnan(x):
        return "NaN"
    if math.isinf(x):
        return "Inf" if x > 0 else "-Inf"
    if x == 0.0:
        return "0"  # R drops the sign of zero
    neg = 1 if x < 0 else 0
    kpower, nsig, rw = _scientific(-x if neg else x)
    # formatReal() for a single finite value
    left = kpower + 1
    if rw:
        left -= 1
    sleft = neg + (1 if left <= 0 else left)
    rgt = nsig - left
    mxsl = 1 + neg if left < 0 else sleft
    rgt = max(rgt, 0)
    wf = mxsl + rgt + (rgt != 0)
    e = 2 if (left > 100 or left <= -99) else 1
    d = nsig - 1
    we = neg + (d > 0) + d + 4 + e
    if wf <= we:  # R_print.scipen == 0
        out = f"{x:{wf}.{rgt}f}"
    else:
        out = f"{x:{we}.{d}e}"
    return _drop0(out).lstrip(" ")


def format_r_array(values: Iterable[float] | np.ndarray) -> list[str]:
    """:func:`format_r` of every value (each formatted on its own, like ``paste``)."""
    arr = np.asarray(values, dtype=np.float64).ravel()
    if arr.size == 0:
        return []
    uniq, inv = np.unique(arr, return_inverse=True)
    texts = [format_r(v) for v in uniq.tolist()]
    return [texts[i] for i in inv.ravel().tolist()]


# ---------------------------------------------------------------------------
# parsing: R_strtod5(str, NULL, '.', FALSE, FALSE) as used by R's parser
# ---------------------------------------------------------------------------


def _ld_pow10_fac(n: int) -> Fraction:
    """``fac`` of R_strtod: 10**n by repeated squaring in long double."""
    p10 = Fraction(10)
    fac = Fraction(1)
    while n:
        if n & 1:
            fac = _round_bits(fac * p10)
        n >>= 1
        p10 = _round_bits(p10 * p10)
    return fac


def r_atof(text: str) -> float:
    """Parse a decimal numeric literal as R's parser does (``R_atof``).

    Handles ``[+-]digits[.digits][(e|E)[+-]digits]`` plus ``Inf``/``NaN``;
    anything else raises :class:`ValueError`.  The significand is accumulated
    and scaled in 80-bit extended precision and then rounded to double, which
    can differ from Python's correctly rounded :func:`float` by one ulp.
    """
    s = text.strip()
    sign = 1
    if s[:1] in "+-" and s:
        sign = -1 if s[0] == "-" else 1
        s = s[1:]
    low = s.lower()
    if low in ("inf", "infinity"):
        return sign * math.inf
    if low == "nan":
        return math.nan
    mant, sep, exp_part = s.replace("E", "e").partition("e")
    ipart, dot, fpart = mant.partition(".")
    digits = ipart + fpart
    if not digits or not digits.isdigit() or (sep and not exp_part):
        raise ValueError(f"not a numeric literal: {text!r}")
    expn = -len(fpart)
    if sep:
        es = exp_part
        esign = 1
        if es[:1] in "+-":
            esign = -1 if es[0] == "-" else 1
            es = es[1:]
        if not es.isdigit():
            raise ValueError(f"not a numeric literal: {text!r}")
        expn += esign * min(int(es), 9999)
    mant_int = int(digits)
    if mant_int == 0:
        return sign * 0.0
    if mant_int < _TWO64 and -_KP_MAX <= expn <= _KP_MAX:
        # common case: the digits accumulate exactly in long double and 10**|expn|
        # is exact, so R's value is ONE rounding to 64 bits, then one to 53 bits.
        if expn >= 0:
            m, e = _round_ratio(mant_int * 10**expn, 1, 64)
        else:
            m, e = _round_ratio(mant_int, 10**-expn, 64)
        m, e = _round_int(m, e, 53)
        return sign * math.ldexp(m, e)
    ans = Fraction(0)
    for ch in digits:
        ans = _round_bits(ans * 10 + int(ch))
    ndigits = len(digits)
    if expn + ndigits < -300 or expn < -307 or expn > 308:
        # extreme exponents: R's special branches; take the correctly rounded value
        return sign * float(f"{digits}e{expn}")
    if expn < 0:
        ans = _round_bits(ans / _ld_pow10_fac(-expn))
    elif expn > 0:
        ans = _round_bits(ans * _ld_pow10_fac(expn))
    if ans > _DBL_MAX:  # R: explicit overflow to infinity
        return sign * math.inf
    return sign * float(_round_bits(ans, 53))
