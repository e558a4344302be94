"""DT-SLIM (Schidler & Szeider, AAAI 2021), Tables 3/4: depth before -> after, same initial trees.

Reads ``../shared/data/dtslim`` (or ``--data``): per instance and fold, the
training/test split and the initial Weka J48 (``.tree``) or ITI (``.iti``) tree;
runs :func:`pybsnsing.optimal.slim.slim_improve` and prints, per instance, the
average depth before and after over the folds, the paper's figures beside,
test accuracy before and after, and seconds. Columns: calls / t/o / sat s are the
SAT calls, their timeouts and seconds; big the local instances skipped as too big;
done the folds that finished (no node left to try); murtree the depth questions
MurTree answered / was asked before SAT (``--murtree 0``: SAT only, as the paper).

    .venv/bin/python bench/bench_slim.py --ci                 # 3 small instances, short budgets
    .venv/bin/python bench/bench_slim.py --budget 300 --time 600 --out bench/results/slim_table.txt

The Weka/ITI readers live here (bench and test code only, not the package API).
"""

from __future__ import annotations

import argparse
import re
import sys
import time
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
DEFAULT_DATA = HERE.parent.parent / "shared" / "data" / "dtslim"

#: (start, instance) -> (paper depth before, after; accuracy before, after) — Tables 3/4 (d800/c800)
PAPER = {
    ("weka", "australian-un"): (53, 22, 0.14, 0.14),
    ("weka", "haberman-un"): (71.2, 63.8, 0.66, 0.62),
    ("weka", "hiv_schilling_bin"): (18.8, 11.8, 0.81, 0.79),
    ("weka", "hungarian-un"): (27, 9.4, 0.19, 0.59),
    ("weka", "objectivity_bin"): (36.6, 10.6, 0.55, 0.78),
    ("iti", "australian-un"): (14, 12.6, 0.42, 0.48),
    ("iti", "hiv_1625_bin"): (13.2, 10, 0.85, 0.83),
    ("iti", "hungarian-un"): (14, 9.6, 0.38, 0.59),
    ("iti", "kr-vs-kp_bin"): (14, 10.2, 0.98, 0.97),
    ("iti", "mammographic_masses_bin"): (13.2, 8.8, 0.68, 0.64),
}
CI_SET = [("iti", "mammographic_masses_bin"), ("iti", "hungarian-un"), ("weka", "hungarian-un")]


# ----------------------------------------------------------------------------- readers
def _indent(line: str, unit: int) -> tuple[int, str]:
    m = re.match(r"^[ |]*", line)
    pre = m.group(0)
    return len(pre) // unit, line[len(pre):].strip()


def read_weka(text: str, classes: list) -> object:
    """Weka J48 text (``att91 = 1`` / ``|   att14 = 0: 0 (1.0)``) -> SatNode (attJ = column J-1)."""
    from pybsnsing.optimal.sat_encodings import SatNode

    lines = [ln.rstrip("\n") for ln in text.splitlines() if re.match(r"^[ |]*att\d+ = ", ln)]
    items = [(_indent(ln, 4)) for ln in lines]
    index = {str(c): i for i, c in enumerate(classes)}
    pos = 0

    def parse(level: int) -> SatNode:
        nonlocal pos
        branches: dict[int, SatNode] = {}
        feat = None
        while pos < len(items) and items[pos][0] == level:
            body = items[pos][1]
            m = re.match(r"att(\d+) = (\S+?)(?::\s*(\S+)\s*\(.*\))?$", body)
            if m is None:
                raise ValueError(f"cannot read Weka line {body!r}")
            j, v, leaf = int(m.group(1)) - 1, int(float(m.group(2))), m.group(3)
            if feat is not None and j != feat:
                break
            feat = j
            pos += 1
            branches[v] = (SatNode(label=index.get(leaf, 0)) if leaf is not None
                           else parse(level + 1))
        return SatNode(feat, branches.get(0, SatNode(label=0)), branches.get(1, SatNode(label=0)))

    return parse(0)


