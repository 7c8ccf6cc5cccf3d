"""Write, as JSON, the texts dynalint's lint stage hands LibCST for a tree: its compiled functions.

    python bench/segments.py TREE OUT.json

Run from the project root. ``speed.py`` uses it once per corpus (untimed) and then times parsing
those texts with LibCST alone: with ``ast.parse`` of every file, that is the work any lint stage
built on LibCST does before a rule runs, the floor under the whole-tree ratio.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

from dynalint import api
from dynalint.lint import engine
from dynalint.project import config, files


def main() -> None:
    tree, out = sys.argv[1], Path(sys.argv[2])
    settings = config.load(start=Path.cwd())
    result = api.lint_paths([tree], settings)
    assert result.program is not None
    modules = {id(record.module): record.module for record in result.program.functions.values()}
    texts = []
    for summary in sorted(modules.values(), key=lambda m: m.path):
        source = files.read_source(Path(summary.path), summary.path, settings.max_file_kb)  # as the lint stage reads it
        if isinstance(source, str):
            texts += engine.compiled_segments(source, summary, result.program)
    out.write_text(json.dumps(texts), encoding="utf-8")
    print(f"{len(texts)} compiled functions, {sum(t.count(chr(10)) for t in texts)} lines", file=sys.stderr)


if __name__ == "__main__":
    main()
