"""A fourth live differential check: R bsnsing against pybsnsing on the real data sets.

Each case takes one data set of ``<shared>/data/tabular`` (its R column classes from
``columns.csv``, except that a double response of whole numbers, which R refuses (quirk
Q1), is read as integer in half the cases; its formula from ``manifest.csv``; the gzipped
synthetic ones are left out), a random subset of 30 to 700 of its rows, a random
train/test split and random ``bscontrol()`` values (``tests/rdiff.py``'s
:func:`draw_control`), and compares trees, printed text and predictions as
``bench/rdiff.py`` does.

Real data has what the generators do not make: design columns whose names clash (a 0/1
factor ``V1`` gives a dummy ``V11`` beside a numeric ``V11``, Ionosphere). R then
loses the rpart questions at every node, and pybsnsing keeps them (R quirk Q9,
``docs/r-quirks.md``). Such a case counts as ``R quirk Q9`` only when R's tree equals the
one pybsnsing grows without rpart questions; otherwise it is a difference.

    python bench/rdiff_real.py [--cases 150] [--seed 0] [--shared ../shared]
        [--out bench/results/session22/rdiff_real.txt]
"""

from __future__ import annotations

import argparse
import collections
import csv
import functools
import sys
import time
import warnings
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))

import rdiff  # noqa: E402


@functools.cache
def load_tables(shared: Path) -> tuple[list[dict], dict[str, dict[str, dict]]]:
    """The data sets (manifest rows) and each one's R column classes (read once; callers
    copy what they change)."""
    tab = shared / "data" / "tabular"
    with (tab / "manifest.csv").open(newline="") as fh:
        sets = [m for m in csv.DictReader(fh) if not m["file"].endswith(".gz")]
    spec: dict[str, dict[str, dict]] = collections.defaultdict(dict)
    with (tab / "columns.csv").open(newline="") as fh:
        for c in csv.DictReader(fh):
            s: dict = {"class": c["r_class"], "read": c["plain_read_csv_class"]}
            if c["levels"]:
                s["levels"] = c["levels"].split(";")
            spec[c["dataset"]][c["column"]] = s
    return sets, spec


def make_case(seed: int, shared: Path) -> rdiff.Case:
    """Case ``seed``: a random data set, rows, split and control (the response renamed
    ``y``, as the harness names it)."""
    sets, specs = load_tables(shared)
    rng = np.random.default_rng(seed)
    m = sets[int(rng.integers(0, len(sets)))]
    with (shared / "data" / "tabular" / m["file"]).open(newline="", encoding="utf-8") as fh:
        rows = list(csv.reader(fh))
    head, body = rows[0], rows[1:]
    k = int(min(len(body), rng.integers(30, 701)))
    pick = sorted(rng.choice(len(body), k, replace=False).tolist())
    resp = m["response"]
    if "y" in head and resp != "y":
        raise ValueError(f"{m['name']}: a predictor is named y")
    name = {h: ("y" if h == resp else h) for h in head}
    columns = {name[h]: [None if body[i][j] == "NA" else body[i][j] for i in pick]
               for j, h in enumerate(head)}
    spec = {name[h]: dict(specs[m["name"]].get(h, {"class": "character"})) for h in head}
    for s in spec.values():
        read = s.pop("read", None)
        # a double 0/1 response stops R (quirk Q1): half the time it is read as integer
        if s is spec["y"] and s["class"] == "numeric" and read == "integer" \
                and rng.random() < 0.5:
            s["class"] = "integer"
    ntrain = max(8, int(round(k * rng.uniform(0.5, 0.85))))
    train = sorted((rng.choice(k, ntrain, replace=False) + 1).tolist())
    chosen = set(train)
    test = [i for i in range(1, k + 1) if i not in chosen] or [1]
    control = rdiff.draw_control(rng, k, len(head))
    if control.get("max.rules", 2) >= 3 and (k > 200 or len(head) > 8):
        control["max.rules"] = 2  # R's own search takes many minutes on these
    return rdiff.Case(seed=seed, columns=columns, spec=spec,
                      formula="y ~" + m["formula"].split("~", 1)[1], control=control,
                      train_rows=train, test_rows=test, notes=[m["name"]])


def q9_explains(case: rdiff.Case, r: rdiff.Outcome, py: rdiff.Outcome) -> bool:
    """Whether a difference is R quirk Q9: pybsnsing renamed clashing design columns,
    and R's tree is the one pybsnsing grows without rpart questions (with
    ``suppress.internal``: a lone root, R having no question left)."""
    if not any("duplicate design column names" in w for w in py.warnings):
        return False
    if not case.control.get("import.external", True):
        return False
    if case.control.get("suppress.internal"):  # R is left with no question at all
        return r.error is None and all(len(t) == 1 for t in r.trees)
    bare = case.replace(control={**case.control, "import.external": False})
    with rdiff.case_csv(bare) as path:
        py_bare = rdiff.run_py(bare, path)
    return py_bare.error is None and py_bare.trees == r.trees


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--cases", type=int, default=150)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--shared", type=Path, default=ROOT.parent / "shared")
    ap.add_argument("--out", type=Path, default=None)
    args = ap.parse_args(argv)
    if (code := rdiff.r_unavailable_exit()) is not None:
        return code
    warnings.simplefilter("ignore")
    counts: collections.Counter = collections.Counter()
    by_set: collections.Counter = collections.Counter()
    r_errors: collections.Counter = collections.Counter()
    different = []
    t0 = time.perf_counter()
    for seed in range(args.seed, args.seed + args.cases):
        case = make_case(seed, args.shared)
        kind, r, py, diffs = rdiff.run_case(case)
        if kind == "different" and q9_explains(case, r, py):
            kind = "R quirk Q9"
        counts[kind] += 1
        if kind.startswith("R error"):
            r_errors[(kind, (r.error or "").splitlines()[0][:90],
                      (py.error or "fits").splitlines()[0][:90])] += 1
        by_set[(case.notes[0], kind)] += 1
        if kind == "different":
            different.append(f"seed {seed} {case.notes[0]} {case.control}: {diffs[0][:300]}")
    comparable = counts["identical"] + counts["different"] + counts["R predict error"]
    lines = [f"# bench/rdiff_real.py --cases {args.cases} --seed {args.seed}",
             f"{comparable - counts['different']}/{comparable} identical (cases R bsnsing "
             f"fits, its documented quirks aside; {args.cases} cases, seeds {args.seed}.."
             f"{args.seed + args.cases - 1}, {time.perf_counter() - t0:.0f} s)"]
    lines += [f"  {k:<22s}{v}" for k, v in counts.most_common()]
    lines += [f"  {n} x {kind}: R: {rmsg} | py: {pmsg}"
              for (kind, rmsg, pmsg), n in r_errors.most_common()]
    lines.append("by data set: " + ", ".join(f"{name} {kind} {n}"
                                             for (name, kind), n in sorted(by_set.items())))
    lines += different
    text = "\n".join(lines)
    print(text)
    if args.out is not None:
        args.out.parent.mkdir(parents=True, exist_ok=True)
        args.out.write_text(text + "\n")
    return 0 if not different else 1


if __name__ == "__main__":
    raise SystemExit(main())