def read_iti(text: str, classes: list) -> object:
    """ITI text (``att63 < 0.50``, its TRUE (= 0) branch first; leaves ``<class> (<n>)``)."""
    from pybsnsing.optimal.sat_encodings import SatNode

    items = [_indent(ln, 3) for ln in text.splitlines() if ln.strip()]
    index = {str(c): i for i, c in enumerate(classes)}
    pos = 0

    def parse() -> SatNode:
        nonlocal pos
        _, body = items[pos]
        pos += 1
        m = re.match(r"att(\d+) < ", body)
        if m is None:
            return SatNode(label=index.get(body.split()[0], 0))
        lo = parse()
        hi = parse()
        return SatNode(int(m.group(1)) - 1, lo, hi)

    return parse()


def load_fold(data: Path, name: str, k: int | None):
    stem = f"{name}-{k}" if k is not None else name
    tr = np.loadtxt(data / "split" / f"{stem}.data", delimiter=",", dtype=np.int64, ndmin=2)
    te = np.loadtxt(data / "split" / f"{stem}.test", delimiter=",", dtype=np.int64, ndmin=2)
    return tr[:, :-1].astype(np.uint8), tr[:, -1], te[:, :-1].astype(np.uint8), te[:, -1]


def folds(data: Path, name: str) -> list[int | None]:
    return [None] if (data / "split" / f"{name}.data").exists() else list(range(5))


def initial_tree(data: Path, start: str, name: str, k: int | None, classes: list):
    stem = f"{name}-{k}" if k is not None else name
    if start == "weka":
        return read_weka((data / "trees" / f"{stem}.tree").read_text(), classes)
    return read_iti((data / "trees" / f"{stem}.iti").read_text(), classes)


# ----------------------------------------------------------------------------- run
def accuracy(root, X, y, classes) -> float:
    from pybsnsing.optimal.slim import _predict

    pred = np.asarray(classes)[_predict(root, X)]
    return float(np.mean(pred == y))


