"""DYN205 on ``torch.Generator`` objects, each case measured on torch 2.13 (graph-break logs): creating
one breaks (GB0363), reseeding one breaks (GB7650), and a torch sampling call given one breaks (GB0055);
``generator=None`` does not, and a call of the project's own function is traced into, not reported."""

from __future__ import annotations

import textwrap

from dynalint.api import lint_source
from dynalint.project.config import Config

SOURCE = textwrap.dedent("""\
    import torch
    from torch import nn


    class Noisy(nn.Module):
        def __init__(self):
            super().__init__()
            self.g = torch.Generator()

        def forward(self, x, generator=None):
            self.g.manual_seed(3)
            a = torch.rand(x.shape, generator=self.g)
            b = torch.randn(x.shape, generator=generator)
            c = torch.randn(x.shape, generator=None)
            d = torch.Generator().manual_seed(2)
            e = x.new_empty(x.shape).normal_(generator=generator)
            f = self.helper(x, generator=generator)
            return a + b + c + e + f

        def helper(self, x, generator=None):
            return x


    model = torch.compile(Noisy())
""")
LINES = SOURCE.splitlines()


def test_creating_reseeding_and_sampling_with_a_generator_are_reported_and_generator_none_is_not() -> None:
    found = {LINES[f.start.line - 1].strip(): f for f in lint_source(SOURCE, "noisy.py", Config(select=("DYN205",)))}
    assert set(found) == {
        "self.g.manual_seed(3)",
        "a = torch.rand(x.shape, generator=self.g)",
        "b = torch.randn(x.shape, generator=generator)",
        "d = torch.Generator().manual_seed(2)",
        "e = x.new_empty(x.shape).normal_(generator=generator)",
    }
    assert "`Tensor.normal_()`" in found["e = x.new_empty(x.shape).normal_(generator=generator)"].message
    # A parameter that defaults to None may be None: only a generator built as one is sure.
    assert found["b = torch.randn(x.shape, generator=generator)"].confidence.value == "likely"
    assert found["a = torch.rand(x.shape, generator=self.g)"].confidence.value == "certain"


def test_a_generator_parameter_no_compiled_caller_passes_is_none_while_traced() -> None:
    # laplace's ``sample(n_samples, generator=None)`` called from compiled code as ``sample(100)``: the
    # ground truth saw no break at its ``torch.randn(..., generator=generator)`` (it is ``None`` there).
    source = textwrap.dedent("""\
        import torch


        def draw(x, generator=None):
            return torch.randn(x.shape, generator=generator)


        def draw_seeded(x, generator=None):
            return torch.randn(x.shape, generator=generator)


        @torch.compile
        def f(x, g):
            return draw(x) + draw_seeded(x, generator=g)
    """)
    found = [f.start.line for f in lint_source(source, "draws.py", Config(select=("DYN205",)))]
    assert found == [9]


def test_a_generator_parameter_passed_on_from_a_caller_that_was_left_none_is_none_too() -> None:
    # Measured on torch 2.13: compiling ``sample(3)``, whose ``generator=None`` is handed on to ``draw`` as
    # ``generator=generator``, gave no break at ``draw``'s ``torch.randn``; compiling ``sample_given(3,
    # torch.Generator())`` broke there (GB0055). laplace's samplers pass theirs on through two levels.
    source = textwrap.dedent("""\
        import torch


        def draw(n, generator=None):
            return torch.randn(n, generator=generator)


        def draw_given(n, generator=None):
            return torch.randn(n, generator=generator)


        def sample(n, generator=None):
            return draw(n, generator=generator)


        def sample_given(n, generator=None):
            return draw_given(n, generator)


        @torch.compile
        def f(n, g):
            return sample(n) + sample_given(n, g)
    """)
    found = [f.start.line for f in lint_source(source, "draws.py", Config(select=("DYN205",)))]
    assert found == [9]


LOCAL_GENERATORS = textwrap.dedent("""\
    import numpy as np
    import torch


    @torch.compile
    def subsample(x, seed: int):
        rng = np.random.default_rng(seed)
        rows = rng.choice(3, 2, replace=False)
        g = torch.Generator()
        noise = torch.randn(2, generator=g)
        return x[torch.tensor(rows)] + noise
""")


def test_a_generator_built_in_a_local_is_known_by_its_constructor() -> None:
    """Run under Dynamo (torch 2.13): ``default_rng`` breaks (GB0294), its ``choice`` (GB0156), the generator's
    creation (GB0363) and a sampling call given it (GB0055), each on its line; the local makes the last certain."""
    lines = LOCAL_GENERATORS.splitlines()
    found = [(lines[f.start.line - 1].strip(), f.confidence.value)
             for f in lint_source(LOCAL_GENERATORS, "sub.py", Config(select=("DYN205",)))]
    assert found == [("rng = np.random.default_rng(seed)", "certain"), ("rows = rng.choice(3, 2, replace=False)", "certain"),
                     ("g = torch.Generator()", "certain"), ("noise = torch.randn(2, generator=g)", "certain")]
