"""Every ``--output-format`` on real CLI output, and ``--min-confidence``.

The project below has one finding of each kind a format must tell apart: a ``certain`` finding
(``train.py``), a ``likely`` one (a ``forward`` with no compile site in the tree, ``model.py``) and a
DYN9xx diagnostic (``bad.py``). Each format is parsed as its consumer would (``json``, ``xml.etree``,
the GitHub runner's command syntax) and its structure checked field by field; SARIF is also validated
against the SARIF 2.1.0 JSON schema vendored in ``tests/schemas/``. Torch-free: the CLI runs in-process.
"""

from __future__ import annotations

import json
import re
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
from test_cli import JSON_FIELDS, invoke, write

from dynalint.checks import ALL_RULES
from dynalint.model.diagnostics import ALL_DIAGNOSTICS
from dynalint.output.reporters import REPORTERS
from dynalint.output.reporters.github import escape_data, escape_property

ROOT = Path(__file__).resolve().parent.parent
SARIF_SCHEMA = ROOT / "tests" / "schemas" / "sarif-2.1.0-rtm.5.json"

TRAIN = """\
import torch


@torch.compile
def step(x):
    print("loss", x)
    return x + 1
"""
MODEL = """\
import torch


class Block(torch.nn.Module):
    def forward(self, x):
        print(x)
        return x
"""
BAD = "def broken(:\n"
# (filename, line, column, code, confidence) of every finding, in the order the engine sorts them.
EXPECTED = [
    ("bad.py", 1, 12, "DYN901", "certain"),
    ("model.py", 6, 9, "DYN201", "likely"),
    ("train.py", 6, 5, "DYN201", "certain"),
]
CONCISE = re.compile(r"^(?P<path>[^\s:]+):(?P<line>\d+):(?P<column>\d+): (?P<code>DYN\d{3}) \S.*$")
# A workflow command as the runner splits it: no raw CR, LF, or (inside properties) `:` and `,`.
GITHUB = re.compile(
    r"^::(?P<level>error|warning) file=(?P<file>[^:,\r\n]+),line=(?P<line>\d+),col=(?P<col>\d+),"
    r"endLine=(?P<endLine>\d+),endColumn=(?P<endColumn>\d+),title=(?P<title>[^:,\r\n]+)::(?P<message>[^\r\n]+)$"
)
GITLAB_SEVERITIES = {"info", "minor", "major", "critical", "blocker"}


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The three-finding project, made the working directory."""
    monkeypatch.chdir(tmp_path)
    write(tmp_path / "train.py", TRAIN)
    write(tmp_path / "model.py", MODEL)
    write(tmp_path / "bad.py", BAD)
    return tmp_path


def run(*args: str) -> tuple[int, str]:
    result = invoke([*args, "--quiet"])
    return result.exit_code, result.stdout


def unescape(value: str) -> str:
    """What the GitHub runner reads back from an escaped value."""
    for escaped, raw in (("%0D", "\r"), ("%0A", "\n"), ("%3A", ":"), ("%2C", ","), ("%25", "%")):
        value = value.replace(escaped, raw)
    return value


def test_every_format_is_registered_under_ruffs_names() -> None:
    assert list(REPORTERS) == ["text", "concise", "json", "json-lines", "github", "sarif", "junit", "gitlab"]


@pytest.mark.parametrize("output_format", list(REPORTERS))
def test_every_format_reports_every_finding_including_dyn9xx(project: Path, output_format: str) -> None:
    status, stdout = run("--output-format", output_format, ".")
    assert status == 1
    for filename, line, _, code, _ in EXPECTED:
        assert code in stdout and filename in stdout, (output_format, code, filename)


@pytest.mark.parametrize("output_format", list(REPORTERS))
def test_every_format_is_well_formed_on_a_clean_run(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                     output_format: str) -> None:
    monkeypatch.chdir(tmp_path)
    write(tmp_path / "clean.py", TRAIN.replace('    print("loss", x)\n', ""))
    status, stdout = run("--output-format", output_format, ".")
    assert status == 0
    if output_format in ("text", "concise", "json-lines", "github"):
        assert stdout == ""
    elif output_format in ("json", "gitlab"):
        assert json.loads(stdout) == []
    elif output_format == "sarif":
        log = json.loads(stdout)
        assert log["runs"][0]["results"] == []
        assert log["runs"][0]["invocations"][0] == {
            "executionSuccessful": True, "exitCode": 0, "workingDirectory": {"uri": tmp_path.as_uri() + "/"},
        }
    else:
        root = ET.fromstring(stdout)
        assert (root.get("tests"), root.get("failures"), root.get("errors")) == ("1", "0", "0")
        assert [case.get("name") for case in root.iter("testcase")] == ["no findings"]


# -- concise, json, json-lines ------------------------------------------------------------------------


def test_concise_is_one_line_per_finding(project: Path) -> None:
    _, stdout = run("--output-format", "concise", ".")
    lines = stdout.splitlines()
    matches = [CONCISE.match(line) for line in lines]
    assert all(matches), lines
    assert [(m["path"], int(m["line"]), int(m["column"]), m["code"]) for m in matches if m] == [
        expected[:4] for expected in EXPECTED
    ]
    assert lines[1].endswith("[likely]") and not lines[2].endswith("[likely]")
    _, text = run(".")
    assert lines == [line for line in text.splitlines() if not line.startswith(" ")]


def test_json_has_ruffs_cell_key_null_for_py_files(project: Path) -> None:
    _, stdout = run("--output-format", "json", ".")
    findings = json.loads(stdout)
    assert [set(finding) for finding in findings] == [JSON_FIELDS | {"cell"}] * len(EXPECTED)
    assert [finding["cell"] for finding in findings] == [None] * len(EXPECTED)
    assert [(f["filename"], f["location"]["row"], f["location"]["column"], f["code"], f["confidence"])
            for f in findings] == EXPECTED


def test_json_lines_is_one_json_object_per_line_equal_to_json(project: Path) -> None:
    _, stdout = run("--output-format", "json-lines", ".")
    lines = stdout.splitlines()
    assert len(lines) == len(EXPECTED)
    objects = [json.loads(line) for line in lines]
    assert all(isinstance(obj, dict) for obj in objects)
    _, whole = run("--output-format", "json", ".")
    assert objects == json.loads(whole)


# -- github -------------------------------------------------------------------------------------------


def test_github_is_one_workflow_command_per_finding(project: Path) -> None:
    _, stdout = run("--output-format", "github", ".")
    commands = [GITHUB.match(line) for line in stdout.splitlines()]
    assert all(commands), stdout
    assert [(c["file"], int(c["line"]), int(c["col"]), c["level"]) for c in commands if c] == [
        (filename, line, column, "warning" if confidence == "likely" else "error")
        for filename, line, column, _, confidence in EXPECTED
    ]
    first = commands[2]
    assert first is not None
    assert (int(first["endLine"]), int(first["endColumn"])) == (6, 21)
    assert unescape(first["title"]) == "dynalint DYN201 (print-call)"
    assert unescape(first["message"]).split("\n") == [
        "DYN201 `print()` in compiled code breaks the graph",
        "help: Move the output out of the compiled function, or guard it with "
        "`if not torch.compiler.is_compiling():`",
        "compiled via: train.py:4 @torch.compile -> step",
    ]


def test_github_escapes_percent_cr_lf_in_data_and_colon_comma_in_properties(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    odd = "odd\r\nna,me:100%.py"
    write(tmp_path / odd, TRAIN)
    _, stdout = run("--output-format", "github", ".")
    [line] = stdout.splitlines()
    command = GITHUB.match(line)
    assert command is not None, line
    assert command["file"] == "odd%0D%0Ana%2Cme%3A100%25.py"
    assert unescape(command["file"]) == odd
    # In the message, the compiled-via line names the file: `%`, CR and LF escaped, `:` and `,` kept.
    assert "compiled via: odd%0D%0Ana,me:100%25.py:4 @torch.compile -> step" in command["message"]
    assert unescape(command["message"]).endswith(f"compiled via: {odd}:4 @torch.compile -> step")


def test_github_escaping_order_never_escapes_an_escape() -> None:
    assert escape_data("100%\r\n") == "100%25%0D%0A"
    assert escape_data("a:b,c") == "a:b,c"
    assert escape_property("%0A:,\n") == "%250A%3A%2C%0A"


# -- sarif --------------------------------------------------------------------------------------------


def _sarif(*paths: str) -> tuple[int, dict]:
    status, stdout = run("--output-format", "sarif", *paths)
    return status, json.loads(stdout)


def _validate(log: dict) -> None:
    jsonschema = pytest.importorskip("jsonschema", reason="pip install -e '.[test]' installs jsonschema")
    schema = json.loads(SARIF_SCHEMA.read_text(encoding="utf-8"))
    validator = jsonschema.Draft4Validator(schema, format_checker=jsonschema.Draft4Validator.FORMAT_CHECKER)
    errors = [f"{'/'.join(map(str, error.absolute_path))}: {error.message}" for error in validator.iter_errors(log)]
    assert errors == []


def test_sarif_validates_against_the_schema(project: Path) -> None:
    _, log = _sarif(".")
    _validate(log)


def test_sarif_on_the_fixtures_validates_against_the_schema(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(ROOT)
    status, log = _sarif("--no-cache", "fixtures")  # no cache written into the checkout
    assert status == 1 and log["runs"][0]["results"]
    _validate(log)
    assert {result["locations"][0]["physicalLocation"]["artifactLocation"]["uri"].split("/")[0]
            for result in log["runs"][0]["results"]} == {"fixtures"}


def test_fixes_validate_in_json_and_sarif_and_say_the_same(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every fix of the fixtures' findings: the JSON ``fix`` against its schema, SARIF ``fixes`` against
    SARIF 2.1.0, and both hold the same edits."""
    jsonschema = pytest.importorskip("jsonschema", reason="pip install -e '.[test]' installs jsonschema")
    monkeypatch.chdir(ROOT)
    _, stdout = run("--no-cache", "--output-format", "json", "fixtures")
    findings = json.loads(stdout)
    schema = json.loads((ROOT / "tests" / "schemas" / "dynalint-fix.json").read_text(encoding="utf-8"))
    for finding in findings:
        jsonschema.validate(finding["fix"], schema)
    fixed = [f for f in findings if f["fix"]]
    assert len(fixed) >= 20 and {f["fix"]["applicability"] for f in fixed} == {"safe", "unsafe", "display-only"}
    _, log = _sarif("--no-cache", "fixtures")
    _validate(log)
    with_fixes = [r for r in log["runs"][0]["results"] if "fixes" in r]
    assert len(with_fixes) == len(fixed)
    by_place = {(f["filename"], f["location"]["row"], f["location"]["column"], f["code"]): f["fix"] for f in fixed}
    for result in with_fixes:
        location = result["locations"][0]["physicalLocation"]
        key = (location["artifactLocation"]["uri"], location["region"]["startLine"],
               location["region"]["startColumn"], result["ruleId"])
        [change] = result["fixes"][0]["artifactChanges"]
        edits = [(r["deletedRegion"]["startLine"], r["deletedRegion"]["startColumn"], r["deletedRegion"]["endLine"],
                  r["deletedRegion"]["endColumn"], r["insertedContent"]["text"]) for r in change["replacements"]]
        fix = by_place[key]
        assert edits == [(e["location"]["row"], e["location"]["column"], e["end_location"]["row"],
                          e["end_location"]["column"], e["content"]) for e in fix["edits"]]
        assert result["fixes"][0]["description"]["text"] == fix["message"]


