"""Benchmark of whole-tree fits: pybsnsing against scikit-learn and R's rpart.

For every data set and method, one fresh Python process (a *worker*) loads the data, builds
what the method needs outside the timing (the design matrix for scikit-learn, the R data
frame for rpart), warms up (numba kernels loaded by :func:`pybsnsing.warmup`, then one
untimed fit: of the data set itself up to 20000 rows, else of a 2000-row sample), records
its resident memory, times the fit and reports its own peak resident
memory (``getrusage(RUSAGE_SELF).ru_maxrss``, the figure the parent would get from
``RUSAGE_CHILDREN`` for that child alone).  Methods:

* ``pyb-noext``: ``bsnsing(formula, data, import.external = FALSE)`` (whole call: design
  matrix + tree);
* ``pyb-default``: ``bsnsing(formula, data)`` (internal + rpart-equivalent external rules);
* ``sklearn``: ``DecisionTreeClassifier(random_state=0).fit(X, y)`` on the same design
  matrix (grown to purity, its defaults; the design is built outside the timing);
* ``rpart``: R's ``rpart(formula, data, method = "class")`` through rpy2 with
  ``xval = 0`` (no cross-validation: the tree is the same, the 10 CV refits are not
  timed); rows are skipped with a note when R/rpart/rpy2 are missing.

Data sets (``--sizes``):

* ``small``: every bundled two-class data set (``pybsnsing.datasets``); with the
  reference material (``--shared``) each is fitted on the golden record's training rows,
  so that the R bsnsing 1.0.1 time of the fixture (``r_bsnsing_s``, from
  ``golden/trees/*.json``) refers to the same rows;
* ``20k``: synthetic20k, its golden record's 14000 training rows; ``vs_R_issue`` is the
  ratio of the issue's R figures (77 s without, 85 s with external rules) to our time;
* ``100k``, ``1m``: synthetic100k / synthetic1m, all rows, read with the canonical reader
  from ``shared/data/tabular`` (a parsed copy is cached in ``bench/results/*.npz``).

Times: the median of ``--repeat`` fits (small sets and synthetic20k), one fit from 100k
rows on.  Peak memory is that of the whole worker process (Python, pandas, numba, R:
``rss_before_mib`` is the same process just before the first fit), so
``fit_mib = peak - before`` is what the fit added at most.

Usage::

    python bench/bench_fit.py [--shared PATH] [--quick] [--sizes small 20k 100k 1m]
                              [--methods pyb-noext pyb-default sklearn rpart]
                              [--repeat 3] [--timeout 1200]

Prints a table and writes ``bench/results/fit.csv`` and ``bench/results/fit.png`` (time
against n, log-log).
"""

from __future__ import annotations

import argparse
import csv
import json
import os
import resource
import statistics
import subprocess
import sys
import time
from pathlib import Path

from tqdm.auto import tqdm

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from _data import DEFAULT_SHARED, RESULTS, load_shared  # noqa: E402

METHODS = ("pyb-noext", "pyb-default", "sklearn", "rpart")
SIZES = ("small", "20k", "100k", "1m")
#: R bsnsing figures for synthetic20k quoted in the issue (seconds)
R_ISSUE = {"pyb-noext": 77.0, "pyb-default": 85.0}
CONFIG = {"pyb-noext": "noext", "pyb-default": "default"}


# ---------------------------------------------------------------------------------------
# worker side


def _rss_mib() -> float:
    with open("/proc/self/statm") as fh:
        return int(fh.read().split()[1]) * os.sysconf("SC_PAGE_SIZE") / 2**20


def _cpu_ticks() -> list[int] | None:
    """The machine's CPU time by state (``/proc/stat``'s first line: user, nice, system,
    idle, iowait, irq, softirq, steal), None where there is none."""
    try:
        with open("/proc/stat") as fh:
            return [int(v) for v in fh.readline().split()[1:9]]
    except (OSError, ValueError):
        return None


def _steal_pct(before: list[int] | None, after: list[int] | None) -> float | str:
    """The share of the machine's CPU time the hypervisor took (steal) between two
    :func:`_cpu_ticks` readings, in per cent ("" where unknown): on a shared VM, time
    the fit's threads were runnable but had no core; it caps the thread speed-up."""
    if before is None or after is None:
        return ""
    d = [b - a for a, b in zip(before, after, strict=True)]
    return round(100.0 * d[7] / sum(d), 1) if sum(d) > 0 else ""


