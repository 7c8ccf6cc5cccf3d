"""DYN521: a tensordict tensorclass built from positional fields in compiled code.

Measured on torch 2.13 with tensordict 0.14.3: the ``__init__`` tensordict generates raises while Dynamo traces a
call with positional fields, so the call breaks ("Observed exception", GB0088), for a ``TensorClass["frozen"]``
subclass, a plain ``TensorClass`` subclass, a subclass of one and an ``@tensorclass`` class alike. Fields given by
keyword, and reading a tensorclass passed in, trace. Dynamo gives the function up at the first such call, so a
second one in it does not break. A class of the tree that only shares the name is not one.
"""

from __future__ import annotations

import textwrap

import pytest

from dynalint.api import lint_source
from dynalint.project.config import Config

PROGRAM = textwrap.dedent("""\
    import torch
    from tensordict import TensorClass, tensorclass


    class Frozen(TensorClass["frozen"]):
        params: torch.Tensor
        step: torch.Tensor = torch.tensor(0)


    class Plain(TensorClass):
        x: torch.Tensor


    class Derived(Plain):
        y: torch.Tensor = None


    @tensorclass
    class Decorated:
        x: torch.Tensor


    def frozen(x):
        a = Frozen(x, torch.tensor(1))
        b = Plain(x)
        return a.params + b.x


    def plain(x):
        return Plain(x).x


    def derived(x):
        return Derived(x, x).y


    def decorated(x):
        return Decorated(x, batch_size=[]).x


    def by_keyword(x):
        a = Frozen(params=x)
        b = Plain(x=x)
        return a.params + b.x


    def reads(state):
        return state.params * 2


    torch.compile(frozen, backend="eager")(torch.ones(2))
    torch.compile(plain, backend="eager")(torch.ones(2))
    torch.compile(derived, backend="eager")(torch.ones(2))
    torch.compile(decorated, backend="eager")(torch.ones(2))
    torch.compile(by_keyword, backend="eager")(torch.ones(2))
    torch.compile(reads, backend="eager")(Frozen(params=torch.ones(2)))
""")

LOOKALIKE = textwrap.dedent("""\
    import torch


    class TensorClass:
        def __init__(self, x):
            self.x = x


    class State(TensorClass):
        pass


    @torch.compile
    def step(x):
        return State(x).x * 2
""")


def flagged(program: str = PROGRAM) -> set[int]:
    return {f.start.line for f in lint_source(program, "states.py", Config()) if f.code == "DYN521"}


def line_of(text: str, program: str = PROGRAM) -> int:
    return next(n for n, line in enumerate(program.splitlines(), 1) if text in line)


def test_positional_fields_are_flagged_once_per_function() -> None:
    # Dynamo gives the function up at the first: ``b = Plain(x)`` after it runs eagerly (measured)
    calls = ("Frozen(x, torch.tensor(1))", "return Plain(x).x", "Derived(x, x)", "Decorated(x, batch_size=[])")
    assert flagged() == {line_of(call) for call in calls}


def test_a_class_of_the_tree_named_like_tensordicts_is_not_a_tensorclass() -> None:
    assert flagged(LOOKALIKE) == set()


@pytest.mark.torch
def test_dynamo_breaks_where_dynalint_says() -> None:
    pytest.importorskip("tensordict")
    from conftest import dynamo_break_lines

    assert dynamo_break_lines(PROGRAM) == {f.start.line for f in lint_source(PROGRAM, "states.py", Config())}
