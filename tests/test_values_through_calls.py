"""Values that reach a function through calls: a submodule's ``forward``, a helper that returns a tensor
expression, an object that keeps tensors in its attributes. Each case was judged by Dynamo in the
differential tester (``bench/difftest``); here the static side is pinned.
"""

from __future__ import annotations

import textwrap

import pytest

from dynalint.api import lint_source
from dynalint.project.config import Config

SOURCE = textwrap.dedent("""\
    import torch
    from torch import nn


    def above_zero(t):
        return t.mean() > 0


    class Router(nn.Module):
        def forward(self, h):
            return h.argmax(-1), h.softmax(-1)


    class Lengths:
        def __init__(self, lengths):
            self.lengths = lengths
            self.widest = lengths.amax()


    class Net(nn.Module):
        def __init__(self):
            super().__init__()
            self.router = Router()
            self.sizes = Lengths(torch.tensor([2, 3]))

        def forward(self, x):
            picked, weights = self.router(x)
            chosen = picked.ne(0)
            kept = x[chosen]
            if above_zero(weights):
                x = x + 1
            for step in range(int(self.sizes.widest)):
                x = x * step
            return kept, x


    torch.compile(Net())
""")
LINES = SOURCE.splitlines()


def findings(code: str) -> list[tuple[int, str]]:
    return [(f.start.line, LINES[f.start.line - 1].strip()) for f in lint_source(SOURCE, "net.py", Config(select=(code,)))]


def test_a_submodule_call_returns_its_forwards_tuple() -> None:
    assert findings("DYN105") == [(29, "kept = x[chosen]")]


def test_a_helper_that_returns_a_comparison_of_tensors_returns_a_tensor() -> None:
    assert findings("DYN102") == [(30, "if above_zero(weights):")]


def test_a_plain_object_keeps_the_tensor_its_constructor_computed() -> None:
    assert findings("DYN104") == [(32, "for step in range(int(self.sizes.widest)):")]


CHECKS = textwrap.dedent("""\
    import torch
    from torch import nn


    def within(x, bound):
        return (x.abs() <= bound).all()


    def count(x):
        return len(x)


    class Ball(nn.Module):
        def __init__(self, radius):
            super().__init__()
            self.radius = radius

        def contains(self, x):
            return within(x, self.radius)

        def size(self, x):
            return count(x)

        def forward(self, x, check=True):
            if check and not self.contains(x):
                raise ValueError("outside the ball")
            if self.size(x) > 2:
                x = x * 2
            return x / self.radius


    torch.compile(Ball(1.0))
""")


def test_a_method_that_returns_a_helpers_tensor_returns_a_tensor() -> None:
    """Run under Dynamo (torch 2.13), ``forward`` breaks on line 25 (GB0170) and not on line 27."""
    lines = CHECKS.splitlines()
    flagged = [lines[f.start.line - 1].strip() for f in lint_source(CHECKS, "ball.py", Config(select=("DYN102",)))]
    assert flagged == ["if check and not self.contains(x):"]  # not ``self.size(x) > 2``: ``len`` is a number


NORMS = textwrap.dedent("""\
    import torch


    def rms(values):
        return values.abs().pow(2).mean().sqrt()


    def rows(values):
        return values.size(0)


    def first_step(y0, f0, atol):
        scale = atol + torch.abs(y0)
        d0, d1 = rms(y0 / scale), rms(torch.abs(f0))
        if d0 < 1e-5 or d1 < 1e-5:
            return y0
        if rows(y0 / scale) > 2:
            return f0
        return y0 + f0


    @torch.compile
    def solve(y, f):
        return first_step(y, f, 1e-3)
""")


def test_a_helper_returns_a_tensor_when_every_compiled_caller_passes_one_to_what_it_returns() -> None:
    """``rms`` returns a tensor expression of its parameter, and both calls pass tensors (``y0 / scale``,
    ``torch.abs(f0)``): the branch on its result is on a tensor (GB0170 under Dynamo, torch 2.13), while
    ``rows`` returns a size, a Python int."""
    lines = NORMS.splitlines()
    flagged = [lines[f.start.line - 1].strip() for f in lint_source(NORMS, "norms.py", Config(select=("DYN102",)))]
    assert flagged == ["if d0 < 1e-5 or d1 < 1e-5:"]


