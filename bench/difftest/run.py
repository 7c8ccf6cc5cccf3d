"""The differential tester: generated programs, judged line by line by Dynamo and by dynalint.

    python bench/difftest/run.py --programs 10000 [--seed 0] [--jobs 2] [--cached] [--shrink 40]

Generates ``--programs`` seeds' programs (``grammar.py``; seeds that give the same program count once:
10,000 seeds give 5,000 and more distinct programs), runs each under Dynamo on the
CPU (``oracle.py``; verdicts are kept in ``~/.cache/dynalint-bench/difftest-verdicts.json`` by the
program's hash, so a program judged before is never run again; ``--cached`` runs Dynamo for none and scores
only the programs with a kept verdict), lints each with
dynalint, and prints the per-line confusion tables (``compare.py``) by use, by construct, by line role and
by rule, with the agreement on traced lines. ``--shrink K`` cuts K disagreements down (``shrink.py``)
and writes them to ``--cases`` as regression cases with their recorded verdicts. About 0.3 s a program
on one core of this machine: 5,000 distinct programs take 12 to 15 minutes with two jobs.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE.parents[1]))

from compare import agreement, compare, predicted_breaks, render, tables  # noqa: E402
from grammar import Program, generate  # noqa: E402
from oracle import Verdict, judge  # noqa: E402

VERDICTS = Path.home() / ".cache" / "dynalint-bench" / "difftest-verdicts.json"


def _key(source: str) -> str:
    return hashlib.sha256(source.encode()).hexdigest()[:20]


def verdicts_for(programs: list[Program], jobs: int, cache: Path, cached_only: bool = False) -> list[Verdict]:
    """Dynamo's verdict on each program, from the cache where it has one (only from it, ``cached_only``)."""
    known: dict[str, dict[str, object]] = json.loads(cache.read_text()) if cache.is_file() else {}
    missing = [p for p in programs if _key(p.source) not in known]
    if missing and not cached_only:
        for program, verdict in zip(missing, judge([p.source for p in missing], jobs)):
            if verdict.error != "the worker died":
                known[_key(program.source)] = verdict.as_json()
        cache.parent.mkdir(parents=True, exist_ok=True)
        cache.write_text(json.dumps(known))
    return [Verdict.from_json(known[_key(p.source)]) if _key(p.source) in known else Verdict(error="not judged")
            for p in programs]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--programs", type=int, default=10000, help="seeds (10,000 give 5,000+ distinct programs)")
    parser.add_argument("--seed", type=int, default=0, help="the first seed; programs use consecutive seeds")
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--cache", type=Path, default=VERDICTS, help="where Dynamo's verdicts are kept")
    parser.add_argument("--cached", action="store_true",
                        help="never run Dynamo: score only the programs whose verdicts are kept")
    parser.add_argument("--shrink", type=int, default=0, help="shrink this many disagreements")
    parser.add_argument("--cases", type=Path, default=HERE.parents[1] / "tests" / "difftest_cases",
                        help="where shrunk disagreements are written")
    parser.add_argument("--out", type=Path, help="write every disagreement (program, line, outcome) here as JSON")
    args = parser.parse_args()

    started = time.perf_counter()
    distinct: dict[str, Program] = {}  # the grammar's space is finite: two seeds may give one program
    for seed in range(args.seed, args.seed + args.programs):
        program = generate(seed)
        distinct.setdefault(program.source, program)
    programs = list(distinct.values())
    verdicts = verdicts_for(programs, args.jobs, args.cache, args.cached)
    judged_at = time.perf_counter()
    results = []
    errors = not_judged = 0
    for program, verdict in zip(programs, verdicts):
        if verdict.error == "not judged":
            not_judged += 1
            continue
        if verdict.error is not None:
            errors += 1
            continue
        results.append(compare(program, verdict, predicted_breaks(program.source, f"prog_{program.seed}.py")))
    by = tables(results)
    total = sum((c for c in by["role"].values()), start=type(next(iter(by["role"].values())))())
    print(f"{len(programs)} distinct programs (seeds {args.seed}..{args.seed + args.programs - 1}), {errors} raised "
          f"and were left out{f', {not_judged} have no kept verdict (--cached)' if not_judged else ''}; Dynamo {judged_at - started:.0f} s, dynalint {time.perf_counter() - judged_at:.0f} s")
    print(f"per-line agreement on traced lines: {agreement(total):.4f} "
          f"(tp {total['tp']}, fn {total['fn']}, fp {total['fp']}, tn {total['tn']}; "
          f"findings on untraced lines: {total['untraced']}; conditional findings on clean lines: "
          f"{total['conditional']})")
    for group in ("role", "use", "rule"):
        print(f"\nby {group}:")
        print("\n".join(render(by, group)))
    print("\nby construct, the 30 with the lowest agreement:")
    print("\n".join(render(by, "construct", 30)))
    disagreements = [(j, o) for j in results for o in j.disagreements]
    if args.out:
        args.out.write_text(json.dumps([{"seed": j.program.seed, "construct": j.program.construct, "line": o.line,
                                         "outcome": o.outcome, "rules": o.rules, "gb_ids": o.gb_ids,
                                         "text": j.program.source.splitlines()[o.line - 1].strip()}
                                        for j, o in disagreements], indent=1))
    if args.shrink:
        from shrink import shrink

        args.cases.mkdir(parents=True, exist_ok=True)
        seen: set[tuple[str, str]] = set()
        for judged, outcome in disagreements:
            kind = (judged.program.construct, outcome.outcome)
            if kind in seen or len(seen) >= args.shrink:
                continue
            seen.add(kind)
            small = shrink(judged.program, outcome.line, outcome.outcome, args.jobs, outcome.gb_ids)
            (verdict,) = judge([small.source], 1)
            name = f"{outcome.outcome}_{judged.program.seed}"
            (args.cases / f"{name}.py").write_text(small.source, encoding="utf-8")
            (args.cases / f"{name}.json").write_text(json.dumps(
                {"construct": judged.program.construct, "line": small.probe_lines[0], "dynamo": verdict.as_json()},
                indent=1) + "\n", encoding="utf-8")
            print(f"shrunk seed {judged.program.seed} ({outcome.outcome} on "
                  f"`{judged.program.source.splitlines()[outcome.line - 1].strip()}`) to {args.cases / name}.py")


if __name__ == "__main__":
    main()