def _golden(shared: Path, name: str) -> dict[str, dict]:
    path = shared / "golden" / "trees" / f"{name}.json"
    if not path.exists():
        return {}
    return {r["config"]: r for r in json.loads(path.read_text())}


def _load(name: str, shared: Path | None) -> tuple:
    """(train frame, formula, {config: R fit seconds}) for a benchmark data set."""
    import pandas as pd

    from pybsnsing.datasets import dataset_formula, list_datasets, load_dataset

    if name.startswith("synthetic:"):  # generated (bench/_data.synthetic_frame)
        return load_shared(name), "y ~ .", {}
    if name in ("synthetic100k", "synthetic1m"):
        if shared is None:
            raise FileNotFoundError(f"{name} needs --shared")
        return load_shared(name, shared), "y ~ .", {}
    bundled = set(list_datasets()["name"])
    df = load_dataset(name) if name in bundled else load_shared(name, shared)
    formula = dataset_formula(name) if name in bundled else "y ~ ."
    recs = _golden(shared, name) if shared is not None else {}
    r_times = {c: float(r["fit_seconds"]) for c, r in recs.items()}
    rec = recs.get("default") or recs.get("noext")
    if rec is not None:
        rows = [r - 1 for r in rec["train_rows"]]
        df = df.iloc[rows].reset_index(drop=True)
        formula = rec["formula"]
    return pd.DataFrame(df), formula, r_times


def _to_r_frame(df):
    """An R data.frame of ``df``: :func:`pybsnsing.r.convert.pandas_to_r`, except that
    numeric and factor columns without missing values go over as whole numpy buffers
    (the general converter builds Python lists, slow and large for a million rows)."""
    import numpy as np
    import pandas as pd
    import rpy2.rinterface as ri
    import rpy2.robjects as ro

    from pybsnsing.r.convert import pandas_to_r

    if df.isna().to_numpy().any():
        return pandas_to_r(df)
    cols = {}
    for c in df.columns:
        s = df[c]
        if isinstance(s.dtype, pd.CategoricalDtype):
            v = ri.IntSexpVector(s.cat.codes.to_numpy(dtype=np.int32) + 1)
            v.do_slot_assign("levels", ri.StrSexpVector([str(x) for x in s.cat.categories]))
            v.do_slot_assign("class", ri.StrSexpVector(["factor"]))
            cols[str(c)] = v
        elif pd.api.types.is_integer_dtype(s.dtype) and s.abs().max() < 2**31 - 1:
            cols[str(c)] = ri.IntSexpVector(s.to_numpy(dtype=np.int32))
        elif pd.api.types.is_numeric_dtype(s.dtype) and not pd.api.types.is_bool_dtype(s.dtype):
            cols[str(c)] = ri.FloatSexpVector(s.to_numpy(dtype=np.float64))
        else:
            return pandas_to_r(df)
    return ro.DataFrame(cols)


def _barrier() -> None:
    """With ``BENCH_BARRIER_DIR`` and ``BENCH_BARRIER_N`` set (``bench_1m.py``'s workload
    ceiling), wait until that many workers are ready, so that their timed fits start
    together."""
    where, count = os.environ.get("BENCH_BARRIER_DIR"), os.environ.get("BENCH_BARRIER_N")
    if not where or not count:
        return
    Path(where, str(os.getpid())).touch()
    give_up = time.monotonic() + BARRIER_TIMEOUT  # (a worker that failed never comes)
    while len(os.listdir(where)) < int(count) and time.monotonic() < give_up:
        time.sleep(0.01)


#: seconds a worker waits at :func:`_barrier` for the others
BARRIER_TIMEOUT = 600