def test_sarif_driver_lists_every_rule_with_help_uri_and_gb_ids(project: Path) -> None:
    _, log = _sarif(".")
    assert log["version"] == "2.1.0" and log["$schema"].endswith("sarif-schema-2.1.0.json")
    [sarif_run] = log["runs"]
    driver = sarif_run["tool"]["driver"]
    assert driver["name"] == "dynalint"
    rules = driver["rules"]
    assert [rule["id"] for rule in rules] == [r.code for r in ALL_RULES] + [d.code for d in ALL_DIAGNOSTICS]
    for descriptor, rule in zip(rules, ALL_RULES):
        assert descriptor["name"] == rule.name
        assert descriptor["helpUri"] == rule.url()
        assert descriptor["properties"]["gb_ids"] == list(rule.gb_ids)
        assert descriptor["shortDescription"]["text"] and descriptor["fullDescription"]["text"]
        assert descriptor["help"]["text"] == rule.help
        assert descriptor["help"]["markdown"].startswith(f"# {rule.code} `{rule.name}`")
    for descriptor, diagnostic in zip(rules[len(ALL_RULES):], ALL_DIAGNOSTICS):
        assert (descriptor["name"], descriptor["help"]["text"]) == (diagnostic.name, diagnostic.help)


def test_sarif_results_point_at_their_rule_and_location(project: Path) -> None:
    status, log = _sarif(".")
    [sarif_run] = log["runs"]
    rules, results = sarif_run["tool"]["driver"]["rules"], sarif_run["results"]
    assert [
        (
            result["locations"][0]["physicalLocation"]["artifactLocation"]["uri"],
            result["locations"][0]["physicalLocation"]["region"]["startLine"],
            result["locations"][0]["physicalLocation"]["region"]["startColumn"],
            result["ruleId"],
            result["properties"]["confidence"],
        )
        for result in results
    ] == EXPECTED
    assert [result["level"] for result in results] == ["error", "warning", "error"]
    for result in results:
        assert rules[result["ruleIndex"]]["id"] == result["ruleId"]
        assert result["message"]["text"].startswith(result["ruleId"] + " ")
    train = results[2]
    assert train["locations"][0]["physicalLocation"]["region"] == {
        "startLine": 6, "startColumn": 5, "endLine": 6, "endColumn": 21,
    }
    assert train["relatedLocations"][0]["physicalLocation"] == {
        "artifactLocation": {"uri": "train.py"}, "region": {"startLine": 4},
    }
    assert sarif_run["invocations"][0]["exitCode"] == status == 1
    assert sarif_run["invocations"][0]["executionSuccessful"] is True


