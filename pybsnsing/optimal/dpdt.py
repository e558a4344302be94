"""DPDT: the whole complexity/accuracy front of decision trees in one solve.

Kohler, Akrour, Preux, "Interpretable Decision Tree Search as a Markov Decision
Process" (arXiv 2309.12701). Tree learning is an MDP over states (row subset, depth);
the actions of a state are a few candidate tests (the split nodes of a small greedy
tree fitted to the state's rows, or another generator) and "make a leaf". With the
objective

    N * L_alpha(T) = errors(T) + alpha * sum over split nodes v of cost(v) * |X_v|

(errors plus alpha times N times the expected number of tests on the training rows),
one backward induction gives the best tree for every alpha. Here every state keeps the
exact lower convex hull of its (tests, errors) points instead of a grid of alphas:

    hull(s) = lower-hull( {(0, e(s))}  U  U_a (hull(s_L) (+) hull(s_R)) + (cost_a |X_s|, 0) )

(``(+)`` the Minkowski sum of two convex chains, linear time). The root's hull is the
convex hull of the Pareto front of the trees the MDP spans; the optimum for any alpha
is read off it exactly (integer errors and tests, no floating-point ties). Ties are
broken towards fewer tests (so a leaf before a split, as dpdt-py's leaf-first
``argmax``), then the test order of the generator.

States are merged: two paths that reach the same row set at the same depth share one
state (128-bit additive row-set hashes, the role of the MurTree cache's bitset hashes).

Test generators (``tests=``):

* ``"cart"``: the paper's: the split nodes of a greedy CART tree (entropy or Gini)
  grown on the state's rows, to depth ``cart_depth`` (DPDT-K), or best-first to
  ``cart_leaves[d]`` leaves at depth d (dpdt-py's per-depth budgets; the last entry
  repeats). At the last split level (depth D - 1, children are leaves) a state's only
  test is, by default (``last_split="best"``), its fewest-errors threshold split of
  all, as in the code of the paper's experiments (its ``build_mdp`` with
  ``preselect_last_depth=True``: Table 1 is reproduced with it, on the paper's own
  training sets to 0.1 point); ``last_split="generator"`` keeps the generator's tests
  there too (the paper's Alg. 1 read literally, and dpdt-py). The package's own numba
  code on presorted lists (on 0/1 data on row sets, same tests, several times faster);
  no scikit-learn.
* ``"binary"``: 0/1 features; the ``top_b`` features of highest information gain.
* ``"all"``: every 0/1 feature: the exact optimum of L_alpha (for checks).
* ``"bsnsing"``: the OR-rules bsnsing's own ENUM search finds on the state's rows
  (a bsnsing tree of depth ``bsnsing_depth``; one per class against the others for
  more than two classes).

Public: :func:`dpdt_fit`, :func:`dpdt` (formula), :class:`DPDTResult`,
:class:`DPDTTreeModel`, :func:`cart_fit` and :func:`cart_pruning_path` (greedy CART and
its minimal cost-complexity pruning, the paper's baseline).
"""

from __future__ import annotations

import math
import numbers
import time
import warnings
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

import numpy as np
import pandas as pd

from ..errors import DPDTLimitWarning
from ..validation import as_whole, check_binary, float_values
from .model import OptimalTreeModel, OptimalTreeNode
from .solver import encode_y as _encode_y

__all__ = [
    "DPDTLimitError",
    "DPDTLimitWarning",
    "DPDTResult",
    "DPDTTreeModel",
    "Test",
    "cart_fit",
    "cart_pruning_path",
    "dpdt",
    "dpdt_fit",
]

TESTS = ("cart", "binary", "all", "bsnsing")
_FORMAT = "pybsnsing.DPDTTreeModel"
_SEED = 0x0D9D7


class DPDTLimitError(RuntimeError):
    """The MDP outgrew ``max_states`` or ``time_limit`` (with ``on_limit="raise"``)."""



# ---------------------------------------------------------------------------
# tests
# ---------------------------------------------------------------------------


@dataclass(frozen=True)
class Test:
    """A test of a split node; rows where it is TRUE go to the left child.

    kind ``"le"``: ``x[column] <= threshold``; ``"bin"``: ``x[column] == 1``;
    ``"rule"``: the bsnsing OR-rule ``rule`` (evaluated on named columns).
    """

    kind: str
    column: int = -1
    threshold: float = float("nan")
    rule: str | None = None

    def mask(self, X: np.ndarray, names: list[str]) -> np.ndarray:
        """Where the test is TRUE on the rows of ``X`` (n x p, the fitted columns)."""
        if self.kind == "le":
            with np.errstate(invalid="ignore"):
                return X[:, self.column] <= self.threshold
        if self.kind == "bin":
            return X[:, self.column] > 0.5
        from ..rules import evaluate_rule

        cols = {nm: X[:, j] for j, nm in enumerate(names)}
        return np.asarray(evaluate_rule(self.rule, cols), dtype=bool)

    def text(self, names: list[str], true: bool = True) -> str:
        """The condition of the left (``true``) or right branch."""
        if self.kind == "le":
            t = f"{self.threshold:.6g}"
            return f"{names[self.column]} {'<=' if true else '>'} {t}"
        if self.kind == "bin":
            name = names[self.column]
            var, sep, q = name.rpartition("<=")
            if sep and var and q:
                return f"{var} {'<=' if true else '>'} {q}"
            return f"{name} = {1 if true else 0}"
        return str(self.rule) if true else f"NOT ({self.rule})"

    def to_dict(self) -> dict:
        return {"kind": self.kind, "column": int(self.column),
                "threshold": None if math.isnan(self.threshold) else float(self.threshold),
                "rule": self.rule}

    @classmethod
    def from_dict(cls, d: dict) -> Test:
        thr = d.get("threshold")
        return cls(str(d["kind"]), int(d["column"]), float("nan") if thr is None else float(thr),
                   d.get("rule"))


# ---------------------------------------------------------------------------
# state spaces (how a state's rows are held and its tests generated)
# ---------------------------------------------------------------------------


class _Space:
    """What every state space holds: the DPDT kernels (``K``), the rows' class codes and
    the number of classes, and the rows' hash keys (``rnd``)."""

    def __init__(self, codes, C, rnd):
        from ..kernels import dpdt as K

        self.K = K
        self.codes = codes
        self.C = C
        self.rnd = rnd


class _CartSpace(_Space):
    """The ``"cart"`` generator's settings and its expansion of a state (the tests of a
    greedy CART tree, depth- or leaf-limited); a subclass holds the rows of a state and
    provides ``_tests``, ``_children`` and ``_min_error`` on its layout."""

    def __init__(self, n, codes, C, rnd, cart_depth, cart_leaves, min_leaf, criterion,
                 last_split="best"):
        super().__init__(codes, C, rnd)
        self.cart_depth = cart_depth
        self.cart_leaves = cart_leaves
        self.min_leaf = min_leaf
        self.crit = self.K.ENTROPY if criterion == "entropy" else self.K.GINI
        self.xlx = self.K.xlogx_table(n)
        self.best_last = last_split == "best"
        self.shortcuts = 0

    def _last_level(self, state, unit):
        """The tests of a state whose children are leaves under ``last_split="best"``:
        the fewest-errors threshold split of all (first feature, then lowest cut, of a
        tie), as the paper's code; with feature costs each feature's fewest-errors
        split (every other split of a feature has as many tests and no fewer errors)."""
        errs, thrs = self._best_cuts(state)
        ok = np.flatnonzero(errs >= 0)
        if unit and ok.size:
            ok = ok[[int(np.argmin(errs[ok]))]]
        feats = ok.astype(np.int64)
        thrs = np.ascontiguousarray(thrs[ok], dtype=np.float64)
        kk, cnt, h = self._children(state, feats, thrs)
        return feats, thrs, cnt, h, kk

    def expand(self, state, depth, greedy, last=False, unit=True):
        if last and self.best_last:
            return self._last_level(state, unit)
        if last and unit and not greedy:
            # a state whose children are leaves keeps only its fewest-errors test (unit
            # costs): when the first test of the generator (its greedy tree's root)
            # already has the fewest errors of ANY threshold split, the rest of the
            # generator's tree cannot beat it, nor precede it in test order
            feats, thrs = self._tests(state, 1, 0)
            if feats.shape[0]:
                kk, cnt, h = self._children(state, feats, thrs)
                rows = self.rows(state)
                tot = np.bincount(self.codes[rows], minlength=self.C)
                err = int(kk[0] - cnt[0].max() + (rows.shape[0] - kk[0])
                          - (tot - cnt[0]).max())
                if err == self._min_error(state):
                    self.shortcuts += 1
                    return feats, thrs, cnt, h, kk
        if greedy:
            feats, thrs = self._tests(state, 1, 0)
        elif self.cart_depth is not None:
            feats, thrs = self._tests(state, self.cart_depth, 0)
        else:
            L = self.cart_leaves[min(depth, len(self.cart_leaves) - 1)]
            feats, thrs = self._tests(state, 1 << 30, max(2, L))
        kk, cnt, h = self._children(state, feats, thrs)
        return feats, thrs, cnt, h, kk

    def test(self, f, t):
        return Test("le", int(f), float(t))


