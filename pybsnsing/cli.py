"""The ``pybsnsing`` command line: fit, predict, demo, warmup.

Examples::

    pybsnsing demo                                   # fit BreastCancer, print, draw
    pybsnsing fit data.csv --formula "Class ~ ." --max-rules 3 --plot tree.png --save model.json
    pybsnsing predict model.json new.csv --type class --id patient --output predictions.csv
    pybsnsing warmup                                 # compile the numba kernels ahead
    pybsnsing --version

Every error is one line on standard error (``pybsnsing <command>: error: ...``)
with exit status 2, never a traceback (``PYBSNSING_DEBUG=1`` shows it); a
closed output pipe (``pybsnsing predict ... | head``) ends the command quietly.
Warnings are one line each (``pybsnsing: warning: ...``).
"""

from __future__ import annotations

import argparse
import dataclasses
import os
import re
import sys
import time
import warnings
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from .control import CONTROL_PARAMS, R_NAMES, BsControl

__all__ = ["build_parser", "main", "read_table"]

_BOOL_FIELDS = ("suppress_internal", "no_same_gender_children", "verbose",
                "keep_perfect_separation")
#: handled by their own option (--external) or not offered (no effect on a fit)
_SKIP_FIELDS = ("import_external",) + _BOOL_FIELDS
_METAVAR = {int: "N", float: "X", str: "NAME"}


class CliError(Exception):
    """An error of the command line's own checks (printed as one line)."""


# ---------------------------------------------------------------------------------------
# options of the control parameters, explained from the control table (CONTROL_PARAMS)


def _control_docs() -> dict[str, str]:
    """``{field: its description}`` from :data:`pybsnsing.control.CONTROL_PARAMS`, with
    reST markup (``literal``, :mod:`name`) as plain text for a terminal."""
    out: dict[str, str] = {}
    for p in CONTROL_PARAMS:
        text = " ".join(line.strip() for line in p.help.splitlines())
        text = re.sub(r":[a-z]+:`~?([^`]*)`", r"\1", text)
        out[p.name] = re.sub(r"``([^`]*)``", r"\1", text)
    return out


def _r_name(field: str) -> str:
    return R_NAMES.get(field, field.replace("_", "."))


def _add_control_options(p: argparse.ArgumentParser) -> None:
    docs = _control_docs()
    g = p.add_argument_group(
        "control parameters",
        "R bsnsing's bscontrol() settings, with R's defaults (Python name in the option, "
        "R's dotted name in brackets)")
    for f in dataclasses.fields(BsControl):
        if f.name.startswith("_") or f.name in _SKIP_FIELDS:
            continue
        kind = type(f.default)
        text = docs.get(f.name, "").rstrip(".")
        g.add_argument("--" + f.name.replace("_", "-"), dest=f.name, type=kind, default=None,
                       metavar=_METAVAR.get(kind, "VALUE"),
                       help=f"{text} [{_r_name(f.name)}; default {f.default!r}]".replace(
                           "%", "%%"))
    g.add_argument("--external", dest="import_external", default=None,
                   choices=["rpart", "r", "none"],
                   help="rpart's split points as extra questions: 'rpart' (native, the "
                        "default), 'r' (R's own rpart through rpy2: pip install "
                        "\"pybsnsing[r]\") or 'none' [import.external; default TRUE]")
    for name in _BOOL_FIELDS:
        text = docs.get(name, "").rstrip(".")
        g.add_argument("--" + name.replace("_", "-"), dest=name, action="store_true",
                       default=None,
                       help=f"{text} [{_r_name(name)} = TRUE; default off]".replace("%", "%%"))


def _control_kwargs(args: argparse.Namespace) -> dict:
    out = {}
    for f in dataclasses.fields(BsControl):
        v = getattr(args, f.name, None)
        if v is not None:
            out[f.name] = v
    if out.get("import_external") == "none":
        out["import_external"] = False
    return out


# ---------------------------------------------------------------------------------------
# files


