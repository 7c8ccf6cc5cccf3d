"""DYN206 on the ``pathlib.Path`` methods that reach the file system, in compiled code.

A trainer's checkpoint callback runs ``self.save_dir.mkdir(parents=True, exist_ok=True)``; a sampler checks
``(Path(root) / name).exists()``. Measured on torch 2.13 (and again by the torch test): each file-system method
breaks (GB0007), path arithmetic (``/``, ``with_suffix``, ``name``, ``str``) traces, and a path made in the frame
cannot be rebuilt at the break (GB0092), so Dynamo gives the function up and its later breaks never happen.
"""

from __future__ import annotations

import textwrap

import pytest

from dynalint.api import lint_source
from dynalint.project.config import Config

PROGRAM = textwrap.dedent("""\
    import tempfile
    from pathlib import Path

    import torch

    ROOT = tempfile.mkdtemp()


    class Saver:
        def __init__(self, root):
            self.save_dir = Path(root)

        def step(self, x):
            self.save_dir.mkdir(parents=True, exist_ok=True)
            name = self.save_dir.with_suffix(".pt").name
            return x + len(name)


    saver = Saver(ROOT)


    def f(x, name):
        out = Path(ROOT) / name
        out.mkdir(parents=True, exist_ok=True)
        there = out.exists()
        return saver.step(x) * (2 if there else 3)


    def g(x, name):
        stem = (Path(ROOT) / name).with_suffix(".pt").stem
        return x + len(str(Path(ROOT).parent)) + len(stem)


    torch.compile(f, backend="eager")(torch.randn(2), "probe")
    torch.compile(g, backend="eager")(torch.randn(2), "probe")
""")


def findings() -> dict[int, str]:
    return {f.start.line: f.message for f in lint_source(PROGRAM, "paths.py", Config()) if f.code == "DYN206"}


def line_of(text: str) -> int:
    return next(number for number, line in enumerate(PROGRAM.splitlines(), 1) if line.strip() == text)


def test_file_system_methods_of_paths_are_flagged_and_path_arithmetic_is_not() -> None:
    found = findings()
    made = line_of("out.mkdir(parents=True, exist_ok=True)")
    assert sorted(found) == sorted([line_of("self.save_dir.mkdir(parents=True, exist_ok=True)"), made])
    # the path made in ``f`` gives the frame up: ``out.exists()`` then runs eagerly and does not break
    assert f"line {line_of('there = out.exists()')}" in found[made]


@pytest.mark.torch
def test_dynamo_breaks_where_dynalint_says() -> None:
    from conftest import dynamo_break_lines

    assert dynamo_break_lines(PROGRAM) == set(findings())
