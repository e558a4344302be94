# %% [markdown]
# # Speed
#
# The split search and binarization are numba kernels compiled once and cached
# on disk (`cache=True`); the first fit in a fresh process loads them, later
# fits reuse them. The full benchmark suite is in `bench/` (see README).

# %%
import time

from pybsnsing import bsnsing
from pybsnsing.datasets import load_dataset

data = load_dataset("synthetic20k")
train = data.iloc[:14000]
for label, kwargs in (("import_external=False", {"import_external": False}),
                      ("default (rpart rules)", {})):
    t0 = time.perf_counter()
    model = bsnsing("y ~ .", train, **kwargs)
    print(f"{label}: {model.n_leaves} leaves in {time.perf_counter() - t0:.2f} s")
