# Odd and hostile inputs through the R package (issue 12): a generator of
# cases from a seed, and a classifier of their outcomes. Used by
# test-fuzz.R (a fixed set of seeds) and by bench/fuzz_r.R (any number).
#
# Outcomes:
#   "correct"        a result that passes the checks of its entry point
#                    (probabilities in [0, 1], the right lengths, labels among
#                    the training labels, 0/1 questions, files written, ...);
#   "clean error"    an R error whose message names the problem in R's words;
#   "unclean error"  an error showing Python or R internals: a traceback, a
#                    Python exception type ("OverflowError: ..."), or R's own
#                    messages from inside the package ("missing value where
#                    TRUE/FALSE needed", "subscript out of bounds", ...);
#   "unclear error"  an error whose message comes from a library's internals
#                    (numpy, pandas, formulaic, "NoneType", "dtype", ...) or
#                    is empty;
#   "silent wrong"   a result that fails its checks, or a formula that ran code.

fuzz_outcomes <- c("correct", "clean error", "unclean error", "unclear error", "silent wrong",
                   "hang")

.fuzz_unclean <- paste(c(
  "Traceback", "py_call_impl", "Detailed traceback", "File \"", "\\b[A-Z][A-Za-z]*(Error|Exception): ",
  "<class '", "missing value where TRUE/FALSE needed", "argument is of length zero",
  "subscript out of bounds", "non-numeric argument", "\\$ operator is invalid",
  "object of type '", "argument is not interpretable as logical", "invalid 'type'",
  "cannot open the connection", "could not find function", "unused argument",
  "replacement has", "arguments imply differing number", "undefined columns selected",
  "incorrect number of dimensions", "NAs are not allowed in subscripted",
  "invalid argument to unary operator", "non-conformable", "invalid subscript type",
  "cannot coerce type", "attempt to apply non-function"),
  collapse = "|")

.fuzz_unclear <- paste(c(
  "numpy", "pandas", "formulaic", "numba", "llvmlite", "NoneType", "\\bdtype\\b", "ndarray",
  "unhashable", "has no attribute", "invalid literal", "could not convert", "out of bounds",
  "reticulate", "Series", "DataFrame\\(", "\\bnan\\b", "\\bTrue\\b", "\\bFalse\\b",
  "\\b(max|bin|stop|node|nseg|import|suppress)_[a-z_]+\\b"), collapse = "|")

fuzz_classify_error <- function(e) {
  msg <- conditionMessage(e)
  if (!nzchar(trimws(msg))) return(list(kind = "unclear error", detail = "(empty message)"))
  if (grepl(.fuzz_unclean, msg, perl = TRUE)) return(list(kind = "unclean error", detail = msg))
  if (.fuzz_is_unclear(msg)) return(list(kind = "unclear error", detail = msg))
  list(kind = "clean error", detail = msg)
}

# Library internals in a message; names and values the user gave (quoted
# with ' or `) do not count, a Python list of strings does.
.fuzz_is_unclear <- function(msg) {
  if (grepl("\\[['\"]", msg, perl = TRUE)) return(TRUE)
  unquoted <- gsub("'[^']*'|`[^`]*`", "''", msg, perl = TRUE)
  grepl(.fuzz_unclear, unquoted, perl = TRUE)
}

# ---------------------------------------------------------------------------
# data

.fuzz_names <- c("x", "petal length", "Self-emp-not-inc", "a+b", "a<b", "a=b", "a:b", "a/b",
                 "a*b", "a^b", "it's", "say \"hi\"", "\u00fcber", "\u6570\u636e", "1", "2x",
                 "NA", "TRUE", ".", "..x", "_u", "(Intercept)", "y", "x.1", "log(x)",
                 "`tick`", "a b c d e f g h i j k l m n o p", "", " ")

.fuzz_levels <- c("a", "b", "New York", "", "N/A", "it's", "\u00e9t\u00e9", "1", "-1", "TRUE",
                  "x'y", "a,b", "c(1)", " lead", "NA")

.fuzz_pick <- function(x, size = 1L) x[sample.int(length(x), size, replace = TRUE)]

