# R bsnsing 1.0.1 code runs unchanged: every exported name, its arguments,
# its data sets, and the examples of its own help pages (issue 13).

# R bsnsing 1.0.1's exports (its NAMESPACE exports every function by name)
# and the argument names of each, as its help pages give them.
rbsnsing_api <- list(
  binarize = c("x", "y", "target", "control"),
  binarize.factor = c("x", "name", "y", "segments", "bin.size"),
  binarize.numeric = c("x", "name", "y", "target", "segments", "bin.size", "node.size"),
  binarize.y = c("y", "verbose"),
  bscontrol = c("bin.size", "nseg.numeric", "nseg.factor", "num2factor", "node.size",
                "stop.prob", "opt.solver", "solver.timelimit", "max.rules", "opt.model",
                "greedy.level", "import.external", "suppress.internal",
                "no.same.gender.children", "n0n1.cap", "verbose"),
  bslearn = c("bx", "y", "control"),
  bsnsing = c("x", "..."),
  bsnsing.default = c("x", "y", "controls", "..."),
  bsnsing.formula = c("formula", "data", "subset", "na.action", "..."),
  import_external_rules = c("x", "y", "verbose"),
  plot.bsnsing = c("x", "file", "class_labels", "class_colors", "rule_font", "rule_color",
                   "footnote", "landscape", "papersize", "verbose", "..."),
  plot.mbsnsing = c("x", "..."),
  predict.bsnsing = c("object", "newdata", "type", "..."),
  predict.mbsnsing = c("object", "newdata", "type", "..."),
  print.bscontrol = c("x", "..."),
  print.bsnsing = c("x", "print.call", "..."),
  print.mbsnsing = c("x", "..."),
  print.summary.bsnsing = c("x", "print.call", "..."),
  print.summary.mbsnsing = c("x", "..."),
  rcpp_bslearn = c("nrows", "ncols", "input_y", "input_x", "grp", "max_rules", "max_time",
                   "node_size", "no_same_gender_children", "verbose"),
  ROC_func = c("df", "label_colnum", "score_colnum", "pos.label", "plot.ROC", "add_on",
               "color", "lty"),
  summary.bsnsing = c("object", "..."),
  summary.mbsnsing = c("object", "...")
)

# The library holding R bsnsing itself (the reference), or NULL.
rbsnsing_lib <- function() {
  path <- find.package("bsnsing", quiet = TRUE)
  if (length(path) == 0L) return(NULL)
  dirname(path[1])
}

skip_if_no_rbsnsing <- function() {
  if (is.null(rbsnsing_lib())) {
    skip("R bsnsing 1.0.1 (the reference) is not installed (.ci/setup puts it in .rlib)")
  }
}

# Run R code in a separate R process with R bsnsing loaded (its S3 methods
# would replace pybsnsing's in this one) and return the value.
with_rbsnsing <- function(fun, args = list()) {
  io <- tempfile(fileext = ".rds")
  saveRDS(list(fun = fun, args = args), io)
  script <- tempfile(fileext = ".R")
  writeLines(c(sprintf(".libPaths(c(%s, .libPaths()))", deparse(rbsnsing_lib())),
               "suppressPackageStartupMessages(library(bsnsing))",
               sprintf("job <- readRDS(%s)", deparse(io)),
               "environment(job$fun) <- globalenv()",
               sprintf("saveRDS(do.call(job$fun, job$args), %s)", deparse(io))), script)
  out <- system2(file.path(R.home("bin"), "Rscript"), c("--vanilla", script),
                 stdout = TRUE, stderr = TRUE)
  status <- attr(out, "status")
  if (!is.null(status) && status != 0) stop(paste(out, collapse = "\n"))
  readRDS(io)
}

test_that("every R bsnsing export exists here with R bsnsing's arguments", {
  exports <- getNamespaceExports("pybsnsing")
  expect_true(all(names(rbsnsing_api) %in% exports),
              label = paste("missing:", paste(setdiff(names(rbsnsing_api), exports),
                                              collapse = ", ")))
  for (fn in names(rbsnsing_api)) {
    f <- getExportedValue("pybsnsing", fn)
    expect_true(is.function(f), label = fn)
    missing_args <- setdiff(rbsnsing_api[[fn]], names(formals(f)))
    expect_identical(missing_args, character(0), label = paste(fn, "arguments"))
  }
  expect_true("mbsnsing" %in% exports)
  expect_true(methods::isVirtualClass("mbsnsing", where = asNamespace("pybsnsing")))
})

