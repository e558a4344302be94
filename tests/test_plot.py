"""Tree drawings: matplotlib (plot_tree), R's LaTeX (to_latex) and Graphviz (to_dot).

LaTeX: R bsnsing's ``plot.bsnsing`` writes a pstricks document. No R output
of it is available here (the issue mentions ``../shared/golden/latex/``, which
does not exist), so the tests check the text against R's source logic
(R/bsnsing.R of bsnsing 1.0.1, ``plot.bsnsing``) on the golden trees: one full
document written out by hand from that code, and, for every golden tree, the
node order and depths against R's own ``summary`` text of the same tree.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import warnings

import matplotlib

matplotlib.use("Agg")

import matplotlib.image as mpimg  # noqa: E402
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402
import pytest  # noqa: E402
from golden import tree_records  # noqa: E402

from pybsnsing.control import BsControl  # noqa: E402
from pybsnsing.export import plot_tree, to_dot, to_latex  # noqa: E402
from pybsnsing.model import BsnsingModel, MBsnsingModel  # noqa: E402
from pybsnsing.tree import Node  # noqa: E402

# ---------------------------------------------------------------------------
# models built from the golden records (R's trees, node by node)
# ---------------------------------------------------------------------------


def _tree(nodes: list[dict], ycode: list, node_size: int = 1) -> BsnsingModel:
    built = [
        Node(number=n["number"], parent=n["parent"], lchild=n["lchild"], rchild=n["rchild"],
             node_class=n["class"], prop=n["prop"], nobs=n["nobs"], n1=n["n1"], n0=n["n0"],
             prob=n["prob"], obs=np.empty(0, dtype=np.int64), split_rule=n["split_rule"],
             split_target=n["split_target"], depth=n["depth"])
        for n in nodes
    ]
    root = nodes[0]
    y = np.r_[np.ones(root["n1"], dtype=np.int64), np.zeros(root["n0"], dtype=np.int64)]
    return BsnsingModel(nodes=built, ycode=list(ycode), y=y, control=BsControl(),
                        node_size=node_size)


def model_from_record(rec: dict) -> BsnsingModel | MBsnsingModel:
    """The R model of a golden record, rebuilt from its nodes (no fitting)."""
    if rec["model_type"] == "binary":
        return _tree(rec["nodes"], rec["ycode"])
    trees = [_tree(c["nodes"], c["ycode"]) for c in rec["classes"]]
    return MBsnsingModel(trees=trees, ylevels=list(rec["ylevels"]),
                         yprior=np.asarray(rec["yprior"], dtype=float))


RECORDS = tree_records()
BINARY = [r for r in RECORDS if r["model_type"] == "binary"]
MULTI = [r for r in RECORDS if r["model_type"] == "multiclass"]


def _record(dataset: str, config: str) -> dict:
    for r in RECORDS:
        if r["dataset"] == dataset and r["config"] == config:
            return r
    pytest.skip(f"golden record {dataset}/{config} not available")


def _node(number, parent, lchild, rchild, n1, n0, rule="", depth=0) -> dict:
    return {"number": number, "parent": parent, "lchild": lchild, "rchild": rchild,
            "class": int(n1 >= n0), "prop": 1.0, "nobs": n1 + n0, "n1": n1, "n0": n0,
            "prob": n1 / (n1 + n0), "split_rule": rule, "split_target": int(n1 >= n0),
            "depth": depth}


def small_tree(rule: str = "x < 1.5 | f=='b'", ycode=("no", "yes")) -> BsnsingModel:
    """A root split with two leaves."""
    return _tree([_node(0, -1, 1, 2, 6, 4, rule), _node(1, 0, -1, -1, 5, 1, depth=1),
                  _node(2, 0, -1, -1, 1, 3, depth=1)], list(ycode))


# ---------------------------------------------------------------------------
# LaTeX
# ---------------------------------------------------------------------------

# plot(bs) of the kyphosis/default golden tree, written out from R's
# plot.bsnsing code (bsnsing 1.0.1) by hand.
KYPHOSIS_DEFAULT_LATEX = r"""\documentclass[12pt]{article}
 \usepackage{pstricks,pst-node,pst-tree,xcolor}