.fuzz_column <- function(n) {
  kind <- .fuzz_pick(c("double", "double", "integer", "logical", "factor", "factor",
                       "character", "ordered", "constant", "allna", "special", "highcard",
                       "date", "list", "complex", "binary"))
  switch(kind,
    double = {
      v <- stats::rnorm(n) * 10^sample(-3:3, 1)
      v[stats::runif(n) < 0.1] <- NA
      v
    },
    integer = {
      v <- sample(c(-5L:5L, 1000000000L), n, replace = TRUE)
      v[stats::runif(n) < 0.1] <- NA
      v
    },
    logical = {
      v <- stats::runif(n) < 0.5
      v[stats::runif(n) < 0.1] <- NA
      v
    },
    factor = {
      lv <- unique(.fuzz_pick(.fuzz_levels, sample(1:5, 1)))
      f <- factor(.fuzz_pick(lv, n), levels = c(lv, if (stats::runif(1) < 0.3) "unused"))
      f[stats::runif(n) < 0.05] <- NA
      f
    },
    character = .fuzz_pick(c(.fuzz_levels, NA), n),
    ordered = factor(.fuzz_pick(c("lo", "mid", "hi"), n), levels = c("lo", "mid", "hi"),
                     ordered = TRUE),
    constant = rep(3.5, n),
    allna = rep(NA_real_, n),
    special = .fuzz_pick(c(0, -0, 1e308, -1e308, 5e-324, Inf, -Inf, NaN, NA, 1, 2), n),
    highcard = factor(sprintf("L%d", sample.int(max(n, 1L), n, replace = TRUE))),
    date = as.Date("2020-01-01") + seq_len(n),
    list = I(as.list(seq_len(n))),
    complex = complex(real = seq_len(n), imaginary = rep(1, n)),
    binary = sample(0:1, n, replace = TRUE))
}

.fuzz_response <- function(n) {
  kind <- .fuzz_pick(c("factor2", "factor2", "factor3", "character", "logical", "int01",
                       "num12", "onelevel", "withna", "allna", "factor2odd", "num_many"))
  switch(kind,
    factor2 = factor(.fuzz_pick(c("no", "yes"), n)),
    factor2odd = factor(.fuzz_pick(c("New York", "it's"), n)),
    factor3 = factor(.fuzz_pick(c("a", "b", "c"), n)),
    character = .fuzz_pick(c("p", "q"), n),
    logical = stats::runif(n) < 0.5,
    int01 = sample(0:1, n, replace = TRUE),
    num12 = .fuzz_pick(c(1, 2), n),
    onelevel = factor(rep("only", n), levels = c("only", "never")),
    withna = {
      y <- factor(.fuzz_pick(c("no", "yes"), n))
      y[stats::runif(n) < 0.2] <- NA
      y
    },
    allna = factor(rep(NA, n), levels = c("a", "b")),
    num_many = round(stats::rnorm(n), 1))
}

.fuzz_frame <- function(n, p) {
  cols <- lapply(seq_len(p), function(j) .fuzz_column(n))
  nms <- if (stats::runif(1) < 0.5) paste0("x", seq_len(p)) else .fuzz_pick(.fuzz_names, p)
  if (stats::runif(1) < 0.1 && p > 1) nms[2] <- nms[1]   # duplicated names
  d <- structure(cols, names = nms, row.names = .set_row_names(n), class = "data.frame")
  # separable signal on the first numeric column, to grow real trees
  d
}

# ---------------------------------------------------------------------------
# cases

fuzz_entries <- c("fit", "fit", "fit", "formula", "default", "controls", "predict", "predict",
                  "binarize", "bslearn", "binarize.y", "plot", "roc", "external", "rds",
                  "numeric", "factor")