test_that("R bsnsing's data sets are here with the same values", {
  expect_identical(dim(BreastCancer), c(699L, 10L))
  expect_identical(dim(GlaucomaMVF), c(170L, 67L))
  expect_identical(dim(auto), c(392L, 8L))
  expect_identical(levels(auto$origin), c("EUJ", "USA"))
  expect_identical(iris, datasets::iris)
  expect_identical(sum(is.na(BreastCancer$Bare.nuclei)), 16L)
  skip_if_no_rbsnsing()
  ref <- new.env()
  lazyLoad(file.path(rbsnsing_lib(), "bsnsing", "data", "Rdata"), envir = ref)
  for (name in c("BreastCancer", "GlaucomaMVF", "auto", "iris")) {
    expect_identical(get(name, envir = asNamespace("pybsnsing")$.__NAMESPACE__.$lazydata),
                     ref[[name]], label = name)
  }
})

test_that("binarize.y codes responses as bsnsing() does (R bsnsing's Q2 fixed)", {
  y <- factor(c("good", "bad", "good", "good", "bad"))
  b <- binarize.y(y)
  expect_identical(b$y, c(1L, 0L, 1L, 1L, 0L))
  expect_identical(b$ycode, c("bad", "good"))
  expect_identical(b$coding.scheme, "Response coding: good ==> 1   bad ==> 0")
  expect_output(binarize.y(y, verbose = TRUE), "good ==> 1")
  b <- binarize.y(c(TRUE, FALSE, FALSE, FALSE, TRUE))
  expect_identical(b$y, c(1L, 0L, 0L, 0L, 1L))
  expect_identical(b$ycode, c(FALSE, TRUE))
  b <- binarize.y(c(1, 2, 2, 1, 2))    # R bsnsing 1.0.1 codes all of them 0 (Q2)
  expect_identical(b$y, c(0, 1, 1, 0, 1))
  expect_identical(b$ycode, c(1, 2))
  b <- binarize.y(factor(c("x", "all.other", "x")))
  expect_identical(b$y, c(1L, 0L, 1L))
  expect_identical(b$ycode, c("all.other", "x"))
  expect_identical(binarize.y(c("b", "a", "b"))$ycode, c("a", "b"))
  expect_error(binarize.y(factor(c("a", "b", "c"))), "two distinct levels")
  expect_error(binarize.y(1:3), "two distinct values")
  expect_error(binarize.y(list(1, 2)), "must be a factor, character, numeric")
  skip_if_no_pybsnsing()
  for (y in list(factor(c("good", "bad", "good", "bad")), c(TRUE, FALSE, TRUE, FALSE),
                 c(3L, 7L, 3L, 7L), c(-1, 0.5, -1, 0.5), c("u", "v", "u", "v"))) {
    d <- data.frame(y = rep(y, 10), x = seq_len(40))
    bs <- bsnsing(y ~ x, data = d, import.external = FALSE)
    b <- binarize.y(d$y)
    expect_identical(as.character(bs$ycode), as.character(b$ycode))
    expect_identical(bs$y.coding.scheme, b$coding.scheme)
  }
})

# Inf and -Inf in some rows: rpart treats them as missing (surrogate splits)
with_inf <- function(d) {
  d$mpg[c(3, 50, 90, 91, 200)] <- c(Inf, -Inf, Inf, Inf, -Inf)
  d$weight[c(4, 50, 120)] <- c(-Inf, Inf, Inf)
  d
}
environment(with_inf) <- globalenv()  # (sent to the R bsnsing process as it is)

