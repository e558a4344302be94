test_that("ROC_func computes R bsnsing's AUC", {
  df <- data.frame(score = c(0.9, 0.8, 0.7, 0.6, 0.55, 0.5),
                   label = c("y", "y", "n", "y", "n", "n"))
  # positives ranked above negatives in 8 of 9 pairs
  expect_equal(ROC_func(df, 2, 1, pos.label = "y"), 8 / 9)
  # ties keep row order: the positive listed first counts as ranked higher
  tie <- data.frame(s = c(0.5, 0.5), l = c(1, 0))
  expect_equal(ROC_func(tie, 2, 1, pos.label = 1), 1)
  expect_equal(ROC_func(tie[2:1, ], 2, 1, pos.label = 1), 0)
  f <- tempfile(fileext = ".png")
  grDevices::png(f)
  on.exit(grDevices::dev.off())
  grDevices::pdf(NULL)
  expect_equal(ROC_func(df, 2, 1, pos.label = "y", plot.ROC = TRUE), 8 / 9)
  grDevices::dev.off()
})

test_that("ROC_func agrees with pybsnsing's ROC_func", {
  skip_if_no_pybsnsing()
  roc <- tryCatch(reticulate::import("pybsnsing.export.roc"), error = function(e) NULL)
  skip_if(is.null(roc), "pybsnsing.export.roc is not available yet")
  set.seed(1)
  score <- round(runif(200), 2)           # with ties
  label <- ifelse(runif(200) < score, "pos", "neg")
  r <- roc$ROC_func(as.list(label), as.list(score), pos_label = "pos")
  expect_equal(ROC_func(data.frame(score, label), 2, 1, pos.label = "pos"),
               as.numeric(r$auc), tolerance = 1e-12)
})
