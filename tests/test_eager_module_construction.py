"""DYN507's second cause: modules built in a function Dynamo gives up (``pipeline/callee_breaks.py``).

Measured on torch 2.13 (``rules/DYN507-module-construction.md`` holds the proven example): when a
function calls a breaking method on an object it built (DYN508, certain here: the method prints), Dynamo
keeps the graph before its last resumable break (or none) and runs the function eagerly from there. Each
``nn.Module`` built in that stretch then has its ``__init__`` compiled as a frame of its own and breaks
at the ``super().__init__()`` of every class of its chain ("Uninitialized nn.Module", GB0119). Run under
Dynamo, ``solve`` below breaks with GB0119 on ``parts.py`` lines 7 (``Base``), 13 (``Term``) and 18
(``Stepper``, built through the registry), ``resumed`` on 7 and 13 (``Term``, built after its ``print``)
but not on 24 (``Early``, built before it, in the graph kept). These tests are static: what dynalint
reports on that code, across two files, with and without the cache.
"""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

from dynalint.api import lint_paths
from dynalint.project.config import Config, load

PARTS = """\
    import torch
    from torch import nn


    class Base(nn.Module):
        def __init__(self, k):
            super().__init__()
            self.k = k


    class Term(Base):
        def __init__(self):
            super(Term, self).__init__(k=3)


    class Stepper(Base):
        def __init__(self, term):
            super().__init__(k=2)
            self.term = term


    class Early(nn.Module):
        def __init__(self):
            super().__init__()
            self.k = 5


    class Solver:
        def __init__(self, y0):
            self.y0 = y0

        def run(self, x):
            print(x)
            return x + self.y0


    STEPPERS = {"euler": Stepper}
"""

MODEL = """\
    import torch

    from parts import STEPPERS, Early, Solver, Term


    @torch.compile
    def solve(x: torch.Tensor, name: str):
        term = Term()
        stepper = STEPPERS[name](term)
        y = Solver(x).run(x)
        return y * stepper.k


    @torch.compile
    def resumed(x: torch.Tensor):
        early = Early()
        print(x)
        later = Term()
        return Solver(x).run(x) * early.k * later.k
"""


@pytest.fixture(autouse=True)
def _own_cache_key(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path_factory.mktemp("user-cache")))


def project(folder: Path, parts: str = PARTS) -> Path:
    (folder / "pyproject.toml").write_text("[tool.dynalint]\n", encoding="utf-8")
    (folder / "parts.py").write_text(textwrap.dedent(parts), encoding="utf-8")
    (folder / "model.py").write_text(textwrap.dedent(MODEL), encoding="utf-8")
    return folder


def found(paths: list[Path], folder: Path, *, use_cache: bool = False,
          select: tuple[str, ...] = ()) -> list[tuple[str, int, str, str]]:
    config = Config(select=select) if select else load(None, folder)
    result = lint_paths([str(p) for p in paths], config, use_cache=use_cache)
    return sorted((Path(f.filename).name, f.start.line, f.code, f.confidence.value) for f in result.findings
                  if f.code == "DYN507")


def test_the_super_init_calls_of_modules_built_where_dynamo_gave_up(tmp_path: Path) -> None:
    assert found([project(tmp_path)], tmp_path) == [
        ("parts.py", 7, "DYN507", "likely"),  # Base: the chain of Term and of Stepper, reported once
        ("parts.py", 13, "DYN507", "likely"),  # Term, built before the giving-up call in both functions
        ("parts.py", 18, "DYN507", "likely"),  # Stepper, built through the registry
    ]  # not Early (24): built before ``resumed``'s print, in the graph Dynamo keeps


def test_the_message_names_the_class_and_where_the_function_is_given_up(tmp_path: Path) -> None:
    result = lint_paths([str(project(tmp_path))], load(None, tmp_path), use_cache=False)
    stepper = next(f for f in result.findings if f.code == "DYN507" and f.start.line == 18)
    assert stepper.message.startswith("`Stepper` is built on line 9 of `solve` (model.py), which Dynamo gives up "
                                      "on line 10")
    assert stepper.gb_ids == ("GB0119",)
    assert (stepper.start.column, stepper.end.column) == (9, 25)  # ``super().__init__``


