"""Files stage: turn the command line's paths into the source files to check, and read them safely.

Folders are walked for ``*.py``, ``*.pyi`` and ``*.ipynb``; well-known tool and environment folders are skipped, then the
config's ``exclude`` / ``extend-exclude`` globs, then what git ignores (``gitignore.py``; inside a git
work tree only, unless ``respect-gitignore = false``). ``build`` and ``dist`` are skipped only when they are
not Python packages (``myproj/parallel/dist/__init__.py`` is code, not an artefact). Every skipped
folder that holds Python files is counted, so the run can say what it left out; a folder that cannot
be listed is a DYN902 diagnostic. Files named explicitly are always checked unless ``--force-exclude``
is given (pre-commit passes every staged path explicitly), but a file named explicitly that is not
Python (``README.md``) is skipped with a warning, and so is a named folder holding no Python file. The walk may take each folder's own config (``config_for``: the nearest one, see
``config_tree.py``), so that a sub-project's ``exclude`` and ``respect-gitignore`` hold below it.

A notebook is read as the Python of its code cells (``notebook.py``): ``read_file`` gives the
``Notebook`` with its cell layout, ``read_source`` its text alone.

``read_source`` never raises and never blocks: only regular files are opened (a FIFO, socket or
device named ``x.py`` is reported, not read), symlink loops and dangling links are reported, a file
over ``max-file-size-kb`` is reported (DYN904) without being read, and a file that is binary, not
valid in its declared encoding or unreadable comes back as a DYN902 diagnostic instead of text.
Paths are resolved with ``os.path.realpath``, which, unlike ``Path.resolve``, does not raise on a loop.
"""

from __future__ import annotations

import errno
import fnmatch
import io
import os
import re
import stat
import tokenize
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path

from dynalint.model import diagnostics
from dynalint.model.finding import Finding
from dynalint.project import gitignore, notebook
from dynalint.project.config import Config

DEFAULT_EXCLUDE = (
    ".git", ".hg", ".svn", ".venv", "venv", ".tox", ".nox", ".mypy_cache", ".ruff_cache", ".pytest_cache",
    "__pycache__", "__pypackages__", "build", "dist", "node_modules", "site-packages", ".eggs", "*.egg-info",
)
# Built-in excludes that are also common package names: a folder of these names that holds an
# ``__init__.py`` is source, not a build artefact, and is linted.
ARTEFACT_NAMES = frozenset({"build", "dist"})


@dataclass(frozen=True)
class SourceFile:
    path: Path  # as found on disk
    display: str  # the name used in findings
    module: str  # dotted module name, for import resolution
    is_package: bool
    from_stdin: bool = False  # the text came from stdin: the file on disk under that name may differ


# A run asks for the same paths several times (discovery, module names, display names, the cache).
_resolved: dict[str, Path] = {}  # absolute path -> ``real`` of it


def real(path: Path) -> Path:
    """``path`` with symlinks resolved as far as they go (a loop or a dangling link is left as it is)."""
    known = _resolved.get(os.fspath(path))  # keys are absolute and normalized: a relative path never hits
    if known is not None:
        return known
    absolute = os.path.abspath(path)
    known = _resolved.get(absolute)
    if known is None:
        # The walk resolves each folder before its entries: an entry that is no link is its folder's
        # resolved path plus its name (one lstat, where ``realpath`` takes one per component).
        folder, name = os.path.split(absolute)
        above = _resolved.get(folder)
        if above is not None and name and not os.path.islink(absolute):
            known = above / name
        else:
            known = Path(os.path.realpath(absolute))
        _resolved[absolute] = known
    return known


def forget_paths() -> None:
    """Start a run without what earlier runs in this process learnt about the file system."""
    _resolved.clear()
    _packages_above.cache_clear()
    gitignore.forget()


@lru_cache(maxsize=None)
def _glob(pattern: str) -> Callable[[str], re.Match[str] | None]:
    return re.compile(fnmatch.translate(pattern)).match


