"""Ground-truth bench, reach: the library functions Dynamo traced that no compiled region of dynalint holds.

    python bench/groundtruth/gt_reach.py LIBRARY        (a development library: the sealed half is refused)

Most of what the static side misses outside a region (the summary's "misses outside a region") is a
function the call graph does not reach. This lists them from the cached model results: every function
of the library holding a line some model traced, that ``Program.region_of`` leaves uncompiled, those
holding a break site first, each with the calls written in reached functions whose last name is its
own (where a call-graph rule is missing, those calls usually say which). It lints the library's copied
source as the scoring does (``gt_static.lint``), so it reads what the sealed half must not show: it
refuses the sealed libraries (``sealed.toml``). No torch is imported; cached results only.

Part of the harness run by ``python bench/groundtruth/groundtruth.py`` (see ``README.md``).
"""

from __future__ import annotations

import argparse
import json
import sys
from collections import defaultdict
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path

import gt_halves
import gt_models
import gt_runner
import gt_static

Span = tuple[int, int, str]  # first line, last line, qualified name of a function


@dataclass(frozen=True)
class Unreached:
    function: str
    holds_break: bool
    calls: tuple[str, ...]  # ``caller: written`` in reached functions that may name it


def innermost(spans: Iterable[Span], line: int) -> str | None:
    """The qualified name of the smallest function span holding ``line``."""
    holding = [(end - start, name) for start, end, name in spans if start <= line <= end]
    return min(holding)[1] if holding else None


def unreached(traced: Mapping[str, set[int]], breaks: Mapping[str, set[int]], spans: Mapping[str, list[Span]],
              compiled: set[str], calls: Mapping[str, list[str]]) -> list[Unreached]:
    """The traced functions not in ``compiled``, break holders first, with the calls that may name them
    (``calls``: reached function -> callees as written)."""
    functions: dict[str, bool] = {}
    for path, lines in traced.items():
        for line in lines:
            name = innermost(spans.get(path, ()), line)
            if name is not None and name not in compiled:
                functions[name] = functions.get(name, False) or line in breaks.get(path, set())
    found = []
    for name, holds_break in functions.items():
        last = name.rpartition(".")[2]
        naming = sorted({f"{caller}: {written}" for caller, written_calls in calls.items() if caller in compiled
                         for written in written_calls if written.rpartition(".")[2] == last})
        found.append(Unreached(name, holds_break, tuple(naming[:4])))
    return sorted(found, key=lambda u: (not u.holds_break, u.function))


def _cached(library: str) -> tuple[dict[str, set[int]], dict[str, set[int]], set[str]]:
    """Traced lines and break lines per file of the library, and the entry points, from the cache."""
    traced: dict[str, set[int]] = defaultdict(set)
    breaks: dict[str, set[int]] = defaultdict(set)
    entries: set[str] = set()
    for path in sorted(gt_runner.cache_folder().glob(f"{library}__*.json")):
        result = json.loads(path.read_text(encoding="utf-8"))
        entries.update(result.get("entries") or ())
        for mode in (result.get("modes") or {}).values():
            if not isinstance(mode, dict):
                continue
            for file, line in mode.get("traced") or ():
                traced[file].add(line)
            for found in mode.get("breaks") or ():
                if found.get("rel"):
                    breaks[found["rel"]].add(int(found["line"]))
    return traced, breaks, entries


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("library", help="import name of a development library (torchsde, pyro, ...)")
    options = parser.parse_args(argv)
    if options.library in gt_halves.load().protected:
        parser.error(f"{options.library} is in the sealed half (or the pick after it); its reach is not shown before it is scored")
    traced, breaks, entries = _cached(options.library)
    if not traced:
        parser.error(f"no cached model result traced {options.library}: run groundtruth.py for it first")
    result = gt_static.lint(gt_models.package_of(options.library), entries)
    found = unreached(traced, breaks, result.named_spans, result.compiled, result.calls)
    print(f"{options.library}: {len(found)} traced functions in no region, "
          f"{sum(u.holds_break for u in found)} of them holding a break site")
    for u in found:
        print(f"{'B' if u.holds_break else ' '} {u.function}" + (f"  | {'; '.join(u.calls)}" if u.calls else ""))
    return 0


if __name__ == "__main__":
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    raise SystemExit(main())
