.onLoad <- function(libname, pkgname) {
  .configure_python()
  # delay_load: Python starts (and pybsnsing is imported) on first use
  .pyb$core <- reticulate::import("pybsnsing", delay_load = TRUE, convert = FALSE)
  .pyb$convert <- reticulate::import("pybsnsing.r.convert", delay_load = TRUE,
                                     convert = FALSE)
  .pyb$messages <- reticulate::import("pybsnsing.r.messages", delay_load = TRUE,
                                      convert = FALSE)
  invisible(NULL)
}
