"""R bsnsing's LaTeX (pstricks) drawing of a tree: ``plot.bsnsing(x, file, ...)``.

:func:`to_latex` returns, character for character, the text that R bsnsing
1.0.1's ``plot.bsnsing`` writes (R/bsnsing.R): a standalone LaTeX document
using the ``pstricks``, ``pst-node`` and ``pst-tree`` packages, with one
``\\pstree`` per split node and one ``\\Tcircle`` per leaf, in the depth-first
order of ``summary(model)``. Compile it with ``latex``, ``dvips`` and
``ps2pdf`` (as R does), or ``xelatex``; pdflatex cannot run pstricks.

Differences from R, all documented:

* R's loop that closes the braces, ``for (j in 1:depth)``, runs twice for a
  tree that is just a root (``1:0`` is ``c(1, 0)``), so R writes two ``}``
  lines too many and the document does not compile. pybsnsing writes none
  there (quirks that do not change trees are fixed, see docs/r-quirks.md).
* R does not draw a multi-class model (``plot.mbsnsing`` prints a hint); here
  ``tree=k`` gives R's text for class tree ``k`` (R's ``plot(bs[[k + 1]])``)
  and ``tree=None`` one document with every class tree, one page each.
* R calls ``latex``/``dvips``/``ps2pdf`` when given a file; pybsnsing only
  writes the ``.tex`` file.

Like R, nothing in the rule texts or class labels is escaped for LaTeX beyond
R's own substitutions (``<``, ``>``, ``%in%``, ``==``, ``_``), so a factor
level containing ``&``, ``#``, ``$`` or ``{`` gives LaTeX that needs editing.

The traversal and the node records it draws come from :mod:`pybsnsing.export.view`.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from ..errors import PybsnsingTypeError, PybsnsingValueError
from .view import label_text, node_number_text, preorder, prob1, select_trees

__all__ = ["to_latex", "RULE_FONTS", "PAPER_SIZES"]

#: R's choices for ``rule_font`` (the first is the default).
RULE_FONTS = ("footnotesize", "scriptsize", "tiny", "normalsize", "small")
#: R's choices for ``papersize`` (the first is the default).
PAPER_SIZES = (
    "a0paper", "a1paper", "a2paper", "a3paper", "a4paper", "a5paper", "a6paper",
    "b0paper", "b1paper", "b2paper", "b3paper", "b4paper", "b5paper", "b6paper",
    "c0paper", "c1paper", "c2paper", "c3paper", "c4paper", "c5paper", "c6paper",
    "b0j", "b1j", "b2j", "b3j", "b4j", "b5j", "b6j",
    "ansiapaper", "ansibpaper", "ansicpaper", "ansidpaper", "ansiepaper",
    "letterpaper", "executivepaper", "legalpaper",
)


# --------------------------------------------------------------------------
# the LaTeX writer
# --------------------------------------------------------------------------


def _match_arg(value: str, choices: Sequence[str], name: str) -> str:
    """R's ``match.arg``: an exact choice or a unique prefix of one."""
    if not isinstance(value, str):
        raise PybsnsingTypeError(f"{name} must be a string, got {value!r}")
    if value in choices:
        return value
    hits = [c for c in choices if c.startswith(value)] if value else []
    if len(hits) == 1:
        return hits[0]
    raise PybsnsingValueError(f"{name} must be one of {', '.join(choices)}; got {value!r}")


def _rule_display(rule: str) -> str:
    """R's display text of a split rule: one question per line, ``or`` between."""
    parts = rule.split("|")  # strsplit(rule, "|", fixed = TRUE)
    if len(parts) > 1 and parts[-1] == "":
        parts.pop()  # strsplit drops one trailing empty piece
    shown = []
    for part in parts:
        rt = part.strip(" \t\r\n")  # trimws
        rt = rt.replace("<", "$<$")
        rt = rt.replace(">", "$>$")
        rt = rt.replace("%in%", " in ")
        rt = rt.replace("==", "$=$")
        rt = rt.replace("_", ".")
        shown.append(rt)
    return "\\\\ \\texttt{or} ".join(shown)


