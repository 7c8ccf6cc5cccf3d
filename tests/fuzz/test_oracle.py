"""The fuzz oracle itself: it must see a planted crash of every kind and stay quiet on good input.

A fuzzer whose oracle misses crashes passes forever, and one that cries wolf is switched off; these
tests pin both sides. They run the oracle's judging step on made-up findings (no dynalint bug
needed) and the whole oracle on the repository's own fixtures, which must pass untouched.
"""

from __future__ import annotations

from pathlib import Path

import fuzzing
import pytest
from fuzzing import _judge, _Seen

GOOD = b"import torch\n\n\n@torch.compile\ndef f(x):\n    print(x)\n    return x\n"


def _seen(code: str, line: int = 1, column: int = 1, message: str = "m") -> _Seen:
    return _Seen(code, message, line, column, line, column)


@pytest.mark.parametrize(
    ("finding", "source", "accepted", "category"),
    [
        (_seen("DYN903", message="Rule DYN101 `tensor-item` crashed on this file: KeyError: 'x' (at values.py:9)"),
         GOOD, True, "internal-error"),
        (_seen("DYN901", 6, 5, "Syntax error: parser error"), GOOD, True, "false-syntax-error"),
        (_seen("DYN902", message="Cannot read the file: binary"), GOOD, True, "false-unreadable"),
        (_seen("DYN201", 0), GOOD, True, "bad-position"),
        (_seen("DYN201", 9), GOOD, True, "bad-position"),  # 7 lines and the EOF line
        (_seen("DYN201", 6, 40), GOOD, True, "bad-position"),  # `    print(x)` has 12 columns
        (_Seen("DYN201", "m", 6, 5, 5, 1), GOOD, True, "bad-position"),  # ends before it starts
        (_seen("DYN201", 2, 1), "a = 1\u2028b = 2\nprint(a)\n", True, None),  # U+2028 is no line break
        (_seen("DYN201", 3, 1), "a = 1\u2028b = 2\nprint(a)\n", True, None),  # ... but the EOF line is a line
        (_seen("DYN201", 4, 1), "a = 1\u2028b = 2\nprint(a)\n", True, "bad-position"),
        (_seen("DYN201", 3, 1), b"a = 1\r\nb = 2\rprint(a)", True, None),
        (_seen("DYN901", 1, 1), b"def f(:\n", False, None),  # a true syntax error
        (_seen("DYN902"), b"# \xff\nx = 1\n", True, None),  # compile() skips comments, a file read does not
        (_seen("DYN201", 6, 5), GOOD, True, None),
    ],
    ids=["dyn903", "false-dyn901", "false-dyn902", "line-0", "past-eof", "past-end-of-line", "end-before-start",
         "u2028-not-a-break", "eof-line", "past-eof-u2028", "cr-crlf-breaks", "true-dyn901", "lax-compile-dyn902",
         "good"],
)
def test_judge_flags_exactly_the_planted_crash(finding: _Seen, source: bytes | str, accepted: bool,
                                               category: str | None) -> None:
    crashes = _judge([finding], source, accepted, "api")
    assert [c.category for c in crashes] == ([category] if category else []), crashes


def test_python_accepts_is_compile() -> None:
    assert fuzzing.python_accepts(GOOD)
    assert fuzzing.python_accepts(b"\xef\xbb\xbfx = 1\n")
    assert not fuzzing.python_accepts(b"x = (" * 300 + b"\n")
    assert not fuzzing.python_accepts(b"x = 1\x00\n")
    assert not fuzzing.python_accepts(b"x = '\xff'\n")


def test_exception_crash_names_the_deepest_dynalint_frame() -> None:
    # A function that looks as if it lived in dynalint/ (the key must not depend on today's code).
    namespace: dict[str, object] = {}
    fake = fuzzing.dynalint_root() / "dynalint" / "fake_stage.py"
    exec(compile("def boom():\n    raise KeyError('k')\n", str(fake), "exec"), namespace)
    try:
        namespace["boom"]()  # type: ignore[operator]
    except KeyError as error:
        crash = fuzzing._exception_crash(error, "api")
    assert (crash.category, crash.key) == ("exception", "exception KeyError in fake_stage.py:boom")


def test_fixtures_pass_the_oracle_untouched(tmp_path: Path) -> None:
    """No false alarm on the real code the mutants start from (nor through the CLI on one of them)."""
    crashes = []
    for fixture in fuzzing.FIXTURES:
        found = fuzzing.check(fixture.read_bytes(), tmp_path, source=True, cli=fixture.name == "hazards.py")
        crashes += [(str(fixture), fixture.read_bytes(), crash) for crash in found]
    assert not crashes, fuzzing.describe(crashes)


def test_wrapping_puts_generated_code_in_compiled_functions() -> None:
    code = "if a:\n  b = '''\nkeep\n'''\n# comment\r\nc = [\n1]\n"
    programs = fuzzing.wrap(code)
    assert programs["module"] == code
    for name in ("compiled_function", "forward"):
        assert programs[name].startswith("import torch\n"), name
        assert fuzzing.python_accepts(programs[name]), programs[name]
        assert "'''\nkeep\n'''" in programs[name], "string contents must not be re-indented"
    assert "@torch.compile\ndef fuzzed(x):\n    if a:\n" in programs["compiled_function"]
    assert "class Fuzzed(nn.Module):\n    def forward(self, x):\n        if a:\n" in programs["forward"]
    textual = fuzzing._wrap_textually("x = 1\n", fuzzing.FUNCTION_TEMPLATE)
    assert textual.endswith("def fuzzed(x):\n    x = 1\n")


def test_mutants_are_reproducible_and_cover_every_operator() -> None:
    assert fuzzing.mutant(7, 3) == fuzzing.mutant(7, 3)
    names = {fuzzing.mutant(7, n, quick=True).name.split("+")[1] for n in range(len(fuzzing.MUTATORS))}
    assert names == set(fuzzing.MUTATORS)
