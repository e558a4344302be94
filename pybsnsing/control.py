"""The control object: R's ``bscontrol()`` with its defaults, checks and names.

Every parameter of R bsnsing 1.0.1's ``bscontrol`` is here under its Python
(snake_case) name; R's dotted names are accepted as aliases, so
``bscontrol(**{"max.rules": 3})`` and ``bscontrol(max_rules=3)`` are the same.
An unknown name is an error. Out-of-range values are corrected with a warning,
as R does (but the warning states the value actually used).
"""

from __future__ import annotations

import dataclasses
import math
import warnings
from dataclasses import dataclass
from typing import Any, NamedTuple

import numpy as np

from .errors import ControlWarning, InvalidParameterError, PybsnsingError

__all__ = ["CONTROL_PARAMS", "R_NAMES", "BsControl", "ControlParam", "ControlWarning", "bscontrol",
           "control_default"]



_SOLVERS = ("enum_c", "enum", "enum_py", "highs", "greedy")
#: R's MIP solvers (R bsnsing's GitHub version): accepted, HiGHS is used with a warning
_R_MIP_SOLVERS = ("gurobi", "cplex", "lpSolve")
_EXTERNAL = (True, False, "rpart", "r")


class ControlParam(NamedTuple):
    """One control parameter: the one table that BsControl, R's ``bscontrol()`` (rbridge),
    the estimator, ``bslearn``/``binarize`` and the command line take their names,
    defaults and help from (tests compare each of them with it)."""

    #: Python (snake_case) name: the field of BsControl and the keyword everywhere
    name: str
    #: R bsnsing's name (the argument of ``bscontrol()``; dotted)
    r_name: str
    #: R bsnsing 1.0.1's default
    default: Any
    #: the accepted values and what happens to others (checked by ``BsControl``)
    constraint: str
    #: what it does (reST; the docstring of BsControl and ``pybsnsing fit --help``)
    help: str
    #: whether R bsnsing's ``bscontrol()`` has it (``keep_perfect_separation`` is pybsnsing's)
    in_r: bool = True


#: The control parameters in BsControl's field order.
CONTROL_PARAMS: tuple[ControlParam, ...] = (
    ControlParam("bin_size", "bin.size", 5, "whole number >= 1 (smaller: 1, with a warning)",
                 'a factor level with fewer rows at a node joins the "small\n'
                 '    levels" question (``x%in%c(...)``).'),
    ControlParam("nseg_numeric", "nseg.numeric", 20,
                 "whole number >= 3 (smaller: 3, with a warning)",
                 "most inequality cuts kept per direction per numeric variable."),
    ControlParam("nseg_factor", "nseg.factor", 20,
                 "whole number >= 3 (smaller: 3, with a warning)",
                 "a factor with more distinct values at a node is an error."),
    ControlParam("num2factor", "num2factor", 10,
                 "whole number <= 2 * nseg_numeric (larger: 2 * nseg_numeric, with a warning)",
                 "a numeric column with at most this many distinct values at a\n"
                 "    node also gets equality questions."),
    ControlParam("node_size", "node.size", 0, "whole number >= 0 (smaller: 0, with a warning)",
                 "minimum rows on each side of a split; 0 means\n"
                 "    ``floor(sqrt(n_train))``, fixed once for the whole tree."),
    ControlParam("stop_prob", "stop.prob", 0.9999,
                 "number in [0, 1] (outside: 0.9, with a warning)",
                 "a child whose majority share is at least this is a leaf."),
    ControlParam("opt_model", "opt.model", "gini", "'gini' or 'error'",
                 '``"gini"`` (maximise the Gini reduction) or ``"error"``\n'
                 "    (minimise ``n1*FP + n0*FN``, paper's OPT-E). Used by ``\"highs\"`` and\n"
                 '    ``"greedy"``; the ENUM solvers ignore it, as R 1.0.1 does.'),
    ControlParam("opt_solver", "opt.solver", "enum_c",
                 "one of 'enum_c', 'enum', 'enum_py', 'highs', 'greedy' ('gurobi', 'cplex', "
                 "'lpSolve': 'highs', with a warning)",
                 '``"enum_c"`` (numba kernel, default), ``"enum"`` (same\n'
                 "    kernel, R's interpreted name), ``\"enum_py\"`` (NumPy reference),\n"
                 '    ``"highs"`` (the split as a MIP solved by HiGHS; needs\n'
                 '    ``pip install "pybsnsing[mip]"``) or ``"greedy"`` (R\'s greedy\n'
                 "    solver); see :mod:`pybsnsing.mip`. R's ``\"gurobi\"``, ``\"cplex\"``\n"
                 '    and ``"lpSolve"`` are accepted with a warning and HiGHS is used.'),
    ControlParam("solver_timelimit", "solver.timelimit", 180.0, "number > 0",
                 "seconds for one split search: CPU seconds checked after\n"
                 "    each level for ENUM, HiGHS's (wall-clock) time limit for ``\"highs\"``."),
    ControlParam("max_rules", "max.rules", 2, "whole number from 1 to 10",
                 "most questions OR-ed in one split rule (1 to 10)."),
    ControlParam("import_external", "import.external", True, "True, False, 'rpart' or 'r'",
                 "add rpart's split points as questions: ``True`` or\n"
                 '    ``"rpart"`` (native implementation), ``"r"`` (R\'s rpart via rpy2) or '
                 "``False``."),
    ControlParam("suppress_internal", "suppress.internal", False, "True or False",
                 "use only the external questions."),
    ControlParam("no_same_gender_children", "no.same.gender.children", False, "True or False",
                 "only accept splits whose children have\n"
                 "    different majority classes."),
    ControlParam("greedy_level", "greedy.level", 0.9,
                 "number in [0, 1] (outside: 0.9, with a warning)",
                 "in [0, 1]; the greedy solver adds a question only while the\n"
                 "    objective falls below ``greedy_level`` times the current one."),
    ControlParam("n0n1_cap", "n0n1.cap", 40000,
                 "whole number; below 1 a warning, and the value is kept (as R bsnsing does)",
                 "kept for R compatibility; unused by the tree (R's cap on the pair\n"
                 "    variables of its MIP; ``pybsnsing.mip.mip_search(formulation=\"theta\")``)."),
    ControlParam("verbose", "verbose", False, "True or False",
                 "print a trace while growing."),
    ControlParam("keep_perfect_separation", "keep.perfect.separation", False, "True or False",
                 "fix R's quirk that drops a numeric variable\n"
                 "    which separates the classes perfectly at a node. ``False``\n"
                 "    (default) mirrors R; ``True`` keeps its rule as a question.", in_r=False),
)
_PARAMS = {p.name: p for p in CONTROL_PARAMS}
#: Python names -> R's names, for every parameter (R's dotted spelling)
R_NAMES: dict[str, str] = {p.name: p.r_name for p in CONTROL_PARAMS}


