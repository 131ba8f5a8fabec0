"""The house's layout rules (issue 26), read from the code's own imports: no two modules of a
package import each other in a circle (directly or through others, at module level or inside a
function), and no module is over MAX_LINES lines. A new circle or an oversized module fails here
with the files that make it, so the folder tree keeps reading as the pipeline it implements.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
PACKAGES = {
    "docsmcp": REPO / "builder" / "docsmcp",
    "docsmcp_runtime": REPO / "runtime" / "docsmcp_runtime",
}
MAX_LINES = 600


def _modules(name: str, root: Path) -> dict[str, Path]:
    """Dotted module name -> file, for every .py file of the package (a package is its
    `__init__`)."""
    found = {}
    for path in sorted(root.rglob("*.py")):
        parts = [name, *path.relative_to(root).with_suffix("").parts]
        if parts[-1] == "__init__":
            parts.pop()
        found[".".join(parts)] = path
    return found


def _imports(module: str, path: Path, known: dict[str, Path]) -> set[str]:
    """The package's own modules that `module` imports, wherever the import statement stands."""
    is_package = path.name == "__init__.py"
    package = module if is_package else module.rpartition(".")[0]
    targets: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")
                base = base[: len(base) - (node.level - 1)]
                origin = ".".join([*base, *([node.module] if node.module else [])])
            else:
                origin = node.module or ""
            # `from a import b` imports the module a.b where there is one, else a name of a.
            names = [
                f"{origin}.{alias.name}" if f"{origin}.{alias.name}" in known else origin
                for alias in node.names
            ]
        else:
            continue
        for name in names:
            # `import a.b.c` names a.b.c; the nearest known module is the edge.
            while name and name not in known:
                name = name.rpartition(".")[0]
            if name and name != module:
                targets.add(name)
    return targets


def _circles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components of more than one module (Tarjan, iterative)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []
    for start in sorted(graph):
        if start in index:
            continue
        work = [(start, iter(sorted(graph[start])))]
        index[start] = low[start] = len(index)
        stack.append(start)
        on_stack.add(start)
        while work:
            node, children = work[-1]
            for child in children:
                if child not in index:
                    index[child] = low[child] = len(index)
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(graph[child]))))
                    break
                if child in on_stack:
                    low[node] = min(low[node], index[child])
            else:
                work.pop()
                if work:
                    low[work[-1][0]] = min(low[work[-1][0]], low[node])
                if low[node] == index[node]:
                    component = []
                    while True:
                        member = stack.pop()
                        on_stack.discard(member)
                        component.append(member)
                        if member == node:
                            break
                    if len(component) > 1:
                        found.append(sorted(component))
    return found


@pytest.mark.parametrize("package", sorted(PACKAGES))
def test_no_import_circles(package: str) -> None:
    known = _modules(package, PACKAGES[package])
    graph = {module: _imports(module, path, known) for module, path in known.items()}
    circles = _circles(graph)
    described = [
        " <-> ".join(c) + ": " + "; ".join(f"{m} -> {sorted(graph[m] & set(c))}" for m in c)
        for c in circles
    ]
    assert not circles, "modules that import each other in a circle:\n" + "\n".join(described)


@pytest.mark.parametrize("package", sorted(PACKAGES))
def test_no_module_over_the_size_limit(package: str) -> None:
    sizes = {
        str(path.relative_to(REPO)): len(path.read_text(encoding="utf-8").splitlines())
        for path in _modules(package, PACKAGES[package]).values()
    }
    over = {path: lines for path, lines in sorted(sizes.items()) if lines > MAX_LINES}
    assert not over, f"modules over {MAX_LINES} lines (split them by concern): {over}"


# The folders of sources/ in layers (issue 26): a format's reader knows its syntax, never one
# generator's site rules, a package's layout, the include pass or the folder layout: those sit
# above the readers and call them.
LOWER_FOLDERS = {
    "docsmcp.sources.formats": (
        "docsmcp.sources.sites",
        "docsmcp.sources.packages",
        "docsmcp.sources.inclusion",
        "docsmcp.sources.layout",
        "docsmcp.sources.navigation",
    ),
    # One generator's rules; the include pass, navigation and the folder layout call them.
    "docsmcp.sources.sites": (
        "docsmcp.sources.packages",
        "docsmcp.sources.inclusion",
        "docsmcp.sources.layout",
        "docsmcp.sources.navigation",
    ),
    # Which files of a package are pages; the include pass calls them for `include_str!`.
    "docsmcp.sources.packages": ("docsmcp.sources.inclusion", "docsmcp.sources.navigation"),
}


@pytest.mark.parametrize("lower", sorted(LOWER_FOLDERS))
def test_a_lower_folder_imports_nothing_above_it(lower: str) -> None:
    known = _modules("docsmcp", PACKAGES["docsmcp"])
    above = LOWER_FOLDERS[lower]
    wrong = {
        module: sorted(t for t in _imports(module, path, known) if t.startswith(above))
        for module, path in known.items()
        if module.startswith(lower + ".")
    }
    wrong = {module: targets for module, targets in wrong.items() if targets}
    assert not wrong, f"{lower} imports folders above it: {wrong}"


def _folder(module: str) -> str:
    """The folder a module belongs to for the folder rule: a subpackage of the package (and of
    `sources`, whose folders are the readers' layers), or a module of its own at the top."""
    parts = module.split(".")
    depth = 3 if parts[1:2] == ["sources"] else 2
    return ".".join(parts[:depth])


@pytest.mark.parametrize("package", sorted(PACKAGES))
def test_no_two_folders_import_each_other(package: str) -> None:
    """A folder is a stage or a layer: what two folders both need lives below both of them."""
    known = _modules(package, PACKAGES[package])
    edges: dict[tuple[str, str], list[str]] = {}
    for module, path in known.items():
        for target in _imports(module, path, known):
            pair = (_folder(module), _folder(target))
            if pair[0] != pair[1]:
                edges.setdefault(pair, []).append(f"{module} -> {target}")
    both = sorted(
        f"{a} <-> {b}: {edges[a, b][:3]} / {edges[b, a][:3]}"
        for a, b in edges
        if a < b and (b, a) in edges
    )
    assert not both, "folders that import each other:\n" + "\n".join(both)


def test_the_rules_see_a_circle() -> None:
    """The circle finder itself: a loop of three, a self-standing pair, and a tree."""
    graph = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"e"}, "e": {"d"}, "f": {"a"}, "g": set()}
    assert sorted(_circles(graph)) == [["a", "b", "c"], ["d", "e"]]
    assert _circles({"a": {"b"}, "b": set()}) == []
