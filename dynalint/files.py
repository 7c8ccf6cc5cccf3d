"""Files stage: turn the command line's paths into the source files to check, and read them safely.

Folders are walked for ``*.py``; well-known tool and environment folders are skipped, then the
config's ``exclude`` / ``extend-exclude`` globs. Files named explicitly are always checked unless
``--force-exclude`` is given (pre-commit passes every staged path explicitly). ``read_source``
never raises: a file that is binary, not valid in its declared encoding or unreadable comes back as
a DYN902 diagnostic instead of text.
"""

from __future__ import annotations

import fnmatch
import io
import os
import re
import tokenize
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path

from dynalint import diagnostics
from dynalint.config import Config
from dynalint.finding import Finding

DEFAULT_EXCLUDE = (
    ".git", ".hg", ".svn", ".venv", "venv", ".tox", ".nox", ".mypy_cache", ".ruff_cache", ".pytest_cache",
    "__pycache__", "__pypackages__", "build", "dist", "node_modules", "site-packages", ".eggs", "*.egg-info",
)


@dataclass(frozen=True)
class SourceFile:
    path: Path  # as found on disk
    display: str  # the name used in findings
    module: str  # dotted module name, for import resolution
    is_package: bool


def is_excluded(path: Path, config: Config, base: Path | None = None) -> bool:
    """Whether ``path`` matches an exclude glob, judged on its part below ``base`` (default: the config root).

    Walking a folder the user named passes that folder as ``base``: a project that merely lives under a
    directory called ``build`` or ``venv`` is still linted when asked for.
    """
    patterns = (*DEFAULT_EXCLUDE, *config.exclude, *config.extend_exclude)
    relative = _below(path, base.resolve() if base else config.root)
    if relative is None and base is not None:
        relative = _below(path, config.root)
    if relative is None:
        # Outside the project: folder names above it are none of our business, only the file's own.
        relative = path.name
    parts = Path(relative).parts
    for pattern in patterns:
        if fnmatch.fnmatch(relative, pattern) or any(fnmatch.fnmatch(part, pattern) for part in parts):
            return True
        if fnmatch.fnmatch(relative, f"{pattern.rstrip('/')}/*"):
            return True
    return False


def _below(path: Path, base: Path) -> str | None:
    try:
        return path.resolve().relative_to(base).as_posix()
    except ValueError:
        return None


def discover(paths: Iterable[str], config: Config, force_exclude: bool = False) -> Iterator[Path]:
    """Every ``.py`` file under ``paths``, each once, in a stable order."""
    seen: set[Path] = set()
    for raw in paths:
        path = Path(raw)
        if path.is_dir():
            candidates: Iterable[Path] = _walk(path, config, config.exclude + config.extend_exclude)
        else:
            if force_exclude and is_excluded(path, config):
                continue
            candidates = [path]
        for candidate in candidates:
            key = candidate.resolve()
            if key not in seen:
                seen.add(key)
                yield candidate


def _walk(root: Path, config: Config, configured: tuple[str, ...]) -> Iterator[Path]:
    """``*.py`` files under ``root``. Built-in excludes apply below ``root``; configured globs apply
    relative to the config root too, so ``exclude = ["src/gen/*"]`` works from any folder."""
    for directory, subdirectories, filenames in os.walk(root):
        here = Path(directory)
        subdirectories[:] = sorted(d for d in subdirectories if not _skipped(here / d, root, config, configured))
        for name in sorted(filenames):
            if name.endswith((".py", ".pyi")) and not _skipped(here / name, root, config, configured):
                yield here / name


def _skipped(path: Path, root: Path, config: Config, configured: tuple[str, ...]) -> bool:
    return is_excluded(path, config, base=root) or (bool(configured) and is_excluded(path, config))


def display_name(path: Path) -> str:
    """``path`` relative to the working directory when it is below it (as users typed it), else as is."""
    try:
        return path.resolve().relative_to(Path.cwd().resolve()).as_posix()
    except ValueError:
        return path.as_posix()


def project_root(path: Path) -> Path:
    """The nearest folder above ``path`` holding ``.git`` or ``pyproject.toml`` (else its own folder)."""
    start = path.resolve().parent
    for candidate in (start, *start.parents):
        if (candidate / ".git").exists() or (candidate / "pyproject.toml").is_file():
            return candidate
    return start


def module_name(path: Path) -> tuple[str, bool]:
    """Dotted module name of ``path`` from the outermost package holding it, and whether it is a package."""
    path = path.resolve() if path.exists() else path
    is_package = path.name == "__init__.py"
    parts = [] if is_package else [path.stem]
    directory = path.parent
    while (directory / "__init__.py").is_file():
        parts.append(directory.name)
        if directory.parent == directory:
            break
        directory = directory.parent
    return ".".join(reversed(parts)), is_package


def source_file(path: Path, display: str | None = None) -> SourceFile:
    module, is_package = module_name(path)
    return SourceFile(path, display or path.as_posix(), module, is_package)


def read_source(path: Path, display: str, data: bytes | None = None) -> str | Finding:
    """The file's text, or a DYN902 finding saying why it cannot be checked."""
    if data is None:
        try:
            data = path.read_bytes()
        except OSError as error:
            return diagnostics.unreadable(display, error.strerror or str(error))
    return decode(data, display)


def _declares_encoding(data: bytes) -> bool:
    """Whether one of the first two lines carries a PEP 263 coding cookie."""
    return any(re.search(rb"^[ \t\f]*#.*?coding[:=]", line) for line in data.splitlines()[:2])


def decode(data: bytes, display: str) -> str | Finding:
    if b"\x00" in data:
        return diagnostics.unreadable(display, "binary content (NUL bytes), not Python source")
    try:
        encoding, _ = tokenize.detect_encoding(io.BytesIO(data).readline)
    except SyntaxError as error:
        return diagnostics.unreadable(display, str(error))
    try:
        text = data.decode(encoding)
    except (UnicodeDecodeError, LookupError) as error:
        if isinstance(error, UnicodeDecodeError):
            declared = _declares_encoding(data)
            detail = f"not valid {encoding} at byte {error.start}" + (
                "" if declared else " (no coding declaration; Python source is UTF-8 by default)"
            )
        else:
            detail = str(error)
        return diagnostics.unreadable(display, detail)
    return text.removeprefix("\ufeff")
