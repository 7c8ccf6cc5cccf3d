"""``with Cls(...):`` in compiled code runs the new object's ``__enter__`` and ``__exit__``, which Dynamo traces.

Measured on torch 2.13: a break inside either method breaks at its own line (a ``print``, GB0059; an RNG state
read or reset, GB0007), and not again at the ``with`` line. A context manager that is not built there (a
module-level instance) is refused at the ``with`` line instead (GB0142, DYN211's). Left: after a break in
``__enter__``, Dynamo runs ``__exit__`` as a frame of its own, which it does not compile when its code names no
torch; a ``print`` alone there then does not break, and is still flagged.
"""

from __future__ import annotations

import textwrap

import pytest

from dynalint.api import lint_source
from dynalint.project.config import Config

PROGRAM = textwrap.dedent("""\
    import torch


    class Seeded:
        def __init__(self, seed):
            self.seed = seed

        def __enter__(self):
            self.state = torch.get_rng_state()
            torch.manual_seed(self.seed)

        def __exit__(self, *exc):
            torch.set_rng_state(self.state)


    class Reported:
        def __enter__(self):
            return self

        def __exit__(self, *exc):
            print("leaving")


    class Quiet:
        def __enter__(self):
            return self

        def __exit__(self, *exc):
            return False


    shared = Quiet()


    def seeded(x):
        with Seeded(3):
            y = x * 2
        return y


    def reported(x):
        with Reported() as r:
            y = x + 1
        return y


    def quiet(x):
        with Quiet():
            y = x - 1
        return y


    def held(x):
        with shared:
            y = x / 2
        return y


    torch.compile(seeded, backend="eager")(torch.ones(2))
    torch.compile(reported, backend="eager")(torch.ones(2))
    torch.compile(quiet, backend="eager")(torch.ones(2))
    torch.compile(held, backend="eager")(torch.ones(2))
""")


def flagged() -> dict[int, str]:
    return {f.start.line: f.code for f in lint_source(PROGRAM, "managers.py", Config())}


def line_of(text: str) -> int:
    return next(n for n, line in enumerate(PROGRAM.splitlines(), 1) if text in line)


def test_the_methods_of_a_manager_built_in_the_with_statement_are_compiled() -> None:
    found = flagged()
    for text, code in (("torch.get_rng_state()", "DYN205"), ("torch.manual_seed(self.seed)", "DYN205"),
                       ("torch.set_rng_state(self.state)", "DYN205"), ('print("leaving")', "DYN201")):
        assert found.get(line_of(text)) == code, text


def test_the_with_line_itself_breaks_only_for_a_manager_not_built_there() -> None:
    found = flagged()
    assert line_of("with Seeded(3):") not in found
    assert line_of("with Reported() as r:") not in found
    assert found.get(line_of("with shared:")) == "DYN211"


@pytest.mark.torch
def test_dynamo_breaks_where_dynalint_says() -> None:
    from conftest import dynamo_break_lines

    assert dynamo_break_lines(PROGRAM) == set(flagged())