def control_default(name: str) -> Any:
    """R bsnsing's default of one control parameter (Python name)."""
    return _PARAMS[name].default


def _attributes_doc() -> str:
    lines = []
    for p in CONTROL_PARAMS:
        text = p.help.replace("\n    ", "\n            ")
        lines.append(f"        {p.name}: {text}")
    return "\n".join(lines)


@dataclass
class BsControl:
    """Control parameters of a bsnsing fit (R's ``bscontrol``).

    The fields with R's names, defaults, accepted values and help are
    :data:`CONTROL_PARAMS` (its help texts are the ``Attributes`` below).
    """

    bin_size: int = control_default("bin_size")
    nseg_numeric: int = control_default("nseg_numeric")
    nseg_factor: int = control_default("nseg_factor")
    num2factor: int = control_default("num2factor")
    node_size: int = control_default("node_size")
    stop_prob: float = control_default("stop_prob")
    opt_model: str = control_default("opt_model")
    opt_solver: str = control_default("opt_solver")
    solver_timelimit: float = control_default("solver_timelimit")
    max_rules: int = control_default("max_rules")
    import_external: bool | str = control_default("import_external")
    suppress_internal: bool = control_default("suppress_internal")
    no_same_gender_children: bool = control_default("no_same_gender_children")
    greedy_level: float = control_default("greedy_level")
    n0n1_cap: int = control_default("n0n1_cap")
    verbose: bool = control_default("verbose")
    keep_perfect_separation: bool = control_default("keep_perfect_separation")

    def __post_init__(self) -> None:
        _normalise_values(self)
        if isinstance(self.import_external, (int, float)) and not isinstance(
                self.import_external, bool):  # 0.0 would pass as False, yet mean "rpart"
            raise InvalidParameterError("import_external must be True, False, 'rpart' or "
                                        f"'r', got {self.import_external!r}.")
        try:
            self._validate()
        except PybsnsingError:
            raise
        except (TypeError, ValueError) as exc:  # every check names its parameter
            raise InvalidParameterError(str(exc)) from None

    def _validate(self) -> None:
        def warn(msg: str) -> None:
            warnings.warn(msg, ControlWarning, stacklevel=4)

        self.bin_size = _as_int("bin_size", self.bin_size)
        self.nseg_numeric = _as_int("nseg_numeric", self.nseg_numeric)
        self.nseg_factor = _as_int("nseg_factor", self.nseg_factor)
        self.num2factor = _as_int("num2factor", self.num2factor)
        self.node_size = _as_int("node_size", self.node_size)
        self.max_rules = _as_int("max_rules", self.max_rules)
        self.n0n1_cap = _as_int("n0n1_cap", self.n0n1_cap)
        self.stop_prob = _as_float("stop_prob", self.stop_prob)
        self.solver_timelimit = _as_float("solver_timelimit", self.solver_timelimit)
        self.greedy_level = _as_float("greedy_level", self.greedy_level)
        for name in ("suppress_internal", "no_same_gender_children", "verbose",
                     "keep_perfect_separation"):
            setattr(self, name, _as_bool(name, getattr(self, name)))

        if self.bin_size < 1:
            warn(f"bin_size must be >= 1; 1 was used instead of {self.bin_size}.")
            self.bin_size = 1
        if self.nseg_numeric < 3:
            warn(f"nseg_numeric must be >= 3; 3 was used instead of {self.nseg_numeric}.")
            self.nseg_numeric = 3
        if self.nseg_factor < 3:
            warn(f"nseg_factor must be >= 3; 3 was used instead of {self.nseg_factor}.")
            self.nseg_factor = 3
        if self.num2factor > 2 * self.nseg_numeric:
            warn(
                f"num2factor must be <= 2*nseg_numeric; {2 * self.nseg_numeric} was used "
                f"instead of {self.num2factor}."
            )
            self.num2factor = 2 * self.nseg_numeric
        if not 0.0 <= self.stop_prob <= 1.0:
            warn(f"stop_prob must be in [0, 1]; 0.9 was used instead of {self.stop_prob}.")
            self.stop_prob = 0.9
        if self.node_size < 0:
            warn(f"node_size must be >= 0; 0 was used instead of {self.node_size}.")
            self.node_size = 0
        if not 1 <= self.max_rules <= 10:
            raise ValueError(f"max_rules must be an integer from 1 to 10, got {self.max_rules}.")
        if self.solver_timelimit <= 0:
            raise ValueError(f"solver_timelimit must be positive, got {self.solver_timelimit}.")
        if self.opt_solver in _R_MIP_SOLVERS:
            warn(f"opt_solver {self.opt_solver!r} is not available in pybsnsing; 'highs' "
                 "(the HiGHS MIP solver) is used instead.")
            self.opt_solver = "highs"
        if not 0.0 <= self.greedy_level <= 1.0:
            warn(f"greedy_level must be in [0, 1]; 0.9 was used instead of {self.greedy_level}.")
            self.greedy_level = 0.9
        if self.n0n1_cap < 1:  # R bsnsing 1.0.1 warns ("set to 1") but keeps the value
            warn(f"n0n1_cap must be >= 1; {self.n0n1_cap} was kept, as R bsnsing does "
                 "(the tree does not use it).")
        if self.opt_solver not in _SOLVERS:
            raise ValueError(f"opt_solver must be one of {_SOLVERS}, got {self.opt_solver!r}.")
        if self.opt_model not in ("gini", "error"):
            raise ValueError(f"opt_model must be 'gini' or 'error', got {self.opt_model!r}.")
        ext = self.import_external
        if isinstance(ext, str):
            ext = ext.lower()
        if ext not in _EXTERNAL or isinstance(ext, int) and not isinstance(ext, bool):
            raise ValueError(
                "import_external must be True, False, 'rpart' or 'r', "
                f"got {self.import_external!r}."
            )
        self.import_external = ext

    @property
    def external_method(self) -> str | None:
        """``"rpart"`` (native), ``"r"`` (R through rpy2) or ``None`` (no external rules)."""
        if self.import_external is False:
            return None
        return "r" if self.import_external == "r" else "rpart"

    def to_r_dict(self) -> dict[str, Any]:
        """The parameters under R's dotted names, as R's ``bscontrol()`` list."""
        out: dict[str, Any] = {}
        for p in CONTROL_PARAMS:
            if not p.in_r:
                continue
            value = getattr(self, p.name)
            if p.name == "import_external":
                value = value is not False
            out[p.r_name] = value
        return out

    def replace(self, **kwargs: Any) -> BsControl:
        """A copy with some parameters changed (R or Python names)."""
        current = {f.name: getattr(self, f.name) for f in dataclasses.fields(self)
                   if not f.name.startswith("_")}
        current.update(_normalise_names(kwargs))
        return BsControl(**current)


