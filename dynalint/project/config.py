"""Configuration: ``[tool.dynalint]`` from the nearest ``pyproject.toml``, validated, then CLI overrides.

Read once per run, before the files stage. Every key is checked: an unknown key or a value of the
wrong type is a ``ConfigError`` naming the key and the file (exit 2), never a silent default. Paths
in ``exclude`` and ``per-file-ignores`` are globs relative to the directory holding the config file.
"""

from __future__ import annotations

import re
import sys
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Literal, TypedDict

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - exercised on Python 3.10 only
    import tomli as tomllib

from dynalint.model import selection
from dynalint.model.dynamo_settings import BOOL_SETTINGS, CONFIG_KEYS, DynamoSettings
from dynalint.model.finding import Confidence

FIX_KEYS = ("fixable", "unfixable", "extend-safe-fixes", "extend-unsafe-fixes")
LIST_KEYS = ("select", "extend-select", "ignore", "exclude", "extend-exclude", *FIX_KEYS)
_LimitField = Literal["max_file_kb", "max_file_seconds"]
LIMIT_KEYS: dict[str, tuple[_LimitField, str]] = {
    "max-file-size-kb": ("max_file_kb", "KiB"), "max-file-seconds": ("max_file_seconds", "seconds"),
}
KNOWN_KEYS = frozenset(
    {*LIST_KEYS, *LIMIT_KEYS, "per-file-ignores", "target-torch", "min-confidence", "dynamo", "verify", "cache-dir",
     "respect-gitignore", "census-paths", "compiled"}
)
VERIFY_KEYS = frozenset({"factories", "timeout", "memory-gb", "pythonpath"})
FACTORY_KEYS = frozenset({"factory", "mode"})
FACTORY_MODES = ("eval", "train")  # eval: ``model.eval()`` under ``no_grad``; train: ``model.train()``, grad on
SELECTOR_KEYS = ("select", "extend-select", "ignore", *FIX_KEYS)
_VERSION = re.compile(r"^\d+(\.\d+){0,2}$")
_DOTTED = r"[A-Za-z_]\w*(?:\.[A-Za-z_]\w*)*"
# After the colon, a ``__qualname__`` as Python writes it: a nested function is ``outer.<locals>.inner``.
_QUALNAME = r"[A-Za-z_]\w*(?:\.(?:<locals>\.)?[A-Za-z_]\w*)*"
_ENTRY_POINT = re.compile(rf"{_DOTTED}(?::{_QUALNAME})?")


class ConfigError(Exception):
    """A configuration problem the user must fix; the CLI prints it and exits 2."""


class Overrides(TypedDict, total=False):
    """The command line's values for ``Config`` fields (``None``: not given), as ``with_overrides`` takes them."""

    select: tuple[str, ...] | None
    extend_select: tuple[str, ...] | None
    ignore: tuple[str, ...] | None
    min_confidence: Confidence | None
    target_torch: str | None


class _Limits(TypedDict, total=False):
    max_file_kb: float
    max_file_seconds: float


class _MinConfidence(TypedDict, total=False):
    min_confidence: Confidence


class _VerifySettings(TypedDict, total=False):
    verify_factories: tuple[Factory, ...]
    verify_timeout: float
    verify_memory_gb: float
    verify_pythonpath: tuple[str, ...]


@dataclass(frozen=True)
class Factory:
    """One ``[tool.dynalint.verify]`` factory: ``module:function`` and the mode its model runs in."""

    reference: str  # ``module:function`` returning (callable, args, kwargs)
    mode: str = "eval"  # one of FACTORY_MODES


