"""Version matrix -> the linter's version table (``dynalint/model/torch_releases.py``).

The matrix (``rules/versions.json``, made by ``matrix.py``) says, per torch release, whether each
annotated line of each rule page's Example breaks and with which GB ids. The linter needs that per
*pattern*: which of a rule's findings the line is (a call rule's callee, ``torch.distributed.reduce_scatter``).
Each Example is linted here, statically, with its annotated rules selected; the pattern of the finding
on an annotated line names that line's entry. A pattern breaks on a release when any of its lines
breaks there, with the GB ids of those lines that are the rule's (not those another rule annotating the
line declares, nor those the line shows on every release that the rule does not declare, such as the
break inside a comprehension DYN111 is about); ``*`` is the rule's own entry, over all its lines.

Only ``break`` pages are tabled: the other hazards (recompiles, rank divergence, stale values) are not
graph breaks, and their findings stay as the rules report them on every release.

Run by ``matrix.py`` after it writes the matrix (and on its own: ``python bench/versions/table.py``); the
page tests check that the committed module is what this makes of the committed matrix. Imports
dynalint, so it runs with dynalint's requirements installed (LibCST); no torch.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
import tomllib
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from dynalint.api import lint_source  # noqa: E402
from dynalint.checks import ALL_RULES  # noqa: E402
from dynalint.lint import rule_pages  # noqa: E402
from dynalint.project.config import Config  # noqa: E402

MATRIX = ROOT / "rules" / "versions.json"


def baseline() -> str:
    """The torch the test environment pins (``torch==X`` in ``pyproject.toml``'s ``test`` extra): the release
    the rules' own GB ids and the pages are written for, whatever other releases the matrix holds."""
    with open(ROOT / "pyproject.toml", "rb") as f:
        extras = tomllib.load(f)["project"]["optional-dependencies"]
    pins = [m.group(1) for r in extras["test"] if (m := re.fullmatch(r"torch==([\d.]+)", r.replace(" ", "")))]
    if len(pins) != 1:
        raise SystemExit("pyproject.toml: the test extra must pin exactly one torch (torch==X.Y.Z)")
    return pins[0]
TABLE = ROOT / "dynalint" / "model" / "torch_releases.py"
WHOLE_RULE = "*"
GB_IDS = {rule.code: rule.gb_ids for rule in ALL_RULES}

Entry = dict[str, tuple[bool, tuple[str, ...]]]  # release -> (breaks, GB ids)


def line_patterns(block: rule_pages.Block, codes: set[str]) -> dict[tuple[int, str], str]:
    """``(line, code) -> pattern`` of the findings this block's annotated rules report."""
    findings = lint_source(block.source, f"{block.id}.py", Config(select=tuple(sorted(codes))))
    return {(f.start.line, f.code): f.pattern for f in findings}


def tabled(matrix: dict[str, Any], pages: dict[str, rule_pages.Page]) -> dict[tuple[str, str], Entry]:
    """``(code, pattern) -> {release: (breaks, GB ids)}`` over every break page's Example lines."""
    blocks = {block.id: block for page in pages.values() for block in page.blocks("Example")}
    table: dict[tuple[str, str], dict[str, tuple[bool, set[str]]]] = {}
    for block_id, described in sorted(matrix["blocks"].items()):
        if described["section"] != "Example" or described["kind"] != "break":
            continue
        annotated = {int(line): set(entry["codes"]) for line, entry in described["annotated"].items()}
        patterns = line_patterns(blocks[block_id], set().union(*annotated.values()))
        for line, codes in sorted(annotated.items()):
            for code in sorted(codes):
                seen_on = {release: measured["blocks"][block_id]["lines"][str(line)]
                           for release, measured in matrix["releases"].items()}
                # Not this rule's: ids another rule annotating the line declares, and ids the line shows on
                # every release that this rule does not declare (a break in a comprehension's body).
                theirs = {gb for other in codes - {code} for gb in GB_IDS.get(other, ())}
                theirs |= set.intersection(*(set(seen["gb_ids"]) for seen in seen_on.values())) - set(GB_IDS[code])
                for key in {(code, patterns.get((line, code), "")), (code, WHOLE_RULE)}:
                    per_release = table.setdefault(key, {})
                    for release, seen in seen_on.items():
                        own = set(seen["gb_ids"]) - theirs or set(seen["gb_ids"])
                        breaks, ids = per_release.get(release, (False, set()))
                        per_release[release] = (breaks or seen["breaks"], ids | own if seen["breaks"] else ids)
    return {key: {release: (breaks, tuple(sorted(ids))) for release, (breaks, ids) in sorted(per_release.items())}
            for key, per_release in sorted(table.items())}


def module_text(matrix: dict[str, Any], pages: dict[str, rule_pages.Page]) -> str:
    releases = sorted(matrix["releases"], key=lambda r: tuple(int(n) for n in r.split(".")))
    pinned = baseline()
    if pinned not in releases:
        raise SystemExit(f"the matrix must measure {pinned}, the torch the tests pin")
    rows = "".join(f"    {key!r}: {entry!r},\n" for key, entry in tabled(matrix, pages).items())
    return (
        '"""Generated by ``python bench/versions/table.py`` from ``rules/versions.json``; do not edit (a test\n'
        "checks it).\n\n"
        "Which of each rule's patterns break the graph on each measured torch release, and with which GB\n"
        "ids, as the rule pages' Examples showed under real Dynamo. Keyed by ``(code, pattern)``: a pattern\n"
        "is what ``Finding.pattern`` holds (a call rule's callee), ``*`` the rule over all its Examples. Read\n"
        'by ``pipeline/selection.py`` (``for_target``) and ``dynalint rule``; nothing here imports torch.\n"""\n\n'
        f"MEASURED: tuple[str, ...] = {tuple(releases)!r}\n"
        f"BASELINE = {pinned!r}  # the release the rules' own GB ids and the pages are written for\n\n"
        "PATTERNS: dict[tuple[str, str], dict[str, tuple[bool, tuple[str, ...]]]] = {\n"
        f"{rows}}}\n"
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--matrix", type=Path, default=MATRIX)
    parser.add_argument("--out", type=Path, default=TABLE)
    args = parser.parse_args(argv)
    matrix = json.loads(args.matrix.read_text(encoding="utf-8"))
    args.out.write_text(module_text(matrix, rule_pages.load_pages()), encoding="utf-8")
    print(f"wrote {args.out}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
