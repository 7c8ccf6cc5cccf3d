"""DYN209 on progress bars held in a local (``analysis/instances.LocalConstructions``).

Measured on torch 2.13 (and in the ground truth: laplace's ``pbar = tqdm.tqdm(...)`` then ``for prior_prec
in pbar:``): building a bar breaks (GB0007), and so do iterating a local bar and calling its methods
(GB0008), each at its own line. The page's third Example is compiled again by the verify tests.
"""

from __future__ import annotations

import textwrap

from dynalint.api import lint_source
from dynalint.project.config import Config


def flagged(source: str) -> list[tuple[int, str]]:
    findings = lint_source(textwrap.dedent(source), "loop.py", Config(select=("DYN209",)))
    return [(f.start.line, f.message.split("`")[1]) for f in findings]


def test_a_local_bar_is_known_by_what_built_it_until_it_is_rebound() -> None:
    source = """
        import torch
        from tqdm import tqdm

        @torch.compile
        def refine(x, rows):
            bar = tqdm(total=3)
            x = x * 2
            bar.update(1)
            for row in rows:
                x = x + row
            bar.close()
            bar = rows
            bar.update(1)
            for row in bar:
                x = x - row
            return x

        @torch.compile
        def smooth(x):
            steps = tqdm(range(3))
            for _ in steps:
                x = x + 1
            return x

        @torch.compile
        def fit(x, progress):
            steps = range(3)
            if progress:
                steps = tqdm(range(3))
            for _ in steps:
                x = x + 1
            return x
    """
    assert flagged(source) == [
        (7, "tqdm.tqdm()"),
        (9, "bar.update()"),
        (12, "bar.close()"),
        (21, "tqdm.tqdm()"),
        (22, "iter(steps)"),
        (30, "tqdm.tqdm()"),
    ]  # ``rows`` is no bar, ``bar`` stops being one once it is rebound, and ``fit``'s ``steps`` may be a range


def test_a_bar_of_another_function_is_not_this_functions_local() -> None:
    source = """
        import torch
        from tqdm import tqdm

        def make():
            bar = tqdm(total=3)
            return bar

        @torch.compile
        def step(x, bar):
            bar.update(1)
            return x + 1
    """
    assert flagged(source) == []