def read_table(path: str) -> Any:
    """Read a CSV as R's ``read.csv(stringsAsFactors = TRUE, na.strings = c("", "NA"))``
    would (see :func:`pybsnsing.read_csv`): strings become factors, empty fields
    and ``NA`` are missing, and numbers are R's values bit for bit. ``-`` reads
    standard input; ``.gz`` and other compressed files are read by their extension.

    Raises:
        CliError: the file is missing, a directory, compressed and corrupt, not
            UTF-8 text or not a CSV with a header line (one-line message).
    """
    from .datasets._reader import read_csv

    if path == "-":
        source: Any = sys.stdin.buffer
    else:
        p = Path(path)
        if not p.exists():
            raise CliError(f"no such file: {path!r}")
        if p.is_dir():
            raise CliError(f"{path!r} is a directory, not a CSV file")
        source = p
    try:
        return read_csv(source)
    except MemoryError:
        raise
    except Exception as exc:  # noqa: BLE001 - any failure to read is the file's problem
        raise CliError(f"cannot read {path!r}: {_reason(exc)}") from exc


def _reason(exc: BaseException) -> str:
    """A short reason for a failed read."""
    import zlib

    name = type(exc).__name__
    if isinstance(exc, EOFError):
        return "the compressed file is truncated"
    if isinstance(exc, zlib.error) or name == "BadGzipFile":
        return f"corrupt compressed data ({exc})"
    if isinstance(exc, UnicodeDecodeError):
        return "not UTF-8 text (a binary or differently encoded file?)"
    if name == "EmptyDataError":
        return "the file is empty"
    if isinstance(exc, OSError) and exc.strerror:
        return exc.strerror
    return str(exc) or name


def _check_output(path: str | None, option: str) -> None:
    """Fail before the work when an output file cannot be written."""
    if not path:
        return
    p = Path(path)
    parent = p.parent if str(p.parent) else Path(".")
    if p.is_dir():
        raise CliError(f"{option} {path!r} is a directory; give a file name")
    if not parent.exists():
        raise CliError(f"{option} {path!r}: the folder {str(parent)!r} does not exist")
    if not parent.is_dir():
        raise CliError(f"{option} {path!r}: {str(parent)!r} is not a folder")


def _check_plot(path: str | None, option: str = "--plot") -> None:
    """The picture's folder exists, matplotlib is installed and knows the format."""
    if not path:
        return
    _check_output(path, option)
    from ._optional import require

    require("plot", "drawing the tree (" + option + ")")
    from matplotlib.backend_bases import FigureCanvasBase

    ext = Path(path).suffix.lower().lstrip(".")
    known = FigureCanvasBase.get_supported_filetypes()
    if ext and ext not in known:
        raise CliError(f"{option} {path!r}: unknown picture format '.{ext}' (use one of "
                       + ", ".join("." + k for k in sorted(known)) + ")")


# ---------------------------------------------------------------------------------------
# commands


def _progress(args: argparse.Namespace) -> Any:
    return False if args.quiet else "auto"


def _print_model(model: Any) -> None:
    from .export.view import is_multiclass

    summary = model.summary()
    if is_multiclass(model):
        print(model)
        for k, s in enumerate(summary.classes, start=1):
            print(f"\nTree {k}:\n{s}")
    else:
        print(summary)


def _cmd_fit(args: argparse.Namespace) -> int:
    from .api import bsnsing

    _check_output(args.save, "--save")
    _check_plot(args.plot)
    data = read_table(args.data)
    t0 = time.perf_counter()
    model = bsnsing(args.formula, data, progress=_progress(args), **_control_kwargs(args))
    elapsed = time.perf_counter() - t0
    _print_model(model)
    print(f"\nfitted {len(data)} rows in {elapsed:.2f} s")
    if args.save:
        model.save(args.save)
        print(f"model written to {args.save}")
    if args.plot:
        from .export.plot import plot_tree

        plot_tree(model, args.plot)
        print(f"tree picture written to {args.plot}")
    return 0


def _cmd_predict(args: argparse.Namespace) -> int:
    import numpy as np
    import pandas as pd

    from .model import load_model

    _check_output(args.output, "--output")
    model = load_model(args.model)
    data = read_table(args.data)
    ids = args.id or []
    missing = [c for c in ids if c not in data.columns]
    if missing:
        raise CliError(f"--id: no column {missing[0]!r} in {args.data!r} (columns: "
                       + ", ".join(map(str, data.columns[:20]))
                       + (", ..." if len(data.columns) > 20 else "") + ")")
    pred = model.predict(data, type=args.type)
    if args.type == "prob" and np.ndim(pred) == 2:
        out = pd.DataFrame(pred, columns=[str(v) for v in model.ylevels])
    else:
        out = pd.DataFrame({args.type: pred})
    for k, c in enumerate(ids):
        name = c if c not in out.columns else f"{c}.id"
        out.insert(k, name, data[c].reset_index(drop=True))
    if args.output:
        out.to_csv(args.output, index=False)
        print(f"{len(out)} predictions written to {args.output}")
    else:
        out.to_csv(sys.stdout, index=False)
    return 0


