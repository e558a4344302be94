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
* :func:`r_strtod` (and :func:`r_strtoc`) is the same routine as ``type.convert``,
  hence ``read.csv``, calls it on a whole field: R's syntax (``1e``, ``Inf``,
  ``NaN``, R's own reading of hexadecimal numbers, white space) and R's value,
  bit for bit, in every branch of ``R_strtod5`` (huge and tiny exponents,
  denormals, overflow); see :func:`pybsnsing.read_csv`.

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

import functools
import math
import re
import struct
import warnings
from collections.abc import Callable, Iterable
from fractions import Fraction
from typing import Any

import numpy as np

from .errors import PybsnsingError, PybsnsingValueError
from .rnames import quote_string

__all__ = [
    "NA_REAL",
    "R_BLANK",
    "as_character",
    "as_character_column",
    "format_complex_r",
    "format_r",
    "format_r_array",
    "is_r_blank",
    "r_atof",
    "r_literal",
    "r_mean2",
    "r_median",
    "r_strtoc",
    "r_strtod",
]

#: R's ``R_print.digits`` inside ``as.character`` (``DBL_DIG``).
_DIGITS = 15
#: ``KP_MAX`` of format.c when R has a ``long double`` wider than double.
_KP_MAX = 27
#: ``tbl[k + 1]`` of format.c: the double literal ``1ek`` widened to long double.
_TBL = [Fraction(float(f"1e{k}")) for k in range(_KP_MAX + 1)]
_TEN14 = 10**14
_DBL_MAX = Fraction(1.7976931348623157e308)
#: Largest k for which the double literal 1ek is exactly 10**k.
_EXACT_TBL_MAX = 22
#: "no smallest quantum" for _round_q
_NO_QMIN = -(1 << 62)


def _round_q(num: int, den: int, bits: int, qmin: int) -> tuple[int, int]:
    """``num/den > 0`` rounded to ``bits`` significant bits, but to no finer quantum than
    ``2**qmin`` (denormals), ties to even: ``(m, q)`` with value ``m * 2**q``."""
    e = num.bit_length() - den.bit_length()
    if (num < (den << e)) if e >= 0 else ((num << -e) < den):
        e -= 1  # now 2**e <= num/den < 2**(e + 1)
    q = e - bits + 1
    if q < qmin:
        q = qmin
    if q >= 0:
        den <<= q
    else:
        num <<= -q
    m, r = divmod(num, den)
    r2 = r << 1
    if r2 > den or (r2 == den and m & 1):
        m += 1
    return m, q


def _round_bits(q: Fraction, bits: int = 64) -> Fraction:
    """Round ``q`` to ``bits`` significant bits, ties to even (x87 long double without
    its exponent limits; :func:`_ld` has them)."""
    if q == 0:
        return q
    neg = q < 0
    if neg:
        q = -q
    m, e = _round_q(q.numerator, q.denominator, bits, _NO_QMIN)
    out = Fraction(m << e) if e >= 0 else Fraction(m, 1 << -e)
    return -out if neg else out


def r_mean2(a: float, b: float) -> float:
    """R's ``mean(c(a, b))`` (``summary.c``): the sum in 80-bit long double, divided by
    2, then, when that is finite as a double, corrected by the mean of the long double
    residuals; rounded to double once. Unlike ``(a + b) / 2`` it does not overflow."""
    if not (math.isfinite(a) and math.isfinite(b)):
        return (a + b) / 2  # inf, -inf or nan, as in long double
    fa, fb = Fraction(a), Fraction(b)
    s = _round_bits(fa + fb) / 2
    if math.isfinite(_q_to_double(s)):  # R_FINITE((double) s)
        t = _round_bits(_round_bits(fa - s) + _round_bits(fb - s))
        s = _round_bits(s + t / 2)
    return _q_to_double(s)


def _q_to_double(q: Fraction) -> float:
    """``q`` rounded to double (ties to even), overflowing to +-inf."""
    try:
        return float(q)
    except OverflowError:
        return math.inf if q > 0 else -math.inf


def r_median(x: np.ndarray) -> float:
    """R's ``median(x)`` of the non-missing values ``x`` (a 1-d float array, infinite
    values allowed): the middle value, or R's mean of the two middle ones. NaN for no
    values (R: ``NA``)."""
    n = x.shape[0]
    if n == 0:
        return math.nan
    half = (n + 1) // 2
    if n % 2 == 1:
        return float(np.partition(x, half - 1)[half - 1])
    part = np.partition(x, (half - 1, half))
    return r_mean2(float(part[half - 1]), float(part[half]))


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
    # formatReal() for a single finite value (3 exponent digits when left <= -99)
    rgt, wf, d, we, _ = _value_format(x, True, -98)
    if wf <= we:  # R_print.scipen == 0
        out = f"{x:{wf}.{rgt}f}"
    else:
        out = f"{x:{we}.{d}e}"
    return _drop0(out).lstrip(" ")