def is_excluded(path: Path, config: Config, base: Path | None = None, parents_checked: bool = False) -> bool:
    """Whether ``path`` matches an exclude glob, judged on its part below ``base`` (default: the config root).

    Walking a folder the user named passes that folder as ``base``: a project that merely lives under a
    directory called ``build`` or ``venv`` is still linted when asked for. ``parents_checked``: the folders
    between ``base`` and ``path`` were judged already (the walk descends only into kept folders), so only
    the last name is matched on its own.
    """
    configured = (*config.exclude, *config.extend_exclude)
    anchor = real(base) if base else config.root
    relative = _below(path, anchor)
    if relative is None and base is not None:
        anchor, relative = config.root, _below(path, config.root)
    if relative is None:
        # Outside the project: folder names above it are none of our business, only the file's own.
        anchor, relative = real(path).parent, path.name
    parts = relative.split("/") if relative not in ("", ".") else []
    whole, folder, part = _any_glob((*DEFAULT_EXCLUDE, *configured))
    if not (whole(relative) or folder(relative)
            or any(part(name) for name in (parts[-1:] if parents_checked else parts))):
        return False  # no pattern matches anything below: what every kept file of a walk costs

    def matches(pattern: str, index: int) -> bool:
        """The match stands unless it is a built-in artefact name on a folder that is a package."""
        if pattern not in ARTEFACT_NAMES or pattern in configured or parts[index] != pattern:
            return True
        return not (anchor.joinpath(*parts[: index + 1]) / "__init__.py").is_file()

    for pattern in (*DEFAULT_EXCLUDE, *configured):
        glob = _glob(pattern)
        if glob(relative) and matches(pattern, len(parts) - 1):
            return True
        if _glob(f"{pattern.rstrip('/')}/*")(relative) and matches(pattern, 0):
            return True
        first = len(parts) - 1 if parents_checked else 0
        if any(glob(parts[i]) and matches(pattern, i) for i in range(first, len(parts))):
            return True
    return False


@lru_cache(maxsize=None)
def _any_glob(patterns: tuple[str, ...]) -> tuple[Callable[[str], object], ...]:
    """Matchers of the union of ``patterns``: on a whole relative path, as ``pattern/*``, on one name.
    When none matches, no single pattern can (``is_excluded``'s quick answer)."""
    union = "|".join(f"(?:{fnmatch.translate(p)})" for p in patterns)
    below = "|".join(f"(?:{fnmatch.translate(p.rstrip('/') + '/*')})" for p in patterns)
    return re.compile(union).match, re.compile(below).match, re.compile(union).match


def _below(path: Path, base: Path) -> str | None:
    """``real(path)`` relative to ``base``, in ``/`` form; ``None`` when it is not below it."""
    resolved = real(path)
    if os.name == "posix":  # the same answer as ``relative_to``, without pathlib's cost per call
        inside, anchor = os.fspath(resolved), os.fspath(base)
        if inside == anchor:
            return "."
        prefix = anchor if anchor.endswith("/") else anchor + "/"
        return inside[len(prefix):] if inside.startswith(prefix) else None
    try:
        return resolved.relative_to(base).as_posix()
    except ValueError:
        return None


PYTHON_SUFFIXES = (".py", ".pyi")
# What a folder walk lints: Python files and Jupyter notebooks (their code cells).
LINTED_SUFFIXES = (*PYTHON_SUFFIXES, notebook.SUFFIX)
# The JSON of a notebook holds its outputs (images, tables) as well as its code: it is read up to this
# size, and ``max-file-size-kb`` is applied to the code cells' text instead.
NOTEBOOK_READ_LIMIT_KB = 256 * 1024
# Named explicitly, these are Python too: ``.pyw`` scripts, and files with no suffix that start with
# a python shebang (what pre-commit's ``types: [python]`` passes).
_EXPLICIT_SUFFIXES = (*LINTED_SUFFIXES, ".pyw")


