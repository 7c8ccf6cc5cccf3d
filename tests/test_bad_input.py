"""Bad input never crashes the run and never hides the other files' findings.

A file that does not parse is DYN901 at the error's line; a file that is not valid in its encoding
(latin-1 bytes without a coding declaration) or is binary is DYN902; each names its own path. An empty
file is clean. A file with a coding declaration is valid Python and is linted normally. A rule that
raises becomes DYN903 naming the rule, and the other rules' findings in that file survive. In every
case the exit code is 1 (there are findings) and no traceback reaches the user.
"""

from __future__ import annotations

import ast
import json
import os
import random
import re
import subprocess
import sys
from pathlib import Path

import libcst as cst
import pytest

from dynalint.analysis.program import link
from dynalint.analysis.summarize import summarize
from dynalint.checks.print_call import PrintCall
from dynalint.lint import engine
from dynalint.lint.rule import Rule

ROOT = Path(__file__).resolve().parent.parent
FINDING = re.compile(r"^(?P<path>\S.*?):(?P<line>\d+):(?P<column>\d+): (?P<code>DYN\d{3}) (?P<message>.+)$")

GOOD = """\
import torch

@torch.compile
def f(x):
    print("hi")
    return x + 1
"""
GOOD_LINE = 5

SYNTAX_ERROR = """\
import torch


def g(x) return x
"""
SYNTAX_ERROR_LINE = 4

LATIN1_COMMENT = b"import torch\n\n# caf\xe9\nX = 1\n"  # no coding declaration: invalid UTF-8 on line 3
LATIN1_FIRST_LINE = b"# caf\xe9\nimport torch\n"  # invalid UTF-8 where a coding declaration could be
LATIN1_DECLARED = (
    b"# -*- coding: latin-1 -*-\n"
    b"import torch\n"
    b"\n"
    b"# caf\xe9\n"
    b"@torch.compile\n"
    b"def f(x):\n"
    b"    print('caf\xe9')\n"
    b"    return x\n"
)
LATIN1_DECLARED_LINE = 7
BINARY = bytes(random.Random(0).randrange(256) for _ in range(512)) + b"\x00\x01\x02"

# Bad files and the one diagnostic each must get: name -> (content, code).
BAD = {
    "syntax_error.py": (SYNTAX_ERROR.encode(), "DYN901"),
    "latin1_comment.py": (LATIN1_COMMENT, "DYN902"),
    "latin1_first_line.py": (LATIN1_FIRST_LINE, "DYN902"),
    "binary.py": (BINARY, "DYN902"),
}


def _run(*args: str, cwd: Path, stdin: bytes | None = None) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")]))}
    completed = subprocess.run(
        [sys.executable, "-m", "dynalint", *args],
        input=stdin,
        capture_output=True,
        cwd=cwd,
        env=env,
        timeout=120,
    )
    return subprocess.CompletedProcess(
        completed.args,
        completed.returncode,
        completed.stdout.decode("utf-8", "replace"),
        completed.stderr.decode("utf-8", "replace"),
    )


def _text_findings(stdout: str) -> list[dict[str, str]]:
    return [m.groupdict() for m in map(FINDING.match, stdout.splitlines()) if m]


def _same_file(displayed: str, cwd: Path, path: Path) -> bool:
    return (cwd / displayed).resolve() == path.resolve()


@pytest.fixture
def bad_folder(tmp_path: Path) -> Path:
    folder = tmp_path / "proj"
    folder.mkdir()
    for name, (content, _) in BAD.items():
        (folder / name).write_bytes(content)
    (folder / "empty.py").write_bytes(b"")
    (folder / "good.py").write_text(GOOD, encoding="utf-8")
    return folder


def test_fixture_syntax_error_is_where_python_says() -> None:
    with pytest.raises(SyntaxError) as raised:
        ast.parse(SYNTAX_ERROR)
    assert raised.value.lineno == SYNTAX_ERROR_LINE
    assert b"\x00" in BINARY


def test_bad_files_get_their_own_diagnostics_text(bad_folder: Path) -> None:
    cwd = bad_folder.parent
    result = _run("proj", cwd=cwd)
    assert "Traceback" not in result.stdout + result.stderr
    assert result.returncode == 1, result.stderr
    findings = _text_findings(result.stdout)

    for name, (_, code) in BAD.items():
        own = [f for f in findings if _same_file(f["path"], cwd, bad_folder / name)]
        assert [f["code"] for f in own] == [code], f"{name}: {own}"
        assert own[0]["message"].strip(), f"{name}: empty message"
    syntax = next(f for f in findings if _same_file(f["path"], cwd, bad_folder / "syntax_error.py"))
    assert int(syntax["line"]) == SYNTAX_ERROR_LINE

    assert not [f for f in findings if _same_file(f["path"], cwd, bad_folder / "empty.py")]
    good = [(f["code"], int(f["line"])) for f in findings if _same_file(f["path"], cwd, bad_folder / "good.py")]
    assert good == [("DYN201", GOOD_LINE)]


