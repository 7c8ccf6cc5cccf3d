"""Where Python asks a value for its truth, and which of those values are tensors (DYN102).

Python asks for truth in the test of ``if``/``while``/conditional expressions/``assert``, the operand of
``not``, and every operand of ``and``/``or`` but the last, wherever the operation stands. A Python
container's truth is its length, known while Dynamo traces. An operand Dynamo never evaluates (the
right side of a compile-time guard that is true) is not asked. Each case's lines were checked under
Dynamo by the differential tester (``bench/difftest``); here the static side is pinned.
"""

from __future__ import annotations

import textwrap

import pytest

from dynalint.api import lint_source
from dynalint.project.config import Config

MODULE = """\
import torch
from torch import nn


def tracing_now():
    return torch.jit.is_scripting() or torch.compiler.is_compiling()


class Block(nn.Module):
    def forward(self, x: torch.Tensor, force: bool = False):
        y = x.clone()
{body}
        return y


torch.compile(Block())
"""
FIRST = MODULE.splitlines().index("{body}") + 1


def flagged(body: str) -> list[int]:
    """Lines of ``body`` (1-based) that DYN102 reports."""
    source = MODULE.replace("{body}", textwrap.indent(textwrap.dedent(body).strip("\n"), " " * 8))
    return [f.start.line - FIRST + 1 for f in lint_source(source, "block.py", Config(select=("DYN102",)))]


@pytest.mark.parametrize(("body", "lines"), [
    # ``and``/``or``/``not`` outside any ``if``: the operands before the last are asked.
    ("keep = (y.amax() > 3) or force", [1]),
    ("keep = force and y.isnan().any()", []),  # the tensor is the last operand: returned, not asked
    ("keep = force or y.isnan().any()", []),
    ("ok = not torch.isfinite(y).all()", [1]),
    ("ok = force or (y.mean() < 0 and force)", [1]),  # the inner ``and`` asks its left operand
    ("picked = [t for t in (y, y) if t.any() or force]", [1]),
    ("total = y.sum() if force else y.mean()", []),
    # A name bound to an ``or`` whose result may be the tensor is asked later.
    ("either = force or y.any()\nif either:\n    y = y * 2", [2]),
    ("assert (y.abs().max() < 1e9) or force", [1]),  # the ``or`` asks; the assert alone would not
    ("assert (y.abs().max() < 1e9)", []),
    ("if [y] or y.any():\n    y = y + 1", []),  # a non-empty display is true: the tensor is never asked
    ("if () or y.any():\n    y = y + 1", [1]),  # an empty one is false: it is
    ("parts = [y]\nif parts or y.any():\n    y = y + 1", []),  # Dynamo turns a plain assert on a tensor into a check in the graph
    ("assert not y.isnan().any()", [1]),  # but ``not`` asks first
])
def test_truth_is_asked_of_every_operand_but_the_last(body: str, lines: list[int]) -> None:
    assert flagged(body) == lines


@pytest.mark.parametrize("body", [
    "parts = [y, y * 2]\nif parts:\n    y = torch.cat(parts)",
    "parts = [y, y * 2]\ny = torch.stack(parts) if parts else y",
    "queue = [y]\nwhile queue:\n    y = y + queue.pop()",
    "pair = (y, y)\nif not pair:\n    y = y - 1",
    "table = {'a': y}\nassert table",
    "grown = [t * 2 for t in (y, y)]\nif grown and force:\n    y = grown[0]",
])
def test_a_container_of_tensors_is_asked_for_its_length(body: str) -> None:
    assert flagged(body) == []


@pytest.mark.parametrize("body", [
    "if torch.compiler.is_compiling() or y.sum() > 0:\n    y = y + 1",
    "if tracing_now() or not torch.isfinite(y).all():\n    y = y + 1",
    "under = torch.jit.is_scripting() or torch._dynamo.is_compiling()\nif under or y.any():\n    y = y + 1",
    "under = force or torch.compiler.is_compiling()\nok = under or bool(y.all())",
    "skip = not torch.compiler.is_compiling()\nif not skip or y.max() > 0:\n    y = y + 1",
])
def test_an_operand_behind_a_guard_true_under_trace_is_never_asked(body: str) -> None:
    assert flagged(body) == []


