"""DYN508: a method that breaks, called on an object built in compiled code (``pipeline/callee_breaks.py``).

Measured on torch 2.13 (``rules/DYN508-built-object-method.md`` holds the proven examples): Dynamo
breaks at the call as well ("Reconstruction failure", GB0092) when the object was built in the
compiled code (a class called, a factory's result, a registry's class called) and the method, or a
function it calls, breaks; not for an object that came in as an argument or an attribute, nor for a
method that does not break. After that break Dynamo runs the rest of the caller eagerly. Run under
Dynamo (the model called with a ``Solver`` for ``given``), MODEL breaks with GB0092 on line 14 and
SOLVER with GB0170 on line 12, nothing else: the later calls run eagerly. A property whose getter
breaks resumes inside it (measured alone: no GB0092). Line 14's break inside the
method is ``likely``, so dynalint does not know that line 18 is never reached, and flags it too. These
tests are static: what dynalint reports on such code, across two files, with and without the cache.
"""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

from dynalint.api import lint_paths
from dynalint.model.finding import Confidence
from dynalint.project.config import Config, load

SOLVER = """\
    import torch


    class Solver:
        def __init__(self, y0):
            self.y0 = y0

        def integrate(self, t):
            return self._advance(self.y0 * t)

        def _advance(self, y):
            if y.sum() > 0:
                y = y + 1
            return y

        def quiet(self, t):
            return self.y0 * t

        @property
        def settled(self):
            return self._advance(self.y0)


    SOLVERS = {"euler": Solver}


    def make(y0):
        return Solver(y0)
"""

MODEL = """\
    import torch
    from torch import nn

    from solver import SOLVERS, Solver, make


    class Model(nn.Module):
        def __init__(self):
            super().__init__()
            self.kept = Solver(torch.ones(2))

        def forward(self, x: torch.Tensor, given: Solver):
            solver = Solver(x)
            a = solver.integrate(x)
            b = solver.quiet(x)
            c = SOLVERS["euler"](x).integrate(x) + SOLVERS["euler"](x).quiet(x)
            picked = SOLVERS["euler"](x)
            d = picked.integrate(x)
            made = make(x)
            e = made.integrate(x)  # dynalint: ignore[DYN508]
            f = self.kept.integrate(x) + given.integrate(x) + solver.settled
            g = Solver(x).quiet(x) + Solver(x).integrate(x)
            return a + b + c + d + e + f + g


    compiled = torch.compile(Model())
"""


@pytest.fixture(autouse=True)
def _own_cache_key(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path_factory.mktemp("user-cache")))


def project(folder: Path, solver: str = SOLVER) -> Path:
    (folder / "pyproject.toml").write_text("[tool.dynalint]\n", encoding="utf-8")
    (folder / "solver.py").write_text(textwrap.dedent(solver), encoding="utf-8")
    (folder / "model.py").write_text(textwrap.dedent(MODEL), encoding="utf-8")
    return folder


def found(folder: Path, *, use_cache: bool = False, select: tuple[str, ...] = ()) -> list[tuple[str, int, str, str]]:
    config = Config(select=select) if select else load(None, folder)
    result = lint_paths([str(folder)], config, use_cache=use_cache)
    return [(Path(f.filename).name, f.start.line, f.code, f.confidence.value) for f in result.findings
            if f.code in ("DYN508", "DYN102")]


def test_calls_of_a_breaking_method_on_objects_built_in_the_frame(tmp_path: Path) -> None:
    assert found(project(tmp_path)) == [
        ("model.py", 14, "DYN508", "likely"),  # Solver(x), then the method: its break (DYN102) is likely
        ("model.py", 18, "DYN508", "likely"),  # a registry's class called: reached by dispatch
        ("model.py", 22, "DYN508", "likely"),  # a method of ``Solver(...)`` called at once
        ("solver.py", 12, "DYN102", "likely"),
    ]  # not: the non-breaking method (15), a registry's instance's method called at once (16: not followed),
    # the suppressed line (20), an attribute built in __init__, an argument, a property's getter (21)


def test_the_message_names_the_call_and_the_method(tmp_path: Path) -> None:
    result = lint_paths([str(project(tmp_path))], load(None, tmp_path), use_cache=False)
    [first, _, chained] = [f for f in result.findings if f.code == "DYN508"]
    assert first.message.startswith("`solver.integrate()` runs `Solver.integrate`, which breaks the graph")
    assert first.gb_ids == ("GB0092",)
    assert (first.start.column, first.end.column) == (13, 29)  # ``solver.integrate`` on its line
    assert chained.message.startswith("`Solver(...).integrate()` runs `Solver.integrate`")
    assert (chained.start.column, chained.end.column) == (34, 53)  # ``Solver(x).integrate``