def test_bad_files_get_their_own_diagnostics_json(bad_folder: Path) -> None:
    cwd = bad_folder.parent
    result = _run("proj", "--output-format", "json", cwd=cwd)
    assert "Traceback" not in result.stdout + result.stderr
    assert result.returncode == 1, result.stderr
    findings = json.loads(result.stdout)

    for name, (_, code) in BAD.items():
        own = [f for f in findings if _same_file(f["filename"], cwd, bad_folder / name)]
        assert [f["code"] for f in own] == [code], f"{name}: {own}"
    syntax = next(f for f in findings if _same_file(f["filename"], cwd, bad_folder / "syntax_error.py"))
    assert syntax["location"]["row"] == SYNTAX_ERROR_LINE

    assert not [f for f in findings if _same_file(f["filename"], cwd, bad_folder / "empty.py")]
    good = [
        (f["code"], f["location"]["row"]) for f in findings if _same_file(f["filename"], cwd, bad_folder / "good.py")
    ]
    assert good == [("DYN201", GOOD_LINE)]


def test_latin1_with_coding_declaration_is_linted_not_rejected(tmp_path: Path) -> None:
    (tmp_path / "declared.py").write_bytes(LATIN1_DECLARED)
    result = _run("declared.py", cwd=tmp_path)
    assert "Traceback" not in result.stdout + result.stderr
    codes = [(f["code"], int(f["line"])) for f in _text_findings(result.stdout)]
    assert "DYN902" not in {code for code, _ in codes}
    assert codes == [("DYN201", LATIN1_DECLARED_LINE)], "the declared-latin-1 file was not linted"
    assert result.returncode == 1


def test_only_bad_input_still_exits_1(tmp_path: Path) -> None:
    (tmp_path / "broken.py").write_text(SYNTAX_ERROR, encoding="utf-8")
    result = _run("broken.py", cwd=tmp_path)
    assert [f["code"] for f in _text_findings(result.stdout)] == ["DYN901"]
    assert result.returncode == 1


def test_empty_file_alone_is_clean(tmp_path: Path) -> None:
    (tmp_path / "empty.py").write_bytes(b"")
    result = _run("empty.py", cwd=tmp_path)
    assert result.stdout == ""
    assert result.returncode == 0, result.stderr


@pytest.mark.parametrize(("content", "code"), [(LATIN1_COMMENT, "DYN902"), (BINARY, "DYN902"),
                                               (SYNTAX_ERROR.encode(), "DYN901")], ids=["latin1", "binary", "syntax"])
def test_bad_stdin_is_diagnosed_under_its_stdin_filename(tmp_path: Path, content: bytes, code: str) -> None:
    result = _run("-", "--stdin-filename", "pkg/from_stdin.py", cwd=tmp_path, stdin=content)
    assert "Traceback" not in result.stdout + result.stderr
    findings = _text_findings(result.stdout)
    assert [(f["path"], f["code"]) for f in findings] == [("pkg/from_stdin.py", code)]
    assert result.returncode == 1


def test_unresolvable_compile_target_does_not_crash_the_run(tmp_path: Path) -> None:
    """``self.gm.compile()`` on an attribute of unknown type once crashed linking (KeyError, exit 2)."""
    folder = tmp_path / "proj"
    folder.mkdir()
    (folder / "holder.py").write_text(
        "import torch\n\n\nclass Holder:\n    def __init__(self, gm):\n        self.gm = gm\n\n"
        "    def run(self):\n        self.gm.compile()\n",
        encoding="utf-8",
    )
    (folder / "good.py").write_text(GOOD, encoding="utf-8")
    result = _run("proj", cwd=tmp_path)
    assert "Traceback" not in result.stdout + result.stderr
    assert ("DYN201", str(GOOD_LINE)) in {(f["code"], f["line"]) for f in _text_findings(result.stdout)}
    assert result.returncode == 1


class Boom(Rule):
    """A rule that raises on every call it sees inside compiled code."""

    code = "DYN998"
    name = "boom"
    message = "never reported"
    help = "none"

    def visit_Call(self, node: cst.Call) -> None:
        raise RuntimeError("boom went the rule")


@pytest.mark.parametrize("order", ["crashing-first", "crashing-last"])
def test_crashing_rule_becomes_dyn903_and_other_rules_still_report(order: str) -> None:
    rules = [Boom, PrintCall] if order == "crashing-first" else [PrintCall, Boom]
    summary = summarize(ast.parse(GOOD), "good.py", "good")
    program = link([summary])
    findings = engine.lint_module(GOOD, "good.py", summary, program, rules, every_rule=rules)

    crashes = [f for f in findings if f.code == "DYN903"]
    assert len(crashes) == 1, findings
    assert crashes[0].filename == "good.py"
    assert "DYN998" in crashes[0].message and "boom" in crashes[0].message
    assert [(f.code, f.start.line) for f in findings if f.code == "DYN201"] == [("DYN201", GOOD_LINE)]
    assert {f.code for f in findings} == {"DYN201", "DYN903"}, "the crashing rule's own reports must be dropped"