test_that("the building blocks agree with R bsnsing's", {
  skip_if_no_pybsnsing()
  y <- as.integer(auto$origin == "USA")
  mine <- list(
    num = lapply(c("mpg", "weight", "displacement"), function(v) {
      lapply(0:1, function(t) binarize.numeric(auto[[v]], v, y, target = t, segments = 5))
    }),
    perfect = binarize.numeric(auto$weight, "weight", as.integer(auto$weight > 3000), 1),
    fac = binarize.factor(factor(auto$cylinders), "cyl", y, bin.size = 10),
    fac_num = binarize.factor(auto$cylinders, "cyl", y),
    ext = import_external_rules(auto[, c("mpg", "displacement", "weight")], y),
    ext_none = import_external_rules(auto[1:5, c("mpg", "weight")], y[1:5]),
    ext_inf = import_external_rules(with_inf(auto[, c("mpg", "displacement", "weight")]), y),
    y = lapply(list(factor(c("good", "bad", "good")), c(TRUE, FALSE), c(0L, 3L, 3L)),
               binarize.y))
  bx <- binarize(auto[, c("mpg", "weight")], y, target = 1)
  mine$enum <- rcpp_bslearn(nrow(bx), ncol(bx), y, as.integer(unlist(bx)), seq_len(ncol(bx)),
                            2L, 10L, 10L, 0L, 0L)
  expect_identical(length(mine$ext), 18L)
  expect_null(mine$ext_none)
  skip_if_no_rbsnsing()
  ref <- with_rbsnsing(function(bx, with_inf) {
    y <- as.integer(auto$origin == "USA")
    list(
      num = lapply(c("mpg", "weight", "displacement"), function(v) {
        lapply(0:1, function(t) binarize.numeric(auto[[v]], v, y, target = t, segments = 5))
      }),
      perfect = binarize.numeric(auto$weight, "weight", as.integer(auto$weight > 3000), 1),
      fac = binarize.factor(factor(auto$cylinders), "cyl", y, bin.size = 10),
      fac_num = binarize.factor(auto$cylinders, "cyl", y),
      ext = import_external_rules(auto[, c("mpg", "displacement", "weight")], y, FALSE),
      ext_none = import_external_rules(auto[1:5, c("mpg", "weight")], y[1:5], FALSE),
      ext_inf = import_external_rules(with_inf(auto[, c("mpg", "displacement", "weight")]), y,
                                      FALSE),
      y = lapply(list(factor(c("good", "bad", "good")), c(TRUE, FALSE), c(0L, 3L, 3L)),
                 binarize.y),
      enum = rcpp_bslearn(nrow(bx), ncol(bx), y, as.integer(unlist(bx)), seq_len(ncol(bx)),
                          2L, 10L, 10L, 0L, 0L))
  }, list(bx = bx, with_inf = with_inf))
  for (k in names(ref)) expect_identical(mine[[k]], ref[[k]], label = k)
})

# The \examples of R bsnsing's help pages, \dontrun parts included, as R code.
rbsnsing_examples <- function() {
  db <- tools::Rd_db("bsnsing", lib.loc = rbsnsing_lib())
  out <- list()
  for (name in sort(names(db))) {
    f <- tempfile(fileext = ".R")
    tools::Rd2ex(db[[name]], f, commentDontrun = FALSE, commentDonttest = FALSE)
    if (file.exists(f)) out[[sub("\\.Rd$", "", name)]] <- readLines(f)
  }
  out
}

run_example <- function(code, name) {
  dir <- tempfile("ex-")
  dir.create(dir)
  old <- setwd(dir)
  on.exit(setwd(old), add = TRUE)
  grDevices::pdf(file.path(dir, "Rplots.pdf"))
  on.exit(grDevices::dev.off(), add = TRUE)
  set.seed(2022)
  env <- new.env(parent = globalenv())
  # as example() runs them: visible values are printed
  output <- utils::capture.output(
    res <- tryCatch({
      suppressMessages(source(exprs = parse(text = code, keep.source = FALSE), local = env,
                              echo = FALSE, print.eval = TRUE))
      NULL
    }, error = function(e) e))
  list(error = res, output = output, files = list.files(dir), env = env)
}

