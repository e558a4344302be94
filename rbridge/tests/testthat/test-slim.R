# slim_improve(): DT-SLIM on R bsnsing objects (needs python-sat).

skip_if_no_pysat <- function() {
  skip_if_no_pybsnsing()
  if (!reticulate::py_module_available("pysat")) skip("python-sat (pysat) not installed")
}

expect_slim_invariants <- function(s) {
  info <- attr(s, "slim")
  expect_true(is.list(info))
  expect_s3_class(info$trace, "data.frame")
  tr <- info$trace
  groups <- if ("tree" %in% names(tr)) split(tr$depth, tr$tree) else list(tr$depth)
  for (g in groups) expect_true(all(diff(g) <= 0))  # per tree of an mbsnsing object
  if (!("tree" %in% names(tr))) {
    expect_true(all(diff(c(info$initial.depth, tr$depth)) <= 0))
  }
  expect_true(all(info$trace$train_acc == 1))
  expect_lte(info$final.depth, info$initial.depth)
}

test_that("slim_improve makes a bsnsing tree shallower and keeps it perfect", {
  skip_if_no_pysat()
  skip_if_not_installed("rpart")
  data(kyphosis, package = "rpart", envir = environment())
  bs <- bsnsing(Kyphosis ~ ., data = kyphosis)
  s <- slim_improve(bs, budget = 60, sat.timeout = 5, total.time.limit = 15)
  expect_s3_class(s, "bsnsing")
  expect_slim_invariants(s)
  info <- attr(s, "slim")
  expect_lt(info$final.depth, info$initial.depth)
  expect_equal(info$bsnsing.depth, 3)
  expect_identical(s$ycode, bs$ycode)
  expect_identical(predict(s, kyphosis, type = "class"), predict(s, type = "class"))
  expect_identical(unname(predict(s, kyphosis, type = "class")),
                   as.character(kyphosis$Kyphosis))
  cm <- s$confusion.matrix
  expect_equal(sum(diag(cm)), nrow(kyphosis))
  expect_match(text_of(summary(s)), "Accuracy: 1.0000")
  depth <- function(t) {
    nodes <- t$tree.nodes
    parent <- vapply(nodes, function(nd) nd$node.parent, numeric(1))
    num <- vapply(nodes, function(nd) nd$node.number, numeric(1))
    d <- numeric(length(nodes))
    for (i in seq_along(nodes)) if (parent[i] >= 0) d[i] <- d[match(parent[i], num)] + 1
    max(d)
  }
  expect_equal(depth(s), info$final.depth)
})

test_that("slim_improve on mbsnsing objects, the feature modes and read-back objects", {
  skip_if_no_pysat()
  bs3 <- bsnsing(Species ~ ., data = iris, import.external = FALSE)
  s3 <- slim_improve(bs3, budget = 60, sat.timeout = 5, total.time.limit = 5,
                     features = "rules")
  expect_s3_class(s3, "mbsnsing")
  expect_slim_invariants(s3)
  expect_identical(unname(predict(s3, iris, type = "class")), as.character(iris$Species))
  f <- tempfile(fileext = ".rds")
  on.exit(unlink(f))
  bs <- bsnsing(Species ~ ., data = iris[51:150, ], import.external = FALSE)
  saveRDS(bs, f)
  back <- readRDS(f)
  attr(back, "py_model") <- NULL
  expect_error(slim_improve(back, budget = 60), "training data")
  sq <- slim_improve(back, iris[51:150, ], budget = 60, sat.timeout = 5,
                     total.time.limit = 5, features = "questions")
  expect_s3_class(sq, "bsnsing")
  expect_slim_invariants(sq)
  expect_identical(unname(predict(sq, iris[51:150, ], type = "class")),
                   as.character(iris$Species[51:150]))
  expect_error(slim_improve(iris), "bsnsing or mbsnsing")
  expect_error(slim_improve(bs, features = "nope"), "should be one of")
})

test_that("slim_improve with and without MurTree first (murtree.seconds)", {
  skip_if_no_pysat()
  skip_if_not_installed("rpart")
  data(kyphosis, package = "rpart", envir = environment())
  bs <- bsnsing(Kyphosis ~ ., data = kyphosis)
  s0 <- slim_improve(bs, budget = 60, sat.timeout = 5, total.time.limit = 15,
                     murtree.seconds = 0)
  s2 <- slim_improve(bs, budget = 60, sat.timeout = 5, total.time.limit = 15,
                     murtree.seconds = 2)
  expect_slim_invariants(s0)
  expect_slim_invariants(s2)
  expect_lt(attr(s2, "slim")$final.depth, attr(s2, "slim")$initial.depth)
  for (bad in list(-1, NA_real_, "2", c(1, 2))) {
    expect_error(slim_improve(bs, budget = 60, murtree.seconds = bad),
                 "'murtree.seconds' must be NULL or one number >= 0", fixed = TRUE)
  }
})
