# Helpers for the rbridge tests.
#
# Environment:
#   RETICULATE_PYTHON         the Python with pybsnsing (e.g. the repo's .venv/bin/python)
#   PYBSNSING_GOLDEN          the golden fixtures (trees/*.json); default: the
#                             repository's tests/golden (copies of ../shared/golden),
#                             then PYBSNSING_SHARED/golden, then ../shared/golden
#   PYBSNSING_SHARED          the reference material; only needed when the fixtures are
#                             not found otherwise, or for a data set that the Python
#                             package does not bundle (its data/tabular)
#   PYBSNSING_REQUIRE_PYTHON  if set (CI does), a missing Python engine is an error,
#                             not a skip

skip_if_no_pybsnsing <- function() {
  if (pybsnsing_available()) return(invisible(TRUE))
  msg <- paste("Python module pybsnsing not available: set RETICULATE_PYTHON to a",
               "Python that has it (e.g. the repository's .venv/bin/python)")
  if (nzchar(Sys.getenv("PYBSNSING_REQUIRE_PYTHON"))) stop(msg, call. = FALSE)
  skip(msg)
}

# The slow tests (every golden record, the fuzz subset) are skipped when
# PYBSNSING_SKIP_SLOW_TESTS is set: .ci/test-r sets it for the test run inside
# R CMD check, after running every test against the installed package.
skip_if_slow_tests_off <- function() {
  if (nzchar(Sys.getenv("PYBSNSING_SKIP_SLOW_TESTS"))) {
    skip("slow test: PYBSNSING_SKIP_SLOW_TESTS is set (they ran before R CMD check)")
  }
  invisible(TRUE)
}

shared_dir <- function() {
  env <- Sys.getenv("PYBSNSING_SHARED")
  candidates <- c(if (nzchar(env)) env,
                  # rbridge/tests/testthat -> repository root -> ../shared
                  file.path(test_path(), "..", "..", "..", "..", "shared"))
  for (d in candidates) {
    if (dir.exists(d)) return(normalizePath(d))
  }
  NULL
}

# The folder of the golden fixtures (trees/*.json), or NULL. R CMD check runs
# a copy of the tests elsewhere: there only the environment variables find them.
golden_dir <- function() {
  golden <- Sys.getenv("PYBSNSING_GOLDEN")
  shared <- Sys.getenv("PYBSNSING_SHARED")
  candidates <- c(if (nzchar(golden)) golden,
                  # rbridge/tests/testthat -> repository root -> tests/golden
                  file.path(test_path(), "..", "..", "..", "tests", "golden"),
                  if (nzchar(shared)) file.path(shared, "golden"),
                  file.path(test_path(), "..", "..", "..", "..", "shared", "golden"))
  for (d in candidates) {
    if (dir.exists(file.path(d, "trees"))) return(normalizePath(d))
  }
  NULL
}

skip_if_no_golden <- function() {
  if (is.null(golden_dir())) {
    skip(paste("golden fixtures not found: set PYBSNSING_GOLDEN to the repository's",
               "tests/golden (or PYBSNSING_SHARED to the reference material)"))
  }
  invisible(TRUE)
}

# A JSON file through Python's json module (exact doubles; no jsonlite needed).
read_json_py <- function(path) {
  json <- reticulate::import("json", convert = TRUE)
  builtins <- reticulate::import_builtins(convert = FALSE)
  f <- builtins$open(path, encoding = "utf-8")
  on.exit(f$close())
  json$load(f)
}

golden_records <- function(dataset) {
  read_json_py(file.path(golden_dir(), "trees", paste0(dataset, ".json")))
}

# The tabular data sets: the Python package's bundled copies (manifest.csv,
# columns.csv and <file>.gz, byte-identical gzip copies of the reference CSVs;
# read.csv reads them as they are), else PYBSNSING_SHARED/data/tabular.
tabular_dirs <- function() {
  dirs <- list()
  if (pybsnsing_available()) {
    datasets <- reticulate::import("pybsnsing.datasets")
    bundle <- file.path(dirname(datasets$`__file__`), "data")
    if (file.exists(file.path(bundle, "manifest.csv"))) {
      dirs[[length(dirs) + 1]] <- list(dir = bundle, suffix = ".gz")
    }
  }
  shared <- shared_dir()
  if (!is.null(shared) && file.exists(file.path(shared, "data", "tabular", "manifest.csv"))) {
    dirs[[length(dirs) + 1]] <- list(dir = file.path(shared, "data", "tabular"), suffix = "")
  }
  dirs
}

# The manifest of the data sets at hand (first folder of tabular_dirs()).
tabular_manifest <- function() {
  dirs <- tabular_dirs()
  if (length(dirs) == 0) {
    skip(paste("no tabular data: neither the Python module pybsnsing (its bundled data",
               "sets) nor PYBSNSING_SHARED/data/tabular is available"))
  }
  utils::read.csv(file.path(dirs[[1]]$dir, "manifest.csv"), stringsAsFactors = FALSE)
}

