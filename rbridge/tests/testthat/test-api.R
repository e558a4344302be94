# The R bsnsing interface: objects, arguments and methods.

test_that("bscontrol() has R bsnsing's parameters and defaults", {
  ctl <- bscontrol()
  expect_s3_class(ctl, "bscontrol")
  expect_identical(names(ctl), c(
    "bin.size", "nseg.numeric", "nseg.factor", "num2factor", "node.size", "stop.prob",
    "opt.solver", "solver.timelimit", "max.rules", "opt.model", "greedy.level",
    "import.external", "suppress.internal", "no.same.gender.children", "n0n1.cap", "verbose"))
  expect_identical(ctl$opt.solver, "enum_c")
  expect_identical(ctl$max.rules, 2)
  expect_output(print(ctl), "max.rules = 2 \\( 2 \\)")
  skip_if_no_golden()
  skip_if_no_pybsnsing()
  rec <- golden_records("kyphosis")[[1]]
  num <- function(v) if (is.numeric(v)) as.numeric(v) else v
  expect_identical(lapply(unclass(ctl), num), lapply(rec$control[names(ctl)], num))
})

test_that("a bsnsing object has R bsnsing's structure", {
  skip_if_no_pybsnsing()
  data(kyphosis, package = "rpart", envir = environment())
  bs <- bsnsing(Kyphosis ~ ., data = kyphosis, import.external = FALSE)
  expect_s3_class(bs, "bsnsing")
  expect_true(all(c("tree.nodes", "fitted.values", "fitted.prob", "confusion.matrix",
                    "n.frac.splits", "y.coding.scheme", "ycode", "call", "terms",
                    "contrasts") %in% names(bs)))
  expect_s3_class(bs$tree.nodes, "treelist")
  fields <- c("node.number", "node.parent", "node.lchild", "node.rchild", "node.class",
              "node.prop", "node.nobs", "node.n1", "node.n0", "node.prob", "node.obs",
              "node.split.rule", "node.split.target")
  for (nd in bs$tree.nodes) expect_identical(names(nd), fields)
  root <- bs$tree.nodes[[1]]
  expect_identical(root$node.number, 0)
  expect_identical(root$node.obs, seq_len(nrow(kyphosis)))  # 1-based rows
  expect_type(root$node.class, "integer")
  expect_identical(names(bs$fitted.values), as.character(seq_len(nrow(kyphosis))))
  expect_s3_class(bs$confusion.matrix, "table")
  expect_identical(names(dimnames(bs$confusion.matrix)), c("fitted", "actual"))
  expect_identical(sum(bs$confusion.matrix), nrow(kyphosis))
  expect_identical(bs$ycode, c("absent", "present"))
  expect_true(is.call(bs$call))
  # leaves partition the training rows; fitted values follow the leaves
  leaves <- Filter(function(nd) nd$node.lchild == -1, bs$tree.nodes)
  expect_setequal(unlist(lapply(leaves, `[[`, "node.obs")), seq_len(nrow(kyphosis)))
  for (nd in leaves) {
    expect_true(all(bs$fitted.values[nd$node.obs] == nd$node.class))
    expect_true(all(bs$fitted.prob[nd$node.obs] == nd$node.prob))
  }
  # predict() without newdata gives the fitted values
  expect_identical(predict(bs), bs$fitted.prob)
  expect_identical(unname(predict(bs, type = "class")),
                   ifelse(unname(bs$fitted.values) == 0, "absent", "present"))
  # summary object
  s <- summary(bs)
  expect_s3_class(s, "summary.bsnsing")
  expect_identical(names(s$nodes), c("node.number", "depth", "predicted.class", "prob.1",
                                     "proportion", "n1", "n0", "parent.node", "rule",
                                     "if.rule.then", "is.leaf"))
  expect_identical(s$nleaves + s$nsplits, length(bs$tree.nodes))
})

test_that("tree.nodes follow R bsnsing's list order", {
  skip_if_no_golden()
  skip_if_no_pybsnsing()
  data <- read_canonical("kyphosis")
  rec <- golden_records("kyphosis")[[3]]   # mr1
  bs <- fit_record(rec, split_record(rec, data)$train)
  # R appends a node when it leaves the FIFO queue, and a child that is not
  # queued (node.size = floor(sqrt(57)) = 7; pure) right after its parent:
  # node 7 (7 rows) follows 5, and node 9 (pure) follows 6
  order <- vapply(bs$tree.nodes, function(nd) nd$node.number, numeric(1))
  expect_identical(order, c(0, 1, 2, 3, 4, 5, 7, 6, 9, 8, 10))
})