def _value_format(v: float, signed: bool, wide_below: int) -> tuple[int, int, int, int, int]:
    """R's ``formatReal``/``formatComplex`` arithmetic for one finite value (or part, at
    ``R_print.digits`` 15): ``(rgt, wf, d, we, e)``, the digits after the point and the
    width in fixed notation, the mantissa digits and the width in scientific notation,
    and its exponent's width code (2: three digits, when the digits left of the point are
    over 100 or below ``wide_below``). ``signed``: a minus sign counts in the widths
    (an imaginary part's sign is written apart)."""
    neg = 1 if signed and v < 0 else 0
    kpower, nsig, rw = (0, 1, False) if v == 0.0 else _scientific(abs(v))
    left = kpower + 1 - (1 if rw else 0)
    sleft = neg + (1 if left <= 0 else left)
    rgt = max(nsig - left, 0)
    mxsl = 1 + neg if left < 0 else sleft
    wf = mxsl + rgt + (rgt != 0)
    e = 2 if (left > 100 or left < wide_below) else 1
    d = nsig - 1
    we = neg + (d > 0) + d + 4 + e
    return rgt, wf, d, we, e


#: :func:`format_r` memoised (a pure function of the value): the labels of factor-like
#: numeric columns and the values rules compare with are formatted again at every node
format_r_cached = functools.lru_cache(maxsize=1 << 16)(format_r)


def format_r_array(values: Iterable[float] | np.ndarray) -> list[str]:
    """:func:`format_r` of every value (each formatted on its own, like ``paste``)."""
    arr = np.asarray(values, dtype=np.float64).ravel()
    if arr.size == 0:
        return []
    uniq, inv = np.unique(arr, return_inverse=True)
    texts = [format_r_cached(v) for v in uniq.tolist()]
    return [texts[i] for i in inv.ravel().tolist()]


# ---------------------------------------------------------------------------
# complex numbers: R 4.2.2's as.character (formatComplex + EncodeComplex)
# ---------------------------------------------------------------------------

_M_LOG10_2 = 0.301029995663981195213738894724493027
_DBL_MAX_10_EXP = 308


def _r_pow_di(x: float, n: int) -> float:
    """R's ``R_pow_di``: ``x ** n`` by repeated squaring in doubles."""
    xn = 1.0
    if n != 0:
        neg = n < 0
        n = -n if neg else n
        while True:
            if n & 1:
                xn *= x
            n >>= 1
            if not n:
                break
            x *= x
        if neg:
            xn = 1.0 / xn
    return xn


def _fround(x: float, dig: int) -> float:
    """R 4.2.2's ``fround(x, dig)`` (nmath) for finite ``x`` and an integer ``dig``: the
    nearer of ``x`` rounded down and up at ``dig`` decimals, ties to an even last digit."""
    if x == 0.0 or dig > _DBL_MAX_10_EXP + _DIGITS:
        return x
    if dig < -_DBL_MAX_10_EXP:
        return 0.0
    if dig == 0:
        return float(round(x))  # nearbyint: ties to even
    sgn = 1.0
    if x < 0.0:
        sgn, x = -1.0, -x
    if _M_LOG10_2 * (0.5 + (math.frexp(x)[1] - 1)) + dig > _DIGITS:
        return sgn * x
    if dig <= _DBL_MAX_10_EXP:
        pow10 = _r_pow_di(10.0, dig)
        x10 = x * pow10
        i10 = math.floor(x10)
        xd = i10 / pow10
        xu = math.ceil(x10) / pow10
    else:
        p10 = _r_pow_di(10.0, dig - _DBL_MAX_10_EXP)
        pow10 = _r_pow_di(10.0, _DBL_MAX_10_EXP)
        x10 = (x * pow10) * p10
        i10 = math.floor(x10)
        xd = i10 / pow10 / p10
        xu = math.ceil(x10) / pow10 / p10
    du, dd = xu - x, x - xd
    return sgn * (xu if (du < dd or (math.fmod(i10, 2.0) == 1 and du == dd)) else xd)


def _signif_complex(re_: float, im: float) -> tuple[float, float]:
    """R's ``z_prec_r`` at 15 digits: both parts rounded at the decimal place of the
    larger finite one."""
    m = 0.0
    if math.isfinite(re_):
        m = abs(re_)
    if math.isfinite(im) and abs(im) > m:
        m = abs(im)
    if m == 0.0:
        return re_, im
    dig = _DIGITS - math.floor(math.log10(m)) - 1
    if dig > 306:
        return (_fround(1e4 * re_, dig - 4) / 1e4 if math.isfinite(re_) else re_,
                _fround(1e4 * im, dig - 4) / 1e4 if math.isfinite(im) else im)
    return (_fround(re_, dig) if math.isfinite(re_) else re_,
            _fround(im, dig) if math.isfinite(im) else im)


