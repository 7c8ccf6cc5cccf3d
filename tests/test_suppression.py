"""Suppression comments, as README "Suppressing a finding" documents them.

``# noqa``, ``# noqa: CODE`` (full code or prefix, comma-separated) and ``# dynalint: ignore[CODE]`` on
the line of a finding silence it; a comment naming another code does not; a ``# noqa`` inside a string
literal is not a comment. Every case is checked against the same code without the comment, which must
produce the finding, so that no case passes because nothing was found in the first place.
"""

from __future__ import annotations

import pytest

from dynalint.api import lint_source

TEMPLATE = """\
import torch

@torch.compile
def f(x):
    print("hi"){comment}
    return x + 1
"""
LINE = 5


def pairs(source: str) -> set[tuple[str, int]]:
    return {(f.code, f.start.line) for f in lint_source(source, "suppressed.py")}


def test_baseline_without_a_comment_has_the_finding() -> None:
    assert pairs(TEMPLATE.format(comment="")) == {("DYN201", LINE)}


@pytest.mark.parametrize(
    "comment",
    [
        "# noqa",
        "# NOQA",
        "# noqa: DYN201",
        "# noqa:DYN201",
        "# noqa: DYN2",
        "# noqa: DYN",
        "# noqa: DYN101, DYN201",
        "# noqa: DYN101,DYN201",
        "# dynalint: ignore[DYN201]",
        "# dynalint: ignore[DYN101, DYN201]",
        "# dynalint: ignore",
        "# type: ignore  # noqa: DYN201",
    ],
)
def test_comment_suppresses(comment: str) -> None:
    assert pairs(TEMPLATE.format(comment="")) == {("DYN201", LINE)}
    assert pairs(TEMPLATE.format(comment="  " + comment)) == set()


@pytest.mark.parametrize(
    "comment",
    [
        "# noqa: DYN101",
        "# noqa: DYN1",
        "# noqa: DYN202",
        "# noqa: E501",
        "# dynalint: ignore[DYN101]",
        "# a comment that mentions noqa later",
    ],
)
def test_comment_naming_another_code_does_not_suppress(comment: str) -> None:
    assert pairs(TEMPLATE.format(comment="  " + comment)) == {("DYN201", LINE)}


@pytest.mark.parametrize("literal", ['"# noqa"', '"x  # noqa: DYN201"', "'''# dynalint: ignore'''"])
def test_noqa_inside_a_string_does_not_suppress(literal: str) -> None:
    source = TEMPLATE.replace('print("hi")', f"print({literal})").format(comment="")
    assert pairs(source) == {("DYN201", LINE)}


def test_comment_on_another_line_does_not_suppress() -> None:
    source = TEMPLATE.replace('    print("hi")', '    # noqa: DYN201\n    print("hi")').format(comment="")
    assert pairs(source) == {("DYN201", LINE + 1)}


def test_only_the_commented_line_is_suppressed() -> None:
    source = TEMPLATE.replace('    print("hi")', '    print("a")  # noqa: DYN201\n    print("b")').format(comment="")
    assert pairs(source) == {("DYN201", LINE + 1)}


def test_only_the_named_code_is_suppressed_on_a_line_with_two_findings() -> None:
    source = TEMPLATE.replace('print("hi")', 'print(x.sum().item())').format(comment="{comment}")
    unsuppressed = pairs(source.format(comment=""))
    assert {code for code, _ in unsuppressed} >= {"DYN101", "DYN201"}
    assert pairs(source.format(comment="  # noqa: DYN201")) == unsuppressed - {("DYN201", LINE)}
    assert pairs(source.format(comment="  # dynalint: ignore[DYN101]")) == {
        pair for pair in unsuppressed if pair[0] != "DYN101"
    }


def test_comment_on_the_last_line_of_a_multiline_statement_suppresses() -> None:
    source = TEMPLATE.replace('    print("hi")', '    print(\n        "hi",\n    )')
    assert pairs(source.format(comment="")) == {("DYN201", LINE)}
    assert pairs(source.format(comment="  # noqa: DYN201")) == set()
