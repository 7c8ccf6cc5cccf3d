"""Fix classifications that rest on a measurement outside the rule pages' single process.

DYN301's fix swaps a ``disable``d ``dist.all_reduce`` helper for the functional collective. On its page
(one process, world size 1) it removes the break and keeps the output. At world size 2, measured here, the
forward values stay the same but the gradients do not: the functional all_reduce reduces the gradient in
the backward pass, where the in-place one was invisible to autograd. That is why the fix is display-only.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from dynalint.checks.disabled_collective import DisabledCollective
from dynalint.model.finding import Applicability

HARNESS = Path(__file__).resolve().parent / "harness" / "collective_gradients.py"


@pytest.mark.torch
def test_functional_all_reduce_keeps_the_forward_but_changes_gradients_at_world_size_2() -> None:
    done = subprocess.run([sys.executable, str(HARNESS), "2"], capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr[-2000:]
    ranks = json.loads(done.stdout.strip().splitlines()[-1])
    for measured in ranks.values():
        assert measured["before-compiled"]["breaks"] >= 1 and measured["after-compiled"]["breaks"] == 0
        for mode in ("eager", "compiled"):
            assert measured[f"after-{mode}"]["forward"] == pytest.approx(measured[f"before-{mode}"]["forward"])
            assert measured[f"after-{mode}"]["grad"] != pytest.approx(measured[f"before-{mode}"]["grad"])
    assert DisabledCollective.fix is Applicability.DISPLAY_ONLY  # what the measurement above decides