@dataclass(frozen=True)
class Config:
    root: Path = field(default_factory=Path.cwd)
    source: Path | None = None  # the pyproject.toml it came from, if any
    select: tuple[str, ...] | None = None  # None: the rules that are on by default
    extend_select: tuple[str, ...] = ()
    ignore: tuple[str, ...] = ()
    per_file_ignores: tuple[tuple[str, tuple[str, ...]], ...] = ()
    exclude: tuple[str, ...] = ()
    extend_exclude: tuple[str, ...] = ()
    target_torch: str | None = None  # None: the installed torch's version, else the newest known
    min_confidence: Confidence = Confidence.LIKELY  # findings below it are dropped (``certain``: only those)
    dynamo: DynamoSettings = field(default_factory=DynamoSettings)
    verify_factories: tuple[Factory, ...] = ()
    verify_timeout: float = 120.0  # seconds per verified function
    # The memory a worker's processes may use together before the job is stopped ("out of memory");
    # ``None``: three quarters of the machine's memory.
    verify_memory_gb: float | None = None
    # Folders (relative to the config file) the factories' modules are imported from, before the project's
    # root, as pytest's ``pythonpath``; a ``src`` folder is tried when a module is not at the root.
    verify_pythonpath: tuple[str, ...] = ()
    # Per-file limits: a larger file is reported (DYN904) without being read; a slower one is cut short.
    # Generated files (tables, 200k-function stubs) are what they stop, not code that people write.
    max_file_kb: float = 2048.0
    max_file_seconds: float = 60.0
    cache_dir: Path | None = None  # None: ``.dynalint_cache`` in the project root
    respect_gitignore: bool = True  # skip what git ignores when walking folders (inside a git work tree)
    # The pytest plugin blames breaks on files under these (relative to the config file); none: its folder.
    census_paths: tuple[str, ...] = ()
    # Compile entry points outside the linted code (a training script elsewhere compiles them):
    # ``pkg.mod.function``, ``pkg.mod.Class`` (its ``forward``), ``pkg.mod:Class.method``.
    compiled: tuple[str, ...] = ()
    # Which fixes ``--fix`` may apply, with ruff's meanings: the rules it may fix (``None``: all), those it
    # must not, and the rules whose unsafe fixes count as safe, or whose safe ones count as unsafe.
    fixable: tuple[str, ...] | None = None
    unfixable: tuple[str, ...] = ()
    extend_safe_fixes: tuple[str, ...] = ()
    extend_unsafe_fixes: tuple[str, ...] = ()

    @property
    def cache_folder(self) -> Path:
        return self.cache_dir if self.cache_dir is not None else self.root / ".dynalint_cache"

    def with_overrides(
        self, *, select: tuple[str, ...] | None = None, extend_select: tuple[str, ...] | None = None,
        ignore: tuple[str, ...] | None = None, min_confidence: Confidence | None = None,
        target_torch: str | None = None,
    ) -> Config:
        """A copy with CLI values applied (``None`` means "not given on the command line")."""
        where = "the command line"
        if target_torch is not None and not _VERSION.match(target_torch):
            raise ConfigError(f"{where}: --target-torch must be a version such as 2.13, got {target_torch!r}")
        select = None if select is None else _check_selectors("--select", select, where)
        extend_select = None if extend_select is None else _check_selectors("--extend-select", extend_select, where)
        ignore = None if ignore is None else _check_selectors("--ignore", ignore, where)
        return replace(
            self,
            select=self.select if select is None else select,
            extend_select=self.extend_select if extend_select is None else extend_select,
            ignore=self.ignore if ignore is None else ignore,
            min_confidence=self.min_confidence if min_confidence is None else min_confidence,
            target_torch=self.target_torch if target_torch is None else target_torch,
        )


def find_pyproject(start: Path) -> Path | None:
    """The nearest ``pyproject.toml`` with a ``[tool.dynalint]`` table, from ``start`` upwards."""
    directory = start.resolve()
    if directory.is_file():
        directory = directory.parent
    for candidate in (directory, *directory.parents):
        if declares_dynalint(candidate):
            return candidate / "pyproject.toml"
    return None


def declares_dynalint(folder: Path) -> bool:
    """Whether ``folder`` holds a ``pyproject.toml`` with a ``[tool.dynalint]`` table."""
    path = folder / "pyproject.toml"
    if not path.is_file():
        return False
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError) as error:
        raise ConfigError(f"{path}: cannot read the file: {error}") from None
    except tomllib.TOMLDecodeError as error:
        # It may hold our settings: guessing the defaults instead would be silent and wrong.
        raise ConfigError(f"{path}: not valid TOML: {error}") from None
    return "dynalint" in _tool_table(data, path)


def _tool_table(data: dict[str, object], path: Path) -> dict[str, object]:
    """The ``[tool]`` table of a TOML file; a ``tool`` that is no table (``tool = 3``) is a config error."""
    tool = data.get("tool", {})
    if not isinstance(tool, dict):
        raise ConfigError(f"{path}: `tool` must be a table, got {tool!r}")
    return tool


def load(config_file: Path | None = None, start: Path | None = None) -> Config:
    """Load the explicit ``config_file``, else the nearest pyproject.toml, else the defaults."""
    path = config_file or find_pyproject(start or Path.cwd())
    if path is None:
        return Config()
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except OSError as error:
        raise ConfigError(f"{path}: cannot read the config file: {error.strerror or error}") from None
    except tomllib.TOMLDecodeError as error:
        raise ConfigError(f"{path}: not valid TOML: {error}") from None
    table = _tool_table(data, path).get("dynalint", {}) if path.name == "pyproject.toml" else _tool_table(
        data, path
    ).get("dynalint", data)
    return parse(table, path)


