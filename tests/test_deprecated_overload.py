"""DYN517 ``deprecated-overload``: ``x.add_(s, t)``, ``x.addcmul_(s, a, b)`` and ``x.addcdiv_(s, a, b)``.

The scalar-first overloads of these in-place methods (old optimizers' ``exp_avg.mul_(beta1).add_(1 - beta1, grad)``)
do not bind to the signature Dynamo handles them with, and break (GB0117); today's overloads and the out-of-place
methods trace. Checked here: what is flagged and at what confidence, what is not (today's overload, out-of-place
calls, a keyword already given, a module-level function), the safe fix's text, and, under real Dynamo, that the
flagged lines are exactly the break lines and that the fixed program compiles without a break and computes the same.
"""

from __future__ import annotations

import pytest

from dynalint.api import fix_source, lint_source
from dynalint.project.config import Config

PROGRAM = """\
import torch


def moments(exp_avg, exp_avg_sq, grad, beta1: float, beta2: float):
    exp_avg.mul_(beta1).add_(1 - beta1, grad)
    exp_avg_sq.mul_(beta2).addcmul_(1 - beta2, grad, grad)
    exp_avg.add_(grad, alpha=1 - beta1)
    exp_avg_sq.addcmul_(grad, grad, value=1 - beta2)
    shifted = exp_avg.add(0.5, grad)
    exp_avg.addcdiv_(-0.1, exp_avg, exp_avg_sq.sqrt().add_(1e-8))
    return shifted + grad.sub(2, grad)


def run():
    state = torch.zeros(3), torch.ones(3), torch.linspace(0.1, 0.3, 3)
    return moments(*state, 0.9, 0.99), state


result = torch.compile(run, backend="eager")()
"""


def findings(source: str = PROGRAM) -> list[tuple[int, str]]:
    return [(f.start.line, f.confidence.value) for f in lint_source(source, "optim.py", Config(select=("DYN517",)))]


def test_the_scalar_first_in_place_calls_are_flagged() -> None:
    assert findings() == [(5, "likely"), (6, "likely"), (10, "likely")]


def test_on_a_known_tensor_the_finding_is_certain() -> None:
    source = "import torch\n\n\n@torch.compile\ndef f(g):\n    t = torch.zeros(3)\n    t.add_(0.5, g)\n    return t\n"
    assert findings(source) == [(7, "certain")]


def test_a_python_value_or_a_module_function_is_not_flagged() -> None:
    source = ("import torch\n\n\n@torch.compile\ndef f(g):\n    n = 3\n    n.add_(1, 2)\n"
              "    return torch.add(g, 1, 2)\n")
    assert findings(source) == []


def test_the_fix_moves_the_scalar_to_its_keyword() -> None:
    fixed = fix_source(PROGRAM, "optim.py", Config(select=("DYN517",)))
    assert "exp_avg.mul_(beta1).add_(grad, alpha=1 - beta1)" in fixed
    assert "exp_avg_sq.mul_(beta2).addcmul_(grad, grad, value=1 - beta2)" in fixed
    assert "exp_avg.addcdiv_(exp_avg, exp_avg_sq.sqrt().add_(1e-8), value=-0.1)" in fixed
    assert findings(fixed) == []
    assert [a for a in PROGRAM.splitlines() if a not in fixed.splitlines()] == [PROGRAM.splitlines()[i] for i in (4, 5, 9)]


@pytest.mark.torch
def test_dynamo_breaks_where_dynalint_says() -> None:
    from conftest import dynamo_break_lines

    assert dynamo_break_lines(PROGRAM) == {line for line, _ in findings()}


@pytest.mark.torch
def test_the_fixed_program_compiles_whole_and_computes_the_same() -> None:
    from conftest import dynamo_break_lines

    fixed = fix_source(PROGRAM, "optim.py", Config(select=("DYN517",)))
    assert dynamo_break_lines(fixed) == set()
    before, after = {}, {}
    exec(compile(PROGRAM, "optim.py", "exec"), before)  # noqa: S102 - the test's own program
    exec(compile(fixed, "optim.py", "exec"), after)  # noqa: S102
    import torch

    (out_before, state_before), (out_after, state_after) = before["result"], after["result"]
    assert torch.equal(out_before, out_after)
    assert all(torch.equal(a, b) for a, b in zip(state_before, state_after))
