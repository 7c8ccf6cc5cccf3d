"""``engine.compiled_segments``: the texts the lint stage parses with LibCST, which the speed bench times.

They must be exactly the compiled functions, cut the way the lint stage cuts them: a bench that timed
other text would state a floor the lint stage does not stand on.
"""

from __future__ import annotations

import ast
import textwrap

import libcst as cst

from dynalint.analysis.program import link
from dynalint.analysis.summarize import summarize
from dynalint.lint import engine

SOURCE = textwrap.dedent("""\
    import torch
    from torch import nn


    def helper(x):
        def inner(y):
            return y
        return inner(x)


    def never_called(x):
        return x


    class Block(nn.Module):
        def forward(self, x):
            return helper(x)

        def unused(self):
            return 1


    @torch.compile
    def step(x):
        return x + 1
    """)


def _segments(source: str) -> list[str]:
    summary = summarize(ast.parse(source), "m.py", "m")
    return engine.compiled_segments(source, summary, link([summary]))


def test_the_segments_are_the_outermost_compiled_functions_in_file_order() -> None:
    parsed = [cst.parse_module(text) for text in _segments(SOURCE)]
    names = [
        (module.body[0].body.body[0] if isinstance(module.body[0], cst.ClassDef) else module.body[0]).name.value
        for module in parsed
    ]
    # ``inner`` is walked inside ``helper``; ``never_called`` and ``Block.unused`` are not compiled.
    assert names == ["helper", "forward", "step"]


def test_a_method_is_cut_at_its_own_indentation_under_a_class_header() -> None:
    forward = next(text for text in _segments(SOURCE) if "def forward" in text)
    assert forward == "class _:\n    def forward(self, x):\n        return helper(x)\n"


def test_a_decorated_function_is_cut_from_its_first_decorator() -> None:
    step = next(text for text in _segments(SOURCE) if "def step" in text)
    assert step.startswith("@torch.compile\ndef step(x):")


def test_no_compiled_code_means_nothing_to_parse() -> None:
    assert _segments("def f(x):\n    return x\n") == []
