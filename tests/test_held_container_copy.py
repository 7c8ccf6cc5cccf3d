"""DYN207 on ``copy.copy(self.<attr>)`` where the class gives the attribute only displays of one builtin container.

pina's ``LabelTensor.extract`` starts with ``labels = copy(self._labels)``; ``self._labels`` is only ever given
``{}`` by the class (then filled item by item). ``copy.copy`` of a dict ends in its C ``copy`` method, which Dynamo
does not trace (GB0007), and since ``extract`` is a tensor subclass's method, its callers break again at the call
(GB0092, DYN508). A tuple attribute copies without a break. Measured on torch 2.13 by the torch test: Dynamo breaks
on exactly the flagged lines.
"""

from __future__ import annotations

import textwrap

import pytest

from dynalint.api import lint_source
from dynalint.model.finding import Applicability
from dynalint.project.config import Config

PROGRAM = textwrap.dedent("""\
    from copy import copy

    import torch
    from torch import Tensor


    class Labelled(Tensor):
        def __init__(self, x, labels=None):
            self._labels = {}
            if labels is not None:
                self.labels = labels

        @property
        def labels(self):
            return self._labels

        @labels.setter
        def labels(self, labels):
            self._labels = {}
            for dim, label in enumerate(labels):
                self._labels[dim] = label

        def extract(self, index):
            labels = copy(self._labels)
            return self[..., index] * len(labels)


    class Counter:
        def __init__(self, source):
            self.seen = []
            self.names = ("a", "b")
            self.given = source

        def step(self, x):
            seen = copy(self.seen)
            names = copy(self.names)
            given = copy(self.given)
            return x * (len(seen) + len(names) + len(given))


    counter = Counter(("c",))


    def f(x):
        a = counter.step(x)
        return x.extract(0) + a.sum()


    t = torch.randn(2, 3).as_subclass(Labelled)
    t._labels = {1: "xyz"}
    torch.compile(f, backend="eager")(t)
""")


def findings() -> list:
    return list(lint_source(PROGRAM, "labelled.py", Config()))


def line_of(text: str) -> int:
    return next(number for number, line in enumerate(PROGRAM.splitlines(), 1) if line.strip() == text)


def test_a_copy_of_an_attribute_given_only_container_displays_is_flagged_and_its_callers_too() -> None:
    assert {(f.start.line, f.code) for f in findings()} == {
        (line_of("labels = copy(self._labels)"), "DYN207"),
        (line_of("seen = copy(self.seen)"), "DYN207"),
        (line_of("return x.extract(0) + a.sum()"), "DYN508"),
    }


def test_it_is_likely_and_its_rewrite_unsafe_since_code_outside_the_class_may_set_the_attribute() -> None:
    copies = [f for f in findings() if f.code == "DYN207"]
    assert {f.message.split(" of ")[1].split(" in ")[0] for f in copies} == {"a dict", "a list"}
    assert all(f.confidence.value == "likely" for f in copies)
    assert all(f.fix is not None and f.fix.applicability is Applicability.UNSAFE for f in copies)


@pytest.mark.torch
def test_dynamo_breaks_where_dynalint_says() -> None:
    from conftest import dynamo_break_lines

    assert dynamo_break_lines(PROGRAM) == {f.start.line for f in findings()}
