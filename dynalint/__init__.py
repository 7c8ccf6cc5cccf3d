"""dynalint: find TorchDynamo graph breaks before running the code.

The public API (documented in the README's "Python API") is two functions, from ``dynalint.api``, and
the two types they take and give:

- ``lint_paths(paths, config=None, ...)``: lint files and folders as the ``dynalint`` command does;
- ``lint_source(text, path="<string>", config=None)``: the findings of one source text;
- ``Config`` (the settings ``[tool.dynalint]`` holds) and ``Finding``.

They are imported on first use, so that ``import dynalint`` (and ``dynalint --version``) stays cheap.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from dynalint.model.version import __version__

if TYPE_CHECKING:
    from dynalint.api import Config, Finding, lint_paths, lint_source

__all__ = ["Config", "Finding", "__version__", "lint_paths", "lint_source"]


def __getattr__(name: str) -> Any:
    if name in ("Config", "Finding", "lint_paths", "lint_source"):
        from dynalint import api

        return getattr(api, name)
    raise AttributeError(f"module 'dynalint' has no attribute {name!r}")
