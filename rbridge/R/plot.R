#' Draw a bsnsing tree
#'
#' Draws the tree with R's base graphics, like \code{plot()} and
#' \code{text()} of an \code{rpart} tree: every node is a box showing its
#' number, its rows (\code{n}) and how many belong to each class; a split
#' node also shows its rule (its questions OR-ed, one per line; rows that
#' answer yes go to the left child), and a leaf shows the class it predicts
#' with that class's share of its rows (\code{p}), on the colour of that
#' class. A multi-class (\code{mbsnsing}) model draws each class tree in its
#' own panel.
#'
#' Where the drawing goes depends on \code{file}:
#' \itemize{
#'   \item none (\code{NULL}, the default): the current graphics device (a
#'     new one is opened as usual if none is open);
#'   \item a file ending in \file{.png}, \file{.pdf}, \file{.svg},
#'     \file{.jpeg}/\file{.jpg}, \file{.tiff}/\file{.tif} or \file{.bmp}: that
#'     picture, drawn by R's device of that format, sized for the tree
#'     (\code{width}, \code{height} and \code{res} change that). If R cannot
#'     write the format (e.g. \file{.svg} without cairo), it is an error;
#'   \item a \file{.tex} file: R bsnsing's LaTeX (pstricks) code, written to
#'     \code{<name before the first dot>.tex} in that folder, as R bsnsing
#'     does (LaTeX is not run);
#'   \item \code{""}: R bsnsing's LaTeX code printed on the console.
#' }
#' Any other file name is an error; R bsnsing's \code{plot(bs, file =
#' "tree.pdf")} ran LaTeX on the \file{.tex} code, here the PDF is drawn
#' directly.
#'
#' @param x a \code{bsnsing} or \code{mbsnsing} object.
#' @param file where to draw; see Details.
#' @param class_labels the labels of the classes coded 0 and 1 (default:
#'   the model's \code{ycode}).
#' @param class_colors the colours of the classes coded 0 and 1 (default
#'   light red and light green for pictures; R bsnsing's \code{"red"},
#'   \code{"green"} for LaTeX).
#' @param rule_font,footnote,verbose LaTeX output only: R bsnsing's font size
#'   of the rules, explanatory footnote, and (unused) trace.
#' @param rule_color the colour of the rules.
#' @param landscape,papersize the page of LaTeX output; for a \file{.pdf} file,
#'   a \code{papersize} given explicitly (e.g. \code{"a4paper"},
#'   \code{"letterpaper"}) sets the PDF page size too.
#' @param digits significant digits of the numbers in the rules of a
#'   picture (the rules keep their full text in \code{summary()} and LaTeX).
#' @param max.depth draw only the nodes up to this depth (the root has depth
#'   0); deeper subtrees are marked \code{"..."}. By default (\code{NULL}) the
#'   whole tree is drawn when its text can be read at the size of the device
#'   or file; a bigger tree is drawn down to the depth where it can, with a
#'   message saying so (\code{max.depth = Inf} draws every node).
#' @param main the title (default: the response coding).
#' @param cex text size; by default the largest that keeps the boxes apart.
#' @param width,height,res the size of a picture file in inches, and the
#'   resolution (pixels per inch) of bitmap files. By default the size grows
#'   with the tree.
#' @param ... ignored (as in R bsnsing).
#' @return For a device or picture: invisibly, the file name (or, for the
#'   device, a data frame of the drawn nodes with their positions). For
#'   LaTeX: invisibly, the path of the \file{.tex} file (or the code when
#'   \code{file = ""}).
#' @examples
#' if (pybsnsing_available()) {
#'   bs <- bsnsing(Class ~ ., data = BreastCancer, max.rules = 2)
#'   plot(bs)                                        # the current device
#'   plot(bs, file = tempfile(fileext = ".png"))     # a picture
#'   plot(bs, file = tempfile(fileext = ".tex"))     # R bsnsing's LaTeX code
#'   plot(bsnsing(Species ~ ., data = iris))         # every class tree
#' }
#' @export
plot.bsnsing <- function(x, file = NULL, class_labels = NULL, class_colors = NULL,
                         rule_font = c("footnotesize", "scriptsize", "tiny", "normalsize",
                                       "small"),
                         rule_color = "blue", footnote = FALSE, landscape = FALSE,
                         papersize = c("a0paper", "a1paper", "a2paper", "a3paper", "a4paper",
                                       "a5paper", "a6paper", "b0paper", "b1paper", "b2paper",
                                       "b3paper", "b4paper", "b5paper", "b6paper", "c0paper",
                                       "c1paper", "c2paper", "c3paper", "c4paper", "c5paper",
                                       "c6paper", "b0j", "b1j", "b2j", "b3j", "b4j", "b5j",
                                       "b6j", "ansiapaper", "ansibpaper", "ansicpaper",
                                       "ansidpaper", "ansiepaper", "letterpaper",
                                       "executivepaper", "legalpaper"),
                         verbose = FALSE, digits = 4,
                         max.depth = NULL, main = NULL, cex = NULL, width = NULL,
                         height = NULL, res = 120, ...) {
  here <- sys.call()
  paper_given <- !missing(papersize)
  .plot_model(x, file = file, here = here, class_labels = class_labels,
              class_colors = class_colors, rule_font = rule_font, rule_color = rule_color,
              footnote = footnote, landscape = landscape, papersize = papersize,
              paper_given = paper_given, digits = digits, max.depth = max.depth,
              main = main, cex = cex, width = width, height = height, res = res)
}