def _cmd_demo(args: argparse.Namespace) -> int:
    from .api import bsnsing
    from .datasets import dataset_formula, load_dataset

    name = args.dataset
    plot = args.plot
    if plot:
        _check_output(plot, "--plot")
        from ._optional import available

        if not available("plot"):
            print('pybsnsing demo: note: no picture (matplotlib is not installed: pip install '
                  '"pybsnsing[plot]")', file=sys.stderr)
            plot = None
        else:
            _check_plot(plot)
    data = load_dataset(name)
    formula = dataset_formula(name)
    print(f"pybsnsing demo: bsnsing({formula!r}, {name}) with R bsnsing's defaults\n")
    t0 = time.perf_counter()
    model = bsnsing(formula, data, progress=_progress(args))
    elapsed = time.perf_counter() - t0
    _print_model(model)
    print(f"\nfitted {len(data)} rows in {elapsed:.2f} s")
    if plot:
        from .export.plot import plot_tree

        plot_tree(model, Path(plot))
        print(f"tree picture written to {plot}")
    return 0


def _cmd_warmup(args: argparse.Namespace) -> int:
    from ._warmup import warmup

    t0 = time.perf_counter()
    parts = warmup(optimal=not args.no_optimal)
    if not args.quiet:
        print("pybsnsing warmup: " + ", ".join(f"{k} {v:.2f} s" for k, v in parts.items())
              + f"; total {time.perf_counter() - t0:.1f} s (kernels cached for later "
              "processes)")
    return 0


# ---------------------------------------------------------------------------------------
# parser and entry point


def _version() -> str:
    from . import __version__

    return f"pybsnsing {__version__}"


def _end_command(parser: argparse.ArgumentParser, func, quiet_help: str) -> None:
    """A command's last option (``--quiet``, saying what it silences) and its function."""
    parser.add_argument("--quiet", action="store_true", help=quiet_help)
    parser.set_defaults(func=func)


def build_parser() -> argparse.ArgumentParser:
    """The argument parser (exposed for documentation and tests)."""
    p = argparse.ArgumentParser(
        prog="pybsnsing",
        description="Classification trees by recursive optimal boolean rule composition "
                    "(R bsnsing 1.0.1, in Python).",
        epilog="Run 'pybsnsing <command> --help' for a command's options.",
    )
    p.add_argument("--version", action="version", version=_version())
    sub = p.add_subparsers(dest="command", required=True, metavar="command")
    f = sub.add_parser(
        "fit", help="fit a tree on a CSV file",
        description="Fit a bsnsing tree on a CSV file (read as R's read.csv reads it: text "
                    "columns are factors, empty fields and NA are missing), print R's "
                    "summary, and optionally save the model (JSON) and draw it.",
        epilog='Example: pybsnsing fit data.csv --formula "Class ~ ." --max-rules 3 '
               "--save model.json --plot tree.png")
    f.add_argument("data", help="CSV file with a header line ('-': standard input; "
                                ".gz and other compressions by extension)")
    f.add_argument("--formula", required=True,
                   help='"response ~ predictors", e.g. "Class ~ ." (every other column), '
                        '"y ~ x1 + x2", "y ~ . - id"; names with spaces in backticks')
    f.add_argument("--plot", metavar="FILE",
                   help='write a picture of the tree (.png, .svg, .pdf, ...; needs pip '
                        'install "pybsnsing[plot]")')
    f.add_argument("--save", metavar="FILE",
                   help="write the model as JSON (for 'pybsnsing predict')")
    f.add_argument("--quiet", action="store_true",
                   help="no progress bar and no compile notice on standard error (the bar "
                        "shows on a terminal, for fits longer than a second, when tqdm is "
                        "installed)")
    _add_control_options(f)
    f.set_defaults(func=_cmd_fit)

    pr = sub.add_parser(
        "predict", help="predict a CSV file with a saved model",
        description="Predict the rows of a CSV file with a model saved by 'pybsnsing fit "
                    "--save'; writes a CSV (standard output by default).")
    pr.add_argument("model", help="model JSON written by 'pybsnsing fit --save'")
    pr.add_argument("data", help="CSV file with the predictor columns ('-': standard input)")
    pr.add_argument("--type", choices=["prob", "class"], default="prob",
                    help="'prob': the probability of the class coded 1 (one column per "
                         "class for a multi-class model); 'class': the predicted label "
                         "(default: prob)")
    pr.add_argument("--id", action="append", metavar="COLUMN",
                    help="copy this column of the input (e.g. a row id) into the output, "
                         "before the predictions; may be given more than once")
    pr.add_argument("--output", metavar="FILE",
                    help="CSV file to write (default: standard output)")
    _end_command(pr, _cmd_predict, "no compile notice")

    d = sub.add_parser(
        "demo", help="fit a bundled data set, print and draw the tree",
        description="Fit a bundled data set with R bsnsing's defaults, print the summary "
                    "and draw the tree (when matplotlib is installed).")
    d.add_argument("--dataset", default="BreastCancer",
                   help="bundled data set (default BreastCancer; e.g. iris, kyphosis, pima; "
                        "python -c 'import pybsnsing.datasets as d; "
                        "print(d.list_datasets())' lists them)")
    d.add_argument("--plot", default="bsnsing_demo_tree.png", metavar="FILE",
                   help="picture file to write (default bsnsing_demo_tree.png; '' for none)")
    _end_command(d, _cmd_demo, "no progress bar, no compile notice")

    w = sub.add_parser(
        "warmup", help="compile the numba kernels now (once per install)",
        description="Compile (or, when already compiled, load) every numba kernel on tiny "
                    "problems, so that no later fit pauses to compile. The machine code is "
                    "cached on disk: later processes start in well under a second.")
    w.add_argument("--no-optimal", action="store_true", help="skip the MurTree kernels")
    _end_command(w, _cmd_warmup, "print nothing")
    return p


