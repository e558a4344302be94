# A live differential check from R: data frames made by R's own random number
# generator with R's column classes (numeric, integer, factor, ordered, logical,
# character, Date, POSIXct, difftime, numeric matrix, with NA), random responses (factor,
# integer 0/1, logical, character, 3-class factor) and controls, fitted by R
# bsnsing 1.0.1 and by the R package pybsnsing (rbridge/, through reticulate) with
# formulas y ~ ., y ~ . - x, y ~ f(x) + . (sin, round, log1p, ...), factor(y) ~ .,
# each in its own Rscript process (their S3 methods would clash in one). Compares
# print and summary text (apart from the Call line, and the accuracy R misreports
# when every fitted value is one class, quirk Q7), predicted probabilities (to
# 1e-12) and classes on held-out rows, and R's random numbers after the fit.
#
#   R_LIBS=.rlib RETICULATE_PYTHON=.venv/bin/python Rscript bench/rdiff_rbridge.R 60 [seed]
#
# Needs R bsnsing 1.0.1 and pybsnsing installed in R_LIBS (.ci/setup, .ci/test-r).

args <- commandArgs(trailingOnly = TRUE)
if (length(args) && args[1] == "--worker") {
  pkg <- args[2]
  suppressPackageStartupMessages(library(pkg, character.only = TRUE))
  cases <- readRDS(args[3])
  out <- lapply(cases, function(cs) {
    set.seed(cs$seed)
    res <- tryCatch({
      m <- do.call(bsnsing, c(list(cs$formula, data = cs$train), cs$control))
      one <- if (inherits(m, "mbsnsing")) m[[1]] else m
      list(print = utils::capture.output(print(m))[-1],
           summary = utils::capture.output(summary(one))[-1],
           prob = unname(predict(m, cs$test)),
           class = as.character(predict(m, cs$test, type = "class")),
           rng = stats::runif(1))
    }, error = function(e) list(error = conditionMessage(e)))
    res
  })
  saveRDS(out, args[4])
  quit(save = "no")
}

n_cases <- if (length(args)) as.integer(args[1]) else 40L
seed0 <- if (length(args) > 1) as.integer(args[2]) else 1L

make_column <- function(n, z) {
  kind <- sample(c("num", "int", "fac", "ord", "lgl", "chr", "date", "posix", "dtime",
                   "round", "mat"), 1)
  if (kind == "mat") {  # a numeric matrix column (model.matrix: one column per column)
    v <- cbind(z + stats::rnorm(n), stats::rnorm(n))
    if (stats::runif(1) < 0.5) colnames(v) <- c("a", "b")
    return(v)
  }
  v <- switch(kind,
    num = z * stats::runif(1, 0.2, 3) + stats::rnorm(n),
    int = as.integer(round(3 * z + stats::rnorm(n))),
    fac = factor(sample(c("a", "b", "c"), n, TRUE), levels = sample(c("a", "b", "c"))),
    ord = factor(ifelse(z > 0.3, "hi", ifelse(z < -0.3, "lo", "mid")),
                 levels = c("lo", "mid", "hi"), ordered = TRUE),
    lgl = z + stats::rnorm(n) > 0,
    chr = sample(c("u", "v", "w"), n, TRUE),
    date = as.Date("2019-06-01") + round(20 * z + stats::rnorm(n, sd = 5)),
    posix = as.POSIXct("2020-01-01", tz = "UTC") + 3600 * z + stats::runif(n) * 60,
    dtime = as.difftime(round(z * 10 + stats::rnorm(n), 1), units = "mins"),
    round = round(z + stats::rnorm(n), 1))
  if (stats::runif(1) < 0.2 && !kind %in% c("ord")) v[sample(n, max(1, n %/% 20))] <- NA
  v
}