#' @rdname plot.bsnsing
#' @export
plot.mbsnsing <- function(x, ...) plot.bsnsing(x, ...)

# LaTeX geometry paper sizes (R bsnsing's papersize) and their size in inches.
.paper_sizes <- c("a0paper", "a1paper", "a2paper", "a3paper", "a4paper", "a5paper", "a6paper",
                  "b0paper", "b1paper", "b2paper", "b3paper", "b4paper", "b5paper", "b6paper",
                  "c0paper", "c1paper", "c2paper", "c3paper", "c4paper", "c5paper", "c6paper",
                  "b0j", "b1j", "b2j", "b3j", "b4j", "b5j", "b6j", "ansiapaper", "ansibpaper",
                  "ansicpaper", "ansidpaper", "ansiepaper", "letterpaper", "executivepaper",
                  "legalpaper")

.paper_inches <- function(paper) {
  mm <- function(w, h) c(w, h) / 25.4
  iso <- function(series, k) {
    base <- switch(series, a = c(841, 1189), b = c(1000, 1414), c = c(917, 1297),
                   j = c(1030, 1456))
    wh <- base
    for (i in seq_len(k)) wh <- c(floor(wh[2] / 2), wh[1])
    mm(wh[1], wh[2])
  }
  if (grepl("^[abc][0-6]paper$", paper)) {
    return(iso(substr(paper, 1, 1), as.integer(substr(paper, 2, 2))))
  }
  if (grepl("^b[0-6]j$", paper)) return(iso("j", as.integer(substr(paper, 2, 2))))
  switch(paper, ansiapaper = c(8.5, 11), ansibpaper = c(11, 17), ansicpaper = c(17, 22),
         ansidpaper = c(22, 34), ansiepaper = c(34, 44), letterpaper = c(8.5, 11),
         executivepaper = c(7.25, 10.5), legalpaper = c(8.5, 14), c(8.27, 11.69))
}

# The picture formats and the R device that writes each.
.picture_formats <- c(png = "png", pdf = "pdf", svg = "svg", jpeg = "jpeg", jpg = "jpeg",
                      tiff = "tiff", tif = "tiff", bmp = "bmp")