\usepackage[portrait,a0paper]{geometry}
\pagestyle{empty}
 \begin{document}
 \begin{center}
 \psset{linecolor=black,tnsep=1pt,tndepth=0cm,tnheight=0cm,treesep=1.2cm,levelsep=56pt,radius=10pt}
\pstree[treemode=D]{\Tcircle{ \color{blue} 0 }~[tnpos=l]{\color{blue} \footnotesize \shortstack[r]{Age $<$ 39.5\\ \texttt{or} Start $>$= 14.5}}~[tnpos=r]{\shortstack[r]{0.211}}}
{
\Tcircle[fillcolor=red,fillstyle=solid]{ 1 }~{\shortstack{\makebox[0pt][c]{\texttt{absent}}\\31}}
    ~[tnpos=r]{\shortstack[r]{0.000}}
\pstree[treemode=D]{\Tcircle{ \color{blue} 2 }~[tnpos=l]{\color{blue} \footnotesize \shortstack[r]{Number $<$ 4.5\\ \texttt{or} Start$=$'13'}}~[tnpos=r]{\shortstack[r]{0.462}}}
{
\pstree[treemode=D]{\Tcircle{ \color{blue} 3 }~[tnpos=l]{\color{blue} \footnotesize \shortstack[r]{Number$=$'3'\\ \texttt{or} Start$=$'5'}}~[tnpos=r]{\shortstack[r]{0.250}}}
{
\Tcircle[fillcolor=green,fillstyle=solid]{ 5 }~{\shortstack{\makebox[0pt][c]{\texttt{present}}\\8}}
    ~[tnpos=r]{\shortstack[r]{0.500}}
\Tcircle[fillcolor=red,fillstyle=solid]{ 6 }~{\shortstack{\makebox[0pt][c]{\texttt{absent}}\\8}}
    ~[tnpos=r]{\shortstack[r]{0.000}}
}
\Tcircle[fillcolor=green,fillstyle=solid]{ 4 }~{\shortstack{\makebox[0pt][c]{\texttt{present}}\\10}}
    ~[tnpos=r]{\shortstack[r]{0.800}}
}
}
\end{center}
\end{document}
"""  # noqa: E501


def test_latex_matches_r_code_on_kyphosis():
    model = model_from_record(_record("kyphosis", "default"))
    assert to_latex(model) == KYPHOSIS_DEFAULT_LATEX
    assert model.to_latex() == KYPHOSIS_DEFAULT_LATEX


def _latex_node_depths(text: str) -> list[tuple[int, int]]:
    """(node number, depth) of each node line, following R's brace lines."""
    depth = 0
    out = []
    for line in text.split("\n"):
        if line == "{":
            depth += 1
        elif line and set(line) == {"}"}:
            depth -= len(line)
        else:
            m = re.match(r"\\pstree\[treemode=D\]\{\\Tcircle\{ \\color\{blue\} (\d+) \}", line)
            m = m or re.match(r"\\Tcircle\[fillcolor=\w+,fillstyle=solid\]\{ (\d+) \}", line)
            if m:
                out.append((int(m.group(1)), depth))
    assert depth == 0
    return out


