"""DYN004 on torch's backend and autocast queries, and on updating an averaged copy of a model, in compiled code.

Measured on torch 2.13 (``bench/skiplist/derive.py``, and again by the torch tests here): ``torch.backends.mps.
is_available()`` / ``is_built()`` and ``torch.get_autocast_cpu_dtype()`` return what Dynamo cannot put in the graph
(GB0208: accelerate's and coqui's device and precision checks); ``AveragedModel.update_parameters`` (torchtnt's SWA)
and ema-pytorch's ``EMA.update`` read a step counter into Python (GB0124); torchvision's ``normalize`` branches on the
std (GB0170), ``affine`` raises inside (GB0088) and ``perspective`` solves with a data-dependent shape (GB0036), while
``hflip`` and ``resize`` to a constant size trace. The second program needs ema-pytorch and torchvision (the bench's
environment, whose CUDA build of torchvision it first makes importable on a CPU torch).
"""

from __future__ import annotations

import importlib.util
import textwrap

import pytest

from conftest import TORCHVISION_PRELUDE
from dynalint.api import lint_source
from dynalint.project.config import Config

QUERIES = textwrap.dedent("""\
    import torch
    from torch.optim.swa_utils import AveragedModel


    class Trainer:
        def __init__(self):
            self.model = torch.nn.Linear(2, 2)
            self.swa = AveragedModel(self.model)

        def step(self, x):
            device = "mps" if torch.backends.mps.is_available() else "cpu"
            dtype = torch.get_autocast_cpu_dtype()
            self.swa.update_parameters(self.model)
            return self.model(x).to(dtype), device


    trainer = Trainer()
    torch.compile(trainer.step, backend="eager")(torch.randn(2))
""")

PREPARE = TORCHVISION_PRELUDE
TRANSFORMS = PREPARE + textwrap.dedent("""\
    import torch
    import torchvision.transforms.functional as TF
    from ema_pytorch import EMA


    class Augmenter:
        def __init__(self):
            self.net = torch.nn.Linear(4, 4)
            self.ema = EMA(self.net, update_after_step=0, update_every=1)

        def step(self, image):
            image = TF.hflip(image)
            image = TF.resize(image, [4, 4])
            image = TF.normalize(image, [0.5], [0.2])
            image = TF.affine(image, 10.0, [0, 0], 1.0, [0.0])
            self.ema.update()
            return self.net(image)


    augmenter = Augmenter()
    torch.compile(augmenter.step, backend="eager")(torch.ones(1, 4, 4))
""")
FIRST = PREPARE.count("\n")


def flagged(program: str, first: int = 0) -> dict[int, str]:
    return {f.start.line - first: f.message for f in lint_source(program, "step.py", Config()) if f.code == "DYN004"}


def test_backend_and_autocast_queries_and_an_averaged_models_update_are_flagged() -> None:
    found = flagged(QUERIES)
    assert sorted(found) == [11, 12, 13]
    assert found[11].startswith("`torch.backends.mps.is_available()` cannot be traced by torch.compile (GB0208")
    assert found[13].startswith("`torch.optim.swa_utils.AveragedModel(...).update_parameters()` cannot be traced")


def test_breaking_transforms_and_an_ema_update_are_flagged_and_tracing_ones_are_not() -> None:
    found = flagged(TRANSFORMS, FIRST)
    assert sorted(found) == [14, 15, 16]
    assert found[16].startswith("`ema_pytorch.EMA(...).update()` cannot be traced by torch.compile (GB0124")


@pytest.mark.torch
def test_dynamo_breaks_where_dynalint_says_on_the_queries() -> None:
    from conftest import dynamo_break_lines

    assert dynamo_break_lines(QUERIES) == set(flagged(QUERIES))


@pytest.mark.torch
def test_dynamo_breaks_where_dynalint_says_on_the_transforms() -> None:
    if importlib.util.find_spec("ema_pytorch") is None or importlib.util.find_spec("torchvision") is None:
        pytest.skip("the measurement needs ema-pytorch and torchvision installed")
    from conftest import dynamo_break_lines

    assert {line - FIRST for line in dynamo_break_lines(TRANSFORMS)} == set(flagged(TRANSFORMS, FIRST))
