"""DYN513 ``typed-dict-construction``: which ``TypedDict`` calls break.

Measured on torch 2.13 (the page's Examples are compiled again by the verify tests and the release matrix):
building a ``TypedDict`` declared ``total=False``, one with a ``NotRequired`` field, or a subclass of a
``total=False`` one breaks (GB0257, pyro's ``Message(...)`` at every sample site); one whose keys are all
required, and a dict literal annotated with the type, trace.
"""

from __future__ import annotations

import textwrap

from dynalint.api import lint_source
from dynalint.project.config import Config


def test_typed_dicts_whose_keys_may_be_missing_are_flagged() -> None:
    source = textwrap.dedent("""\
        from typing import Optional, TypedDict

        import torch
        from typing_extensions import NotRequired


        class Message(TypedDict, total=False):
            name: str
            value: Optional[torch.Tensor]


        class Full(TypedDict):
            name: str
            value: torch.Tensor


        class Mixed(TypedDict):
            name: str
            value: NotRequired[torch.Tensor]


        class Sub(Message):
            scale: float


        @torch.compile
        def sample(x, Local):
            a = Message(name="a", value=x)
            b = Full(name="b", value=x)
            c = Mixed(name="c", value=x)
            d = Sub(name="d", value=x, scale=1.0)
            e: Message = {"name": "e", "value": x}
            f = Local(name="f")
            return a, b, c, d, e, f
    """)
    found = lint_source(source, "runtime.py", Config(select=("DYN513",)))
    assert [(f.start.line, f.message.split("`")[1]) for f in found] == [
        (28, "Message(...)"), (30, "Mixed(...)"), (31, "Sub(...)")]