test_that("every example of R bsnsing's help pages runs here unchanged", {
  skip_if_no_pybsnsing()
  skip_if_no_rbsnsing()
  examples <- rbsnsing_examples()
  # the help pages that have examples (R bsnsing 1.0.1 has 11)
  expect_gte(length(examples), 11L)
  for (name in names(examples)) {
    res <- run_example(examples[[name]], name)
    expect_null(res$error, label = paste("example of", name))
    if (!is.null(res$error)) next
    if (name == "plot.bsnsing") {
      # plot(bs) drew on the device; the .pdf files are pictures, not LaTeX
      expect_true(all(c("GlaucomaMVF_tree.pdf", "GlaucomaMVF_tree_letterpaper.pdf") %in%
                        res$files))
      expect_false(any(grepl("\\.tex$", res$files)))
    }
    if (name == "bsnsing.default") {
      # verbose = TRUE: the trace reaches R's console (capture.output sees it)
      expect_true(any(grepl("^node 0: nobs 150", res$output)), label = "verbose trace")
      expect_true(any(grepl("Decision Tree:", res$output)), label = "summary printed")
    }
    if (name == "ROC_func") {
      expect_true(any(grepl("^\\[1\\] 0\\.9", res$output)), label = "AUC printed")
    }
  }
})

# The same calls written out, for when R bsnsing's help pages are not at hand.
test_that("R bsnsing's documented calls run (written out)", {
  skip_if_no_pybsnsing()
  code <- c(
    "x <- auto[, c('mpg', 'cylinders', 'displacement')]",
    "x$cylinders <- as.factor(x$cylinders)",
    "y <- ifelse(auto$origin == 'USA', 1L, 0L)",
    "bx1 <- binarize(x, y, target = 1); bx0 <- binarize(x, y, target = 0)",
    "b1 <- binarize(auto[, 'mpg', drop = FALSE], y, target = 1)",
    "sol <- bslearn(binarize(auto[, c('mpg', 'cylinders', 'displacement')], y, target = 1),",
    "               y, bscontrol(opt.solver = 'enum'))",
    "yb <- binarize.y(factor(c('good', 'bad', 'good', 'good', 'bad')))",
    "ctl <- bscontrol(stop.prob = 0.8, nseg.numeric = 10, verbose = TRUE); print(ctl)",
    "bs <- bsnsing(Class ~ ., data = BreastCancer); s <- summary(bs)",
    "m <- bsnsing(Species ~ ., data = iris); summary(m); summary(m[[2]])",
    "pc <- predict(m, type = 'class'); pp <- predict(m, type = 'prob')",
    "yy <- ifelse(iris$Species == 'setosa', 1L, 0L)",
    "d <- bsnsing(iris[, 1:4], yy, verbose = TRUE); summary(d)",
    "a <- bsnsing(origin ~ mpg + displacement + horsepower + weight, data = auto)",
    "g <- bsnsing(Class ~ ., data = GlaucomaMVF, subset = 1:100)",
    "tab <- table(predict(g, GlaucomaMVF[101:170, ], type = 'class'),",
    "             GlaucomaMVF[101:170, 'Class'])",
    "plot(g); plot(g, file = 'g.pdf'); plot(g, file = 'g2.pdf', paper = 'letterpaper')",
    "auc <- ROC_func(data.frame(predict(bs, BreastCancer), BreastCancer$Class), 2, 1,",
    "                pos.label = 'malignant', plot.ROC = TRUE)")
  res <- run_example(code, "written out")
  expect_null(res$error)
  expect_true(all(c("g.pdf", "g2.pdf") %in% res$files))
  expect_gt(res$env$auc, 0.9)
  expect_identical(res$env$sol$n.rules, length(res$env$sol$cols))
})

# A data frame with columns of classes that R's model.matrix reads as their stored
# numbers (R bsnsing fits them so: a Date as days, a POSIXct as seconds).
classed_frame <- function() {
  set.seed(7)
  n <- 150
  z <- stats::rnorm(n)
  d <- data.frame(y = factor(ifelse(z + stats::rnorm(n, sd = .6) > 0, "up", "down")))
  d$date <- as.Date("2021-03-01") + round(z * 40 + stats::rnorm(n, sd = 10))
  d$date[c(5, 17)] <- NA
  d$when <- as.POSIXct("2021-01-01", tz = "UTC") + z * 7200 + stats::runif(n) * 600
  d$lag <- as.difftime(round(10 * z + stats::rnorm(n, sd = 5), 1), units = "mins")
  d$tsx <- stats::ts(stats::rnorm(n) + z / 2)
  d$hex <- as.hexmode(sample(0:40, n, TRUE))
  d$mine <- structure(round(stats::rnorm(n), 2), class = "myclass")
  d$asis <- I(round(z + stats::rnorm(n), 1))
  d$tab <- as.table(round(stats::rnorm(n) * 3))
  d$num <- stats::rnorm(n)
  d
}

