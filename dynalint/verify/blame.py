"""Verify stage, for the pytest plugin: which files are the project's, and which function a line is in.

The plugin (``dynalint/pytest_plugin.py``) watches Dynamo in the user's own test process, where a
break's traceback runs through pytest, the tests, the project, site-packages and torch. ``Project``
says which of those files may be blamed (the ``census-paths``, never torch's own source nor anything
under a ``site-packages`` or ``dist-packages`` folder, even when a virtual environment sits inside
the project) and names the function holding a line the way ``--verify``'s census does
(``path/relative/to/root.py::Class.method``, from the same ``summary.py`` qualnames);
``enclosing_function`` is that span, which ``--verify``'s judge reads too. No torch here.
"""

from __future__ import annotations

import ast
import functools
import importlib.util
import os
from collections.abc import Sequence
from pathlib import Path

from dynalint.analysis.summarize import summarize
from dynalint.project.files import INSTALLED

OUTSIDE = "<outside census-paths>"  # the census key of events no project frame explains


def _torch_folder() -> str | None:
    """torch's package folder, found without importing torch."""
    spec = importlib.util.find_spec("torch")
    if spec is None or not spec.submodule_search_locations:
        return None
    return os.path.realpath(next(iter(spec.submodule_search_locations)))


class Project:
    """The files a census may blame: under one of ``paths``, and neither installed nor torch's."""

    def __init__(self, root: Path, paths: Sequence[Path] = ()) -> None:
        self.root = Path(os.path.realpath(root))
        self.paths = tuple(Path(os.path.realpath(p)) for p in (paths or (root,)))
        self._torch = _torch_folder()

    @functools.lru_cache(maxsize=None)  # noqa: B019  (one Project per test session)
    def owns(self, filename: str) -> bool:
        if not filename or filename.startswith("<"):
            return False
        path = os.path.realpath(filename)
        parts = Path(path).parts
        if any(part in INSTALLED for part in parts):
            return False
        if self._torch and (path == self._torch or path.startswith(self._torch + os.sep)):
            return False
        return any(path == str(p) or path.startswith(str(p).rstrip(os.sep) + os.sep) for p in self.paths)

    def shown(self, filename: str) -> str:
        """``filename`` relative to the root (as ``--verify``'s census names files), else absolute."""
        path = Path(os.path.realpath(filename))
        try:
            return path.relative_to(self.root).as_posix()
        except ValueError:
            return path.as_posix()

    def function_at(self, filename: str, line: int) -> str:
        """The census key of the innermost function holding ``line``, or of the module."""
        span = enclosing_function(filename, line)
        return f"{self.shown(filename)}::{span[2] if span else '<module>'}"


def enclosing_function(filename: str, line: int) -> tuple[int, int, str] | None:
    """``(first line, last line, qualname)`` of the innermost function of ``filename`` holding ``line``."""
    holding = [span for span in _functions(os.path.realpath(filename)) if span[0] <= line <= span[1]]
    return max(holding, key=lambda span: (span[0], -span[1])) if holding else None


@functools.lru_cache(maxsize=None)
def _functions(path: str) -> tuple[tuple[int, int, str], ...]:
    """``(first line, decorators included; last line; qualname)`` of every function in ``path``."""
    try:
        tree = ast.parse(Path(path).read_text(encoding="utf-8", errors="replace"), path)
    except (OSError, SyntaxError, ValueError):
        return ()
    summary = summarize(tree, path, Path(path).stem)
    return tuple((f.start_line, f.end_line, f.qualname) for f in summary.functions.values())
