"""Where vignettes write their figures: $PYBSNSING_VIGNETTE_OUT or vignettes/figures."""

from __future__ import annotations

import os
from pathlib import Path


def out_dir() -> Path:
    path = Path(os.environ.get("PYBSNSING_VIGNETTE_OUT", Path(__file__).parent / "figures"))
    path.mkdir(parents=True, exist_ok=True)
    return path
