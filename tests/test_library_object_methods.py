"""DYN004 on the methods of a library object that training code holds, measured one by one.

A trainer keeps ``self.accelerator = Accelerator(...)`` (or a module-level one, or one a factory method of its class
returns, as pytorch-accelerated's ``self._create_accelerator()``) and calls it in its step.
Measured on torch 2.13 with accelerate 1.15 (``bench/skiplist/derive.py``, which builds the object before compiling):
``print`` breaks (GB0059, the builtin inside), ``free_memory``, ``unwrap_model`` and ``save`` break (GB0007), and
``pad_across_processes`` branches on a tensor (GB0170); ``gather``, ``reduce``, ``log``, ``prepare`` of a module and
``wait_for_everyone`` trace in one process and are not flagged. The static test needs no accelerate (names are
resolved through the imports); the torch test compiles the program where accelerate is installed.
"""

from __future__ import annotations

import textwrap

import pytest

from dynalint.api import lint_source
from dynalint.project.config import Config

PROGRAM = textwrap.dedent("""\
    import torch
    from accelerate import Accelerator


    class Trainer:
        def __init__(self):
            self.accelerator = Accelerator(cpu=True)
            self._made = self._create_accelerator()
            self.model = torch.nn.Linear(3, 3)

        def _create_accelerator(self):
            return Accelerator(cpu=True)

        def step(self, x):
            self.accelerator.print("step")
            y = self.accelerator.gather(self.model(x))
            self._made.unwrap_model(self.model)
            return y.sum()


    trainer = Trainer()
    accelerator = Accelerator(cpu=True)


    def f(x):
        accelerator.free_memory()
        accelerator.wait_for_everyone()
        return trainer.step(x) + 1


    torch.compile(f, backend="eager")(torch.randn(2, 3))
""")


def flagged() -> dict[int, str]:
    return {f.start.line: f.message for f in lint_source(PROGRAM, "trainer.py", Config()) if f.code == "DYN004"}


def test_measured_methods_of_a_held_accelerator_are_flagged_and_traced_ones_are_not() -> None:
    found = flagged()
    assert sorted(found) == [15, 17, 26]
    assert found[15].startswith("`accelerate.Accelerator(...).print()` cannot be traced by torch.compile (GB0059")
    # ``self._made`` comes from a factory method of the class, which returns ``Accelerator(...)``
    assert found[17].startswith("`accelerate.Accelerator(...).unwrap_model()` cannot be traced by torch.compile")
    assert found[26].startswith("`accelerate.Accelerator(...).free_memory()` cannot be traced by torch.compile (GB0007")


@pytest.mark.torch
def test_dynamo_breaks_where_dynalint_says() -> None:
    pytest.importorskip("accelerate", reason="the measurement needs accelerate installed")
    from conftest import dynamo_break_lines

    assert dynamo_break_lines(PROGRAM) == set(flagged())