def _one_line(text: str) -> str:
    lines = [ln.strip() for ln in str(text).splitlines() if ln.strip()]
    return "; ".join(lines)


def _message(exc: BaseException) -> str:
    from .errors import PybsnsingError

    if isinstance(exc, KeyError) and not isinstance(exc, PybsnsingError) and exc.args:
        return _one_line(str(exc.args[0]))
    if isinstance(exc, OSError) and exc.strerror:
        where = f": {exc.filename!r}" if exc.filename else ""
        return f"{exc.strerror}{where}"
    if isinstance(exc, (CliError, PybsnsingError, ValueError, TypeError, LookupError,
                        NotImplementedError)):
        return _one_line(str(exc)) or type(exc).__name__
    return (f"unexpected {type(exc).__name__}: {_one_line(str(exc))} "
            "(set PYBSNSING_DEBUG=1 for the traceback)")


@contextmanager
def _warnings_one_line(command: str) -> Iterator[None]:
    def show(message: Any, category: Any, filename: str, lineno: int, file: Any = None,
             line: Any = None) -> None:
        try:
            print(f"pybsnsing {command}: warning: {_one_line(str(message))}", file=sys.stderr)
        except Exception:  # noqa: BLE001 - a warning must never end the command
            pass

    with warnings.catch_warnings():
        warnings.showwarning = show
        yield


def _quiet_stdout() -> None:
    """After a broken pipe: point stdout at /dev/null so the exit flush is silent."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, ValueError, AttributeError):
        pass


def main(argv: list[str] | None = None) -> int:
    """Entry point of the ``pybsnsing`` command: returns the exit status (0, or 2 on error)."""
    args = build_parser().parse_args(argv)
    quiet = getattr(args, "quiet", False)
    old_quiet = os.environ.get("PYBSNSING_QUIET_COMPILE")
    if quiet:
        os.environ["PYBSNSING_QUIET_COMPILE"] = "1"
    try:
        with _warnings_one_line(args.command):
            status = args.func(args)
            sys.stdout.flush()
        return status
    except BrokenPipeError:  # the reader went away (| head): stop quietly
        _quiet_stdout()
        return 0
    except KeyboardInterrupt:
        print(f"pybsnsing {args.command}: interrupted", file=sys.stderr)
        return 130
    except Exception as exc:  # noqa: BLE001 - every error becomes one line, never a traceback
        if os.environ.get("PYBSNSING_DEBUG"):
            raise
        try:
            print(f"pybsnsing {args.command}: error: {_message(exc)}", file=sys.stderr)
        except Exception:  # noqa: BLE001
            pass
        return 2
    finally:
        if quiet:
            if old_quiet is None:
                os.environ.pop("PYBSNSING_QUIET_COMPILE", None)
            else:
                os.environ["PYBSNSING_QUIET_COMPILE"] = old_quiet


if __name__ == "__main__":
    raise SystemExit(main())
