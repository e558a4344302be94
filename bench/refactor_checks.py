"""The must-show figures of issue 14 ("one home for each concept"), read from the source.

Run from the repository root::

    python bench/refactor_checks.py            # all four figures
    python bench/refactor_checks.py --no-dup   # without the duplicates count

Prints:

* functions outside ``pybsnsing/kernels/`` longer than ``--max-lines`` (80) lines, each
  marked ``exception: <reason>`` when it is in ``EXCEPTIONS`` below;
* import cycles among pybsnsing's modules, counting imports inside functions too (and,
  separately, module-level imports only); a package's ``__init__`` importing its own
  submodules is the normal re-export pattern and is not an edge;
* private names (``_x``) imported from another pybsnsing module (a private *module*,
  ``from . import _engine``, is allowed);
* the number of pairs the ``duplicates`` command lists for ``pybsnsing/``.

Exits 0 always: it reports figures, it does not judge them.
"""

from __future__ import annotations

import argparse
import ast
import re
import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PKG = ROOT / "pybsnsing"

#: functions allowed above the length limit, with the reason (``path:name`` relative to
#: the repository root)
EXCEPTIONS: dict[str, str] = {}


def _trees() -> dict[Path, ast.Module]:
    return {p: ast.parse(p.read_text(), str(p)) for p in sorted(PKG.rglob("*.py"))}


def long_functions(trees: dict[Path, ast.Module], limit: int) -> list[tuple[int, str]]:
    """(lines, "path:line name") of the functions longer than ``limit`` lines."""
    rows = []
    for path, tree in trees.items():
        if "kernels" in path.relative_to(PKG).parts:
            continue
        for node in ast.walk(tree):
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                n = node.end_lineno - node.lineno + 1
                if n > limit:
                    rows.append((n, f"{path.relative_to(ROOT)}:{node.lineno} {node.name}"))
    return sorted(rows, reverse=True)


def _module_names(trees: dict[Path, ast.Module]) -> dict[str, Path]:
    out = {}
    for path in trees:
        parts = path.relative_to(ROOT).with_suffix("").parts
        out[".".join(parts[:-1] if parts[-1] == "__init__" else parts)] = path
    return out


def _import_targets(node: ast.AST, module: str, is_pkg: bool, mods: dict[str, Path]
                    ) -> list[str]:
    """The pybsnsing modules an import statement loads (the most specific one)."""
    if isinstance(node, ast.Import):
        return [a.name for a in node.names if a.name in mods]
    if not isinstance(node, ast.ImportFrom):
        return []
    if node.level:
        parts = module.split(".")
        if not is_pkg:
            parts = parts[:-1]
        if node.level > 1:
            parts = parts[: len(parts) - (node.level - 1)]
        base = ".".join(parts + ([node.module] if node.module else []))
    else:
        base = node.module or ""
    out = []
    for a in node.names:
        full = f"{base}.{a.name}"
        target = full if full in mods else base
        if target in mods:
            out.append(target)
    return out


def import_graph(trees: dict[Path, ast.Module], top_only: bool) -> dict[str, set[str]]:
    """Module -> modules it imports (module level only with ``top_only``; imports under
    ``if TYPE_CHECKING:`` never count)."""
    mods = _module_names(trees)
    path_mod = {p: m for m, p in mods.items()}
    edges: dict[str, set[str]] = {m: set() for m in mods}
    for path, tree in trees.items():
        m = path_mod[path]
        is_pkg = path.name == "__init__.py"
        skip: set[int] = set()
        for node in ast.walk(tree):  # TYPE_CHECKING blocks
            if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test):
                skip.update(id(n) for n in ast.walk(node))
        nodes = tree.body if top_only else list(ast.walk(tree))
        for node in nodes:
            if id(node) in skip:
                continue
            for t in _import_targets(node, m, is_pkg, mods):
                if t != m and not (is_pkg and t.startswith(m + ".")):
                    edges[m].add(t)
    return edges


