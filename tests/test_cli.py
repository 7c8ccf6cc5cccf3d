"""The command line as README "Usage" documents it: formats, flags, subcommands and exit codes.

Most cases run the click command in-process (``CliRunner``, with the working directory moved to a
temporary project) because a subprocess costs a third of a second; a few go through
``python -m dynalint`` end to end. Exit codes: 0 clean, 1 findings, 2 usage / config / internal error.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner, Result

from dynalint import __version__
from dynalint.checks import ALL_RULES
from dynalint.cli import main
from dynalint.lint import rule_pages

ROOT = Path(__file__).resolve().parent.parent
FINDING = re.compile(r"^(?P<path>\S.*?):(?P<line>\d+):(?P<column>\d+): (?P<code>DYN\d{3}) (?P<message>\S.*)$")

PRINT = """\
import torch

@torch.compile
def f(x):
    print("hi")
    return x + 1
"""
PRINT_LINE, PRINT_COLUMN, PRINT_SITE_LINE = 5, 5, 3
CLEAN = PRINT.replace('    print("hi")\n', "")

MULTI = """\
import logging

import torch

logger = logging.getLogger(__name__)


@torch.compile
def f(x):
    print("hi")
    logger.info("hi")
    y = x.sum().item()
    return x + y
"""
MULTI_EXPECTED = {("DYN201", 10), ("DYN202", 11), ("DYN101", 12)}

JSON_FIELDS = {
    "code", "name", "message", "filename", "location", "end_location", "fix", "noqa_row", "url", "severity",
    "help", "confidence", "gb_ids", "region", "verify", "torch",
}


def _runner() -> CliRunner:
    try:
        return CliRunner(mix_stderr=False)  # type: ignore[call-arg]  # click < 8.2
    except TypeError:
        return CliRunner()  # click >= 8.2 always keeps stderr apart


def invoke(args: list[str], input: str | bytes | None = None) -> Result:
    """Run ``dynalint ARGS`` in-process; an exception other than ``SystemExit`` fails the test."""
    return _runner().invoke(main, args, input=input, catch_exceptions=False)


def findings(stdout: str) -> list[tuple[str, int, int, str]]:
    return [
        (m["path"], int(m["line"]), int(m["column"]), m["code"])
        for m in map(FINDING.match, stdout.splitlines())
        if m
    ]


def codes(stdout: str) -> set[str]:
    return {code for *_, code in findings(stdout)}


def python_m(*args: str, cwd: Path, stdin: str | None = None) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")]))}
    return subprocess.run(
        [sys.executable, "-m", "dynalint", *args], input=stdin, capture_output=True, text=True, cwd=cwd, env=env,
        timeout=120,
    )


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """An empty project folder, made the working directory (no config above it)."""
    monkeypatch.chdir(tmp_path)
    return tmp_path


def write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


# -- text output ---------------------------------------------------------------------------------------


def test_text_format_is_path_line_col_code_message_then_indented_help(project: Path) -> None:
    write(project / "good.py", PRINT)
    result = invoke(["good.py"])
    assert result.exit_code == 1
    lines = result.stdout.splitlines()
    first = FINDING.match(lines[0])
    assert first is not None, lines[0]
    assert (first["path"], int(first["line"]), int(first["column"]), first["code"]) == (
        "good.py", PRINT_LINE, PRINT_COLUMN, "DYN201",
    )
    assert re.match(r"^\s+help: \S", lines[1]), lines[1]
    assert all(FINDING.match(line) or line.startswith("  ") for line in lines), "unindented non-finding line"


def test_summary_goes_to_stderr_and_quiet_suppresses_it(project: Path) -> None:
    write(project / "good.py", PRINT)
    loud = invoke(["good.py"])
    assert len(loud.stderr.strip().splitlines()) == 1, loud.stderr
    assert loud.stderr.strip() not in loud.stdout
    for flag in ("--quiet", "-q"):
        quiet = invoke(["good.py", flag])
        assert quiet.exit_code == 1
        assert quiet.stderr == ""
        assert quiet.stdout == loud.stdout


def test_summary_is_printed_for_a_clean_run_too(project: Path) -> None:
    write(project / "clean.py", CLEAN)
    result = invoke(["clean.py"])
    assert result.exit_code == 0
    assert result.stdout == ""
    assert len(result.stderr.strip().splitlines()) == 1


def test_findings_are_sorted_by_file_then_line(project: Path) -> None:
    write(project / "b.py", MULTI)
    write(project / "a.py", MULTI)
    found = findings(invoke(["b.py", "a.py"]).stdout)
    assert [(path, line) for path, line, *_ in found] == sorted((path, line) for path, line, *_ in found)
    assert {path for path, *_ in found} == {"a.py", "b.py"}


def test_a_file_named_twice_is_linted_once(project: Path) -> None:
    write(project / "good.py", PRINT)
    result = invoke(["good.py", "good.py", "."])
    assert findings(result.stdout) == [("good.py", PRINT_LINE, PRINT_COLUMN, "DYN201")]


def test_no_path_means_the_current_directory(project: Path) -> None:
    write(project / "good.py", PRINT)
    result = invoke([])
    assert result.exit_code == 1
    assert [(Path(p).name, line, code) for p, line, _, code in findings(result.stdout)] == [
        ("good.py", PRINT_LINE, "DYN201")
    ]


# -- JSON output ---------------------------------------------------------------------------------------


def test_json_output_has_the_documented_fields(project: Path) -> None:
    write(project / "good.py", PRINT)
    result = invoke(["good.py", "--output-format", "json"])
    assert result.exit_code == 1
    data = json.loads(result.stdout)
    assert isinstance(data, list) and len(data) == 1
    finding = data[0]
    assert JSON_FIELDS <= set(finding), JSON_FIELDS - set(finding)
    assert finding["code"] == "DYN201"
    assert finding["name"] == "print-call"
    assert isinstance(finding["message"], str) and finding["message"]
    assert finding["filename"] == "good.py"  # "the path as given"
    assert finding["location"] == {"row": PRINT_LINE, "column": PRINT_COLUMN}
    end = finding["end_location"]
    assert set(end) == {"row", "column"}
    assert (end["row"], end["column"]) >= (PRINT_LINE, PRINT_COLUMN)
    fix = finding["fix"]  # print's fix: guarded under ``if not torch.compiler.is_compiling():`` (unsafe)
    assert fix["applicability"] == "unsafe" and "is_compiling" in fix["message"]
    [edit] = fix["edits"]
    assert edit["location"] == {"row": PRINT_LINE, "column": PRINT_COLUMN}
    assert edit["content"].startswith("if not torch.compiler.is_compiling():\n")
    assert finding["noqa_row"] == PRINT_LINE
    assert isinstance(finding["url"], str) and "DYN201" in finding["url"]
    assert finding["severity"] == "error"
    assert isinstance(finding["help"], str) and finding["help"]
    assert finding["confidence"] in {"certain", "likely"}
    assert finding["gb_ids"] and all(re.fullmatch(r"GB\d{4}", gb) for gb in finding["gb_ids"])
    region = finding["region"]
    assert region["function"] == "f"
    assert region["confidence"] in {"certain", "likely"}
    chain = region["chain"]
    assert isinstance(chain, list) and chain
    for link in chain:
        assert set(link) >= {"filename", "line", "function", "how"}
    assert (chain[0]["filename"], chain[0]["line"]) == ("good.py", PRINT_SITE_LINE)
    assert chain[-1]["function"] == "f"
    assert finding["verify"] is None


def test_json_and_text_report_the_same_findings(project: Path) -> None:
    write(project / "multi.py", MULTI)
    write(project / "good.py", PRINT)
    write(project / "broken.py", "def f(:\n")
    text = invoke(["."])
    data = json.loads(invoke([".", "--output-format", "json", "--quiet"]).stdout)
    as_text = [(p, line, col, code) for p, line, col, code in findings(text.stdout)]
    as_json = [(f["filename"], f["location"]["row"], f["location"]["column"], f["code"]) for f in data]
    assert as_json == as_text
    assert {(code, line) for p, line, _, code in as_text if p == "multi.py"} == MULTI_EXPECTED


def test_json_output_of_a_clean_run_is_an_empty_list(project: Path) -> None:
    write(project / "clean.py", CLEAN)
    result = invoke(["clean.py", "--output-format", "json"])
    assert result.exit_code == 0
    assert json.loads(result.stdout) == []


# -- check subcommand and stdin ------------------------------------------------------------------------


@pytest.mark.parametrize("extra", [[], ["--output-format", "json"], ["--select", "DYN2"]])
def test_check_subcommand_is_the_default(project: Path, extra: list[str]) -> None:
    write(project / "multi.py", MULTI)
    implicit = invoke(["multi.py", *extra])
    explicit = invoke(["check", "multi.py", *extra])
    assert implicit.exit_code == explicit.exit_code == 1
    assert implicit.stdout == explicit.stdout
    assert implicit.stdout.strip()


def test_options_before_the_path_still_mean_check(project: Path) -> None:
    write(project / "multi.py", MULTI)
    result = invoke(["--select", "DYN201", "multi.py"])
    assert result.exit_code == 1
    assert codes(result.stdout) == {"DYN201"}


def test_stdin_with_stdin_filename(project: Path) -> None:
    result = invoke(["-", "--stdin-filename", "pkg/model.py"], input=PRINT)
    assert result.exit_code == 1
    assert findings(result.stdout) == [("pkg/model.py", PRINT_LINE, PRINT_COLUMN, "DYN201")]


def test_stdin_without_a_name_is_still_linted(project: Path) -> None:
    result = invoke(["-"], input=PRINT)
    assert result.exit_code == 1
    assert [(line, code) for _, line, _, code in findings(result.stdout)] == [(PRINT_LINE, "DYN201")]


def test_clean_stdin_exits_0(project: Path) -> None:
    result = invoke(["-", "--stdin-filename", "clean.py"], input=CLEAN)
    assert result.exit_code == 0
    assert result.stdout == ""


def test_stdin_end_to_end(tmp_path: Path) -> None:
    completed = python_m("-", "--stdin-filename", "pkg/model.py", "--quiet", cwd=tmp_path, stdin=PRINT)
    assert completed.returncode == 1, completed.stderr
    assert findings(completed.stdout) == [("pkg/model.py", PRINT_LINE, PRINT_COLUMN, "DYN201")]


# -- selection -----------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("args", "expected"),
    [
        (["--select", "DYN201"], {"DYN201"}),
        (["--select", "DYN2"], {"DYN201", "DYN202"}),
        (["--select", "DYN101,DYN201"], {"DYN101", "DYN201"}),
        (["--select", "DYN101", "--select", "DYN201"], {"DYN101", "DYN201"}),
        (["--select", "DYN101", "--extend-select", "DYN201"], {"DYN101", "DYN201"}),
        (["--select", "DYN101", "--extend-select", "DYN2"], {"DYN101", "DYN201", "DYN202"}),
        (["--select", "ALL", "--ignore", "DYN2"], {"DYN101"}),
        (["--select", "DYN2", "--ignore", "DYN202"], {"DYN201"}),
        (["--select", "DYN101", "--ignore", "DYN1"], {"DYN101"}),  # the more specific selector wins
        (["--select", "DYN1", "--ignore", "DYN101"], set()),
    ],
    ids=lambda value: " ".join(value) if isinstance(value, list) else None,
)
def test_select_extend_select_ignore(project: Path, args: list[str], expected: set[str]) -> None:
    write(project / "multi.py", MULTI)
    result = invoke(["multi.py", *args])
    assert {(code, line) for _, line, _, code in findings(result.stdout)} == {
        (code, line) for code, line in MULTI_EXPECTED if code in expected
    }
    assert result.exit_code == (1 if expected else 0)


def test_select_all_includes_the_defaults(project: Path) -> None:
    write(project / "multi.py", MULTI)
    default = codes(invoke(["multi.py"]).stdout)
    everything = codes(invoke(["multi.py", "--select", "ALL"]).stdout)
    assert default == {code for code, _ in MULTI_EXPECTED}
    assert everything >= default


@pytest.mark.parametrize("ignored", ["DYN201", "DYN2", "DYN", "ALL"])
def test_ignore_removes_from_the_default_selection(project: Path, ignored: str) -> None:
    """Any ignore entry, even a prefix or ALL, beats the implicit default selection."""
    write(project / "multi.py", MULTI)
    default = codes(invoke(["multi.py"]).stdout)
    assert "DYN201" in default
    result = invoke(["multi.py", "--ignore", ignored])
    assert codes(result.stdout) == {code for code in default if not (ignored == "ALL" or code.startswith(ignored))}


@pytest.mark.parametrize("flag", ["--select", "--ignore", "--extend-select"])
@pytest.mark.parametrize("selector", ["NOPE", "DYN9999"])
def test_unknown_selector_is_a_usage_error(project: Path, flag: str, selector: str) -> None:
    write(project / "good.py", PRINT)
    result = invoke(["good.py", flag, selector])
    assert result.exit_code == 2
    assert selector in result.stderr
    assert findings(result.stdout) == []


# -- exit codes ----------------------------------------------------------------------------------------


def test_exit_zero_keeps_the_findings(project: Path) -> None:
    write(project / "good.py", PRINT)
    result = invoke(["good.py", "--exit-zero"])
    assert result.exit_code == 0
    assert findings(result.stdout) == [("good.py", PRINT_LINE, PRINT_COLUMN, "DYN201")]


def test_clean_file_exits_0(project: Path) -> None:
    write(project / "clean.py", CLEAN)
    result = invoke(["clean.py"])
    assert result.exit_code == 0
    assert result.stdout == ""


def test_code_outside_compiled_functions_is_not_flagged(project: Path) -> None:
    write(project / "script.py", 'import torch\n\nprint("hi")\n\n\ndef g(x):\n    print(x)\n')
    result = invoke(["script.py"])
    assert result.exit_code == 0
    assert result.stdout == ""


def test_nonexistent_path_exits_2(project: Path) -> None:
    result = invoke(["no/such/file.py"])
    assert result.exit_code == 2
    assert "no/such/file.py" in result.stderr
    assert "Traceback" not in result.stdout + result.stderr


def test_unknown_output_format_exits_2(project: Path) -> None:
    write(project / "good.py", PRINT)
    assert invoke(["good.py", "--output-format", "yaml"]).exit_code == 2


# -- rule pages ----------------------------------------------------------------------------------------


@pytest.mark.parametrize("ident", ["DYN201", "print-call"])
def test_rule_prints_the_page(ident: str) -> None:
    result = invoke(["rule", ident])
    assert result.exit_code == 0
    page = ROOT / "rules" / "DYN201-print-call.md"
    if page.exists():  # the page, then how its patterns fared on each measured torch
        printed, _, measured = result.stdout.partition("\n\n## Measured releases\n")
        assert printed.strip() == page.read_text(encoding="utf-8").strip()
        assert "| any Example |" in measured and "torch 2.13" in measured
    else:
        assert "DYN201" in result.stdout


def test_rule_by_code_and_by_name_print_the_same() -> None:
    assert invoke(["rule", "DYN201"]).stdout == invoke(["rule", "print-call"]).stdout


def test_unknown_rule_exits_2() -> None:
    result = invoke(["rule", "NOPE"])
    assert result.exit_code == 2
    assert "NOPE" in result.stderr
    assert result.stdout == ""


def test_rules_lists_every_code() -> None:
    result = invoke(["rules"])
    assert result.exit_code == 0
    listed = {line.split()[0] for line in result.stdout.splitlines() if line.strip()}
    assert listed == {rule.code for rule in ALL_RULES}


def test_rules_json() -> None:
    result = invoke(["rules", "--output-format", "json"])
    assert result.exit_code == 0
    rows = json.loads(result.stdout)
    assert isinstance(rows, list)
    by_code = {row["code"]: row for row in rows}
    assert len(by_code) == len(rows)
    assert set(by_code) == {rule.code for rule in ALL_RULES}
    for rule in ALL_RULES:
        row = by_code[rule.code]
        assert {"code", "name", "summary", "gb_ids"} <= set(row)
        assert row["name"] == rule.name
        assert row["gb_ids"] == list(rule.gb_ids)
        assert isinstance(row["summary"], str) and row["summary"].strip()


def test_rules_without_pages_show_no_unfilled_placeholders(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(rule_pages, "load_pages", lambda: {})  # an install without the rule pages
    rows = json.loads(invoke(["rules", "--output-format", "json"]).stdout)
    assert {row["code"] for row in rows} == {rule.code for rule in ALL_RULES}
    leaking = {row["code"]: row["summary"] for row in rows if re.search(r"\{\w+\}", row["summary"])}
    assert leaking == {}


def test_rule_without_its_page_shows_no_unfilled_placeholders(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(rule_pages, "load_pages", lambda: {})
    result = invoke(["rule", "DYN201"])
    assert result.exit_code == 0
    assert "DYN201" in result.stdout
    assert not re.search(r"\{\w+\}", result.stdout), result.stdout


# -- entry points and exclusion ------------------------------------------------------------------------


def test_python_m_dynalint(tmp_path: Path) -> None:
    write(tmp_path / "good.py", PRINT)
    completed = python_m("good.py", cwd=tmp_path)
    assert completed.returncode == 1, completed.stderr
    assert findings(completed.stdout) == [("good.py", PRINT_LINE, PRINT_COLUMN, "DYN201")]
    assert completed.stderr.strip(), "no summary on stderr"
    version = python_m("--version", cwd=tmp_path)
    assert version.returncode == 0
    assert __version__ in version.stdout


def test_walking_skips_well_known_tool_and_environment_folders(project: Path) -> None:
    for folder in (".venv/lib", "venv/lib", "build/lib", ".git/hooks", "__pycache__", "node_modules/pkg"):
        write(project / folder / "copy.py", PRINT)
    write(project / "main.py", PRINT)
    result = invoke(["."])
    assert {path for path, *_ in findings(result.stdout)} == {"main.py"}


def test_force_exclude_applies_config_exclude_to_explicit_files(project: Path) -> None:
    write(project / "pyproject.toml", '[tool.dynalint]\nexclude = ["generated/*"]\n')
    write(project / "generated" / "gen.py", PRINT)
    write(project / "main.py", PRINT)

    walked = invoke(["."])
    assert {path for path, *_ in findings(walked.stdout)} == {"main.py"}, "folder walk must skip the exclude"

    explicit = invoke(["generated/gen.py"])
    assert explicit.exit_code == 1
    assert findings(explicit.stdout) == [("generated/gen.py", PRINT_LINE, PRINT_COLUMN, "DYN201")]

    forced = invoke(["--force-exclude", "generated/gen.py"])
    assert forced.exit_code == 0
    assert findings(forced.stdout) == []

    not_matching = invoke(["--force-exclude", "generated/gen.py", "main.py"])
    assert not_matching.exit_code == 1
    assert {path for path, *_ in findings(not_matching.stdout)} == {"main.py"}


def test_force_exclude_applies_to_stdin_filename(project: Path) -> None:
    write(project / "pyproject.toml", '[tool.dynalint]\nexclude = ["generated/*"]\n')
    result = invoke(["--force-exclude", "-", "--stdin-filename", "generated/gen.py"], input=PRINT)
    assert result.exit_code == 0
    assert findings(result.stdout) == []


def test_folder_passed_explicitly_under_a_build_named_parent_is_linted(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Built-in excludes (build, venv, ...) apply below the folder walked, not to where it lives."""
    write(tmp_path / "build" / "proj" / "good.py", PRINT)
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    monkeypatch.chdir(elsewhere)
    result = invoke([str(tmp_path / "build" / "proj")])
    assert [(line, code) for _, line, _, code in findings(result.stdout)] == [(PRINT_LINE, "DYN201")]
    assert result.exit_code == 1