# Code ``ast.parse`` accepts and Python's compiler refuses; each is a DYN901 where Python puts it.
COMPILER_REFUSES = {
    "star_import_in_function": (b"def f():\n    from os import *\n", 2),
    "repeated_keyword": (b"f(x=1, x=2)\n", 1),
    "bom_past_the_start": (b"x = 1\n\xef\xbb\xbfy = 2\n", 2),
    "return_outside_function": (b"return 3\n", 1),
    "nonlocal_at_module_level": (b"nonlocal x\n", 1),
}


@pytest.mark.parametrize("name", sorted(COMPILER_REFUSES))
def test_what_python_refuses_to_compile_is_a_syntax_error_where_python_says(tmp_path: Path, name: str) -> None:
    data, line = COMPILER_REFUSES[name]
    (tmp_path / "refused.py").write_bytes(data)
    with pytest.raises(SyntaxError) as python:
        compile(data, "refused.py", "exec", dont_inherit=True)
    result = _run("refused.py", cwd=tmp_path)
    [(code, reported)] = [(f["code"], int(f["line"])) for f in _text_findings(result.stdout)]
    assert (code, reported) == ("DYN901", python.value.lineno) == ("DYN901", line)
    assert python.value.msg in result.stdout


@pytest.mark.parametrize("cookie", ["# coding: wtf-8\n", "#!/usr/bin/env python\n# -*- coding: latin-1 -*-\n"])
def test_text_is_judged_as_text_whatever_its_coding_cookie_says(cookie: str) -> None:
    """``lint_source`` gets decoded text: a cookie in it (unknown, or naming another encoding) is no
    longer read, also when a U+FEFF inside a string makes the syntax check compile the text's bytes."""
    from dynalint.api import lint_source

    text = cookie + '"""A docstring\n\ufeffwith a BOM character inside."""\nimport torch\n\n\n@torch.compile\n' \
                    "def f(x):\n    print('caf\u00e9')\n    return x\n"
    compile(text, "t.py", "exec", dont_inherit=True)  # Python takes it as text
    assert [f.code for f in lint_source(text, "t.py")] == ["DYN201"]


def test_a_lone_surrogate_in_a_notebook_cell_is_unreadable_not_a_syntax_error(tmp_path: Path) -> None:
    cell = {"cell_type": "code", "metadata": {}, "outputs": [], "execution_count": None, "source": ["x = '\ud800'\n"]}
    notebook = {"cells": [cell], "metadata": {"kernelspec": {"language": "python", "name": "python3"}},
                "nbformat": 4, "nbformat_minor": 5}
    (tmp_path / "n.ipynb").write_text(json.dumps(notebook), encoding="utf-8")  # json escapes it: "\\ud800"
    result = _run("n.ipynb", cwd=tmp_path)
    [finding] = _text_findings(result.stdout)
    assert finding["code"] == "DYN902" and "lone surrogate (U+D800)" in result.stdout


def test_a_function_too_big_for_the_time_budget_is_dyn904_and_the_rest_of_the_file_is_linted(tmp_path: Path) -> None:
    """LibCST's parser cannot be stopped once it runs: a function larger than the per-file budget lets it
    parse is not handed to it. A 300 KiB function under a 2 s budget is a DYN904 naming it; the small
    compiled function beside it is still linted."""
    body = "\n".join(f"    y{i} = x * {i} + torch.relu(x)" for i in range(9000))
    (tmp_path / "pyproject.toml").write_text("[tool.dynalint]\nmax-file-seconds = 2\n", encoding="utf-8")
    (tmp_path / "generated.py").write_text(
        f"import torch\n\n\n@torch.compile\ndef huge(x):\n{body}\n    return x\n\n\n"
        "@torch.compile\ndef small(x):\n    print(x)\n    return x\n", encoding="utf-8")
    result = _run("generated.py", "--no-cache", cwd=tmp_path)
    found = [(f["code"], int(f["line"])) for f in _text_findings(result.stdout)]
    assert found == [("DYN904", 5), ("DYN201", 9011)], result.stdout
    assert "`huge` is 3" in result.stdout and "per-file limit (`max-file-seconds`)" in result.stdout


def test_standard_input_over_the_size_limit_is_dyn904_not_read(tmp_path: Path) -> None:
    (tmp_path / "pyproject.toml").write_text("[tool.dynalint]\nmax-file-size-kb = 64\n", encoding="utf-8")
    big = b"x = 1\n" * 20_000  # 117 KiB
    result = _run("-", "--stdin-filename", "piped.py", cwd=tmp_path, stdin=big)
    [finding] = _text_findings(result.stdout)
    assert finding["code"] == "DYN904" and "over the 64 KiB limit" in result.stdout
