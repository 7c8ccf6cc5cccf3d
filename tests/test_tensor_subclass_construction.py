"""DYN519 ``tensor-subclass-construction``: building a tensor subclass whose ``__init__`` takes arguments.

pina's ``LabelTensor(x, labels)`` and monai's ``MetaTensor(x, affine=...)`` keep metadata in an ``__init__``.
Measured on torch 2.13: building such an instance in compiled code breaks at the call (GB7312), when the
``__init__`` (own or inherited from a class of the tree) names a parameter after ``self``, required or with a
default; a subclass without one, or whose ``__init__`` takes only ``*args`` / ``**kwargs``, is built in the graph.
"""

from __future__ import annotations

import textwrap

import pytest

from dynalint.api import lint_source
from dynalint.project.config import Config

PROGRAM = textwrap.dedent("""\
    import torch


    class Labeled(torch.Tensor):
        @staticmethod
        def __new__(cls, x, labels, *args, **kwargs):
            if isinstance(x, Labeled):
                return x
            return super().__new__(cls, x)

        def __init__(self, x, labels):
            self.labels = labels


    class Inherits(Labeled):
        pass


    class WithAffine(torch.Tensor):
        def __new__(cls, x, affine=None):
            return torch.as_tensor(x).as_subclass(cls)

        def __init__(self, x, affine=None):
            self.affine = affine


    class Loose(torch.Tensor):
        def __new__(cls, x, unit=None):
            return super().__new__(cls, x)

        def __init__(self, *args, **kwargs):
            super().__init__()


    class Bare(torch.Tensor):
        pass


    def labeled(x):
        return Labeled(x * 2, ["a"])


    def inherited(x):
        return Inherits(x * 2, ["a"])


    def with_affine(x):
        return WithAffine(x * 2)


    def loose(x):
        return Loose(x * 2, unit="m")


    def bare(x):
        return Bare(x * 2)


    torch.compile(labeled, backend="eager")(torch.randn(2))
    torch.compile(inherited, backend="eager")(torch.randn(2))
    torch.compile(with_affine, backend="eager")(torch.randn(2))
    torch.compile(loose, backend="eager")(torch.randn(2))
    torch.compile(bare, backend="eager")(torch.randn(2))
""")


def flagged() -> set[int]:
    return {f.start.line for f in lint_source(PROGRAM, "subclasses.py", Config(select=("DYN519",)))}


def test_subclasses_whose_init_takes_arguments_are_flagged_where_built() -> None:
    lines = PROGRAM.splitlines()
    assert [lines[n - 1].strip() for n in sorted(flagged())] == [
        'return Labeled(x * 2, ["a"])',
        'return Inherits(x * 2, ["a"])',
        "return WithAffine(x * 2)",
    ]


@pytest.mark.torch
def test_dynamo_breaks_where_dynalint_says() -> None:
    from conftest import dynamo_break_lines

    assert dynamo_break_lines(PROGRAM) == flagged()