def _summary_node_depths(summary_text: str) -> list[tuple[int, int]]:
    """(node number, depth) in R's summary text (6 spaces per level)."""
    out = []
    for line in summary_text.split("\n"):
        m = re.match(r"^( *)\*?Node (\d+):", line)
        if m:
            out.append((int(m.group(2)), len(m.group(1)) // 6))
    return out


def _check_latex_tree(text: str, tree_record: dict, summary_text: str, ycode: list) -> None:
    assert text.count("{") == text.count("}")
    assert _latex_node_depths(text) == _summary_node_depths(summary_text)
    nodes = {n["number"]: n for n in tree_record["nodes"]}
    assert text.count("\\pstree[treemode=D]") == tree_record["n_splits"]
    leaves = re.findall(r"\\Tcircle\[fillcolor=(\w+),fillstyle=solid\]\{ (\d+) \}~\{\\shortstack"
                        r"\{\\makebox\[0pt\]\[c\]\{\\texttt\{([^}]*)\}\}\\\\(\d+)\}\}", text)
    assert len(leaves) == tree_record["n_leaves"]
    for colour, number, label, nobs in leaves:
        nd = nodes[int(number)]
        assert colour == ("green" if nd["class"] == 1 else "red")
        assert label == str(ycode[nd["class"]])
        assert int(nobs) == nd["n1"] + nd["n0"]
    probs = re.findall(r"~\[tnpos=r\]\{\\shortstack\[r\]\{([0-9.]+)\}\}", text)
    assert len(probs) == len(nodes)


@pytest.mark.parametrize("rec", BINARY, ids=lambda r: f"{r['dataset']}-{r['config']}")
def test_latex_structure_on_golden_binary_trees(rec):
    text = to_latex(model_from_record(rec))
    assert text.startswith("\\documentclass[12pt]{article}\n")
    assert text.endswith("\\end{center}\n\\end{document}\n")
    _check_latex_tree(text, rec, rec["summary_text"], rec["ycode"])


@pytest.mark.parametrize("rec", MULTI, ids=lambda r: f"{r['dataset']}-{r['config']}")
def test_latex_multiclass_one_tree_per_class(rec):
    model = model_from_record(rec)
    for k, cls in enumerate(rec["classes"]):
        text = to_latex(model, tree=k)
        assert text == to_latex(model.trees[k])  # R's plot(bs[[k + 1]])
        _check_latex_tree(text, cls, cls["summary_text"], cls["ycode"])
    everything = to_latex(model)
    assert everything.count("\\begin{center}\n \\psset") == len(rec["classes"])
    assert everything.count("\\newpage") == len(rec["classes"]) - 1
    assert everything.count("{") == everything.count("}")


def test_latex_root_only_tree_has_balanced_braces():
    # R writes two stray "}" lines here (for (j in 1:0)); pybsnsing writes none.
    rec = _record("SPECT", "nsgc")
    text = to_latex(model_from_record(rec))
    assert text.count("{") == text.count("}")
    assert "\n}\n" not in text
    assert "\\pstree" not in text
    assert "\\Tcircle[fillcolor=" in text


def test_latex_rule_substitutions():
    model = small_tree("a_b <= 1.5 | f%in%c('x','y') | g=='v' | h > 2 | k >= 3")
    text = to_latex(model)
    assert ("\\shortstack[r]{a.b $<$= 1.5\\\\ \\texttt{or} f in c('x','y')\\\\ \\texttt{or} "
            "g$=$'v'\\\\ \\texttt{or} h $>$ 2\\\\ \\texttt{or} k $>$= 3}") in text


def test_latex_options():
    model = small_tree()
    text = to_latex(model, class_labels=["N", "Y"], class_colors=("gray", "cyan"),
                    rule_font="tin", rule_color="black", footnote=True, landscape=True,
                    papersize="letter")
    assert "\\usepackage[landscape,letterpaper]{geometry}\n" in text
    assert "\\color{black} \\tiny \\shortstack[r]{x $<$ 1.5" in text
    assert "\\Tcircle[fillcolor=cyan,fillstyle=solid]{ 1 }" in text
    assert "\\texttt{Y}" in text and "\\texttt{N}" in text
    assert text.endswith("\\vfill\n\\footnotesize Generated by the R package \\textbf{bsnsing}. "
                         "At each internal (split) node, the left child answers ``yes''  and "
                         "the right child answers ``no'' to the split question.\n"
                         "\\end{document}\n")
    with pytest.raises(ValueError, match="rule_font must be one of .*; got 'huge'"):
        to_latex(model, rule_font="huge")
    with pytest.raises(ValueError, match="papersize must be one of .*; got 'b'"):
        to_latex(model, papersize="b")  # ambiguous prefix, as in R's match.arg
    with pytest.raises(ValueError, match=r"class_colors must have two colours, got \('red',\)"):
        to_latex(model, class_colors=("red",))


def test_latex_numeric_and_logical_labels_print_as_r():
    assert "\\texttt{0.5}" in to_latex(small_tree(ycode=(0.5, 2.0)))
    assert "\\texttt{2}" in to_latex(small_tree(ycode=(0.5, 2.0)))
    text = to_latex(small_tree(ycode=(False, True)))
    assert "\\texttt{TRUE}" in text and "\\texttt{FALSE}" in text


def test_latex_file_is_written_as_r_names_it(tmp_path):
    model = small_tree()
    text = to_latex(model, file=tmp_path / "my.tree.pdf")
    written = (tmp_path / "my.tex").read_text()
    assert written == "\n" + text  # R's file output starts with an empty line


# ---------------------------------------------------------------------------
# dot
# ---------------------------------------------------------------------------

_TOKEN = re.compile(r'"(?:[^"\\]|\\.)*"|->|[{}\[\];,=]|[A-Za-z_][A-Za-z_0-9]*|-?\d+(?:\.\d+)?|\S')


def check_dot_syntax(text: str) -> dict:
    """A small checker of the dot subset to_dot writes; returns nodes, edges, labels.

    Every quoted string must be closed, braces and brackets balanced, every
    statement a node, an edge or an attribute statement ending with ';'.
    """
    tokens = _TOKEN.findall(text)
    stray = [t for t in tokens if len(t) == 1 and t not in "{}[];,=" and not t.isalnum()]
    assert not stray, f"unexpected characters (an unclosed string?): {stray}"
    parts = re.split(r'("(?:[^"\\]|\\.)*")', text)
    assert "".join(tokens) == "".join(
        p if p.startswith('"') else re.sub(r"\s+", "", p) for p in parts)
    assert tokens[0] == "digraph" and tokens[2] == "{" and tokens[-1] == "}"
    nodes: dict[str, dict] = {}
    edges: list[tuple[str, str, dict]] = []
    i, depth = 3, 1

    def attrs(j: int) -> tuple[dict, int]:
        out = {}
        assert tokens[j] == "["
        j += 1
        while tokens[j] != "]":
            key, eq, value = tokens[j], tokens[j + 1], tokens[j + 2]
            assert eq == "=", tokens[j:j + 3]
            out[key] = value
            j += 3
            if tokens[j] == ",":
                j += 1
        return out, j + 1

    while i < len(tokens) - 1 or depth > 1:
        tok = tokens[i]
        if tok == "subgraph":
            assert tokens[i + 2] == "{"
            depth += 1
            i += 3
            continue
        if tok == "}":
            depth -= 1
            i += 1
            continue
        if tok in ("graph", "node", "edge"):
            _, i = attrs(i + 1)
        elif tokens[i + 1] == "=":
            i += 3
        elif tokens[i + 1] == "->":
            a, b = tok, tokens[i + 2]
            i += 3
            at = {}
            if tokens[i] == "[":
                at, i = attrs(i)
            edges.append((a, b, at))
        else:
            at, i = attrs(i + 1)
            nodes[tok] = at
        assert tokens[i] == ";", (tokens[i - 3:i + 2])
        i += 1
    assert depth == 1
    return {"nodes": nodes, "edges": edges}


def _unquote(s: str) -> str:
    assert s[0] == s[-1] == '"'
    return re.sub(r"\\(.)", lambda m: "\n" if m.group(1) == "n" else m.group(1), s[1:-1])


def _graphviz_accepts(text: str, tmp_path) -> None:
    exe = shutil.which("dot")
    if exe is not None:
        src = tmp_path / "t.dot"
        src.write_text(text)
        subprocess.run([exe, "-Tsvg", str(src), "-o", str(tmp_path / "t.svg")], check=True,
                       capture_output=True, timeout=60)
    try:
        import pydot
    except ImportError:
        return
    graphs = pydot.graph_from_dot_data(text)
    assert graphs and len(graphs) == 1


@pytest.mark.parametrize("rec", BINARY[:40], ids=lambda r: f"{r['dataset']}-{r['config']}")
def test_dot_on_golden_trees(rec, tmp_path):
    model = model_from_record(rec)
    text = model.to_dot()
    parsed = check_dot_syntax(text)
    assert len(parsed["nodes"]) == len(rec["nodes"])
    assert len(parsed["edges"]) == 2 * rec["n_splits"]
    by_number = {n["number"]: n for n in rec["nodes"]}
    for a, b, at in parsed["edges"]:
        parent, child = by_number[int(a[1:])], by_number[int(b[1:])]
        assert child["parent"] == parent["number"]
        assert _unquote(at["label"]) == ("yes" if child["number"] == parent["lchild"] else "no")
    for name, at in parsed["nodes"].items():
        nd = by_number[int(name[1:])]
        label = _unquote(at["label"])
        for question in filter(None, nd["split_rule"].split(" | ")):
            assert question in label
        assert f"n1 = {nd['n1']}, n0 = {nd['n0']}" in label
    _graphviz_accepts(text, tmp_path)


def test_dot_escapes_quotes_and_backslashes(tmp_path):
    rule = "Start=='13' | f=='say \"hi\"' | g=='a\\b'"
    text = to_dot(small_tree(rule, ycode=('n"o', "yes")))
    parsed = check_dot_syntax(text)
    label = _unquote(parsed["nodes"]["n0"]["label"])
    assert "Start=='13'" in label
    assert "or f=='say \"hi\"'" in label
    assert "or g=='a\\b'" in label
    assert 'n"o' in _unquote(parsed["nodes"]["n2"]["label"])
    _graphviz_accepts(text, tmp_path)


def test_dot_multiclass_clusters(tmp_path):
    rec = _record("iris", "default")
    model = model_from_record(rec)
    text = to_dot(model)
    parsed = check_dot_syntax(text)
    assert text.count("subgraph cluster_") == len(rec["classes"])
    assert len(parsed["nodes"]) == sum(len(c["nodes"]) for c in rec["classes"])
    assert "Tree 1: setosa vs. all.other" in text
    one = check_dot_syntax(to_dot(model, tree=2))
    assert len(one["nodes"]) == len(rec["classes"][2]["nodes"])
    _graphviz_accepts(text, tmp_path)
    out = tmp_path / "m.dot"
    assert to_dot(model, file=out) == out.read_text()


# ---------------------------------------------------------------------------
# matplotlib
# ---------------------------------------------------------------------------


def _all_text(fig) -> str:
    return "\n".join(t.get_text() for ax in fig.axes for t in ax.texts)


def _boxes(fig):
    """The node boxes drawn (FancyBboxPatch), as (x0, y0, x1, y1) in data points."""
    from matplotlib.patches import FancyBboxPatch

    out = []
    for ax in fig.axes:
        for p in ax.patches:
            if isinstance(p, FancyBboxPatch):
                out.append((id(ax), p.get_x(), p.get_y(), p.get_x() + p.get_width(),
                            p.get_y() + p.get_height(), p))
    return out


def _assert_no_overlap(fig):
    boxes = _boxes(fig)
    for i, a in enumerate(boxes):
        for b in boxes[i + 1:]:
            if a[0] != b[0]:
                continue
            overlap_x = min(a[3], b[3]) - max(a[1], b[1])
            overlap_y = min(a[4], b[4]) - max(a[2], b[2])
            assert overlap_x <= 1e-6 or overlap_y <= 1e-6, (a[1:5], b[1:5])


def _big_tree(depth: int = 7) -> BsnsingModel:
    """A complete tree of 2**depth leaves, rules with long cut points."""
    nodes = []
    counter = [0]

    def make(parent: int, d: int, n1: int, n0: int) -> int:
        number = counter[0]
        counter[0] += 1
        rec = _node(number, parent, -1, -1, n1, n0, depth=d)
        nodes.append(rec)
        if d < depth:
            rec["split_rule"] = (f"x{d} < {0.1234567890123 * (number + 1):.15g}"
                                 f" | z{d}=='level {number}'")
            rec["lchild"] = make(number, d + 1, n1 - n1 // 3, n0 // 3)
            rec["rchild"] = make(number, d + 1, n1 // 3, n0 - n0 // 3)
        return number

    make(-1, 0, 3000, 2000)
    nodes.sort(key=lambda r: r["number"])
    return _tree(nodes, ["no", "yes"])


@pytest.mark.parametrize("ext", ["png", "svg", "pdf"])
def test_plot_writes_file(tmp_path, ext):
    model = model_from_record(_record("kyphosis", "default"))
    before = plt.get_fignums()
    path = tmp_path / f"tree.{ext}"
    fig = plot_tree(model, path, dpi=80)
    assert plt.get_fignums() == before  # a figure for a file is not left in pyplot
    assert path.stat().st_size > 1000
    data = path.read_bytes()
    if ext == "png":
        img = mpimg.imread(path)
        w, h = fig.get_size_inches()
        # matplotlib's Agg canvas is int(inches * dpi) pixels
        assert img.shape[:2] == (int(h * 80), int(w * 80))
        assert img[..., :3].min() < 0.5  # something is drawn
    elif ext == "svg":
        assert b"<svg" in data[:2000]
    else:
        assert data.startswith(b"%PDF")


def test_plot_texts_nodes_leaves_and_legend():
    model = model_from_record(_record("kyphosis", "default"))
    fig = model.plot()
    texts = [t.get_text() for ax in fig.axes for t in ax.texts]
    # a split node: its number, n and the class mix (absent / present), then its rule
    for line in ("#0  n = 57 (45 / 12)", "Age < 39.5", "or Start >= 14.5",
                 "#2  n = 26 (14 / 12)", "Number < 4.5", "or Start=='13'"):
        assert line in texts, line
    # a leaf: the class it predicts and that class's probability (not P(class 1))
    assert "present" in texts and "p = 0.800" in texts and "#4  n = 10 (2 / 8)" in texts
    assert "#1  n = 31 (31 / 0)" in texts
    assert "p = 0.000" not in texts  # leaf 1 predicts absent with probability 1
    assert texts.count("p = 1.000") == 2  # leaves 1 and 6 (absent), p of their own class
    # the legend says what the numbers are
    text = "\n".join(texts)
    assert "class 0: absent" in text and "class 1: present" in text
    assert "n = training rows at the node (absent / present)" in text
    assert "p = share of a leaf's rows in its class" in text
    assert "yes (left branch): the rule holds" in text
    # leaves are filled with their class's colour, split nodes are white
    fills = {}
    for *_, patch in _boxes(fig):
        fills[matplotlib.colors.to_hex(patch.get_facecolor())] = True
    assert matplotlib.colors.to_hex("palegreen") in fills
    assert matplotlib.colors.to_hex("lightcoral") in fills
    assert matplotlib.colors.to_hex("white") in fills
    plt.close(fig)


@pytest.mark.parametrize("rec", BINARY[::7], ids=lambda r: f"{r['dataset']}-{r['config']}")
def test_plot_leaf_probability_is_that_of_the_predicted_class(rec):
    model = model_from_record(rec)
    fig = plot_tree(model, compact=False, legend=False)
    texts = [t.get_text() for ax in fig.axes for t in ax.texts]
    labels = [str(v) for v in rec["ycode"]]
    for nd in rec["nodes"]:
        if nd["lchild"] >= 0:
            continue
        n = nd["n1"] + nd["n0"]
        k = nd["class"]
        share = (nd["n1"] if k == 1 else nd["n0"]) / n
        i = texts.index(f"#{nd['number']}  n = {n} ({nd['n0']} / {nd['n1']})")
        assert texts[i - 1] == f"p = {share:.3f}"
        assert texts[i - 2] == labels[k].replace("$", r"\$")
    _assert_no_overlap(fig)
    plt.close(fig)


def test_plot_digits_of_cut_points():
    rec = _record("norm3p5", "ns5")
    model = model_from_record(rec)
    rule = rec["nodes"][0]["split_rule"]
    assert "-0.314214229999504" in rule  # R's 15 digits in the model
    text = _all_text(plot_tree(model))
    assert "x.1 < -0.3142" in text and "-0.314214229999504" not in text
    assert "x.1 < -0.31\n" in _all_text(plot_tree(model, digits=2)) + "\n"
    assert "x.1 < -0.314214229999504" in _all_text(plot_tree(model, digits=None))
    assert "-0.314214229999504" in str(model.summary())  # print/summary keep R's digits
    with pytest.raises(ValueError, match="digits must be at least 1, got 0"):
        plot_tree(model, digits=0)
    plt.close("all")


def test_format_rule_keeps_levels_and_odd_names():
    from pybsnsing.export.plot import format_rule

    assert format_rule("a < 1.23456789 | f=='x 1.23456789' | g%in%c('a','b')") == [
        "a < 1.235", "or f=='x 1.23456789'", "or g%in%c('a','b')"]
    assert format_rule("`petal length` >= 0.000123456") == ["`petal length` >= 0.0001235"]
    assert format_rule("n==3") == ["n==3"]
    assert format_rule("not a rule <<") == ["not a rule <<"]


def test_plot_max_depth_truncates():
    model = _big_tree(5)
    full = plot_tree(model)
    cut = plot_tree(model, max_depth=2)
    assert len(_boxes(full)) == 63
    assert len(_boxes(cut)) == 7
    text = _all_text(cut)
    assert text.count("+ 14 nodes below") == 4
    assert sum(p.get_linestyle() == "--" for *_, p in _boxes(cut)) == 4
    assert cut.get_size_inches()[0] < full.get_size_inches()[0]
    root_only = plot_tree(model, max_depth=0)
    assert len(_boxes(root_only)) == 1 and "+ 62 nodes below" in _all_text(root_only)
    with pytest.raises(ValueError, match="max_depth must be at least 0, got -1"):
        plot_tree(model, max_depth=-1)
    plt.close("all")


def test_plot_large_tree_stays_readable(tmp_path):
    model = _big_tree(7)  # 128 leaves
    fig = plot_tree(model, tmp_path / "big.png")
    w, h = fig.get_size_inches()
    assert w <= 20.0 + 1e-6  # max_width: a screen's width at 100 dpi
    assert h <= 80
    fonts = [t.get_fontsize() for ax in fig.axes for t in ax.texts]
    assert min(fonts) >= 0.8 * 7.0 - 1e-9  # no text below min_fontsize (edge labels: 0.8x)
    _assert_no_overlap(fig)
    img = mpimg.imread(tmp_path / "big.png")
    assert img.shape[1] == int(w * 100)
    # the golden tree with the most leaves (76, synthetic20k): also within a screen's width
    rec = max(BINARY, key=lambda r: r["n_leaves"])
    fig2 = plot_tree(model_from_record(rec))
    assert fig2.get_size_inches()[0] <= 20.0 + 1e-6
    assert min(t.get_fontsize() for ax in fig2.axes for t in ax.texts) >= 0.8 * 7.0 - 1e-9
    _assert_no_overlap(fig2)
    # a vertical layout on request: wider, with the same boxes
    vert = plot_tree(model_from_record(rec), orientation="vertical", max_width=1000)
    assert vert.get_size_inches()[0] > 20 and len(_boxes(vert)) == len(rec["nodes"])
    plt.close("all")


def test_plot_small_trees_are_vertical_and_grow_with_the_tree():
    small = plot_tree(model_from_record(_record("kyphosis", "default")))
    mid = plot_tree(model_from_record(_record("norm3p5", "ns5")))
    ws, hs = small.get_size_inches()
    wm, hm = mid.get_size_inches()
    assert ws < wm <= 20.0 + 1e-6
    assert hs < 8 and hm < 12
    # vertical: every child box lies below its parent's
    boxes = sorted(_boxes(small), key=lambda b: b[2])
    assert boxes[0][2] < boxes[-1][2]
    _assert_no_overlap(small)
    _assert_no_overlap(mid)
    plt.close("all")


def test_plot_figsize_and_dpi(tmp_path):
    model = small_tree()
    fig = plot_tree(model, tmp_path / "a.png", figsize=(3, 2), dpi=50)
    assert mpimg.imread(tmp_path / "a.png").shape[:2] == (100, 150)
    assert tuple(fig.get_size_inches()) == (3, 2)
    _assert_no_overlap(fig)
    big = plot_tree(_big_tree(6), tmp_path / "b.png", figsize=(8, 6))
    assert tuple(big.get_size_inches()) == (8, 6)
    for ax in big.axes:  # the drawing fits the figure
        x0, x1 = ax.get_xlim()
        assert x1 > x0


def test_plot_multiclass_panels(tmp_path):
    rec = _record("iris", "default")
    model = model_from_record(rec)
    fig = plot_tree(model, tmp_path / "m.png")
    assert len(fig.axes) == len(rec["classes"])
    text = _all_text(fig)
    for k, level in enumerate(rec["ylevels"]):
        assert f"Tree {k + 1}: {level} vs. all.other" in text
        assert f"class 1: {level}" in text
    assert text.count("p = share of a leaf's rows in its class") == 1  # explained once
    img = mpimg.imread(tmp_path / "m.png")
    w, h = fig.get_size_inches()
    assert img.shape[:2] == (int(h * 100), int(w * 100))
    one = plot_tree(model, tree=1)
    assert len(one.axes) == 1 and "Tree 2: versicolor vs. all.other" in _all_text(one)
    plt.close(one)
    with pytest.raises(IndexError, match="tree index 5 out of range for 3 class trees"):
        plot_tree(model, tree=5)


def test_plot_into_given_axes(tmp_path):
    model = small_tree()
    fig, ax = plt.subplots()
    assert plot_tree(model, ax=ax) is fig
    assert any("x < 1.5" in t.get_text() for t in ax.texts)
    plt.close(fig)
    multi = model_from_record(_record("iris", "default"))
    fig, axes = plt.subplots(3, 1)
    assert plot_tree(multi, tmp_path / "x.png", ax=axes) is fig
    assert (tmp_path / "x.png").stat().st_size > 0
    with pytest.raises(ValueError, match="need 3 axes for this model, got 2"):
        plot_tree(multi, ax=axes[:2])
    plt.close(fig)


def test_plot_odd_texts_and_root_only(tmp_path):
    # '$' would start matplotlib mathtext; it must come out as typed
    model = small_tree("f=='a$b' | g=='c$d'", ycode=("$x", "y_1"))
    fig = plot_tree(model, tmp_path / "odd.png")
    assert "or g=='c\\$d'" in _all_text(fig)
    root_only = model_from_record(_record("SPECT", "nsgc"))
    plot_tree(root_only, tmp_path / "root.png")
    assert mpimg.imread(tmp_path / "root.png").size > 0
    with pytest.raises(ValueError, match="orientation must be 'auto', 'vertical' or 'horizontal'"):
        plot_tree(model, orientation="sideways")


def test_plot_without_matplotlib_names_the_extra(tmp_path):
    code = (
        "import sys; sys.modules['matplotlib'] = None\n"
        "import pybsnsing\n"
        "from pybsnsing.datasets import load_dataset\n"
        "m = pybsnsing.bsnsing('Kyphosis ~ .', load_dataset('kyphosis'))\n"
        "try:\n"
        "    m.plot('t.png')\n"
        "except ImportError as e:\n"
        "    assert isinstance(e, pybsnsing.PybsnsingImportError), type(e)\n"
        "    print('MSG', e)\n"
        "print(m.to_latex()[:10])\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         cwd=tmp_path, timeout=300,
                         env={**os.environ, "PYBSNSING_QUIET_COMPILE": "1"})
    assert out.returncode == 0, out.stderr
    assert 'pip install "pybsnsing[plot]"' in out.stdout
    assert "Traceback" not in out.stderr


def test_plot_fitted_model_with_missing_values(tmp_path):
    import pybsnsing

    rng = np.random.default_rng(0)
    n = 120
    df = pd.DataFrame({"x": rng.normal(size=n), "f": rng.choice(["a", "b", "c"], size=n)})
    df["y"] = np.where(df["x"] + (df["f"] == "b") > 0.5, "pos", "neg")
    df.loc[::7, "x"] = np.nan
    df.loc[::11, "f"] = None
    model = pybsnsing.bsnsing("y ~ .", df, import_external=False)
    fig = model.plot(tmp_path / "fit.png")
    assert (tmp_path / "fit.png").stat().st_size > 0
    assert fig.axes
    new = pd.DataFrame({"x": [np.nan, 0.3], "f": ["zzz", None]})
    with warnings.catch_warnings(record=True):
        warnings.simplefilter("always")
        prob = model.predict(new)
    assert prob.shape == (2,)
    check_dot_syntax(model.to_dot())
    assert model.to_latex().count("{") == model.to_latex().count("}")
