"""The ground-truth judge's blind spot (``bench/groundtruth/gt_line_guard.py``) and how the scoring
treats findings behind a guard on their own line. Plain source files: no torch, no models."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "bench" / "groundtruth"))

from gt_line_guard import guarded_in_line  # noqa: E402
from gt_score import Site, StaticFinding, score  # noqa: E402

SOURCE = '''\
def forward(self, x, verbose=False):
    if self.self_condition and random() < 0.5:
        x = x + 1
    if x.sum() > 0 and self.flag:
        x = x - 1
    if verbose: warn("reversed time")
    if verbose:
        warn("on its own line")
    y = x.item() if self.cast else x
    z = [t.item() for t in x.unbind(0)]
    w = [t for t in x.nonzero()]
    f = lambda t: t.tolist()
    ok = (self.flag and
          x.item())
    s = "é" and x.item()
    return y
'''


@pytest.fixture
def source(tmp_path: Path) -> str:
    path = tmp_path / "model.py"
    path.write_text(SOURCE, encoding="utf-8")
    return str(path)


def _at(source: str, line: int, text: str) -> bool:
    """Whether the first occurrence of ``text`` on ``line`` (1-based character columns, as findings
    report them) is guarded in its line."""
    content = Path(source).read_text(encoding="utf-8").splitlines()[line - 1]
    column = content.index(text) + 1
    return guarded_in_line(source, line, column, line, column + len(text))


@pytest.mark.parametrize(("line", "text", "guarded"), [
    (2, "random()", True),  # an ``and`` operand after the first
    (4, "x.sum()", False),  # the first operand always runs
    (6, 'warn("reversed time")', True),  # the body of a one-line ``if``
    (8, 'warn("on its own line")', False),  # its own line runs only when the test let it
    (9, "x.item()", True),  # a branch of a conditional expression
    (9, "self.cast", False),  # its test always runs
    (10, "t.item()", True),  # a comprehension's element: the iterable may be empty
    (10, "x.unbind(0)", False),  # the first iterable always runs
    (11, "x.nonzero()", False),
    (12, "t.tolist()", True),  # a lambda's body runs when it is called
    (14, "x.item()", False),  # the guard is on an earlier line
    (15, "x.item()", True),  # columns are characters, the tree's are UTF-8 bytes
])
def test_guarded_in_line(source: str, line: int, text: str, guarded: bool) -> None:
    assert _at(source, line, text) is guarded


def test_an_unreadable_file_is_never_guarded(tmp_path: Path) -> None:
    broken = tmp_path / "broken.py"
    broken.write_text("def f(:\n", encoding="utf-8")
    assert guarded_in_line(str(broken), 1, 1, 1, 5) is False
    assert guarded_in_line(str(tmp_path / "missing.py"), 1, 1, 1, 5) is False


def test_guarded_findings_stay_out_of_precision_and_still_cover_sites() -> None:
    sites = {("a.py", 10): Site("a.py", 10, {"GB0124"})}
    traced = {("a.py", 10), ("a.py", 20), ("a.py", 30)}
    findings = [
        StaticFinding("DYN101", "a.py", 10, 10, guarded=True),  # on a break site: covers it, not judged
        StaticFinding("DYN205", "a.py", 20, 20, guarded=True),  # traced, no break: not a false positive
        StaticFinding("DYN104", "a.py", 30, 30),  # traced, no break, unguarded: a false positive
    ]
    result = score(sites, traced, findings)
    assert (result.recall.hits, result.recall.total) == (1, 1)
    assert (result.precision.hits, result.precision.total) == (0, 1)
    assert [f.line for f in result.guarded] == [10, 20]
    assert result.guarded_on_sites == 1
    assert [f.line for f in result.false_positives] == [30]
