"""Which torch the findings are for: ``target-torch`` or the installed torch, and rules' version ranges.

Used by the engine when choosing rules. The installed version is read from package metadata, which
never imports torch. Ranges are the small subset of PEP 440 that rule metadata uses: comma-separated
``>=``, ``>``, ``<=``, ``<``, ``==``, ``!=`` clauses over dotted release numbers.
"""

from __future__ import annotations

import operator
import os
import re
import sys
from functools import lru_cache

NEWEST_KNOWN = "2.13"  # the torch the rule pages are proven against
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


def target(configured: str | None) -> str:
    return configured or installed_torch() or NEWEST_KNOWN


def in_range(version: str, specifier: str) -> bool:
    """Whether ``version`` satisfies every clause of ``specifier`` (an empty specifier admits all)."""
    have = release(version)
    for clause in filter(None, (c.strip() for c in specifier.split(","))):
        match = _CLAUSE.match(clause)
        if match is None:
            raise ValueError(f"unsupported version specifier {clause!r}")
        op, wanted = match.groups()
        width = max(len(have), len(release(wanted)))
        pad = lambda v: v + (0,) * (width - len(v))  # noqa: E731
        if not _OPERATORS[op](pad(have), pad(release(wanted))):
            return False
    return True
