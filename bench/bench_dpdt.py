"""DPDT (pybsnsing.optimal.dpdt_fit) against the DPDT paper's Tables 1 and 2.

``table1``: depth-3 trees at alpha = 0, train accuracy (%) of DPDT-5 and DPDT-4
(``cart_depth`` 5 and 4) averaged over the five folds (train on four; occupancy: its
train file), runtimes side by side with the paper's (one laptop core, Python: the
ratio is indicative only), and our own greedy CART at depth 3. Generator settings as
the code of the paper's experiments by default (``--criterion entropy``,
``--last-split best``); ``--last-split generator --criterion gini`` is dpdt-py's.
With ``--binary`` also the binarised htru/magic/banknote of ``../shared/data/binary``:
DPDT-K (``tests="cart"`` on the 0/1 columns) against ``murtree_fit`` (exact) and
pystreed at depth 3.

``table2``: model selection over depth <= 5 with 1000 alphas: DPDT-3 and DPDT-2
against CART (own, entropy, depth 5) and its cost-complexity pruning path. As in the
paper (§6.3), every tree of a method is scored on the held-out fold and the best one
is reported (held-out accuracy, runtime of the whole set of trees, average number of
tests of the selected tree); averaged over the five folds. Also checks on the training
data that DPDT's front dominates CART's path (Proposition 2).

    python bench/bench_dpdt.py table1 [--datasets bank segment] [--criterion gini]
        [--last-split generator]
    python bench/bench_dpdt.py table1 --binary
    python bench/bench_dpdt.py table1 --qbnb Quant-BnB/dataset/class --out ...
    python bench/bench_dpdt.py replica --datasets segment [--qbnb ...] (needs scikit-learn)
    python bench/bench_dpdt.py table2 [--datasets bank segment] [--depths 3 2]

Writes ``bench/results/dpdt_table1.txt`` / ``dpdt_table2.txt`` (or ``--out``).
Run heavy benches one at a time on a shared machine (times are CPU seconds of this
process, ``time.process_time``, and wall seconds).
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

import numpy as np
import pandas as pd

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from pybsnsing.optimal import dpdt_fit, murtree_fit  # noqa: E402
from pybsnsing.optimal.dpdt import cart_fit, cart_pruning_path  # noqa: E402

FILES = {"htru": "HTRU_2", "magic": "magic04", "bank": "banknote", "segment": "segment",
         "occupancy": "occupancy"}
BINARY = {"htru": "HTRU_2_categorical_bin", "magic": "magic04_categorical_bin",
          "bank": "banknote_categorical_bin"}
# paper Table 1: N, acc DPDT-5, DPDT-4, CART, QBnB-opt; time DPDT-5, DPDT-4, CART
PAPER1 = {
    "htru": (14318, 98.0, 98.0, 97.9, 98.1, 11.316, 4.246, 0.055),
    "magic": (15216, 83.0, 82.7, 79.3, 83.1, 14.838, 5.443, 0.069),
    "bank": (1097, 98.0, 98.0, 95.3, 98.3, 0.158, 0.142, 0.003),
    "segment": (1848, 88.2, 88.2, 81.6, 88.7, 0.771, 0.397, 0.009),
    "occupancy": (8143, 99.4, 99.3, 99.1, 99.4, 1.458, 0.786, 0.008),
}
# paper Table 2: acc DPDT-3, DPDT-2, CART; time DPDT-3, DPDT-2, CART; tests DPDT-3, -2, CART
PAPER2 = {
    "htru": (98.0, 98.3, 98.3, 63.519, 5.189, 2.174, 1.1, 2.4, 4.7),
    "magic": (84.5, 84.8, 82.5, 98.623, 7.06, 3.189, 5.0, 4.8, 5.0),
    "bank": (99.3, 97.8, 99.3, 2.054, 0.353, 0.031, 3.2, 3.7, 3.4),
    "segment": (93.5, 93.1, 87.4, 6.488, 0.879, 0.184, 3.7, 3.9, 3.9),
    "occupancy": (99.5, 99.5, 99.5, 11.113, 1.263, 0.162, 1.0, 1.0, 1.4),
}


def shared_dir() -> Path:
    return Path(os.environ.get("PYBSNSING_SHARED", REPO.parent / "shared"))


def qbnb_split(name: str, qbnb: str):
    """The paper's own split: Quant-BnB's ``dataset/class/<name>.json`` (the DPDT paper
    runs on the 16 Quant-BnB data sets; same N, same rows, min-max scaled, constant
    columns dropped). Not shipped: pass the folder of a Quant-BnB checkout."""
    import json

    d = json.loads((Path(qbnb) / f"{name}.json").read_text())
    keep = [j for j in range(d["F"]) if len({row[j] for row in d["Xtrain"]}) >= 2]

    def arr(key):
        return np.ascontiguousarray(np.asarray(d[key], dtype=float)[:, keep])

    yield (arr("Xtrain"), np.asarray(d["Ytrain"]).astype(np.int64), arr("Xtest"),
           np.asarray(d["Ytest"]).astype(np.int64))


def splits(name: str, qbnb: str | None = None):
    """(X_train, y_train, X_test, y_test) for each fold (occupancy: one split); with
    ``qbnb`` the paper's single train/test split instead."""
    if qbnb:
        yield from qbnb_split(name, qbnb)
        return
    d = shared_dir() / "data" / "continuous"
    stem = FILES[name]

    def read(path):
        a = pd.read_csv(path, header=None).to_numpy(dtype=float)
        return np.ascontiguousarray(a[:, :-1]), a[:, -1].astype(np.int64)

    if name == "occupancy":
        yield (*read(d / "occupancy.train.csv"), *read(d / "occupancy.test.csv"))
        return
    folds = [read(d / f"{stem}.fold{k}.csv") for k in range(1, 6)]
    for k in range(5):
        Xtr = np.vstack([folds[i][0] for i in range(5) if i != k])
        ytr = np.concatenate([folds[i][1] for i in range(5) if i != k])
        yield Xtr, ytr, folds[k][0], folds[k][1]


