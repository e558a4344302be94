# %% [markdown]
# # Optimal trees: MurTree next to bsnsing
#
# `pybsnsing.optimal.murtree_fit` finds a provably optimal tree (fewest
# misclassifications) of a given depth on binary features, with the MurTree
# algorithm on the same counting kernels. Here both methods fit the
# tic-tac-toe data.

# %%
import time

import numpy as np
from _common import out_dir

from pybsnsing import bsnsing
from pybsnsing.datasets import load_dataset
from pybsnsing.optimal import murtree_fit

out = out_dir()
ttt = load_dataset("tictactoe")
y = ttt["V10"].to_numpy()
X = ttt.drop(columns="V10")
# one 0/1 column per (square, mark)
Xb = np.column_stack([(X[c] == v).to_numpy() for c in X.columns for v in ("x", "o")])
Xb = Xb.astype(np.uint8)
print(Xb.shape)

# %%
for depth in (2, 3, 4):
    t0 = time.perf_counter()
    opt = murtree_fit(Xb, y, max_depth=depth)
    print(f"murtree depth {depth}: {opt.objective} training errors "
          f"(optimal: {opt.optimal}) in {time.perf_counter() - t0:.2f} s")

bs = bsnsing("V10 ~ .", ttt, import_external=False)
errors = int(np.sum(bs.predict(ttt, type="class") != y))
print(f"bsnsing: {bs.n_splits} splits, {errors} training errors")
print(opt)
