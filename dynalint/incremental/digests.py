"""What a linted file's findings depend on, as one digest: the key of its entry in the findings cache.

Used by the pipeline's lint stage (``pipeline/stages.py``), after the program is linked. A file's findings are a function of its
text, the rules run on it (and the settings they read), and the answers the linked program gives
about it. The digest covers each of those:

- the file's content hash and display name, the rules selected for it and the config;
- its compiled regions, each with its why-chain (a caller elsewhere that starts or stops compiling
  one of its functions changes this, even when no file it imports changed);
- the parameters of its compiled functions that every caller passes a Python value or a boolean mask
  (callers live in files that import this one, which the import closure does not cover);
- the Dynamo settings in force for the tree;
- the content of every module it imports, transitively (``ImportClosure``): calls, bases, attribute
  types, ``disable`` aliases and re-exports are all resolved through imports, so whatever the program
  can answer about the file comes from those modules.

It over-approximates (an edit anywhere in an imported module invalidates the file) and never
under-approximates, so a cached finding is always the one a fresh lint would give.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING

from dynalint.analysis.program import Program
from dynalint.model.finding import Region

if TYPE_CHECKING:
    from dynalint.project.config import Config


class ImportClosure:
    """Per module, one digest of the content of the modules it imports, directly or not (itself included).

    Computed over the import graph's strongly connected components (modules that import each other
    share one closure), each component once, so a whole tree costs one pass over its imports.
    """

    def __init__(self, program: Program, contents: Mapping[str, str]) -> None:
        self.program = program
        self._contents = contents
        self._direct: dict[str, frozenset[str]] = {}
        self._digest: dict[str, str] = {}
        self._reached: dict[str, frozenset[str]] = {}  # per module: every module its closure holds

    def digest(self, module: str) -> str:
        if module not in self._digest:
            self._close_from(module)
        return self._digest[module]

    def _close_from(self, start: str) -> None:
        """Tarjan's algorithm, iterative, from ``start``: digests every component reachable from it."""
        index: dict[str, int] = {}
        low: dict[str, int] = {}
        stack: list[str] = []
        on_stack: set[str] = set()
        work = [(start, iter(sorted(self._imports(start))))]
        index[start] = low[start] = 0
        stack.append(start)
        on_stack.add(start)
        while work:
            node, successors = work[-1]
            advanced = False
            for successor in successors:
                if successor in self._digest:
                    continue  # a component finished by an earlier call
                if successor not in index:
                    index[successor] = low[successor] = len(index)
                    stack.append(successor)
                    on_stack.add(successor)
                    work.append((successor, iter(sorted(self._imports(successor)))))
                    advanced = True
                    break
                if successor in on_stack:
                    low[node] = min(low[node], index[successor])
            if advanced:
                continue
            work.pop()
            if work:
                parent = work[-1][0]
                low[parent] = min(low[parent], low[node])
            if low[node] == index[node]:
                members = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    members.append(member)
                    if member == node:
                        break
                reached = set(members)
                for member in members:
                    for imported in self._imports(member):
                        if imported not in reached:  # finished before this component: its closure is known
                            reached |= self._reached[imported]
                closed = frozenset(reached)
                text = repr(sorted((name, self._contents.get(name, "")) for name in reached))
                digest = hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()
                for member in members:
                    self._digest[member] = digest
                    self._reached[member] = closed

    def _imports(self, module: str) -> frozenset[str]:
        """Modules of the tree that ``module`` names in an import (each package on the way included)."""
        if module not in self._direct:
            summary = self.program.modules.get(module)
            found: set[str] = set()
            if summary is not None:
                for target in summary.imports.aliases.values():
                    parts = target.split(".")
                    found.update(
                        prefix for prefix in (".".join(parts[:n]) for n in range(1, len(parts) + 1))
                        if prefix in self.program.modules and prefix != module
                    )
            self._direct[module] = frozenset(found)
        return self._direct[module]


def settings_key(program: Program, config: Config) -> str:
    """What every file of one run shares: the config's Dynamo settings and the tree's, the compile entry
    points the config declares, and the attributes the tree keeps hooks' handles in (DYN511 reads them in any
    file; computed once per run)."""
    return repr((config.dynamo, config.target_torch, config.max_file_seconds, config.compiled, program.settings,
                 sorted(program.hook_handles[0]), sorted(program.hook_handles[1])))


def findings_digest(
    display: str,
    content: str,
    module: str,
    rule_codes: Sequence[str],
    regions: Sequence[tuple[str, Region]],
    settings: str,
    closure: ImportClosure,
) -> str:
    parts = [
        display,
        content,
        ",".join(rule_codes),
        settings,
        repr(sorted(regions, key=lambda pair: pair[0])),
        closure.digest(module),
        repr(sorted((name, sorted(closure.program.passed_python(name)), sorted(closure.program.passed_masks(name)))
                    for name, _ in regions)),
    ]
    return hashlib.sha256("\x00".join(parts).encode("utf-8", "surrogatepass")).hexdigest()
