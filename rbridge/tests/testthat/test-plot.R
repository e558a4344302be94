# plot(): the tree on the current device, in picture files (png, pdf, svg,
# ...), or R bsnsing's LaTeX; never a silent change of format (issue 13).

fit_kyphosis <- function() {
  data(kyphosis, package = "rpart", envir = environment())
  bsnsing(Kyphosis ~ ., data = kyphosis, max.rules = 2)
}

magic <- function(path, n = 8L) readBin(path, "raw", n)

test_that("plot(bs) draws on the current device: rules, n, class mix, leaves", {
  skip_if_no_pybsnsing()
  bs <- fit_kyphosis()
  png_file <- tempfile(fileext = ".png")
  grDevices::png(png_file, width = 900, height = 600)
  drawn <- plot(bs)
  grDevices::dev.off()
  expect_true(file.size(png_file) > 5000)
  # every node is drawn, once, with its texts
  numbers <- vapply(bs$tree.nodes, function(nd) nd$node.number, numeric(1))
  expect_setequal(drawn$node, numbers)
  s <- summary(bs)$nodes
  for (i in seq_len(nrow(s))) {
    label <- drawn$label[drawn$node == s$node.number[i]]
    n <- s$n1[i] + s$n0[i]
    expect_match(label, sprintf("node %d: n = %d", s$node.number[i], n), fixed = TRUE)
    expect_match(label, sprintf("absent %d / present %d", s$n0[i], s$n1[i]), fixed = TRUE)
    if (s$is.leaf[i]) {
      expect_match(label, if (s$predicted.class[i] == 1) "^present" else "^absent")
    } else {
      first <- strsplit(s$rule[i], " | ", fixed = TRUE)[[1]][1]
      expect_match(label, sub("([0-9.]+)$", "", first), fixed = TRUE)
    }
  }
  # children below their parents, left child to the left
  for (nd in bs$tree.nodes) {
    if (nd$node.lchild == -1) next
    p <- drawn[drawn$node == nd$node.number, ]
    l <- drawn[drawn$node == nd$node.lchild, ]
    r <- drawn[drawn$node == nd$node.rchild, ]
    expect_true(l$y < p$y && r$y < p$y && l$x < p$x && p$x < r$x)
  }
  expect_true(all(drawn$cex >= pybsnsing:::.min_cex))
})

test_that("numbers in pictured rules have `digits` significant digits", {
  expect_identical(pybsnsing:::.round_numbers("x > 0.123456789 | y=='3.14159'", 4),
                   "x > 0.1235 | y=='3.14159'")
  expect_identical(pybsnsing:::.round_numbers("Age >= 14.5", 4), "Age >= 14.5")
  expect_identical(pybsnsing:::.round_numbers("v1 < -1234567.25", 3), "v1 < -1230000")
  expect_identical(pybsnsing:::.rule_lines("a > 1 | b < 2", 4), c("a > 1", "or b < 2"))
})

test_that("plot(bs, file =) writes png, pdf, svg, jpeg and tiff, or fails clearly", {
  skip_if_no_pybsnsing()
  bs <- fit_kyphosis()
  devices <- grDevices::dev.list()
  dir <- tempfile()
  dir.create(dir)
  png_sig <- as.raw(c(0x89, 0x50, 0x4e, 0x47))
  files <- file.path(dir, c("t.png", "t.pdf", "t.svg", "t.jpeg", "T.TIFF"))
  caps <- capabilities()
  for (f in files) {
    ext <- tolower(tools::file_ext(f))
    if (ext == "svg" && !caps[["cairo"]]) {
      expect_error(plot(bs, file = f), "no cairo support")
      next
    }
    expect_message(out <- plot(bs, file = f), "Tree drawn to")
    expect_identical(out, f)
    expect_true(file.exists(f) && file.size(f) > 1000)
  }
  expect_identical(magic(files[1], 4), png_sig)
  expect_identical(rawToChar(magic(files[2], 5)), "%PDF-")
  if (caps[["cairo"]]) expect_match(paste(readLines(files[3], n = 3), collapse = ""), "<svg|<\\?xml")
  # never a .tex instead of the picture
  expect_false(any(file.exists(file.path(dir, "t.tex"))))
  # a PDF page of the paper size R bsnsing's example asks for
  letter <- file.path(dir, "letter.pdf")
  suppressMessages(plot(bs, file = letter, paper = "letterpaper"))
  expect_true(file.size(letter) > 1000)
  expect_match(paste(readLines(letter, warn = FALSE), collapse = " "), "MediaBox \\[0 0 612 792\\]")
  # clear errors
  expect_error(plot(bs, file = file.path(dir, "t.gif")),
               "cannot tell the picture format of .*t.gif")
  expect_error(plot(bs, file = file.path(dir, "tree")), "cannot tell the picture format")
  expect_error(plot(bs, file = file.path(dir, "nope", "t.png")), "folder .* does not exist")
  expect_error(plot(bs, file = 3), "'file' must be a file name")
  expect_error(plot(bs, class_colors = "red"), "two colours")
  expect_false(any(file.exists(file.path(dir, c("t.tex", "tree.tex", "tree")))))
  # no device is left open
  expect_identical(grDevices::dev.list(), devices)
})

