# A fixed (derandomized) subset of the R fuzz cases (helper-fuzz.R; the full
# run is bench/fuzz_r.R): every odd or hostile input gives a correct result
# or a clean R error, never Python's or R's internals, never a wrong answer,
# and a formula never runs code.

test_that("odd and hostile inputs give correct results or clean R errors", {
  skip_if_slow_tests_off()
  skip_if_no_pybsnsing()
  grDevices::pdf(NULL)
  on.exit(grDevices::dev.off(), add = TRUE)
  seeds <- c(0:59, 1000 + 0:19)
  kinds <- character(0)
  for (seed in seeds) {
    case <- fuzz_case(seed)
    res <- fuzz_run(case)
    kinds <- c(kinds, res$kind)
    expect_true(res$kind %in% c("correct", "clean error"),
                label = paste0(case$describe, "\n  -> ", res$kind, ": ", res$detail))
  }
  # the subset reaches real results, not only errors
  expect_gt(sum(kinds == "correct"), 20)
})

test_that("every entry point of the fuzzer is exercised", {
  skip_if_slow_tests_off()
  skip_if_no_pybsnsing()
  grDevices::pdf(NULL)
  on.exit(grDevices::dev.off(), add = TRUE)
  for (entry in unique(fuzz_entries)) {
    for (seed in 5000 + 0:2) {
      case <- fuzz_case(seed, entry)
      res <- fuzz_run(case)
      expect_true(res$kind %in% c("correct", "clean error"),
                  label = paste0(case$describe, "\n  -> ", res$kind, ": ", res$detail))
    }
  }
})

test_that("a formula never runs code", {
  skip_if_no_pybsnsing()
  marker <- tempfile("ran-")
  d <- data.frame(y = factor(rep(c("a", "b"), 20)), x = seq_len(40))
  for (rhs in c(sprintf("I(file.create('%s'))", marker),
                sprintf("I(system('touch %s'))", marker),
                sprintf("x + I(eval(parse(text = \"file.create('%s')\")))", marker))) {
    res <- tryCatch(bsnsing(stats::as.formula(paste("y ~", rhs)), data = d),
                    error = function(e) e)
    expect_false(file.exists(marker), label = rhs)
    if (inherits(res, "error")) {
      expect_identical(fuzz_classify_error(res)$kind, "clean error",
                       label = conditionMessage(res))
    }
  }
})

test_that("the classifier of the fuzzer tells clean from unclean messages", {
  kind <- function(msg) fuzz_classify_error(simpleError(msg))$kind
  expect_identical(kind("'bin.size' must be a whole number, not Inf"), "clean error")
  expect_identical(kind("Argument 'max_rules' not matched; did you mean 'max.rules'?"),
                   "clean error")
  expect_identical(kind("OverflowError: cannot convert float infinity to integer"),
                   "unclean error")
  expect_identical(kind("missing value where TRUE/FALSE needed"), "unclean error")
  expect_identical(kind("max_rules must be from 1 to 10"), "unclear error")
  expect_identical(kind("levels ['a', 'b'] are unknown"), "unclear error")
  expect_identical(kind("'NoneType' object has no attribute 'x'"), "unclear error")
  expect_identical(kind(""), "unclear error")
})