class _ThresholdSpace(_CartSpace):
    """Continuous features; a state is its rows sorted by every feature (p x n int32)."""

    def __init__(self, X, codes, C, rnd, cart_depth, cart_leaves, min_leaf, criterion,
                 last_split="best"):
        from ..kernels.sort import argsort_rows

        super().__init__(X.shape[0], codes, C, rnd, cart_depth, cart_leaves, min_leaf,
                         criterion, last_split)
        self.xt = np.ascontiguousarray(X.T, dtype=np.float64)
        self.mark = np.zeros(X.shape[0], dtype=np.uint8)
        self._argsort = argsort_rows

    def root(self):
        return np.ascontiguousarray(self._argsort(self.xt), dtype=np.int32)

    def rows(self, state):
        return state[0]

    def _tests(self, state, depth, leaves):
        return self.K.cart_tests(self.xt, self.codes, self.C, state, depth, leaves,
                                 self.min_leaf, self.crit, self.xlx, self.mark)

    def _children(self, state, feats, thrs):
        return self.K.threshold_children(self.xt, self.codes, self.C, state, feats, thrs,
                                         self.rnd)

    def _min_error(self, state):
        return self.K.min_error_split(self.xt, self.codes, self.C, state)

    def _best_cuts(self, state):
        return self.K.best_cuts(self.xt, self.codes, self.C, state, self.min_leaf)

    def child(self, state, aux, feats, a, side):
        left, right = self.K.threshold_child_orders(state, int(feats[a]), int(aux[a]), self.mark)
        return left if side == 0 else right


class _BinaryCartSpace(_CartSpace):
    """The ``"cart"`` generator on 0/1 features: a state is its row indices (int32), not
    p sorted lists; the tests (``x <= 0.5``), their order and the fronts are those of
    :class:`_ThresholdSpace` on the same data (tested), in far less time and memory."""

    def __init__(self, Xb, codes, C, rnd, cart_depth, cart_leaves, min_leaf, criterion,
                 last_split="best"):
        super().__init__(Xb.shape[0], codes, C, rnd, cart_depth, cart_leaves, min_leaf,
                         criterion, last_split)
        self.Xb = np.ascontiguousarray(Xb, dtype=np.uint8)

    def root(self):
        return np.arange(self.Xb.shape[0], dtype=np.int32)

    def rows(self, state):
        return state

    def _tests(self, state, depth, leaves):
        return self.K.cart_tests_bin(self.Xb, self.codes, self.C, state, depth, leaves,
                                     self.min_leaf, self.crit, self.xlx)

    def _children(self, state, feats, thrs):
        return self.K.zero_children(self.Xb, self.codes, self.C, state, feats, self.rnd)

    def _min_error(self, state):
        return self.K.min_error_split_bin(self.Xb, self.codes, self.C, state)

    def _best_cuts(self, state):
        errs = self.K.best_cuts_bin(self.Xb, self.codes, self.C, state, self.min_leaf)
        return errs, np.full(errs.shape[0], 0.5)

    def child(self, state, aux, feats, a, side):
        col = self.Xb[state, int(feats[a])]
        return state[col == 0] if side == 0 else state[col == 1]


class _BinarySpace(_Space):
    """0/1 features; a state is its row indices (int32)."""

    def __init__(self, Xb, codes, C, rnd, top_b):
        super().__init__(codes, C, rnd)
        self.Xb = np.ascontiguousarray(Xb, dtype=np.uint8)
        self.top_b = top_b  # None = all features

    def root(self):
        return np.arange(self.Xb.shape[0], dtype=np.int32)

    def rows(self, state):
        return state

    def expand(self, state, depth, greedy, last=False, unit=True):
        cnt, h = self.K.binary_children(self.Xb, state, self.codes, self.C, self.rnd)
        m = cnt.shape[0]
        feats = np.arange(m, dtype=np.int64)
        if self.top_b is not None or greedy:
            n = state.shape[0]
            tot = np.bincount(self.codes[state], minlength=self.C)
            gain = _info_gain(tot, cnt)
            kL = cnt.sum(axis=1)
            gain[(kL == 0) | (kL == n)] = -np.inf
            order = np.argsort(-gain, kind="stable")
            keep = 1 if greedy else self.top_b
            order = order[:keep]
            order = order[np.isfinite(gain[order])]
            feats = np.sort(order).astype(np.int64)
            cnt = cnt[feats]
            h = h[feats]
        return feats, np.full(feats.shape[0], 0.5), cnt, h, None

    def child(self, state, aux, feats, a, side):
        col = self.Xb[state, int(feats[a])]
        return state[col == 1] if side == 0 else state[col == 0]

    def test(self, f, t):
        return Test("bin", int(f))


class _RuleSpace(_Space):
    """bsnsing OR-rules found on the state's rows; a state is its row indices."""

    def __init__(self, X, names, codes, C, rnd, control, depth, costs):
        super().__init__(codes, C, rnd)
        self.X = np.asfortranarray(X, dtype=np.float64)
        self.names = list(names)
        self.control = control
        self.depth = depth
        self.rules: list[str] = []
        self.rule_id: dict[str, int] = {}
        self.rule_cost: list[float] = []
        self.costs = costs
        from ..tree import effective_node_size

        self.node_size = effective_node_size(control, X.shape[0])

    def root(self):
        return np.arange(self.X.shape[0], dtype=np.int32)

    def rows(self, state):
        return state

    def _cols(self, rows):
        return {nm: self.X[rows, j] for j, nm in enumerate(self.names)}

    def _grow(self, rows, yk, depth, out):
        from ..rules import evaluate_rule
        from ..tree import find_rule

        n = rows.shape[0]
        n1 = int(yk.sum())
        n0 = n - n1
        if depth <= 0 or n1 == 0 or n0 == 0 or n <= self.node_size:
            return
        if max(n1, n0) / n >= self.control.stop_prob:
            return
        target = 1 if n1 >= n0 else 0
        rule = find_rule(self.X[rows], self.names, yk, target, self.control, self.node_size)
        if not rule:
            return
        mask = np.asarray(evaluate_rule(rule, self._cols(rows)), dtype=bool)
        k = int(mask.sum())
        if k == 0 or k == n:
            return
        out.append(rule)
        if depth > 1:
            self._grow(rows[mask], yk[mask], depth - 1, out)
            self._grow(rows[~mask], yk[~mask], depth - 1, out)

    def expand(self, state, depth, greedy, last=False, unit=True):
        from ..rules import evaluate_rule, rule_variables

        ycode = self.codes[state]
        found: list[str] = []
        targets = [1] if self.C == 2 else [int(c) for c in np.unique(ycode)]
        for k in targets:
            self._grow(state, (ycode == k).astype(np.int64), 1 if greedy else self.depth, found)
            if greedy and found:
                break
        feats, masks = [], []
        cols = self._cols(state)
        for rule in dict.fromkeys(found):
            rid = self.rule_id.get(rule)
            if rid is None:
                rid = len(self.rules)
                self.rules.append(rule)
                self.rule_id[rule] = rid
                if self.costs is None:
                    self.rule_cost.append(1.0)
                else:
                    used = rule_variables(rule)
                    self.rule_cost.append(float(sum(self.costs[self.names.index(v)]
                                                    for v in used)))
            feats.append(rid)
            masks.append(np.asarray(evaluate_rule(rule, cols), dtype=bool))
        B = len(feats)
        cnt = np.zeros((B, self.C), dtype=np.int64)
        h = np.zeros((B, 2), dtype=np.int64)
        for a in range(B):
            cnt[a], h[a] = self.K.mask_stats(masks[a], state, self.codes, self.C, self.rnd)
        return np.asarray(feats, dtype=np.int64), np.full(B, np.nan), cnt, h, masks

    def child(self, state, aux, feats, a, side):
        return state[aux[a]] if side == 0 else state[~aux[a]]

    def test(self, f, t):
        return Test("rule", -1, float("nan"), self.rules[int(f)])


