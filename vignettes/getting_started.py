# %% [markdown]
# # Getting started with pybsnsing
#
# This mirrors the appendix example of the bsnsing paper (Liu, INFORMS J.
# Computing 2022): a tree on the Wisconsin breast cancer data, its summary,
# test-set predictions, an ROC curve and a picture of the tree.
#
# Run it with `python vignettes/getting_started.py`; figures go to
# `vignettes/figures/` (or `$PYBSNSING_VIGNETTE_OUT`).

# %%
import numpy as np
from _common import out_dir

from pybsnsing import bsnsing
from pybsnsing.datasets import load_dataset
from pybsnsing.export.roc import plot_roc, roc_auc

out = out_dir()
bc = load_dataset("BreastCancer")
print(bc.shape, bc["Class"].cat.categories.tolist())

# %% [markdown]
# A 70/30 split. Factors are pandas Categoricals: their level order decides the
# response coding (the last level, `malignant`, is coded 1), as in R.

# %%
rng = np.random.default_rng(2022)
is_train = rng.random(len(bc)) < 0.7
train, test = bc[is_train].reset_index(drop=True), bc[~is_train].reset_index(drop=True)

model = bsnsing("Class ~ .", train)   # R bsnsing's defaults, rpart rules included
print(model)                          # R's print(bs)
print(model.summary())                # R's summary(bs)

# %% [markdown]
# Each split is an OR of up to `max_rules` questions; rows answering yes go left.

# %%
for node in model.nodes:
    if not node.is_leaf:
        print(f"node {node.number}: {node.split_rule}")

# %% [markdown]
# Predictions: `type="prob"` is the probability of the class coded 1
# (`model.ycode[1]`), `type="class"` the label.

# %%
prob = model.predict(test, type="prob")
label = model.predict(test, type="class")
accuracy = np.mean(label == test["Class"].to_numpy())
print(f"test accuracy {accuracy:.3f}")

roc = roc_auc(test["Class"].to_numpy(), prob, pos_label="malignant")
print(f"test AUC {roc.auc:.4f}")
plot_roc(roc, file=out / "breastcancer_roc.png")
model.plot(out / "breastcancer_tree.png")
(out / "breastcancer_tree.tex").write_text(model.to_latex())
print("figures written to", out)
