"""DYN003 on the data loader's helpers, the reentrant checkpoint's helpers and ``pack_sequence``.

Measured on torch 2.13: ``default_collate``, ``default_convert``, ``get_worker_info`` and ``random_split``
(``torch.utils.data``), and ``detach_variable`` / ``check_backward_validity`` (``torch.utils.checkpoint``,
which checkpoint wrappers call themselves) are skipped by Dynamo's trace rules: a call from compiled code
breaks at its line (GB0007). ``pack_sequence`` is traced but calls ``pack_padded_sequence``, which is
skipped: the break is reported at the ``pack_sequence`` call. ``pad_sequence`` traces.
"""

from __future__ import annotations

import textwrap

import pytest

from dynalint.api import lint_source
from dynalint.project.config import Config

PROGRAM = textwrap.dedent("""\
    import torch
    import torch.utils.checkpoint as checkpointing
    from torch.nn.utils.rnn import pack_sequence, pad_sequence
    from torch.utils.data import default_collate, default_convert, get_worker_info
    from torch.utils.data.dataloader import default_collate as loader_collate


    def collate(x):
        batch = default_collate([x, x])
        also = loader_collate([x, x])
        return batch + also


    def convert(x):
        items = default_convert([x, x])
        return items[0] + 1


    def worker(x):
        info = get_worker_info()
        return x + 1


    def reentrant(x):
        inputs = checkpointing.detach_variable((x,))
        checkpointing.check_backward_validity(inputs)
        return inputs[0] + 1


    def packed(x):
        padded = pad_sequence([x, x])
        packed = pack_sequence([x, x], enforce_sorted=False)
        return padded + 1


    x = torch.ones(2)
    torch.compile(collate, backend="eager")(x)
    torch.compile(convert, backend="eager")(x)
    torch.compile(worker, backend="eager")(x)
    torch.compile(reentrant, backend="eager")(x)
    torch.compile(packed, backend="eager")(x)
""")


def flagged() -> dict[int, str]:
    return {f.start.line: f.code for f in lint_source(PROGRAM, "helpers.py", Config())}


def line_of(text: str) -> int:
    return next(n for n, line in enumerate(PROGRAM.splitlines(), 1) if text in line)


def test_the_skipped_helpers_are_flagged() -> None:
    calls = ["default_collate([x, x])", "loader_collate([x, x])", "default_convert([x, x])", "get_worker_info()",
             "detach_variable((x,))", "check_backward_validity(inputs)", "pack_sequence([x, x]"]
    expected = [line_of(call) for call in calls]
    assert {line: flagged().get(line) for line in expected} == dict.fromkeys(expected, "DYN003")


def test_pad_sequence_is_left_alone() -> None:
    assert line_of("pad_sequence([x, x])") not in flagged()


@pytest.mark.torch
def test_dynamo_breaks_where_dynalint_says() -> None:
    from conftest import dynamo_break_lines

    assert dynamo_break_lines(PROGRAM) == set(flagged())
