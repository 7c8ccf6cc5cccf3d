"""Which torch the findings are for, and which measured release speaks for it.

The target is, in order: ``target-torch`` from the config; the torch installed in the environment that
runs dynalint, read from its package metadata (never by importing torch); the torch the project pins
(``pyproject.toml`` dependencies, ``requirements*.txt`` at its root); the newest release the rule pages
were measured on (``model/torch_releases.py``). ``measured_for`` picks the measured release whose
findings stand for a target: the newest one of the same or an older minor release, else the oldest.

Used by the selection stage (which rules run, how each finding reads on the target) and by the cache
keys. Ranges are the small subset of PEP 440 that rule metadata and pins use: comma-separated ``>=``,
``>``, ``<=``, ``<``, ``==``, ``!=`` (and ``~=``, ``==X.*``) clauses over dotted release numbers.
"""

from __future__ import annotations

import operator
import os
import re
import sys
from functools import lru_cache
from pathlib import Path

from dynalint.model.torch_releases import BASELINE, MEASURED

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - Python 3.10
    import tomli as tomllib

# ``torch==2.14.1``, ``torch>=2.4,<2.15``, ``torch[opt]~=2.13`` in a requirement line.
_TORCH_REQUIREMENT = re.compile(r"^\s*torch\s*(?:\[[^\]]*\])?\s*(?P<spec>(?:[<>=!~]=?[^;#]*)?)(?:[;#].*)?$")
_CLAUSE = re.compile(r"^\s*(>=|<=|==|!=|>|<)\s*([0-9][0-9.]*)\s*$")
_OPERATORS = {">=": operator.ge, "<=": operator.le, "==": operator.eq, "!=": operator.ne, ">": operator.gt,
              "<": operator.lt}


def release(version: str) -> tuple[int, ...]:
    """``2.13.0+cpu`` -> ``(2, 13)``: the numeric release, trailing zeros dropped."""
    numbers = [int(part) for part in re.findall(r"\d+", version.split("+")[0])[:3]]
    while len(numbers) > 1 and numbers[-1] == 0:
        numbers.pop()
    return tuple(numbers)


@lru_cache(maxsize=1)
def installed_torch() -> str | None:
    """The version in the name of the first ``torch-*.dist-info`` folder on ``sys.path`` (where
    ``importlib.metadata`` would find it, without its 20 ms of imports); else what the metadata says."""
    for entry in sys.path:
        try:
            names = os.listdir(entry or ".")
        except OSError:
            continue
        for name in names:
            if name.startswith("torch-") and name.endswith(".dist-info"):
                return name[len("torch-"):-len(".dist-info")]
    from importlib import metadata

    try:
        return metadata.version("torch")
    except metadata.PackageNotFoundError:
        return None


def target(configured: str | None, root: Path | None = None) -> str:
    """The torch the findings are for (see the module's docstring for the order asked)."""
    return configured or installed_torch() or (pinned_torch(root) if root is not None else None) or MEASURED[-1]


@lru_cache(maxsize=16)
def pinned_torch(root: Path) -> str | None:
    """The torch the project at ``root`` pins: an exact pin as written, else the newest measured release a
    range admits (``torch>=2.4`` -> the newest measured), from ``pyproject.toml``'s dependencies (optional
    ones too) or a ``requirements*.txt``; ``None`` when nothing names torch or no measured release fits."""
    specifiers = _torch_specifiers(root)
    for specifier in specifiers:  # an exact pin anywhere (a test extra's ``torch==2.13.0``) says most
        exact = re.fullmatch(r"===?\s*([0-9][0-9.]*)(?:\.\*)?", specifier.strip())
        if exact:
            return exact.group(1)
    for specifier in specifiers:
        try:
            fitting = [r for r in MEASURED if in_range(r, specifier)]
        except ValueError:
            continue  # a specifier this subset does not read
        if fitting:
            return fitting[-1]
    return None


def _torch_specifiers(root: Path) -> list[str]:
    """The version specifiers of every requirement on ``torch`` the project writes down, in the order found."""
    lines: list[str] = []
    try:
        project = tomllib.loads((root / "pyproject.toml").read_text(encoding="utf-8")).get("project", {})
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError):
        project = {}
    if isinstance(project, dict):
        lines += [d for d in project.get("dependencies", ()) if isinstance(d, str)]
        optional = project.get("optional-dependencies", {})
        if isinstance(optional, dict):
            lines += [d for group in optional.values() if isinstance(group, list) for d in group if isinstance(d, str)]
    try:
        requirement_files = sorted(root.glob("requirements*.txt"))
    except OSError:
        requirement_files = []
    for path in requirement_files:
        try:
            lines += path.read_text(encoding="utf-8").splitlines()
        except (OSError, UnicodeDecodeError):
            continue
    found = (_TORCH_REQUIREMENT.match(line) for line in lines)
    return [match.group("spec").strip() for match in found if match]


def measured_for(version: str) -> tuple[str, bool]:
    """The measured release whose findings stand for ``version``, and whether ``version`` is newer than every
    measured one. Releases compare by minor release (``2.14`` is measured by ``2.14.1``, ``2.12`` by
    ``2.11.0``); one older than every measured release is measured by the oldest."""
    minor = release(version)[:2]
    older = [r for r in MEASURED if release(r)[:2] <= minor]
    if not older:
        return MEASURED[0], False
    return older[-1], minor > release(MEASURED[-1])[:2]


def minor_text(version: str) -> str:
    """``2.14.1`` -> ``2.14``: how a release is named in messages."""
    return ".".join(str(n) for n in release(version)[:2])


def in_range(version: str, specifier: str) -> bool:
    """Whether ``version`` satisfies every clause of ``specifier`` (an empty specifier admits all)."""
    have = release(version)
    for clause in filter(None, (c.strip() for c in specifier.split(","))):
        if clause.startswith("~="):  # ``~=2.13`` is ``>=2.13, ==2.*``; ``~=2.13.1`` is ``>=2.13.1, ==2.13.*``
            written = tuple(int(n) for n in re.findall(r"\d+", clause[2:]))  # trailing zeros count here
            upper = ".".join(map(str, (*written[:-2], written[-2] + 1))) if len(written) > 1 else ""
            clause = f">={clause[2:].strip()}" + (f",<{upper}" if upper else "")
            if not in_range(version, clause):
                return False
            continue
        if clause.startswith("==") and clause.endswith(".*"):  # ``==2.12.*``: that minor release
            prefix = release(clause[2:-2])
            if release(version)[:len(prefix)] != prefix:
                return False
            continue
        match = _CLAUSE.match(clause)
        if match is None:
            raise ValueError(f"unsupported version specifier {clause!r}")
        op, wanted = match.groups()
        width = max(len(have), len(release(wanted)))
        pad = lambda v: v + (0,) * (width - len(v))  # noqa: E731
        if not _OPERATORS[op](pad(have), pad(release(wanted))):
            return False
    return True
