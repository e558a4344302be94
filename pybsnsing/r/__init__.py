"""Optional bridge to R (through rpy2) for users who want R's exact code paths.

Importing this package does not import rpy2 or start R; the submodules do so
lazily when one of their functions is called. Needs R with the rpart package
and ``rpy2>=3.5,<3.6`` (rpy2 3.6 does not build against R 4.2). If rpy2
cannot find R, set ``R_HOME`` (Debian/Ubuntu: ``export R_HOME=/usr/lib/R``,
or ``R_HOME=$(R RHOME)``).
"""

from __future__ import annotations

from typing import Any

__all__ = ["r_available"]


def __getattr__(name: str) -> Any:
    if name == "r_available":
        from .rpart import r_available

        return r_available
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
