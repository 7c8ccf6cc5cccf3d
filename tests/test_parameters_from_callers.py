"""Parameters are what callers pass: where every call of a function in compiled code passes a Python
value (a shape, an int read from one, a constant), the parameter is that under Dynamo, whatever its
annotation says (``int | torch.Tensor``) and whatever ``isinstance(x, torch.Tensor)`` arm the function
has. The annotation decides only for entry points, whose callers are not in the tree.
"""

from __future__ import annotations

import textwrap

from dynalint.api import lint_source

HELPERS = '''
    import torch
    from torch import nn


    def unpatch(seq, patch: int, shape: torch.Tensor):
        if isinstance(shape, tuple):
            h, w = shape[-2:]
        elif isinstance(shape, torch.Tensor):
            h, w = int(shape[0]), int(shape[1])
        return seq.reshape(seq.shape[0], h, w, -1)


    def lengths_of(states):
        batch, length = states.shape[:2]
        if length > 4:
            return length, None
        return length, states.new_ones(batch)


    class Rope(nn.Module):
        def forward(self, x, max_len: int | torch.Tensor | None = None):
            longest = int(max_len)
            return x[:, :longest]
'''


def codes(body: str, entry: str = "") -> list[tuple[int, str]]:
    text = textwrap.dedent(HELPERS) + textwrap.dedent(body) + textwrap.dedent(entry)
    return [(f.start.line, f.code) for f in lint_source(text, "model.py") if f.code in ("DYN104", "DYN110")]


NET = '''

    class Net(nn.Module):
        def __init__(self):
            super().__init__()
            self.rope = Rope()

        def forward(self, x, text):
            {lines}
'''


def net(*lines: str) -> str:
    return NET.format(lines="\n            ".join(lines))


def test_a_shape_passed_for_a_tensor_annotation_leaves_the_tensor_arm_dead() -> None:
    assert codes(net("return self.rope(unpatch(x, 2, x.shape), max_len=4)")) == []


def test_an_int_read_from_a_shape_through_a_local_is_a_python_value_in_the_callee() -> None:
    assert codes(net("n = text.shape[1] + 1", "return self.rope(x, max_len=n)")) == []


def test_an_element_of_a_helper_result_that_is_python_on_every_return_is_a_python_value() -> None:
    assert codes(net("n, mask = lengths_of(text)", "return self.rope(x, max_len=n)")) == []


def test_a_tensor_passed_by_one_caller_keeps_the_finding() -> None:
    found = codes(net("y = unpatch(x, 2, x.shape)", "return self.rope(y, max_len=text.sum())"))
    assert [code for _, code in found] == ["DYN104"]


def test_an_element_that_is_a_tensor_on_some_return_is_not_a_python_value() -> None:
    found = codes(net("mask, n = lengths_of(text)", "return self.rope(x, max_len=n)"))
    assert [code for _, code in found] == ["DYN104"]


def test_a_splatted_call_decides_nothing() -> None:
    found = codes(net("args = (x, x.shape)", "return self.rope(*args)"))
    assert [code for _, code in found] == ["DYN104"]


def test_an_entry_point_keeps_its_annotation() -> None:
    found = codes(net("return unpatch(x, 2, x.shape)"), "\n\ntorch.compile(Rope())\n")
    assert [code for _, code in found] == ["DYN104"]


def test_a_forward_no_one_calls_keeps_its_annotation() -> None:
    assert [code for _, code in codes("")] == ["DYN104"]


NONE_DEFAULTS = '''
import warnings

import torch
from torch import nn


def deprecate(name, version, *messages, take_from=None):
    kwargs = take_from
    if isinstance(kwargs, dict) and len(kwargs) > 0:
        print(name, version)
    if take_from is not None:
        warnings.warn("passed")
    return messages


class Block(nn.Module):
    def forward(self, x):
        deprecate("scale", "1.0", "old")
        return x * 2
'''


def none_findings(text: str) -> list[int]:
    return [f.start.line for f in lint_source(text, "block.py") if f.code in ("DYN201", "DYN203")]


def test_a_parameter_no_caller_passes_is_its_none_default_and_its_tests_are_decided() -> None:
    """``take_from`` is ``None`` whenever Dynamo traces ``deprecate`` from ``Block.forward``: the
    ``isinstance(kwargs, dict)`` and ``take_from is not None`` branches are never traced."""
    assert none_findings(NONE_DEFAULTS) == []


def test_one_caller_that_passes_it_keeps_the_branches() -> None:
    text = NONE_DEFAULTS + "\n\nclass Other(nn.Module):\n    def forward(self, x):\n" \
        "        deprecate('scale', '1.0', take_from={'a': 1})\n        return x\n"
    assert none_findings(text) == [11, 13]
