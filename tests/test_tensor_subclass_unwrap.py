"""DYN512 ``tensor-subclass-unwrap`` and DYN508 on tensor subclasses, each case measured on torch 2.13
(graph-break logs; the pages' Examples are proven again under Dynamo by ``test_rule_pages``):
``as_subclass(torch.Tensor)`` breaks (GB0001) in both spellings, on a plain tensor and on a subclass
instance; ``as_subclass`` to a subclass traces. A method of a tensor subclass that breaks breaks again at
its call (GB0092), on an input too, and the rest of the caller then runs eagerly."""

from __future__ import annotations

import textwrap

from dynalint.api import lint_source
from dynalint.project.config import Config

SOURCE = textwrap.dedent("""\
    import torch
    from torch import Tensor


    class Lie(Tensor):
        def tensor(self):
            return Tensor.as_subclass(self, Tensor)

        def doubled(self):
            return self * 2

        def unwrapped(self):
            return self.tensor()


    class Wrapper:
        def unwrapped(self):
            return 1


    @torch.compile
    def f(x, cls):
        a = x.as_subclass(torch.Tensor)
        b = torch.Tensor.as_subclass(x, cls=torch.Tensor)
        c = x.as_subclass(Lie)
        d = x.as_subclass(cls)
        e = x.doubled()
        w = x.unwrapped()
        y = x.tensor()
        z = x.tensor()
        return a + b + c + d + e + w + y + z
""")


def found(select: tuple[str, ...]) -> list[tuple[str, str]]:
    lines = SOURCE.splitlines()
    return [(f.code, lines[f.start.line - 1].strip()) for f in lint_source(SOURCE, "case.py", Config(select=select))]


def test_as_subclass_to_plain_tensor_is_flagged_in_both_spellings_and_not_towards_a_subclass() -> None:
    assert found(("DYN512",)) == [
        ("DYN512", "return Tensor.as_subclass(self, Tensor)"),
        ("DYN512", "a = x.as_subclass(torch.Tensor)"),
        ("DYN512", "b = torch.Tensor.as_subclass(x, cls=torch.Tensor)"),
    ]


def test_a_breaking_method_of_a_tensor_subclass_breaks_again_at_its_call() -> None:
    """``x.tensor()`` on a value whose class is not written runs ``Lie.tensor``, the only ``tensor`` method
    of the tree, by its name: likely, so each call is flagged (were the first to break, Dynamo would run
    the rest eagerly); so is ``self.tensor()`` inside another method of the subclass (measured: it breaks
    there too, the method running as a frame of its own). Not flagged: a method of the subclass that does
    not break (``doubled``), and a call that may run another class's method as well (``x.unwrapped()``:
    the receiver may be a ``Wrapper``)."""
    dyn508 = lint_source(SOURCE, "case.py", Config(select=("DYN508",)))
    assert [SOURCE.splitlines()[f.start.line - 1].strip() for f in dyn508] == [
        "return self.tensor()", "y = x.tensor()", "z = x.tensor()"]
    assert all("on a tensor subclass instance" in f.message and f.confidence.value == "likely" for f in dyn508)