def _encode_part(x: float, w: int, d: int, e: int) -> str:
    """R's ``EncodeReal0`` (no trailing-zero dropping)."""
    if x == 0.0:
        x = 0.0
    if math.isnan(x):
        return f"{'NaN':>{w}}"
    if math.isinf(x):
        return f"{'Inf' if x > 0 else '-Inf':>{w}}"
    if e:
        return f"{x:#{w}.{d}e}" if d else f"{x:{w}.{d}e}"
    return f"{x:{w}.{d}f}"


def format_complex_r(z: complex) -> str:
    """``as.character(z)`` of R 4.2.2 for one complex number (``"0+3i"``, ``"1.5-2.25i"``).

    R formats the two parts together: both are rounded at the decimal place of the larger
    one (15 significant digits, so ``1e15+1i`` is ``"1e+15+0e+00i"``), and both are fixed
    or both scientific, whichever is narrower, unless one part is zero. NaN parts are
    written ``NaN`` (callers decide what counts as NA).

    >>> [format_complex_r(z) for z in (70 + 0j, 3j, 1.5 - 2.25j, 1 + 1e-10j)]
    ['70+0i', '0+3i', '1.5-2.25i', '1e+00+1e-10i']
    """
    xr, xi = float(z.real), float(z.imag)
    tr, ti = _signif_complex(xr, xi)
    all_re_zero = all_im_zero = True
    wr = dr = er = wi = di = ei = 0
    wf = i_wf = rt = i_rt = 0
    # (formatComplex counts 3 exponent digits when left < -99; formatReal when <= -99)
    if math.isfinite(tr):
        all_re_zero = xr == 0.0
        rt, wf, dr, wr, er = _value_format(tr, True, -99)
    if math.isfinite(ti):
        all_im_zero = xi == 0.0
        i_rt, i_wf, di, wi, ei = _value_format(ti, False, -99)
    # the fixed/scientific decision (R_print.scipen 0)
    if all_re_zero:
        er = dr = 0
        wr = wf
        if i_wf <= wi:
            ei, di, wi = 0, i_rt, i_wf
    elif all_im_zero:
        if wf <= wr:
            er, dr, wr = 0, rt, wf
        ei = di = 0
        wi = i_wf
    elif wf + i_wf < wr + wi:
        er, dr, wr = 0, rt, wf
        ei, di, wi = 0, i_rt, i_wf
    wr, wi = max(wr, 0), max(wi, 0)
    if math.isnan(tr) or tr == math.inf:
        wr = max(wr, 3)
    elif tr == -math.inf:
        wr = max(wr, 4)
    if not math.isfinite(ti):
        wi = max(wi, 3)
    re_text = _encode_part(tr if tr == 0.0 else xr, wr, dr, er)
    im_text = _encode_part(ti if ti == 0.0 else abs(xi), wi, di, ei)
    return f"{re_text}{'-' if xi < 0 else '+'}{im_text}i"


# ---------------------------------------------------------------------------
# as.character and R literals: the one place that writes values as R does
# ---------------------------------------------------------------------------


def as_character(value: Any, *, numbers_as_double: bool = False) -> str:
    """R's ``as.character`` of one value (what ``paste`` writes, and what R's ``==``
    compares a number with a string through).

    Strings are themselves, booleans ``TRUE``/``FALSE``, doubles go through
    :func:`format_r` (``1e+05``, ``0.1``, ``NaN``, ``Inf``), complex numbers through
    :func:`format_complex_r` (``0+3i``) and integers are written in full, as R writes an
    integer vector (``100000``).  ``numbers_as_double=True``
    writes integers as doubles too (``1e+05``): a Python number in a column that R
    sees as a double.  NumPy scalars count as the Python value they hold.

    >>> [as_character(v) for v in ("a", True, 1e5, 100000, 0.5, float("nan"))]
    ['a', 'TRUE', '1e+05', '100000', '0.5', 'NaN']
    """
    if isinstance(value, str):
        return value
    if isinstance(value, np.generic):
        value = value.item()
    if isinstance(value, bool):
        return "TRUE" if value else "FALSE"
    if isinstance(value, int):
        return format_r(float(value)) if numbers_as_double else str(value)
    if isinstance(value, float):
        return format_r(value)
    if isinstance(value, complex):
        return format_complex_r(value)
    return str(value)


