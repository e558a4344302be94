#' ROC curve and area under it
#'
#' R bsnsing's \code{ROC_func}: the rows are sorted by decreasing score (rows
#' with equal scores keep their order), and the curve and the AUC are
#' accumulated one row at a time, exactly as R bsnsing does. Computed in R.
#'
#' @param df a data frame with a column of scores and a column of true labels.
#' @param label_colnum the column number of the true labels.
#' @param score_colnum the column number of the scores.
#' @param pos.label the label of the positive class.
#' @param plot.ROC draw the curve.
#' @param add_on add the curve to the current plot.
#' @param color,lty colour and line type of the curve.
#' @return The area under the ROC curve.
#' @examples
#' df <- data.frame(score = c(0.9, 0.8, 0.7, 0.4, 0.3),
#'                  label = c("yes", "no", "yes", "no", "no"))
#' ROC_func(df, 2, 1, pos.label = "yes")
#' @export
ROC_func <- function(df, label_colnum, score_colnum, pos.label = "1", plot.ROC = FALSE,
                     add_on = FALSE, color = "black", lty = 1) {
  here <- sys.call()
  df <- as.data.frame(df)
  for (arg in c("label_colnum", "score_colnum")) {
    j <- get(arg)
    if (length(j) != 1L || is.na(j) || !(is.numeric(j) || is.character(j)) ||
        (is.numeric(j) && (j < 1 || j > ncol(df))) || (is.character(j) && !j %in% names(df))) {
      stop(simpleError(sprintf("'%s' must name or number one of the %d columns of 'df', not %s",
                               arg, ncol(df), .show_value(j)), here))
    }
  }
  if (!is.numeric(df[[score_colnum]]) && !is.logical(df[[score_colnum]])) {
    stop(simpleError(sprintf("the score column must be numeric, not %s",
                             .describe(df[[score_colnum]])), here))
  }
  df <- df[order(-df[[score_colnum]]), , drop = FALSE]
  labels <- df[, label_colnum]
  pos <- labels == pos.label
  if (anyNA(pos) || anyNA(df[[score_colnum]])) {
    stop(simpleError("missing labels or scores", here))
  }
  n <- nrow(df)
  P <- sum(pos)
  N <- sum(!pos)
  # Reduce() adds in double precision, one row at a time, which is how R
  # bsnsing accumulates (cumsum() and sum() use long double and could differ
  # in the last bit). Adding 0 leaves a value unchanged.
  TPR <- Reduce(`+`, ifelse(pos, 1 / P, 0), 0, accumulate = TRUE)
  FPR <- Reduce(`+`, ifelse(pos, 0, 1 / N), 0, accumulate = TRUE)
  AUC <- Reduce(`+`, TPR[-1L][!pos] * (1 / N), 0)
  if (plot.ROC) {
    draw <- if (add_on) graphics::points else graphics::plot
    draw(FPR, TPR, main = paste0("ROC curve", " (n = ", n, ")"), type = "l", lty = lty,
         col = color, cex.lab = 1.2, cex.axis = 1.2, cex.main = 1.2)
  }
  AUC
}