def _info_gain(tot: np.ndarray, cnt: np.ndarray) -> np.ndarray:
    """Information gain (nats x rows) of every test with left class counts ``cnt``."""

    def xlx(a):
        a = np.asarray(a, dtype=float)
        return np.where(a > 0, a * np.log(np.where(a > 0, a, 1.0)), 0.0)

    n = tot.sum()
    parent = xlx(n) - xlx(tot).sum()
    left = cnt
    right = tot[None, :] - cnt
    nl = left.sum(axis=1)
    nr = right.sum(axis=1)
    child = xlx(nl) - xlx(left).sum(axis=1) + xlx(nr) - xlx(right).sum(axis=1)
    return parent - child


# ---------------------------------------------------------------------------
# the MDP and its backward induction (hulls)
# ---------------------------------------------------------------------------


class _Store:
    """States and their hulls (growable flat arrays)."""

    def __init__(self) -> None:
        self.cap = 1 << 12
        self.HT = np.zeros(self.cap, dtype=np.float64)
        self.HE = np.zeros(self.cap, dtype=np.int64)
        self.HA = np.zeros(self.cap, dtype=np.int64)
        self.HL = np.zeros(self.cap, dtype=np.int64)
        self.HR = np.zeros(self.cap, dtype=np.int64)
        self.size = 0
        self.scap = 1 << 10
        self.h_off = np.zeros(self.scap, dtype=np.int64)
        self.h_len = np.zeros(self.scap, dtype=np.int64)
        self.n_states = 0
        self.n_rows: list[int] = []
        self.counts: list[np.ndarray] = []
        self.feats: list[np.ndarray | None] = []
        self.thrs: list[np.ndarray | None] = []
        self.lids: list[np.ndarray | None] = []
        self.rids: list[np.ndarray | None] = []
        self.depth: list[int] = []

    def reserve(self, extra: int) -> None:
        need = self.size + extra
        if need > self.cap:
            cap = self.cap
            while cap < need:
                cap *= 2
            for nm in ("HT", "HE", "HA", "HL", "HR"):
                old = getattr(self, nm)
                new = np.zeros(cap, dtype=old.dtype)
                new[: self.size] = old[: self.size]
                setattr(self, nm, new)
            self.cap = cap

    def add_state(self, length: int, n: int, counts, feats, thrs, lids, rids, depth) -> int:
        sid = self.n_states
        if sid == self.scap:
            self.scap *= 2
            for nm in ("h_off", "h_len"):
                old = getattr(self, nm)
                new = np.zeros(self.scap, dtype=np.int64)
                new[:sid] = old[:sid]
                setattr(self, nm, new)
        self.h_off[sid] = self.size
        self.h_len[sid] = length
        self.size += length
        self.n_states += 1
        self.n_rows.append(n)
        self.counts.append(counts)
        self.feats.append(feats)
        self.thrs.append(thrs)
        self.lids.append(lids)
        self.rids.append(rids)
        self.depth.append(depth)
        return sid


class _Builder:
    def __init__(self, space, D, cost_of, max_states, deadline, on_limit):
        self.K = space.K
        self.space = space
        self.D = D
        self.cost_of = cost_of
        self.max_states = max_states
        self.deadline = deadline
        self.on_limit = on_limit
        self.store = _Store()
        self.cache: dict[tuple[int, int, int], int] = {}
        self.terminal = 0
        self.expanded = 0
        self.greedy = False
        self.limit_reason: str | None = None
        self.cache_hits = 0
        self.unit_costs = True

    # ---- limits
    def _check_limits(self) -> None:
        if self.greedy:
            return
        reason = None
        if self.store.n_states + self.terminal > self.max_states:
            reason = f"more than max_states = {self.max_states} states"
        elif self.deadline is not None and time.perf_counter() > self.deadline:
            reason = "the time limit passed"
        if reason is None:
            return
        if self.on_limit == "raise":
            raise DPDTLimitError(
                f"DPDT: {reason}; use a smaller generator (cart_depth, cart_leaves, top_b), "
                "a smaller max_depth, a larger limit, or on_limit='greedy'"
            )
        self.greedy = True
        self.limit_reason = reason

    # ---- states
    def _leaf_state(self, n: int, counts: np.ndarray, depth: int) -> int:
        st = self.store
        st.reserve(1)
        e = int(n - counts.max())
        st.HT[st.size] = 0.0
        st.HE[st.size] = e
        st.HA[st.size] = -1
        st.HL[st.size] = 0
        st.HR[st.size] = 0
        return st.add_state(1, n, counts, None, None, None, None, depth)

    def solve(self, state, depth: int, counts: np.ndarray, h: tuple[int, int]) -> int:
        key = (h[0], h[1], depth)
        sid = self.cache.get(key)
        if sid is not None:
            self.cache_hits += 1
            return sid
        sid = self._solve(state, depth, counts, h)
        self.cache[key] = sid
        return sid

    def _solve(self, state, depth, counts, h) -> int:
        K = self.K
        st = self.store
        n = int(counts.sum())
        e = int(n - counts.max())
        if depth >= self.D or e == 0:
            return self._leaf_state(n, counts, depth)
        self._check_limits()
        self.expanded += 1
        feats, thrs, cntL, hL, aux = self.space.expand(
            state, depth, self.greedy, last=depth == self.D - 1, unit=self.unit_costs)
        kL = cntL.sum(axis=1)
        valid = (kL > 0) & (kL < n)
        # one test per distinct partition (first in generator order)
        hp = np.asarray(h, dtype=np.int64).view(np.uint64)
        hLu = hL.view(np.uint64)
        hRu = hp[None, :] - hLu
        hLs = hLu.view(np.int64)
        hRs = hRu.view(np.int64)
        seen = set()
        keep = []
        for a in np.flatnonzero(valid):
            k1 = (int(hLu[a, 0]), int(hLu[a, 1]))
            k2 = (int(hRu[a, 0]), int(hRu[a, 1]))
            key = (k1, k2) if k1 <= k2 else (k2, k1)
            if key in seen:
                continue
            seen.add(key)
            keep.append(a)
        keep = np.asarray(keep, dtype=np.int64)
        if keep.size == 0:
            return self._leaf_state(n, counts, depth)
        cost = self.cost_of(feats[keep]) * n
        cL = cntL[keep]
        cR = counts[None, :] - cL
        nL = kL[keep]
        if depth == self.D - 1:
            errs = (nL - cL.max(axis=1)) + ((n - nL) - cR.max(axis=1))
            self.terminal += 2 * keep.size
            good = np.flatnonzero(errs < e)
            cT = np.concatenate(([0.0], cost[good]))
            cE = np.concatenate(([e], errs[good])).astype(np.int64)
            cA = np.concatenate(([-1], np.arange(good.size))).astype(np.int64)
            st.reserve(cT.size)
            s0 = st.size
            length = K.points_hull(cT, cE, cA, st.HT[s0:], st.HE[s0:], st.HA[s0:])
            st.HL[s0:s0 + length] = 0
            st.HR[s0:s0 + length] = 0
            sel = keep[good]
            minus = np.full(sel.size, -1, dtype=np.int64)
            return st.add_state(length, n, counts, feats[sel], thrs[sel], minus, minus.copy(),
                                depth)
        lids = np.empty(keep.size, dtype=np.int64)
        rids = np.empty(keep.size, dtype=np.int64)
        for i, a in enumerate(keep):
            for side in (0, 1):
                cc = cL[i] if side == 0 else cR[i]
                hh = hLs[a] if side == 0 else hRs[a]
                ck = (int(hh[0]), int(hh[1]), depth + 1)
                cid = self.cache.get(ck)
                if cid is None:
                    cn = int(cc.sum())
                    if depth + 1 >= self.D or cn - int(cc.max()) == 0:
                        cid = self._leaf_state(cn, cc, depth + 1)
                    else:
                        child = self.space.child(state, aux, feats, a, side)
                        cid = self._solve(child, depth + 1, cc, ck[:2])
                    self.cache[ck] = cid
                else:
                    self.cache_hits += 1
                if side == 0:
                    lids[i] = cid
                else:
                    rids[i] = cid
        tot = 1 + int((st.h_len[lids] + st.h_len[rids] - 1).sum())
        st.reserve(tot)
        s0 = st.size
        length = K.combine_hull(cost, e, lids, rids, st.h_off, st.h_len, st.HT, st.HE,
                                st.HT[s0:], st.HE[s0:], st.HA[s0:], st.HL[s0:], st.HR[s0:])
        return st.add_state(length, n, counts, feats[keep], thrs[keep], lids, rids, depth)


