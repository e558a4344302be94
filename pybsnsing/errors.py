"""pybsnsing's error family: every error the package raises on purpose.

All of them derive from :class:`PybsnsingError`, so ``except PybsnsingError``
catches any problem pybsnsing reports about its input. Each one is ALSO the
built-in exception callers expect for that kind of problem (as scikit-learn's
``InvalidParameterError`` is both a ``ValueError`` and a ``TypeError``), so
code written against ``ValueError``, ``TypeError``, ``KeyError`` or
``ImportError`` keeps working:

=============================  ==========================  ==============================
class                          also a                      raised for
=============================  ==========================  ==============================
:class:`PybsnsingValueError`   ``ValueError``              bad values (data, options)
:class:`PybsnsingTypeError`    ``TypeError``               wrong types
:class:`PybsnsingKeyError`     ``KeyError``                a column or name not found
:class:`PybsnsingImportError`  ``ImportError``             an optional dependency missing
:class:`InvalidParameterError` ``ValueError``, ``TypeError``  a bad control parameter
:class:`FormulaError`          ``ValueError``              a formula that cannot be used
:class:`DataError`             ``ValueError``, ``TypeError``  data that cannot be used
:class:`ModelFileError`        ``ValueError``              a corrupt or foreign model file
=============================  ==========================  ==============================

Messages name the problem (the column, the parameter, the formula term, the
file) and, where there is one, the way out.

The warnings live here too: every one derives from :class:`PybsnsingWarning`
(:class:`ControlWarning`, :class:`DesignWarning`, :class:`ExternalWarning`,
:class:`MissingValuesWarning`, :class:`DPDTLimitWarning`, also a ``RuntimeWarning``).
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator

#: the names of the error classes (``pybsnsing`` exports them all)
ERROR_CLASSES = (
    "DataError",
    "FormulaError",
    "InvalidParameterError",
    "ModelFileError",
    "PybsnsingError",
    "PybsnsingImportError",
    "PybsnsingKeyError",
    "PybsnsingTypeError",
    "PybsnsingValueError",
)
#: the names of the warning classes
WARNING_CLASSES = (
    "ControlWarning",
    "DPDTLimitWarning",
    "DesignWarning",
    "ExternalWarning",
    "MissingValuesWarning",
    "PybsnsingWarning",
)
__all__ = [*ERROR_CLASSES, *WARNING_CLASSES, "input_errors"]


class PybsnsingError(Exception):
    """Base class of every error pybsnsing raises about its input."""


class PybsnsingValueError(PybsnsingError, ValueError):
    """A value pybsnsing cannot use (also a ``ValueError``)."""


class PybsnsingTypeError(PybsnsingError, TypeError):
    """An argument of the wrong type (also a ``TypeError``)."""


class PybsnsingKeyError(PybsnsingError, KeyError):
    """A column or name that is not there (also a ``KeyError``).

    Unlike a bare ``KeyError``, ``str()`` gives the message itself, not its repr.
    """

    def __str__(self) -> str:
        return str(self.args[0]) if len(self.args) == 1 else super().__str__()


class PybsnsingImportError(PybsnsingError, ImportError):
    """An optional dependency is not installed (also an ``ImportError``)."""


class InvalidParameterError(PybsnsingValueError, PybsnsingTypeError):
    """A control parameter of the wrong type or out of range (a ``ValueError``
    and a ``TypeError``, as scikit-learn's ``InvalidParameterError``)."""


class FormulaError(PybsnsingValueError):
    """A formula pybsnsing cannot parse or does not support. Formulas are read
    as data (names and a fixed list of operators and functions), never run."""


class DataError(PybsnsingValueError, PybsnsingTypeError):
    """Data that cannot be used as given: duplicate, non-string or MultiIndex
    column names, unsupported column types (a ``ValueError`` and a ``TypeError``)."""


class ModelFileError(PybsnsingValueError):
    """A file or dictionary that is not a valid pybsnsing model. The message
    starts with ``not a valid pybsnsing model file:`` and gives the reason."""

    def __init__(self, reason: str) -> None:
        super().__init__(f"not a valid pybsnsing model file: {reason}")
        self.reason = reason


class PybsnsingWarning(UserWarning):
    """Base class of every warning pybsnsing issues (``warnings.simplefilter("ignore",
    PybsnsingWarning)`` silences them all)."""


class ControlWarning(PybsnsingWarning):
    """A control value was out of range and has been replaced."""


class DesignWarning(PybsnsingWarning):
    """Something about the design matrix the user should know."""


class ExternalWarning(PybsnsingWarning):
    """Something about the external (rpart) questions the user should know."""


class MissingValuesWarning(PybsnsingWarning):
    """Rows to predict have missing values (their questions are FALSE, as in R bsnsing)."""


class DPDTLimitWarning(PybsnsingWarning, RuntimeWarning):
    """The MDP outgrew a limit; the remaining states were expanded greedily."""


@contextlib.contextmanager
def input_errors() -> Iterator[None]:
    """scikit-learn's (and numpy's) input errors as pybsnsing's :class:`DataError`,
    worded for the user (the message of a check of scikit-learn is kept)."""
    try:
        yield
    except PybsnsingError:
        raise
    except (ValueError, TypeError) as exc:
        msg = str(exc)
        if any(t in msg for t in ("could not convert", "float() argument", "NAType",
                                  "cannot convert")):
            msg = ("X given as an array must hold numbers only (each argument must be a "
                   "string or a number convertible to float; found text, an object or pd.NA); "
                   "pass a pandas DataFrame to use string, categorical or nullable columns")
        elif "not supported between instances" in msg:
            msg = ("y mixes class labels of different types (e.g. numbers and strings); "
                   "give the classes as one type")
        raise DataError(msg) from exc