test_that("plot(bs, file = '*.tex') and file = '' keep R bsnsing's LaTeX", {
  skip_if_no_pybsnsing()
  bs <- fit_kyphosis()
  dir <- tempfile()
  dir.create(dir)
  expect_message(out <- plot(bs, file = file.path(dir, "tree.tex")), "LaTeX code written")
  expect_identical(out, file.path(dir, "tree.tex"))
  tex <- readLines(out)
  expect_true(any(grepl("pstree", tex)))
  expect_true(any(grepl("a0paper", tex)))
  out2 <- suppressMessages(plot(bs, file = file.path(dir, "small.tex"), papersize = "a4paper",
                                landscape = TRUE))
  expect_true(any(grepl("landscape,a4paper", readLines(out2), fixed = TRUE)))
  expect_output(tex <- plot(bs, file = ""), "documentclass")
  expect_match(tex, "pstricks")
})

test_that("a multi-class model plots all its class trees", {
  skip_if_no_pybsnsing()
  bs <- bsnsing(Species ~ ., data = iris, import.external = FALSE)
  png_file <- tempfile(fileext = ".png")
  grDevices::png(png_file, width = 800, height = 900)
  drawn <- plot(bs)
  grDevices::dev.off()
  expect_setequal(unique(drawn$tree), 1:3)
  for (k in 1:3) {
    expect_setequal(drawn$node[drawn$tree == k],
                    vapply(bs[[k]]$tree.nodes, function(nd) nd$node.number, numeric(1)))
  }
  f <- tempfile(fileext = ".pdf")
  expect_message(plot(bs, file = f), "Tree drawn to")
  expect_true(file.size(f) > 1000)
  tex <- tempfile(fileext = ".tex")
  out <- suppressMessages(plot(bs, file = tex))
  expect_gte(sum(grepl("\\\\pstree", readLines(out))), 3L)
})

test_that("a big tree is drawn to a readable depth, with a message", {
  skip_if_no_pybsnsing()
  set.seed(7)
  n <- 2000
  d <- data.frame(a = runif(n), b = runif(n))
  d$y <- factor(ifelse(sin(9 * d$a) + cos(9 * d$b) + rnorm(n, sd = 0.5) > 0, "p", "q"))
  big <- bsnsing(y ~ ., data = d, max.rules = 1, import.external = FALSE, node.size = 5)
  nleaves <- summary(big)$nleaves
  skip_if(nleaves < 40, "the random tree is small")
  png_file <- tempfile(fileext = ".png")
  grDevices::png(png_file, width = 800, height = 600)
  expect_message(drawn <- plot(big), "drawn down to depth")
  expect_true(all(drawn$cex >= pybsnsing:::.min_cex))
  expect_lt(nrow(drawn), 2 * nleaves - 1)
  all_nodes <- plot(big, max.depth = Inf)
  grDevices::dev.off()
  expect_identical(nrow(all_nodes), 2L * nleaves - 1L)
  f <- tempfile(fileext = ".png")
  suppressMessages(plot(big, file = f))
  expect_true(file.size(f) > 5000)
})
