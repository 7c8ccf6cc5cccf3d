"""Ground-truth bench, the cover: the fewest compile-seconds of models that observe all that the scoring reads.

    python bench/groundtruth/gt_cover.py [--write]      (from cached results: run a whole bench first)

What a library's score reads from its models' results (``gt_report.collect``, ``gt_score.score``): its
break sites with their GB ids (a site without one: whether its reasons are data-dependent), the lines
Dynamo traced, and the entry points the models compiled. Many models observe nothing another does not:
a smaller ``resnet`` traces the lines a larger one does. ``cover`` picks, library by library, models
until every one of those facts is observed, cheapest first per new fact (greedy weighted set cover, on
each result's recorded ``seconds``), so that the scores of the cover's results equal those of all the
results. What differs is only what the summary shows of the models themselves (models run, break
events, failures, the model names listed beside a site).

The cover is as good as the run it was made from: made from the results of every model on these pins,
it holds for these pins. After a pin, a builder or torch changes, run every model again and remake it
(``--write`` rewrites ``cover.txt``, which ``groundtruth.py --cover`` compiles). No torch is imported.

Part of the harness run by ``python bench/groundtruth/groundtruth.py`` (see ``README.md``).
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
COVER_FILE = HERE / "cover.txt"

Fact = tuple[Any, ...]


def facts(result: Mapping[str, Any]) -> set[Fact]:
    """What the scoring reads of one model's result: its break sites (with GB id, or with whether the
    reason is data-dependent when there is no id), traced lines and entry points."""
    from gt_score import is_data_dependent

    seen: set[Fact] = {("entry", entry) for entry in result.get("entries", ())}
    for observed in result.get("modes", {}).values():
        seen.update(("traced", path, line) for path, line in observed["traced"])
        for brk in observed["breaks"]:
            if brk["rel"] is None or brk["line"] <= 0:
                continue  # outside the library: not scored
            kind = brk["gb_id"] or is_data_dependent((), [brk["reason"]])
            seen.add(("site", brk["rel"], brk["line"], kind))
    return seen


def cover(results: Mapping[str, Mapping[str, Any]], default_seconds: float = 5.0) -> list[str]:
    """Model ids, in the catalogue's order, whose results together hold every fact of ``results`` within
    each library, chosen greedily by new facts per second (ties: fewer seconds, then catalogue order)."""
    by_library: dict[str, list[str]] = {}
    for model_id in results:
        by_library.setdefault(model_id.split("/", 1)[0], []).append(model_id)
    chosen: set[str] = set()
    for models in by_library.values():
        known = {m: facts(results[m]) for m in models}
        cost = {m: max(float(results[m].get("seconds") or default_seconds), 0.1) for m in models}
        missing = set().union(*known.values())
        while missing:
            best = max(models, key=lambda m: (len(known[m] & missing) / cost[m], -cost[m], -models.index(m)))
            gained = known[best] & missing
            if not gained:
                break
            chosen.add(best)
            missing -= gained
    return [m for m in results if m in chosen]


def read(path: Path = COVER_FILE) -> list[str]:
    """The committed cover's model ids (comment lines, starting with ``#``, skipped)."""
    lines = path.read_text(encoding="utf-8").splitlines() if path.exists() else []
    return [line.strip() for line in lines if line.strip() and not line.startswith("#")]


def write(models: Iterable[str], header: str, path: Path = COVER_FILE) -> None:
    path.write_text("".join(f"# {line}\n" for line in header.splitlines()) + "".join(f"{m}\n" for m in models),
                    encoding="utf-8")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--write", action="store_true", help=f"rewrite {COVER_FILE.name} with the cover")
    options = parser.parse_args()
    sys.path.insert(0, str(HERE))
    import gt_models
    import gt_runner

    catalogue = gt_models.catalog()
    results = {m: json.loads(gt_runner.cache_file(m).read_text(encoding="utf-8"))
               for m in catalogue if gt_runner.cache_file(m).exists()}
    if len(results) < len(catalogue):
        raise SystemExit(f"{len(catalogue) - len(results)} of {len(catalogue)} models have no cached result: "
                         "run them all first (groundtruth.py --compile-only)")
    chosen = cover(results)
    seconds = sum(float(results[m].get("seconds") or 0) for m in chosen)
    everything = sum(float(r.get("seconds") or 0) for r in results.values())
    summary = (f"{len(chosen)} of {len(results)} models, {seconds / 60:.0f} of {everything / 60:.0f} min of recorded "
               f"compile time (summed over models, one at a time)")
    print(summary)
    if options.write:
        write(chosen, "The cover of the ground truth (gt_cover.py --write): models whose results hold every break\n"
              f"site, GB id, traced line and entry point of all {len(results)} models' results on "
              f"{gt_runner.cache_folder().name}.\n{summary}.")
        print(f"wrote {COVER_FILE}")


if __name__ == "__main__":
    main()
