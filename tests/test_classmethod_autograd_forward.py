"""DYN514: applying an autograd ``Function`` whose ``forward`` is a ``classmethod`` (entmax's sparse softmaxes).

Measured on torch 2.13 (the torch test runs the program under Dynamo): ``Fn.apply(...)`` on an input that
requires grad breaks with GB7312, called directly or through a module-level alias of ``apply``; the same
``Function`` with a static ``forward`` traces, and so does a ``classmethod`` helper that a static ``forward``
calls.
"""

from __future__ import annotations

import pytest

from dynalint.api import lint_source
from dynalint.project.config import Config

PROGRAM = """\
import torch


class ClassForward(torch.autograd.Function):
    @classmethod
    def forward(cls, ctx, x, dim=-1):
        y = torch.softmax(x, dim)
        ctx.save_for_backward(y)
        return y

    @classmethod
    def backward(cls, ctx, grad):
        (y,) = ctx.saved_tensors
        return grad * y, None


class StaticForward(torch.autograd.Function):
    @classmethod
    def project(cls, x, dim):
        return torch.softmax(x, dim)

    @staticmethod
    def forward(ctx, x, dim=-1):
        y = StaticForward.project(x, dim)
        ctx.save_for_backward(y)
        return y

    @staticmethod
    def backward(ctx, grad):
        (y,) = ctx.saved_tensors
        return grad * y, None


class_softmax = ClassForward.apply
layer = torch.nn.Linear(4, 4)


def direct(x):
    return ClassForward.apply(layer(x), -1)


def aliased(x):
    return class_softmax(layer(x), 0)


def static(x):
    return StaticForward.apply(layer(x), -1)


x = torch.randn(3, 4)
torch.compile(direct, backend="eager")(x)
torch.compile(aliased, backend="eager")(x)
torch.compile(static, backend="eager")(x)
"""


def flagged() -> dict[int, str]:
    found = lint_source(PROGRAM, "functions.py", Config(select=("DYN514",)))
    return {f.start.line: f.message.split("`")[1] for f in found}


def test_apply_and_its_alias_on_a_function_with_a_classmethod_forward() -> None:
    assert flagged() == {39: "ClassForward.apply(...)", 43: "class_softmax(...)"}


def test_a_static_forward_is_not_flagged_even_with_a_classmethod_helper() -> None:
    assert 47 not in flagged()


def test_the_alias_is_followed_across_modules(tmp_path) -> None:
    from dynalint.api import lint_paths

    (tmp_path / "functions.py").write_text(PROGRAM.split("class StaticForward")[0] + "softmax = ClassForward.apply\n")
    (tmp_path / "model.py").write_text(
        "import torch\nfrom functions import softmax\n\n\n@torch.compile\ndef run(x):\n    return softmax(x, -1)\n")
    found = lint_paths([str(tmp_path)], Config(select=("DYN514",))).findings
    assert [(f.filename.rpartition("/")[2], f.start.line) for f in found] == [("model.py", 7)]


@pytest.mark.torch
def test_dynamo_breaks_where_dynalint_says() -> None:
    from conftest import dynamo_break_lines

    assert dynamo_break_lines(PROGRAM) == set(flagged()) == {39, 43}
