"""A Graphviz (dot) description of a bsnsing tree.

:func:`to_dot` returns the text of a ``digraph``; render it with Graphviz
(``dot -Tpng tree.dot -o tree.png``) or the ``graphviz`` Python package
(``graphviz.Source(model.to_dot())``). Nothing here needs Graphviz.

Layout of the drawing: one box per node, top down, the left child (the rows
answering *yes* to the split rule) drawn left of the right child (*no*).
A split node shows its number, its majority class and its rule, one question
per line joined by ``or``; a leaf shows its class, ``n1``/``n0`` counts and the
probability of the class coded 1 (``ycode[1]``). Leaves are filled with the
colour of their class. A multi-class model gives one cluster per class tree
(that class against ``all.other``).

Every label is a double-quoted dot string: backslashes and double quotes in
rule texts and class labels are escaped, so rules such as ``Start=='13'`` or a
factor level containing ``"`` give valid dot.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from ..errors import PybsnsingValueError
from .view import label_text, preorder, prob1, rule_lines, select_trees

__all__ = ["to_dot", "dot_quote"]


def dot_quote(text: str) -> str:
    """``text`` as a double-quoted dot string (a line break becomes ``\\n``)."""
    body = (str(text).replace("\\", "\\\\").replace('"', '\\"')
            .replace("\r\n", "\n").replace("\r", "\n").replace("\n", "\\n"))
    return f'"{body}"'


def _label(lines: Sequence[str]) -> str:
    """A centred multi-line label: the lines quoted and joined with dot's ``\\n``."""
    escaped = [dot_quote(line)[1:-1] for line in lines]
    return '"' + "\\n".join(escaped) + '"'


def _tree_statements(tree: Any, prefix: str, class_colors: Sequence[str],
                     indent: str, edge_labels: bool) -> list[str]:
    labels = [label_text(v) for v in tree.ycode]
    out: list[str] = []
    for nd in preorder(tree):
        name = f"{prefix}{nd.number}"
        p = prob1(nd.n1, nd.n0)
        head = f"Node {nd.number}: {labels[nd.node_class]}"
        counts = f"n1 = {nd.n1}, n0 = {nd.n0}, p = {p:.3f}"
        if nd.is_leaf:
            attrs = (f"label={_label([head, counts])}, style=\"rounded,filled\", "
                     f"fillcolor={dot_quote(class_colors[nd.node_class])}")
        else:
            attrs = (f"label={_label([head, counts, *rule_lines(nd.split_rule)])}, "
                     "style=rounded")
        out.append(f"{indent}{name} [{attrs}];")
        if not nd.is_leaf:
            yes = ' [label="yes"]' if edge_labels else ""
            no = ' [label="no"]' if edge_labels else ""
            out.append(f"{indent}{name} -> {prefix}{nd.lchild}{yes};")
            out.append(f"{indent}{name} -> {prefix}{nd.rchild}{no};")
    return out


def to_dot(model: Any, file: str | os.PathLike[str] | None = None, *,
           class_colors: Sequence[str] = ("lightcoral", "palegreen"),
           edge_labels: bool = True, fontname: str = "Helvetica",
           tree: int | None = None, name: str = "bsnsing") -> str:
    """A Graphviz ``digraph`` of a fitted tree.

    Args:
        model: a fitted :class:`~pybsnsing.BsnsingModel` or
            :class:`~pybsnsing.MBsnsingModel`.
        file: when given, the text is also written to this path.
        class_colors: leaf fill colours of classes 0 and 1 (Graphviz colour
            names or ``"#rrggbb"``).
        edge_labels: label the edges ``yes`` (left) and ``no`` (right).
        fontname: the font of every label.
        tree: for a multi-class model, the 0-based index of the one class
            tree to draw; None draws all, one cluster each.
        name: the graph's name.

    Returns:
        The dot text (ends with a newline). Node identifiers are ``n<number>``
        (``t<k>_n<number>`` for class tree ``k`` of a multi-class model).
    """
    if len(class_colors) != 2:
        raise PybsnsingValueError(f"class_colors must have two colours, got {class_colors!r}")
    selected = select_trees(model, tree)
    lines = [
        f"digraph {dot_quote(name)} {{",
        f"  graph [ordering=out, nodesep=0.3, ranksep=0.5, fontname={dot_quote(fontname)}];",
        f"  node [shape=box, fontname={dot_quote(fontname)}, fontsize=10];",
        f"  edge [fontname={dot_quote(fontname)}, fontsize=9];",
    ]
    if len(selected) == 1:
        one, title = selected[0]
        if title is not None:
            lines.append(f"  label={dot_quote(title)};")
            lines.append("  labelloc=t;")
        lines.extend(_tree_statements(one, "n", class_colors, "  ", edge_labels))
    else:
        for k, (one, title) in enumerate(selected):
            lines.append(f"  subgraph cluster_{k} {{")
            lines.append(f"    label={dot_quote(title or '')};")
            lines.extend(_tree_statements(one, f"t{k}_n", class_colors, "    ", edge_labels))
            lines.append("  }")
    lines.append("}")
    text = "\n".join(lines) + "\n"
    if file is not None:
        Path(file).write_text(text, encoding="utf-8")
    return text
