# The data sets R bsnsing 1.0.1 ships (the same values), so that its examples
# and code written for it run unchanged.

#' Wisconsin breast cancer data
#'
#' The breast cancer biopsies of the University of Wisconsin Hospitals
#' (W. H. Wolberg), as shipped by R bsnsing 1.0.1: nine cytological
#' characteristics scored 1 to 10 and the diagnosis.
#'
#' @format A data frame with 699 rows and 10 columns: the numeric
#'   \code{Cl.thickness}, \code{Cell.size}, \code{Cell.shape},
#'   \code{Marg.adhesion}, \code{Epith.c.size}, \code{Bare.nuclei} (16
#'   missing values), \code{Bl.cromatin}, \code{Normal.nucleoli},
#'   \code{Mitoses}, and the factor \code{Class} (\code{benign},
#'   \code{malignant}).
#' @source R bsnsing 1.0.1 (\url{https://github.com/profyliu/bsnsing/}); the
#'   UCI Machine Learning Repository; also in the 'mlbench' package.
#' @examples
#' table(BreastCancer$Class)
"BreastCancer"

#' Glaucoma diagnosis from laser scans and visual fields
#'
#' Eyes of 170 patients (85 with glaucoma, 85 normal) described by 62
#' measurements of the optic nerve head from a Heidelberg Retina Tomograph
#' and 4 visual field measurements, as shipped by R bsnsing 1.0.1.
#'
#' @format A data frame with 170 rows and 67 columns: 66 numeric predictors
#'   (\code{ag}, \code{at}, ..., \code{tension}, \code{clv}, \code{cs},
#'   \code{lora}; \code{tension}, \code{clv} and \code{cs} have 17 missing
#'   values between them) and the factor \code{Class} (\code{glaucoma},
#'   \code{normal}).
#' @source R bsnsing 1.0.1 (\url{https://github.com/profyliu/bsnsing/}); also
#'   in the 'ipred' package.
#' @examples
#' dim(GlaucomaMVF)
"GlaucomaMVF"

#' Auto miles per gallon data
#'
#' Gas mileage, engine and origin of 392 cars (models 1970 to 1982), as
#' shipped by R bsnsing 1.0.1, where the origin has two classes.
#'
#' @format A data frame with 392 rows and 8 columns: the numeric \code{mpg},
#'   \code{cylinders}, \code{displacement}, \code{horsepower}, \code{weight},
#'   \code{acceleration}, \code{year}, and the factor \code{origin}
#'   (\code{EUJ}: Europe or Japan, \code{USA}).
#' @source R bsnsing 1.0.1 (\url{https://github.com/profyliu/bsnsing/}); the
#'   UCI Machine Learning Repository (Auto MPG).
#' @examples
#' table(auto$origin)
"auto"

#' Edgar Anderson's iris data
#'
#' Sepal and petal measurements of 50 flowers of each of three iris species,
#' as shipped by R bsnsing 1.0.1 (identical to \code{datasets::iris}).
#'
#' @format A data frame with 150 rows and 5 columns: the numeric
#'   \code{Sepal.Length}, \code{Sepal.Width}, \code{Petal.Length},
#'   \code{Petal.Width} and the factor \code{Species} (\code{setosa},
#'   \code{versicolor}, \code{virginica}).
#' @source R bsnsing 1.0.1; \code{\link[datasets]{iris}}.
#' @examples
#' summary(iris)
"iris"
