"""DYN004 on changes to ``os.environ`` in compiled code: reading the environment traces, changing it breaks.

accelerate's ``patch_environment`` writes ``os.environ[key] = str(value)``, and training loops seed with
``os.environ["PYTHONHASHSEED"] = str(seed)``. Measured on torch 2.13 (``bench/skiplist/derive.py``, and again by the
torch test here): the item assignment (the mapping's ``__setitem__``), ``setdefault``, ``pop`` and ``update`` are
skipped by Dynamo (GB0007); ``os.environ.get`` and ``os.environ[key]`` trace (DYN305 notes that they are read once).
"""

from __future__ import annotations

import textwrap

import pytest

from dynalint.api import lint_source
from dynalint.project.config import Config

PROGRAM = textwrap.dedent("""\
    import os

    import torch


    def configure(x, seed):
        os.environ["PYTHONHASHSEED"] = str(seed)
        home = os.environ.get("HOME")
        user = os.environ["USER"] if "USER" in os.environ else home
        os.environ.setdefault("DYNALINT_PROBE", "1")
        os.environ.pop("DYNALINT_PROBE", None)
        return x + len(user or "")


    torch.compile(configure, backend="eager")(torch.randn(2), 3)
""")


def breaking() -> dict[int, str]:
    return {f.start.line: f.message for f in lint_source(PROGRAM, "env.py", Config()) if f.code == "DYN004"}


def test_writes_to_the_environment_are_flagged_and_reads_are_not() -> None:
    found = breaking()
    assert sorted(found) == [7, 10, 11]
    assert found[7].startswith("`os.environ[key] = value` cannot be traced by torch.compile (GB0007")


@pytest.mark.torch
def test_dynamo_breaks_where_dynalint_says() -> None:
    from conftest import dynamo_break_lines

    assert dynamo_break_lines(PROGRAM) == set(breaking())
