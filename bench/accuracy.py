"""Findings on real code nobody here wrote: counts per rule and confidence, and a sample to review.

    python bench/accuracy.py [--sample 40] [--seed 7]

Lints ``diffusers`` and the installed torch's ``torch/nn`` (see ``corpus.py``), prints the number of
findings per rule and per confidence for each, then a reproducible random sample of findings with
their source line and why-chain, for a person to judge: would this line break the graph if the code
were compiled? The verdicts of our review are in the issue note; the sample is what to re-check.
"""

from __future__ import annotations

import argparse
import collections
import random
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
sys.path.insert(0, str(Path(__file__).resolve().parent))

import corpus  # noqa: E402

from dynalint.api import lint_paths  # noqa: E402
from dynalint.project.config import Config  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sample", type=int, default=40)
    parser.add_argument("--seed", type=int, default=7)
    options = parser.parse_args()
    everything = []
    for label, folder in (("diffusers", corpus.diffusers()), ("torch/nn", corpus.torch_nn())):
        started = time.perf_counter()
        result = lint_paths([str(folder)], Config())
        elapsed = time.perf_counter() - started
        crashes = [f for f in result.findings if f.code.startswith("DYN9")]
        findings = [f for f in result.findings if not f.code.startswith("DYN9")]
        print(f"\n== {label}: {result.files_checked} files, {len(findings)} findings, "
              f"{len(crashes)} DYN9xx diagnostics, {elapsed:.1f} s")
        by_rule = collections.Counter((f.code, f.name) for f in findings)
        by_confidence = collections.Counter((f.code, f.confidence.value) for f in findings)
        for (code, name), count in sorted(by_rule.items()):
            split = ", ".join(f"{c}: {by_confidence[(code, c)]}" for c in ("certain", "likely") if by_confidence[(code, c)])
            print(f"  {code} {name:<24} {count:>4}  ({split})")
        for crash in crashes:
            print(f"  {crash.filename}:{crash.start.line}: {crash.code} {crash.message}")
        everything += [(label, folder, f) for f in findings]
    rng = random.Random(options.seed)
    sample = rng.sample(everything, min(options.sample, len(everything)))
    print(f"\n== random sample of {len(sample)} findings (seed {options.seed})")
    for index, (label, folder, finding) in enumerate(sample, start=1):
        path = Path(finding.filename)
        line = path.read_text(encoding="utf-8").splitlines()[finding.start.line - 1].strip()
        where = path.relative_to(folder.parent)
        print(f"{index:>3}. {where}:{finding.start.line} {finding.code} [{finding.confidence.value}]")
        print(f"     {line[:110]}")
        if finding.region:
            print(f"     via {finding.region.describe()[:160]}")


if __name__ == "__main__":
    main()