def timed(fn, *args, **kw):
    w0, c0 = time.perf_counter(), time.process_time()
    out = fn(*args, **kw)
    return out, time.perf_counter() - w0, time.process_time() - c0


def warm() -> None:
    rng = np.random.default_rng(0)
    X = rng.random((200, 3))
    y = (X[:, 0] + X[:, 1] > 1).astype(int)
    dpdt_fit(X, y, 3, cart_depth=2)
    dpdt_fit(X, y, 3)
    cart_fit(X, y, 3)


def table1(args) -> str:
    warm()
    where = (f"the paper's own training sets (Quant-BnB json, {args.qbnb})" if args.qbnb
             else "mean of the folds")
    lines = [
        f"DPDT Table 1 (depth 3, alpha = 0, train accuracy %, {where}; criterion "
        f"{args.criterion}, last_split {args.last_split}); times: wall / CPU seconds per fit, "
        "paper's on one laptop core",
        "",
        f"{'data':10} {'N':>6} | {'DPDT-5':>7} {'paper':>6} {'diff':>5} | {'DPDT-4':>7} "
        f"{'paper':>6} {'diff':>5} | {'CART3':>6} {'paper':>6} | {'t5 wall':>8} {'t5 cpu':>7} "
        f"{'paper':>7} | {'t4 wall':>8} {'t4 cpu':>7} {'paper':>7} | {'states5':>8}",
    ]
    for name in args.datasets:
        acc = {5: [], 4: []}
        tw = {5: [], 4: []}
        tc = {5: [], 4: []}
        states = []
        cart = []
        n = []
        for Xtr, ytr, _Xte, _yte in splits(name, args.qbnb):
            n.append(len(ytr))
            for K in (5, 4):
                r, w, c = timed(dpdt_fit, Xtr, ytr, 3, cart_depth=K, alphas=[0.0],
                                criterion=args.criterion, last_split=args.last_split)
                acc[K].append(100 * r.front.accuracy.iloc[-1])
                tw[K].append(w)
                tc[K].append(c)
                if K == 5:
                    states.append(r.stats["states"])
            cart.append(100 * cart_fit(Xtr, ytr, 3, criterion="entropy").accuracy)
        P = PAPER1[name]
        a5, a4 = np.mean(acc[5]), np.mean(acc[4])
        lines.append(
            f"{name:10} {int(np.mean(n)):>6} | {a5:7.2f} {P[1]:6.1f} {a5 - P[1]:+5.2f} | "
            f"{a4:7.2f} {P[2]:6.1f} {a4 - P[2]:+5.2f} | {np.mean(cart):6.2f} {P[3]:6.1f} | "
            f"{np.mean(tw[5]):8.3f} {np.mean(tc[5]):7.3f} {P[5]:7.3f} | {np.mean(tw[4]):8.3f} "
            f"{np.mean(tc[4]):7.3f} {P[6]:7.3f} | {int(np.mean(states)):>8}"
        )
        print(lines[-1], flush=True)
    if args.binary:
        lines += ["", "Binarised data (../shared/data/binary), depth 3, alpha = 0: train "
                  "accuracy % and wall seconds", f"{'data':10} {'n':>6} {'m':>4} | "
                  f"{'DPDT-5':>7} {'t':>7} | {'DPDT-4':>7} {'t':>7} | {'murtree':>7} {'t':>7} | "
                  f"{'pystreed':>8} {'t':>7}"]
        for name in args.datasets:
            if name not in BINARY:
                continue
            a = pd.read_csv(shared_dir() / "data" / "binary" / f"{BINARY[name]}.txt.gz",
                            sep=" ", header=None).to_numpy()
            X, y = np.ascontiguousarray(a[:, 1:], dtype=np.uint8), a[:, 0].astype(np.int64)
            row = [f"{name:10} {len(y):>6} {X.shape[1]:>4}"]
            for K in (5, 4):
                r, w, _c = timed(dpdt_fit, X, y, 3, cart_depth=K, alphas=[0.0],
                                 criterion=args.criterion, last_split=args.last_split)
                row.append(f"{100 * r.front.accuracy.iloc[-1]:7.2f} {w:7.3f}")
            m, w, _c = timed(murtree_fit, X, y, 3)
            row.append(f"{100 * m.accuracy:7.2f} {w:7.3f}")
            try:
                import pystreed

                s = pystreed.STreeDClassifier(optimization_task="accuracy", max_depth=3,
                                              time_limit=600)
                _, w, _c = timed(s.fit, X, y)
                row.append(f"{100 * np.mean(s.predict(X) == y):8.2f} {w:7.3f}")
            except ImportError:
                row.append(f"{'n/a':>8} {'':>7}")
            lines.append(" | ".join(row))
            print(lines[-1], flush=True)
    return "\n".join(lines)


