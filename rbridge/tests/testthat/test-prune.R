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

test_that("a weighted tree keeps its node weights through saveRDS()/readRDS()", {
  skip_if_no_pybsnsing()
  skip_if_not_installed("rpart")
  data(kyphosis, package = "rpart", envir = environment())
  w <- rep(c(1, 2.5, 0, 3), length.out = nrow(kyphosis))
  bw <- bsnsing(Kyphosis ~ ., data = kyphosis, weights = w)
  r_fields <- c("node.number", "node.parent", "node.lchild", "node.rchild", "node.class",
                "node.prop", "node.nobs", "node.n1", "node.n0", "node.prob", "node.obs",
                "node.split.rule", "node.split.target")
  # weighted: R bsnsing's 13 fields, then node.w1 and node.w0
  for (nd in bw$tree.nodes) expect_identical(names(nd), c(r_fields, "node.w1", "node.w0"))
  root <- bw$tree.nodes[[1]]
  y1 <- kyphosis$Kyphosis == "present"
  expect_equal(root$node.w1, sum(w[y1]))
  expect_equal(root$node.w0, sum(w[!y1]))
  # unweighted trees stay exactly R bsnsing's shape
  bu <- bsnsing(Kyphosis ~ ., data = kyphosis)
  for (nd in bu$tree.nodes) expect_identical(names(nd), r_fields)
  m <- bsnsing(Species ~ ., data = iris, import.external = FALSE, weights = rep(1:3, 50))
  expect_identical(names(m[[2]]$tree.nodes[[1]]), c(r_fields, "node.w1", "node.w0"))
  fresh <- function(x) {  # saved and read back, without the Python model (a new session)
    f <- tempfile(fileext = ".rds")
    on.exit(unlink(f))
    saveRDS(x, f)
    y <- readRDS(f)
    attr(y, "py_model") <- NULL
    if (inherits(y, "mbsnsing")) for (k in seq_len(y$nclass)) attr(y[[k]], "py_model") <- NULL
    y
  }
  b2 <- fresh(bw)
  expect_identical(b2$tree.nodes, bw$tree.nodes)
  # the rebuilt Python model has the same weighted nodes: printcp, prune, importance agree
  expect_identical(capture.output(c2 <- printcp(b2)), capture.output(c1 <- printcp(bw)))
  expect_identical(c2, c1)
  cp <- c1[min(2L, nrow(c1)), "CP"]
  expect_identical(prune(b2, cp = cp)$tree.nodes, prune(bw, cp = cp)$tree.nodes)
  expect_identical(pybsnsing:::.variable_importance(pybsnsing:::.py_model(b2)),
                   bw$variable.importance)
  expect_identical(predict(b2, kyphosis, type = "prob"), predict(bw, kyphosis, type = "prob"))
  s2 <- reticulate::py_str(pybsnsing:::.py_model(b2)$summary())
  expect_identical(s2, reticulate::py_str(attr(bw, "py_model")$summary()))
  expect_match(s2, "w1 ", fixed = TRUE)
  m2 <- fresh(m)
  for (k in 1:3) expect_identical(m2[[k]]$tree.nodes, m[[k]]$tree.nodes)
  expect_identical(capture.output(printcp(m2)), capture.output(printcp(m)))
  expect_identical(predict(m2, iris, type = "prob"), predict(m, iris, type = "prob"))
})
