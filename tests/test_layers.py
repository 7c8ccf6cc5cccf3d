"""The house's rule: wings import only wings below them, and nothing imports in a circle.

Every import of ``dynalint/`` counts: module level, inside functions, under ``TYPE_CHECKING``. The wing
order is read from ARCHITECTURE.md (its ``Wing order:`` line), so the map and this test cannot drift
apart. Two wings on one level (``editor, census``) may not import each other; the top level
(``dynalint/__init__.py``, ``__main__.py``, ``cli.py``, ``api.py``) may import any wing.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = ROOT / "dynalint"
TOP = "top"


def wing_order(text: str) -> list[set[str]]:
    """``Wing order: a < b < c, d < top`` -> [{a}, {b}, {c, d}, {top}]."""
    line = re.search(r"^Wing order:\s*(.+)$", text, re.MULTILINE)
    assert line, "ARCHITECTURE.md states the wing order on a line starting with 'Wing order:'"
    return [{name.strip().strip("`") for name in level.split(",")} for level in line.group(1).split("<")]


def module_name(path: Path, root: Path = ROOT) -> str:
    parts = list(path.relative_to(root).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def imports_of(path: Path, modules: set[str], root: Path = ROOT) -> set[str]:
    """Every ``dynalint`` module ``path`` imports, wherever the import statement stands."""
    name = module_name(path, root)
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parent = package.split(".")[: len(package.split(".")) - (node.level - 1)]
                base = ".".join([*parent, *([node.module] if node.module else [])])
            for alias in node.names:  # ``from dynalint.x import y``: y may be a module itself
                found.add(f"{base}.{alias.name}" if f"{base}.{alias.name}" in modules else base)
    return {m for m in found if m in modules and m != name}


def wing_of(module: str) -> str:
    parts = module.split(".")
    if len(parts) == 1 or (len(parts) == 2 and (PACKAGE / f"{parts[1]}.py").is_file()):
        return TOP
    return parts[1]


@pytest.fixture(scope="module")
def graph() -> dict[str, set[str]]:
    paths = sorted(PACKAGE.rglob("*.py"))
    modules = {module_name(p) for p in paths}
    return {module_name(p): imports_of(p, modules) for p in paths}


@pytest.fixture(scope="module")
def levels() -> dict[str, int]:
    order = wing_order((ROOT / "ARCHITECTURE.md").read_text(encoding="utf-8"))
    return {wing: index for index, names in enumerate(order) for wing in names}


def test_every_wing_has_a_place_in_the_order(graph: dict[str, set[str]], levels: dict[str, int]) -> None:
    assert {wing_of(m) for m in graph} - set(levels) == set()
    assert levels[TOP] == max(levels.values())


def test_at_most_five_modules_stand_at_the_top() -> None:
    assert len(list(PACKAGE.glob("*.py"))) <= 5


def test_no_wing_imports_one_above_it_or_beside_it(graph: dict[str, set[str]], levels: dict[str, int]) -> None:
    upward = [
        f"{module} ({wing_of(module)}) imports {imported} ({wing_of(imported)})"
        for module, imported_set in graph.items() for imported in sorted(imported_set)
        if wing_of(module) != TOP and wing_of(imported) != wing_of(module)
        and levels[wing_of(imported)] >= levels[wing_of(module)]
    ]
    assert upward == []


def test_no_import_cycles(graph: dict[str, set[str]]) -> None:
    assert cycles(graph) == []


def cycles(graph: dict[str, set[str]]) -> list[tuple[str, ...]]:
    """The modules that import themselves through others, grouped by the set they go round in."""
    def reachable(start: str) -> set[str]:
        seen, todo = set(), list(graph[start])
        while todo:
            node = todo.pop()
            if node not in seen:
                seen.add(node)
                todo.extend(graph.get(node, ()))
        return seen

    reach = {module: reachable(module) for module in graph}
    looping = {module for module in graph if module in reach[module]}
    return sorted({tuple(sorted(m for m in looping if m in reach[module] and module in reach[m])) for module in looping})


def test_the_walk_sees_every_kind_of_import(tmp_path: Path) -> None:
    # The checks above are only as good as the import walk: each hidden spelling must be found.
    probe = tmp_path / "dynalint" / "analysis" / "probe.py"
    probe.parent.mkdir(parents=True)
    probe.write_text(
        "from typing import TYPE_CHECKING\n"
        "from dynalint.model import finding\n"
        "if TYPE_CHECKING:\n    from dynalint.pipeline import run\n"
        "def f():\n    import dynalint.output.progress\n    from ..lint import engine\n",
        encoding="utf-8",
    )
    expected = {"dynalint.model.finding", "dynalint.pipeline.run", "dynalint.output.progress", "dynalint.lint.engine"}
    modules = expected | {"dynalint.model", "dynalint.pipeline", "dynalint.output", "dynalint.lint"}
    assert imports_of(probe, modules, tmp_path) == expected


def test_a_cycle_is_found() -> None:
    graph = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}, "e": {"f"}, "f": {"e"}}
    assert cycles(graph) == [("a", "b", "c"), ("e", "f")]