test_that("Date, POSIXct, difftime and other classed columns give R bsnsing's trees", {
  skip_if_no_pybsnsing()
  skip_if_no_rbsnsing()
  d <- classed_frame()
  fits <- function(d) {
    tr <- d[1:110, ]
    te <- d[111:150, ]
    te$date <- as.numeric(te$date)  # (newdata may hold the plain numbers)
    runs <- list(list(y ~ ., data = tr), list(y ~ ., data = tr, import.external = FALSE),
                 list(y ~ ., data = tr, max.rules = 3), list(y ~ date + when + lag, data = tr))
    lapply(runs, function(args) {
      m <- do.call(bsnsing, args)
      list(print = utils::capture.output(print(m))[-1],
           summary = utils::capture.output(summary(m))[-1],
           prob = unname(predict(m, te)), class = as.character(predict(m, te, type = "class")))
    })
  }
  environment(fits) <- globalenv()
  mine <- fits(d)
  ref <- with_rbsnsing(fits, list(d = d))
  expect_true(any(grepl("date|when|lag", unlist(lapply(mine, `[[`, "summary")))))
  for (k in seq_along(ref)) {
    expect_identical(mine[[k]]$print, ref[[k]]$print, label = paste("print", k))
    expect_identical(mine[[k]]$summary, ref[[k]]$summary, label = paste("summary", k))
    expect_equal(mine[[k]]$prob, ref[[k]]$prob, tolerance = 1e-12, label = paste("prob", k))
    expect_identical(mine[[k]]$class, ref[[k]]$class, label = paste("class", k))
  }
  # as a response, R bsnsing refuses them (is.numeric() is FALSE), with its words
  d$y <- as.Date(ifelse(d$y == "up", 19000, 19001), origin = "1970-01-01")
  expect_error(bsnsing(y ~ num, data = d), "Response variable y must be a numeric")
  expect_error(bsnsing(d["num"], d$y), "Response variable y must be a numeric")
})

test_that("a response expression (factor(am) ~ .) gives R bsnsing's trees and text", {
  skip_if_no_pybsnsing()
  skip_if_no_rbsnsing()
  d <- datasets::mtcars[, c("am", "mpg", "wt", "hp", "qsec", "gear", "vs")]
  fits <- function(d) {
    fs <- list(factor(am) ~ ., as.factor(am) ~ mpg + wt, I(am == 1) ~ mpg + wt + hp,
               factor(gear) ~ ., factor(vs, levels = c(1, 0)) ~ mpg + hp,
               ifelse(am == 1, "m", "a") ~ ., as.integer(am) ~ wt + mpg)
    lapply(fs, function(f) {
      m <- bsnsing(f, data = d)
      one <- if (inherits(m, "mbsnsing")) m[[1]] else m
      list(print = utils::capture.output(print(m)),
           summary = utils::capture.output(summary(one))[-1],
           prob = predict(m, d[1:12, ]))
    })
  }
  environment(fits) <- globalenv()
  mine <- fits(d)
  ref <- with_rbsnsing(fits, list(d = d))
  expect_length(mine, 7L)
  for (k in seq_along(ref)) {
    expect_identical(mine[[k]]$print, ref[[k]]$print, label = paste("print", k))
    expect_identical(mine[[k]]$summary, ref[[k]]$summary, label = paste("summary", k))
    expect_equal(mine[[k]]$prob, ref[[k]]$prob, tolerance = 1e-12, label = paste("prob", k))
  }
  # '.' leaves out the variables of the response expression, as in R
  m <- bsnsing(factor(am) ~ ., data = d, import.external = FALSE)
  rules <- unlist(lapply(m$tree.nodes, `[[`, "node.split.rule"))
  expect_true(any(nzchar(rules)))
  expect_false(any(grepl("\\bam\\b", rules)))
})

