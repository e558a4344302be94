# %% [markdown]
# # DPDT: every accuracy/complexity trade-off in one solve
#
# `pybsnsing.optimal.dpdt_fit` (Kohler, Akrour, Preux, "Interpretable Decision Tree
# Search as a Markov Decision Process") searches the trees whose tests come from a
# generator (by default the split nodes of a small greedy CART tree fitted to each
# subset of rows) and returns, in one solve, the best tree for every trade-off
# between training errors and the expected number of tests a row goes through:
# the convex hull of the Pareto front. Here on the banknote data of the paper's
# tables (four folds for training, the fifth held out).

# %%
from pathlib import Path

import numpy as np
import pandas as pd
from _common import out_dir

from pybsnsing.optimal import dpdt, dpdt_fit
from pybsnsing.optimal.dpdt import cart_fit, cart_pruning_path

out = out_dir()
data = Path(__file__).resolve().parents[1] / "tests" / "data" / "continuous"
parts = [pd.read_csv(data / f"banknote.fold{k}.csv", header=None).to_numpy()
         for k in range(1, 6)]
train, test = np.vstack(parts[:4]), parts[4]
X, y = train[:, :-1], train[:, -1].astype(int)
Xt, yt = test[:, :-1], test[:, -1].astype(int)

# %% [markdown]
# DPDT-2 (a depth-2 greedy tree per state, entropy) at depth up to 4, 1000 values of
# alpha. As in the code of the paper's experiments, a state whose children are leaves
# gets its fewest-errors split of all instead (`last_split="best"`, the default;
# `"generator"` keeps the greedy tree's tests there too). Each row of the front is one
# tree: the alphas that select it, its training errors and accuracy, its average
# number of tests, nodes and depth.

# %%
res = dpdt_fit(X, y, max_depth=4, cart_depth=2, alphas=1000)
print(res)

# %% [markdown]
# Pick the tree by held-out accuracy (ties to fewer tests), print and draw it.

# %%
best = res.best(Xt, yt)
print(f"front row {best.front_index}: held-out accuracy {best.validation_accuracy:.4f}")
print(best)
best.plot(out / "dpdt_tree.png")

# %% [markdown]
# The front beside CART's cost-complexity pruning path (same depth, entropy): every
# CART subtree is in DPDT's search space, so DPDT's curve is never below CART's
# (the paper's Proposition 2).

# %%
res.plot(out / "dpdt_front.png", cart=True)
path = cart_pruning_path(cart_fit(X, y, max_depth=4))
for alpha in (0.0, 0.002, 0.01, 0.05):
    cart_best = min(t.objective + alpha * t.avg_tests * len(y) for _a, t in path) / len(y)
    print(f"alpha {alpha}: DPDT objective {res.objective(alpha):.5f} <= CART's "
          f"{cart_best:.5f}")

# %% [markdown]
# Other generators: `tests="all"` (every 0/1 feature: the exact optimum),
# `"binary"` (the most informative 0/1 features) and `"bsnsing"` (the OR-rules of
# bsnsing's own search). Through a formula, as `murtree`:

# %%
from pybsnsing.datasets import load_dataset  # noqa: E402

ky = load_dataset("kyphosis")
rules = dpdt("Kyphosis ~ .", ky, max_depth=2, tests="bsnsing", bsnsing_depth=1)
print(rules.front[["errors", "avg_tests", "n_nodes"]])
print(rules.tree())