def test_a_name_rebound_to_a_plain_value_is_no_guard_any_more() -> None:
    body = "under = torch.compiler.is_compiling()\nunder = force\nif under or y.any():\n    y = y + 1"
    assert flagged(body) == [3]


@pytest.mark.parametrize(("body", "lines", "named"), [
    # A break in a loop's body or a ``try`` gives up the frame: nothing later in it is traced.
    ("for t in (y, y):\n    if t.amax() > 1:\n        y = y + t\nif y.any():\n    y = y - 1", [2], "line 4"),
    ("try:\n    scale = y.norm().item()\nexcept RuntimeError:\n    scale = 1.0\nok = not y.isnan().any()",
     [5], None),  # the ``.item()`` is DYN101's, which is not selected here: nothing hides line 5
    # Before the loop, or a break that may not happen (under an ``if``): nothing is hidden.
    ("if y.any():\n    y = y + 1\nfor t in (y, y):\n    if t.amax() > 1:\n        y = y + t", [1, 4], None),
    ("for t in (y, y):\n    if force:\n        if t.amax() > 1:\n            y = y + t\nif y.any():\n    y = y - 1",
     [3, 5], None),
])
def test_a_break_that_gives_up_the_frame_hides_what_follows(body: str, lines: list[int], named: str | None) -> None:
    source = MODULE.replace("{body}", textwrap.indent(body, " " * 8))
    found = lint_source(source, "block.py", Config(select=("DYN102",)))
    assert [f.start.line - FIRST + 1 for f in found] == lines
    if named is not None:  # the first finding names the line it hides, as a line of the file
        assert f"line {int(named.split()[1]) + FIRST - 1}" in found[0].message


def findings_of(body: str) -> list[tuple[int, str, str]]:
    source = MODULE.replace("{body}", textwrap.indent(textwrap.dedent(body).strip("\n"), " " * 8))
    return [(f.start.line - FIRST + 1, f.confidence.value, f.message)
            for f in lint_source(source, "block.py", Config(select=("DYN102",)))]


@pytest.mark.parametrize(("body", "condition"), [
    # A Python test before the tensor, however deep the tensor sits: Dynamo evaluates the test while
    # tracing, and only one of its values reaches the tensor.
    ("while (self.depth > 1 or y.sum() > 0) and force:\n    y = y * 2", "not (self.depth > 1)"),
    ("if (self.training and y.isnan().any()) or force:\n    y = y * 2", "self.training"),
    ("if force or y.any():\n    y = y + 1", "not (force)"),
])
def test_a_tensor_asked_only_under_a_python_test_is_likely_and_names_it(body: str, condition: str) -> None:
    [(line, confidence, message)] = findings_of(body)
    assert (line, confidence) == (1, "likely")
    assert f"only when `{condition}`" in message


GUARDED = """\
import torch


def f(x, flag, truncated):
    if flag and truncated.any():
        x = x + 1
    if (flag and
            truncated.any()):
        x = x + 2
    if not isinstance(flag, bool) or x.sum() > 0:
        x = x * 2
    return x


torch.compile(f, backend="eager")(torch.randn(3), True, torch.tensor([True]))
"""


def test_a_tensor_asked_under_a_python_test_is_reported_on_itself() -> None:
    """The finding spans the operand Python asks only under the test (skrl's ``if self.cfg.time_limit_bootstrap and
    truncated.any():``), not the whole test; on a test spread over lines it starts at the statement, where Dynamo
    places the break."""
    found = lint_source(GUARDED, "guarded.py", Config(select=("DYN102",)))
    lines = GUARDED.splitlines()
    assert [(f.start.line, f.start.column) for f in found] == [(5, 17), (7, 5), (10, 38)]
    assert lines[4][16:].startswith("truncated.any()") and lines[9][37:].startswith("x.sum() > 0")
    assert all(f.confidence.value == "likely" for f in found)