def worker(spec: dict) -> dict:
    """Run one (data set, method) fit in this process; returns the result row."""
    name, method, repeat = spec["dataset"], spec["method"], int(spec["repeat"])
    shared = Path(spec["shared"]) if spec.get("shared") else None
    df, formula, r_times = _load(name, shared)
    out: dict = {"dataset": name, "n": len(df), "method": method, "note": ""}
    if method.startswith("pyb"):
        import pybsnsing
        from pybsnsing._warmup import warmup

        warmup(optimal=False)
        kw = {"import.external": False} if method == "pyb-noext" else {}

        def fit(data=df):
            m = pybsnsing.bsnsing(formula, data, **kw)
            return sum(nd.is_leaf for nd in m.nodes)

        out["r_bsnsing_s"] = r_times.get(CONFIG[method], "")
    elif method == "sklearn":
        from sklearn.tree import DecisionTreeClassifier

        from pybsnsing.design import build_design, code_response

        def xy(data):
            design, y = build_design(formula, data)
            return design.X, code_response(y).codes

        Xy = xy(df)

        def fit(data=None):
            X, codes = Xy if data is None else xy(data)
            clf = DecisionTreeClassifier(random_state=0).fit(X, codes)
            return int(clf.get_n_leaves())
    elif method == "rpart":
        from pybsnsing.r.rpart import r_available

        if not r_available():
            out.update(seconds="", leaves="", note="R/rpart/rpy2 not available: skipped")
            return out
        import rpy2.robjects as ro

        rdf = _to_r_frame(df)
        pandas_to_r = _to_r_frame
        rfit = ro.r(
            "function(d, f) { m <- rpart::rpart(stats::as.formula(f), data = d,"
            " method = 'class', control = rpart::rpart.control(xval = 0));"
            " sum(m$frame$var == '<leaf>') }"
        )

        def fit(data=None):
            return int(rfit(rdf if data is None else pandas_to_r(data), formula)[0])
    else:
        raise ValueError(f"unknown method {method!r}")
    # warm-up fit, untimed: the data set itself when small, else a 2000-row sample
    if len(df) <= 20000:
        fit()
    else:
        fit(df.sample(2000, random_state=0).reset_index(drop=True))
    out["rss_before_mib"] = round(_rss_mib(), 1)
    _barrier()
    times = []
    leaves = None
    ticks = _cpu_ticks()
    for _ in range(max(1, repeat)):
        t = time.perf_counter()
        leaves = fit()
        times.append(time.perf_counter() - t)
    out["seconds"] = statistics.median(times)
    out["steal_pct"] = _steal_pct(ticks, _cpu_ticks())
    out["runs"] = [round(t, 4) for t in times]
    out["leaves"] = leaves
    out["peak_rss_mib"] = round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1)
    # ru_maxrss and /proc/self/statm are sampled differently (the kernel updates the
    # high-water mark lazily): a difference within about 1 MiB is noise, shown as 0
    out["fit_mib"] = round(max(0.0, out["peak_rss_mib"] - out["rss_before_mib"]), 1)
    return out


# ---------------------------------------------------------------------------------------
# parent side


def datasets(sizes: list[str]) -> list[str]:
    from pybsnsing.datasets import list_datasets

    names: list[str] = []
    if "small" in sizes:
        d = list_datasets()
        names += [nm for nm, k in zip(d["name"], d["n_classes"], strict=True)
                  if k == 2 and nm != "synthetic20k"]
    for size, nm in (("20k", "synthetic20k"), ("100k", "synthetic100k"),
                     ("1m", "synthetic1m")):
        if size in sizes:
            names.append(nm)
    return names


def run_worker(spec: dict, timeout: float) -> dict:
    cmd = [sys.executable, str(Path(__file__).resolve()), "--worker", json.dumps(spec)]
    try:
        proc = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        return {**spec, "seconds": "", "note": f"timed out after {timeout:.0f}s"}
    lines = [ln for ln in proc.stdout.splitlines() if ln.startswith("{")]
    if proc.returncode != 0 or not lines:
        err = (proc.stderr.strip().splitlines() or ["?"])[-1]
        return {**spec, "seconds": "", "note": f"failed: {err[:200]}"}
    return json.loads(lines[-1])


def _fmt(v, spec: str = "") -> str:
    if v in ("", None):
        return "-"
    return format(v, spec) if spec else str(v)


def print_table(rows: list[dict]) -> None:
    head = (f"{'dataset':<14}{'n':>9} {'method':<12}{'seconds':>10}{'peak MiB':>10}"
            f"{'fit MiB':>9}{'leaves':>8}{'R bsnsing s':>12}{'vs R':>8}  note")
    print(head)
    print("-" * len(head))
    for r in rows:
        vs = ""
        if r.get("r_bsnsing_s") not in ("", None) and r.get("seconds") not in ("", None):
            vs = f"{float(r['r_bsnsing_s']) / float(r['seconds']):.1f}x"
        note = r.get("note", "")
        if r.get("vs_R_issue"):
            note = (note + " " if note else "") + f"issue's R figure / ours: {r['vs_R_issue']}"
        print(f"{r['dataset']:<14}{_fmt(r.get('n')):>9} {r['method']:<12}"
              f"{_fmt(r.get('seconds'), '.3f'):>10}{_fmt(r.get('peak_rss_mib')):>10}"
              f"{_fmt(r.get('fit_mib')):>9}{_fmt(r.get('leaves')):>8}"
              f"{_fmt(r.get('r_bsnsing_s')):>12}{vs:>8}  {note}")