@dataclass
class Discovery:
    """What the files stage found under the paths asked for, and what it left out."""

    files: list[Path] = field(default_factory=list)
    problems: list[Finding] = field(default_factory=list)  # folders that could not be listed
    skipped: list[str] = field(default_factory=list)  # excluded folders that hold Python files
    warnings: list[str] = field(default_factory=list)  # one line each, for stderr: what was not linted


def discover(
    paths: Iterable[str], config: Config, force_exclude: bool = False,
    config_for: Callable[[Path], Config] | None = None,
) -> Discovery:
    """Every ``.py``, ``.pyi`` and ``.ipynb`` file under ``paths``, each once, in a stable order.

    ``config_for(folder)`` gives the config that judges a folder's entries (default: ``config``).
    """
    found = Discovery()
    seen: set[Path] = set()
    judge = config_for or (lambda folder: config)
    for raw in paths:
        path = Path(raw)
        if path.is_dir():
            candidates: list[Path] = list(_walk(path, judge, found))
            if not candidates:
                found.warnings.append(f"no Python files found under {raw}")
        else:
            local = judge(real(path).parent)
            if force_exclude and (is_excluded(path, local) or _ignored_by_git(path, local, None)):
                continue
            why_not = not_python(path)
            if why_not:
                found.warnings.append(f"skipped {raw}: {why_not}")
                continue
            candidates = [path]
        for candidate in candidates:
            key = real(candidate)
            if key not in seen:
                seen.add(key)
                found.files.append(candidate)
    found.warnings += [w for w in gitignore.invalid_patterns if w not in found.warnings]
    return found


def not_python(path: Path) -> str | None:
    """Why a file named explicitly is not linted as Python, or ``None`` when it is to be linted."""
    suffix = path.suffix.lower()
    if suffix in _EXPLICIT_SUFFIXES:
        return None
    if suffix == "" and _python_script(path):
        return None
    return f"not a Python file (dynalint lints {', '.join(LINTED_SUFFIXES)} files)"


def _python_script(path: Path) -> bool:
    """A suffix-less file with a python shebang; or one that is no regular file, which the read reports."""
    try:
        if not stat.S_ISREG(os.stat(path).st_mode):
            return True
        with os.fdopen(os.open(path, os.O_RDONLY | os.O_NONBLOCK), "rb") as stream:
            first = stream.read(256).split(b"\n", 1)[0]
    except OSError:  # a loop, a dangling link, no permission: read_source says which (DYN902)
        return True
    return first.startswith(b"#!") and b"python" in first


def _walk(root: Path, config_for: Callable[[Path], Config], found: Discovery) -> Iterator[Path]:
    """``*.py``, ``*.pyi`` and ``*.ipynb`` files under ``root``. Built-in excludes apply below ``root``; configured globs apply
    relative to the config root too, so ``exclude = ["src/gen/*"]`` works from any folder. Each folder's
    entries are judged by ``config_for(folder)``."""

    def unlistable(error: OSError) -> None:
        shown = display_name(Path(error.filename or root))
        found.problems.append(diagnostics.unreadable(shown, f"cannot list the folder: {error.strerror or error}"))

    # A folder named explicitly is walked even when git ignores it; then only its own .gitignore files count.
    top = real(root) if gitignore.is_ignored(real(root), True) else None
    for directory, subdirectories, filenames in os.walk(root, onerror=unlistable):
        here = Path(directory)
        config = config_for(real(here))
        kept = []
        for name in sorted(subdirectories):
            if _ignored_by_git(here / name, config, True, top):
                continue  # git's business, not an exclusion of the user's source: not counted as skipped
            if not _skipped(here / name, root, config):
                kept.append(name)
            elif holds_python(here / name):
                found.skipped.append(display_name(here / name))
        subdirectories[:] = kept
        for name in sorted(filenames):
            if (name.endswith(LINTED_SUFFIXES) and not _skipped(here / name, root, config)
                    and not _ignored_by_git(here / name, config, False, top)):
                yield here / name


