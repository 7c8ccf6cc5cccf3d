"""``python -m dynalint``: the same entry point as the ``dynalint`` console script."""

from __future__ import annotations

from dynalint.cli import main

if __name__ == "__main__":
    main()
