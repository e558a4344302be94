# Data frames cross to pandas and back with types, levels and NA intact.

roundtrip <- function(df) pybsnsing:::.py_to_df(pybsnsing:::.df_to_py(df))

test_that("data frames round-trip through pandas", {
  skip_if_no_pybsnsing()
  df <- data.frame(
    dbl = c(1.5, NA, -Inf, 1e-300),
    int = c(1L, NA, -2147483647L, 2147483647L),
    lgl = c(TRUE, NA, FALSE, TRUE),
    chr = c("a", NA, "\u00e9t\u00e9", ""),
    fac = factor(c("lo", NA, "hi", "hi"), levels = c("hi", "lo", "unused")),
    ord = factor(c("s", "m", NA, "l"), levels = c("s", "m", "l"), ordered = TRUE),
    stringsAsFactors = FALSE)
  back <- roundtrip(df)
  expect_identical(back, df)
  expect_identical(levels(back$fac), c("hi", "lo", "unused"))
  expect_true(is.ordered(back$ord))
})

test_that("pandas sees the right dtypes, categories and missing values", {
  skip_if_no_pybsnsing()
  df <- data.frame(x = c(1.5, NA), i = c(1L, NA), j = 1:2, b = c(TRUE, NA), c = c(TRUE, FALSE),
                   f = factor(c("u", NA), levels = c("v", "u")), s = c("a", NA),
                   stringsAsFactors = FALSE)
  pdf <- pybsnsing:::.df_to_py(df)
  dtypes <- reticulate::py_to_r(reticulate::py_eval("lambda d: [str(t) for t in d.dtypes]"))(pdf)
  expect_identical(dtypes[1:6], c("float64", "Int64", "int64", "boolean", "bool", "category"))
  cats <- reticulate::py_to_r(
    reticulate::py_eval("lambda d: [str(v) for v in d['f'].cat.categories]"))(pdf)
  expect_identical(cats, c("v", "u"))
  nas <- reticulate::py_to_r(
    reticulate::py_eval("lambda d: [int(v) for v in d.isna().sum()]"))(pdf)
  expect_identical(nas, c(1L, 1L, 0L, 1L, 0L, 1L, 1L))
})

test_that("edge cases: one row, no rows, NaN, duplicate-free names kept", {
  skip_if_no_pybsnsing()
  one <- data.frame(a = 1, b = factor("x"), `c d` = "z", check.names = FALSE,
                    stringsAsFactors = FALSE)
  expect_identical(roundtrip(one), one)
  none <- one[0, ]
  rownames(none) <- NULL
  expect_identical(roundtrip(none), none)
  nan <- data.frame(v = c(NaN, 1))
  expect_true(is.na(roundtrip(nan)$v[1]))   # NaN and NA are both missing in pandas
})

test_that("columns of other classes arrive as the numbers model.matrix reads", {
  skip_if_no_pybsnsing()
  df <- data.frame(d = as.Date("2020-01-01") + c(0:1, NA),
                   t = as.POSIXct("2020-01-01", tz = "UTC") + c(0.5, 60, 3600),
                   dt = as.difftime(c(1.5, 2, NA), units = "mins"))
  df$h <- as.hexmode(c(10L, 255L, 0L))
  df$s <- ts(c(3, 1, 2))
  df$tab <- as.table(c(2, 5, 1))
  df$own <- structure(c(TRUE, FALSE, NA), class = "mine")
  df$ch <- structure(c("a", "b", NA), class = "tag")
  back <- roundtrip(df)
  mm <- stats::model.matrix(~ d + t + dt + h + s + tab, stats::model.frame(
    ~ d + t + dt + h + s + tab, df, na.action = stats::na.pass))
  for (v in c("d", "t", "dt", "h", "s", "tab")) {
    expect_identical(as.numeric(back[[v]]), unname(mm[, v]), label = v)
  }
  expect_identical(back$own, c(TRUE, FALSE, NA))
  expect_identical(back$ch, c("a", "b", NA))
})

test_that("list, matrix, complex and raw columns are a clear error", {
  skip_if_no_pybsnsing()
  df <- data.frame(x = 1:2)
  df$m <- matrix(1:4, 2)
  expect_error(pybsnsing:::.df_to_py(df, matrices = FALSE), "column 'm' is a matrix column")
  df$m <- matrix(c("a", "b", "c", "d"), 2)
  expect_error(pybsnsing:::.df_to_py(df), "column 'm' is a matrix column")
  df <- data.frame(x = 1:2)
  df$l <- I(list(1, "a"))
  expect_error(pybsnsing:::.df_to_py(df), "column 'l' is a list column")
  df$l <- as.POSIXlt(as.POSIXct("2020-01-01", tz = "UTC") + 0:1)
  expect_error(pybsnsing:::.df_to_py(df), "column 'l' is a list column")
  expect_error(pybsnsing:::.df_to_py(data.frame(z = complex(real = 1:2, imaginary = 1))),
               "column 'z' has class complex")
  expect_error(pybsnsing:::.df_to_py(data.frame(r = as.raw(1:2))), "column 'r' has class raw")
})

test_that("every bundled data set round-trips", {
  skip_if_no_pybsnsing()
  manifest <- tabular_manifest()
  small <- manifest$name[manifest$n <= 25000]
  for (name in small) {
    d <- read_canonical(name)
    expect_identical(roundtrip(d), d, label = name)
  }
})

test_that("models survive saveRDS()/readRDS() (rebuilt from the R structure)", {
  skip_if_no_pybsnsing()
  bs <- bsnsing(Species ~ ., data = iris, import.external = FALSE)
  bs2 <- bsnsing(Sepal.Length ~ ., data = transform(iris, Sepal.Length = Sepal.Length > 5.8),
                 max.rules = 1)
  for (m in list(bs, bs2, bs[[2]])) {
    f <- tempfile(fileext = ".rds")
    saveRDS(m, f)
    m2 <- readRDS(f)
    attr(m2, "py_model") <- NULL  # as in a new session
    if (inherits(m2, "mbsnsing")) for (k in seq_len(m2$nclass)) attr(m2[[k]], "py_model") <- NULL
    expect_identical(predict(m2, iris, type = "prob"), predict(m, iris, type = "prob"))
    expect_identical(predict(m2, iris, type = "class"), predict(m, iris, type = "class"))
    expect_identical(text_of(print(m2)), text_of(print(m)))
  }
})
