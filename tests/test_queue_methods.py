"""DYN004 on the methods of a ``queue.Queue`` held by compiled code: every one takes the queue's lock.

pytorch-pfn-extras' evaluator and fairscale's pipeline hand work through ``self._idxs = queue.Queue()``. Measured on
torch 2.13 by ``bench/skiplist/derive.py`` (and again by the torch test here): ``put``, ``get``, ``qsize`` and
``empty`` break at the lock's ``with`` (GB0142), building a queue breaks (GB0007), and a ``queue.SimpleQueue``'s
methods are C code (GB0156). A method of another object of the same name (a dict's ``get``) is left alone.
"""

from __future__ import annotations

import textwrap

import pytest

from dynalint.api import lint_source
from dynalint.project.config import Config

PROGRAM = textwrap.dedent("""\
    import queue
    from queue import SimpleQueue

    import torch


    class Evaluator:
        def __init__(self):
            self.pending = queue.Queue()
            self.results = SimpleQueue()
            self.seen = {}

        def step(self, x):
            self.pending.put(1)
            index = self.pending.get()
            waiting = self.pending.qsize()
            self.results.put(x)
            y = self.results.get()
            known = self.seen.get(index, 0)
            return x + y + waiting + known


    def fresh(x):
        local = queue.Queue()
        return x + 1


    evaluator = Evaluator()
    torch.compile(evaluator.step, backend="eager")(torch.randn(2))
    torch.compile(fresh, backend="eager")(torch.randn(2))
""")


def flagged() -> dict[int, str]:
    return {f.start.line: f.message for f in lint_source(PROGRAM, "queues.py", Config()) if f.code == "DYN004"}


def test_queue_methods_and_construction_are_flagged_and_a_dict_get_is_not() -> None:
    found = flagged()
    assert sorted(found) == [14, 15, 16, 17, 18, 24]
    assert found[15].startswith("`queue.Queue(...).get()` cannot be traced by torch.compile (GB0142")
    assert found[17].startswith("`queue.SimpleQueue(...).put()` cannot be traced by torch.compile (GB0156")


@pytest.mark.torch
def test_dynamo_breaks_where_dynalint_says() -> None:
    from conftest import dynamo_break_lines

    assert dynamo_break_lines(PROGRAM) == set(flagged())
