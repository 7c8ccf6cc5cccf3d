"""Files stage helper: which paths git ignores, so that walking a folder skips them as ruff does.

Only inside a git work tree (a ``.git`` folder, or the ``.git`` file of a worktree or submodule, in
the path's folder or above it): outside one, ``.gitignore`` files mean nothing to git and nothing
here. Every ``.gitignore`` from the work tree's root down to the path's folder applies, each to the
paths below its own folder, plus ``.git/info/exclude``; a deeper file's verdict overrides a shallower
one's, and within one file the last matching pattern wins, so ``!keep.py`` re-includes. Matching is
``pathspec``'s ``GitIgnoreSpec`` (git's own wildmatch rules); this module only decides which specs
apply to a path and in what order. A path below an ignored folder is ignored, whatever a deeper
negation says (git cannot re-include a file whose folder it excludes). A folder named explicitly that
git ignores is walked as if it were a work tree of its own (only the ``.gitignore`` files inside it
count), as a file named explicitly is linted: ``dynalint .venv/lib/python3.11/site-packages/torch``
lints torch even though ``.venv/`` is ignored.

Used by ``files.py`` (the walk, and explicit paths under ``--force-exclude``); ``respect-gitignore =
false`` in the config turns it off.
"""

from __future__ import annotations

import os
from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import pathspec


@lru_cache(maxsize=4096)
def work_tree(folder: Path) -> Path | None:
    """The root of the git work tree holding ``folder`` (a resolved path), or ``None``."""
    for candidate in (folder, *folder.parents):
        if os.path.lexists(candidate / ".git"):
            return candidate
    return None


# ``.gitignore`` lines git accepts and ignores but ``pathspec`` refuses (``!``, a lone ``\``, ``[z-a]``),
# one line each for the run's warnings; read by discovery, emptied by ``forget``.
invalid_patterns: list[str] = []


@lru_cache(maxsize=4096)
def _spec(folder: Path, name: str = ".gitignore") -> pathspec.GitIgnoreSpec | None:
    """The patterns of ``folder/name``, or ``None`` when it is absent or unreadable. A pattern git ignores
    as invalid is left out, as git leaves it out, and named in ``invalid_patterns``."""
    try:
        with open(folder / name, encoding="utf-8", errors="replace") as stream:
            lines = stream.read().splitlines()
    except OSError:  # absent, a folder, no permission: git would not read it either
        return None
    if not lines:
        return None
    import pathspec  # about 20 ms: only for trees that have .gitignore files

    try:
        return pathspec.GitIgnoreSpec.from_lines(lines)
    except Exception:  # noqa: BLE001 - pathspec raises several types for one bad line: find it below
        pass
    kept = []
    for number, line in enumerate(lines, start=1):
        try:
            pathspec.GitIgnoreSpec.from_lines([line])
        except Exception:  # noqa: BLE001 - the same refusal, line by line
            invalid_patterns.append(f"{folder / name}:{number}: invalid pattern `{line}` ignored, as git ignores it")
        else:
            kept.append(line)
    return pathspec.GitIgnoreSpec.from_lines(kept)


def _verdict(spec: pathspec.GitIgnoreSpec | None, relative: str) -> bool | None:
    """True: ignored, False: re-included by a negation, None: no pattern of ``spec`` speaks of it."""
    if spec is None:
        return None
    return spec.check_file(relative).include


def _judged(path: Path, root: Path, is_dir: bool, top: Path | None = None) -> bool:
    """Whether ``path`` itself is ignored, by the specs of ``top`` (default: ``root``) and every folder
    down to its own."""
    parts = path.relative_to(root).parts
    suffix = "/" if is_dir else ""
    first = 0 if top is None else len(top.relative_to(root).parts)
    ignored: bool | None = None if first else _verdict(_spec(root / ".git" / "info", "exclude"), "/".join(parts) + suffix)
    for depth in range(first, len(parts)):
        verdict = _verdict(_spec(root.joinpath(*parts[:depth])), "/".join(parts[depth:]) + suffix)
        if verdict is not None:
            ignored = verdict
    return bool(ignored)


def is_ignored(path: Path, is_dir: bool | None = None, parents_checked: bool = False, top: Path | None = None) -> bool:
    """Whether git ignores ``path`` (resolved). ``parents_checked``: its folders were found kept already.
    ``top``: only the ``.gitignore`` files of this folder (an ignored one named explicitly) and below count."""
    root = work_tree(path.parent)
    if root is None or path == root:
        return False
    if top is not None and (top == root or root not in (top, *top.parents) or top not in path.parents):
        top = None
    directory = path.is_dir() if is_dir is None else is_dir
    if parents_checked:
        return _judged(path, root, directory, top)
    below = path.relative_to(root).parts
    folders = [root.joinpath(*below[:depth]) for depth in range(1, len(below))]
    return any(_judged(folder, root, True) for folder in folders) or _judged(path, root, directory)


def forget() -> None:
    """Start a run without the ``.gitignore`` files earlier runs in this process read."""
    work_tree.cache_clear()
    _spec.cache_clear()
    invalid_patterns.clear()