def test_a_suppression_comment_in_the_class_file_holds(tmp_path: Path) -> None:
    ignored = PARTS.replace("super(Term, self).__init__(k=3)", "super(Term, self).__init__(k=3)  # dynalint: ignore[DYN507]")
    assert [f[1] for f in found([project(tmp_path, ignored)], tmp_path)] == [7, 18]


def test_the_cache_gives_the_same_and_forgets_them_once_the_method_no_longer_breaks(tmp_path: Path) -> None:
    project(tmp_path)
    fresh = found([tmp_path], tmp_path)
    assert found([tmp_path], tmp_path, use_cache=True) == fresh
    assert found([tmp_path], tmp_path, use_cache=True) == fresh  # answered from the cache
    quiet = PARTS.replace("            print(x)\n            return x + self.y0", "            return x + self.y0")
    (tmp_path / "parts.py").write_text(textwrap.dedent(quiet), encoding="utf-8")
    assert found([tmp_path], tmp_path, use_cache=True) == found([tmp_path], tmp_path) == []


def test_selected_alone_it_still_sees_where_the_method_breaks(tmp_path: Path) -> None:
    assert [f[1] for f in found([project(tmp_path)], tmp_path, select=("DYN507",))] == [7, 13, 18]


def test_a_class_file_left_out_of_the_run_gets_no_finding(tmp_path: Path) -> None:
    """Linting ``model.py`` alone: ``parts.py`` is read for the program, not reported on."""
    project(tmp_path)
    assert found([tmp_path / "model.py"], tmp_path) == []


def test_a_cached_caller_does_not_bring_them_into_a_run_without_the_class_file(tmp_path: Path) -> None:
    project(tmp_path)
    assert found([tmp_path], tmp_path, use_cache=True)  # the caller's cache entry now holds them
    assert found([tmp_path / "model.py"], tmp_path, use_cache=True) == []
    assert found([tmp_path / "model.py"], tmp_path, use_cache=True) == []  # from the snapshot as well


GIVEN_UP_IN_LOOP_OR_TRY = """\
    import torch

    from parts import Early, Term


    @torch.compile
    def looped(x):
        early = Early()
        print(x)
        for step in range(2):
            print(step)
        return x * early.k * Term().k


    @torch.compile
    def tried(x):
        try:
            print(x)
        except ValueError:
            pass
        return x * Early().k
"""


def test_a_break_in_a_loop_body_or_a_try_block_gives_the_function_up_too(tmp_path: Path) -> None:
    """Measured on torch 2.13 (the same code run under Dynamo): ``looped`` breaks with GB0119 on parts.py 7
    and 13 (``Term``, built after the loop's print) but not on 24 (``Early``, built before the print Dynamo
    resumes after); ``tried`` on 24."""
    project(tmp_path)
    (tmp_path / "model.py").write_text(textwrap.dedent(GIVEN_UP_IN_LOOP_OR_TRY), encoding="utf-8")
    result = lint_paths([str(tmp_path)], load(None, tmp_path), use_cache=False)
    flagged = {f.start.line: f.message for f in result.findings if f.code == "DYN507"}
    assert sorted(flagged) == [7, 13, 24]
    assert "built on line 12 of `looped` (model.py), which Dynamo gives up on line 11" in flagged[13]
    assert "built on line 21 of `tried` (model.py), which Dynamo gives up on line 18" in flagged[24]


def test_the_post_pass_names_the_codes_of_its_rules() -> None:
    from dynalint.checks.built_object_method import BuiltObjectMethod
    from dynalint.checks.comprehension_resume import ComprehensionResume
    from dynalint.checks.module_construction import ModuleConstruction
    from dynalint.pipeline.callee_breaks import POST_PASS_CODES

    assert POST_PASS_CODES == (ModuleConstruction.code, BuiltObjectMethod.code, ComprehensionResume.code)
