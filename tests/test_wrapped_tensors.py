"""DYN004 on eagerpy's wrapped tensors (``analysis/wrapped_tensors.py``): the uses Dynamo cannot trace of a wrapped
tensor handed in, and comparisons of any wrapped tensor, next to the uses that trace.

Measured on torch 2.13 with eagerpy 0.30 by the torch test here: in ``norms_of``, ``len`` of the wrapped parameter
breaks (line 6, the first use: certain), ``+``, ``/`` and ``.raw`` trace, the comparison of a sum made in the
compiled code breaks (line 12); ``flatten()`` and ``*`` after the first break trace in this straight call (they are
flagged likely: they broke on the bench's foolbox attacks). In ``attack``, ``ep.astensor_`` breaks (line 18) and
gives up the frame: ``len`` of its result is flagged likely.
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


    def norms_of(x: ep.Tensor, y: ep.Tensor):
        n = len(x)
        flat = x.flatten()
        scaled = x * 2
        total = x + y
        half = x / 2
        raw = x.raw
        if (total < 0).any():
            n += 1
        return n, flat, scaled, half, raw


    def attack(inputs):
        x, restore = ep.astensor_(inputs)
        n = len(x)
        shifted = x - 1
        return restore(shifted), n


    ep.astensor(torch.rand(2))
    torch.compile(norms_of, backend="eager")(ep.astensor(torch.rand(2, 3)), ep.astensor(torch.rand(2, 3)))
    torch.compile(attack, backend="eager")(torch.rand(2, 3))
""")


def flagged() -> dict[int, tuple[str, Confidence]]:
    return {f.start.line: (f.message, f.confidence) for f in lint_source(PROGRAM, "attack.py", Config())
            if f.code == "DYN004"}


def test_breaking_uses_of_wrapped_tensors_handed_in_and_comparisons_are_flagged() -> None:
    found = flagged()
    assert {line: confidence for line, (_, confidence) in found.items()} == {
        6: Confidence.CERTAIN, 7: Confidence.LIKELY, 8: Confidence.LIKELY, 12: Confidence.CERTAIN,
        18: Confidence.CERTAIN, 19: Confidence.LIKELY}
    assert found[6][0].startswith("`len(eagerpy.Tensor)` cannot be traced by torch.compile (GB4841")
    assert found[12][0].startswith("`eagerpy.Tensor < ...` cannot be traced by torch.compile (GB6215")


def test_a_parameter_bound_again_is_not_taken_for_a_wrapped_input() -> None:
    source = textwrap.dedent("""\
        import eagerpy as ep
        import torch


        @torch.compile
        def count(x: ep.Tensor):
            return len(x)


        @torch.compile
        def count_raw(x: ep.Tensor):
            x = x.raw
            return len(x)
    """)
    assert [f.start.line for f in lint_source(source, "attack.py", Config()) if f.code == "DYN004"] == [7]


@pytest.mark.torch
def test_dynamo_breaks_on_the_certain_findings_and_nowhere_unflagged() -> None:
    if importlib.util.find_spec("eagerpy") is None:
        pytest.skip("the measurement needs eagerpy installed")
    from conftest import dynamo_break_lines

    certain = {line for line, (_, confidence) in flagged().items() if confidence is Confidence.CERTAIN}
    everything = {f.start.line for f in lint_source(PROGRAM, "attack.py", Config())}
    assert certain == dynamo_break_lines(PROGRAM) == {6, 12, 18}
    assert dynamo_break_lines(PROGRAM) <= everything