# The canonical reader of the fixtures (shared/data/README.md): read.csv, then
# every column that columns.csv lists as a factor gets exactly its levels.
read_canonical <- function(name) {
  src <- NULL
  for (d in tabular_dirs()) {
    manifest <- utils::read.csv(file.path(d$dir, "manifest.csv"), stringsAsFactors = FALSE)
    if (name %in% manifest$name) {
      src <- d
      break
    }
  }
  if (is.null(src)) {
    skip(paste("data set", name, "not found: it is not bundled with the Python module",
               "pybsnsing and PYBSNSING_SHARED/data/tabular is not available"))
  }
  tab <- src$dir
  columns <- utils::read.csv(file.path(tab, "columns.csv"), stringsAsFactors = FALSE,
                             na.strings = character(0))
  file <- paste0(manifest$file[manifest$name == name], src$suffix)
  d <- utils::read.csv(file.path(tab, file), stringsAsFactors = TRUE,
                       na.strings = c("", "NA"))
  fc <- columns[columns$dataset == name & columns$r_class == "factor", ]
  for (i in seq_len(nrow(fc))) {
    lv <- strsplit(fc$levels[i], ";", fixed = TRUE)[[1]]
    d[[fc$column[i]]] <- factor(as.character(d[[fc$column[i]]]), levels = lv)
  }
  d
}

# The bscontrol() arguments of a record in the fixtures' order: the changed
# values first (bscontrol() order), import.external = FALSE last.
record_args <- function(rec) {
  defaults <- unclass(bscontrol())
  ctrl <- rec$control
  args <- list()
  for (nm in setdiff(names(defaults), "import.external")) {
    v <- ctrl[[nm]]
    if (!is.null(v) && !identical(as.vector(v), as.vector(defaults[[nm]])) &&
        !(is.numeric(v) && is.numeric(defaults[[nm]]) && v == defaults[[nm]])) {
      args[[nm]] <- if (is.numeric(v)) as.numeric(v) else v
    }
  }
  if (identical(ctrl$import.external, FALSE)) args$import.external <- FALSE
  args
}

# Fit a record's model exactly as the fixtures were made, so that the call is
# `bsnsing(<formula>, data = train, <args>)`.
fit_record <- function(rec, train) {
  env <- new.env(parent = environment(fit_record))
  env$train <- train
  cl <- as.call(c(list(as.name("bsnsing"), str2lang(rec$formula), data = as.name("train")),
                  record_args(rec)))
  eval(cl, env)
}

split_record <- function(rec, data) {
  train <- data[rec$train_rows, , drop = FALSE]
  test <- data[rec$test_rows, , drop = FALSE]
  list(train = train, test = test)
}

text_of <- function(expr) paste(utils::capture.output(expr), collapse = "\n")

drop_accuracy <- function(text) {
  lines <- strsplit(text, "\n", fixed = TRUE)[[1]]
  paste(lines[!startsWith(lines, "Accuracy:")], collapse = "\n")
}

# Compare an R tree (bsnsing object) with a fixture's node list.
expect_nodes <- function(tree, nodes, label) {
  tn <- tree$tree.nodes
  numbers <- vapply(tn, function(nd) nd$node.number, numeric(1))
  tn <- tn[order(numbers)]
  expect_equal(length(tn), length(nodes), label = paste(label, "number of nodes"))
  if (length(tn) != length(nodes)) return(invisible(FALSE))
  got <- data.frame(
    number = vapply(tn, function(nd) nd$node.number, numeric(1)),
    parent = vapply(tn, function(nd) nd$node.parent, numeric(1)),
    lchild = vapply(tn, function(nd) nd$node.lchild, numeric(1)),
    rchild = vapply(tn, function(nd) nd$node.rchild, numeric(1)),
    n1 = vapply(tn, function(nd) nd$node.n1, integer(1)),
    n0 = vapply(tn, function(nd) nd$node.n0, integer(1)),
    nobs = vapply(tn, function(nd) nd$node.nobs, integer(1)),
    class = vapply(tn, function(nd) nd$node.class, integer(1)),
    target = vapply(tn, function(nd) nd$node.split.target, integer(1)),
    rule = vapply(tn, function(nd) nd$node.split.rule, character(1)),
    prob = vapply(tn, function(nd) nd$node.prob, numeric(1)),
    prop = vapply(tn, function(nd) nd$node.prop, numeric(1)),
    stringsAsFactors = FALSE)
  want <- data.frame(
    number = vapply(nodes, function(nd) as.numeric(nd$number), numeric(1)),
    parent = vapply(nodes, function(nd) as.numeric(nd$parent), numeric(1)),
    lchild = vapply(nodes, function(nd) as.numeric(nd$lchild), numeric(1)),
    rchild = vapply(nodes, function(nd) as.numeric(nd$rchild), numeric(1)),
    n1 = vapply(nodes, function(nd) as.integer(nd$n1), integer(1)),
    n0 = vapply(nodes, function(nd) as.integer(nd$n0), integer(1)),
    nobs = vapply(nodes, function(nd) as.integer(nd$nobs), integer(1)),
    class = vapply(nodes, function(nd) as.integer(nd$class), integer(1)),
    target = vapply(nodes, function(nd) as.integer(nd$split_target), integer(1)),
    rule = vapply(nodes, function(nd) nd$split_rule, character(1)),
    prob = vapply(nodes, function(nd) as.numeric(nd$prob), numeric(1)),
    prop = vapply(nodes, function(nd) as.numeric(nd$prop), numeric(1)),
    stringsAsFactors = FALSE)
  expect_identical(got, want, label = paste(label, "nodes"))
}