.plot_model <- function(x, file, here, class_labels, class_colors, rule_font, rule_color,
                        footnote, landscape, papersize, paper_given, digits, max.depth, main,
                        cex, width, height, res) {
  if (!inherits(x, c("bsnsing", "mbsnsing"))) {
    stop(simpleError("'x' must be a bsnsing or mbsnsing object", here))
  }
  if (!is.null(file) && (!is.character(file) || length(file) != 1L || is.na(file))) {
    stop(simpleError(sprintf("'file' must be a file name (or NULL for the current device), not %s",
                             .show_value(file)), here))
  }
  if (!is.null(class_labels) && length(class_labels) != 2L) {
    stop(simpleError("'class_labels' must have two labels, for the classes coded 0 and 1",
                     here))
  }
  if (!is.null(class_colors) && length(class_colors) != 2L) {
    stop(simpleError("'class_colors' must have two colours, for the classes coded 0 and 1",
                     here))
  }
  rule_font <- match.arg(rule_font, c("footnotesize", "scriptsize", "tiny", "normalsize",
                                      "small"))
  papersize <- match.arg(papersize, .paper_sizes)
  if (!is.numeric(digits) || length(digits) != 1L || is.na(digits) || digits < 1) {
    stop(simpleError("'digits' must be a whole number >= 1", here))
  }
  if (!is.null(max.depth) && (!is.numeric(max.depth) || length(max.depth) != 1L ||
                              is.na(max.depth) || max.depth < 0)) {
    stop(simpleError("'max.depth' must be NULL or a number >= 0", here))
  }
  draw_args <- list(class_labels = class_labels, class_colors = class_colors,
                    rule_color = rule_color, digits = digits, max.depth = max.depth,
                    main = main, cex = cex)
  if (is.null(file)) {
    return(invisible(.draw_model(x, draw_args)))
  }
  file <- path.expand(file)
  if (!nzchar(file) || grepl("\\.tex$", file, ignore.case = TRUE)) {
    return(.plot_latex(x, file, here, class_labels = class_labels,
                       class_colors = if (is.null(class_colors)) c("red", "green") else
                         class_colors,
                       rule_font = rule_font, rule_color = rule_color, footnote = footnote,
                       landscape = landscape, papersize = papersize))
  }
  ext <- tolower(sub("^.*\\.", "", basename(file)))
  if (!grepl(".", basename(file), fixed = TRUE) || !ext %in% names(.picture_formats)) {
    stop(simpleError(sprintf(paste("cannot tell the picture format of '%s' from its",
                                   "extension: use .png, .pdf, .svg, .jpeg, .tiff or .bmp",
                                   "(a picture) or .tex (R bsnsing's LaTeX code)"), file),
                     here))
  }
  dir <- dirname(file)
  if (!dir.exists(dir)) {
    stop(simpleError(sprintf("cannot write '%s': the folder '%s' does not exist", file, dir),
                     here))
  }
  format <- .picture_formats[[ext]]
  size <- .picture_size(x, draw_args, width, height,
                        max_width = if (format %in% c("pdf", "svg")) 40 else 28)
  if (format == "pdf" && paper_given) {
    size <- .paper_inches(papersize)
    if (isTRUE(landscape)) size <- rev(size)
  }
  .open_picture(format, file, size, res, here)
  dev <- grDevices::dev.cur()
  ok <- FALSE
  on.exit(if (!ok && dev %in% grDevices::dev.list()) grDevices::dev.off(dev), add = TRUE)
  .draw_model(x, draw_args)
  grDevices::dev.off(dev)
  ok <- TRUE
  if (!file.exists(file) || file.info(file)$size == 0) {
    stop(simpleError(sprintf("R's %s device did not write '%s'", format, file), here))
  }
  message("Tree drawn to ", file)
  invisible(file)
}

.open_picture <- function(format, file, size, res, call) {
  fail <- function(why) {
    stop(simpleError(sprintf("cannot write the %s file '%s': %s", toupper(format), file, why),
                     call))
  }
  caps <- base::capabilities()
  bitmap_type <- if (isTRUE(caps[["cairo"]])) "cairo" else NULL
  if (format == "svg" && !isTRUE(caps[["cairo"]])) {
    fail("this R has no cairo support (capabilities(\"cairo\") is FALSE); use .pdf or .png")
  }
  if (format %in% c("png", "jpeg", "tiff") && !isTRUE(caps[[format]]) &&
      is.null(bitmap_type)) {
    fail(sprintf("this R cannot write %s files (capabilities(\"%s\") is FALSE); use .pdf",
                 toupper(format), format))
  }
  w <- size[1]
  h <- size[2]
  opened <- tryCatch({
    switch(format,
      pdf = grDevices::pdf(file, width = w, height = h, onefile = TRUE),
      svg = grDevices::svg(file, width = w, height = h),
      png = if (is.null(bitmap_type)) {
        grDevices::png(file, width = w, height = h, units = "in", res = res)
      } else {
        grDevices::png(file, width = w, height = h, units = "in", res = res, type = bitmap_type)
      },
      jpeg = grDevices::jpeg(file, width = w, height = h, units = "in", res = res,
                             quality = 95),
      tiff = grDevices::tiff(file, width = w, height = h, units = "in", res = res,
                             compression = "lzw"),
      bmp = grDevices::bmp(file, width = w, height = h, units = "in", res = res))
    TRUE
  }, error = function(e) conditionMessage(e), warning = function(w) conditionMessage(w))
  if (!isTRUE(opened)) fail(opened)
  invisible(TRUE)
}