# ---------------------------------------------------------------------------
# the tree model
# ---------------------------------------------------------------------------


@dataclass
class DPDTTreeModel(OptimalTreeModel):
    """A tree of the DPDT front (also CART trees of :func:`cart_fit`).

    The :class:`~pybsnsing.optimal.model.OptimalTreeModel` interface (``predict``,
    ``apply``, ``summary``, ``confusion_matrix``, ``to_dict``/``save``, ...) plus
    :meth:`plot`. A split node's ``feature`` indexes :attr:`tests`; its LEFT child holds
    the rows where the test is TRUE. ``feature_names`` are the fitted input columns.

    Extra attributes:
        tests: the distinct tests of the tree (:class:`Test`).
        avg_tests: expected number of tests on the training rows (sum over split
            nodes of rows, over N).
        avg_cost: the same weighted by the feature costs (= avg_tests without costs).
        alpha_range: the alphas (exact interval) for which DPDT selects this tree.
        method: ``"dpdt"`` or ``"cart"``; generator: the test generator.
    """

    tests: list = field(default_factory=list)
    avg_tests: float = 0.0
    avg_cost: float = 0.0
    alpha_range: tuple = (float("nan"), float("nan"))
    method: str = "dpdt"
    generator: str = ""

    # --------------------------------------------------------- input data
    def _input_matrix(self, X: Any) -> np.ndarray:
        if isinstance(X, pd.DataFrame):
            X = self._feature_frame(X, need_binarizer=False)
            A = X.to_numpy(dtype=float, na_value=np.nan)
        else:
            A = np.asarray(X, dtype=float)
            if A.ndim == 1:
                A = A.reshape(1, -1)
        if A.ndim != 2 or A.shape[1] != len(self.feature_names):
            raise ValueError(
                f"X has {A.shape[-1]} columns; the tree was fitted on {len(self.feature_names)}"
            )
        return A

    def _goes_left(self, nd: OptimalTreeNode, A: np.ndarray, here: np.ndarray) -> np.ndarray:
        # the rows where the node's test is true
        return self.tests[nd.feature].mask(A[here], self.feature_names)

    # --------------------------------------------------------------- text
    def _condition(self, parent: OptimalTreeNode, right: bool) -> str:  # type: ignore[override]
        return self.tests[parent.feature].text(self.feature_names, true=not right)

    def _headline(self) -> str:
        what = "CART tree" if self.method == "cart" else f"DPDT tree (tests={self.generator})"
        return (
            f"{what}: depth {self.depth}, {self.num_nodes} split nodes, {self.n_leaves} "
            f"leaves; {self.objective} of {self.n_samples} training rows misclassified; "
            f"{self.avg_tests:.4g} tests on average"
        )

    def summary(self) -> str:
        """A text report: the tree's place on the front, fit, confusion matrix, tree."""
        lines = [self._headline(), ""]
        if self.formula is not None:
            lines.append(f"Formula: {self.formula}")
        lines += [
            f"Settings: max_depth = {self.max_depth}, "
            + (f"test generator {self.generator}" if self.method == "dpdt"
               else f"criterion {self.generator}"),
            f"Data: {self.n_samples} rows, {self.n_features} columns, "
            f"{len(self.classes_)} classes",
            f"Misclassifications: {self.objective} (training accuracy {self.accuracy:.4f}); "
            f"expected tests {self.avg_tests:.4f}"
            + ("" if self.avg_cost == self.avg_tests else f", cost {self.avg_cost:.4f}"),
        ]
        if self.method == "dpdt":
            lo, hi = self.alpha_range
            lines.append(f"Selected for alpha in [{lo:.6g}, {hi:.6g}]"
                         + ("; optimal over all trees (tests='all')" if self.optimal else ""))
        return "\n".join(lines + self._summary_tail())

    def __repr__(self) -> str:
        return (f"<DPDTTreeModel: depth {self.depth}, {self.num_nodes} split nodes, "
                f"errors {self.objective}, avg tests {self.avg_tests:.4g}>")

    # ------------------------------------------------------- persistence
    def to_dict(self) -> dict:
        d = super().to_dict()
        d["format"] = _FORMAT
        d["tests"] = [t.to_dict() for t in self.tests]
        d["avg_tests"] = float(self.avg_tests)
        d["avg_cost"] = float(self.avg_cost)
        d["alpha_range"] = [float(a) for a in self.alpha_range]
        d["method"] = self.method
        d["generator"] = self.generator
        return d

    @classmethod
    def from_dict(cls, d: dict) -> DPDTTreeModel:
        if d.get("format") != _FORMAT:
            raise ValueError(f"not a serialised DPDTTreeModel (format {d.get('format')!r})")
        base = OptimalTreeModel.from_dict({**d, "format": "pybsnsing.OptimalTreeModel"})
        kw = {f: getattr(base, f) for f in base.__dataclass_fields__}
        return cls(**kw, tests=[Test.from_dict(t) for t in d["tests"]],
                   avg_tests=float(d["avg_tests"]), avg_cost=float(d["avg_cost"]),
                   alpha_range=tuple(d["alpha_range"]), method=d["method"],
                   generator=d["generator"])

    @classmethod
    def load(cls, path) -> DPDTTreeModel:
        import json
        from pathlib import Path

        return cls.from_dict(json.loads(Path(path).read_text()))

    # --------------------------------------------------------------- plot
    def plot(self, file: Any = None, ax: Any = None, fontsize: float = 8.0, dpi: int = 150):
        """Draw the tree with matplotlib (conditions on the edges, class and counts in
        the nodes). Saves to ``file`` when given; returns the figure."""
        return _plot_tree(self, file, ax, fontsize, dpi)


def _plot_tree(model: DPDTTreeModel, file, ax, fontsize, dpi):
    from .._optional import require

    require("plot", "DPDTTreeModel.plot (drawing a tree)")
    import matplotlib

    if ax is None:
        if file is not None:
            from matplotlib.figure import Figure

            fig = Figure()
        else:
            import matplotlib.pyplot as plt

            fig = plt.figure()
        ax = fig.add_subplot(111)
    else:
        fig = ax.figure
    pos: dict[int, tuple[float, float]] = {}
    col = [0]

    def place(k: int) -> float:
        nd = model.nodes[k]
        if nd.is_leaf:
            x = float(col[0])
            col[0] += 1
        else:
            x = (place(nd.left) + place(nd.right)) / 2
        pos[k] = (x, -float(nd.depth))
        return x

    place(0)
    width = max(col[0], 1)
    fig.set_size_inches(max(4.0, 1.9 * width), max(2.5, 1.5 * (model.depth + 1)))
    colors = matplotlib.colormaps["tab10"]
    for nd in model.nodes:
        x, y = pos[nd.id]
        if not nd.is_leaf:
            for child, right in ((nd.left, False), (nd.right, True)):
                cx, cy = pos[child]
                ax.plot([x, cx], [y, cy], color="0.4", lw=1, zorder=1)
                ax.text((x + cx) / 2, (y + cy) / 2, model._condition(nd, right),
                        ha="center", va="center", fontsize=fontsize * 0.9,
                        bbox=dict(boxstyle="round,pad=0.15", fc="white", ec="none"), zorder=3)
        label = f"{model.classes_[nd.prediction]}\n{'/'.join(str(int(c)) for c in nd.counts)}"
        ax.text(x, y, label, ha="center", va="center", fontsize=fontsize, zorder=4,
                bbox=dict(boxstyle="round,pad=0.3",
                          fc=colors(nd.prediction % 10) if nd.is_leaf else "white",
                          ec=colors(nd.prediction % 10), alpha=0.9))
    ax.set_xlim(-0.7, width - 0.3)
    ax.set_ylim(-model.depth - 0.5, 0.5)
    ax.axis("off")
    ax.set_title(model._headline(), fontsize=fontsize)
    if file is not None:
        fig.savefig(file, dpi=dpi)
    return fig


