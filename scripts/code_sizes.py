"""The sizes of a source tree, as the design reviews count them: modules, the median module,
modules over 300 and 500 lines, functions over 60 lines, and import cycles between modules.

Usage: ``python scripts/code_sizes.py [ROOT ...]`` (default: ``src/cbeal``; the studies'
package too where it is there). Prints one Markdown table; exits 1 if there is an import
cycle or a module over 500 lines.

An import counts for a cycle when it runs as the module loads (a top-level ``import``,
not one inside a function or under ``if TYPE_CHECKING``): those are the ones that order
loading. A second count adds the imports inside functions: an import deferred to break a
cycle still ties the two modules together.
"""

from __future__ import annotations

import ast
import statistics
import sys
from pathlib import Path


def _module_name(path: Path, root: Path) -> str:
    parts = [root.name, *path.relative_to(root).with_suffix("").parts]
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _imports(
    tree: ast.Module, name: str, is_package: bool, *, deferred: bool
) -> set[tuple[str, str]]:
    """(module, name) pairs: ``from m import n`` gives (m, n), ``import m`` gives (m, "");
    the load-time ones, or (`deferred`) those inside functions too."""
    found: set[tuple[str, str]] = set()
    base = name.split(".") if is_package else name.split(".")[:-1]
    for node in tree.body:
        if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test):
            continue
        inner: list[ast.AST] = list(ast.walk(node)) if deferred else [node]
        if not deferred and isinstance(node, ast.Try):
            inner = list(node.body)
        for sub in inner:
            if isinstance(sub, ast.Import):
                found |= {(a.name, "") for a in sub.names}
            elif isinstance(sub, ast.ImportFrom):
                if sub.level:
                    up = base[: len(base) - sub.level + 1]
                    mod = ".".join(up + ([sub.module] if sub.module else []))
                else:
                    mod = sub.module or ""
                found |= {(mod, a.name) for a in sub.names}
    return found


def _cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components of more than one module (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on: set[str] = set()
    out: list[list[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on.add(v)
        for w in graph[v]:
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
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

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return out


def measure(roots: list[Path]) -> dict[str, object]:
    lines: dict[str, int] = {}
    long_functions: list[tuple[str, int]] = []
    imports: dict[str, set[tuple[str, str]]] = {}
    deferred: dict[str, set[tuple[str, str]]] = {}
    for root in roots:
        for path in sorted(root.rglob("*.py")):
            if "migrations" in path.parts and "versions" in path.parts:
                continue  # generated schema steps, not design
            text = path.read_text()
            name = _module_name(path, root)
            lines[name] = len(text.splitlines())
            tree = ast.parse(text)
            package = path.name == "__init__.py"
            imports[name] = _imports(tree, name, package, deferred=False)
            deferred[name] = _imports(tree, name, package, deferred=True)
            for node in ast.walk(tree):
                if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                    size = (node.end_lineno or node.lineno) - node.lineno + 1
                    if size > 60:
                        long_functions.append((f"{name}.{node.name}", size))

    # `from package import submodule` imports the submodule (its package is only the way)
    def graph(found: dict[str, set[tuple[str, str]]]) -> dict[str, set[str]]:
        return {
            m: {f"{i}.{n}" if f"{i}.{n}" in lines else i for i, n in deps} & set(lines) - {m}
            for m, deps in found.items()
        }

    sizes = list(lines.values())
    return {
        "modules": len(sizes),
        "lines": sum(sizes),
        "median": statistics.median(sizes),
        "over_300": sorted((n, s) for n, s in lines.items() if s > 300),
        "over_500": sorted((n, s) for n, s in lines.items() if s > 500),
        "functions_over_60": sorted(long_functions, key=lambda x: -x[1]),
        "cycles": _cycles(graph(imports)),
        "cycles_deferred": _cycles(graph(deferred)),
    }


def main(argv: list[str]) -> int:
    roots = [Path(a) for a in argv] or [
        p for p in (Path("src/cbeal"), Path("studies/src/cbeal_studies")) if p.is_dir()
    ]
    m = measure(roots)
    print("| measure | value |\n|---|---|")
    print(f"| modules | {m['modules']} ({m['lines']} lines) |")
    print(f"| median module | {m['median']:g} lines |")
    for key, label in (("over_300", "> 300 lines"), ("over_500", "> 500 lines")):
        found = m[key]
        assert isinstance(found, list)
        names = ", ".join(f"{n} ({s})" for n, s in found)
        print(f"| modules {label} | {len(found)}{': ' + names if names else ''} |")
    funcs = m["functions_over_60"]
    assert isinstance(funcs, list)
    print(f"| functions > 60 lines | {len(funcs)}: " + ", ".join(f"{n} ({s})" for n, s in funcs))
    cycles = m["cycles"]
    assert isinstance(cycles, list)
    shown = "; ".join(" ↔ ".join(c) for c in cycles)
    print(f"| import cycles at load | {len(cycles)}{': ' + shown if shown else ''} |")
    late = m["cycles_deferred"]
    assert isinstance(late, list)
    shown = "; ".join(" ↔ ".join(c) for c in late)
    print(f"| cycles, imports in functions too | {len(late)}{': ' + shown if shown else ''} |")
    return 1 if cycles or m["over_500"] else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