.plot_latex <- function(x, file, here, ...) {
  model <- .py_model(x)
  export <- tryCatch(reticulate::import("pybsnsing.export", convert = FALSE),
                     error = function(e) NULL)
  if (is.null(export) || !reticulate::py_has_attr(export, "to_latex")) {
    stop(simpleError(paste("this pybsnsing cannot write LaTeX (no pybsnsing.export.to_latex);",
                           "run install_pybsnsing()"), here))
  }
  args <- list(...)
  if (is.null(args$class_labels)) args$class_labels <- NULL
  if (!nzchar(file)) {
    tex <- reticulate::py_to_r(do.call(.pycall, c(list(export$to_latex, model), args,
                                                 list(call = here)), quote = TRUE))
    cat(tex)
    return(invisible(tex))
  }
  stem <- strsplit(basename(file), ".", fixed = TRUE)[[1]][1]
  out <- file.path(dirname(file), paste0(stem, ".tex"))
  if (!dir.exists(dirname(file))) {
    stop(simpleError(sprintf("cannot write '%s': the folder '%s' does not exist", out,
                             dirname(file)), here))
  }
  do.call(.pycall, c(list(export$to_latex, model, file), args, list(call = here)),
          quote = TRUE)
  message("LaTeX code written to ", out)
  invisible(out)
}

# ---------------------------------------------------------------------------
# Drawing with base graphics

# The trees of a model with their titles.
.model_trees <- function(x, main) {
  if (inherits(x, "mbsnsing")) {
    k <- as.integer(x$nclass)
    levels <- as.character(x$ylevels)
    titles <- if (is.null(main)) {
      sprintf("Tree %d: %s vs all.other", seq_len(k), levels)
    } else {
      rep_len(as.character(main), k)
    }
    return(list(trees = lapply(seq_len(k), function(i) x[[i]]), titles = titles))
  }
  title <- if (is.null(main)) .coding_title(x) else as.character(main)
  list(trees = list(x), titles = title)
}

.coding_title <- function(tree) {
  ycode <- as.character(tree$ycode)
  if (length(ycode) == 2L) sprintf("bsnsing tree: %s (1) vs %s (0)", ycode[2], ycode[1]) else
    "bsnsing tree"
}

.draw_model <- function(x, args) {
  parts <- .model_trees(x, args$main)
  k <- length(parts$trees)
  if (k > 1L) {
    ncol <- .panel_columns(k)
    old <- graphics::par(mfrow = c(ceiling(k / ncol), ncol), oma = c(1.6, 0, 0, 0), cex = 1)
    on.exit(graphics::par(old), add = TRUE)
  }
  drawn <- lapply(seq_len(k), function(i) {
    d <- .draw_tree(parts$trees[[i]], parts$titles[i], args, legend = k == 1L)
    d$tree <- rep(i, nrow(d))
    d
  })
  if (k > 1L) .legend(outer = TRUE, cex = 0.8)
  do.call(rbind, drawn)
}

# Class trees of a multi-class model: one column up to three trees, then two.
.panel_columns <- function(k) if (k <= 3L) 1L else 2L

.legend <- function(outer, cex) {
  graphics::mtext(paste("Left branch: the rule holds (yes); right branch: it does not (no).",
                        "n: rows; p: share of the predicted class."),
                  side = 1, line = if (outer) 0.3 else 0.8, outer = outer, cex = cex,
                  col = "gray30")
}

