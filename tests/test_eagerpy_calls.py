"""DYN004 on eagerpy, the framework-neutral tensor wrapper foolbox's attacks run on: its package is taken whole.

Measured on torch 2.13 with eagerpy 0.30 (``bench/skiplist/derive.py``, and again by the torch test here): 14 of the 15
eagerpy functions measured break on the tensors it wraps (``ep.zeros``, ``ep.where``, ``ep.norms.l2``: GB0055, a
torch call given an argument form Dynamo has no implementation for; ``ep.logical_and``: GB6215; ``ep.astensor_``:
GB0116), so any call into the package is reported, named by the GB id its calls logged most often. ``ep.astensor``
traced where eagerpy had wrapped a tensor before (the measurement builds one first), and is left alone; the first
call in a process breaks (GB0007), a miss this leaves.
"""

from __future__ import annotations

import importlib.util
import textwrap

import pytest

from dynalint.api import lint_source
from dynalint.model.finding import Confidence
from dynalint.project.config import Config

PROGRAM = textwrap.dedent("""\
    import eagerpy as ep
    import torch


    def attack_step(x, epsilon):
        noise = ep.zeros(x, x.shape)
        norms = ep.norms.l2(ep.flatten(x), axis=-1)
        return (x + epsilon * noise).raw, norms.raw


    inputs = ep.astensor(torch.rand(2, 3))
    torch.compile(attack_step, backend="eager")(inputs, 0.1)
""")


def flagged(confidence: Confidence = Confidence.CERTAIN) -> dict[int, str]:
    return {f.start.line: f.message for f in lint_source(PROGRAM, "attack.py", Config())
            if f.code == "DYN004" and f.confidence is confidence}


def test_calls_into_eagerpy_are_flagged_but_astensor() -> None:
    found = flagged()
    assert sorted(found) == [6, 7]
    assert found[6].startswith("`eagerpy.zeros()` cannot be traced by torch.compile (GB0055")
    # ``epsilon * noise`` multiplies what a call into eagerpy gave: likely (``test_wrapped_tensors.py``)
    assert sorted(flagged(Confidence.LIKELY)) == [8]


@pytest.mark.torch
def test_dynamo_breaks_where_dynalint_says() -> None:
    if importlib.util.find_spec("eagerpy") is None:
        pytest.skip("the measurement needs eagerpy installed")
    from conftest import dynamo_break_lines

    assert dynamo_break_lines(PROGRAM) == set(flagged())
