# Bad input gives clean R errors carrying the Python message (no traceback).

no_traceback <- function(err) {
  msg <- conditionMessage(err)
  expect_false(grepl("Traceback|File \"|py_call_impl|Detailed traceback", msg), label = msg)
}

test_that("bad data is a clear error", {
  skip_if_no_pybsnsing()
  data(kyphosis, package = "rpart", envir = environment())
  e <- expect_error(bsnsing(Kyphosis ~ ., data = "kyphosis"), "'data' must be a data frame")
  e <- expect_error(bsnsing(Kyphosis ~ ., data = 1:10), "'data' must be a data frame")
  e <- expect_error(bsnsing(Nope ~ ., data = kyphosis), "'Nope'.*not in 'data'")
  e <- expect_error(bsnsing(Kyphosis ~ Age + Nope + Nix, data = kyphosis),
                    "'Nope', 'Nix' of the formula are not in 'data'")
  k1 <- kyphosis
  k1$Kyphosis[] <- "absent"
  e <- expect_error(bsnsing(Kyphosis ~ ., data = k1), "single class")
  no_traceback(e)
  e <- expect_error(bsnsing(Kyphosis ~ ., data = kyphosis, max.rulez = 3),
                    "Argument 'max.rulez' not matched")
  e <- expect_error(bsnsing(Kyphosis ~ ., data = kyphosis, max.rules = 11), "'max.rules'")
  no_traceback(e)
  e <- expect_error(bsnsing(Kyphosis ~ ., data = kyphosis, max.rules = 2.5),
                    "'max.rules' must be a whole number")
  no_traceback(e)
  # a response expression is evaluated as R's model.frame does (R bsnsing stops here too)
  e <- expect_error(bsnsing(log(Age) ~ ., data = kyphosis),
                    "'log\\(Age\\)' has 64 distinct values; at most 30 classes")
  no_traceback(e)
  e <- expect_error(bsnsing(nope(Age) ~ ., data = kyphosis), "could not find function \"nope\"")
  e <- expect_error(bsnsing(cbind(Age, Number) ~ ., data = kyphosis),
                    "must give one value per row of 'data' \\(81\\)")
  bad <- kyphosis
  names(bad)[2] <- "Age-1"
  # any column name works (issue 12)
  expect_s3_class(bsnsing(Kyphosis ~ ., data = bad), "bsnsing")
  bad <- data.frame(y = factor(c("a", "b", "a", "b")), f = factor(c("x", "x", "x", "x")))
  e <- expect_error(bsnsing(y ~ f, data = bad), "single level")
  no_traceback(e)
})

test_that("errors name the R function and are pybsnsing_error conditions", {
  skip_if_no_pybsnsing()
  data(kyphosis, package = "rpart", envir = environment())
  k1 <- kyphosis
  k1$Kyphosis[] <- "present"
  err <- tryCatch(bsnsing(Kyphosis ~ ., data = k1), error = function(e) e)
  expect_s3_class(err, "pybsnsing_error")
  expect_match(deparse(conditionCall(err))[1], "^bsnsing")
})

test_that("predict with bad newdata is a clear error", {
  skip_if_no_pybsnsing()
  data(kyphosis, package = "rpart", envir = environment())
  bs <- bsnsing(Kyphosis ~ ., data = kyphosis, import.external = FALSE)
  e <- expect_error(predict(bs, kyphosis[, c("Age", "Number")]), "Start")
  no_traceback(e)
  e <- expect_error(predict(bs, "x"), "'newdata' must be a data frame")
  expect_error(predict(bs, kyphosis, type = "response"), "should be one of")
})

test_that("bscontrol() corrects out-of-range values with a warning", {
  expect_warning(ctl <- bscontrol(stop.prob = 2), "0.9 was used")
  expect_identical(ctl$stop.prob, 0.9)
  expect_warning(ctl <- bscontrol(nseg.numeric = 1, num2factor = 2), "3 was used")
  expect_identical(ctl$nseg.numeric, 3)
  expect_error(bscontrol(opt.solver = "gurobi"), "must be one of")
})