def _ignored_by_git(path: Path, config: Config, is_dir: bool | None, top: Path | None = None) -> bool:
    """In the walk (``is_dir`` known) the folders above were kept already; a named path is judged whole.
    ``top``: the ignored folder the walk was asked for, whose own ``.gitignore`` files alone count."""
    if not config.respect_gitignore:
        return False
    return gitignore.is_ignored(real(path), is_dir, parents_checked=is_dir is not None, top=top)


def _skipped(path: Path, root: Path, config: Config) -> bool:
    configured = config.exclude + config.extend_exclude
    return is_excluded(path, config, base=root, parents_checked=True) or (bool(configured) and is_excluded(path, config))


def holds_python(folder: Path) -> bool:
    """Whether ``folder`` (a folder, else false) holds a Python file or notebook at any depth; stops at the first."""
    for _, _, filenames in os.walk(folder):
        if any(name.endswith(LINTED_SUFFIXES) for name in filenames):
            return True
    return False


def display_name(path: Path) -> str:
    """``path`` relative to the working directory when it is below it (as users typed it), else as is."""
    below = _below(path, real(Path(os.getcwd())))
    return path.as_posix() if below is None else below


INSTALLED = ("site-packages", "dist-packages")  # a folder of these names holds installed packages


def third_party(paths: Sequence[str], root: Path) -> tuple[str, ...]:
    """The named ``paths`` (resolved) that are installed or third-party code: under ``site-packages``
    or ``dist-packages``, or outside the config folder ``root``."""
    found = []
    for raw in paths:
        path = Path(os.path.realpath(raw))  # not ``resolve()``: a symlink loop named explicitly must not raise
        if not path.exists():
            continue
        try:
            inside = path.relative_to(root.resolve())
        except ValueError:
            inside = None
        if inside is None or any(part in INSTALLED for part in inside.parts):
            found.append(str(path))
    return tuple(dict.fromkeys(found))


def project_root(path: Path) -> Path:
    """The nearest folder above ``path`` holding ``.git`` or ``pyproject.toml``; without one, the working
    directory when ``path`` is below it (as ruff has it), else the file's own folder."""
    start = real(path).parent
    for candidate in (start, *start.parents):
        if (candidate / ".git").exists() or (candidate / "pyproject.toml").is_file():
            return candidate
    here = real(Path(os.getcwd()))
    return here if start == here or here in start.parents else start


def module_name(path: Path) -> tuple[str, bool]:
    """Dotted module name of ``path`` from the outermost package holding it, and whether it is a package.

    A notebook cannot be imported: its name ends in ``@ipynb``, so that ``model.ipynb`` never takes the
    name ``import model`` resolves to ``model.py``.
    """
    path = real(path)
    is_package = path.name == "__init__.py"
    packages = _packages_above(path.parent)
    stem = f"{path.stem}@ipynb" if notebook.is_notebook(path) else path.stem
    return ".".join([*packages, *([] if is_package else [stem])]), is_package


@lru_cache(maxsize=4096)
def _packages_above(directory: Path) -> tuple[str, ...]:
    """The package names from the outermost package down to ``directory`` (empty if it is no package).

    A folder without ``__init__.py`` inside a package is a namespace portion of it (PEP 420): Python imports
    ``torchmin/constrained/lbfgsb.py`` as ``torchmin.constrained.lbfgsb``, and so is it named here. Outside
    a package such a folder (``src/``, ``scripts/``) names nothing.
    """
    if not (directory / "__init__.py").is_file():
        if directory.parent == directory:
            return ()
        above = _packages_above(directory.parent) if directory.name.isidentifier() else ()
        return (*above, directory.name) if above else ()
    if directory.parent == directory:
        return (directory.name,)
    return (*_packages_above(directory.parent), directory.name)


def source_file(path: Path, display: str | None = None) -> SourceFile:
    module, is_package = module_name(path)
    return SourceFile(path, display or path.as_posix(), module, is_package)