MASKS = textwrap.dedent("""\
    import torch
    from torch import nn


    def keep_rows(rows):
        return rows


    class Pick(nn.Module):
        def forward(self, x: torch.Tensor, text_mask, text_mask_2, order_mask):
            a = x[text_mask]
            b = x[text_mask_2]
            for t, m in zip(x, text_mask):
                c = t[m]
            valid = x[:, 0] > 0
            d = x[valid]
            mask_count = x.shape[0] - 1
            e = x[mask_count]
            picked = order_mask[torch.argsort(x[:, 0])]
            f = x[picked]
            return a, b, c, d, e, f


    torch.compile(Pick())
""")


def test_a_value_is_a_mask_by_how_it_was_made_and_a_name_is_read_only_where_nothing_else_is_known() -> None:
    lines = MASKS.splitlines()
    flagged = [lines[f.start.line - 1].strip() for f in lint_source(MASKS, "pick.py", Config(select=("DYN105",)))]
    assert flagged == [
        "a = x[text_mask]",  # parameters: their names are all there is, and both say mask
        "b = x[text_mask_2]",
        "c = t[m]",  # an item of a mask-named parameter, whatever the loop calls it
        "d = x[valid]",  # a comparison makes a mask, whatever its name
    ]  # not ``x[mask_count]`` (an int, by how it was made) nor ``x[picked]`` (indexing spreads no guess)


HELD_SIZES = textwrap.dedent("""\
    import torch
    from torch import nn


    class Lengths:
        def __init__(self, lengths):
            self.widest = lengths.amax()


    class Router(nn.Module):
        def forward(self, h):
            return h.argmax(-1), h.softmax(-1)


    class Net(nn.Module):
        def __init__(self):
            super().__init__()
            self.router = Router()
            self.sizes = Lengths(torch.tensor([2, 3]))

        def forward(self, x):
            picked, _ = self.router(x)
            widest = self.sizes.widest
            a = torch.full((self.sizes.widest,), 1.0)
            b = torch.zeros((widest if torch.is_tensor(x) else x.size(1)))
            c = torch.zeros((picked.sum(),))
            return a, b, c


    torch.compile(Net())
""")


def test_a_size_built_from_a_tensor_an_object_held_before_the_trace_is_no_data_dependent_size() -> None:
    """``self.sizes.widest`` existed before Dynamo traced (``__init__`` computed it): a size made of it,
    in a tuple or a conditional expression, is what Dynamo was given, not data read while tracing
    (measured by the differential tester). A size read from a tensor computed in the trace still is."""
    lines = HELD_SIZES.splitlines()
    found = [lines[f.start.line - 1].strip() for f in lint_source(HELD_SIZES, "net.py", Config(select=("DYN109",)))]
    assert found == ["c = torch.zeros((picked.sum(),))"]


FORWARDED = """\
import torch


def interpolate(t0, t1, t, rows):
    if t == t0:
        return t1
    if rows > 1:
        return t * rows
    return t


def step(y: torch.Tensor, t0, rows):
    return interpolate(t0, y, y, rows)


class Solver(torch.nn.Module):
    def forward(self, x):
        grid = torch.linspace(0, 1, 4)
        return step(x, grid[0], x.shape[0])


torch.compile(Solver(), backend="eager")(torch.tensor([0.5]))
"""


def test_a_parameter_passed_on_is_a_tensor_where_the_callers_one_is() -> None:
    """``step`` hands ``interpolate`` its own parameters: ``y`` annotated a tensor, ``t0`` given a tensor by its
    only compiled caller, ``rows`` given a shape's entry. The first two make ``t == t0`` a branch on a tensor
    (GB0170 under Dynamo, torch 2.13); ``rows > 1`` is on a Python int."""
    lines = FORWARDED.splitlines()
    flagged = [lines[f.start.line - 1].strip() for f in lint_source(FORWARDED, "solver.py", Config(select=("DYN102",)))]
    assert flagged == ["if t == t0:"]


