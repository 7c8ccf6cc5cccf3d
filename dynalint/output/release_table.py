"""What ``dynalint rule CODE`` adds under a rule's page: how each of its patterns fared on each measured torch.

Rendered from the version table (``model/torch_releases.py``, made from ``rules/versions.json``): one row
per pattern the page's Examples show (``*``, every Example of the rule, first), one column per measured
release, each cell saying whether the pattern broke the graph there and with which GB ids. Findings on a
target torch follow the same table (``pipeline/selection.for_target``).
"""

from __future__ import annotations

from dynalint.model.torch_releases import MEASURED, PATTERNS

WHOLE_RULE = "*"


def _cell(breaks: bool, gb_ids: tuple[str, ...]) -> str:
    if not breaks:
        return "no break"
    return "breaks" + (f" ({', '.join(gb_ids)})" if gb_ids else "")


def _minor(release: str) -> str:
    return ".".join(release.split(".")[:2])


def release_table(code: str) -> str:
    """The rule's per-release table as Markdown, or a line saying why there is none."""
    patterns = sorted((pattern for rule, pattern in PATTERNS if rule == code), key=lambda p: (p != WHOLE_RULE, p))
    if not patterns:
        return (f"## Measured releases\n\nNot tabled: {code}'s hazard is not a graph break, so its findings are "
                f"reported alike on every torch ({', '.join(MEASURED)} measured).")
    header = "| pattern | " + " | ".join(f"torch {_minor(r)}" for r in MEASURED) + " |"
    lines = ["## Measured releases", "", header, "|---" * (len(MEASURED) + 1) + "|"]
    for pattern in patterns:
        shown = "any Example" if pattern == WHOLE_RULE else (f"`{pattern}`" if pattern else "the rest")
        cells = " | ".join(_cell(*PATTERNS[(code, pattern)][release]) for release in MEASURED)
        lines.append(f"| {shown} | {cells} |")
    lines += ["", f"Each cell: whether the page's Examples of that pattern break the graph under real Dynamo on "
                  f"that release ({', '.join(MEASURED)}; `python bench/versions/matrix.py`). With `target-torch` "
                  f"(default: the installed torch) on a release where a pattern does not break, its findings are "
                  f"not reported; where it breaks with other ids, they are named."]
    return "\n".join(lines)