def cycles(edges: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan, iterative)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on: set[str] = set()
    out: list[list[str]] = []
    counter = 0
    for root in edges:
        if root in index:
            continue
        work = [(root, iter(sorted(edges[root])))]
        index[root] = low[root] = counter
        counter += 1
        stack.append(root)
        on.add(root)
        while work:
            v, it = work[-1]
            w = next(it, None)
            if w is not None:
                if w not in index:
                    index[w] = low[w] = counter
                    counter += 1
                    stack.append(w)
                    on.add(w)
                    work.append((w, iter(sorted(edges[w]))))
                elif w in on:
                    low[v] = min(low[v], index[w])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[v])
            if low[v] == index[v]:
                comp = []
                while True:
                    w = stack.pop()
                    on.discard(w)
                    comp.append(w)
                    if w == v:
                        break
                if len(comp) > 1:
                    out.append(sorted(comp))
    return out


def private_imports(trees: dict[Path, ast.Module]) -> list[str]:
    """``path:line: from X import _name`` for private names taken from another module."""
    out = []
    for path, tree in trees.items():
        for node in ast.walk(tree):
            if not isinstance(node, ast.ImportFrom):
                continue
            if not (node.level > 0 or (node.module or "").startswith("pybsnsing")):
                continue
            for a in node.names:
                if not a.name.startswith("_") or a.name.startswith("__"):
                    continue
                base = path.parent
                for _ in range(max(node.level - 1, 0)):
                    base = base.parent
                target = base / (node.module or "").replace(".", "/") / a.name
                if target.with_suffix(".py").exists() or target.is_dir():
                    continue  # a private submodule
                out.append(f"{path.relative_to(ROOT)}:{node.lineno}: from "
                           f"{'.' * node.level}{node.module or ''} import {a.name}")
    return out


def duplicate_pairs(seconds: int) -> str:
    """The first line of ``duplicates --repo pybsnsing`` (the pair count)."""
    exe = shutil.which("duplicates")
    if exe is None:
        return "duplicates: command not found"
    res = subprocess.run([exe, "--repo", str(PKG), "--most", "200", "--seconds", str(seconds)],
                         capture_output=True, text=True, cwd=ROOT, check=False)
    lines = res.stdout.splitlines()
    head = lines[0] if lines else res.stderr.strip()
    extra = [ln for ln in lines if ln.startswith("incomplete:")]
    return "\n".join([head, *extra])


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--max-lines", type=int, default=80)
    ap.add_argument("--no-dup", action="store_true", help="skip the duplicates count")
    ap.add_argument("--seconds", type=int, default=120, help="time for duplicates")
    args = ap.parse_args(argv)
    trees = _trees()

    rows = long_functions(trees, args.max_lines)
    listed = 0
    print(f"== functions outside pybsnsing/kernels/ longer than {args.max_lines} lines")
    for n, where in rows:
        key = re.sub(r":\d+ ", ":", where)
        reason = EXCEPTIONS.get(key)
        listed += reason is not None
        print(f"  {n:4d} {where}" + (f"  (exception: {reason})" if reason else ""))
    print(f"  {len(rows)} functions, {listed} of them listed exceptions, "
          f"{len(rows) - listed} to split")

    for top_only, label in ((False, "all imports (function-level too)"),
                            (True, "module-level imports")):
        groups = cycles(import_graph(trees, top_only))
        print(f"== import cycles, {label}: {len(groups)} cycle group(s)")
        for g in groups:
            print("   ", ", ".join(g))

    priv = private_imports(trees)
    print(f"== private names imported across modules: {len(priv)}")
    for line in priv:
        print("   ", line)

    if not args.no_dup:
        print("== duplicates (pybsnsing/)")
        print("   ", duplicate_pairs(args.seconds).replace("\n", "\n    "))
    return 0


if __name__ == "__main__":
    sys.exit(main())
