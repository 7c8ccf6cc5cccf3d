"""Write a generated module of dynalint, or say whether the one in the checkout is stale (``--check``).
Shared by ``derive.py``, ``in_graph.py`` and ``tensor_methods.py``."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
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


def regenerate(description: str, path: Path, render: Callable[[], str], root: Path) -> int:
    """The command line of a generator whose module is all ``render()`` says: ``[--check]``."""
    parser = argparse.ArgumentParser(description=description)
    parser.add_argument("--check", action="store_true", help="exit 1 when the module is stale")
    return write_or_check(path, render(), parser.parse_args().check, root)