test_that("control arguments, controls = bscontrol(), subset and na.action work", {
  skip_if_no_pybsnsing()
  data(kyphosis, package = "rpart", envir = environment())
  a <- bsnsing(Kyphosis ~ ., data = kyphosis, max.rules = 1, import.external = FALSE)
  b <- bsnsing(Kyphosis ~ ., data = kyphosis,
               controls = bscontrol(max.rules = 1, import.external = FALSE))
  expect_identical(a$tree.nodes, b$tree.nodes)
  # controls win over ... (as in R bsnsing)
  c2 <- bsnsing(Kyphosis ~ ., data = kyphosis, max.rules = 3,
                controls = bscontrol(max.rules = 1, import.external = FALSE))
  expect_identical(a$tree.nodes, c2$tree.nodes)
  s <- bsnsing(Kyphosis ~ ., data = kyphosis, subset = Age > 20, import.external = FALSE)
  expect_identical(s$tree.nodes[[1]]$node.nobs, sum(kyphosis$Age > 20))
  s2 <- bsnsing(Kyphosis ~ ., data = kyphosis[kyphosis$Age > 20, ], import.external = FALSE)
  expect_identical(s$tree.nodes, s2$tree.nodes)
  k <- kyphosis
  k$Age[1:5] <- NA
  o <- bsnsing(Kyphosis ~ ., data = k, na.action = na.omit, import.external = FALSE)
  expect_identical(o$tree.nodes[[1]]$node.nobs, nrow(k) - 5L)
  p <- bsnsing(Kyphosis ~ ., data = k, import.external = FALSE)   # na.pass: imputed
  expect_identical(p$tree.nodes[[1]]$node.nobs, nrow(k))
  # a formula naming columns, data from the formula's environment
  Kyph <- kyphosis$Kyphosis
  Ag <- kyphosis$Age
  e <- bsnsing(Kyph ~ Ag, import.external = FALSE)
  expect_s3_class(e, "bsnsing")
})

test_that("bsnsing.default fits y ~ . on a data frame", {
  skip_if_no_pybsnsing()
  y <- ifelse(iris$Species == "setosa", 1L, 0L)
  x <- iris[, 1:4]
  bs <- bsnsing(x, y, max.rules = 1)
  expect_s3_class(bs, "bsnsing")
  expect_identical(bs$ycode, c(0L, 1L))
  expect_identical(bs$call[[1]], as.name("bsnsing.default"))
  ref <- bsnsing(y ~ ., data = cbind(x, y = y), max.rules = 1)
  expect_identical(bs$tree.nodes, ref$tree.nodes)
  expect_identical(predict(bs, x, type = "class"), predict(ref, x, type = "class"))
  expect_type(predict(bs, x, type = "class"), "integer")
})

test_that("multi-class objects have R bsnsing's structure", {
  skip_if_no_pybsnsing()
  bs <- bsnsing(Species ~ ., data = iris, import.external = FALSE)
  expect_s3_class(bs, "mbsnsing")
  expect_identical(bs$nclass, 3L)
  expect_identical(bs$ylevels, factor(levels(iris$Species), levels = levels(iris$Species)))
  expect_equal(as.numeric(bs$yprior), rep(1 / 3, 3))
  expect_identical(names(bs$yprior), levels(iris$Species))
  for (k in 1:3) {
    expect_s3_class(bs[[k]], "bsnsing")
    expect_identical(bs[[k]]$ycode, c("all.other", levels(iris$Species)[k]))
  }
  p <- predict(bs, iris[c(1, 51, 101), ])
  expect_identical(dim(p), c(3L, 3L))
  expect_identical(rownames(p), c("1", "51", "101"))
  expect_equal(unname(rowSums(p)), rep(1, 3))
  fitted <- predict(bs, type = "class")
  expect_length(fitted, nrow(iris))
  expect_gt(mean(fitted == iris$Species), 0.9)
  expect_output(print(summary(bs)), "There are 3 trees in bs, one for each class")
})

test_that("binarize() and bslearn() wrap pybsnsing", {
  skip_if_no_pybsnsing()
  y <- ifelse(iris$Species == "versicolor", 1L, 0L)
  bx <- binarize(iris[, c("Sepal.Length", "Sepal.Width")], y, target = 1)
  expect_s3_class(bx, "data.frame")
  expect_identical(nrow(bx), nrow(iris))
  expect_true(all(unlist(bx) %in% c(0, 1)))
  expect_true(any(grepl("^Sepal.Length [<>] ", names(bx))))
  sol <- bslearn(bx, y, bscontrol(max.rules = 2, node.size = 5))
  expect_identical(names(sol), c("n.rules", "rules", "objval", "neval", "cols"))
  expect_identical(sol$n.rules, length(sol$cols))
  expect_identical(sol$rules, paste(names(bx)[sol$cols], collapse = " | "))
  expect_error(bslearn(bx, y[-1]), "Dimensions of bx and y do not match")
})

test_that("predict(): Python warnings become R warnings; impute = TRUE", {
  skip_if_no_pybsnsing()
  d <- data.frame(y = factor(rep(c("a", "b"), each = 20)),
                  f = factor(rep(c("u", "v", "w", "u"), 10)),
                  x = c(1:20, 11:30))
  bs <- bsnsing(y ~ ., data = d, import.external = FALSE, node.size = 2)
  new <- data.frame(f = factor(c("u", "z")), x = c(5, NA))
  expect_warning(p <- predict(bs, new), "not seen in training")
  expect_length(p, 2)
  p1 <- suppressWarnings(predict(bs, new, impute = TRUE))
  expect_true(all(p1 >= 0 & p1 <= 1))
})

test_that("install_pybsnsing()'s warm-up runs in a Python with pybsnsing", {
  skip_if_no_pybsnsing()
  # the Python of this session (its kernels are compiled already: quick);
  # rbridge/tools/test-install.sh tests install_pybsnsing() itself
  expect_true(pybsnsing:::.warmup_python(reticulate::py_config()$python))
  expect_match(pybsnsing:::.warmup_python(file.path(R.home("bin"), "Rscript")), ".")
})