def _tree_body(tree: Any, class_labels: Sequence[str], class_colors: Sequence[str],
               rule_font: str, rule_color: str) -> list[str]:
    """The ``\\pstree`` / ``\\Tcircle`` lines of one tree (R's node loop and closing braces)."""
    out: list[str] = []
    nodes = preorder(tree)
    prev_depth = 0
    for i, nd in enumerate(nodes):
        change = 0 if i == 0 else nd.depth - prev_depth
        if change >= 1:
            out.append("{\n")
        elif change <= -1:
            out.append("}" * (-change) + "\n")
        prev_depth = nd.depth
        number = node_number_text(nd.number)
        prob = f"{prob1(nd.n1, nd.n0):1.3f}"
        if not nd.is_leaf:
            out.append(
                f"\\pstree[treemode=D]{{\\Tcircle{{ \\color{{{rule_color}}} {number} }}"
                f"~[tnpos=l]{{\\color{{{rule_color}}} \\{rule_font} "
                f"\\shortstack[r]{{{_rule_display(nd.split_rule)}}}}}"
                f"~[tnpos=r]{{\\shortstack[r]{{{prob}}}}}}}\n"
            )
        else:
            out.append(
                f"\\Tcircle[fillcolor={class_colors[nd.node_class]},fillstyle=solid]"
                f"{{ {number} }}~{{\\shortstack{{\\makebox[0pt][c]"
                f"{{\\texttt{{{class_labels[nd.node_class]}}}}}\\\\{nd.nobs}}}}}\n"
                f"    ~[tnpos=r]{{\\shortstack[r]{{{prob}}}}}\n"
            )
    # R: for (j in 1:depth) cat("}\n") -- for a root-only tree R writes two
    # lines too many (1:0 is c(1, 0)); pybsnsing writes none (see module doc).
    out.extend("}\n" for _ in range(nodes[-1].depth))
    return out


def to_latex(model: Any, file: str | os.PathLike[str] | None = None, *,
             class_labels: Sequence[Any] | None = None,
             class_colors: Sequence[str] = ("red", "green"),
             rule_font: str = "footnotesize", rule_color: str = "blue",
             footnote: bool = False, landscape: bool = False, papersize: str = "a0paper",
             tree: int | None = None) -> str:
    """R bsnsing's LaTeX (pstricks) drawing of a tree, as ``plot.bsnsing`` writes it.

    Args:
        model: a fitted :class:`~pybsnsing.BsnsingModel` or
            :class:`~pybsnsing.MBsnsingModel`.
        file: when given, the text is also written, as R does, to a ``.tex``
            file in the same folder whose name is the part of the file name
            before its first dot (``"out/tree.pdf"`` -> ``"out/tree.tex"``),
            starting with an empty line as R's file output does. LaTeX itself
            is not run.
        class_labels: the labels of classes 0 and 1 shown under the leaves;
            default ``model.ycode`` printed as R pastes it.
        class_colors: leaf fill colours of classes 0 and 1 (xcolor names).
        rule_font: font size of the split rules: one of :data:`RULE_FONTS`
            (a unique prefix is enough, as in R).
        rule_color: colour of the split nodes' numbers and rules.
        footnote: add R's explanatory footnote at the bottom of the page.
        landscape: landscape page layout.
        papersize: a paper size of the LaTeX ``geometry`` package, one of
            :data:`PAPER_SIZES`.
        tree: for a multi-class model, the 0-based index of the class tree to
            draw (``ylevels`` order); None draws every class tree, one page
            each (R draws none).

    Returns:
        The LaTeX document: exactly R's console output of
        ``plot(model, class_labels, class_colors, rule_font, rule_color,
        footnote, landscape, papersize)`` (with the differences listed in
        the module documentation).
    """
    rule_font = _match_arg(rule_font, RULE_FONTS, "rule_font")
    papersize = _match_arg(papersize, PAPER_SIZES, "papersize")
    if len(class_colors) != 2:
        raise PybsnsingValueError(f"class_colors must have two colours, got {class_colors!r}")
    if class_labels is not None and len(class_labels) != 2:
        raise PybsnsingValueError(f"class_labels must have two labels, got {class_labels!r}")
    selected = select_trees(model, tree)

    head = [
        "\\documentclass[12pt]{article}\n \\usepackage{pstricks,pst-node,pst-tree,xcolor}\n",
        f"\\usepackage[{'landscape' if landscape else 'portrait'},{papersize}]{{geometry}}\n",
        "\\pagestyle{empty}\n \\begin{document}\n",
    ]
    center = (" \\begin{center}\n \\psset{linecolor=black,tnsep=1pt,tndepth=0cm,tnheight=0cm,"
              "treesep=1.2cm,levelsep=56pt,radius=10pt}\n")
    lines = list(head)
    for k, (one, title) in enumerate(selected):
        labels = ([label_text(v) for v in class_labels] if class_labels is not None
                  else [label_text(v) for v in one.ycode])
        if title is not None and len(selected) > 1:
            if k > 0:
                lines.append("\\newpage\n")
            lines.append(f"\\begin{{center}}\\textbf{{{title}}}\\end{{center}}\n")
        lines.append(center)
        lines.extend(_tree_body(one, labels, class_colors, rule_font, rule_color))
        lines.append("\\end{center}\n")
    if footnote:
        lines.append("\\vfill\n")
        lines.append(
            "\\footnotesize Generated by the R package \\textbf{bsnsing}. At each internal "
            "(split) node, the left child answers ``yes''  and the right child answers "
            "``no'' to the split question.\n"
        )
    lines.append("\\end{document}\n")
    text = "".join(lines)
    if file is not None:
        path = Path(file)
        stem = path.name.split(".")[0]
        (path.parent / f"{stem}.tex").write_text("\n" + text, encoding="utf-8")
    return text
