"""The same tree gives the same findings, byte for byte, whatever the hash seed and however many runs at once.

The case that used to vary: rule state keyed by ``id(node)`` outlived the separately parsed function it
described, and CPython reuses a freed node's id. After a function full of mask *stores* (``x[m] = 0``,
which DYN105 remembers as not to be flagged), the ids of a later function's mask *reads* collided with
them and a different few hundred of its 3,000 DYN105 findings went missing on each run.
"""

from __future__ import annotations

import importlib.util
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

SEEDS = ("1", "2", "3")
READS = 3000


def _many_masks() -> str:
    lines = ["import torch", "", "", "@torch.compile", "def stores(x: torch.Tensor) -> torch.Tensor:"]
    lines += [f"    x[x > {i}] = 0" for i in range(READS)]
    # A function between the two keeps the first one's tree from being the one still alive.
    lines += ["    return x", "", "", "@torch.compile", "def between(x: torch.Tensor) -> torch.Tensor:", "    return x"]
    lines += ["", "", "@torch.compile", "def reads(x: torch.Tensor) -> torch.Tensor:"]
    lines += [f"    y{i} = x[x > {i}]" for i in range(READS)]
    lines += ["    return x", ""]
    return "\n".join(lines)


def _start(path: Path, seed: str) -> subprocess.Popen[bytes]:
    # --no-cache: every run lints (a cached answer would hide a difference), and none writes a cache
    # into the folder the test runs from.
    return subprocess.Popen(
        [sys.executable, "-m", "dynalint", "--no-cache", "--output-format", "json", "--exit-zero", "-q", str(path)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env={**os.environ, "PYTHONHASHSEED": seed},
    )


def _outputs(path: Path) -> list[bytes]:
    """One run alone, then one per seed all at once."""
    serial = _start(path, "0").communicate(timeout=600)[0]
    running = [_start(path, seed) for seed in SEEDS]
    return [serial, *(process.communicate(timeout=600)[0] for process in running)]


def test_thousands_of_mask_reads_after_mask_stores_are_all_reported_every_time(tmp_path: Path) -> None:
    source = tmp_path / "many_masks.py"
    source.write_text(_many_masks(), encoding="utf-8")
    outputs = _outputs(source)
    assert len(set(outputs)) == 1, "the runs disagree"
    findings = json.loads(outputs[0])
    first_read = _many_masks().splitlines().index("    y0 = x[x > 0]") + 1
    reads = [f for f in findings if f["code"] == "DYN105"]
    assert sorted(f["location"]["row"] for f in reads) == list(range(first_read, first_read + READS))


@pytest.mark.skipif(importlib.util.find_spec("torch") is None, reason="torch's sources are the real tree here")
def test_a_real_library_tree_gives_identical_output_under_every_seed() -> None:
    # torch/nn is read as text, never imported: 138 files of real model code.
    spec = importlib.util.find_spec("torch")
    assert spec is not None and spec.submodule_search_locations
    tree = Path(spec.submodule_search_locations[0]) / "nn"
    outputs = _outputs(tree)
    assert len(set(outputs)) == 1, "the runs disagree"
    assert json.loads(outputs[0]), "torch/nn has findings: an empty output would prove nothing"
