# printcp(), prune(), variable.importance and case weights (issue 15).

test_that("printcp() prints rpart's table and returns it; prune() follows rpart's rule", {
  skip_if_no_pybsnsing()
  skip_if_not_installed("rpart")
  data(kyphosis, package = "rpart", envir = environment())
  bs <- bsnsing(Kyphosis ~ ., data = kyphosis, import.external = FALSE, node.size = 3)
  out <- capture.output(cpt <- printcp(bs))
  expect_true(any(grepl("^Root node error: 17/81 = 0.20988", out)))
  expect_true(any(grepl("^n= 81", out)))
  expect_identical(colnames(cpt), c("CP", "nsplit", "rel error"))
  expect_equal(cpt[1, "nsplit"], 0)
  expect_equal(cpt[1, "rel error"], 1)
  # the path is monotone: CP decreasing, splits increasing, training error decreasing
  expect_true(all(diff(cpt[, "CP"]) <= 0))
  expect_true(all(diff(cpt[, "nsplit"]) > 0))
  expect_true(all(diff(cpt[, "rel error"]) <= 0))
  # the last row is the full tree
  nsplit <- sum(vapply(bs$tree.nodes, function(nd) nzchar(nd$node.split.rule), logical(1)))
  expect_equal(cpt[nrow(cpt), "nsplit"], nsplit)
  # with cross-validation
  capture.output(cx <- printcp(bs, xval = 5))
  expect_identical(colnames(cx), c("CP", "nsplit", "rel error", "xerror", "xstd"))
  expect_equal(cx[, 1:3], cpt)
  expect_error(printcp(bs, xval = 1), "'xval' must be 0 or a whole number >= 2")
  # prune: cp = 0 is the full tree; each row's CP gives that row's tree
  full <- prune(bs, cp = 0)
  expect_s3_class(full, "bsnsing")
  expect_identical(full$tree.nodes, bs$tree.nodes)
  for (i in seq_len(nrow(cpt))) {
    p <- prune(bs, cp = cpt[i, "CP"])
    ns <- sum(vapply(p$tree.nodes, function(nd) nzchar(nd$node.split.rule), logical(1)))
    expect_equal(ns, cpt[i, "nsplit"])
    expect_length(predict(p, kyphosis), nrow(kyphosis))
  }
  expect_error(prune(bs), "argument \"cp\" is missing, with no default")
  expect_error(prune(bs, cp = -1), "'cp' must be a single number >= 0")
  # rpart's generic dispatches to the bsnsing method too; rpart objects still work
  expect_s3_class(rpart::prune(bs, cp = 0.1), "bsnsing")
  r <- rpart::rpart(Kyphosis ~ ., data = kyphosis)
  expect_s3_class(prune(r, cp = 0.05), "rpart")
  expect_true(any(grepl("Root node error", capture.output(printcp(r)))))
})

test_that("mbsnsing: printcp() and prune() per class tree", {
  skip_if_no_pybsnsing()
  m <- bsnsing(Species ~ ., data = iris, import.external = FALSE)
  capture.output(tabs <- printcp(m))
  expect_named(tabs, levels(iris$Species))
  p <- prune(m, cp = 0.5)
  expect_s3_class(p, "mbsnsing")
  expect_identical(p$ylevels, m$ylevels)
  expect_length(predict(p, iris, type = "class"), nrow(iris))
})

test_that("variable.importance is a named vector as in rpart, summing to 1", {
  skip_if_no_pybsnsing()
  skip_if_not_installed("rpart")
  data(kyphosis, package = "rpart", envir = environment())
  bs <- bsnsing(Kyphosis ~ ., data = kyphosis)
  vi <- bs$variable.importance
  expect_type(vi, "double")
  expect_true(all(names(vi) %in% c("Age", "Number", "Start")))
  expect_equal(sum(vi), 1)
  expect_false(is.unsorted(rev(vi)))
  m <- bsnsing(Species ~ ., data = iris, import.external = FALSE)
  for (k in 1:3) expect_equal(sum(m[[k]]$variable.importance), 1)
})

test_that("weights: whole-number weights are repeated rows; class.weight; R messages", {
  skip_if_no_pybsnsing()
  skip_if_not_installed("rpart")
  data(kyphosis, package = "rpart", envir = environment())
  w <- rep(c(1, 2, 0), length.out = nrow(kyphosis))
  bw <- bsnsing(Kyphosis ~ ., data = kyphosis, weights = w)
  br <- bsnsing(Kyphosis ~ ., data = kyphosis[rep(seq_len(nrow(kyphosis)), w), ])
  rules <- function(b) vapply(b$tree.nodes, function(nd) nd$node.split.rule, character(1))
  expect_identical(rules(bw), rules(br))
  # weights evaluated in data, and with subset
  kw <- cbind(kyphosis, wt = w)
  expect_identical(rules(bsnsing(Kyphosis ~ Age + Number + Start, data = kw, weights = wt)),
                   rules(bw))
  # bsnsing.default
  bd <- bsnsing(kyphosis[, -1], kyphosis$Kyphosis, weights = w)
  expect_identical(rules(bd), rules(bw))
  # class weights: a dict by label and "balanced"
  b3 <- bsnsing(Kyphosis ~ ., data = kyphosis, class.weight = c(present = 3))
  bs3 <- bsnsing(Kyphosis ~ ., data = kyphosis,
                 weights = ifelse(kyphosis$Kyphosis == "present", 3, 1))
  expect_identical(rules(b3), rules(bs3))
  bal <- bsnsing(Kyphosis ~ ., data = kyphosis, class.weight = "balanced")
  expect_gt(sum(predict(bal, kyphosis, type = "class") == "present"),
            sum(predict(bsnsing(Kyphosis ~ ., data = kyphosis), kyphosis,
                        type = "class") == "present"))
  expect_error(bsnsing(Kyphosis ~ ., data = kyphosis, weights = -w),
               "missing or negative weights not allowed")
  expect_error(bsnsing(Kyphosis ~ ., data = kyphosis, weights = 1:3),
               "'weights' must be a numeric vector with one value per row of 'data'")
  expect_error(bsnsing(Kyphosis ~ ., data = kyphosis, weights = 0 * w), "all weights are zero")
  expect_error(bsnsing(Kyphosis ~ ., data = kyphosis, class.weight = c(yes = 2)),
               "'class.weight' names 'yes' not in the response's classes")
  expect_error(bsnsing(Kyphosis ~ ., data = kyphosis, class.weight = "equal"),
               "'class.weight' must be \"balanced\" or a named vector")
})