def test_a_method_whose_break_is_certain_gives_a_certain_finding_and_hides_the_later_calls(tmp_path: Path) -> None:
    certain = SOLVER.replace("if y.sum() > 0:\n                y = y + 1", "print(y)")
    assert [f for f in found(project(tmp_path, certain)) if f[2] == "DYN508"] == [
        ("model.py", 14, "DYN508", Confidence.CERTAIN.value)]  # the rest of ``forward`` runs eagerly


def test_no_finding_once_the_method_no_longer_breaks_even_from_the_cache(tmp_path: Path) -> None:
    project(tmp_path)
    assert [f[:3] for f in found(tmp_path, use_cache=True)] == [f[:3] for f in found(tmp_path)]
    assert found(tmp_path, use_cache=True) == found(tmp_path, use_cache=True)  # answered from the cache
    quiet = SOLVER.replace("if y.sum() > 0:\n                y = y + 1", "y = y + 1")
    (tmp_path / "solver.py").write_text(textwrap.dedent(quiet), encoding="utf-8")
    assert found(tmp_path, use_cache=True) == found(tmp_path) == []


def test_selected_alone_it_still_reads_the_breaks_of_the_other_rules(tmp_path: Path) -> None:
    assert found(project(tmp_path), select=("DYN508",)) == [
        ("model.py", 14, "DYN508", "likely"), ("model.py", 18, "DYN508", "likely"), ("model.py", 22, "DYN508", "likely")]


def test_ignored_it_costs_the_other_rules_nothing(tmp_path: Path) -> None:
    config = Config(ignore=("DYN508",))
    result = lint_paths([str(project(tmp_path))], config, use_cache=False)
    assert [(Path(f.filename).name, f.start.line, f.code) for f in result.findings] == [("solver.py", 12, "DYN102")]


def test_a_local_that_may_hold_an_argument_is_not_taken_for_a_new_object(tmp_path: Path) -> None:
    """``nx = Solver(x)`` on one path, ``nx = given`` on the other (POT's backends): the object may have
    come in from outside, where the method resumes and no GB0092 follows."""
    project(tmp_path)
    (tmp_path / "model.py").write_text(textwrap.dedent("""\
        import torch

        from solver import Solver


        @torch.compile
        def step(x: torch.Tensor, given: Solver | None = None):
            if given is None:
                nx = Solver(x)
            else:
                nx = given
            return nx.integrate(x)


        @torch.compile
        def rebound(x: torch.Tensor):
            for made in (Solver(x), Solver(x + 1)):
                x = made.integrate(x)
            solver = Solver(x)
            return solver.integrate(x)
    """), encoding="utf-8")
    assert [f for f in found(tmp_path) if f[2] == "DYN508"] == [("model.py", 20, "DYN508", "likely")]


def test_a_method_whose_lines_do_not_parse_alone_is_read_from_the_whole_file(tmp_path: Path) -> None:
    """The post-pass parses a function's own lines to see what its locals are bound to; a method holding a
    string less indented than its ``def`` does not parse alone, and the whole file is read instead: the
    local that may hold an argument is still not taken for a new object, while the one that surely is
    new is still flagged."""
    project(tmp_path)
    (tmp_path / "model.py").write_text(textwrap.dedent("""\
        import torch

        from solver import Solver


        class Stepper(torch.nn.Module):
            def forward(self, x: torch.Tensor, given: Solver | None = None):
                note = \"\"\"
        a note at the margin\"\"\"
                if given is None:
                    nx = Solver(x)
                else:
                    nx = given
                made = Solver(x)
                return nx.integrate(x) + made.integrate(x)
    """), encoding="utf-8")
    assert [f for f in found(tmp_path) if f[2] == "DYN508"] == [("model.py", 15, "DYN508", "likely")]


def test_an_object_whose_constructor_surely_breaks_is_built_eagerly_and_its_method_resumes(tmp_path: Path) -> None:
    """Measured: ``Task(x).run(x)`` and ``task = Task(x); task.run(x)`` where ``Task.__init__`` prints (or
    reads ``.item()``): the ``__init__``'s break and the method's own, no GB0092 (whisper's
    ``DecodingTask(model, options).run(mel)``). Only a certain break in ``__init__`` counts: a likely
    one may not happen, and the object may then be new."""
    project(tmp_path, SOLVER.replace("self.y0 = y0", "self.y0 = y0\n            print('building')"))
    assert [f for f in found(tmp_path) if f[2] == "DYN508"] == []
    likely = SOLVER.replace("self.y0 = y0", "self.y0 = y0\n            self.n = int(y0.sum().item())")
    assert ("model.py", 14, "DYN508", "likely") in found(project(tmp_path, likely))