@pytest.mark.torch
def test_dynamo_breaks_on_a_branch_on_a_parameter_passed_on() -> None:
    from conftest import dynamo_break_lines

    found = lint_source(FORWARDED, "solver.py", Config(select=("DYN102",)))
    assert dynamo_break_lines(FORWARDED) == {f.start.line for f in found} == {5}


THROUGH_A_LOCAL = """\
import torch


def max_norm(tensor):
    return tensor.abs().max()


def error_ratio(error, tolerance, norm):
    return norm(error / tolerance).abs()


class Solver:
    def __init__(self, tolerance):
        self.tolerance = tolerance

    def converged(self, y0, y1):
        ratio = error_ratio(torch.abs(y0 - y1), self.tolerance, max_norm)
        return ratio < 1

    def steps(self, y0, y1):
        count = len(y0)
        return count + 1

    def step(self, y):
        for _ in range(3):
            if self.converged(y, y * 0.5):
                break
            y = y * 0.5
        if self.steps(y, y) > 2:
            y = y + 1
        return y


def run(y):
    solver = Solver(1e-3)
    return solver.step(y)


torch.compile(run, backend="eager")(torch.ones(3))
"""


def test_a_comparison_of_a_local_bound_to_a_helpers_tensor_returns_a_tensor() -> None:
    """torchdiffeq's ``_has_converged``: ``ratio = error_ratio(...)`` then ``return ratio < 1``. The local is the
    helper's tensor, so the method returns one and the branch on it is on a tensor; ``count = len(y0)`` is a
    Python int, and so is ``count + 1``."""
    lines = THROUGH_A_LOCAL.splitlines()
    flagged = [lines[f.start.line - 1].strip()
               for f in lint_source(THROUGH_A_LOCAL, "solver.py", Config(select=("DYN102",)))]
    assert flagged == ["if self.converged(y, y * 0.5):"]


@pytest.mark.torch
def test_dynamo_breaks_on_a_branch_on_what_a_local_bound_to_a_helper_makes() -> None:
    from conftest import dynamo_break_lines

    found = lint_source(THROUGH_A_LOCAL, "solver.py", Config(select=("DYN102", "DYN508")))
    assert dynamo_break_lines(THROUGH_A_LOCAL) == {f.start.line for f in found}


OPTIONAL_BUFFER = """\
import torch
from torch import nn


class Loss(nn.Module):
    def __init__(self, clip_value=None, scale=1.0):
        super().__init__()
        if clip_value is not None:
            clip_value = torch.tensor(clip_value)
        self.register_buffer("clip_value", clip_value)
        self.register_buffer("scale", torch.tensor(scale))

    def forward(self, x):
        if self.clip_value:
            x = x.clamp(max=1.0)
        if self.scale:
            x = x * 2
        return x


torch.compile(Loss(), backend="eager")(torch.ones(3))
"""


def test_a_buffer_registered_from_a_parameter_that_defaults_to_none_may_hold_none() -> None:
    """torchrl's losses: ``register_buffer("clip_value", clip_value)`` with ``clip_value=None`` by default holds
    ``None`` unless a caller passes a value, and ``if self.clip_value:`` is then decided while tracing; a buffer
    registered from a tensor is a tensor."""
    lines = OPTIONAL_BUFFER.splitlines()
    flagged = [lines[f.start.line - 1].strip() for f in lint_source(OPTIONAL_BUFFER, "loss.py", Config(select=("DYN102",)))]
    assert flagged == ["if self.scale:"]


@pytest.mark.torch
def test_dynamo_breaks_on_a_buffer_that_holds_a_tensor_and_not_on_one_that_holds_none() -> None:
    from conftest import dynamo_break_lines

    found = lint_source(OPTIONAL_BUFFER, "loss.py", Config(select=("DYN102",)))
    assert dynamo_break_lines(OPTIONAL_BUFFER) == {f.start.line for f in found}