# ---------------------------------------------------------------------------
# the result
# ---------------------------------------------------------------------------


def _select(E: np.ndarray, T: np.ndarray, alpha: float) -> int:
    """Index of the hull vertex DPDT picks at ``alpha`` (exact; ties: fewer tests)."""
    a = Fraction(float(alpha))
    for i in range(len(E) - 1):
        # vertex i beats every later one iff alpha >= its breakpoint with i + 1
        if a * Fraction(float(T[i + 1] - T[i])) >= int(E[i] - E[i + 1]):
            return i
    return len(E) - 1


@dataclass
class DPDTResult:
    """All trees DPDT found: one per vertex of the (tests, errors) convex hull.

    Attributes:
        front: one row per distinct tree, fewest tests first: ``alpha_min``,
            ``alpha_max`` (the grid alphas that select it; with ``exact_hull`` the exact
            interval), ``errors``, ``accuracy`` (training), ``avg_tests`` (expected
            number of tests on the training rows), ``avg_cost`` (weighted by the
            feature costs), ``n_nodes`` (split nodes), ``n_leaves``, ``depth``,
            ``objective`` (``L_alpha`` at ``alpha_min``).
        hull: every vertex of the root's hull (same columns, exact alpha intervals).
        alphas: the alpha grid.
        classes_, n_samples, max_depth, tests, runtime, stats, complete.
        criterion, last_split: the ``"cart"`` generator's settings.
    """

    front: pd.DataFrame
    hull: pd.DataFrame
    alphas: np.ndarray
    classes_: np.ndarray
    n_samples: int
    max_depth: int
    tests: str
    runtime: float
    stats: dict
    complete: bool
    feature_names: list[str]
    criterion: str = "entropy"
    last_split: str = "best"
    _X: np.ndarray = field(repr=False, default=None)
    _codes: np.ndarray = field(repr=False, default=None)
    _builder: Any = field(repr=False, default=None)
    _root: int = field(repr=False, default=0)
    _front_vertex: np.ndarray = field(repr=False, default=None)
    design: Any = field(repr=False, default=None)
    binarizer: Any = field(repr=False, default=None)
    formula: str | None = None

    # ----------------------------------------------------------- trees
    def _vertex_tree(self, v: int) -> DPDTTreeModel:
        b = self._builder
        st = b.store
        space = b.space
        X = self._X
        codes = self._codes
        C = len(self.classes_)
        nodes: list[OptimalTreeNode] = []
        tests: list[Test] = []
        test_id: dict[Test, int] = {}

        def rec(sid: int, vi: int, rows: np.ndarray, depth: int) -> int:
            counts = np.bincount(codes[rows], minlength=C).astype(np.int64)
            k = len(nodes)
            node = OptimalTreeNode(id=k, depth=depth, feature=-1, feature_name=None, left=-1,
                                   right=-1, counts=counts, prediction=int(np.argmax(counts)))
            nodes.append(node)
            if sid < 0:
                return k
            p = st.h_off[sid] + vi
            a = int(st.HA[p])
            if a < 0:
                return k
            t = space.test(st.feats[sid][a], st.thrs[sid][a])
            if t not in test_id:
                test_id[t] = len(tests)
                tests.append(t)
            node.feature = test_id[t]
            node.feature_name = t.text(self.feature_names)
            true = t.mask(X[rows], self.feature_names)
            node.left = rec(int(st.lids[sid][a]), int(st.HL[p]), rows[true], depth + 1)
            node.right = rec(int(st.rids[sid][a]), int(st.HR[p]), rows[~true], depth + 1)
            return k

        rec(self._root, v, np.arange(X.shape[0]), 0)
        row = self.hull.iloc[v]
        errors = sum(nd.errors for nd in nodes if nd.is_leaf)
        if errors != int(row.errors):  # pragma: no cover - internal consistency check
            raise RuntimeError(f"DPDT internal error: tree has {errors} errors, hull "
                               f"vertex {int(row.errors)}")
        return DPDTTreeModel(
            nodes=nodes, classes_=self.classes_, feature_names=list(self.feature_names),
            objective=int(errors), optimal=bool(self.tests == "all" and self.complete),
            runtime=self.runtime, max_depth=self.max_depth, max_num_nodes=None,
            n_samples=self.n_samples, stats=dict(self.stats), formula=self.formula,
            design=self.design, binarizer=self.binarizer, tests=tests,
            avg_tests=float(row.avg_tests), avg_cost=float(row.avg_cost),
            alpha_range=(float(row.alpha_min), float(row.alpha_max)), method="dpdt",
            generator=self.tests,
        )

    def tree(self, i: int = -1) -> DPDTTreeModel:
        """The tree of row ``i`` of :attr:`front` (default: the last, most accurate)."""
        n = len(self.front)
        if not -n <= i < n:
            raise IndexError(f"the front has {n} trees")
        return self._vertex_tree(int(self._front_vertex[i]))

    def tree_at(self, alpha: float) -> DPDTTreeModel:
        """The tree DPDT selects for ``alpha`` (any alpha >= 0, not only the grid)."""
        v = _select(self.hull.errors.to_numpy(), self.hull["T"].to_numpy(), alpha)
        return self._vertex_tree(v)

    @property
    def trees(self) -> list[DPDTTreeModel]:
        return [self.tree(i) for i in range(len(self.front))]

    def objective(self, alpha: float) -> float:
        """The optimal ``L_alpha`` (errors / N + alpha * expected tests) at ``alpha``."""
        E = self.hull.errors.to_numpy()
        T = self.hull["T"].to_numpy()
        v = _select(E, T, alpha)
        return (float(E[v]) + float(alpha) * float(T[v])) / self.n_samples

    def scores(self, X: Any, y: Any) -> pd.DataFrame:
        """Accuracy and average number of tests of every front tree on ``(X, y)``."""
        rows = []
        y = np.asarray(y)
        for i in range(len(self.front)):
            t = self.tree(i)
            pred = t.predict(X)
            rows.append({"accuracy": float(np.mean(pred == y)),
                         "avg_tests": _avg_tests(t, X)})
        return pd.DataFrame(rows, index=self.front.index)

    def best(self, X_val: Any, y_val: Any) -> DPDTTreeModel:
        """The front tree with the best accuracy on ``(X_val, y_val)`` (paper §6.3);
        ties go to fewer expected tests. Its front row is ``model.front_index``."""
        sc = self.scores(X_val, y_val)
        order = sorted(range(len(sc)), key=lambda i: (-sc.accuracy.iloc[i],
                                                      self.front.avg_tests.iloc[i]))
        tree = self.tree(order[0])
        tree.front_index = order[0]  # type: ignore[attr-defined]
        tree.validation_accuracy = float(sc.accuracy.iloc[order[0]])  # type: ignore[attr-defined]
        return tree

    def predict(self, X: Any, alpha: float = 0.0, type: str = "class") -> np.ndarray:
        """Predictions of the tree selected for ``alpha`` (default 0: most accurate)."""
        return self.tree_at(alpha).predict(X, type=type)

    # ------------------------------------------------------------ text
    def __str__(self) -> str:
        head = (f"DPDT front: {len(self.front)} trees (tests={self.tests}, max_depth="
                f"{self.max_depth}, {len(self.alphas)} alphas), {self.n_samples} rows, "
                f"{self.stats.get('states', 0)} states, {self.runtime:.3f} s")
        if not self.complete:
            head += f" [limit reached: {self.stats.get('limit')}; rest greedy]"
        cols = ["alpha_min", "alpha_max", "errors", "accuracy", "avg_tests", "n_nodes", "depth"]
        return head + "\n" + self.front[cols].to_string(float_format=lambda v: f"{v:.4g}")

    def __repr__(self) -> str:
        return (f"<DPDTResult: {len(self.front)} trees, tests={self.tests}, "
                f"max_depth={self.max_depth}>")

    # ------------------------------------------------------------ plot
    def plot(self, file: Any = None, ax: Any = None, metric: str = "accuracy",
             cart: bool = False, X: Any = None, y: Any = None, dpi: int = 150):
        """Plot the front: ``metric`` (``"accuracy"`` or ``"errors"``) against the
        average number of tests. With ``cart=True`` CART's cost-complexity pruning path
        (same depth, same training data, the generator's criterion) is drawn beside it.
        With ``X, y`` the trees are scored on that data instead of the training data."""
        if metric not in ("accuracy", "errors"):
            raise ValueError("metric must be 'accuracy' or 'errors'")
        from .._optional import require

        require("plot", "DPDTResult.plot (drawing the front)")
        if ax is None:
            if file is not None:
                from matplotlib.figure import Figure

                fig = Figure(figsize=(5.5, 4))
            else:
                import matplotlib.pyplot as plt

                fig = plt.figure(figsize=(5.5, 4))
            ax = fig.add_subplot(111)
        else:
            fig = ax.figure
        if X is None:
            xs = self.front.avg_tests.to_numpy()
            acc = self.front.accuracy.to_numpy()
            n = self.n_samples
        else:
            sc = self.scores(X, y)
            xs, acc, n = sc.avg_tests.to_numpy(), sc.accuracy.to_numpy(), len(y)
        vals = acc if metric == "accuracy" else np.round((1 - acc) * n)
        ax.plot(xs, vals, "o-", drawstyle="steps-post", label=f"DPDT ({self.tests})")
        if cart:
            Xf = self._X if X is None else None
            base = cart_fit(self._X, self.classes_[self._codes], max_depth=self.max_depth,
                            criterion=self.criterion, feature_names=self.feature_names)
            path = cart_pruning_path(base)
            pts = []
            for _a, t in path:
                if Xf is not None:
                    pa, pn = t.accuracy, t.avg_tests
                else:
                    pa = float(np.mean(t.predict(X) == np.asarray(y)))
                    pn = _avg_tests(t, X)
                pts.append((pn, pa))
            pts.sort()
            cx = [p[0] for p in pts]
            cy = [p[1] if metric == "accuracy" else round((1 - p[1]) * n) for p in pts]
            ax.plot(cx, cy, "s--", drawstyle="steps-post", label="CART pruning path")
        ax.set_xlabel("average number of tests")
        ax.set_ylabel("accuracy" if metric == "accuracy" else "errors")
        ax.legend(loc="best")
        ax.grid(alpha=0.3)
        if file is not None:
            fig.savefig(file, dpi=dpi)
        return fig