# Nodes of a tree as a list by number, with depth, leaf positions (in order,
# left child first) and the x position of every node.
.tree_layout <- function(tree, max.depth) {
  tn <- unclass(tree$tree.nodes)
  by <- list()
  for (nd in tn) by[[as.character(nd$node.number)]] <- nd
  rows <- list()
  next_leaf <- 0
  visit <- function(num, depth) {
    nd <- by[[as.character(num)]]
    leaf <- nd$node.lchild == -1 && nd$node.rchild == -1
    cut <- !leaf && depth >= max.depth
    if (leaf || cut) {
      next_leaf <<- next_leaf + 1
      x <- next_leaf
    } else {
      xl <- visit(nd$node.lchild, depth + 1)
      xr <- visit(nd$node.rchild, depth + 1)
      x <- (xl + xr) / 2
    }
    rows[[length(rows) + 1L]] <<- list(node = nd, number = nd$node.number, depth = depth,
                                        x = x, leaf = leaf, cut = cut)
    x
  }
  visit(0, 0)
  list(nodes = rows, nleaves = next_leaf,
       depth = max(vapply(rows, function(r) r$depth, numeric(1))))
}

# A rule as lines for a picture: one question per line ("or" before the
# second and later ones), numbers with `digits` significant digits.
.rule_lines <- function(rule, digits) {
  if (!nzchar(rule)) return(character(0))
  parts <- trimws(strsplit(rule, " | ", fixed = TRUE)[[1]])
  parts <- vapply(parts, .round_numbers, character(1), digits = digits, USE.NAMES = FALSE)
  parts <- unlist(lapply(parts, .wrap_question, width = 36L))
  if (length(parts) > 1L) parts[-1] <- paste("or", parts[-1])
  parts
}

.round_numbers <- function(text, digits) {
  re <- "(>=|<=|>|<|==)( ?)(-?(?:[0-9]+\\.?[0-9]*|\\.[0-9]+)(?:[eE][-+]?[0-9]+)?)(?![0-9.eE'\"])"
  m <- gregexpr(re, text, perl = TRUE)[[1]]
  if (m[1] == -1) return(text)
  starts <- attr(m, "capture.start")[, 3]
  lens <- attr(m, "capture.length")[, 3]
  out <- text
  for (i in rev(seq_along(starts))) {
    num <- substr(text, starts[i], starts[i] + lens[i] - 1L)
    v <- suppressWarnings(as.numeric(num))
    if (is.na(v)) next
    short <- format(signif(v, digits), digits = digits, trim = TRUE)
    out <- paste0(substr(out, 1L, starts[i] - 1L), short,
                  substr(out, starts[i] + lens[i], nchar(out)))
  }
  out
}

# Long questions (x%in%c('a','b',...)) broken after commas.
.wrap_question <- function(q, width) {
  if (nchar(q) <= width || !grepl(",", q, fixed = TRUE)) return(q)
  pieces <- strsplit(q, "(?<=,)", perl = TRUE)[[1]]
  lines <- character(0)
  cur <- ""
  for (p in pieces) {
    if (nchar(cur) && nchar(cur) + nchar(p) > width) {
      lines <- c(lines, cur)
      cur <- paste0("  ", p)
    } else {
      cur <- paste0(cur, p)
    }
  }
  c(lines, cur)
}

.node_text <- function(r, labels, digits) {
  nd <- r$node
  n1 <- nd$node.n1
  n0 <- nd$node.n0
  n <- n1 + n0
  mix <- sprintf("%s %d / %s %d", labels[1], n0, labels[2], n1)
  if (r$leaf || r$cut) {
    cls <- nd$node.class
    share <- if (n == 0) 0 else (if (cls == 1) n1 else n0) / n
    head <- labels[cls + 1L]
    body <- c(sprintf("node %s: n = %d, p = %s", format(nd$node.number), n,
                      formatC(share, format = "f", digits = 2)), mix)
    if (r$cut) body <- c(body, "...")
    return(list(rule = character(0), head = head, body = body))
  }
  list(rule = .rule_lines(nd$node.split.rule, digits), head = character(0),
       body = c(sprintf("node %s: n = %d", format(nd$node.number), n), mix))
}