def as_character_column(values: Any, *, numbers_as_double: bool = False) -> np.ndarray:
    """R's ``as.character`` of a column: an object array with ``None`` for ``NA``.

    A float column goes through :func:`format_r_array` (NaN counts as missing:
    pandas cannot tell ``NA_real_`` from ``NaN``), a categorical column writes its
    labels, any other column :func:`as_character` of each value. In a complex column
    a value with NaN in both parts is missing (what :func:`pybsnsing.read_csv` reads
    for ``NA``); a single NaN part is written, as R writes ``NaN+1i``.
    """
    import pandas as pd

    ser = values if isinstance(values, pd.Series) else pd.Series(values)
    out = np.empty(len(ser), dtype=object)
    out[:] = None
    if pd.api.types.is_complex_dtype(ser.dtype):  # NA: NaN in both parts (read_csv's)
        z = ser.to_numpy()
        mask = np.isnan(z.real) & np.isnan(z.imag)
    else:
        mask = ser.isna().to_numpy()
    if not mask.all():
        present = ser[~mask]
        if pd.api.types.is_float_dtype(present.dtype):
            conv = format_r_array(present.to_numpy(dtype=np.float64))
        elif isinstance(ser.dtype, pd.CategoricalDtype):
            conv = [as_character(v) for v in present.astype(object)]
        else:
            conv = [as_character(v, numbers_as_double=numbers_as_double) for v in present]
        out[~mask] = conv
    return out


def r_literal(value: Any) -> str:
    """One Python scalar or list as R code: ``"a"``, ``3``, ``0.5``, ``TRUE``, ``NULL``,
    ``NA`` (a NaN), ``Inf``, ``c(...)`` (``list(...)`` when an item is a list).

    Numbers are written so that R reads them back as the same value (``repr``
    without a trailing ``.0``: ``100000``, ``1e+16``); strings in double quotes
    with R's escapes.  Anything else is written with ``str``.
    """
    if isinstance(value, (list, tuple, set, frozenset)):
        items = list(value)
        if not items:
            return "c()"
        head = "list(" if any(isinstance(v, (list, tuple)) for v in items) else "c("
        return head + ", ".join(r_literal(v) for v in items) + ")"
    if value is None:
        return "NULL"
    if isinstance(value, np.generic):
        value = value.item()
    if isinstance(value, bool):
        return "TRUE" if value else "FALSE"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        if math.isnan(value):
            return "NA"
        if math.isinf(value):
            return "Inf" if value > 0 else "-Inf"
        text = repr(value)
        return text[:-2] if text.endswith(".0") else text
    if isinstance(value, str):
        return quote_string(value, '"')
    return str(value)


# ---------------------------------------------------------------------------
# parsing: R_strtod5 (src/main/util.c of R 4.2.2)
# ---------------------------------------------------------------------------
#
# R_strtod5(str, endptr, dec, NA, exact) is R's one decimal-to-double routine.
# R's parser calls it through R_atof (exact = FALSE); type.convert, hence
# read.csv, calls it with exact = FALSE as well under its default
# numerals = "allow.loss" (exact = NA for "warn.loss", TRUE for "no.loss").
# It accumulates the digits in x87 80-bit long double (ans = 10*ans + digit:
# two roundings per digit once ans passes 2**64), scales by a power of ten
# built by repeated squaring in long double and rounds the result to double
# -- no branch calls the C library's strtod.  The functions below redo that
# arithmetic exactly with integers / fractions (64-bit significand, the x87
# exponent range with denormals, overflow to infinity), so the results do not
# depend on the platform's long double; plain decimal strings whose digits
# stay below 2**64 take a short integer path.

#: x87 extended: 64-bit significand; smallest denormal 2**-16445; 2**16384 overflows.
_LD_BITS = 64
_LD_QMIN = -16445
_LD_EMAX = 16384
#: double: 53-bit significand; smallest denormal 2**-1074.
_DBL_QMIN = -1074
#: DBL_MAX = (2**53 - 1) * 2**971
_DBL_MAX_M = (1 << 53) - 1
#: ``MAX_EXPONENT_PREFIX`` of R_strtod5: an exponent's digits stop counting here.
_MAX_EXPONENT_PREFIX = 9999
#: C ``isspace`` (white space R_strtod skips before a number).
_C_SPACE = " \t\n\v\f\r"
#: ``iswspace`` of glibc in a UTF-8 locale: what ``isBlankString`` accepts after a
#: number (and as a blank field).  Found with R 4.2.2 in C.UTF-8 by trying every
#: code point after "1" in ``type.convert``.
R_BLANK = (
    " \t\n\v\f\r\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006"
    "\u2008\u2009\u200a\u2028\u2029\u205f\u3000"
)
_BLANK_SET = frozenset(R_BLANK)
_DIGITS_SET = frozenset("0123456789")
_HEX_VALUE = {c: int(c, 16) for c in "0123456789abcdefABCDEF"}
#: the value R_strtod5 gives a (backed out) non-number and "NA": NA_real_
NA_REAL: float = struct.unpack("<d", struct.pack("<Q", 0x7FF00000000007A2))[0]

