# dpdt(): the DPDT front from R (front as a data frame, trees printable and predictable).

test_that("dpdt returns the front as a data frame and one tree per row", {
  skip_if_no_pybsnsing()
  fit <- dpdt(Species ~ ., data = iris, max.depth = 3)
  expect_s3_class(fit, "dpdt")
  expect_s3_class(fit$front, "data.frame")
  expect_named(fit$front, c("alpha_min", "alpha_max", "errors", "accuracy", "avg_tests",
                            "avg_cost", "n_nodes", "n_leaves", "depth", "objective"))
  n <- nrow(fit$front)
  expect_gt(n, 1L)
  expect_length(fit$trees, n)
  # a convex front: fewer errors for more tests
  expect_true(all(diff(fit$front$avg_tests) > 0))
  expect_true(all(diff(fit$front$errors) < 0))
  expect_equal(fit$front$alpha_min[n], 0)
  expect_true(all(fit$front$depth <= 3))
  expect_identical(fit$classes, factor(levels(iris$Species), levels = levels(iris$Species)))
  out <- text_of(print(fit))
  expect_match(out, "DPDT front: ")
  expect_match(out, "alpha_min")
})

test_that("dpdt trees print and predict; the training accuracy is the front's", {
  skip_if_no_pybsnsing()
  fit <- dpdt(Species ~ ., data = iris, max.depth = 3)
  n <- nrow(fit$front)
  for (i in seq_len(n)) {
    tr <- fit$trees[[i]]
    expect_s3_class(tr, "dpdt_tree")
    p <- predict(tr, iris)
    expect_true(is.factor(p))
    expect_identical(levels(p), levels(iris$Species))
    expect_equal(mean(p == iris$Species), fit$front$accuracy[i])
    expect_equal(sum(p != iris$Species), fit$front$errors[i])
    expect_equal(tr$depth, fit$front$depth[i])
  }
  expect_match(text_of(print(fit$trees[[n]])), "^DPDT tree \\(tests=cart\\)")
  expect_match(text_of(summary(fit$trees[[n]])), "Confusion matrix")
  prob <- predict(fit$trees[[n]], iris, type = "prob")
  expect_equal(dim(prob), c(150L, 3L))
  expect_identical(colnames(prob), levels(iris$Species))
  expect_equal(unname(rowSums(prob)), rep(1, 150))
  # predict() of the result: the last tree by default, a row or an alpha
  expect_identical(predict(fit, iris), predict(fit$trees[[n]], iris))
  expect_identical(predict(fit, iris, tree = 2), predict(fit$trees[[2]], iris))
  root <- predict(fit, iris, alpha = 1)
  expect_length(unique(as.character(root)), 1L)
  expect_identical(predict(fit, iris, alpha = 0.5 * (fit$front$alpha_min[2] +
                                                     fit$front$alpha_max[2])),
                   predict(fit$trees[[2]], iris))
  expect_error(predict(fit$trees[[1]]), "newdata")
})

test_that("a dpdt tree predicts after saveRDS/readRDS", {
  skip_if_no_pybsnsing()
  fit <- dpdt(Species ~ ., data = iris, max.depth = 2)
  tr <- fit$trees[[nrow(fit$front)]]
  f <- tempfile(fileext = ".rds")
  on.exit(unlink(f))
  saveRDS(tr, f)
  back <- readRDS(f)
  attr(back, "py_model") <- NULL  # as in a new session
  expect_identical(predict(back, iris), predict(tr, iris))
})

test_that("dpdt keeps the response type and works with every generator", {
  skip_if_no_pybsnsing()
  d <- data.frame(x1 = c(1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12),
                  x2 = c(5, 3, 6, 2, 8, 1, 9, 4, 7, 2, 6, 3),
                  f = factor(rep(c("a", "b", "c"), 4)),
                  y = c(0L, 0L, 1L, 0L, 1L, 0L, 1L, 1L, 1L, 0L, 1L, 1L))
  for (tests in c("cart", "binary", "all")) {
    fit <- dpdt(y ~ ., data = d, max.depth = 2, tests = tests)
    p <- predict(fit, d)
    expect_true(is.integer(p))
    expect_equal(sum(p != d$y), fit$front$errors[nrow(fit$front)])
  }
  exact <- dpdt(y ~ ., data = d, max.depth = 2, tests = "all")
  cart <- dpdt(y ~ ., data = d, max.depth = 2, cart.depth = 2)
  expect_lte(min(exact$front$errors), min(cart$front$errors))
  d$y <- d$y == 1L
  expect_true(is.logical(predict(dpdt(y ~ x1 + x2, data = d, max.depth = 1), d)))
})

test_that("dpdt errors are R errors", {
  skip_if_no_pybsnsing()
  expect_error(dpdt(~ x, data = iris), "two-sided")
  expect_error(dpdt(Species ~ ., data = iris, tests = "nope"), "should be one of")
  expect_error(dpdt(Species ~ ., data = iris, max.depth = -1), class = "pybsnsing_error")
  expect_error(dpdt(Species ~ ., data = iris, 2, "cart", NULL, 3, 10, "gini", 7),
               "must be named")
})
