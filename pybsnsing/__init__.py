"""pybsnsing: classification trees by recursive optimal boolean rule composition.

The public names:

* :func:`bsnsing` — fit a tree from a formula and a DataFrame (R's ``bsnsing``);
* :func:`bscontrol` / :class:`BsControl` — the control parameters;
* :func:`binarize`, :func:`binarize_numeric`, :func:`bslearn` — R's building blocks;
* :class:`BsnsingModel`, :class:`MBsnsingModel` — fitted models.
"""

from .api import bsnsing
from .control import BsControl, bscontrol
from .model import BsnsingModel, MBsnsingModel
from .questions import binarize, binarize_numeric
from .search import bslearn

__version__ = "0.1.0"

__all__ = [
    "BsControl",
    "BsnsingModel",
    "MBsnsingModel",
    "binarize",
    "binarize_numeric",
    "bscontrol",
    "bslearn",
    "bsnsing",
]
