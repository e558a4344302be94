"""The bsnsing split as a MIP (HiGHS) against ENUM: paper Tables 4 and 3.

Table 4 (paper §4.1.2): the root split (``max_rules`` 2, ``node_size`` 1) of the 12 DL8.5
data sets of ``shared/data/binary``: ENUM (numba) objective, evaluations and time, HiGHS
with the compact formulation (objective, status, wall and CPU time), HiGHS with R's theta
formulation (short time limit; skipped past R's ``n0n1_cap``), and the paper's Gurobi wall
time.

Table 3 (paper §4.1.1, seismic 1690 x 100, not in ``shared``): its shape on a stand-in,
random row subsamples (seed 1) of hypothyroid (3247 x 88, 8.5 % minority class; seismic has
6.6 %), n in ``--t3-n`` and ``max_rules`` 1-4, ``node_size`` 1.

Trees: ``bsnsing(..., opt_solver="highs", import_external=False)`` on kyphosis and
BreastCancer; at every node the split is also searched with ENUM on the same question
matrix: objectives, rules (ties: equal objective, other rule) and HiGHS time per node.

Usage::

    python bench/bench_mip.py [--shared PATH] [--only table4|table3|trees] [--t4-limit 600]
                              [--theta-limit 60] [--t3-n 200 400 800 1600]
                              [--t3-rules 1 2 3 4] [--t3-limit 300] [DATASET ...]

Prints the tables and writes ``bench/results/mip.csv`` and ``bench/results/mip.txt``.
ENUM times are the median of ``--repeat`` runs after a warm-up; HiGHS runs once, one
thread, ``mip_rel_gap = 0``.  The machine is shared: CPU seconds of the HiGHS run
(``time.process_time``) are given next to the wall time.
"""

from __future__ import annotations

import argparse
import csv
import gzip
import os
import statistics
import sys
import time
import warnings
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
sys.path.insert(0, str(REPO))

from pybsnsing import __version__  # noqa: E402
from pybsnsing.control import ControlWarning  # noqa: E402
from pybsnsing.mip import mip_search  # noqa: E402
from pybsnsing.search import enum_search  # noqa: E402

#: paper Table 4: n, m, objval, Gurobi wall seconds (and its note)
TABLE4 = {
    "anneal": (812, 93, 47750, "1181.6"),
    "audiology": (216, 148, 885, "11.0"),
    "australian-credit": (653, 125, 24456, "7204.7 (limit)"),
    "breast-wisconsin": (683, 120, 9039, "691.7"),
    "diabetes": (768, 112, 53312, "7205.7 (limit)"),
    "heart-cleveland": (296, 95, 7460, "418.0"),
    "hepatitis": (137, 68, 876, "15.1"),
    "lymph": (148, 68, 1655, "28.5"),
    "primary-tumor": (336, 31, 7728, "70.5"),
    "soybean": (630, 50, 19964, "306.4"),
    "tic-tac-toe": (958, 27, 95336, "7202.7 (limit; 105464)"),
    "vote": (435, 48, 3547, "346.2"),
}


def load_binary(name: str, shared: Path) -> tuple[np.ndarray, np.ndarray]:
    """A DL8.5 file (``label f1 f2 ...``) from shared/data/binary or tests/data/binary."""
    for folder in (shared / "data" / "binary", REPO / "tests" / "data" / "binary"):
        path = folder / f"{name}.txt.gz"
        if path.exists():
            with gzip.open(path, "rt") as fh:
                a = np.loadtxt(fh, dtype=np.int64, ndmin=2)
            return np.ascontiguousarray(a[:, 1:], dtype=np.uint8), (a[:, 0] == 1).astype(
                np.uint8)
    raise FileNotFoundError(f"{name}.txt.gz in {shared}/data/binary or tests/data/binary")


def time_enum(B, y, max_rules, repeat):
    times = []
    for _ in range(repeat):
        t = time.perf_counter()
        r = enum_search(B, y, max_rules=max_rules, node_size=1)
        times.append(time.perf_counter() - t)
    return r, statistics.median(times)


def run_highs(B, y, max_rules, limit, formulation="compact"):
    """(result or None, status, wall s, CPU s)."""
    t, c = time.perf_counter(), time.process_time()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", ControlWarning)
        try:
            r = mip_search(B, y, max_rules=max_rules, node_size=1, time_limit=limit,
                           formulation=formulation)
        except ValueError as exc:
            if "n0n1_cap" not in str(exc):
                raise
            return None, "skipped: n0*n1 > n0n1_cap", 0.0, 0.0
    wall, cpu = time.perf_counter() - t, time.process_time() - c
    status = "optimal"
    for w in caught:
        if "time limit" in str(w.message):
            status = "time limit"
    return r, status, wall, cpu


def fmt_obj(r, status):
    if r is None:
        return "-"
    text = f"{r.objval:.0f}" if r.cols else f"none ({r.objval:g})"
    return text if status == "optimal" else f"{text} (incumbent)"


