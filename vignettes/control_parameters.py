# %% [markdown]
# # Control parameters and their effect
#
# Every parameter of R's `bscontrol()` is available under its Python name
# (`max_rules`) or R's dotted name (`**{"max.rules": 3}`). This vignette fits
# the Pima diabetes data under several settings and compares tree size and
# test accuracy.

# %%
import time

import numpy as np
import pandas as pd
from _common import out_dir

from pybsnsing import bscontrol, bsnsing
from pybsnsing.datasets import load_dataset

out = out_dir()
pima = load_dataset("pima")
rng = np.random.default_rng(7)
is_train = rng.random(len(pima)) < 0.7
train, test = pima[is_train].reset_index(drop=True), pima[~is_train].reset_index(drop=True)
print(bscontrol())  # the defaults, as R's bscontrol()

# %%
settings = {
    "defaults": {},
    "no rpart rules": {"import_external": False},
    "max_rules = 1 (plain CART-like splits)": {"max_rules": 1, "import_external": False},
    "max_rules = 3": {"max_rules": 3, "import_external": False},
    "node_size = 5": {"node_size": 5, "import_external": False},
    "stop_prob = 0.9": {"stop_prob": 0.9, "import_external": False},
    "nseg_numeric = 5": {"nseg_numeric": 5, "import_external": False},
    "no_same_gender_children": {"no_same_gender_children": True, "import_external": False},
}
rows = []
for name, kwargs in settings.items():
    t0 = time.perf_counter()
    model = bsnsing("Class ~ .", train, **kwargs)
    seconds = time.perf_counter() - t0
    acc = np.mean(model.predict(test, type="class") == test["Class"].to_numpy())
    rows.append({"setting": name, "splits": model.n_splits, "leaves": model.n_leaves,
                 "node_size used": model.node_size, "train acc": model.accuracy,
                 "test acc": acc, "seconds": seconds})
table = pd.DataFrame(rows)
print(table.to_string(index=False, float_format=lambda v: f"{v:.3f}"))
table.to_csv(out / "control_parameters.csv", index=False)

# %% [markdown]
# Out-of-range values are corrected with a warning, as in R, and unknown names
# are an error:

# %%
import warnings

with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    print(bscontrol(nseg_numeric=1).nseg_numeric, "-", caught[0].message)
try:
    bscontrol(max_rule=3)
except TypeError as exc:
    print("error:", exc)
