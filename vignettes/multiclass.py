# %% [markdown]
# # Multi-class trees
#
# With three or more classes, bsnsing grows one tree per class against
# `all.other` (R's `mbsnsing`). Predicted probabilities multiply each tree's
# probability by the class prior and normalise; the class is the first maximum.

# %%
import numpy as np
from _common import out_dir

from pybsnsing import bsnsing
from pybsnsing.datasets import load_dataset

out = out_dir()
iris = load_dataset("iris")
rng = np.random.default_rng(1)
is_train = rng.random(len(iris)) < 0.7
train, test = iris[is_train].reset_index(drop=True), iris[~is_train].reset_index(drop=True)

model = bsnsing("Species ~ .", train)
print(model)                      # one confusion matrix per class tree
print(model.ylevels, np.round(model.yprior, 3))
for k, s in enumerate(model.summary().classes, start=1):
    print(f"--- tree {k}: {model.ylevels[k - 1]} vs all.other\n{s}")

# %%
P = model.predict(test, type="prob")        # n x 3, columns in model.ylevels order
cls = model.predict(test, type="class")
print(np.round(P[:5], 3))
print("test accuracy", np.mean(cls == test["Species"].to_numpy()))
model.plot(out / "iris_trees.png")