def _avg_tests(model: DPDTTreeModel, X: Any) -> float:
    """Average number of tests ``model`` performs on the rows of ``X``."""
    leaf = model.apply(X)
    depth = np.array([nd.depth for nd in model.nodes], dtype=float)
    return float(depth[leaf].mean()) if leaf.size else float("nan")


# ---------------------------------------------------------------------------
# dpdt_fit
# ---------------------------------------------------------------------------


def _alpha_grid(alphas: Any) -> np.ndarray:
    if isinstance(alphas, numbers.Integral) and not isinstance(alphas, bool):
        if alphas < 1:
            raise ValueError("alphas must be >= 1 (the number of grid points) or an array")
        return np.linspace(0.0, 1.0, int(alphas)) if alphas > 1 else np.zeros(1)
    a = np.asarray(alphas, dtype=float).ravel()
    if a.size == 0 or not np.all(np.isfinite(a)) or (a < 0).any():
        raise ValueError("alphas must be finite values >= 0")
    return np.unique(a)


def _as_matrix(X: Any) -> tuple[np.ndarray, list[str]]:
    A = float_values(X, "X must be numeric", convert="cmMOSUVa")
    if isinstance(X, pd.DataFrame):
        names = [str(c) for c in X.columns]
    else:
        A = np.asarray(A, dtype=float)
        if A.ndim != 2:
            raise ValueError(f"X must be 2-dimensional, got {A.ndim} dimension(s)")
        names = [f"x{j}" for j in range(A.shape[1])]
    if A.ndim != 2:
        raise ValueError("X must be 2-dimensional")
    if not np.all(np.isfinite(A)):
        raise ValueError("X contains missing or infinite values; impute them first "
                         "(dpdt(formula, data) imputes medians as bsnsing does)")
    return np.ascontiguousarray(A), names


def dpdt_fit(
    X: Any, y: Any, max_depth: int = 3, *,
    tests: str = "cart", cart_depth: int | None = None, cart_leaves: Any = (3,),
    criterion: str = "entropy", last_split: str = "best", top_b: int = 10,
    bsnsing_depth: int = 2,
    bsnsing_control: Any = None, alphas: Any = 1000, feature_costs: Any = None,
    min_samples_leaf: int = 1, max_states: int = 1_000_000, time_limit: float | None = None,
    on_limit: str = "greedy", exact_hull: bool = False, random_state: int = 0,
) -> DPDTResult:
    """Fit DPDT: the best trees of depth <= ``max_depth`` for every complexity penalty.

    Minimises ``L_alpha(T) = errors/N + alpha * (expected number of tests on the
    training rows)`` over the trees whose tests come from the generator, for every
    ``alpha`` at once (see the module docstring).

    Args:
        X: features (n x p): numbers (``"cart"``, ``"bsnsing"``) or 0/1 (``"binary"``,
            ``"all"``; ``"cart"`` works on 0/1 data too). Array or data frame.
        y: class labels (any number of classes).
        max_depth: the depth limit D.
        tests: the test generator: ``"cart"``, ``"binary"``, ``"all"`` or ``"bsnsing"``.
        cart_depth: for ``"cart"``: the depth K of the greedy tree per state (DPDT-K).
            None: use ``cart_leaves``.
        cart_leaves: for ``"cart"`` without ``cart_depth``: leaves of the best-first
            greedy tree at each depth (a sequence; the last entry repeats; 2 = one split).
            dpdt-py's ``cart_nodes_list`` uses 2 past the end of its list: pass
            ``(*its_list, 2)`` for the same generator.
        criterion: ``"entropy"`` (the paper's, and the code of its experiments) or
            ``"gini"`` (scikit-learn's default, which the later dpdt-py package uses)
            for the greedy trees.
        last_split: for ``"cart"``, the tests of a state at depth ``max_depth - 1``:
            ``"best"`` (default), its fewest-errors threshold split (first feature, then
            lowest cut, of a tie; with ``feature_costs`` each feature's), as the code of
            the paper's experiments (its Table 1 is reproduced with it): exact there for
            every alpha, with far fewer states; ``"generator"``, the generator's tests
            (Alg. 1 literally; dpdt-py).
        top_b: for ``"binary"``: the number of features kept per state.
        bsnsing_depth: for ``"bsnsing"``: depth of the bsnsing tree whose rules are the
            tests of a state.
        bsnsing_control: for ``"bsnsing"``: a :class:`~pybsnsing.control.BsControl` or a
            dict of ``bscontrol()`` parameters (default: bsnsing's defaults).
        alphas: the alpha grid: a number of points in [0, 1] (``linspace``) or values.
        feature_costs: per-column costs >= 1 (a test costs its column's cost; a
            bsnsing rule the sum over its columns). Default: every test costs 1.
        min_samples_leaf: the greedy CART trees' minimum leaf size.
        max_states: the state budget (MDP states, terminal ones included).
        time_limit: seconds (None: no limit).
        on_limit: ``"greedy"`` (default): past a limit, new states get only their
            generator's first test (DPDT-1), with a :class:`DPDTLimitWarning` and
            ``complete = False``; ``"raise"``: :class:`DPDTLimitError`.
        exact_hull: the front lists every vertex of the convex hull (exact alpha
            intervals) instead of the trees the grid selects.
        random_state: seed of the row-set hashes.

    Returns:
        :class:`DPDTResult`.
    """
    t0 = time.perf_counter()
    max_depth, min_samples_leaf, max_states, cart_depth, leaves, grid = _checked_settings(
        max_depth, tests, criterion, on_limit, min_samples_leaf, max_states, cart_depth,
        cart_leaves, alphas, time_limit, last_split)
    A, names, classes, codes, costs = _fit_data(X, y, tests, feature_costs)
    n, C = A.shape[0], len(classes)
    rnd = _hash_keys(n, random_state)
    space: Any = (_cart_space(A, codes, C, rnd, cart_depth, leaves, min_samples_leaf,
                              criterion, last_split) if tests == "cart"
                  else _other_space(tests, A, names, codes, C, rnd, costs, bsnsing_control,
                                    bsnsing_depth, top_b))
    b = _Builder(space, max_depth, _cost_function(tests, space, costs), max_states,
                 None if time_limit is None else t0 + float(time_limit), on_limit)
    b.unit_costs = costs is None
    root = _solve_root(b, space, codes, C, rnd)
    hull, front, vert = _front_tables(b, root, n, grid, exact_hull)
    return DPDTResult(
        front=front, hull=hull, alphas=grid, classes_=classes, n_samples=n,
        max_depth=max_depth, tests=tests, runtime=time.perf_counter() - t0,
        stats=_fit_stats(b, space, len(hull)), complete=not b.greedy, feature_names=names,
        criterion=criterion, last_split=last_split, _X=A, _codes=codes, _builder=b,
        _root=root, _front_vertex=vert,
    )


