"""File discovery as ruff users expect it (issue 12, point 5): ``.gitignore``, the nearest config per
file, non-Python files named explicitly, empty folders, selectors, newer syntax, subcommand names.

Torch-free: the CLI runs in-process with click's ``CliRunner`` in a temporary project, and the files
stage is called directly where only the list of files matters.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner, Result

from dynalint.cli import main
from dynalint.project import files, newer_syntax
from dynalint.project.config import Config

PRINT = "import torch\n\n\n@torch.compile\ndef f(x):\n    print(x)\n    return x\n"
FINDING = re.compile(r"^(?P<path>\S.*?):(?P<line>\d+):(?P<column>\d+): (?P<code>DYN\d{3}) ", re.M)


def _write(root: Path, tree: dict[str, str]) -> None:
    for name, text in tree.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")


def _run(project: Path, monkeypatch: pytest.MonkeyPatch, *args: str) -> Result:
    monkeypatch.chdir(project)
    return CliRunner().invoke(main, ["check", "--no-cache", "-j", "1", *args[1:]] if args[:1] == ("check",) else list(args))


def _check(project: Path, monkeypatch: pytest.MonkeyPatch, *args: str) -> Result:
    return _run(project, monkeypatch, "check", *args)


def _found(result: Result) -> set[tuple[str, str]]:
    return {(m["path"], m["code"]) for m in FINDING.finditer(result.stdout)}


def _discovered(root: Path, config: Config | None = None) -> set[str]:
    found = files.discover([str(root)], config or Config(root=root))
    return {path.relative_to(root).as_posix() for path in found.files}


# -- .gitignore ---------------------------------------------------------------------------------------

GITIGNORED = {
    ".gitignore": "ignored/\n*_gen.py\n!keep_gen.py\n",
    "a.py": PRINT,
    "ignored/b.py": PRINT,
    "x_gen.py": PRINT,
    "keep_gen.py": PRINT,
    "sub/.gitignore": "local.py\n!x_gen.py\n",
    "sub/local.py": PRINT,
    "sub/x_gen.py": PRINT,
    "sub/c.py": PRINT,
}


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    (tmp_path / ".git").mkdir()
    _write(tmp_path, GITIGNORED)
    return tmp_path


def test_gitignore_nested_files_and_negations(repo: Path) -> None:
    # Root rules, a root negation, a nested file's own rule and a nested negation of a root rule.
    assert _discovered(repo) == {"a.py", "keep_gen.py", "sub/c.py", "sub/x_gen.py"}


@pytest.mark.parametrize("bad", ["!", "\\", "[z-a]"])
def test_a_gitignore_line_git_accepts_and_ignores_is_ignored_with_a_warning(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, bad: str) -> None:
    (tmp_path / ".git").mkdir()
    _write(tmp_path, {".gitignore": f"ignored/\n{bad}\n*_gen.py\n", "a.py": PRINT, "ignored/b.py": PRINT, "x_gen.py": PRINT})
    result = _check(tmp_path, monkeypatch, ".")
    assert result.exit_code == 1, result.output  # linted, not an internal error
    assert _found(result) == {("a.py", "DYN201")}  # the valid lines around the bad one still hold
    assert f".gitignore:2: invalid pattern `{bad}` ignored" in result.stderr


def test_gitignore_applies_when_walking_a_subfolder(repo: Path) -> None:
    assert _discovered(repo / "sub", Config(root=repo)) == {"c.py", "x_gen.py"}


def test_gitignore_means_nothing_outside_a_git_work_tree(tmp_path: Path) -> None:
    _write(tmp_path, GITIGNORED)
    assert "ignored/b.py" in _discovered(tmp_path)


def test_git_file_of_a_worktree_counts_as_a_work_tree(tmp_path: Path) -> None:
    (tmp_path / ".git").write_text("gitdir: /elsewhere/.git/worktrees/x\n", encoding="utf-8")
    _write(tmp_path, GITIGNORED)
    assert "ignored/b.py" not in _discovered(tmp_path)


def test_respect_gitignore_false_turns_it_off(repo: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    assert "ignored/b.py" in _discovered(repo, Config(root=repo, respect_gitignore=False))
    (repo / "pyproject.toml").write_text("[tool.dynalint]\nrespect-gitignore = false\n", encoding="utf-8")
    assert ("ignored/b.py", "DYN201") in _found(_check(repo, monkeypatch))


def test_respect_gitignore_must_be_a_boolean(repo: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (repo / "pyproject.toml").write_text('[tool.dynalint]\nrespect-gitignore = "no"\n', encoding="utf-8")
    result = _check(repo, monkeypatch)
    assert result.exit_code == 2 and "`respect-gitignore` must be true or false" in result.stderr


def test_an_ignored_folder_named_explicitly_is_walked_with_its_own_gitignore_only(repo: Path) -> None:
    # As `dynalint .venv/lib/python3.11/site-packages/torch` must lint torch although `.venv/` is ignored.
    _write(repo, {"ignored/deep/c.py": PRINT, "ignored/deep/skip.py": PRINT, "ignored/.gitignore": "skip.py\n"})
    found = files.discover([str(repo / "ignored")], Config(root=repo)).files
    assert {p.relative_to(repo).as_posix() for p in found} == {"ignored/b.py", "ignored/deep/c.py"}


def test_ignored_file_named_explicitly_is_linted_unless_force_exclude(
    repo: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    named = _check(repo, monkeypatch, "ignored/b.py", "x_gen.py")
    assert _found(named) == {("ignored/b.py", "DYN201"), ("x_gen.py", "DYN201")}
    forced = _check(repo, monkeypatch, "--force-exclude", "ignored/b.py", "x_gen.py", "a.py")
    assert _found(forced) == {("a.py", "DYN201")}


# -- the nearest config per file ------------------------------------------------------------------------

MONOREPO = {
    "pyproject.toml": '[tool.dynalint]\nextend-select = ["DYN"]\n',
    "top.py": PRINT,
    "alpha/pyproject.toml": '[tool.dynalint]\nignore = ["print-call"]\nexclude = ["gen/*"]\n',
    "alpha/pkg/m.py": PRINT + "\n\n@torch.compile\ndef g(x):\n    return x.item()\n",
    "alpha/gen/g.py": "x = (\n",  # excluded by alpha's config only: would be a DYN901
    "beta/pyproject.toml": '[tool.dynalint]\nselect = ["DYN201"]\n\n[tool.dynalint.per-file-ignores]\n'
                           '"tests/*" = ["print-call"]\n',
    "beta/m.py": PRINT + "\n\n@torch.compile\ndef g(x):\n    return x.item()\n",
    "beta/tests/t.py": PRINT,
    "beta/gen/g.py": PRINT,
}


@pytest.fixture
def monorepo(tmp_path: Path) -> Path:
    (tmp_path / ".git").mkdir()
    _write(tmp_path, MONOREPO)
    return tmp_path


EXPECTED_MONOREPO = {
    ("top.py", "DYN201"),  # the root's config
    ("alpha/pkg/m.py", "DYN101"),  # alpha ignores print-call, and excludes gen/
    ("beta/m.py", "DYN201"), ("beta/gen/g.py", "DYN201"),  # beta selects DYN201 only; gen/ is not excluded there
}


def test_each_file_uses_its_nearest_config_when_walking(monorepo: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    result = _check(monorepo, monkeypatch, ".")
    assert _found(result) == EXPECTED_MONOREPO, result.output
    assert result.exit_code == 1


def test_each_file_uses_its_nearest_config_when_named(monorepo: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # What pre-commit does from the monorepo root: every staged file named.
    named = ["top.py", "alpha/pkg/m.py", "beta/m.py", "beta/tests/t.py", "beta/gen/g.py"]
    result = _check(monorepo, monkeypatch, *named)
    assert _found(result) == EXPECTED_MONOREPO, result.output
    lines = [m["path"] for m in FINDING.finditer(result.stdout)]
    assert lines == sorted(lines)  # one sorted report, not one per config


def test_explicit_config_applies_to_every_file(monorepo: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    result = _check(monorepo, monkeypatch, "--config", "pyproject.toml", "alpha/pkg/m.py", "beta/tests/t.py")
    assert _found(result) == {("alpha/pkg/m.py", "DYN201"), ("alpha/pkg/m.py", "DYN101"),
                              ("beta/tests/t.py", "DYN201")}


def test_command_line_selectors_apply_under_every_config(monorepo: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    result = _check(monorepo, monkeypatch, "--ignore", "DYN201", ".")
    assert _found(result) == {("alpha/pkg/m.py", "DYN101")}


def test_a_bad_sub_project_config_is_an_error(monorepo: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (monorepo / "beta" / "pyproject.toml").write_text("[tool.dynalint]\nbogus = 1\n", encoding="utf-8")
    result = _check(monorepo, monkeypatch, ".")
    assert result.exit_code == 2 and "unknown key `bogus`" in result.stderr


def test_verify_refuses_several_configs(monorepo: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    result = _check(monorepo, monkeypatch, "--verify", ".")
    assert result.exit_code == 2 and "--verify checks one project at a time" in result.stderr


# -- files that are not Python, folders without Python ------------------------------------------------------


def test_non_python_files_named_explicitly_are_skipped_with_a_warning(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Notebooks are linted (tests/test_notebooks.py); other files that are not Python are not.
    _write(tmp_path, {"README.md": "# Title\n\nSome *text*.\n", "data.json": '{"a": 1}\n'})
    result = _check(tmp_path, monkeypatch, "README.md", "data.json")
    assert result.exit_code == 0 and "DYN901" not in result.stdout
    assert "dynalint: warning: skipped README.md: not a Python file" in result.stderr
    assert "dynalint: warning: skipped data.json: not a Python file" in result.stderr
    assert "(0 files checked)" in result.stderr


def test_a_python_script_without_suffix_is_linted(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    _write(tmp_path, {"tool": "#!/usr/bin/env python3\n" + PRINT, "notes": "just words\n"})
    result = _check(tmp_path, monkeypatch, "tool", "notes")
    assert _found(result) == {("tool", "DYN201")}
    assert "skipped notes: not a Python file" in result.stderr


def test_a_folder_without_python_files_warns_and_passes(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    _write(tmp_path, {"docs/index.md": "# Docs\n", "src/m.py": PRINT})
    result = _check(tmp_path, monkeypatch, "docs")
    assert result.exit_code == 0
    assert "dynalint: warning: no Python files found under docs" in result.stderr
    quiet = _check(tmp_path, monkeypatch, "-q", "docs")
    assert quiet.exit_code == 0 and "warning" not in quiet.stderr


# -- selectors --------------------------------------------------------------------------------------------


@pytest.mark.parametrize("args", [["--select", ""], ["--select", ","], ["--select", " "]])
def test_empty_select_on_the_command_line_is_an_error(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, args: list[str]
) -> None:
    _write(tmp_path, {"m.py": PRINT})
    result = _check(tmp_path, monkeypatch, *args, "m.py")
    assert result.exit_code == 2 and "--select is empty" in result.stderr


def test_empty_select_in_the_config_is_an_error(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    _write(tmp_path, {"pyproject.toml": "[tool.dynalint]\nselect = []\n", "m.py": PRINT})
    result = _check(tmp_path, monkeypatch, "m.py")
    assert result.exit_code == 2 and "`select` is empty" in result.stderr and "pyproject.toml" in result.stderr


def test_empty_ignore_is_allowed(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    _write(tmp_path, {"pyproject.toml": "[tool.dynalint]\nignore = []\nextend-select = []\n", "m.py": PRINT})
    assert _found(_check(tmp_path, monkeypatch, "m.py")) == {("m.py", "DYN201")}


@pytest.mark.parametrize(("args", "expected"), [
    (["--select", "print-call"], {("m.py", "DYN201")}),
    (["--select", "tensor-item,print-call"], {("m.py", "DYN201"), ("m.py", "DYN101")}),
    (["--select", "DYN1", "--extend-select", "print-call"], {("m.py", "DYN201"), ("m.py", "DYN101")}),
    (["--ignore", "print-call"], {("m.py", "DYN101")}),
    (["--select", "tensor-item"], {("m.py", "DYN101")}),
])
def test_rule_names_work_wherever_codes_do(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, args: list[str], expected: set[tuple[str, str]]
) -> None:
    _write(tmp_path, {"m.py": PRINT.replace("    return x\n", "    return x.item()\n")})
    assert _found(_check(tmp_path, monkeypatch, *args, "m.py")) == expected


def test_rule_names_in_the_config(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    _write(tmp_path, {
        "pyproject.toml": '[tool.dynalint]\nselect = ["print-call", "tensor-item"]\n\n'
                          '[tool.dynalint.per-file-ignores]\n"tests/*" = ["print-call"]\n',
        "m.py": PRINT, "tests/t.py": PRINT,
    })
    assert _found(_check(tmp_path, monkeypatch, ".")) == {("m.py", "DYN201")}


def test_an_unknown_rule_name_is_an_error_naming_the_option(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    _write(tmp_path, {"m.py": PRINT})
    result = _check(tmp_path, monkeypatch, "--select", "print-calls", "m.py")
    assert result.exit_code == 2 and "--select names no rule" in result.stderr


# -- syntax newer than the running Python -----------------------------------------------------------------

SAMPLES = {
    (3, 10): "match x:\n    case 1:\n        pass\n",
    (3, 11): "try:\n    pass\nexcept* ValueError:\n    pass\n",
    (3, 12): "type Vector = list[float]\n",
    (3, 13): "def first[T = int](x: list[T]) -> T:\n    return x[0]\n",
    (3, 14): 'greeting = t"hi {name}"\n',
}
NEWER = [(version, text) for version, text in SAMPLES.items() if version > sys.version_info[:2]]


@pytest.mark.skipif(not NEWER, reason="no construct in the table is newer than this interpreter")
@pytest.mark.parametrize(("version", "text"), NEWER)
def test_newer_syntax_names_the_python_it_needs(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, version: tuple[int, int], text: str
) -> None:
    _write(tmp_path, {"new.py": PRINT + "\n" + text})
    result = _check(tmp_path, monkeypatch, "--output-format", "concise", "new.py")
    needed = ".".join(map(str, version))
    running = ".".join(map(str, sys.version_info[:2]))
    assert result.exit_code == 1 and "DYN901" in result.stdout
    assert f"needs Python {needed}+, but dynalint runs on Python {running}" in result.stdout


@pytest.mark.skipif(sys.version_info >= (3, 12), reason="PEP 695 parses here")
@pytest.mark.parametrize("text", ["class Box[T]:\n    pass\n", "def ident[T](x: T) -> T:\n    return x\n",
                                  "async def run[T](x: T) -> T:\n    return x\n"])
def test_pep_695_generics_are_recognised(text: str) -> None:
    with pytest.raises(SyntaxError) as raised:
        compile(text, "m.py", "exec")
    assert "needs Python 3.12+" in newer_syntax.describe(raised.value, text)


@pytest.mark.parametrize("text", ["x = = 1\n", "type = (\n", "def f(:\n    pass\n", "match = [1,\n"])
def test_a_real_syntax_error_keeps_the_interpreters_message(text: str) -> None:
    with pytest.raises(SyntaxError) as raised:
        compile(text, "m.py", "exec")
    assert "needs Python" not in newer_syntax.describe(raised.value, text)


def test_a_construct_is_named_only_when_newer_than_the_running_python() -> None:
    text = SAMPLES[(3, 12)]
    error = SyntaxError("invalid syntax", ("m.py", 1, 6, text, 1, 7))
    assert newer_syntax.recognise(error, text, running=(3, 11)) is not None
    assert newer_syntax.recognise(error, text, running=(3, 12)) is None


# -- subcommands and folders of the same name ---------------------------------------------------------------


@pytest.mark.parametrize("command", ["rules", "clean"])
def test_a_folder_named_like_a_subcommand_gets_a_hint(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, command: str
) -> None:
    _write(tmp_path, {f"{command}/m.py": PRINT})
    result = _run(tmp_path, monkeypatch, command)
    assert result.exit_code == 0
    assert f"`{command}` is a subcommand; to lint the folder use `dynalint check {command}`" in result.stderr
    assert _found(_check(tmp_path, monkeypatch, command)) == {(f"{command}/m.py", "DYN201")}


@pytest.mark.parametrize("folder", [None, "rules/DYN201-print-call.md"])
def test_no_hint_without_such_a_folder_of_code(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, folder: str | None
) -> None:
    # dynalint's own repository has a rules/ folder of Markdown pages: nothing there to lint.
    if folder:
        _write(tmp_path, {folder: "# page\n"})
    result = _run(tmp_path, monkeypatch, "rules")
    assert result.exit_code == 0 and "hint" not in result.stderr and "DYN201" in result.stdout


def test_rule_subcommand_with_a_rule_folder(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    _write(tmp_path, {"rule/m.py": PRINT})
    result = _run(tmp_path, monkeypatch, "rule", "print-call")
    assert result.exit_code == 0 and "DYN201" in result.stdout and "dynalint check rule" in result.stderr
