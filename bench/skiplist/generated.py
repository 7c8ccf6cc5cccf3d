"""Write a generated module of dynalint, or say whether the one in the checkout is stale (``--check``).
Shared by ``derive.py`` and ``in_graph.py``."""

from __future__ import annotations

import sys
from pathlib import Path


def write_or_check(path: Path, text: str, check: bool, root: Path) -> int:
    """With ``check``: 1 when ``path`` differs from ``text``, else 0; otherwise write it. Says which on stderr."""
    if check:
        stale = not path.exists() or path.read_text(encoding="utf-8") != text
        print("stale" if stale else "up to date", file=sys.stderr)
        return 1 if stale else 0
    path.write_text(text, encoding="utf-8")
    print(f"wrote {path.relative_to(root)}", file=sys.stderr)
    return 0
