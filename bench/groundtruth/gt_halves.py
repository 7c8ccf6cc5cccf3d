"""Ground-truth bench, the two halves: the development half scored on every run, the sealed half kept apart.

``sealed.toml`` (beside this file) names the sealed libraries and the one command that scores them.
Those libraries are compiled like the others, and their break sites are counted (the compile side),
but dynalint's findings are scored against them only when the driver is given ``--sealed``: by
default the summary scores the development half alone, so that nobody tuning the analysis reads the
sealed half's misses or false positives. No torch is imported here.

Part of the harness run by ``python bench/groundtruth/groundtruth.py`` (see ``README.md``).
"""

from __future__ import annotations

import sys
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

if sys.version_info >= (3, 11):
    import tomllib
else:  # dynalint's own requirement on older Pythons
    import tomli as tomllib

SEALED_FILE = Path(__file__).resolve().with_name("sealed.toml")


@dataclass(frozen=True)
class Sealed:
    libraries: tuple[str, ...]
    command: str
    # The pick after this one, built blind while this half waits for its score: in neither half (never
    # scored) until ``libraries`` names it, and protected like the sealed half meanwhile.
    following: tuple[str, ...] = ()

    @property
    def protected(self) -> tuple[str, ...]:
        """Every library whose findings nobody may read yet: the sealed half and the pick after it."""
        return self.libraries + self.following


def load(path: Path = SEALED_FILE) -> Sealed:
    """The sealed half as committed (no sealed library when the file is absent)."""
    if not path.exists():
        return Sealed((), "")
    data = tomllib.loads(path.read_text(encoding="utf-8"))
    return Sealed(tuple(data.get("libraries", ())), str(data.get("command", "")), tuple(data.get("following", ())))


def half(libraries: Iterable[str], sealed: Sealed, want_sealed: bool) -> list[str]:
    """The libraries to score: the sealed ones with ``want_sealed``, else all the others but the next pick's."""
    return sorted(lib for lib in set(libraries)
                  if lib not in sealed.following and (lib in sealed.libraries) == want_sealed)
