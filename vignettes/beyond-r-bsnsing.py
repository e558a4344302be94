# %% [markdown]
# # Beyond R bsnsing
#
# What rpart and scikit-learn users reach for first, and R bsnsing lacks:
# importances, depth and leaves, the leaf and the path of each row, the rules
# as text, Python and SQL, a tie-correct AUC, a depth limit and cost-complexity
# pruning, case and class weights. Nothing here changes R bsnsing's default tree.
#
# Run it with `python vignettes/beyond-r-bsnsing.py`; files go to
# `vignettes/figures/` (or `$PYBSNSING_VIGNETTE_OUT`).

# %%
import sqlite3
import warnings

import numpy as np
from _common import out_dir

from pybsnsing import bsnsing
from pybsnsing.datasets import load_dataset
from pybsnsing.export.code import compile_python, export_text, to_python, to_sql
from pybsnsing.export.roc import ROC_func, roc_auc

out = out_dir()
bc = load_dataset("BreastCancer")
rng = np.random.default_rng(2022)
is_train = rng.random(len(bc)) < 0.7
train, test = bc[is_train].reset_index(drop=True), bc[~is_train].reset_index(drop=True)
model = bsnsing("Class ~ .", train)

# %% [markdown]
# ## Size, leaves, paths
#
# `apply` gives the leaf (node number) of each row, routed as `predict` routes
# it; `decision_path` the nodes passed (a sparse rows x nodes matrix).

# %%
print("depth", model.get_depth(), "leaves", model.get_n_leaves())
leaf = model.apply(test)
path = model.decision_path(test)
print("first test row: leaf", leaf[0], "path", path[0].indices.tolist())
assert (path[np.arange(len(test)), leaf] == 1).all()

# %% [markdown]
# ## Variable importance
#
# Each split's Gini decrease, shared equally among the distinct input variables
# of its OR-rule, summed and normalised (rpart's `variable.importance`).

# %%
imp = model.variable_importance()
print(imp.round(4).to_string())

# %% [markdown]
# ## The rules out: text, Python, SQL
#
# The Python function and the SQL expression take the original columns and give
# exactly `predict`'s answers, missing values and unseen levels included.

# %%
print(export_text(model, show_proportion=True))
(out / "breastcancer_tree.py").write_text(to_python(model))
f = compile_python(model)
with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    want = model.predict(test, type="class")
assert [f(r) for r in test.to_dict("records")] == list(want)

con = sqlite3.connect(":memory:")
frame = test.drop(columns="Class")
frame.astype({c: object for c in frame.columns if frame[c].dtype == "category"}).to_sql(
    "patients", con, index=False)
sql = to_sql(model)
(out / "breastcancer_tree.sql").write_text(f"SELECT {sql} AS class FROM patients;\n")
got = [r[0] for r in con.execute(f"SELECT {sql} FROM patients")]
assert got == list(want)
print("Python and SQL agree with predict on", len(got), "test rows")

# %% [markdown]
# ## AUC: tie-correct, and R's
#
# A tree gives many rows the same score. `roc_auc` counts a tie as one half (it
# is scikit-learn's `roc_auc_score`); R's `ROC_func` walks tied rows in data
# order, so its value depends on that order.

# %%
prob = model.predict(test)
print(f"roc_auc {roc_auc(test['Class'], prob, pos_label='malignant').auc:.4f}  "
      f"ROC_func (R) {ROC_func(test['Class'], prob, pos_label='malignant').auc:.4f}")

# %% [markdown]
# ## Depth limit and cost-complexity pruning
#
# `max_depth=None` (default) is R bsnsing's growth. `cp_table` is rpart's
# `printcp` (here with 5-fold cross-validated error); `prune(cp)` keeps the
# smallest subtree whose CP is at most `cp`.

# %%
shallow = bsnsing("Class ~ .", train, max_depth=1)
print("max_depth=1:", shallow.get_n_leaves(), "leaves")
table = model.cp_table(xval=5, seed=1)
print(table.to_string())
best = table.loc[table["xerror"].idxmin(), "CP"]
pruned = model.prune(best) if best > 0 else model
acc = np.mean(pruned.predict(test, type="class") == test["Class"].to_numpy())
print(f"pruned at cp={best:.4g}: {pruned.n_splits} splits, test accuracy {acc:.3f}")

# %% [markdown]
# ## Case and class weights
#
# `sample_weight` (one non-negative number per row) and `class_weight`
# (`"balanced"` or `{label: weight}`) make every count of the tree a sum of
# weights: the split search, binarization, stopping rules, the nodes' class and
# probability (`nobs`, `n1`, `n0` stay row counts; `w1`, `w0` are the weights).
# Whole-number weights give exactly the tree of the rows repeated. With a rare
# class, `"balanced"` lets the tree predict it at all.

# %%
pima = load_dataset("pima")
positive = (pima["Class"] == "1").to_numpy()
keep = ~positive | (np.random.default_rng(0).random(len(pima)) < 0.06)
rare = pima[keep].reset_index(drop=True)  # 11 of 511 rows in class 1
for name, kw in (("unweighted", {}), ("balanced", {"class_weight": "balanced"})):
    m = bsnsing("Class ~ .", rare, **kw)
    found = np.mean(m.predict(pima, type="class")[positive] == "1")
    print(f"{name:>10}: {m.get_n_leaves()} leaves, {found:.3f} of all class-1 rows found")