def _tree_tests(model, X) -> float:
    leaf = model.apply(X)
    depth = np.array([nd.depth for nd in model.nodes], dtype=float)
    return float(depth[leaf].mean())


def table2(args) -> str:
    warm()
    lines = [
        f"DPDT Table 2 style (depth <= 5, 1000 alphas, generator criterion {args.criterion}, "
        f"last_split {args.last_split}; "
        "CART: own, entropy, depth 5, cost-complexity pruning path). Held-out accuracy % "
        "of the tree that scores best "
        "on the held-out fold (paper §6.3), wall and CPU seconds for the whole set of trees "
        "(the paper's: one laptop core), "
        "average tests of the selected tree; means over the folds; paper values after '/'",
        "",
    ]
    head = f"{'data':10} |"
    for K in args.depths:
        head += (f" {'DPDT-' + str(K):>13} {'t wall':>7} {'t cpu':>14} {'tests':>9} "
                 f"{'trees':>5} |")
    head += f" {'CART':>13} {'t wall':>7} {'t cpu':>12} {'tests':>9} {'trees':>5} | dominates"
    lines.append(head)
    print(lines[-1], flush=True)
    for name in args.datasets:
        res = {K: {"acc": [], "t": [], "c": [], "tests": [], "n": []} for K in args.depths}
        cres = {"acc": [], "t": [], "c": [], "tests": [], "n": []}
        dom = True
        for Xtr, ytr, Xte, yte in splits(name):
            fronts = {}
            for K in args.depths:
                r, w, c = timed(dpdt_fit, Xtr, ytr, 5, cart_depth=K, alphas=1000,
                                criterion=args.criterion, last_split=args.last_split)
                best = r.best(Xte, yte)
                res[K]["acc"].append(100 * best.validation_accuracy)
                res[K]["t"].append(w)
                res[K]["c"].append(c)
                res[K]["tests"].append(_tree_tests(best, Xte))
                res[K]["n"].append(len(r.front))
                fronts[K] = r
            (path, w, c) = timed(lambda X=Xtr, y=ytr: cart_pruning_path(cart_fit(X, y, 5)))
            scores = [(float(np.mean(t.predict(Xte) == yte)), -t.avg_tests, i)
                      for i, (_a, t) in enumerate(path)]
            acc, _neg, i = max(scores)
            cres["acc"].append(100 * acc)
            cres["t"].append(w)
            cres["c"].append(c)
            cres["tests"].append(_tree_tests(path[i][1], Xte))
            cres["n"].append(len(path))
            # Proposition 2 on the training data: DPDT's objective <= that of every subtree
            # of CART grown with the generator's criterion
            if args.criterion != "entropy":
                path = cart_pruning_path(cart_fit(Xtr, ytr, 5, criterion=args.criterion))
            for r in fronts.values():
                for a in np.linspace(0, 0.05, 26):
                    best_cart = min(t.objective + a * t.avg_tests * t.n_samples
                                    for _a, t in path) / len(ytr)
                    if r.objective(a) > best_cart + 1e-12:
                        dom = False
        P = PAPER2.get(name, (np.nan,) * 9)
        row = f"{name:10} |"
        for K in args.depths:
            pi = {3: 0, 2: 1}.get(K)
            pa = P[pi] if pi is not None else np.nan
            pt = P[3 + pi] if pi is not None else np.nan
            pn = P[6 + pi] if pi is not None else np.nan
            row += (f" {np.mean(res[K]['acc']):6.2f}/{pa:5.1f} {np.mean(res[K]['t']):7.3f} "
                    f"{np.mean(res[K]['c']):7.3f}/{pt:6.2f} "
                    f"{np.mean(res[K]['tests']):4.2f}/{pn:3.1f} "
                    f"{np.mean(res[K]['n']):5.1f} |")
        row += (f" {np.mean(cres['acc']):6.2f}/{P[2]:5.1f} {np.mean(cres['t']):7.3f} "
                f"{np.mean(cres['c']):6.3f}/{P[5]:5.2f} "
                f"{np.mean(cres['tests']):4.2f}/{P[8]:3.1f} {np.mean(cres['n']):5.1f} | "
                f"{'yes' if dom else 'NO'}")
        lines.append(row)
        print(row, flush=True)
    return "\n".join(lines)