_LD = Fraction | float  # a long double value; float only for inf and nan


def _ld(q: Fraction) -> _LD:
    """``q >= 0`` rounded to x87 extended precision (denormals; overflow to ``inf``)."""
    if q == 0:
        return Fraction(0)
    m, e = _round_q(q.numerator, q.denominator, _LD_BITS, _LD_QMIN)
    if m == 0:
        return Fraction(0)
    if m.bit_length() + e > _LD_EMAX:
        return math.inf
    return Fraction(m << e) if e >= 0 else Fraction(m, 1 << -e)


def _is_nan(a: _LD) -> bool:
    return isinstance(a, float) and math.isnan(a)


def _ld_mul(a: _LD, b: _LD) -> _LD:
    """``a * b`` in long double (``a, b >= 0``)."""
    if isinstance(a, float) or isinstance(b, float):
        if _is_nan(a) or _is_nan(b) or a == 0 or b == 0:
            return math.nan  # inf * 0
        return math.inf
    return _ld(a * b)


def _ld_div(a: _LD, b: _LD) -> _LD:
    """``a / b`` in long double (``a, b >= 0``)."""
    if isinstance(a, float) or isinstance(b, float):
        if _is_nan(a) or _is_nan(b) or (isinstance(a, float) and isinstance(b, float)):
            return math.nan  # inf / inf
        return Fraction(0) if isinstance(b, float) else math.inf
    if b == 0:
        return math.nan if a == 0 else math.inf
    return _ld(a / b)


def _ld_add(a: _LD, d: int) -> _LD:
    """``a + d`` in long double (``a >= 0``, ``d`` a digit value)."""
    return a if isinstance(a, float) else _ld(a + d)


def _ld_to_double(a: _LD) -> float:
    """``(double) a`` for ``a >= 0``: correctly rounded, denormals, overflow to ``inf``."""
    if isinstance(a, float):
        return a
    if a == 0:
        return 0.0
    m, e = _round_q(a.numerator, a.denominator, 53, _DBL_QMIN)
    if m.bit_length() + e > 1024:
        return math.inf
    return math.ldexp(m, e)


def _ld_pow10_steps(n: int, step: Callable[[_LD, _LD], _LD]) -> _LD:
    """R_strtod5's loop ``for (n = expn, p10 = 10.; n; n >>= 1, p10 *= p10) if (n & 1)
    fac = step(fac, p10)`` in long double."""
    p10: _LD = Fraction(10)
    fac: _LD = Fraction(1)
    while n:
        if n & 1:
            fac = step(fac, p10)
        n >>= 1
        p10 = _ld_mul(p10, p10)
    return fac


@functools.lru_cache(maxsize=2048)
def _ld_pow10_fac(n: int) -> _LD:
    """``fac`` of R_strtod5 for ``expn = +-n`` (``-307 <= expn``): ``10**n`` by repeated
    squaring in long double (``fac *= p10; p10 *= p10``; exact up to ``n = 27``)."""
    return _ld_pow10_steps(n, _ld_mul)


def _finite_pow10_fac(n: int) -> Fraction:
    """:func:`_ld_pow10_fac` for ``n <= 400``, where ``10**n`` is a finite long double."""
    fac = _ld_pow10_fac(n)
    if not isinstance(fac, Fraction):
        raise PybsnsingError(f"internal error: 10**{n} is not a finite long double")
    return fac


@functools.lru_cache(maxsize=512)
def _ld_pow10_inv_fac(n: int) -> _LD:
    """``fac`` of R_strtod5's underflow branch (``expn < -307``): ``fac /= p10``."""
    return _ld_pow10_steps(n, _ld_div)


def _ld_pow2_fac(n: int) -> _LD:
    """``fac`` of R_strtod5's hexadecimal branch: the squares ``p2`` are *doubles*
    (``2**1024`` overflows to ``inf``), multiplied into a long double ``fac``."""
    p2 = 2.0
    fac: _LD = Fraction(1)
    while n:
        if n & 1:
            fac = _ld_mul(fac, p2 if math.isinf(p2) else Fraction(p2))
        n >>= 1
        p2 = p2 * p2
    return fac


def _exp_digits(text: str) -> int:
    """The exponent value R_strtod5 reads from its digits (``MAX_EXPONENT_PREFIX``)."""
    n = 0
    for ch in text:
        if n < _MAX_EXPONENT_PREFIX:
            n = n * 10 + ord(ch) - 48
    return n