def _other_space(tests: str, A: np.ndarray, names: list, codes: np.ndarray, C: int,
                 rnd: np.ndarray, costs: Any, bsnsing_control: Any, bsnsing_depth: int,
                 top_b: int) -> Any:
    """The test space of the ``"bsnsing"``, ``"binary"`` and ``"all"`` generators."""
    if tests == "bsnsing":
        return _RuleSpace(A, names, codes, C, rnd, _bsnsing_control(bsnsing_control),
                          as_whole(bsnsing_depth, "bsnsing_depth", 1), costs)
    return _BinarySpace(A, codes, C, rnd,
                        as_whole(top_b, "top_b", 1) if tests == "binary" else None)


def _hash_keys(n: int, random_state: int) -> np.ndarray:
    """The (2, n) odd uint64 keys of the row-set hashes."""
    rng = np.random.default_rng([_SEED, int(random_state)])
    return rng.integers(0, 2**63, size=(2, n), dtype=np.uint64) * np.uint64(2) + np.uint64(1)


def _solve_root(b, space, codes, C, rnd):
    """Solve the root state (all rows, depth 0); its state id. Warns (for the caller of
    :func:`dpdt_fit`) when a limit made the search greedy."""
    from ..kernels import dpdt as K

    n = codes.shape[0]
    counts = np.bincount(codes, minlength=C).astype(np.int64)
    _c, hroot = K.row_stats(np.arange(n, dtype=np.int64), codes, C, rnd)
    root = b.solve(space.root(), 0, counts, (int(hroot[0]), int(hroot[1])))
    if b.greedy:  # stacklevel 3: the caller of dpdt_fit
        warnings.warn(f"DPDT: {b.limit_reason}; the remaining states were expanded greedily "
                      "(their generator's first test only)", DPDTLimitWarning, stacklevel=3)
    return root


def _fit_stats(b, space, hull_vertices):
    """The search counts of a fit (``DPDTResult.stats``)."""
    st = b.store
    return {
        "states": int(st.n_states + b.terminal),
        "expanded_states": int(b.expanded),
        "stored_states": int(st.n_states),
        "terminal_states": int(b.terminal),
        "merged": int(b.cache_hits),
        "hull_vertices": int(hull_vertices),
        "last_level_shortcuts": int(getattr(space, "shortcuts", 0)),
        "limit": b.limit_reason,
    }


def _checked_settings(max_depth, tests, criterion, on_limit, min_samples_leaf, max_states,
                      cart_depth, cart_leaves, alphas, time_limit, last_split="best"):
    """The checked settings of :func:`dpdt_fit`: (max_depth, min_samples_leaf, max_states,
    cart_depth, cart_leaves as a list, the alpha grid)."""
    max_depth = as_whole(max_depth, "max_depth", 0)
    if tests not in TESTS:
        raise ValueError(f"tests must be one of {TESTS}, not {tests!r}")
    if criterion not in ("entropy", "gini"):
        raise ValueError("criterion must be 'entropy' or 'gini'")
    if last_split not in ("best", "generator"):
        raise ValueError("last_split must be 'best' or 'generator'")
    if on_limit not in ("greedy", "raise"):
        raise ValueError("on_limit must be 'greedy' or 'raise'")
    min_samples_leaf = as_whole(min_samples_leaf, "min_samples_leaf", 1)
    max_states = as_whole(max_states, "max_states", 1)
    if cart_depth is not None:
        cart_depth = as_whole(cart_depth, "cart_depth", 1)
    leaves = [cart_leaves] if isinstance(cart_leaves, numbers.Integral) else list(cart_leaves)
    if not leaves or any(isinstance(v, bool) or not isinstance(v, numbers.Integral) or v < 2
                         for v in leaves):
        raise ValueError("cart_leaves must be integers >= 2")
    grid = _alpha_grid(alphas)
    if time_limit is not None and not (isinstance(time_limit, numbers.Real) and time_limit > 0):
        raise ValueError("time_limit must be a positive number of seconds or None")
    return max_depth, min_samples_leaf, max_states, cart_depth, leaves, grid


def _fit_data(X, y, tests, feature_costs):
    """(X as a float or 0/1 matrix, feature names, classes, int64 class codes, feature
    costs or None), checked."""
    if tests in ("binary", "all"):
        names = ([str(c) for c in X.columns] if isinstance(X, pd.DataFrame)
                 else [f"x{j}" for j in range(np.asarray(X).shape[1])])
        A = check_binary(X, "X")
    else:
        A, names = _as_matrix(X)
    n, p = A.shape
    if n == 0:
        raise ValueError("X has no rows")
    classes, codes = _encode_y(y, n)
    codes = np.ascontiguousarray(codes, dtype=np.int64)
    costs = None
    if feature_costs is not None:
        costs = np.asarray(feature_costs, dtype=float).ravel()
        if costs.shape != (p,) or not np.all(np.isfinite(costs)) or (costs < 1).any():
            raise ValueError(f"feature_costs must be {p} finite values >= 1")
    return A, names, classes, codes, costs


def _cart_space(A, codes, C, rnd, cart_depth, leaves, min_samples_leaf, criterion,
                last_split):
    """The ``"cart"`` generator's state space: on row sets for 0/1 data, else sorted rows."""
    cls = _BinaryCartSpace if A.size and np.isin(A, (0.0, 1.0)).all() else _ThresholdSpace
    return cls(A, codes, C, rnd, cart_depth, leaves, min_samples_leaf, criterion, last_split)


def _bsnsing_control(bsnsing_control):
    """``bsnsing_control`` (None, a dict or a BsControl) as a BsControl."""
    from ..control import BsControl, bscontrol

    if bsnsing_control is None:
        return bscontrol()
    if isinstance(bsnsing_control, dict):
        return bscontrol(**bsnsing_control)
    if isinstance(bsnsing_control, BsControl):
        return bsnsing_control
    raise TypeError("bsnsing_control must be a BsControl or a dict")


def _cost_function(tests, space, costs):
    """The cost of a state's tests (features or rules) as a function of their indices."""
    if tests == "bsnsing":
        def cost_of(feats):
            return np.asarray([space.rule_cost[int(f)] for f in feats], dtype=float)
    elif costs is None:
        def cost_of(feats):
            return np.ones(len(feats))
    else:
        def cost_of(feats):
            return costs[np.asarray(feats, dtype=np.int64)]
    return cost_of


def _front_tables(b, root, n, grid, exact_hull):
    """(hull, front, the hull vertex of each front row) of the root state's hull."""
    st = b.store
    off, ln = int(st.h_off[root]), int(st.h_len[root])
    E = st.HE[off:off + ln].copy()
    T = st.HT[off:off + ln].copy()
    # exact alpha intervals of the vertices: vertex i for alpha in [lo_i, hi_i)
    lo = np.zeros(ln)
    hi = np.full(ln, np.inf)
    for i in range(ln - 1):
        br = float(E[i] - E[i + 1]) / float(T[i + 1] - T[i])
        lo[i] = br
        hi[i + 1] = br
    shape = [_vertex_shape(b, root, v) for v in range(ln)]
    hull = pd.DataFrame({
        "alpha_min": lo,
        "alpha_max": hi,
        "errors": E,
        "accuracy": 1.0 - E / n,
        "avg_tests": [s[0] / n for s in shape],
        "avg_cost": T / n,
        "n_nodes": [s[1] for s in shape],
        "n_leaves": [s[1] + 1 for s in shape],
        "depth": [s[2] for s in shape],
        "T": T,
    })
    if exact_hull:
        vert = np.arange(ln)
        front = hull.copy()
    else:
        sel = np.array([_select(E, T, a) for a in grid], dtype=np.int64)
        vert = np.unique(sel)
        front = hull.iloc[vert].copy()
        front["alpha_min"] = [grid[sel == v].min() for v in vert]
        front["alpha_max"] = [grid[sel == v].max() for v in vert]
    front["objective"] = (front.errors + front.alpha_min * front["T"]) / n
    front = front.drop(columns="T").reset_index(drop=True)
    return hull, front, vert