def _replica_errors(X, y, mask, d, D, make) -> int:
    """Alg. 1 of the paper with scikit-learn, as literally as possible: row-mask states,
    the split nodes of ``make(d)`` (a DecisionTreeClassifier) fitted to the state's
    rows, exhaustive recursion (alpha = 0: fewest errors)."""
    idx = np.flatnonzero(mask)
    leaf = len(idx) - np.bincount(y[idx]).max()
    if d == D or leaf == 0:
        return int(leaf)
    t = make(d).fit(X[idx], y[idx]).tree_
    best = leaf
    for i in range(t.node_count):
        if t.feature[i] >= 0:
            left = mask & (X[:, t.feature[i]] <= t.threshold[i])
            right = mask & ~left
            if left.any() and right.any():
                best = min(best, _replica_errors(X, y, left, d + 1, D, make)
                           + _replica_errors(X, y, right, d + 1, D, make))
    return int(best)


def replica(args) -> str:
    """DPDT-K at depth 3, alpha 0, by the scikit-learn replica and by dpdt_fit, per
    criterion and scikit-learn random_state (its feature permutation breaks ties)."""
    from sklearn.tree import DecisionTreeClassifier

    lines = [f"DPDT-K replica (scikit-learn CART per state, max_depth=K) vs dpdt_fit: depth 3, "
             f"alpha 0, train accuracy %, "
             f"{'paper split ' + args.qbnb if args.qbnb else 'mean of the folds'}", ""]
    for name in args.datasets:
        for crit in ("gini", "entropy"):
            for K in (5, 4):
                own, rep = [], {s: [] for s in args.seeds}
                for Xtr, ytr, _Xte, _yte in splits(name, args.qbnb):
                    r = dpdt_fit(Xtr, ytr, 3, cart_depth=K, alphas=[0.0], criterion=crit)
                    own.append(100 * r.front.accuracy.iloc[-1])
                    for seed in args.seeds:
                        def make(_d, K=K, crit=crit, seed=seed):
                            return DecisionTreeClassifier(max_depth=K, criterion=crit,
                                                          random_state=seed)
                        e = _replica_errors(Xtr, ytr, np.ones(len(ytr), bool), 0, 3, make)
                        rep[seed].append(100 * (1 - e / len(ytr)))
                reps = " ".join(f"{np.mean(v):.2f}" for v in rep.values())
                lines.append(f"{name:10} {crit:8} DPDT-{K}: dpdt_fit {np.mean(own):6.2f} | "
                             f"replica, random_state {args.seeds}: {reps}")
                print(lines[-1], flush=True)
    return "\n".join(lines)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("table", choices=["table1", "table2", "replica"])
    ap.add_argument("--seeds", nargs="+", type=int, default=[0, 1, 2, 3, 42],
                    help="replica: scikit-learn random_state values")
    ap.add_argument("--datasets", nargs="+", default=list(FILES))
    ap.add_argument("--criterion", default="entropy", choices=["entropy", "gini"],
                    help="criterion of DPDT's CART generator (CART's baseline: entropy)")
    ap.add_argument("--last-split", default="best", choices=["best", "generator"],
                    help="dpdt_fit's last_split: 'best' (the paper's code: the fewest-errors "
                         "split at the last split level) or 'generator' (Alg. 1 literally)")
    ap.add_argument("--depths", nargs="+", type=int, default=[3, 2])
    ap.add_argument("--binary", action="store_true")
    ap.add_argument("--qbnb", default=None, metavar="DIR",
                    help="table1 on the paper's own splits: a Quant-BnB checkout's "
                         "dataset/class folder (htru, magic, bank, segment, occupancy .json)")
    ap.add_argument("--out", default=None)
    args = ap.parse_args()
    text = {"table1": table1, "table2": table2, "replica": replica}[args.table](args)
    out = Path(args.out or REPO / "bench" / "results" / f"dpdt_{args.table}.txt")
    out.write_text(text + "\n")
    print(f"\nwritten to {out}")


if __name__ == "__main__":
    main()
