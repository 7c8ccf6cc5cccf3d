"""``[tool.dynalint]`` in the nearest pyproject.toml, as README "Configuration" documents it.

Each key is shown to take effect on a file that triggers three rules (DYN101, DYN201, DYN202), run
from the project folder; command-line flags override the file; an unknown key, a value of the wrong
type or a selector naming no rule is exit 2 with the key (and the file) named on stderr.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner, Result

from dynalint.cli import main

ROOT = Path(__file__).resolve().parent.parent
FINDING = re.compile(r"^(?P<path>\S.*?):(?P<line>\d+):(?P<column>\d+): (?P<code>DYN\d{3}) ")

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
ALL_THREE = {"DYN101", "DYN201", "DYN202"}


def _runner() -> CliRunner:
    try:
        return CliRunner(mix_stderr=False)  # type: ignore[call-arg]  # click < 8.2
    except TypeError:
        return CliRunner()


def invoke(args: list[str], input: str | None = None) -> Result:
    return _runner().invoke(main, args, input=input, catch_exceptions=False)


def found(stdout: str) -> set[tuple[str, str]]:
    """``{(path, code)}`` of the text output."""
    return {(m["path"], m["code"]) for m in map(FINDING.match, stdout.splitlines()) if m}


def codes(stdout: str) -> set[str]:
    return {code for _, code in found(stdout)}


def write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    root = tmp_path / "proj"
    write(root / "multi.py", MULTI)
    monkeypatch.chdir(root)
    return root


def configure(project: Path, body: str) -> Path:
    return write(project / "pyproject.toml", "[project]\nname = 'demo'\n\n[tool.dynalint]\n" + body)


def test_without_config_the_three_rules_fire(project: Path) -> None:
    result = invoke(["."])
    assert codes(result.stdout) == ALL_THREE
    assert result.exit_code == 1


def test_select(project: Path) -> None:
    configure(project, 'select = ["DYN201"]\n')
    assert codes(invoke(["."]).stdout) == {"DYN201"}


def test_select_prefix(project: Path) -> None:
    configure(project, 'select = ["DYN2"]\n')
    assert codes(invoke(["."]).stdout) == {"DYN201", "DYN202"}


def test_ignore(project: Path) -> None:
    configure(project, 'ignore = ["DYN201"]\n')
    assert codes(invoke(["."]).stdout) == ALL_THREE - {"DYN201"}


def test_ignore_prefix_without_select(project: Path) -> None:
    configure(project, 'ignore = ["DYN2"]\n')
    assert codes(invoke(["."]).stdout) == {"DYN101"}


def test_extend_select(project: Path) -> None:
    configure(project, 'select = ["DYN101"]\nextend-select = ["DYN201"]\n')
    assert codes(invoke(["."]).stdout) == {"DYN101", "DYN201"}


def test_per_file_ignores(project: Path) -> None:
    write(project / "sub" / "inner.py", MULTI)
    configure(project, '\n[tool.dynalint.per-file-ignores]\n"sub/*" = ["DYN201"]\n')
    result = found(invoke(["."]).stdout)
    assert {code for path, code in result if path == "multi.py"} == ALL_THREE
    assert {code for path, code in result if path == "sub/inner.py"} == ALL_THREE - {"DYN201"}


def test_per_file_ignores_apply_to_stdin_filename(project: Path) -> None:
    configure(project, '\n[tool.dynalint.per-file-ignores]\n"sub/*" = ["DYN201"]\n')
    ignored = invoke(["-", "--stdin-filename", "sub/inner.py"], input=MULTI)
    assert codes(ignored.stdout) == ALL_THREE - {"DYN201"}
    other = invoke(["-", "--stdin-filename", "elsewhere.py"], input=MULTI)
    assert codes(other.stdout) == ALL_THREE


def test_exclude(project: Path) -> None:
    write(project / "generated" / "gen.py", MULTI)
    configure(project, 'exclude = ["generated/*"]\n')
    assert {path for path, _ in found(invoke(["."]).stdout)} == {"multi.py"}


def test_extend_exclude(project: Path) -> None:
    write(project / "legacy" / "old.py", MULTI)
    write(project / "generated" / "gen.py", MULTI)
    configure(project, 'exclude = ["generated/*"]\nextend-exclude = ["legacy"]\n')
    assert {path for path, _ in found(invoke(["."]).stdout)} == {"multi.py"}


def test_exclude_is_relative_to_the_config_file_not_the_working_directory(
    project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    write(project / "pkg" / "generated" / "gen.py", MULTI)
    write(project / "pkg" / "model.py", MULTI)
    configure(project, 'exclude = ["pkg/generated/*"]\n')
    monkeypatch.chdir(project / "pkg")
    assert {path for path, _ in found(invoke(["."]).stdout)} == {"model.py"}


def test_exclude_is_relative_to_the_config_file_when_walking_a_subfolder(project: Path) -> None:
    write(project / "pkg" / "generated" / "gen.py", MULTI)
    write(project / "pkg" / "model.py", MULTI)
    configure(project, 'exclude = ["pkg/generated/*"]\n')
    assert {path for path, _ in found(invoke(["pkg"]).stdout)} == {"pkg/model.py"}


def test_nearest_pyproject_wins(project: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    configure(project, 'select = ["DYN202"]\n')
    write(project / "sub" / "pyproject.toml", '[tool.dynalint]\nselect = ["DYN201"]\n')
    write(project / "sub" / "inner.py", MULTI)
    monkeypatch.chdir(project / "sub")
    assert codes(invoke(["."]).stdout) == {"DYN201"}


def test_pyproject_without_the_table_is_skipped(project: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    configure(project, 'select = ["DYN202"]\n')
    write(project / "sub" / "pyproject.toml", "[project]\nname = 'inner'\n")
    write(project / "sub" / "inner.py", MULTI)
    monkeypatch.chdir(project / "sub")
    assert codes(invoke(["."]).stdout) == {"DYN202"}


def test_command_line_overrides_the_file(project: Path) -> None:
    configure(project, 'select = ["DYN202"]\n')
    assert codes(invoke([".", "--select", "DYN201"]).stdout) == {"DYN201"}
    assert codes(invoke([".", "--extend-select", "DYN101"]).stdout) == {"DYN101", "DYN202"}


def test_explicit_config_file(project: Path, tmp_path: Path) -> None:
    configure(project, 'select = ["DYN202"]\n')
    other = write(tmp_path / "other" / "pyproject.toml", '[tool.dynalint]\nselect = ["DYN201"]\n')
    result = invoke([".", "--config", str(other)])
    assert codes(result.stdout) == {"DYN201"}
    assert result.exit_code == 1


def test_explicit_config_file_that_does_not_exist_exits_2(project: Path) -> None:
    result = invoke([".", "--config", "missing.toml"])
    assert result.exit_code == 2
    assert "missing.toml" in result.stderr


def test_explicit_config_file_is_validated(project: Path, tmp_path: Path) -> None:
    other = write(tmp_path / "other" / "pyproject.toml", "[tool.dynalint]\nbogus-key = 1\n")
    result = invoke([".", "--config", str(other)])
    assert result.exit_code == 2
    assert "bogus-key" in result.stderr


def test_unknown_key_exits_2_naming_key_and_file(project: Path) -> None:
    configure(project, 'select = ["DYN201"]\nselekt = ["DYN101"]\n')
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")]))}
    completed = subprocess.run(
        [sys.executable, "-m", "dynalint", "."], capture_output=True, text=True, cwd=project, env=env, timeout=120
    )
    assert completed.returncode == 2
    assert "selekt" in completed.stderr
    assert "pyproject.toml" in completed.stderr
    assert "Traceback" not in completed.stderr
    assert completed.stdout == ""


@pytest.mark.parametrize(
    ("body", "key"),
    [
        ('select = "DYN201"\n', "select"),
        ("ignore = 201\n", "ignore"),
        ("extend-select = [201]\n", "extend-select"),
        ('exclude = "generated"\n', "exclude"),
        ("extend-exclude = true\n", "extend-exclude"),
        ('per-file-ignores = ["sub/*"]\n', "per-file-ignores"),
        ('\n[tool.dynalint.per-file-ignores]\n"sub/*" = "DYN201"\n', "per-file-ignores"),
    ],
    ids=["select-str", "ignore-int", "extend-select-ints", "exclude-str", "extend-exclude-bool",
         "per-file-ignores-list", "per-file-ignores-value-str"],
)
def test_wrong_type_exits_2_naming_the_key(project: Path, body: str, key: str) -> None:
    configure(project, body)
    result = invoke(["."])
    assert result.exit_code == 2
    assert key in result.stderr
    assert "pyproject.toml" in result.stderr
    assert result.stdout == ""


def test_verify_factories_take_a_mode_per_factory(project: Path) -> None:
    from dynalint.project.config import Factory, load

    configure(project, '\n[tool.dynalint.verify]\nfactories = ["m:a", { factory = "m:b", mode = "train" }]\n')
    assert load(None, project).verify_factories == (Factory("m:a", "eval"), Factory("m:b", "train"))


@pytest.mark.parametrize(
    ("entry", "named"),
    [('{ factory = "m:b", mode = "inference" }', "mode"), ('{ mode = "train" }', "factory"),
     ('{ factory = "m:b", grad = true }', "factory"), ('"m.b"', "module:function")],
    ids=["unknown-mode", "no-factory", "unknown-key", "no-colon"],
)
def test_a_bad_factory_entry_exits_2_naming_what_is_wrong(project: Path, entry: str, named: str) -> None:
    configure(project, f"\n[tool.dynalint.verify]\nfactories = [{entry}]\n")
    result = invoke(["."])
    assert result.exit_code == 2 and named in result.stderr and "pyproject.toml" in result.stderr, result.stderr


@pytest.mark.parametrize("key", ["select", "extend-select", "ignore"])
def test_selector_naming_no_rule_exits_2(project: Path, key: str) -> None:
    configure(project, f'{key} = ["NOPE"]\n')
    result = invoke(["."])
    assert result.exit_code == 2
    assert "NOPE" in result.stderr


def test_per_file_ignores_naming_no_rule_exits_2(project: Path) -> None:
    configure(project, '\n[tool.dynalint.per-file-ignores]\n"sub/*" = ["NOPE"]\n')
    result = invoke(["."])
    assert result.exit_code == 2
    assert "NOPE" in result.stderr


def test_invalid_toml_in_the_nearest_pyproject_exits_2(project: Path) -> None:
    configure(project, 'select = ["DYN201"\n')
    result = invoke(["."])
    assert result.exit_code == 2
    assert "pyproject.toml" in result.stderr


def test_exclude_does_not_match_above_the_config_root(project: Path, tmp_path: Path) -> None:
    configure(project, 'exclude = ["data"]\n')
    elsewhere = write(tmp_path / "data" / "other" / "model.py", MULTI).parent
    result = invoke([str(elsewhere)])
    assert codes(result.stdout) == ALL_THREE
    assert result.exit_code == 1


@pytest.mark.parametrize(("toml", "said"), [
    ("tool = 3\n", "`tool` must be a table, got 3"),
    ('tool = "x"\n', "`tool` must be a table, got 'x'"),
    ("[tool.dynalint]\nmax-file-size-kb = 1e300\n", "`max-file-size-kb` must be at most 1,073,741,824 KiB"),
    ("[tool.dynalint]\nmax-file-seconds = 1e12\n", "`max-file-seconds` must be at most 31,536,000 seconds"),
    ("[tool.dynalint.verify]\nmemory-gb = 0\n", "`verify.memory-gb` must be a positive, finite number of GB"),
    ("[tool.dynalint]\nfixable = [\"DYN999\"]\n", "DYN999"),
])
def test_a_config_that_cannot_hold_is_a_usage_error_naming_it(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, toml: str, said: str) -> None:
    (tmp_path / "pyproject.toml").write_text(toml, encoding="utf-8")
    (tmp_path / "m.py").write_text("import torch\n\n\n@torch.compile\ndef f(x):\n    print(x)\n", encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    result = CliRunner().invoke(main, ["check", "--no-cache", "m.py"])
    assert result.exit_code == 2, result.output
    assert said in result.stderr and result.stderr.count("\n") == 1, result.stderr
