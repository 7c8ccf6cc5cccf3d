"""Ground-truth bench, the judge's blind spot: findings that line tracing cannot refute. No torch.

The bench knows which *lines* Dynamo traced (``trace_source``), not which expressions. A finding on a
traced line with no break there is a false positive only if the flagged expression itself ran. That
holds for most findings, but not for one that sits behind a guard written on the same line::

    if self.self_condition and random() < 0.5:   # traced; random() ran only if self_condition
    if verbose: warn("...")                       # traced; warn() ran only if verbose
    x = f(a) if a is not None else g()            # traced; one of f, g did not run

There the line is traced whether the guarded expression ran or not, so the run neither confirms nor
refutes the finding. ``guarded_in_line`` says whether a finding's span is such an expression: an
operand of ``and`` / ``or`` after the first, a branch of a conditional expression, the body of a
one-line ``if`` / ``while`` / ``for``, a comprehension's element or condition, or a lambda's body,
where the guard (the earlier operands, the test, the iterable) shares a line with the finding. The
scoring (``gt_score.score``) leaves such findings out of precision both ways, true or false, and
still lets them cover break sites for recall. A guard on an earlier line does not count: the
finding's own line then runs only when the guard let it.

Part of the harness run by ``python bench/groundtruth/groundtruth.py`` (see ``README.md``).
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from functools import lru_cache
from pathlib import Path

Span = tuple[int, int, int, int]  # start line, start column, end line, end column (1-based lines, 0-based UTF-8 columns)


@lru_cache(maxsize=256)
def _tree(path: str) -> tuple[ast.AST | None, tuple[str, ...]]:
    try:
        source = Path(path).read_text(encoding="utf-8")
        return ast.parse(source), tuple(source.splitlines())
    except (OSError, SyntaxError, UnicodeDecodeError, ValueError):
        return None, ()


def _span(node: ast.AST) -> Span | None:
    line, column = getattr(node, "lineno", None), getattr(node, "col_offset", None)
    end_line, end_column = getattr(node, "end_lineno", None), getattr(node, "end_col_offset", None)
    if line is None or column is None or end_line is None or end_column is None:
        return None  # ``arguments``, ``comprehension``, a module: no position of their own
    return line, column, end_line, end_column


def _lines(node: ast.AST) -> set[int]:
    span = _span(node)
    return set(range(span[0], span[2] + 1)) if span else set()


def _contains(outer: Span, inner: Span) -> bool:
    return outer[:2] <= inner[:2] and inner[2:] <= outer[2:]


def _guarded_children(node: ast.AST) -> Iterator[tuple[set[int], list[ast.AST]]]:
    """For each part of ``node`` that runs only when an earlier part allows it: (the lines of the
    guard, the guarded parts)."""
    if isinstance(node, ast.BoolOp):
        for index in range(1, len(node.values)):
            yield set().union(*map(_lines, node.values[:index])), [node.values[index]]
    elif isinstance(node, ast.IfExp):
        yield _lines(node.test), [node.body, node.orelse]
    elif isinstance(node, (ast.If, ast.While)):
        yield _lines(node.test), [*node.body, *node.orelse]
    elif isinstance(node, (ast.For, ast.AsyncFor)):
        yield _lines(node.iter), [*node.body, *node.orelse]
    elif isinstance(node, (ast.ListComp, ast.SetComp, ast.GeneratorExp, ast.DictComp)):
        elements = [node.key, node.value] if isinstance(node, ast.DictComp) else [node.elt]
        conditions = [condition for generator in node.generators for condition in generator.ifs]
        later = [generator.iter for generator in node.generators[1:]]
        yield set().union(*(_lines(g.iter) for g in node.generators)), [*elements, *conditions, *later]
    elif isinstance(node, ast.Lambda):  # the body runs when the function is called, not where it is written
        yield {node.lineno}, [node.body]


def _column(lines: tuple[str, ...], line: int, character: int) -> int:
    """A 1-based character column (as findings give it) as ast's 0-based UTF-8 byte offset."""
    text = lines[line - 1] if 0 < line <= len(lines) else ""
    return len(text[: max(character - 1, 0)].encode("utf-8"))


def guarded_in_line(path: str, line: int, column: int, end_line: int, end_column: int) -> bool:
    """Whether the expression at ``path`` from ``line:column`` to ``end_line:end_column`` (1-based
    characters, as dynalint reports them) runs only behind a guard that shares a line with it."""
    tree, lines = _tree(path)
    if tree is None:
        return False
    target: Span = (line, _column(lines, line, column), end_line, _column(lines, end_line, end_column))
    finding_lines = set(range(line, end_line + 1))
    node: ast.AST = tree
    while True:
        for guards, guarded in _guarded_children(node):
            for part in guarded:
                span = _span(part)
                if span and _contains(span, target) and guards & finding_lines:
                    return True
        inner = [child for child in ast.iter_child_nodes(node) if (span := _span(child)) and _contains(span, target)]
        if not inner:
            return False
        node = inner[0]