def parse(table: object, path: Path) -> Config:
    where = str(path)
    if not isinstance(table, dict):
        raise ConfigError(f"{where}: [tool.dynalint] must be a table")
    unknown = sorted(set(table) - KNOWN_KEYS)
    if unknown:
        raise ConfigError(
            f"{where}: unknown key `{unknown[0]}` in [tool.dynalint] (known keys: {', '.join(sorted(KNOWN_KEYS))})"
        )
    values: dict[str, tuple[str, ...]] = {}
    for key in LIST_KEYS:
        if key in table:
            values[key] = _string_list(table[key], key, where)
    for key in SELECTOR_KEYS:
        if key in values:
            values[key] = _check_selectors(f"`{key}`", values[key], where)
    per_file: list[tuple[str, tuple[str, ...]]] = []
    raw = table.get("per-file-ignores", {})
    if not isinstance(raw, dict):
        raise ConfigError(f"{where}: `per-file-ignores` must be a table of glob = [codes]")
    for pattern, codes in raw.items():
        listed = _string_list(codes, f"per-file-ignores.{pattern}", where)
        per_file.append((pattern, _check_selectors(f"`per-file-ignores.{pattern}`", listed, where, may_be_empty=True)))
    cache_dir = table.get("cache-dir")
    if cache_dir is not None and not (isinstance(cache_dir, str) and cache_dir.strip()):
        raise ConfigError(f"{where}: `cache-dir` must be a folder path (a non-empty string), got {cache_dir!r}")
    respect_gitignore = table.get("respect-gitignore", True)
    if not isinstance(respect_gitignore, bool):
        raise ConfigError(f"{where}: `respect-gitignore` must be true or false, got {respect_gitignore!r}")
    target_torch = table.get("target-torch")
    if target_torch is not None and not (isinstance(target_torch, str) and _VERSION.match(target_torch)):
        raise ConfigError(f"{where}: `target-torch` must be a version string such as \"2.13\", got {target_torch!r}")
    return Config(
        **_limits(table, where),
        **_min_confidence(table, where),
        root=path.parent.resolve(),
        cache_dir=(path.parent.resolve() / cache_dir) if cache_dir is not None else None,
        target_torch=target_torch,
        respect_gitignore=respect_gitignore,
        dynamo=_dynamo_settings(table.get("dynamo", {}), where),
        **_verify_settings(table.get("verify", {}), where),
        source=path,
        select=values.get("select"),
        extend_select=values.get("extend-select", ()),
        ignore=values.get("ignore", ()),
        per_file_ignores=tuple(per_file),
        exclude=values.get("exclude", ()),
        extend_exclude=values.get("extend-exclude", ()),
        census_paths=_string_list(table["census-paths"], "census-paths", where) if "census-paths" in table else (),
        compiled=_entry_points(table, where),
        fixable=values.get("fixable"),
        unfixable=values.get("unfixable", ()),
        extend_safe_fixes=values.get("extend-safe-fixes", ()),
        extend_unsafe_fixes=values.get("extend-unsafe-fixes", ()),
    )


def _entry_points(table: dict[str, object], where: str) -> tuple[str, ...]:
    if "compiled" not in table:
        return ()
    entries = _string_list(table["compiled"], "compiled", where)
    bad = [e for e in entries if not _ENTRY_POINT.fullmatch(e)]
    if bad:
        raise ConfigError(
            f"{where}: `compiled` entries must name a function, class or method as pkg.mod.name or "
            f"pkg.mod:Class.method (a nested function as pkg.mod:outer.<locals>.inner), got {bad[0]!r}"
        )
    return entries


def _min_confidence(table: dict[str, object], where: str) -> _MinConfidence:
    if "min-confidence" not in table:
        return {}
    value = table["min-confidence"]
    levels = [level.value for level in Confidence]
    if value not in levels:
        raise ConfigError(f"{where}: `min-confidence` must be one of {', '.join(map(repr, levels))}, got {value!r}")
    return {"min_confidence": Confidence(value)}


def _limits(table: dict[str, object], where: str) -> _Limits:
    limits: _Limits = {}
    for key, (attribute, unit) in LIMIT_KEYS.items():
        if key in table:
            limits[attribute] = positive_number(table[key], key, where, unit)
    return limits


# Above these a limit means "none" and overflows where it becomes a byte count or a timer: a terabyte, a year.
_LARGEST = {"KiB": float(2**30), "seconds": 365 * 24 * 3600.0, "GB": float(2**20)}


