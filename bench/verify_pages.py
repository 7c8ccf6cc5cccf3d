"""Run ``dynalint --verify`` over every rule page's Example and Use-instead blocks and tally verdicts.

    python bench/verify_pages.py [--device cpu|cuda|auto] [--verify-backend eager|inductor]

The same check as the test suite's page tests, from the command line, with any device and backend:
on a GPU machine, ``--device cuda --verify-backend inductor`` compiles every example fully there.
Prints, per block, the verdicts of its findings, and at the end: Example findings confirmed with one of
their rule's GB ids, and Use-instead blocks that stayed clean (no finding, no observed break).
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from dynalint.lint import rule_pages  # noqa: E402


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--device", default="auto")
    parser.add_argument("--verify-backend", default="eager")
    options = parser.parse_args()
    tally: Counter[str] = Counter()
    with tempfile.TemporaryDirectory() as scratch:
        folders = {"Example": Path(scratch) / "examples", "Use instead": Path(scratch) / "use_instead"}
        for folder in folders.values():
            folder.mkdir()
        for page in rule_pages.load_pages().values():
            metadata = page.text.splitlines()[2]
            if "Kind:" in metadata and "Kind: break" not in metadata:
                continue  # hazard pages are proven by their own harness modes
            for section, folder in folders.items():
                for block in page.blocks(section):
                    if "dynalint-harness:" not in block.source:
                        (folder / f"{block.id.replace('-', '_')}.py").write_text(block.source, encoding="utf-8")
        for section, folder in folders.items():
            completed = subprocess.run(
                [sys.executable, "-m", "dynalint", "--verify", "--output-format", "json", "--device", options.device,
                 "--verify-backend", options.verify_backend, str(folder)],
                capture_output=True, text=True, cwd=folder,
            )
            print(completed.stderr.strip().splitlines()[-1] if completed.stderr.strip() else "", file=sys.stderr)
            findings = json.loads(completed.stdout or "[]")
            for finding in findings:
                verdict = finding["verify"]["verdict"] if finding.get("verify") else "unverified"
                right = verdict == "confirmed" and finding["verify"].get("matches_rule", finding["code"] == "DYN090")
                label = f"{section}: {finding['code']} {verdict}" + (" (rule's GB id)" if right else "")
                tally[label] += 1
                print(f"{Path(finding['filename']).name}:{finding['location']['row']} {finding['code']} "
                      f"{verdict} {','.join(finding['verify'].get('gb_ids', [])) if finding.get('verify') else ''}")
            if section == "Use instead":
                tally["Use instead: blocks"] = sum(1 for _ in folder.glob("*.py"))
                tally["Use instead: findings or observed breaks"] = len(findings)
    print("\nsummary:")
    for label, count in sorted(tally.items()):
        print(f"  {count:>4}  {label}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