def test_sarif_uri_is_relative_to_the_working_directory_and_percent_encoded(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    write(tmp_path / "src" / "my model.py", TRAIN)
    monkeypatch.chdir(tmp_path)
    _, log = _sarif("src")
    [result] = log["runs"][0]["results"]
    assert result["locations"][0]["physicalLocation"]["artifactLocation"]["uri"] == "src/my%20model.py"
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    monkeypatch.chdir(elsewhere)
    _, log = _sarif(str(tmp_path / "src"))
    [result] = log["runs"][0]["results"]
    uri = result["locations"][0]["physicalLocation"]["artifactLocation"]["uri"]
    assert uri == (tmp_path / "src" / "my model.py").resolve().as_uri()


# -- junit --------------------------------------------------------------------------------------------


def test_junit_is_one_testsuite_per_file_one_testcase_per_finding(project: Path) -> None:
    _, stdout = run("--output-format", "junit", ".")
    assert stdout.startswith('<?xml version="1.0" encoding="UTF-8"?>\n')
    root = ET.fromstring(stdout)
    assert root.tag == "testsuites" and root.get("name") == "dynalint"
    assert (root.get("tests"), root.get("failures"), root.get("errors")) == ("3", "2", "1")
    suites = {suite.get("name"): suite for suite in root.findall("testsuite")}
    assert list(suites) == ["bad.py", "model.py", "train.py"]
    seen = []
    for filename, suite in suites.items():
        cases = suite.findall("testcase")
        assert suite.get("tests") == str(len(cases))
        for case in cases:
            [outcome] = list(case)
            assert case.get("classname") == case.get("file") == filename
            seen.append((filename, int(case.get("line", "0")), outcome.tag, outcome.get("type")))
            assert outcome.get("message") and outcome.text and outcome.text.startswith(f"{filename}:")
    assert seen == [("bad.py", 1, "error", "DYN901"), ("model.py", 6, "failure", "DYN201"),
                    ("train.py", 6, "failure", "DYN201")]


def test_junit_stays_valid_xml_with_characters_xml_cannot_hold(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    write(tmp_path / "ctl\x01<&>.py", TRAIN)
    _, stdout = run("--output-format", "junit", ".")
    [suite] = ET.fromstring(stdout).findall("testsuite")
    assert suite.get("name") == "ctl\ufffd<&>.py"


# -- gitlab -------------------------------------------------------------------------------------------


def test_gitlab_has_the_documented_fields_only(project: Path) -> None:
    _, stdout = run("--output-format", "gitlab", ".")
    issues = json.loads(stdout)
    assert isinstance(issues, list) and len(issues) == len(EXPECTED)
    for issue, (filename, line, _, code, confidence) in zip(issues, EXPECTED):
        assert set(issue) == {"description", "check_name", "fingerprint", "severity", "location"}
        assert issue["location"] == {"path": filename, "lines": {"begin": line}}
        assert issue["check_name"] == code and issue["description"].startswith(code + " ")
        assert issue["severity"] in GITLAB_SEVERITIES
        assert issue["severity"] == ("minor" if confidence == "likely" else "major")
        assert re.fullmatch(r"[0-9a-f]{64}", issue["fingerprint"])
    assert len({issue["fingerprint"] for issue in issues}) == len(issues)


def _fingerprints(output_format: str = "gitlab") -> dict[tuple[str, str], list[str]]:
    """``(path, code)`` -> fingerprints, in line order."""
    _, stdout = run("--output-format", output_format, ".")
    found: dict[tuple[str, str], list[str]] = {}
    if output_format == "gitlab":
        for issue in json.loads(stdout):
            found.setdefault((issue["location"]["path"], issue["check_name"]), []).append(issue["fingerprint"])
    else:
        for result in json.loads(stdout)["runs"][0]["results"]:
            path = result["locations"][0]["physicalLocation"]["artifactLocation"]["uri"]
            found.setdefault((path, result["ruleId"]), []).append(result["partialFingerprints"]["dynalint/v1"])
    return found


def test_fingerprints_survive_lines_inserted_above_and_reformatting(project: Path) -> None:
    before = _fingerprints()
    assert _fingerprints("sarif") == before  # SARIF carries the same fingerprint
    write(project / "train.py", '"""Training."""\n\nimport os\n\n\n' + TRAIN.replace('print("loss", x)', 'print( "loss",  x )'))
    _, stdout = run("--output-format", "gitlab", ".")
    moved = [issue for issue in json.loads(stdout) if issue["location"]["path"] == "train.py"]
    assert [issue["location"]["lines"]["begin"] for issue in moved] == [11]
    assert _fingerprints() == before


def test_fingerprints_tell_apart_equal_lines_and_change_with_the_flagged_line(project: Path) -> None:
    write(project / "train.py", TRAIN.replace('    print("loss", x)\n', '    print("loss", x)\n' * 2))
    twice = _fingerprints()[("train.py", "DYN201")]
    assert len(twice) == len(set(twice)) == 2
    write(project / "train.py", TRAIN.replace('print("loss", x)', 'print("step", x)'))
    assert _fingerprints()[("train.py", "DYN201")][0] not in twice


# -- --min-confidence ---------------------------------------------------------------------------------


def _codes_and_files(*args: str) -> list[tuple[str, str]]:
    _, stdout = run("--output-format", "json", *args)
    return [(finding["filename"], finding["code"]) for finding in json.loads(stdout)]


def test_min_confidence_certain_drops_likely_findings(project: Path) -> None:
    everything = [("bad.py", "DYN901"), ("model.py", "DYN201"), ("train.py", "DYN201")]
    assert _codes_and_files(".") == everything
    assert _codes_and_files(".", "--min-confidence", "likely") == everything
    assert _codes_and_files(".", "--min-confidence", "certain") == [("bad.py", "DYN901"), ("train.py", "DYN201")]


def test_min_confidence_certain_with_only_likely_findings_exits_clean(project: Path) -> None:
    status, stdout = run("model.py", "--min-confidence", "certain")
    assert (status, stdout) == (0, "")


def test_min_confidence_from_config_and_the_command_line_wins(project: Path) -> None:
    write(project / "pyproject.toml", '[tool.dynalint]\nmin-confidence = "certain"\n')
    assert ("model.py", "DYN201") not in _codes_and_files(".")
    assert ("model.py", "DYN201") in _codes_and_files(".", "--min-confidence", "likely")


@pytest.mark.parametrize("value", ['"sure"', "1", '["certain"]'])
def test_min_confidence_config_rejects_other_values(project: Path, value: str) -> None:
    write(project / "pyproject.toml", f"[tool.dynalint]\nmin-confidence = {value}\n")
    result = invoke(["."])
    assert result.exit_code == 2
    assert "min-confidence" in result.stderr


def test_min_confidence_rejects_other_values_on_the_command_line(project: Path) -> None:
    assert invoke([".", "--min-confidence", "confirmed"]).exit_code == 2


def test_a_break_no_rule_predicted_links_the_page_of_its_gb_id_and_other_diagnostics_link_nothing() -> None:
    """DYN090 has no rule page: its JSON ``url`` is the graph-break site's page of the GB id Dynamo gave,
    where the cause and the fixes are explained. A rule's finding keeps its rule's page."""
    import io

    from dynalint.model.finding import Finding, Position
    from dynalint.output.reporters import Run

    def url_of(code: str, gb_ids: tuple[str, ...]) -> object:
        finding = Finding(code, "x", "m", "a.py", Position(1, 1), Position(1, 1), gb_ids=gb_ids)
        out = io.StringIO()
        REPORTERS["json"]([finding], out, Run(1, 1))
        return json.loads(out.getvalue())[0]["url"]

    assert url_of("DYN090", ("GB0059",)) == "https://meta-pytorch.github.io/compile-graph-break-site/gb/gb0059.html"
    assert url_of("DYN090", ()) is None
    assert url_of("DYN901", ()) is None
    assert str(url_of("DYN101", ("GB0124",))).endswith("rules/DYN101-tensor-item.md")