def positive_number(value: object, key: str, where: str, unit: str) -> float:
    """``value`` as a float when it is a positive, finite number; else a ``ConfigError`` naming ``key``."""
    # `0 < v < inf` is false for nan too, which TOML allows and which would never compare as a limit.
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not 0 < value < float("inf"):
        raise ConfigError(f"{where}: `{key}` must be a positive, finite number of {unit}, got {value!r}")
    largest = _LARGEST.get(unit)
    if largest is not None and value > largest:
        raise ConfigError(f"{where}: `{key}` must be at most {largest:,.0f} {unit}, got {value!r}")
    return float(value)


def _verify_settings(table: object, where: str) -> _VerifySettings:
    if not isinstance(table, dict):
        raise ConfigError(f"{where}: [tool.dynalint.verify] must be a table")
    unknown = sorted(set(table) - VERIFY_KEYS)
    if unknown:
        raise ConfigError(f"{where}: unknown key `verify.{unknown[0]}` (known keys: {', '.join(sorted(VERIFY_KEYS))})")
    settings: _VerifySettings = {}
    if "factories" in table:
        entries = table["factories"]
        if not isinstance(entries, list):
            raise ConfigError(f"{where}: `verify.factories` must be a list, got {type(entries).__name__}: {entries!r}")
        settings["verify_factories"] = tuple(_factory(entry, where) for entry in entries)
    if "timeout" in table:
        settings["verify_timeout"] = positive_number(table["timeout"], "verify.timeout", where, "seconds")
    if "pythonpath" in table:
        settings["verify_pythonpath"] = _string_list(table["pythonpath"], "verify.pythonpath", where)
    if "memory-gb" in table:
        settings["verify_memory_gb"] = positive_number(table["memory-gb"], "verify.memory-gb", where, "GB")
    return settings


def _factory(entry: object, where: str) -> Factory:
    """A ``factories`` entry: ``"module:function"``, or ``{ factory = "module:function", mode = "train" }``."""
    if isinstance(entry, dict):
        unknown = sorted(set(entry) - FACTORY_KEYS)
        if unknown or "factory" not in entry:
            raise ConfigError(f"{where}: a `verify.factories` table holds `factory` and optionally `mode`, got {entry!r}")
        reference, mode = entry["factory"], entry.get("mode", "eval")
    else:
        reference, mode = entry, "eval"
    if not (isinstance(reference, str) and re.fullmatch(r"[\w.]+:\w+", reference)):
        raise ConfigError(f"{where}: `verify.factories` entries must read module:function, got {reference!r}")
    if mode not in FACTORY_MODES:
        raise ConfigError(f"{where}: a factory's `mode` must be one of {', '.join(map(repr, FACTORY_MODES))}, got {mode!r}")
    return Factory(reference, mode)


def _dynamo_settings(table: object, where: str) -> DynamoSettings:
    if not isinstance(table, dict):
        raise ConfigError(f"{where}: [tool.dynalint.dynamo] must be a table")
    values: dict[str, object] = {}
    for key, value in table.items():
        attribute = CONFIG_KEYS.get(key)
        if attribute is None:
            raise ConfigError(
                f"{where}: unknown key `dynamo.{key}` in [tool.dynalint.dynamo] (known keys: {', '.join(CONFIG_KEYS)})"
            )
        if attribute in BOOL_SETTINGS:
            if not isinstance(value, bool):
                raise ConfigError(f"{where}: `dynamo.{key}` must be true or false, got {value!r}")
            values[attribute] = value
        else:
            values[attribute] = _string_list(value, f"dynamo.{key}", where)
    return DynamoSettings().updated(values)


def _string_list(value: object, key: str, where: str) -> tuple[str, ...]:
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise ConfigError(f"{where}: `{key}` must be a list of strings, got {type(value).__name__}: {value!r}")
    return tuple(value)


def _check_selectors(key: str, selectors: tuple[str, ...], where: str, may_be_empty: bool = False) -> tuple[str, ...]:
    """The selectors with rule names turned into codes; a ``ConfigError`` naming ``key`` for an unknown one.

    An empty ``select`` (``--select ""``, ``select = []``) would switch every rule off without a word, so
    it is an error; an empty ``ignore`` or ``extend-select`` changes nothing and is allowed.
    """
    if not selectors and key.strip("`-") == "select" and not may_be_empty:
        raise ConfigError(
            f"{where}: {key} is empty, which would select no rule; name codes (DYN101), prefixes (DYN1), "
            "rule names (print-call) or ALL"
        )
    try:
        return selection.resolve_selectors(selectors)
    except selection.UnknownSelector as error:
        raise ConfigError(f"{where}: {key} names no rule: {error}") from None