.default_fills <- c("#F6C1B4", "#BFE3B4")

.all_lines <- function(t) c(t$rule, t$head, t$body)

# The layout of a tree drawn down to `depth`, its texts and the largest text
# size (at most 1) at which boxes at one depth do not overlap nor reach the
# next level. Sets the plot window (user coordinates) for that layout.
.fit_layout <- function(tree, depth, labels, digits, cex = NULL) {
  lay <- .tree_layout(tree, depth)
  texts <- lapply(lay$nodes, .node_text, labels = labels, digits = digits)
  L <- lay$nleaves
  graphics::plot.window(xlim = c(0.5, L + 0.5), ylim = c(-lay$depth - 0.5, 0.5))
  if (is.null(cex)) {
    w1 <- vapply(texts, function(t) max(graphics::strwidth(.all_lines(t), cex = 1)),
                 numeric(1)) + 2 * graphics::strwidth("m", cex = 1) * 0.6
    h1 <- vapply(texts, function(t) length(.all_lines(t)), numeric(1)) *
      graphics::strheight("Ag", cex = 1) * 1.45
    xs <- vapply(lay$nodes, function(r) r$x, numeric(1))
    ds <- vapply(lay$nodes, function(r) r$depth, numeric(1))
    s <- 1
    for (d in unique(ds)) {
      i <- which(ds == d)
      i <- i[order(xs[i])]
      if (length(i) > 1L) {
        gap <- diff(xs[i])
        need <- (w1[i][-1] + w1[i][-length(i)]) / 2 * 1.15
        s <- min(s, gap / need)
      }
    }
    s <- min(s, 0.78 / max(h1), (L + 0.4) / max(w1 * 1.08))
    cex <- max(0.2, min(1, s))
  }
  list(lay = lay, texts = texts, cex = cex)
}

# The smallest readable text size when the depth is chosen automatically.
.min_cex <- 0.4

