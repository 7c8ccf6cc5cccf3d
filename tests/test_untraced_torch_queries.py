"""DYN003 on the torch calls a detector makes around its inputs (pytorch-ood's ODIN and Mahalanobis): the old
``Variable`` wrapper, which Dynamo's trace rules skip (GB0007; ``test_skipped_functions`` checks the lookup), and
``torch.is_inference_mode_enabled()`` / ``torch.is_inference(t)``, which Dynamo looks up as in-graph functions and
then refuses (GB0046, GB0208). Measured on torch 2.13 by the torch test: each breaks at its line.
"""

from __future__ import annotations

import pytest

from dynalint.api import lint_source
from dynalint.project.config import Config

PROGRAM = """\
import torch
from torch.autograd import Variable


def predict(x):
    if torch.is_inference_mode_enabled():
        x = x.clone()
    if torch.is_inference(x):
        x = x.clone()
    v = Variable(x, requires_grad=True)
    return v * 2


torch.compile(predict, backend="eager")(torch.rand(3))
"""


def flagged() -> set[int]:
    return {f.start.line for f in lint_source(PROGRAM, "detector.py", Config(select=("DYN003",)))}


def test_each_query_and_the_wrapper_is_flagged() -> None:
    assert flagged() == {6, 8, 10}


@pytest.mark.torch
def test_dynamo_breaks_where_dynalint_says() -> None:
    from conftest import dynamo_break_lines

    assert dynamo_break_lines(PROGRAM) == flagged()
