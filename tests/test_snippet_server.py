"""The torch tests' harness process (``conftest.run_snippets``, ``run_snippets.py --serve``): one process answers
every request of a run, each program under a file name of its own, and a program that kills it fails only its
own request."""

from __future__ import annotations

import pytest

BREAKS_ON_LINE_5 = """\
import torch


def f(x):
    print("breaks here")
    return x + 1


torch.compile(f, backend="eager")(torch.ones(2))
"""


@pytest.mark.torch
def test_later_requests_are_answered_by_the_same_process_and_each_program_keeps_its_lines() -> None:
    from conftest import _SERVER, run_snippets

    first = run_snippets([{"id": "a", "source": BREAKS_ON_LINE_5}])["a"]
    process = _SERVER._process
    shifted = run_snippets([{"id": "b", "source": "\n" + BREAKS_ON_LINE_5}])["b"]
    assert _SERVER._process is process is not None
    assert [b["line"] for b in first["breaks"]] == [5] and first["error"] is None
    assert [b["line"] for b in shifted["breaks"]] == [6] and shifted["error"] is None


@pytest.mark.torch
def test_a_program_that_kills_the_process_fails_its_request_and_the_next_one_runs() -> None:
    from conftest import run_snippets

    with pytest.raises(AssertionError, match="gave no answer"):
        run_snippets([{"id": "exit", "source": "import os\nos._exit(3)\n"}])
    assert [b["line"] for b in run_snippets([{"id": "after", "source": BREAKS_ON_LINE_5}])["after"]["breaks"]] == [5]


@pytest.mark.torch
def test_a_program_that_outlasts_its_time_fails_its_request_and_the_next_one_runs() -> None:
    from conftest import run_snippets

    with pytest.raises(AssertionError, match="within 2 s"):
        run_snippets([{"id": "slow", "source": "import time\ntime.sleep(60)\n"}], timeout=2)
    assert [b["line"] for b in run_snippets([{"id": "after", "source": BREAKS_ON_LINE_5}])["after"]["breaks"]] == [5]


FIRST_ADAM = """\
import torch

scale = torch.nn.Parameter(torch.ones(1))


def fit_scale(x):
    optimizer = torch.optim.Adam([scale], lr=0.05)
    return x * 2 + scale.detach()


torch.compile(fit_scale, backend="eager")(torch.randn(8))
"""
STEPPED_ADAM = """\
import torch

weight = torch.nn.Parameter(torch.ones(1))
optimizer = torch.optim.Adam([weight], lr=0.1)
(weight * 2).sum().backward()
optimizer.step()
"""


@pytest.mark.torch
def test_a_fresh_process_answers_as_a_process_that_ran_nothing_before() -> None:
    """Dynamo's answer for building an ``Adam`` in compiled code depends on the process's history (measured on torch
    2.13): the first one built breaks with GB0467, one built after an optimizer has stepped with GB0008. What the
    rule pages' tables recorded in a fresh process is compared with a fresh process (``fresh=True``)."""
    from conftest import run_snippets

    shared = run_snippets([{"id": "step", "source": STEPPED_ADAM}, {"id": "adam", "source": FIRST_ADAM}])["adam"]
    fresh = run_snippets([{"id": "adam", "source": FIRST_ADAM}], fresh=True)["adam"]
    assert [(b["line"], b["gb_id"]) for b in shared["breaks"]] == [(7, "GB0008")]
    assert [(b["line"], b["gb_id"]) for b in fresh["breaks"]] == [(7, "GB0467")]
