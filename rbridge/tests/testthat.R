# The test suite needs a Python with pybsnsing (RETICULATE_PYTHON) and, for
# the golden-fixture tests, the reference material (PYBSNSING_SHARED); the
# tests that need them are skipped, with a message, when they are missing.
library(testthat)
library(pybsnsing)

test_check("pybsnsing")