# A case: a description and a function that runs it and returns list(kind, detail).
fuzz_case <- function(seed, entry = NULL) {
  set.seed(seed)
  if (is.null(entry)) entry <- .fuzz_pick(fuzz_entries)
  n <- .fuzz_pick(c(0L, 1L, 2L, 5L, 12L, 30L, 60L, 150L))
  p <- sample(1:4, 1)
  d <- .fuzz_frame(n, p)
  y <- .fuzz_response(n)
  yname <- .fuzz_pick(c("y", "y", "Class", "class label", "1"))
  d2 <- d
  d2[[yname]] <- y
  desc <- sprintf("seed %d: %s, n = %d, columns %s, response %s %s", seed, entry, n,
                  paste(sprintf("%s<%s>", encodeString(names(d), quote = "'"),
                                vapply(d, function(v) class(v)[1], "")), collapse = ", "),
                  encodeString(yname, quote = "'"), class(y)[1])
  run <- switch(entry,
    fit = function() {
      fml <- stats::as.formula(paste(.fuzz_bt(yname), "~ ."))
      .fuzz_check_fit(bsnsing(fml, data = d2, import.external = stats::runif(1) < 0.5,
                              max.rules = sample(1:3, 1)), d2, y)
    },
    formula = {
      marker <- tempfile("fuzz-ran-")
      fml_text <- .fuzz_formula(yname, names(d), marker)
      desc <- paste0(desc, ", formula ", fml_text)
      function() {
        on.exit(if (file.exists(marker)) unlink(marker), add = TRUE)
        res <- tryCatch(bsnsing(stats::as.formula(fml_text), data = d2), error = function(e) e)
        if (file.exists(marker)) return(list(kind = "silent wrong", detail = "the formula ran code"))
        if (inherits(res, "error")) stop(res)
        .fuzz_check_fit(res, d2, y)
      }
    },
    default = function() {
      .fuzz_check_fit(bsnsing(d, y, import.external = FALSE), d2, y)
    },
    controls = {
      ctl <- .fuzz_controls()
      desc <- paste0(desc, ", controls ", paste(deparse(ctl, width.cutoff = 200L),
                                                 collapse = ""))
      function() {
        .fuzz_check_fit(do.call(bsnsing, c(list(stats::as.formula(paste(.fuzz_bt(yname), "~ .")),
                                                data = d2), ctl)), d2, y)
      }
    },
    predict = {
      newdata <- .fuzz_newdata(d2, yname)
      desc <- paste0(desc, ", newdata ", newdata$how)
      function() {
        good <- .fuzz_good_data(seed)
        bs <- bsnsing(y ~ ., data = good$data, import.external = FALSE)
        nd <- newdata$make(good$data, "y")
        type <- .fuzz_pick(c("prob", "class"))
        # newdata = NULL: the fitted values of the training rows, as in R bsnsing
        .fuzz_check_predict(bs, stats::predict(bs, nd, type = type),
                            if (is.null(nd)) good$data else nd, type)
      }
    },
    binarize = function() {
      yy <- sample(0:1, n, replace = TRUE)
      bx <- binarize(d, yy, target = sample(0:1, 1))
      .fuzz_check_binary(bx, n)
    },
    bslearn = function() {
      yy <- sample(0:1, n, replace = TRUE)
      bx <- as.data.frame(matrix(sample(0:1, n * p, replace = TRUE), n, p))
      names(bx) <- names(d)
      res <- bslearn(bx, yy, bscontrol(max.rules = sample(1:3, 1)))
      ok <- is.list(res) && identical(res$n.rules, length(res$cols)) &&
        all(res$cols >= 1 & res$cols <= p)
      .fuzz_result(ok, "bslearn result")
    },
    binarize.y = function() {
      res <- binarize.y(y)
      ok <- length(res$y) == length(y) && all(res$y[!is.na(res$y)] %in% c(0, 1)) &&
        length(res$ycode) == 2L
      .fuzz_result(ok, "binarize.y result")
    },
    plot = {
      ext <- .fuzz_pick(c("png", "pdf", "svg", "tex", "gif", "", "PNG", "jpeg"))
      desc <- paste0(desc, ", file .", ext)
      function() {
        good <- .fuzz_good_data(seed)
        bs <- bsnsing(y ~ ., data = good$data, import.external = FALSE)
        f <- if (nzchar(ext)) tempfile(fileext = paste0(".", ext)) else tempfile()
        on.exit(unlink(c(f, sub("\\.[A-Za-z]+$", ".tex", f))), add = TRUE)
        out <- suppressMessages(plot(bs, file = f))
        .fuzz_result(file.exists(out) && file.size(out) > 0, "plot file")
      }
    },
    roc = function() {
      scores <- .fuzz_column(n)
      res <- ROC_func(data.frame(scores, y), 2, 1, pos.label = as.character(y[1]))
      .fuzz_result(is.numeric(res) && length(res) == 1L && (is.na(res) || (res >= 0 && res <= 1)),
                   "AUC")
    },
    external = function() {
      yy <- sample(0:1, n, replace = TRUE)
      res <- import_external_rules(d, yy)
      .fuzz_result(is.null(res) || is.character(res), "rules")
    },
    rds = function() {
      good <- .fuzz_good_data(seed)
      bs <- bsnsing(y ~ ., data = good$data, import.external = FALSE)
      f <- tempfile(fileext = ".rds")
      on.exit(unlink(f), add = TRUE)
      saveRDS(bs, f)
      back <- readRDS(f)
      attr(back, "py_model") <- NULL
      .fuzz_result(identical(stats::predict(bs, good$data), stats::predict(back, good$data)),
                   "saveRDS/readRDS predictions")
    },
    numeric = function() {
      yy <- sample(0:1, n, replace = TRUE)
      x <- .fuzz_column(n)
      res <- binarize.numeric(x, .fuzz_pick(.fuzz_names), yy, target = sample(0:1, 1),
                              segments = .fuzz_pick(c(1, 3, 10, Inf)))
      ok <- (is.character(res) && length(res) == 1L) || .fuzz_check_binary(res, n)$kind ==
        "correct"
      .fuzz_result(ok, "binarize.numeric result")
    },
    factor = function() {
      yy <- sample(0:1, n, replace = TRUE)
      res <- binarize.factor(.fuzz_column(n), .fuzz_pick(.fuzz_names), yy)
      .fuzz_check_binary(res, n)
    })
  list(seed = seed, entry = entry, describe = desc, run = run)
}