@pytest.mark.parametrize("flags", [
    ["--add-noqa", "--write-baseline", "b.json"],
    ["--write-baseline", "new.json", "--baseline", "old.json"],
    ["--add-noqa", "--baseline", "old.json"],
    ["--add-noqa", "--verify"],
    ["--write-baseline", "b.json", "--verify"],
    ["--add-noqa", "-"],
])
def test_options_that_cannot_both_hold_are_refused(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                   flags: list[str]) -> None:
    (tmp_path / "m.py").write_text(PRINT, encoding="utf-8")
    (tmp_path / "old.json").write_text("[]", encoding="utf-8")
    before = sorted(p.name for p in tmp_path.iterdir())
    monkeypatch.chdir(tmp_path)
    result = _runner().invoke(main, ["check", "--no-cache", *flags, *([] if "-" in flags else ["m.py"])], input="")
    assert result.exit_code == 2, result.output
    assert result.stderr.count("\n") == 1 and "cannot be used together" in result.stderr, result.stderr
    assert sorted(p.name for p in tmp_path.iterdir()) == before  # nothing written
    assert (tmp_path / "m.py").read_text(encoding="utf-8") == PRINT


@pytest.mark.parametrize("flags", [["--add-noqa"], ["--write-baseline", "b.json"], []])
def test_quiet_prints_no_summary(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, flags: list[str]) -> None:
    (tmp_path / "m.py").write_text(PRINT, encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    loud = _runner().invoke(main, ["check", "--no-cache", *flags, "m.py"])
    (tmp_path / "m.py").write_text(PRINT, encoding="utf-8")
    quiet = _runner().invoke(main, ["check", "--no-cache", "-q", *flags, "m.py"])
    assert loud.stderr.strip() and quiet.stderr == "", quiet.stderr
    assert "1 files" not in loud.stderr and "1 findings" not in loud.stderr and "1 noqa directives" not in loud.stderr


@pytest.mark.parametrize("columns", ["80", "120"])
def test_top_level_help_says_what_a_bare_path_means_and_cuts_no_description(
        monkeypatch: pytest.MonkeyPatch, columns: str) -> None:
    monkeypatch.setenv("COLUMNS", columns)
    shown = _runner().invoke(main, ["--help"]).stdout
    assert "`dynalint PATH...` is short for `dynalint check PATH...`" in " ".join(shown.split())
    commands = shown.split("Commands:")[1].strip().splitlines()
    assert {line.split()[0] for line in commands} == {"check", "clean", "rule", "rules", "server"}
    assert not any(line.rstrip().endswith("...") for line in commands), commands


def test_a_symlink_loop_named_explicitly_is_its_own_diagnostic(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "a.py").symlink_to(tmp_path / "b.py")
    (tmp_path / "b.py").symlink_to(tmp_path / "a.py")
    monkeypatch.chdir(tmp_path)
    for extra in ([], ["--verify"]):  # --verify resolves the named paths first, to tell installed code apart
        result = _runner().invoke(main, ["check", "--no-cache", *extra, "a.py"])
        assert "Traceback" not in result.stderr, result.stderr
        assert "DYN902" in result.stdout and "symlink loop" in result.stdout, result.output
        # Statically: findings, exit 1. With --verify nothing could be verified, which fails the run (exit 2).
        assert result.exit_code == (2 if extra else 1), result.output
        assert ("verified nothing" in result.stderr) == bool(extra), result.stderr


def test_a_crash_of_dynalint_itself_exits_2_not_1(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from dynalint.project import files

    def broken(*args: object, **kwargs: object) -> None:
        raise ZeroDivisionError("planted")

    monkeypatch.setattr(files, "third_party", broken)  # runs before the pipeline's own guard
    (tmp_path / "m.py").write_text(PRINT, encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    result = _runner().invoke(main, ["check", "--no-cache", "--verify", "m.py"])
    assert result.exit_code == 2, result.output
    assert "internal error, please report it" in result.stderr and "ZeroDivisionError: planted" in result.stderr