make_case <- function(seed) {
  set.seed(seed)
  n <- sample(40:300, 1)
  z <- stats::rnorm(n)
  p <- sample(1:6, 1)
  d <- data.frame(row.names = seq_len(n))
  for (j in seq_len(p)) d[[paste0("x", j)]] <- make_column(n, z)
  s <- z + stats::rnorm(n, sd = stats::runif(1, 0.3, 1.2))
  d$y <- switch(sample(c("factor", "int01", "logical", "character", "three"), 1),
    factor = factor(ifelse(s > 0, "yes", "no")),
    int01 = as.integer(s > 0),
    logical = s > 0,
    character = ifelse(s > 0, "p", "q"),
    three = factor(ifelse(s > 0.5, "A", ifelse(s < -0.5, "B", "C"))))
  control <- list()
  if (stats::runif(1) < 0.4) control$max.rules <- sample(1:3, 1)
  if (stats::runif(1) < 0.3) control$import.external <- FALSE
  if (stats::runif(1) < 0.2) control$node.size <- sample(c(0, 5, 20), 1)
  if (stats::runif(1) < 0.2) control$stop.prob <- sample(c(0.8, 0.9, 0.95), 1)
  if (stats::runif(1) < 0.2) control$nseg.numeric <- sample(c(3, 5, 10), 1)
  test <- sample(n, n %/% 4)
  formula <- y ~ .
  nums <- names(d)[vapply(d, function(v) is.numeric(v) && !is.object(v), NA)]
  nums <- setdiff(nums, "y")
  shape <- sample(c("dot", "dot", "minus", "transform", "response"), 1)
  if (shape == "minus" && p > 1) {
    formula <- stats::as.formula(paste("y ~ . -", sample(setdiff(names(d), "y"), 1)))
  } else if (shape == "transform" && length(nums)) {
    v <- sample(nums, 1)
    f <- sample(c("log1p(abs(%s))", "sin(%s)", "round(%s)", "exp(%s)", "abs(%s)",
                  "tanh(%s)", "floor(%s)", "sqrt(abs(%s))"), 1)
    formula <- stats::as.formula(paste("y ~", sprintf(f, v), "+ ."))
  } else if (shape == "response" && (is.integer(d$y) || is.logical(d$y))) {
    formula <- if (is.integer(d$y)) factor(y) ~ . else I(!y) ~ .
  }
  list(seed = seed, formula = formula, train = d[-test, , drop = FALSE],
       test = d[test, , drop = FALSE], control = control)
}

cases <- lapply(seed0 + seq_len(n_cases) - 1L, make_case)
dir <- tempfile("rdiff-rbridge-")
dir.create(dir)
saveRDS(cases, file.path(dir, "cases.rds"))
rscript <- file.path(R.home("bin"), "Rscript")
script <- sub("^--file=", "", grep("^--file=", commandArgs(FALSE), value = TRUE)[1])
outs <- list()
for (pkg in c("bsnsing", "pybsnsing")) {
  f <- file.path(dir, paste0(pkg, ".rds"))
  status <- system2(rscript, c(script, "--worker", pkg, file.path(dir, "cases.rds"), f),
                    stdout = FALSE, stderr = FALSE)
  if (status != 0 || !file.exists(f)) stop("the ", pkg, " worker failed")
  outs[[pkg]] <- readRDS(f)
}
# R bsnsing 1.0.1 misreports the summary's accuracy when every fitted value is one class
# (quirk Q7, fixed in pybsnsing): the line is left out of the comparison there
one_class_accuracy <- function(summary) {
  at <- grep("^fitted", summary)
  if (length(at) && at + 2L <= length(summary) && !grepl("^ +[01] ", summary[at + 2L])) {
    summary <- summary[!grepl("^Accuracy: ", summary)]
  }
  summary
}
tally <- c()
for (i in seq_along(cases)) {
  r <- outs$bsnsing[[i]]
  py <- outs$pybsnsing[[i]]
  what <- if (!is.null(r$error)) {
    if (is.null(py$error)) "R error/py fits" else "R error/py error"
  } else if (!is.null(py$error)) {
    "R fits/py error"
  } else if (!identical(r$print, py$print) ||
             !identical(one_class_accuracy(r$summary), one_class_accuracy(py$summary)) ||
             !isTRUE(all.equal(r$prob, py$prob, tolerance = 1e-12)) ||
             !identical(r$class, py$class)) {
    "different"
  } else if (!identical(r$rng, py$rng)) {
    "random numbers differ"
  } else "identical"
  if (what %in% c("R fits/py error", "different", "random numbers differ")) {
    cat("seed", cases[[i]]$seed, what, if (!is.null(py$error)) py$error, "\n")
  }
  if (what %in% c("R error/py fits", "R error/py error")) {
    cat("seed", cases[[i]]$seed, what, "R:", r$error, if (!is.null(py$error)) paste("| py:", py$error), "\n")
  }
  tally <- c(tally, what)
}
fits <- sum(tally %in% c("identical", "different", "random numbers differ", "R fits/py error"))
cat(sprintf("%d/%d identical (cases R bsnsing fits; %d generated, seeds %d..%d)\n",
            sum(tally == "identical"), fits, length(cases), seed0, seed0 + n_cases - 1L))
print(table(tally))
quit(status = as.integer(any(tally %in% c("different", "random numbers differ",
                                          "R fits/py error"))))