.draw_tree <- function(tree, title, args, legend = TRUE) {
  labels <- if (is.null(args$class_labels)) as.character(tree$ycode) else
    as.character(args$class_labels)
  if (length(labels) != 2L) labels <- c("0", "1")
  fills <- if (is.null(args$class_colors)) .default_fills else
    grDevices::adjustcolor(args$class_colors, alpha.f = 0.45)
  graphics::plot.new()
  old <- graphics::par(mar = c(2.2, 0.5, 2.2, 0.5), xpd = NA)
  on.exit(graphics::par(old), add = TRUE)
  auto <- is.null(args$max.depth)
  fit <- .fit_layout(tree, if (auto) Inf else args$max.depth, labels, args$digits, args$cex)
  if (auto && is.null(args$cex) && fit$cex < .min_cex && fit$lay$depth > 1) {
    full <- fit$lay
    for (d in seq(full$depth - 1, 1)) {
      fit <- .fit_layout(tree, d, labels, args$digits)
      if (fit$cex >= .min_cex || d == 1) break
    }
    message(sprintf(paste("The tree has %d leaves and depth %d, too many to read at this size:",
                          "drawn down to depth %d (\"...\" marks a subtree not shown).",
                          "Use max.depth = Inf to draw every node, or a larger device or",
                          "width."), full$nleaves, full$depth, d))
  }
  lay <- fit$lay
  texts <- fit$texts
  cex <- fit$cex
  graphics::title(main = title, cex.main = 1)
  all_lines <- .all_lines
  lh <- graphics::strheight("Ag", cex = cex) * 1.45
  pad_x <- graphics::strwidth("m", cex = cex) * 0.6
  boxes <- lapply(seq_along(lay$nodes), function(i) {
    r <- lay$nodes[[i]]
    t <- texts[[i]]
    lines <- all_lines(t)
    w <- max(graphics::strwidth(lines, cex = cex)) + 2 * pad_x
    h <- length(lines) * lh + lh * 0.3
    list(x = r$x, y = -r$depth, w = w, h = h)
  })
  by_number <- stats::setNames(seq_along(lay$nodes),
                               vapply(lay$nodes, function(r) as.character(r$number), ""))
  # edges first, labelled yes (left child) and no (right child)
  for (i in seq_along(lay$nodes)) {
    r <- lay$nodes[[i]]
    if (r$leaf || r$cut) next
    b <- boxes[[i]]
    for (side in c("l", "r")) {
      child <- if (side == "l") r$node$node.lchild else r$node$node.rchild
      j <- by_number[[as.character(child)]]
      cb <- boxes[[j]]
      x0 <- b$x
      y0 <- b$y - b$h / 2
      x1 <- cb$x
      y1 <- cb$y + cb$h / 2
      graphics::segments(x0, y0, x1, y1, col = "gray40")
      graphics::text((x0 + x1) / 2, (y0 + y1) / 2, if (side == "l") "yes" else "no",
                     pos = if (side == "l") 2 else 4, cex = cex * 0.85, col = "gray25",
                     offset = 0.3)
    }
  }
  for (i in seq_along(lay$nodes)) {
    r <- lay$nodes[[i]]
    t <- texts[[i]]
    b <- boxes[[i]]
    fill <- if (r$leaf || r$cut) fills[r$node$node.class + 1L] else "white"
    graphics::rect(b$x - b$w / 2, b$y - b$h / 2, b$x + b$w / 2, b$y + b$h / 2, col = fill,
                   border = if (r$leaf || r$cut) "gray35" else args$rule_color, lwd = 1)
    lines <- all_lines(t)
    top <- b$y + b$h / 2 - lh * 0.15 - lh / 2
    ys <- top - (seq_along(lines) - 1) * lh
    nr <- length(t$rule)
    nh <- length(t$head)
    cols <- c(rep(args$rule_color, nr), rep("black", nh), rep("gray15", length(t$body)))
    fonts <- c(rep(1, nr), rep(2, nh), rep(1, length(t$body)))
    graphics::text(rep(b$x, length(lines)), ys, lines, cex = cex, col = cols, font = fonts)
  }
  if (legend) .legend(outer = FALSE, cex = 0.75 * max(cex, 0.7))
  data.frame(node = vapply(lay$nodes, function(r) r$number, numeric(1)),
             depth = vapply(lay$nodes, function(r) r$depth, numeric(1)),
             x = vapply(boxes, function(b) b$x, numeric(1)),
             y = vapply(boxes, function(b) b$y, numeric(1)),
             leaf = vapply(lay$nodes, function(r) r$leaf || r$cut, logical(1)),
             label = vapply(texts, function(t) paste(c(t$rule, t$head, t$body), collapse = "\n"),
                            character(1)),
             cex = cex, stringsAsFactors = FALSE)
}

# A file size (inches) that fits the tree: about 1.7 in per leaf and
# 1.5 in per level, within limits (the text shrinks beyond them).
.picture_size <- function(x, args, width, height, max_width = 40) {
  parts <- .model_trees(x, args$main)
  dims <- vapply(parts$trees, function(t) {
    depth <- args$max.depth
    if (is.null(depth)) {
      # the deepest drawing with at most one leaf per 0.7 in of the widest file
      depth <- Inf
      lay <- .tree_layout(t, depth)
      while (lay$nleaves * 0.7 > max_width && lay$depth > 1) {
        depth <- lay$depth - 1
        lay <- .tree_layout(t, depth)
      }
    }
    lay <- .tree_layout(t, depth)
    widest <- max(vapply(lay$nodes, function(r) {
      nd <- r$node
      max(nchar(c(.rule_lines(nd$node.split.rule, args$digits), "node 00: n = 0000, p = 0.00")))
    }, numeric(1)))
    c(lay$nleaves * max(1.4, widest * 0.07 + 0.3), (lay$depth + 1) * 1.35 + 1)
  }, numeric(2))
  k <- length(parts$trees)
  ncol <- .panel_columns(k)
  nrow <- ceiling(k / ncol)
  widest <- sum(sort(dims[1, ], decreasing = TRUE)[seq_len(ncol)])
  w <- if (is.null(width)) min(max(widest, 6), max_width) else width
  h <- if (is.null(height)) min(max(max(dims[2, ]) * nrow, 4), 30) else height
  c(w, h)
}