.fuzz_bt <- function(name) paste0("`", gsub("`", "\\\\`", name), "`")

.fuzz_formula <- function(yname, xnames, marker) {
  x <- if (length(xnames)) .fuzz_bt(xnames[1]) else "x"
  x2 <- if (length(xnames) > 1) .fuzz_bt(xnames[2]) else x
  rhs <- .fuzz_pick(c(".", x, paste(x, "+", x2), paste(". -", x), paste("0 +", x),
                      paste0("log(", x, ")"), paste0("sqrt(abs(", x, "))"), paste0(x, ":", x2),
                      paste0(x, "*", x2), paste0("I(", x, " + ", x2, ")"), "nonexistent",
                      sprintf("I(system('touch %s'))", marker),
                      sprintf("I(file.create('%s'))", marker),
                      sprintf("I(eval(parse(text = \"file.create('%s')\")))", marker),
                      "poly(x, 2)", "-1", "1", "`a b` + .", ". + ."))
  lhs <- .fuzz_pick(c(rep(.fuzz_bt(yname), 6), "", "log(y)", "cbind(y, y)",
                      sprintf("I(file.create('%s'))", marker)))
  paste(lhs, "~", rhs)
}

.fuzz_controls <- function() {
  bad <- list(NA, Inf, -Inf, -1, 0, 0.5, 2.5, 1e10, 1e300, "3", c(1, 2), TRUE, NULL, NaN,
              list(1), 3L, 100)
  names_all <- c(names(formals(bscontrol)), "max_rules", "maxrules")
  k <- sample(1:3, 1)
  out <- list()
  for (i in seq_len(k)) {
    nm <- .fuzz_pick(names_all)
    out[nm] <- list(bad[[sample.int(length(bad), 1)]])
  }
  out
}

# A small data set that gives a real tree (for predict, plot, rds).
.fuzz_good_data <- function(seed) {
  set.seed(seed + 1e6)
  n <- 80
  d <- data.frame(a = stats::rnorm(n), b = factor(.fuzz_pick(c("u", "v", "w"), n)),
                  c = sample(1:5, n, replace = TRUE), l = stats::runif(n) < 0.5)
  d$y <- factor(ifelse(d$a + (d$b == "u") + stats::rnorm(n, sd = 0.3) > 0.5, "pos", "neg"))
  if (stats::runif(1) < 0.3) {
    d$y <- factor(.fuzz_pick(c("r", "s", "t"), n))
  }
  list(data = d)
}