test_that("bsnsing(x, y) takes a matrix without column names as R bsnsing does (V1, ...)", {
  skip_if_no_pybsnsing()
  skip_if_no_rbsnsing()
  fit <- function(x, y) utils::capture.output(summary(bsnsing(x, y)))[-1]
  environment(fit) <- globalenv()
  x <- unname(as.matrix(iris[, 1:4]))
  y <- as.integer(iris$Species == "versicolor")
  mine <- fit(x, y)
  expect_true(any(grepl("V[1-4] [<>]", mine)))
  expect_identical(mine, with_rbsnsing(fit, list(x = x, y = y)))
})

# A signal z and a 0/1 response that follows it with noise, from `seed`.
noisy_01 <- function(seed, n) {
  set.seed(seed)
  z <- stats::rnorm(n)
  list(z = z, y = as.integer(z + stats::rnorm(n) > 0))
}

test_that("binarize() reads the columns R bsnsing's binarize() reads, with its types", {
  skip_if_no_pybsnsing()
  skip_if_no_rbsnsing()
  n <- 60
  zy <- noisy_01(9, n)
  z <- zy$z
  y <- zy$y
  xs <- list(
    num = data.frame(a = round(z + stats::rnorm(n), 2), i = as.integer(round(3 * z))),
    fac = data.frame(f = factor(sample(c("p", "q", "r"), n, TRUE))),
    chr = data.frame(s = sample(c("u", "v"), n, TRUE), stringsAsFactors = FALSE),
    lgl = data.frame(l = z > 0, b = as.integer(z > 0.3)),
    date = data.frame(d = as.Date("2020-01-01") + round(10 * z), a = round(z, 1)),
    mixed = data.frame(a = round(z, 1), f = factor(sample(c("p", "q"), n, TRUE)),
                       s = sample(c("u", "v"), n, TRUE), l = z > 0.2,
                       stringsAsFactors = FALSE),
    fewnum = data.frame(k = sample(c(1.5, 2.5, 3.5), n, TRUE)))
  run <- function(xs, y) {
    lapply(xs, function(x) lapply(0:1, function(t) binarize(x, y, target = t)))
  }
  environment(run) <- globalenv()
  mine <- run(xs, y)
  ref <- with_rbsnsing(run, list(xs = xs, y = y))
  for (k in names(xs)) expect_identical(mine[[k]], ref[[k]], label = k)
  # R leaves out character and Date columns, and a logical column beside strings
  expect_identical(ncol(mine$chr[[1]]), 0L)
  expect_false(any(grepl("^(s|l|d)\\b", names(mine$mixed[[1]]))))
  expect_true(any(grepl("^l==", names(mine$lgl[[1]]))))
})

test_that("bslearn() gives R bsnsing's result (fields and their types)", {
  skip_if_no_pybsnsing()
  skip_if_no_rbsnsing()
  n <- 80
  zy <- noisy_01(21, n)
  z <- zy$z
  y <- zy$y
  d <- data.frame(a = round(z + stats::rnorm(n), 2), f = factor(sample(c("p", "q"), n, TRUE)))
  run <- function(d, y) {
    out <- list()
    for (t in 0:1) {
      bx <- binarize(d, y, target = t)
      yy <- if (t == 1) y else 1L - y
      for (mr in 1:3) out[[paste(t, mr)]] <- bslearn(bx, yy, bscontrol(max.rules = mr))
      out[[paste(t, "nsgc")]] <- bslearn(bx, yy, bscontrol(no.same.gender.children = TRUE))
    }
    out
  }
  environment(run) <- globalenv()
  mine <- run(d, y)
  ref <- with_rbsnsing(run, list(d = d, y = y))
  for (k in names(ref)) {
    expect_identical(mine[[k]][names(ref[[k]])], ref[[k]], label = k)
    expect_identical(names(mine[[k]]), c(names(ref[[k]]), "cols"))  # (cols: pybsnsing's)
  }
})

