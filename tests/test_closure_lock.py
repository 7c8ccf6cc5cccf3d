"""DYN208 on a lock held by a local: of the compiled function, or of the function enclosing it.

captum's layer hooks take ``lock``, a ``threading.Lock()`` the function registering them built (the hook runs in the
module's call, compiled where the module is), and a worker holds its own local lock. Measured on torch 2.13 (and again by the torch test here): ``with lock:`` on such a lock breaks
(GB0142), as on a module-level one, and so do its ``acquire`` / ``release``; a name that is no lock (a
``contextlib.nullcontext()``) traces.
"""

from __future__ import annotations

import textwrap

import pytest

from dynalint.api import lint_source
from dynalint.project.config import Config

PROGRAM = textwrap.dedent("""\
    import contextlib
    import threading

    import torch


    def attach(model):
        lock = threading.Lock()
        guard = contextlib.nullcontext()

        def hook(module, inputs, output):
            with guard:
                output = output + 1
            with lock:
                return output * 2

        model.register_forward_hook(hook)


    def worker(x):
        lock = threading.RLock()
        lock.acquire()
        x = x + 1
        lock.release()
        return x


    model = torch.nn.Linear(2, 2)
    attach(model)
    torch.compile(model, backend="eager")(torch.randn(2))
    torch.compile(worker, backend="eager")(torch.randn(2))
""")


def flagged() -> dict[int, str]:
    return {f.start.line: f.message for f in lint_source(PROGRAM, "locks.py", Config()) if f.code == "DYN208"}


def test_locks_held_by_locals_and_closures_are_flagged() -> None:
    found = flagged()
    assert sorted(found) == [14, 21, 22, 24]
    assert found[14] == "`with lock:` on a lock in compiled code breaks the graph"
    assert found[22].startswith("`lock.acquire()` on a lock")


@pytest.mark.torch
def test_dynamo_breaks_where_dynalint_says() -> None:
    from conftest import dynamo_break_lines

    assert dynamo_break_lines(PROGRAM) == set(flagged())


# A function compiled in the body that defines it (``torch.compile(step)`` just below ``def step``) is a region, and
# the lock it closes over is known by what built it in that body (measured: GB0142 at the ``with``).
PROGRAM_COMPILED_HERE = textwrap.dedent("""\
    import threading

    import torch


    def run(x):
        lock = threading.Lock()

        def step(y):
            with lock:
                return y * 2

        return torch.compile(step, backend="eager")(x)


    run(torch.randn(2))
""")


def test_a_nested_function_compiled_where_it_is_defined_is_compiled_code() -> None:
    found = [f for f in lint_source(PROGRAM_COMPILED_HERE, "nested.py", Config()) if f.code == "DYN208"]
    assert [f.start.line for f in found] == [10]
    assert found[0].region is not None and found[0].region.chain[0].line == 13


@pytest.mark.torch
def test_dynamo_breaks_at_the_nested_functions_lock() -> None:
    from conftest import dynamo_break_lines

    assert dynamo_break_lines(PROGRAM_COMPILED_HERE) == {10}