def _ld_then_double(num: int, den: int) -> float:
    """R's ``(double) ans`` after ``ans = num/den`` rounded once to long double, with
    R_strtod5's explicit overflow (``ans > DBL_MAX`` -> ``Inf``).  ``num/den`` must lie
    well inside the long double range (no long double denormal or overflow)."""
    m, e = _round_q(num, den, _LD_BITS, _LD_QMIN)
    nb = m.bit_length()
    top = nb - 1 + e  # 2**top <= ans < 2**(top + 1)
    if top >= 1023 and (top > 1023 or m > (_DBL_MAX_M << (nb - 53))):
        return math.inf
    drop = nb - 53 if top >= -1022 else _DBL_QMIN - e  # double denormals: coarser
    if drop > 0:  # round the long double significand to double, ties to even
        m2 = m >> drop
        r = m & ((1 << drop) - 1)
        half = 1 << (drop - 1)
        if r > half or (r == half and m2 & 1):
            m2 += 1
        return math.ldexp(m2, e + drop)
    return math.ldexp(m, e)


_POW10 = [10**k for k in range(28)]
_ACC_EXACT = 1 << 64


def _exceeds_2p53(digits: str) -> bool:
    """The accumulated digits exceed ``2**53 - 1`` (R_strtod5's ``exact`` test)."""
    sig = digits.lstrip("0")
    return len(sig) > 16 or (sig != "" and int(sig) > (1 << 53) - 1)


def _strtod_decimal(digits: str, expn: int) -> float:
    """R_strtod5's decimal branch, without the sign: every mantissa digit (leading and
    trailing zeros included, they count in ``ndigits``) and the decimal exponent
    (``expn`` = exponent read minus the number of digits after the point)."""
    sig = digits.lstrip("0")
    if not sig:
        return 0.0  # 0 times any scale factor (R: "allow big exponents on 0")
    if len(sig) > 20:  # beyond 2**64 (and beyond Python's int() digit limit)
        return _strtod_decimal_exact(digits, expn)
    mant = int(sig)
    if mant < _ACC_EXACT:
        # the digits accumulate exactly; expn + ndigits >= -300 always holds here
        if 0 <= expn <= 27:
            return _ld_then_double(mant * _POW10[expn], 1)
        if -27 <= expn < 0:
            return _ld_then_double(mant, _POW10[-expn])
        if -307 <= expn < 0 and expn + len(digits) >= -300:
            fac = _finite_pow10_fac(-expn)
            return _ld_then_double(mant * fac.denominator, fac.numerator)
        if 0 < expn <= 400:
            fac = _finite_pow10_fac(expn)
            return _ld_then_double(mant * fac.numerator, fac.denominator)
    return _strtod_decimal_exact(digits, expn)


def _strtod_decimal_exact(digits: str, expn: int) -> float:
    """:func:`_strtod_decimal` step by step in emulated long double: every branch."""
    ndigits = len(digits)
    acc, i = 0, 0
    while i < ndigits:  # exact while below 2**64
        nxt = acc * 10 + ord(digits[i]) - 48
        if nxt >= _ACC_EXACT:
            break
        acc, i = nxt, i + 1
    ans: _LD = Fraction(acc)
    ten = Fraction(10)
    for ch in digits[i:]:  # ans = 10*ans + digit: two roundings
        ans = _ld_add(_ld_mul(ans, ten), ord(ch) - 48)
    # avoid unnecessary underflow for large negative exponents
    if expn + ndigits < -300:
        for _ in range(ndigits):
            ans = _ld_div(ans, ten)
        expn += ndigits
    if expn < -307:  # use underflow, not overflow
        ans = _ld_mul(ans, _ld_pow10_inv_fac(-expn))
    elif expn < 0:
        ans = _ld_div(ans, _ld_pow10_fac(-expn))
    elif ans != 0:
        ans = _ld_mul(ans, _ld_pow10_fac(expn))
    if not isinstance(ans, float) and ans > _DBL_MAX:
        return math.inf  # explicit overflow to infinity
    return _ld_to_double(ans)


def _scan_exponent(s: str, p: int) -> tuple[int, int]:
    """The signed exponent whose sign or digits start at ``s[p]`` (after the ``e``/``p``),
    as R reads it (no digits: 0), and the index after its digits."""
    n = len(s)
    expsign = 1
    if p < n and s[p] in "+-":
        expsign = -1 if s[p] == "-" else 1
        p += 1
    q = p
    while p < n and s[p] in _DIGITS_SET:
        p += 1
    return expsign * _exp_digits(s[q:p]), p