.fuzz_newdata <- function(d2, yname) {
  how <- .fuzz_pick(c("same", "missing column", "extra column", "reordered", "character factor",
                      "numeric as character", "zero rows", "unseen level", "all NA", "NULL",
                      "matrix", "list", "one row", "NA rows", "Inf values"))
  make <- switch(how,
    same = function(d, y) d,
    `missing column` = function(d, y) d[, setdiff(names(d), "a"), drop = FALSE],
    `extra column` = function(d, y) cbind(d, extra = 1, `odd name` = "z"),
    reordered = function(d, y) d[, rev(names(d)), drop = FALSE],
    `character factor` = function(d, y) transform(d, b = as.character(b)),
    `numeric as character` = function(d, y) transform(d, a = as.character(a)),
    `zero rows` = function(d, y) d[0, , drop = FALSE],
    `unseen level` = function(d, y) {
      d$b <- factor(as.character(d$b), levels = c(levels(d$b), "new"))
      d$b[1:3] <- "new"
      d
    },
    `all NA` = function(d, y) {
      d[] <- lapply(d, function(v) {
        v[] <- NA
        v
      })
      d
    },
    `NULL` = function(d, y) NULL,
    matrix = function(d, y) as.matrix(d),
    list = function(d, y) as.list(d),
    `one row` = function(d, y) d[1, , drop = FALSE],
    `NA rows` = function(d, y) {
      d[c(2, 4), c("a", "c")] <- NA
      d
    },
    `Inf values` = function(d, y) {
      d$a[1:3] <- c(Inf, -Inf, NaN)
      d
    })
  list(how = how, make = make)
}

.fuzz_result <- function(ok, what) {
  if (isTRUE(ok)) list(kind = "correct", detail = "") else
    list(kind = "silent wrong", detail = paste("bad", what))
}

.fuzz_check_binary <- function(bx, n) {
  ok <- is.data.frame(bx) && nrow(bx) == n &&
    all(vapply(bx, function(v) all(v %in% c(0, 1)), logical(1)))
  .fuzz_result(ok, "0/1 question columns")
}

.fuzz_check_fit <- function(bs, data, y) {
  text <- utils::capture.output(print(bs), summary(bs))
  if (inherits(bs, "mbsnsing")) {
    probs <- stats::predict(bs, data, type = "prob")
    cls <- stats::predict(bs, data, type = "class")
    ok <- is.matrix(probs) && nrow(probs) == nrow(data) && all(probs >= 0 & probs <= 1) &&
      all(cls %in% as.character(bs$ylevels)) && length(cls) == nrow(data)
    return(.fuzz_result(ok && length(text) > 0, "multi-class fit"))
  }
  if (!inherits(bs, "bsnsing")) return(.fuzz_result(FALSE, "fit object"))
  fp <- bs$fitted.prob
  fv <- bs$fitted.values
  nodes <- bs$tree.nodes
  ok <- length(nodes) >= 1 && all(fp >= 0 & fp <= 1) && all(fv %in% c(0L, 1L)) &&
    length(fp) == length(fv) && sum(bs$confusion.matrix) == length(fv) &&
    nodes[[1]]$node.nobs == length(fv)
  p <- stats::predict(bs, data, type = "prob")
  cls <- stats::predict(bs, data, type = "class")
  ok <- ok && length(p) == nrow(data) && all(p >= 0 & p <= 1, na.rm = FALSE) &&
    all(as.character(cls) %in% as.character(bs$ycode))
  .fuzz_result(ok && length(text) > 0, "two-class fit")
}

.fuzz_check_predict <- function(bs, pred, nd, type) {
  n <- nrow(as.data.frame(nd))
  if (inherits(bs, "mbsnsing")) {
    ok <- if (type == "prob") is.matrix(pred) && nrow(pred) == n && all(pred >= 0 & pred <= 1)
      else length(pred) == n && all(pred %in% as.character(bs$ylevels))
    return(.fuzz_result(ok, "multi-class predictions"))
  }
  ok <- length(pred) == n &&
    if (type == "prob") all(pred >= 0 & pred <= 1) else
      all(as.character(pred) %in% as.character(bs$ycode))
  .fuzz_result(ok, "predictions")
}

# Run a case: list(kind, detail). Warnings are allowed; their text is checked
# for Python internals like errors are.
fuzz_run <- function(case) {
  warned <- character(0)
  res <- withCallingHandlers(
    tryCatch(case$run(), error = function(e) fuzz_classify_error(e)),
    warning = function(w) {
      warned <<- c(warned, conditionMessage(w))
      invokeRestart("muffleWarning")
    })
  if (res$kind %in% c("correct", "clean error") && length(warned)) {
    bad <- warned[grepl(paste(.fuzz_unclean, .fuzz_unclear, sep = "|"), warned, perl = TRUE)]
    if (length(bad)) res <- list(kind = "unclear error", detail = paste("warning:", bad[1]))
  }
  res
}