def run_one(data: Path, start: str, name: str, k, budget: int, time_limit: float,
            sat_timeout: float | None, verbose: int = 0, solver: str = "g4",
            murtree: float | None = None):
    from pybsnsing.optimal.slim import _from_model, _predict, _relabel, slim_improve

    Xtr, ytr, Xte, yte = load_fold(data, name, k)
    classes = sorted(set(ytr.tolist()) | set(yte.tolist()))
    classes_tr = sorted(set(ytr.tolist()))
    root = initial_tree(data, start, name, k, classes_tr)
    d0 = root.depth()
    # J48 (-M 2) leaves can hold training errors: DT-SLIM then keeps the tree's own
    # training classification (the rows are fitted to the labels the tree gives them)
    yfit = np.asarray(classes_tr)[_predict(root, Xtr)]
    codes = np.searchsorted(classes_tr, yfit)
    _relabel(root, Xtr, codes, f"{start} tree")
    acc0 = accuracy(root, Xte, yte, classes_tr)
    t0, c0 = time.perf_counter(), time.process_time()
    res = slim_improve(root, Xtr, yfit, budget=budget, total_time_limit=time_limit,
                       sat_timeout=sat_timeout, solver=solver, verbose=verbose,
                       murtree_seconds=murtree)
    secs, cpu = time.perf_counter() - t0, time.process_time() - c0
    new = _from_model(res.tree, np.asarray(classes_tr))
    acc1 = accuracy(new, Xte, yte, classes_tr)
    assert res.tree.objective == 0 and res.final_depth <= d0
    depths = [d0] + [t["depth"] for t in res.trace]
    assert all(a >= b for a, b in zip(depths, depths[1:], strict=False))
    del classes
    calls = [c for c in res.stats.get("calls", []) if c["encoding"] != "murtree"]
    sat_s = sum(c["seconds"] for c in calls)
    return (d0, res.final_depth, acc0, acc1, secs, cpu, len(calls),
            res.stats.get("sat_timeouts", 0), sat_s, res.stats.get("too_big", 0),
            res.stats.get("completed"), res.stats.get("murtree_answers", 0),
            res.stats.get("murtree_calls", 0))


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--data", type=Path, default=DEFAULT_DATA)
    ap.add_argument("--budget", type=int, default=300, choices=(60, 300, 800))
    ap.add_argument("--sat-timeout", type=float, default=None, help="override the preset's t")
    ap.add_argument("--time", type=float, default=120.0, help="seconds per fold (total_time_limit)")
    ap.add_argument("--folds", type=int, default=5)
    ap.add_argument("--first-fold", type=int, default=0,
                    help="start at this fold (with --folds N: folds F .. F + N - 1)")
    ap.add_argument("--solver", default="g4",
                    help="python-sat solver (default g4 = Glucose 4.1, the paper's; cd19 = "
                         "CaDiCaL 1.9.5: much faster on some hard calls, not on others -- "
                         "bench/results/slim_d300_session6.txt)")
    ap.add_argument("--murtree", type=float, default=None,
                    help="seconds each local depth question goes to MurTree before SAT "
                         "(default: the package's, 5%% of the SAT timeout; 0: SAT only, as "
                         "the paper)")
    ap.add_argument("--ci", action="store_true", help="three small instances, 2 folds, 20 s each")
    ap.add_argument("--only", nargs="*", help="start:instance, e.g. iti:hungarian-un")
    ap.add_argument("--out", type=Path)
    ap.add_argument("-v", "--verbose", action="count", default=0,
                    help="-v: one line per replacement; -vv: also one per SAT call")
    a = ap.parse_args(argv)
    todo = list(PAPER)
    if a.ci:
        todo, a.folds, a.time = CI_SET, 2, 20.0
        a.sat_timeout = a.sat_timeout or 10.0
    if a.only:
        todo = [tuple(s.split(":", 1)) for s in a.only]
    out = []

    def say(s: str) -> None:
        print(s, flush=True)
        out.append(s)

    say(f"DT-SLIM bench: budget d{a.budget}/c{a.budget}, sat_timeout "
        f"{a.sat_timeout or a.budget} s, {a.time:g} s per fold, folds {a.folds} from "
        f"fold {a.first_fold}, "
        f"solver {a.solver}, MurTree first: "
        f"{'off (SAT only)' if a.murtree == 0 else (a.murtree or 'default')}")
    say(f"{'start':5} {'instance':26} {'depth before':>12} {'after':>6} {'paper':>13} "
        f"{'acc before':>10} {'after':>6} {'paper':>11} {'s/fold':>7} {'cpu s':>7} "
        f"{'calls':>5} {'t/o':>3} {'sat s':>6} {'big':>4} done  murtree")
    for start, name in todo:
        ks = folds(a.data, name)[a.first_fold: a.first_fold + a.folds]
        if not ks:
            say(f"{start:5} {name:26} no fold {a.first_fold} (it has "
                f"{len(folds(a.data, name))})")
            continue
        rows = [run_one(a.data, start, name, k, a.budget, a.time, a.sat_timeout, a.verbose,
                        a.solver, a.murtree) for k in ks]
        r = np.array([row[:10] for row in rows], dtype=float).mean(0)
        done = sum(bool(row[10]) for row in rows)
        p = PAPER.get((start, name), (np.nan,) * 4)
        say(f"{start:5} {name:26} {r[0]:12.1f} {r[1]:6.1f} {p[0]:6g} -> {p[1]:<4g} "
            f"{r[2]:10.2f} {r[3]:6.2f} {p[2]:4.2f} -> {p[3]:4.2f} {r[4]:7.1f} {r[5]:7.1f} "
            f"{r[6]:5.0f} {r[7]:3.0f} {r[8]:6.1f} {r[9]:4.0f} {done}/{len(ks)}   "
            f"{sum(row[11] for row in rows)}/{sum(row[12] for row in rows)}")
    if a.out:
        a.out.write_text("\n".join(out) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