def read_source(path: Path, display: str, max_kb: float | None = None) -> str | Finding:
    """The file's text (a notebook's: the Python of its code cells), or a DYN902 / DYN904 finding saying why
    it is not checked."""
    read = read_file(path, display, max_kb)
    return read.text if isinstance(read, notebook.Notebook) else read


def read_file(path: Path, display: str, max_kb: float | None = None) -> str | notebook.Notebook | Finding:
    """``read_source``, with a notebook's cell layout: what the findings in it are placed by."""
    if not notebook.is_notebook(path):
        data = _read_regular(path, display, max_kb)
        return data if isinstance(data, Finding) else decode(data, display)
    data = _read_regular(path, display, None if max_kb is None else max(max_kb, NOTEBOOK_READ_LIMIT_KB))
    return data if isinstance(data, Finding) else decode_notebook(data, display, max_kb)


def decode_notebook(data: bytes, display: str, max_kb: float | None = None) -> notebook.Notebook | Finding:
    """The notebook in ``data``, with ``max-file-size-kb`` applied to its code (its outputs do not count)."""
    parsed = notebook.parse(data, display)
    if isinstance(parsed, notebook.Notebook) and max_kb is not None:
        size = len(parsed.text.encode("utf-8", "surrogatepass"))
        if size > max_kb * 1024:
            return diagnostics.too_complex(
                display, 1, f"the notebook's code cells are {size / 1024:,.0f} KiB, over the {max_kb:g} KiB limit "
                            "(`max-file-size-kb`); they were not linted")
    return parsed


def _read_regular(path: Path, display: str, max_kb: float | None) -> bytes | Finding:
    limit = None if max_kb is None else int(max_kb * 1024)
    try:
        if not stat.S_ISREG(os.stat(path).st_mode):  # follows links: a loop or a dangling one raises
            return _not_regular(path, display)
        # O_NONBLOCK: a file swapped for a FIFO between the check and the open must not hang the run.
        with os.fdopen(os.open(path, os.O_RDONLY | os.O_NONBLOCK), "rb") as stream:
            info = os.fstat(stream.fileno())
            if not stat.S_ISREG(info.st_mode):
                return _not_regular(path, display)
            if limit is not None and info.st_size > limit:
                return _too_large(display, info.st_size, max_kb)
            data = stream.read() if limit is None else stream.read(limit + 1)
    except OSError as error:
        return diagnostics.unreadable(display, _why_unreadable(path, error))
    if limit is not None and len(data) > limit:  # it grew after the size check
        return _too_large(display, len(data), max_kb)
    return data


def decode_limited(data: bytes, display: str, max_kb: float | None) -> str | Finding:
    """Text that did not come from a file (standard input, an editor's buffer), under the same size cap."""
    if max_kb is not None and len(data) > max_kb * 1024:
        return _too_large(display, len(data), max_kb)
    return decode(data, display)


def _not_regular(path: Path, display: str) -> Finding:
    mode = os.stat(path).st_mode
    kinds = ((stat.S_ISFIFO, "a FIFO"), (stat.S_ISSOCK, "a socket"), (stat.S_ISCHR, "a character device"),
             (stat.S_ISBLK, "a block device"), (stat.S_ISDIR, "a folder"))
    kind = next((name for test, name in kinds if test(mode)), "a special file")
    return diagnostics.unreadable(display, f"{kind}, not a regular file; it was not opened")


def _why_unreadable(path: Path, error: OSError) -> str:
    if error.errno == errno.ELOOP:
        return "a symlink loop"
    if error.errno == errno.ENOENT and os.path.islink(path):
        return f"a dangling symlink (to {os.readlink(path)})"
    if error.errno == errno.ENOENT:
        return "the file disappeared during the run"
    return error.strerror or str(error)


def _too_large(display: str, size: int, max_kb: float | None) -> Finding:
    return diagnostics.too_complex(
        display, 1, f"the file is {size / 1024:,.0f} KiB, over the {max_kb:g} KiB limit (`max-file-size-kb`); "
                    "it was not read"
    )


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