test_that("R's random numbers after a fit are R bsnsing's (its rpart calls draw them)", {
  skip_if_no_pybsnsing()
  skip_if_no_rbsnsing()
  after <- function() {
    r <- c()
    set.seed(1); m <- bsnsing(Species ~ ., data = iris); r <- c(r, stats::runif(1))
    set.seed(1); m <- bsnsing(Species ~ ., data = iris, import.external = FALSE)
    r <- c(r, stats::runif(1))
    set.seed(1); m <- bsnsing(Class ~ ., data = BreastCancer); r <- c(r, stats::runif(1))
    set.seed(1); m <- bsnsing(iris[, 1:4], as.integer(iris$Species == "setosa"))
    r <- c(r, stats::runif(1))
    set.seed(1)
    m <- bsnsing(Kyphosis ~ ., data = rpart::kyphosis, max.rules = 3, node.size = 5)
    r <- c(r, stats::runif(1))
    set.seed(1)
    e <- import_external_rules(iris[, 1:4], as.integer(iris$Species == "setosa"), FALSE)
    r <- c(r, stats::runif(1))
    # a script that samples its data after each fit
    set.seed(2)
    d <- data.frame(y = factor(sample(c("a", "b"), 300, TRUE)), x = stats::rnorm(300),
                    z = stats::rnorm(300))
    for (i in 1:3) {
      m <- bsnsing(y ~ ., data = d)
      d$x <- stats::rnorm(300)
    }
    r <- c(r, stats::runif(1))
    set.seed(5); m <- bsnsing(factor(am) ~ ., data = datasets::mtcars)
    r <- c(r, stats::runif(1))
    r
  }
  environment(after) <- globalenv()
  mine <- after()
  expect_identical(mine, with_rbsnsing(after))
  set.seed(1)
  expect_false(identical(mine[1], stats::runif(1)))  # (the fit did take random numbers)
})

test_that("an ordered response of three classes gives R bsnsing's trees and objects", {
  skip_if_no_pybsnsing()
  skip_if_no_rbsnsing()
  set.seed(8)
  n <- 150
  z <- stats::rnorm(n)
  s <- z + stats::rnorm(n, sd = .7)
  d <- data.frame(y = factor(cut(s, c(-Inf, -0.5, 0.5, Inf), labels = c("L", "M", "H")),
                             ordered = TRUE), x = z + stats::rnorm(n), w = stats::rnorm(n))
  fit <- function(d) {
    m <- bsnsing(y ~ ., data = d)
    list(print = utils::capture.output(print(m)), ylevels = m$ylevels, yprior = m$yprior,
         summary = lapply(1:3, function(k) utils::capture.output(summary(m[[k]]))[-1]),
         prob = predict(m, d[1:10, ]), class = predict(m, d[1:10, ], type = "class"))
  }
  environment(fit) <- globalenv()
  mine <- fit(d)
  ref <- with_rbsnsing(fit, list(d = d))
  expect_true(is.ordered(mine$ylevels))
  for (k in setdiff(names(ref), "prob")) expect_identical(mine[[k]], ref[[k]], label = k)
  expect_equal(mine$prob, ref$prob, tolerance = 1e-12)  # (normalised: last bits may differ)
})

test_that("numeric matrix columns are expanded as R's model.matrix expands them", {
  skip_if_no_pybsnsing()
  skip_if_no_rbsnsing()
  set.seed(1)
  n <- 100
  d <- data.frame(x = stats::rnorm(n))
  d$m <- cbind(a = stats::rnorm(n), b = stats::rnorm(n))
  d$u <- matrix(stats::rnorm(2 * n), n)
  d$y <- factor(ifelse(d$m[, "a"] + d$u[, 2] + stats::rnorm(n) > 0, "p", "q"))
  fit <- function(d) {
    lapply(list(y ~ ., y ~ m + x, y ~ . - u, y ~ x + u), function(f) {
      m <- bsnsing(f, data = d)
      list(summary = utils::capture.output(summary(m))[-1], prob = predict(m, d[1:20, ]))
    })
  }
  environment(fit) <- globalenv()
  mine <- fit(d)
  expect_true(any(grepl("\\b(ma|mb|u1|u2) [<>]", mine[[1]]$summary)))
  expect_identical(mine, with_rbsnsing(fit, list(d = d)))
  expect_error(bsnsing(y ~ log(m), data = d), "column 'm' is a matrix column")
})