def table(rows, header):
    widths = [max(len(str(h)), *(len(str(r[i])) for r in rows)) for i, h in enumerate(header)]
    out = ["  ".join(str(h).ljust(w) for h, w in zip(header, widths, strict=True))]
    out.append("  ".join("-" * w for w in widths))
    for r in rows:
        out.append("  ".join(str(v).ljust(w) for v, w in zip(r, widths, strict=True)))
    return "\n".join(out)


def tree_table(name: str, formula: str):
    """A tree grown with opt_solver="highs"; ENUM solves every node's split as well."""
    from pybsnsing import bsnsing, mip
    from pybsnsing.datasets import load_dataset

    recs = []
    orig = mip.split_search

    def both(B, y, groups=None, **kw):
        t = time.perf_counter()
        res = orig(B, y, groups, **kw)
        wall = time.perf_counter() - t
        t = time.perf_counter()
        ref = enum_search(B, y, groups, max_rules=kw["max_rules"], node_size=kw["node_size"],
                          no_same_gender_children=kw["no_same_gender_children"])
        te = time.perf_counter() - t
        B = np.asarray(B)
        recs.append(dict(n=B.shape[0], m=B.shape[1], n1=res.n1, n0=res.n0,
                         highs_objval=res.objval, enum_objval=ref.objval,
                         highs_cols=" ".join(map(str, res.cols)),
                         enum_cols=" ".join(map(str, ref.cols)), highs_wall_s=wall,
                         enum_s=te))
        return res

    mip.split_search = both
    try:
        t = time.perf_counter()
        model = bsnsing(formula, load_dataset(name), opt_solver="highs", import_external=False)
        total = time.perf_counter() - t
    finally:
        mip.split_search = orig
    enum_model = bsnsing(formula, load_dataset(name), import_external=False)
    same = [nd.split_rule for nd in model.nodes] == [nd.split_rule for nd in enum_model.nodes]
    rows = []
    for k, r in enumerate(recs):
        eq = "yes" if r["highs_objval"] == r["enum_objval"] else "NO"
        if r["highs_cols"] == r["enum_cols"]:
            rule = "same" if r["enum_cols"] else "no rule (v >= n0*n1/2): leaf"
        else:
            rule = f"tie: HiGHS ({r['highs_cols']}), ENUM ({r['enum_cols']})"
        rows.append([k, f"{r['n']} x {r['m']}", f"{r['n1']}/{r['n0']}",
                     f"{r['enum_objval']:g}", f"{r['highs_objval']:g}", eq, rule,
                     f"{r['highs_wall_s']:.2f}", f"{1e3 * r['enum_s']:.2f}"])
    text = table(rows, ["search", "node B", "n1/n0", "ENUM", "HiGHS", "equal", "rule",
                        "HiGHS s", "ENUM ms"])
    nsplit = sum(1 for nd in model.nodes if nd.split_rule)
    title = (f"Tree {name} ({formula}, import_external=False, opt_solver='highs'): "
             f"{len(model.nodes)} nodes, {nsplit} splits, {total:.1f} s; "
             f"identical to the ENUM tree: {'yes' if same else 'no'}")
    return title, text, recs


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    default_shared = os.environ.get("PYBSNSING_SHARED", str(REPO.parent / "shared"))
    ap.add_argument("--shared", default=default_shared)
    ap.add_argument("--only", choices=("table4", "table3", "trees"))
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--t4-limit", type=float, default=600.0, help="HiGHS compact, Table 4")
    ap.add_argument("--theta-limit", type=float, default=60.0, help="HiGHS theta (0: skip)")
    ap.add_argument("--t3-data", default="hypothyroid")
    ap.add_argument("--t3-n", type=int, nargs="+", default=[200, 400, 800, 1600])
    ap.add_argument("--t3-rules", type=int, nargs="+", default=[1, 2, 3, 4])
    ap.add_argument("--t3-limit", type=float, default=300.0)
    ap.add_argument("--out", default=str(HERE / "results" / "mip"))
    ap.add_argument("datasets", nargs="*", help="Table 4 data sets (default: all 12)")
    args = ap.parse_args(argv)
    shared = Path(args.shared)

    import highspy

    h = highspy.Highs()
    lines = [f"pybsnsing {__version__}, highspy {h.version()}, 1 HiGHS thread, "
             f"load average at start {os.getloadavg()[0]:.1f} (2-core shared machine)"]
    print(lines[0], flush=True)
    enum_search(np.eye(8, dtype=np.uint8), np.arange(8) % 2, max_rules=4)  # JIT warm-up
    csv_rows: list[dict] = []

    def save() -> None:
        """Write what has been measured so far (each section adds to the files)."""
        out = Path(args.out)
        out.parent.mkdir(parents=True, exist_ok=True)
        suffix = "" if args.only is None else f"_{args.only}"
        keys: list[str] = []
        for r in csv_rows:
            keys += [k for k in r if k not in keys]
        with open(f"{out}{suffix}.csv", "w", newline="") as fh:
            w = csv.DictWriter(fh, fieldnames=keys)
            w.writeheader()
            w.writerows(csv_rows)
        Path(f"{out}{suffix}.txt").write_text("\n".join(lines) + "\n")

    if args.only in (None, "table4"):
        names = args.datasets or list(TABLE4)
        rows = []
        for name in names:
            B, y = load_binary(name, shared)
            n, m = B.shape
            paper = TABLE4.get(name, (n, m, "-", "-"))
            e, te = time_enum(B, y, 2, args.repeat)
            r, st, wall, cpu = run_highs(B, y, 2, args.t4_limit)
            if args.theta_limit > 0:
                rt, stt, wt, _ = run_highs(B, y, 2, args.theta_limit, "theta")
                theta = (fmt_obj(rt, stt) + (f", {wt:.1f} s" if rt is not None else "")
                         if rt is not None else stt)
            else:
                theta = "not run"
            same = "yes" if r is not None and r.objval == e.objval else (
                "NO" if st == "optimal" else "-")
            row = [name, n, m, paper[2], f"{e.objval:.0f}", e.neval, f"{1e3 * te:.2f}",
                   fmt_obj(r, st), same, f"{wall:.1f}", f"{cpu:.1f}", theta, paper[3]]
            rows.append(row)
            csv_rows.append(dict(table="4", data=name, n=n, m=m, max_rules=2,
                                 paper_objval=paper[2], enum_objval=e.objval, enum_neval=e.neval,
                                 enum_cols=" ".join(map(str, e.cols)), enum_s=te,
                                 highs_objval=r.objval if r else "", highs_status=st,
                                 highs_cols=" ".join(map(str, r.cols)) if r else "",
                                 highs_wall_s=wall, highs_cpu_s=cpu, theta=theta,
                                 paper_gurobi_wall_s=paper[3]))
            print(" | ".join(map(str, row)), flush=True)
        text = table(rows, ["data", "n", "m", "paper", "ENUM", "neval", "ENUM ms",
                            "HiGHS compact", "=ENUM", "wall s", "CPU s",
                            f"HiGHS theta ({args.theta_limit:g} s limit)", "paper Gurobi s"])
        title = ("Table 4: root split, max_rules 2, node_size 1 (HiGHS compact limit "
                 f"{args.t4_limit:g} s)")
        lines += ["", title, text]
        print("\n" + title + "\n" + text, flush=True)
        save()

    if args.only in (None, "table3"):
        B0, y0 = load_binary(args.t3_data, shared)
        rng = np.random.default_rng(1)
        rows = []
        for n in args.t3_n:
            idx = np.sort(rng.choice(B0.shape[0], size=min(n, B0.shape[0]), replace=False))
            B, y = B0[idx], y0[idx]
            for mr in args.t3_rules:
                e, te = time_enum(B, y, mr, args.repeat)
                r, st, wall, cpu = run_highs(B, y, mr, args.t3_limit)
                same = "yes" if r is not None and r.objval == e.objval else (
                    "NO" if st == "optimal" else "-")
                row = [n, int(y.sum()), mr, f"{e.objval:.0f}", e.neval, f"{1e3 * te:.2f}",
                       fmt_obj(r, st), same, f"{wall:.1f}", f"{cpu:.1f}"]
                rows.append(row)
                csv_rows.append(dict(table="3", data=args.t3_data, n=n, m=B.shape[1],
                                     max_rules=mr, enum_objval=e.objval, enum_neval=e.neval,
                                     enum_cols=" ".join(map(str, e.cols)), enum_s=te,
                                     highs_objval=r.objval if r else "", highs_status=st,
                                     highs_cols=" ".join(map(str, r.cols)) if r else "",
                                     highs_wall_s=wall, highs_cpu_s=cpu))
                print(" | ".join(map(str, row)), flush=True)
        text = table(rows, ["n", "n1", "max_rules", "ENUM", "neval", "ENUM ms", "HiGHS compact",
                            "=ENUM", "wall s", "CPU s"])
        title = (f"Table 3 shape: {args.t3_data} ({B0.shape[0]} x {B0.shape[1]}) row "
                 f"subsamples, node_size 1 (HiGHS limit {args.t3_limit:g} s)")
        lines += ["", title, text]
        print("\n" + title + "\n" + text, flush=True)
        save()

    if args.only in (None, "trees"):
        for name, formula in (("kyphosis", "Kyphosis ~ ."), ("BreastCancer", "Class ~ .")):
            title, text, recs = tree_table(name, formula)
            lines += ["", title, text]
            print("\n" + title + "\n" + text, flush=True)
            csv_rows += [dict(table="tree", data=name, **r) for r in recs]
            save()

    save()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