@pytest.mark.torch
def test_dynamo_breaks_on_the_lines_of_the_guarded_operands() -> None:
    from conftest import dynamo_break_lines

    found = lint_source(GUARDED, "guarded.py", Config(select=("DYN102",)))
    assert dynamo_break_lines(GUARDED) == {f.start.line for f in found}


def test_the_result_of_tensor_or_python_is_the_tensor_only_when_the_tensor_is_true() -> None:
    """``kept = t.all() or flag`` asks the tensor where it stands (certain); a later ``if kept`` asks it
    again only when it was true, since otherwise ``kept`` is the flag."""
    found = findings_of("kept = (y > 0).all() or force\nif kept:\n    y = y + 1")
    assert [(line, confidence) for line, confidence, _ in found] == [(1, "certain"), (2, "likely")]
    assert "only when `(y > 0).all()`" in found[1][2]


ANY_ALL = """\
import torch


@torch.compile(backend="eager")
def checks(x, flags):
    x = x.abs()
    if any(x > 0.5):
        x = x * 2
    finite = all(torch.isfinite(x))
    listed = any([True, False])
    stepped = all(v > 0 for v in flags)
    reduced = bool(x.any())
    return x, finite, listed, stepped, reduced


checks(torch.randn(3), [1, 2])
"""


def test_the_builtins_any_and_all_over_a_tensor_ask_each_element() -> None:
    """``any(x > 0.5)`` steps through the tensor and asks each element for its truth; ``any`` of a list and
    ``all`` of a generator over Python values do not. The ``if`` around ``any()`` tests a Python bool."""
    found = [(f.start.line, f.message.split(" on ")[0]) for f in lint_source(ANY_ALL, "checks.py",
                                                                           Config(select=("DYN102",)))]
    assert found == [(7, "`any()`"), (9, "`all()`"), (12, "`bool()`")]


@pytest.mark.torch
def test_dynamo_breaks_where_any_and_all_step_through_a_tensor() -> None:
    from conftest import dynamo_break_lines

    found = lint_source(ANY_ALL, "checks.py", Config(select=("DYN102",)))
    assert dynamo_break_lines(ANY_ALL) == {f.start.line for f in found}


NOT_A_TENSOR_UNDER_OR = """\
import torch


@torch.compile(backend="eager")
def scale(grads, clip, limit):
    if isinstance(clip, torch.Tensor):
        clip = clip.reshape(())
    if isinstance(clip, torch.Tensor) or clip != 1.0:
        grads = grads * clip
    if isinstance(limit, float) or limit.sum() > 0:
        grads = grads + 1
    return grads


scale(torch.ones(2), 0.5, torch.ones(2))
scale(torch.ones(2), torch.tensor(0.5), 2.0)
"""


def test_the_right_side_of_an_or_after_isinstance_tensor_is_asked_of_no_tensor() -> None:
    """pytorch-optimizer's Adan: ``isinstance(c, torch.Tensor) or c != 1.0`` asks ``c != 1.0`` only when ``c`` is no
    tensor. ``isinstance(limit, float) or limit.sum() > 0`` proves nothing of the kind: it is still asked."""
    found = [f.start.line for f in lint_source(NOT_A_TENSOR_UNDER_OR, "adan.py", Config(select=("DYN102",)))]
    assert found == [10]


@pytest.mark.torch
def test_dynamo_breaks_only_where_the_or_leaves_a_tensor() -> None:
    from conftest import dynamo_break_lines

    found = lint_source(NOT_A_TENSOR_UNDER_OR, "adan.py", Config(select=("DYN102",)))
    assert dynamo_break_lines(NOT_A_TENSOR_UNDER_OR) == {f.start.line for f in found}
