"""Where the verify observer places a graph break: the innermost frame of the user's files, never
torch's own source while a frame outside torch is in the traceback (``observe.parse_record``).

Marked ``torch``: the observer asks torch where its source lives.
"""

from __future__ import annotations

import os

import pytest


def _record(frames: list[tuple[str, int, str]], header: tuple[str, int]) -> str:
    """A ``graph_breaks`` log message as Dynamo writes it: the header names the innermost frame."""
    stack = "\n".join(f'  File "{path}", line {line}, in {function}' for path, line, function in frames)
    return (f"Graph break in user code at {header[0]}:{header[1]}\n"
            "Graph Break Reason: Failed to trace builtin operator\n"
            f"User code traceback:\n{stack}\n")


@pytest.mark.torch
def test_a_break_whose_innermost_frame_is_torch_is_placed_on_the_last_frame_outside_torch() -> None:
    import torch

    from dynalint.verify.observe import parse_record

    inside_torch = os.path.join(os.path.dirname(os.path.realpath(torch.__file__)), "nn", "modules", "module.py")
    frames = [("/project/run.py", 5, "main"), ("/installed/lib/model.py", 10, "forward"),
              (inside_torch, 1700, "_call_impl")]
    text = _record(frames, (inside_torch, 1700))
    # No frame is the observed project's: the installed model's line is the user's line, not torch's.
    brk = parse_record(text, "/elsewhere", mine=lambda path: False)
    assert (brk.filename, brk.line, brk.function) == ("/installed/lib/model.py", 10, "forward")
    # A frame of the observed files wins over any other.
    brk = parse_record(text, "/project")
    assert (brk.filename, brk.line) == ("/project/run.py", 5)
    # Only torch in the traceback: the header is all there is to place it by.
    only_torch = _record([(inside_torch, 1700, "_call_impl")], (inside_torch, 1700))
    assert parse_record(only_torch, "/project").filename == inside_torch


@pytest.mark.torch
def test_a_backend_failure_is_one_break_on_the_operation_it_failed_on() -> None:
    # What torch 2.13 logs when inductor fails on ``x.narrow(1, start, 3)`` (a tensor ``start``), line 6
    # of a function defined on line 4 and called on line 9: first the frame's "WON'T CONVERT" notice
    # with Dynamo's own stack, then the GB0219 record, whose user traceback is the caller's.
    import logging

    from dynalint.verify.observe import _BreakHandler

    wont_convert = ("WON'T CONVERT window /p/case.py line 4\n========== TorchDynamo Stack Trace ==========\n"
                    'Traceback (most recent call last):\n  File "/torch/_dynamo/output_graph.py", line 3119, '
                    "in _call_user_compiler\n")
    backend = ("Graph break in user code at /p/case.py:4\nGraph Break Reason: Failed to handle graph break "
               "gracefully. Skipping the function and falling back to eager. Graph break encountered:\n"
               "Backend compiler exception\n  Explanation: Backend compiler `inductor` failed with "
               "aten._local_scalar_dense.default\n    Original traceback:\n"
               '      File "/p/case.py", line 6, in window\n        return x.narrow(1, start, 3)\n'
               " For more details about this graph break, please visit: "
               "https://meta-pytorch.github.io/compile-graph-break-site/gb/gb0219.html\n"
               'User code traceback:\n  File "/p/case.py", line 9, in <module>\n    window(x, start)\n')
    sink: list = []
    handler = _BreakHandler("/p", sink)
    for text in (wont_convert, backend):
        handler.emit(logging.LogRecord("graph_breaks", logging.DEBUG, "", 0, text, None, None))
    assert [(b.gb_id, b.filename, b.line, b.function) for b in sink] == [("GB0219", "/p/case.py", 6, "window")]
