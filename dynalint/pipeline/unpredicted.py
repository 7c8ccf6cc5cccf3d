"""After ``--verify``: say why a break no rule predicted (DYN090) went unpredicted, where the linter can tell.

A DYN090 finding on a line of a function the static stage did not take for compiled code (no compile site
in the linted files reaches it: it is compiled through a factory, a callback, a registry) may still hold a
pattern a rule knows. Its file is linted once more, alone, with that function declared compiled (the
``compiled`` config key does the same for users); the rules that then flag the line are named in the
message: "DYN101 matches this line; this function was not seen as compiled (why)". No torch here.
"""

from __future__ import annotations

import ast
import dataclasses
from collections.abc import Sequence
from pathlib import Path

from dynalint.model.finding import Finding
from dynalint.pipeline.run import lint_texts
from dynalint.project import files
from dynalint.project.config import Config

OBSERVED_BREAK = "DYN090"


def explain(findings: Sequence[Finding], config: Config) -> list[Finding]:
    """The findings, each DYN090 outside a compiled function told which rules match its line."""
    return [_explained(f, config) if f.code == OBSERVED_BREAK and f.region is None and f.verify is not None
            and f.verify.break_in is None else f for f in findings]


def _explained(finding: Finding, config: Config) -> Finding:
    path = Path(finding.filename)
    text = files.read_source(path, finding.filename, config.max_file_kb) if path.is_file() else None
    if not isinstance(text, str):
        return finding
    qualname = _function_at(text, finding.start.line)
    if qualname is None:
        return finding
    source = files.source_file(path, finding.filename)
    declared = dataclasses.replace(config, compiled=(*config.compiled, f"{source.module}:{qualname}"))
    matching = sorted({f.code for f in lint_texts([(source, text)], declared).findings
                       if f.start.line <= finding.start.line <= f.end.line and f.code.startswith("DYN")
                       and not f.code.startswith("DYN9")})
    if not matching:
        return finding
    codes = ", ".join(matching)
    why = (f"no compile site in the linted files reaches `{qualname}`; declare it in the `compiled` config key "
           f"to lint it as compiled")
    observed = finding.message.replace(" and no rule predicted it", "")  # a rule does: it was not asked
    return dataclasses.replace(finding, message=f"{codes} {'matches' if len(matching) == 1 else 'match'} this line; "
                                                f"this function was not seen as compiled ({why}). {observed}")


def _function_at(text: str, line: int) -> str | None:
    """``Class.method`` (or ``function``) of the innermost function holding ``line``."""
    try:
        tree = ast.parse(text)
    except (SyntaxError, ValueError):
        return None
    found: list[tuple[int, str]] = []

    def walk(body: Sequence[ast.stmt], prefix: str) -> None:
        for node in body:
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                name = f"{prefix}{node.name}"
                if isinstance(node, ast.ClassDef):
                    walk(node.body, f"{name}.")
                elif node.lineno <= line <= (node.end_lineno or node.lineno):
                    found.append((node.lineno, name))
                    walk(node.body, f"{name}.")

    walk(tree.body, "")
    return max(found)[1] if found else None