if BsControl.__doc__ is not None:  # (python -OO drops docstrings)
    BsControl.__doc__ += "\n    Attributes:\n" + _attributes_doc() + "\n"

#: R's names -> Python names, for the parameters of R's bscontrol()
_FROM_R = {p.r_name: p.name for p in CONTROL_PARAMS if p.in_r}
_FIELDS = {f.name for f in dataclasses.fields(BsControl) if not f.name.startswith("_")}
_ALL_FIELDS = tuple(f.name for f in dataclasses.fields(BsControl))
_PLAIN = (bool, int, float, str)


def _normalise_names(kwargs: dict[str, Any]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for key, value in kwargs.items():
        name = _FROM_R.get(key, key)
        if name not in _FIELDS:
            raise InvalidParameterError(
                f"unknown control parameter {key!r}; valid names are: "
                + ", ".join(sorted(_FIELDS))
            )
        if name in out:
            raise InvalidParameterError(f"control parameter {name!r} given twice")
        out[name] = value
    return out


def bscontrol(**kwargs: Any) -> BsControl:
    """Build a :class:`BsControl` (R's ``bscontrol``) from Python or R names.

    >>> bscontrol(max_rules=3).max_rules
    3
    >>> bscontrol(**{"import.external": False}).import_external
    False
    """
    return BsControl(**_normalise_names(kwargs))


def control_from_dict(d: dict[str, Any]) -> BsControl:
    """The control of a saved model (R's names, as ``to_r_dict`` writes them, plus
    ``keep.perfect.separation``)."""
    d = dict(d)
    keep = bool(d.pop("keep.perfect.separation", False))
    return bscontrol(**d, keep_perfect_separation=keep)


def resolve_control(control: BsControl | dict[str, Any] | None, **kwargs: Any) -> BsControl:
    """Merge a control object (or dict) with keyword overrides into one BsControl."""
    if control is None:
        return BsControl(**_normalise_names(kwargs))  # (one construction: one validation)
    if isinstance(control, BsControl):
        base = control
    elif isinstance(control, dict):
        base = bscontrol(**control)
    else:
        raise InvalidParameterError(
            f"control must be a BsControl, a dict or None, not {type(control).__name__}")
    return base.replace(**kwargs) if kwargs else base


#: the largest whole number a control takes (R's .Machine$integer.max)
_INT_MAX = 2**31 - 1


def _normalise_values(control: BsControl) -> None:
    """numpy scalars (``np.True_``, ``np.int64(3)``) and 0-d arrays -> Python values,
    so that a control saves to JSON and compares as the plain values would."""
    for name in _ALL_FIELDS:
        value = getattr(control, name)
        if type(value) in _PLAIN:  # (the common case, first)
            continue
        if isinstance(value, np.ndarray) and value.ndim == 0 or isinstance(value, np.generic):
            setattr(control, name, value.item())
        elif not isinstance(value, _PLAIN):
            raise InvalidParameterError(
                f"{name} must be a single number, string or True/False, got "
                f"{type(value).__name__} {_short_repr(value)}")


def _short_repr(value: Any) -> str:
    try:
        text = repr(value)
    except Exception:  # noqa: BLE001 - a repr that fails says nothing useful
        return "?"
    return text if len(text) <= 60 else text[:57] + "..."


def _as_int(name: str, value: Any) -> int:
    if isinstance(value, (bool, np.bool_)) or not _is_number(value):
        raise InvalidParameterError(f"{name} must be a whole number, got {value!r}")
    v = float(value)
    if not math.isfinite(v) or abs(v) > _INT_MAX or v != int(v):
        raise InvalidParameterError(
            f"{name} must be a whole number from {-_INT_MAX} to {_INT_MAX}, got {value!r}")
    return int(v)


def _as_float(name: str, value: Any) -> float:
    if isinstance(value, (bool, np.bool_)) or not _is_number(value):
        raise InvalidParameterError(f"{name} must be a number, got {value!r}")
    v = float(value)
    if v != v:
        raise InvalidParameterError(f"{name} must not be NaN")
    return v


def _as_bool(name: str, value: Any) -> bool:
    if isinstance(value, (bool, np.bool_)):
        return bool(value)
    if _is_number(value) and float(value) in (0.0, 1.0):
        return bool(float(value))
    raise InvalidParameterError(f"{name} must be True or False, got {value!r}")


def _is_number(value: Any) -> bool:
    if isinstance(value, (str, bytes)) or isinstance(value, np.ndarray) and value.ndim:
        return False
    try:
        float(value)
    except (TypeError, ValueError, OverflowError):
        return False
    return True