def _backs_out(s: str, exact: bool | None, depth: int) -> bool:
    """R_strtod on a mantissa of more than 53 bits: with ``exact`` TRUE the number is not
    read (True); with NA_LOGICAL (None) R warns and reads it (the warning names the caller
    of :func:`_strtod_scan`, ``depth`` frames up from here)."""
    if exact is None:
        warnings.warn(f'accuracy loss in conversion from "{s}" to numeric',
                      stacklevel=depth + 1)
        return False
    return True


def _strtod_hex(s: str, p: int, start: int, dec: str,
                exact: bool | None) -> tuple[float, int]:
    """The hexadecimal branch of R_strtod: ``s[p:]`` follows the ``0x``; the value without
    its sign and the index after the number (``start`` when R backs out)."""
    n = len(s)
    exph = -1
    ans: _LD = Fraction(0)
    sixteen = Fraction(16)
    while p < n:
        c = s[p]
        if c in _HEX_VALUE:
            ans = _ld_add(_ld_mul(ans, sixteen), _HEX_VALUE[c])
        elif c == dec:
            exph = 0  # (a second point restarts the count, as in R)
            p += 1
            continue
        else:
            break
        if exph >= 0:
            exph += 4
        p += 1
    if exact is not False and ans > (1 << 53) - 1 and _backs_out(s, exact, 3):
        return NA_REAL, start
    if p < n and s[p] in "pP":
        expn, p = _scan_exponent(s, p + 1)
        if ans != 0:
            if exph > 0:
                if expn - exph < -122:
                    ans = _ld_div(ans, _ld_pow2_fac(exph))
                else:
                    expn -= exph
            if expn < 0:
                ans = _ld_div(ans, _ld_pow2_fac(-expn))
            else:
                ans = _ld_mul(ans, _ld_pow2_fac(expn))
    # no 'p': the digits after the point are NOT scaled (R's code only scales there)
    return _ld_to_double(ans), p


def _strtod_scan(
    s: str, start: int = 0, *, dec: str = ".", na: bool = False, exact: bool | None = False
) -> tuple[float, int]:
    """``R_strtod5(s + start, &end, dec, NA, exact)``, a line-by-line port: returns the
    value and the index just after the number (``start`` when nothing was read,
    i.e. R "backs out"; the value is then ``NA_real_``).  ``exact=None`` stands for
    ``NA_LOGICAL`` (warn, do not refuse)."""
    n = len(s)
    p = start
    while p < n and s[p] in _C_SPACE:
        p += 1
    if na and s.startswith("NA", p):
        return NA_REAL, p + 2
    sign = 1.0
    if p < n and s[p] in "+-":
        sign = -1.0 if s[p] == "-" else 1.0
        p += 1
    word = s[p : p + 8].lower()
    if word.startswith("nan"):
        return sign * math.nan, p + 3
    if word == "infinity":
        return sign * math.inf, p + 8
    if word.startswith("inf"):
        return sign * math.inf, p + 3

    if n - p > 2 and s[p] == "0" and s[p + 1] in "xX":  # hexadecimal
        value, p = _strtod_hex(s, p + 2, start, dec, exact)
        return (value if p == start else sign * value), p

    q = p
    while p < n and s[p] in _DIGITS_SET:
        p += 1
    digits = s[q:p]
    expn = 0
    if p < n and s[p] == dec:
        p += 1
        q = p
        while p < n and s[p] in _DIGITS_SET:
            p += 1
        digits += s[q:p]
        expn = q - p
    if not digits:
        return NA_REAL, start
    if exact is not False and _exceeds_2p53(digits) and _backs_out(s, exact, 2):
        return NA_REAL, start
    if p < n and s[p] in "eE":
        e, p = _scan_exponent(s, p + 1)
        expn += e
    return sign * _strtod_decimal(digits, expn), p


def is_r_blank(text: str) -> bool:
    """R's ``isBlankString`` in a UTF-8 locale: every character ``iswspace``."""
    return all(c in _BLANK_SET for c in text)


_BLANK_CLASS = "[" + R_BLANK.replace("\n", "\\n").replace("\t", "\\t") + "]"
#: A plain decimal field as type.convert reads it: C white space, sign, digits with
#: an optional point (at least one digit, checked by the caller), an exponent whose
#: digits may be missing ("1e", "1e+"), trailing iswspace white space.
_DECIMAL_RE = re.compile(
    r"[ \t\n\v\f\r]*([+-]?)([0-9]*)(?:\.([0-9]*))?(?:[eE]([+-]?)([0-9]*))?" + _BLANK_CLASS + "*"
)


