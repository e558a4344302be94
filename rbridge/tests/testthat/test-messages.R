# R-worded messages: control names with dots, R literals, R errors for
# non-finite and missing control values (issues 12 and 13).

no_python_text <- function(msg) {
  expect_false(grepl(paste0("Traceback|File \"|py_call_impl|Detailed traceback|",
                            "OverflowError|AttributeError|IndexError|SyntaxError|",
                            "\\[['\"]|\\b(max|bin|stop|node)_[a-z]+\\b|\\bTrue\\b|\\bFalse\\b"),
                     msg), label = msg)
}

expect_r_error <- function(expr, pattern) {
  e <- expect_error(expr, pattern)
  no_python_text(conditionMessage(e))
  invisible(e)
}

test_that("non-finite, missing and wrong-type controls are R errors naming the parameter", {
  expect_r_error(bscontrol(bin.size = Inf), "'bin.size' must be a whole number, not Inf")
  expect_r_error(bscontrol(bin.size = -Inf), "'bin.size' must be a whole number, not -Inf")
  expect_r_error(bscontrol(bin.size = 1e300), "at most 2147483647")
  expect_r_error(bscontrol(node.size = 2.5), "'node.size' must be a whole number, not 2.5")
  expect_r_error(bscontrol(stop.prob = NA), "'stop.prob' must be a number in \\[0, 1\\], not NA")
  expect_r_error(bscontrol(stop.prob = NaN), "'stop.prob' must be a number in \\[0, 1\\], not NaN")
  expect_r_error(bscontrol(stop.prob = "0.5"), "'stop.prob' must be a number.*not \"0.5\"")
  expect_r_error(bscontrol(max.rules = 11), "'max.rules' must be a whole number from 1 to 10, not 11")
  expect_r_error(bscontrol(max.rules = c(1, 2)), "not c\\(1, 2\\)")
  expect_r_error(bscontrol(max.rules = NULL), "not NULL")
  expect_r_error(bscontrol(solver.timelimit = 0), "'solver.timelimit' must be a positive number")
  for (flag in c("suppress.internal", "no.same.gender.children", "verbose")) {
    args <- stats::setNames(list(NA), flag)
    expect_r_error(do.call(bscontrol, args), sprintf("'%s' must be TRUE or FALSE, not NA", flag))
    args[[1]] <- "yes"
    expect_r_error(do.call(bscontrol, args), sprintf("'%s' must be TRUE or FALSE", flag))
  }
  expect_r_error(bscontrol(import.external = NA),
                 "'import.external' must be TRUE, FALSE, \"rpart\" or \"r\", not NA")
  expect_r_error(bscontrol(opt.solver = "gurobi"), "'opt.solver' must be one of")
  expect_r_error(bscontrol(opt.model = NA_character_), "'opt.model' must be one of")
  # values R accepts keep working
  expect_identical(bscontrol(import.external = 0)$import.external, FALSE)
  expect_identical(bscontrol(import.external = "rpart")$import.external, "rpart")
  expect_identical(bscontrol(opt.solver = "enum_p")$opt.solver, "enum_py")
  expect_identical(bscontrol(solver.timelimit = Inf)$solver.timelimit, Inf)
  expect_identical(bscontrol(max.rules = 3L)$max.rules, 3L)
  expect_warning(ctl <- bscontrol(stop.prob = Inf), "0.9 was used")
  expect_identical(ctl$stop.prob, 0.9)
})

