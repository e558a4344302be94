"""R's polynomial contrasts (``contr.poly``) for ordered factors.

R's ``model.matrix`` codes an ordered factor with k levels by the k - 1
columns of ``contr.poly(k)``: the orthonormal polynomials of degree 1 .. k-1
in the scores 1..k, named ``.L``, ``.Q``, ``.C``, ``^4``, ``^5``, ... after
the variable. R computes them with a LINPACK QR decomposition, so they carry
rounding residues (``contr.poly(4)[, ".C"]`` is not exactly antisymmetric, and
``contr.poly(3)[2, ".L"]`` is ``-8e-17``, not 0); bsnsing's rule texts print
cut points between such values (``o.C > 4.16333634234434e-17``). To grow the
same trees, the values for k = 2, 3, 4 (the ordered factors R bsnsing 1.0.1
accepts: from 5 levels on the column name ``o^4`` is an "invalid name" there)
are R 4.2.2's doubles, bit for bit (checked against R in
``tests/test_design.py``). For k >= 5 the same polynomials are computed with
NumPy's QR decomposition; they agree with R's to about 1e-15.
"""

from __future__ import annotations

from functools import cache

import numpy as np

from .errors import PybsnsingValueError

__all__ = ["contr_poly"]

# contr.poly(k) of R 4.2.2, column by column (as.vector), as C99 hex doubles.
_R_CONTR_POLY: dict[int, list[str]] = {
    2: ["-0x1.6a09e667f3bccp-1", "0x1.6a09e667f3bcdp-1"],
    3: ["-0x1.6a09e667f3bcdp-1", "-0x1.6a09e667f3bcdp-54", "0x1.6a09e667f3bccp-1",
        "0x1.a20bd700c2c3fp-2", "-0x1.a20bd700c2c3ep-1", "0x1.a20bd700c2c3fp-2"],
    4: ["-0x1.5775c544ff263p-1", "-0x1.c9f25c5bfedd9p-3", "0x1.c9f25c5bfedd9p-3",
        "0x1.5775c544ff263p-1", "0x1p-1", "-0x1p-1", "-0x1p-1", "0x1p-1",
        "-0x1.c9f25c5bfedd7p-3", "0x1.5775c544ff262p-1", "-0x1.5775c544ff263p-1",
        "0x1.c9f25c5bfeddap-3"],
}


def contr_poly_suffixes(k: int) -> list[str]:
    """R's column names of ``contr.poly(k)``: ``.L .Q .C ^4 ^5 ...``."""
    return [".L", ".Q", ".C"][: k - 1] + [f"^{d}" for d in range(4, k)]


@cache
def _contr_poly(k: int) -> np.ndarray:
    if k in _R_CONTR_POLY:
        vals = [float.fromhex(h) for h in _R_CONTR_POLY[k]]
        return np.array(vals, dtype=np.float64).reshape(k - 1, k).T.copy()
    # R's make.poly: QR of the centred Vandermonde matrix, columns Q * diag(R)
    # scaled to unit length (the orthonormal polynomials, first coefficient > 0).
    scores = np.arange(1, k + 1, dtype=np.float64)
    X = np.vander(scores - scores.mean(), k, increasing=True)
    Q, R = np.linalg.qr(X)
    Z = Q * np.sign(np.diag(R))
    return np.ascontiguousarray(Z[:, 1:])


def contr_poly(k: int) -> tuple[np.ndarray, list[str]]:
    """``contr.poly(k)`` as a k x (k-1) array (read-only) and its column suffixes."""
    if k < 2:
        raise PybsnsingValueError(f"contrasts need at least two levels, got {k}")
    out = _contr_poly(k)
    out.flags.writeable = False
    return out, contr_poly_suffixes(k)
