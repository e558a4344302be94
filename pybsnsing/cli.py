"""The ``pybsnsing`` command line: fit, predict, demo.

Examples::

    pybsnsing demo
    pybsnsing fit data.csv --formula "Class ~ ." --max-rules 3 --plot tree.png --save model.json
    pybsnsing predict model.json new.csv --type class --output predictions.csv
"""

from __future__ import annotations

import argparse
import dataclasses
import sys
import time
from pathlib import Path

import numpy as np
import pandas as pd

from .control import BsControl

_BOOL_FIELDS = ("suppress_internal", "no_same_gender_children", "verbose",
                "keep_perfect_separation")
_SKIP_FIELDS = ("greedy_level", "n0n1_cap", "opt_model", "import_external") + _BOOL_FIELDS


def _add_control_options(p: argparse.ArgumentParser) -> None:
    g = p.add_argument_group("control parameters (R's bscontrol; defaults as in R bsnsing)")
    for f in dataclasses.fields(BsControl):
        if f.name in _SKIP_FIELDS:
            continue
        flag = "--" + f.name.replace("_", "-")
        g.add_argument(flag, dest=f.name, type=type(f.default), default=None,
                       help=f"default {f.default!r}")
    g.add_argument("--external", dest="import_external", default=None,
                   choices=["rpart", "r", "none"],
                   help="external (rpart) questions: native 'rpart' (default), 'r' "
                        "(R's rpart through rpy2) or 'none'")
    for name in _BOOL_FIELDS:
        g.add_argument("--" + name.replace("_", "-"), dest=name, action="store_true",
                       default=None)


def _control_kwargs(args: argparse.Namespace) -> dict:
    out = {}
    for f in dataclasses.fields(BsControl):
        v = getattr(args, f.name, None)
        if v is not None:
            out[f.name] = v
    if out.get("import_external") == "none":
        out["import_external"] = False
    return out


def read_table(path: str) -> pd.DataFrame:
    """Read a CSV as R's ``read.csv(stringsAsFactors = TRUE, na.strings = c("", "NA"))``
    would (see :func:`pybsnsing.read_csv`): strings become factors, empty fields
    and ``NA`` are missing, and numbers are R's values bit for bit."""
    from .datasets._reader import read_csv

    return read_csv(path)


def _cmd_fit(args: argparse.Namespace) -> int:
    from .api import bsnsing

    data = read_table(args.data)
    t0 = time.perf_counter()
    model = bsnsing(args.formula, data, progress=not args.quiet, **_control_kwargs(args))
    elapsed = time.perf_counter() - t0
    model_summary = model.summary()
    print(model_summary if not hasattr(model, "trees") else model)
    if hasattr(model, "trees"):
        for k, s in enumerate(model_summary.classes, start=1):
            print(f"\nTree {k}:\n{s}")
    print(f"\nfitted in {elapsed:.2f} s")
    if args.save:
        model.save(args.save)
        print(f"model written to {args.save}")
    if args.plot:
        from .export import plot_tree

        plot_tree(model, args.plot)
        print(f"tree picture written to {args.plot}")
    return 0


def _cmd_predict(args: argparse.Namespace) -> int:
    from .model import load_model

    model = load_model(args.model)
    data = read_table(args.data)
    pred = model.predict(data, type=args.type)
    if args.type == "prob" and np.ndim(pred) == 2:
        out = pd.DataFrame(pred, columns=[str(v) for v in model.ylevels])
    else:
        out = pd.DataFrame({args.type: pred})
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
    data = load_dataset(name)
    formula = dataset_formula(name)
    print(f"pybsnsing demo: bsnsing({formula!r}, {name}) with R bsnsing's defaults\n")
    t0 = time.perf_counter()
    model = bsnsing(formula, data)
    elapsed = time.perf_counter() - t0
    print(model.summary() if not hasattr(model, "trees") else model)
    print(f"\nfitted {len(data)} rows in {elapsed:.2f} s")
    out = Path(args.plot)
    from .export import plot_tree

    plot_tree(model, out)
    print(f"tree picture written to {out}")
    return 0


def build_parser() -> argparse.ArgumentParser:
    """The argument parser (exposed for documentation and tests)."""
    p = argparse.ArgumentParser(
        prog="pybsnsing",
        description="Classification trees by recursive optimal boolean rule composition "
                    "(R bsnsing 1.0.1, in Python).",
    )
    sub = p.add_subparsers(dest="command", required=True)
    f = sub.add_parser("fit", help="fit a tree on a CSV file")
    f.add_argument("data", help="CSV file (header line; empty fields or NA are missing)")
    f.add_argument("--formula", required=True, help='e.g. "Class ~ ." or "y ~ x1 + x2"')
    f.add_argument("--plot", help="write a picture of the tree (PNG, SVG or PDF)")
    f.add_argument("--save", help="write the model as JSON (for 'pybsnsing predict')")
    f.add_argument("--quiet", action="store_true", help="no progress bar")
    _add_control_options(f)
    f.set_defaults(func=_cmd_fit)
    pr = sub.add_parser("predict", help="predict a CSV file with a saved model")
    pr.add_argument("model", help="model JSON written by 'pybsnsing fit --save'")
    pr.add_argument("data", help="CSV file with the predictor columns")
    pr.add_argument("--type", choices=["prob", "class"], default="prob")
    pr.add_argument("--output", help="CSV file to write (default: standard output)")
    pr.set_defaults(func=_cmd_predict)
    d = sub.add_parser("demo", help="fit a bundled data set and draw the tree")
    d.add_argument("--dataset", default="BreastCancer", help="bundled data set name")
    d.add_argument("--plot", default="bsnsing_demo_tree.png", help="picture file to write")
    d.set_defaults(func=_cmd_demo)
    return p


def main(argv: list[str] | None = None) -> int:
    """Entry point of the ``pybsnsing`` command."""
    args = build_parser().parse_args(argv)
    try:
        return args.func(args)
    except (ValueError, KeyError, TypeError, FileNotFoundError, NotImplementedError) as exc:
        msg = exc.args[0] if isinstance(exc, KeyError) and exc.args else exc
        print(f"pybsnsing {args.command}: error: {msg}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    raise SystemExit(main())