test_that("bad controls through bsnsing(), controls = and binarize() are R errors", {
  skip_if_no_pybsnsing()
  data(kyphosis, package = "rpart", envir = environment())
  e <- expect_r_error(bsnsing(Kyphosis ~ ., data = kyphosis, bin.size = Inf),
                      "'bin.size' must be a whole number, not Inf")
  expect_match(deparse(conditionCall(e))[1], "^bsnsing")
  expect_r_error(bsnsing(Kyphosis ~ ., data = kyphosis, stop.prob = NA), "'stop.prob'.*not NA")
  # NA was silently TRUE before: now an error, whichever way it is given
  for (flag in c("suppress.internal", "no.same.gender.children", "import.external")) {
    args <- stats::setNames(list(NA), flag)
    expect_r_error(do.call(bsnsing, c(list(Kyphosis ~ ., data = kyphosis), args)),
                   sprintf("'%s' must be TRUE", flag))
    expect_r_error(bsnsing(Kyphosis ~ ., data = kyphosis, controls = args),
                   sprintf("'%s' must be TRUE", flag))
    ctl <- bscontrol()
    ctl[[flag]] <- NA
    expect_r_error(bsnsing(Kyphosis ~ ., data = kyphosis, controls = ctl),
                   sprintf("'%s' must be TRUE", flag))
  }
  expect_r_error(bsnsing(Kyphosis ~ ., data = kyphosis, controls = list(bin.size = Inf)),
                 "'bin.size' must be a whole number, not Inf")
  expect_r_error(bsnsing(Kyphosis ~ ., data = kyphosis, controls = list(3)),
                 "must have names")
  expect_r_error(bsnsing(Kyphosis ~ ., data = kyphosis, max.rules = 1, max.rules = 2),
                 "'max.rules' given more than once")
  # Python's spelling of a control name: R's is suggested
  e <- expect_error(bsnsing(Kyphosis ~ ., data = kyphosis, max_rules = 3),
                    "Argument 'max_rules' not matched; did you mean 'max.rules'\\?")
  y <- as.integer(kyphosis$Kyphosis == "present")
  expect_r_error(binarize(kyphosis[, -1], y, target = 1, control = list(bin.size = NA)),
                 "'bin.size' must be a whole number, not NA")
  expect_r_error(binarize(kyphosis[, -1], y, target = 1, control = "x"),
                 "'control' must be a bscontrol\\(\\) object")
  bx <- binarize(kyphosis[, -1], y, target = 1)
  expect_r_error(bslearn(bx, y, control = list(max.rules = Inf)), "'max.rules'")
  twice <- kyphosis[, c("Age", "Number", "Start")]
  names(twice) <- c("Age", "Age", "Start")
  expect_r_error(binarize(twice, y, target = 1), "more than one column named 'Age'")
})

test_that("Python's messages reach R in R's words", {
  skip_if_no_pybsnsing()
  data(kyphosis, package = "rpart", envir = environment())
  k1 <- kyphosis
  k1$Kyphosis[] <- "absent"
  e <- expect_r_error(bsnsing(Kyphosis ~ ., data = k1), "single class")
  expect_match(conditionMessage(e), "c(\"absent\")", fixed = TRUE)
  # a range correction made by the Python side is worded with R's names
  w <- tryCatch(bsnsing(Kyphosis ~ ., data = kyphosis, import.external = FALSE,
                        controls = list(bin.size = 0)), warning = function(w) w)
  expect_s3_class(w, "warning")
  expect_match(conditionMessage(w), "bin.size", fixed = TRUE)
  no_python_text(conditionMessage(w))
  # the translation itself
  msgs <- reticulate::import("pybsnsing.r.messages")
  expect_identical(msgs$r_message("max_rules must be 1 to 10, got ['a', 'b'] and True"),
                   "max.rules must be 1 to 10, got c(\"a\", \"b\") and TRUE")
  expect_identical(msgs$r_message("opt_solver must be one of ('enum_c', 'enum'), got nan"),
                   "opt.solver must be one of c(\"enum_c\", \"enum\"), got NaN")
  expect_identical(msgs$r_message("column 'max_rules' (2 splits) in bsnsing()"),
                   "column 'max_rules' (2 splits) in bsnsing()")
  expect_identical(msgs$r_message("levels [1, 2.5, None, -inf]"), "levels c(1, 2.5, NULL, -Inf)")
})

test_that("what Python prints reaches R at once: stdout by cat(), stderr by message()", {
  skip_if_no_pybsnsing()
  main <- reticulate::py_run_string(paste(
    "import sys",
    "def _pyb_talk(n):",
    "    for i in range(n):",
    "        print('line', i)",
    "    print('compiling kernels...', file=sys.stderr)",
    "    sys.stdout.write('no newline')",
    "    return n",
    sep = "\n"), convert = FALSE)
  out <- utils::capture.output(
    expect_message(res <- pybsnsing:::.pycall(main$`_pyb_talk`, 3L), "compiling kernels"))
  expect_identical(out, c("line 0", "line 1", "line 2", "no newline"))
  expect_identical(reticulate::py_to_r(res), 3L)
  # and is silenced like any R output
  expect_silent(suppressMessages(utils::capture.output(pybsnsing:::.pycall(main$`_pyb_talk`, 1L))))
})