def _vertex_shape(b: _Builder, sid: int, v: int) -> tuple[int, int, int]:
    """(sum of rows over split nodes, split nodes, depth) of a hull vertex's tree."""
    st = b.store
    p = st.h_off[sid] + v
    a = int(st.HA[p])
    if a < 0:
        return 0, 0, 0
    n = st.n_rows[sid]
    lid, rid = int(st.lids[sid][a]), int(st.rids[sid][a])
    if lid < 0:
        return n, 1, 1
    t1, k1, d1 = _vertex_shape(b, lid, int(st.HL[p]))
    t2, k2, d2 = _vertex_shape(b, rid, int(st.HR[p]))
    return n + t1 + t2, 1 + k1 + k2, 1 + max(d1, d2)


# ---------------------------------------------------------------------------
# formula front door
# ---------------------------------------------------------------------------


def dpdt(formula: str, data: pd.DataFrame, max_depth: int = 3, binarizer: Any = None,
         **kwargs: Any) -> DPDTResult:
    """:func:`dpdt_fit` from ``formula`` and ``data`` (beside :func:`murtree`).

    The design matrix is built as bsnsing builds it (R's ``model.matrix`` rules,
    missing numbers imputed with medians). ``tests="cart"`` and ``"bsnsing"`` use it
    as it is; ``"binary"`` and ``"all"`` binarise it first (by default with
    :class:`~pybsnsing.optimal.binarize.QuantileBinarizer`, as :func:`murtree`). The
    trees predict data frames of the original predictors.
    """
    from ..design import build_design
    from .binarize import QuantileBinarizer, apply_binarizer

    design, y = build_design(formula, data)
    df = pd.DataFrame(design.X, columns=design.names, index=y.index)
    tests = kwargs.get("tests", "cart")
    if tests in ("binary", "all"):
        if binarizer is None:
            binarizer = QuantileBinarizer()
        df = apply_binarizer(binarizer, df, fit=True)
    else:
        binarizer = None
    res = dpdt_fit(df, y, max_depth=max_depth, **kwargs)
    res.formula = formula if isinstance(formula, str) else str(formula)
    res.design = design
    res.binarizer = binarizer
    return res


# ---------------------------------------------------------------------------
# CART and its cost-complexity pruning path (the paper's baseline)
# ---------------------------------------------------------------------------


def cart_fit(X: Any, y: Any, max_depth: int = 3, criterion: str = "entropy",
             min_samples_leaf: int = 1, feature_names: list[str] | None = None
             ) -> DPDTTreeModel:
    """A greedy CART tree (the split code of the ``"cart"`` generator, grown to
    ``max_depth``): the tree whose subtrees DPDT with ``tests="cart"`` provably beats
    (the paper's Proposition 2)."""
    from ..kernels import dpdt as K
    from ..kernels.sort import argsort_rows

    A, names = _as_matrix(X)
    if feature_names is not None:
        names = list(feature_names)
    n = A.shape[0]
    classes, codes = _encode_y(y, n)
    codes = np.ascontiguousarray(codes, dtype=np.int64)
    C = len(classes)
    xt = np.ascontiguousarray(A.T)
    xlx = K.xlogx_table(n)
    crit = K.ENTROPY if criterion == "entropy" else K.GINI
    mark = np.zeros(n, dtype=np.uint8)
    cl = np.zeros(C, dtype=np.int64)
    ct = np.zeros(C, dtype=np.int64)
    nodes: list[OptimalTreeNode] = []
    tests: list[Test] = []
    tsum = [0]

    def rec(ordm: np.ndarray, depth: int) -> int:
        rows = ordm[0]
        counts = np.bincount(codes[rows], minlength=C).astype(np.int64)
        k = len(nodes)
        node = OptimalTreeNode(id=k, depth=depth, feature=-1, feature_name=None, left=-1,
                               right=-1, counts=counts, prediction=int(np.argmax(counts)))
        nodes.append(node)
        m = rows.shape[0]
        if depth >= max_depth or m < 2 * min_samples_leaf or (counts > 0).sum() < 2:
            return k
        j, kk, thr, _imp = K.best_split(xt, codes, ordm, 0, m, C, min_samples_leaf, crit, xlx,
                                        cl, ct)
        if j < 0:
            return k
        t = Test("le", int(j), float(thr))
        tests.append(t)
        node.feature = len(tests) - 1
        node.feature_name = t.text(names)
        tsum[0] += m
        left, right = K.threshold_child_orders(ordm, int(j), int(kk), mark)
        node.left = rec(left, depth + 1)
        node.right = rec(right, depth + 1)
        return k

    t0 = time.perf_counter()
    rec(np.ascontiguousarray(argsort_rows(xt), dtype=np.int32), 0)
    errors = sum(nd.errors for nd in nodes if nd.is_leaf)
    return DPDTTreeModel(
        nodes=nodes, classes_=classes, feature_names=names, objective=int(errors),
        optimal=False, runtime=time.perf_counter() - t0, max_depth=max_depth,
        max_num_nodes=None, n_samples=n, tests=tests, avg_tests=tsum[0] / n,
        avg_cost=tsum[0] / n, method="cart", generator=criterion,
    )


def _prune(model: DPDTTreeModel, cut: set[int]) -> DPDTTreeModel:
    """A copy of ``model`` with the nodes in ``cut`` made leaves (renumbered)."""
    nodes: list[OptimalTreeNode] = []
    tests: list[Test] = []
    tid: dict[Test, int] = {}
    tsum = 0

    def rec(k: int) -> int:
        nonlocal tsum
        nd = model.nodes[k]
        i = len(nodes)
        new = OptimalTreeNode(id=i, depth=nd.depth, feature=-1, feature_name=None, left=-1,
                              right=-1, counts=nd.counts.copy(), prediction=nd.prediction)
        nodes.append(new)
        if nd.is_leaf or k in cut:
            return i
        t = model.tests[nd.feature]
        if t not in tid:
            tid[t] = len(tests)
            tests.append(t)
        new.feature = tid[t]
        new.feature_name = nd.feature_name
        tsum += nd.n
        new.left = rec(nd.left)
        new.right = rec(nd.right)
        return i

    rec(0)
    errors = sum(nd.errors for nd in nodes if nd.is_leaf)
    return DPDTTreeModel(
        nodes=nodes, classes_=model.classes_, feature_names=model.feature_names,
        objective=int(errors), optimal=False, runtime=model.runtime,
        max_depth=model.max_depth, max_num_nodes=None, n_samples=model.n_samples,
        tests=tests, avg_tests=tsum / model.n_samples, avg_cost=tsum / model.n_samples,
        method="cart", generator=model.generator,
    )


def cart_pruning_path(model: DPDTTreeModel) -> list[tuple[float, DPDTTreeModel]]:
    """Breiman's minimal cost-complexity pruning of a CART tree (misclassification
    risk, weakest link first): ``[(alpha_eff, subtree), ...]`` from the full tree to
    the root leaf, ``alpha_eff`` in errors per leaf removed, over N."""
    N = model.n_samples
    cut: set[int] = set()
    out = [(0.0, _prune(model, cut))]

    def stats(k: int) -> tuple[int, int]:
        nd = model.nodes[k]
        if nd.is_leaf or k in cut:
            return nd.errors, 1
        e1, l1 = stats(nd.left)
        e2, l2 = stats(nd.right)
        return e1 + e2, l1 + l2

    while True:
        best = None
        for nd in model.nodes:
            if nd.is_leaf or nd.id in cut or _under_cut(model, nd.id, cut):
                continue
            e_sub, leaves = stats(nd.id)
            g = (nd.errors - e_sub) / (leaves - 1)
            if best is None or g < best[0] - 1e-12:
                best = (g, nd.id)
        if best is None:
            break
        g = best[0]
        # prune every weakest link with the same g at once
        for nd in model.nodes:
            if nd.is_leaf or nd.id in cut or _under_cut(model, nd.id, cut):
                continue
            e_sub, leaves = stats(nd.id)
            if abs((nd.errors - e_sub) / (leaves - 1) - g) <= 1e-12:
                cut.add(nd.id)
        out.append((max(g, 0.0) / N, _prune(model, cut)))
    return out


def _under_cut(model: DPDTTreeModel, k: int, cut: set[int]) -> bool:
    parent = {c: nd.id for nd in model.nodes if not nd.is_leaf for c in (nd.left, nd.right)}
    while k in parent:
        k = parent[k]
        if k in cut:
            return True
    return False