def r_strtod(text: str, *, exact: bool | None = False, na: bool = False) -> float:
    """Convert a whole field to double exactly as R 4.2.2's ``type.convert`` does.

    That is ``R_strtod5(text, &end, '.', FALSE, exact)`` followed by the check that
    only white space follows the number (``isBlankString``).  Accepted: leading C
    white space, a sign, decimal numbers (``1``, ``1.``, ``.5``, ``1e5``, ``1e``,
    ``1e+``), ``NaN``, ``Inf`` and ``infinity`` (any case) and R's own reading of
    ``0x`` hexadecimal numbers.  Anything else raises :class:`ValueError`.

    The value is R's, bit for bit: the digits are accumulated and scaled in x87
    80-bit long double, then rounded to double (see the comment above
    :func:`_strtod_decimal`), which differs from Python's correctly rounded
    :func:`float` for some strings, e.g. ``"2.83596401280207"``.

    ``exact`` mirrors ``type.convert(numerals = )``: ``False`` (R's default
    ``"allow.loss"``), ``None`` (``"warn.loss"``: warn when the digits exceed
    ``2**53 - 1``) or ``True`` (``"no.loss"``: refuse such strings).  ``na=True``
    is R_strtod5's ``NA`` argument (type.convert's screening pass): ``"NA"`` then
    reads as :data:`NA_REAL` and every other text starting with ``NA`` (such as
    ``"NAN"``, a NaN otherwise) is refused.
    """
    if na:
        rest = text.lstrip(_C_SPACE)
        if rest.startswith("NA"):
            if is_r_blank(rest[2:]):
                return NA_REAL
            raise PybsnsingValueError(f"not a number for R's type.convert: {text!r}")
    m = _DECIMAL_RE.fullmatch(text)
    if m is not None:
        sign, ipart, fpart, esign, edigits = m.groups()
        fpart = fpart or ""
        digits = ipart + fpart
        if digits and (exact is False or not _exceeds_2p53(digits)):
            expn = -len(fpart)
            if edigits:
                expn += -_exp_digits(edigits) if esign == "-" else _exp_digits(edigits)
            v = _strtod_decimal(digits, expn)
            return -v if sign == "-" else v
    v, end = _strtod_scan(text, exact=exact)
    if end == 0 or not is_r_blank(text[end:]):
        raise PybsnsingValueError(f"not a number for R's type.convert: {text!r}")
    return v


def r_strtoc(text: str, *, na: bool = False) -> complex:
    """Convert a whole field to complex as R 4.2.2's ``type.convert`` does (``strtoc``
    of ``src/library/utils/src/io.c``): ``x``, ``xi``, ``x+yi`` or ``x-yi`` with
    :func:`r_strtod` numbers (``Inf``, ``NaN``, hexadecimal too), white space before
    each number and after the whole; ``ValueError`` otherwise (``"1 2"``, ``"1+2"``).
    """
    x, end = _strtod_scan(text, na=na)
    n = len(text)
    if is_r_blank(text[end:]):
        if end == 0:
            raise PybsnsingValueError(f"not a complex number for R's type.convert: {text!r}")
        return complex(x, 0.0)
    if text[end] == "i":
        if end == 0:
            raise PybsnsingValueError(f"not a complex number for R's type.convert: {text!r}")
        z, end = complex(0.0, x), end + 1
    else:
        y, end2 = _strtod_scan(text, end, na=na)
        if end2 >= n or text[end2] != "i":  # R backs out (endp = nptr)
            raise PybsnsingValueError(f"not a complex number for R's type.convert: {text!r}")
        z, end = complex(x, y), end2 + 1
    if not is_r_blank(text[end:]):
        raise PybsnsingValueError(f"not a complex number for R's type.convert: {text!r}")
    return z


def r_atof(text: str) -> float:
    """Parse a decimal numeric literal as R's parser does (``R_atof``).

    Handles ``[+-]digits[.digits][(e|E)[+-]digits]`` plus ``Inf``/``NaN``;
    anything else raises :class:`ValueError`.  The value is R_strtod5's (shared
    with :func:`r_strtod`): the significand is accumulated and scaled in 80-bit
    extended precision and then rounded to double, which can differ from Python's
    correctly rounded :func:`float` by one ulp.
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
    if not digits or not digits.isascii() or not digits.isdigit() or (sep and not exp_part):
        raise PybsnsingValueError(f"not a numeric literal: {text!r}")
    expn = -len(fpart)
    if sep:
        es = exp_part
        esign = 1
        if es[:1] in "+-":
            esign = -1 if es[0] == "-" else 1
            es = es[1:]
        if not es or not es.isascii() or not es.isdigit():
            raise PybsnsingValueError(f"not a numeric literal: {text!r}")
        expn += esign * _exp_digits(es)
    v = _strtod_decimal(digits, expn)
    return -v if sign < 0 else v
