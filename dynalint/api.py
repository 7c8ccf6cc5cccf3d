"""The public API: lint from Python as the ``dynalint`` command does (``dynalint.lint_paths``,
``dynalint.lint_source``). A thin face over the ``Pipeline`` (``pipeline/run.py``), which the CLI,
the language server and the census plugin use directly.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from dynalint.model.finding import Finding
from dynalint.pipeline import STDIN, LintResult, Options, Pipeline
from dynalint.pipeline.run import lint_texts
from dynalint.project import files
from dynalint.project.config import Config
from dynalint.project.config_tree import ConfigTree

__all__ = ["STDIN", "Config", "Finding", "LintResult", "fix_source", "lint_paths", "lint_source"]


def lint_source(text: str, path: str = "<string>", config: Config | None = None) -> list[Finding]:
    """Findings for one source text, as if it were the only file in the tree."""
    source = files.SourceFile(Path(path), path, Path(path).stem, False)
    return lint_texts([(source, text)], config or Config()).findings


def fix_source(text: str, path: str = "<string>", config: Config | None = None, *, unsafe: bool = False) -> str:
    """The text with the fixes applied that ``dynalint check --fix`` (``--unsafe-fixes``) applies, as if it
    were the only file in the tree."""
    from dynalint.pipeline import fixing

    config = config or Config()
    fixed, _ = fixing.fix_text(text, lambda current: lint_source(current, path, config), fixing.allowed(config, unsafe))
    return fixed


def lint_paths(
    paths: Sequence[str],
    config: Config | None = None,
    *,
    force_exclude: bool = False,
    stdin_text: bytes | None = None,
    stdin_filename: str | None = None,
    use_cache: bool = False,
    jobs: int = 1,
) -> LintResult:
    """Lint files and folders under one config (``-`` is standard input, named ``stdin_filename``).

    Unlike the command line, every folder gets ``config`` (default: dynalint's defaults), whatever
    ``pyproject.toml`` lies nearer; with ``use_cache``, summaries and findings are kept between runs in
    ``config.cache_folder``.
    """
    options = Options(force_exclude=force_exclude, stdin_text=stdin_text, stdin_filename=stdin_filename,
                      use_cache=use_cache, jobs=jobs)
    return Pipeline(ConfigTree(config or Config(), fixed=True), options).run(paths)