def plot(rows: list[dict], path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(7.5, 5.5))
    colors = dict(zip(METHODS, ("C0", "C1", "C2", "C3"), strict=True))
    for method in METHODS:
        ok = [r for r in rows if r["method"] == method and r.get("seconds") not in ("", None)]
        small = [(int(r["n"]), float(r["seconds"])) for r in ok
                 if not r["dataset"].startswith("synthetic")]
        synth = sorted((int(r["n"]), float(r["seconds"])) for r in ok
                       if r["dataset"].startswith("synthetic"))
        if small:
            ax.plot([p[0] for p in small], [p[1] for p in small], "o", ms=3, alpha=0.6,
                    color=colors[method])
        if synth:
            ax.plot([p[0] for p in synth], [p[1] for p in synth], "o-", ms=5,
                    color=colors[method])
        if small or synth:
            ax.plot([], [], "o-", color=colors[method], label=method)
    fixture = [(int(r["n"]), float(r["r_bsnsing_s"])) for r in rows
               if r.get("r_bsnsing_s") not in ("", None)]
    if fixture:
        ax.plot([p[0] for p in fixture], [p[1] for p in fixture], "+", ms=7, color="k",
                alpha=0.7, label="R bsnsing 1.0.1 (golden fixtures, same rows)")
    for method, fig_s in R_ISSUE.items():
        r20 = [r for r in rows if r["dataset"] == "synthetic20k" and r["method"] == method]
        if r20:
            ax.plot([int(r20[0]["n"])], [fig_s], "x", ms=9, color=colors[method],
                    label=f"R bsnsing, issue figure ({CONFIG[method]})")
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("training rows n")
    ax.set_ylabel("fit seconds")
    ax.set_title("Tree fit time (dots: bundled sets; lines: synthetic 20k/100k/1m)")
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--shared", type=Path, default=DEFAULT_SHARED,
                    help="reference material (golden records, synthetic data)")
    ap.add_argument("--quick", action="store_true", help="small data sets only")
    ap.add_argument("--sizes", nargs="+", choices=SIZES, default=list(SIZES))
    ap.add_argument("--methods", nargs="+", choices=METHODS, default=list(METHODS))
    ap.add_argument("--repeat", type=int, default=3, help="fits per small data set")
    ap.add_argument("--timeout", type=float, default=1200.0, help="seconds per worker")
    ap.add_argument("--out", type=Path, default=RESULTS / "fit.csv")
    ap.add_argument("--worker", help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    if args.worker:
        print(json.dumps(worker(json.loads(args.worker))))
        return 0
    shared = args.shared if args.shared.is_dir() else None
    sizes = ["small"] if args.quick else args.sizes
    if shared is None:
        print(f"note: no reference material at {args.shared}: bundled data only, "
              "no golden training rows, no R bsnsing times")
        sizes = [s for s in sizes if s in ("small", "20k")]
    rows: list[dict] = []
    jobs = [(name, method) for name in datasets(sizes) for method in args.methods]
    bar = tqdm(jobs, desc="fits", unit="fit", file=sys.stderr)
    for name, method in bar:
        bar.set_postfix_str(f"{name} {method}")
        big = name in ("synthetic100k", "synthetic1m")
        spec = {"dataset": name, "method": method, "repeat": 1 if big else args.repeat,
                "shared": str(shared) if shared else ""}
        t = time.perf_counter()
        row = run_worker(spec, args.timeout)
        if name == "synthetic20k" and method in R_ISSUE and row.get("seconds"):
            row["vs_R_issue"] = f"{R_ISSUE[method] / float(row['seconds']):.0f}x"
        rows.append(row)
        bar.write(f"  {name} {method}: {_fmt(row.get('seconds'), '.3f')} s "
                  f"(worker {time.perf_counter() - t:.1f} s) {row.get('note', '')}",
                  file=sys.stderr)
    print()
    print_table(rows)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    fields = ["dataset", "n", "method", "seconds", "runs", "peak_rss_mib", "rss_before_mib",
              "fit_mib", "leaves", "r_bsnsing_s", "vs_R_issue", "note"]
    with open(args.out, "w", newline="") as fh:
        w = csv.DictWriter(fh, fieldnames=fields, extrasaction="ignore")
        w.writeheader()
        w.writerows(rows)
    png = args.out.with_suffix(".png")
    plot(rows, png)
    print(f"\nwrote {args.out} and {png}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
