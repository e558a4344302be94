"""Optional dependencies: import them, or say which extra to install.

pybsnsing's core (numpy, pandas, numba) fits, predicts, prints and
saves. Everything else is an extra::

    pip install "pybsnsing[plot]"       # matplotlib: plot_tree, plot_roc, model.plot()
    pip install "pybsnsing[sklearn]"    # scikit-learn: BsnsingClassifier
    pip install "pybsnsing[progress]"   # tqdm: progress bars (bsnsing(progress=True), the CLI)
    pip install "pybsnsing[r]"          # rpy2: R's own rpart / R bsnsing from Python
    pip install "pybsnsing[mip]"        # highspy: opt_solver="highs"

:func:`require` imports a module and, when it is missing, raises
:class:`~pybsnsing.errors.PybsnsingImportError` (an ``ImportError``) that names
the feature and the command to run, never a bare ``ModuleNotFoundError``.
"""

from __future__ import annotations

import importlib
from types import ModuleType

from .errors import PybsnsingImportError

__all__ = ["EXTRAS", "available", "missing_extra", "require"]

#: extra name -> (module imported, pip distribution, what it gives)
EXTRAS: dict[str, tuple[str, str, str]] = {
    "plot": ("matplotlib", "matplotlib", "tree and ROC pictures"),
    "sklearn": ("sklearn", "scikit-learn", "the scikit-learn estimator BsnsingClassifier"),
    "progress": ("tqdm", "tqdm", "progress bars"),
    "r": ("rpy2", "rpy2", "R's own rpart and R bsnsing through rpy2"),
    "mip": ("highspy", "highspy", 'the MIP split solver (opt_solver="highs")'),
    "sat": ("pysat", "python-sat", "the SAT tree solvers (min_depth_tree, slim_improve)"),
    "dask": ("distributed", "dask[distributed,dataframe]",
             "trees on a Dask cluster (pybsnsing.dask)"),
}


def missing_extra(extra: str, feature: str | None = None,
                  cause: BaseException | None = None) -> PybsnsingImportError:
    """The error to raise when the extra ``extra`` is not installed."""
    module, dist, gives = EXTRAS[extra]
    what = feature or gives
    msg = (f"{what} needs {dist}, which is not installed: "
           f'pip install "pybsnsing[{extra}]"  (or: pip install {dist})')
    absent = isinstance(cause, ModuleNotFoundError) and (
        cause.name is None or cause.name == module or module.startswith(cause.name + "."))
    if cause is not None and not absent:
        # installed but broken (a dependency of its own missing, rpy2 that cannot find
        # R, ...): say why
        msg += f"; importing {module} failed: {type(cause).__name__}: {cause}"
    err = PybsnsingImportError(msg)
    err.name = module
    return err


def require(extra: str, feature: str | None = None, module: str | None = None) -> ModuleType:
    """Import the module of ``extra`` (or ``module``, a submodule of it).

    Raises:
        PybsnsingImportError: the module cannot be imported; the message says
            ``pip install "pybsnsing[<extra>]"``.
    """
    name = module or EXTRAS[extra][0]
    try:
        return importlib.import_module(name)
    except Exception as exc:  # ImportError, or e.g. rpy2 failing to start R
        raise missing_extra(extra, feature, exc) from exc


def available(extra: str) -> bool:
    """True when the extra's module imports."""
    try:
        importlib.import_module(EXTRAS[extra][0])
    except Exception:
        return False
    return True
