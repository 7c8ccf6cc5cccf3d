"""A hostile tree costs each bad file its own diagnostic, and never the run.

Beside a good file with a ``print`` in compiled code: files nested deeper than any recursive walk takes,
Unicode line separators and form feeds, lone ``\\r`` line endings, a FIFO, a symlink loop, a dangling
link, a file over the size limit, a folder that cannot be listed and a ``dist`` sub-package. The run
exits 1, says something about every bad file, still reports the good file's finding at its line, prints
no traceback, and its JSON parses. Stages that raise are contained per file (in-process tests below).
"""

from __future__ import annotations

import io
import json
import os
import subprocess
import sys
import tokenize
from pathlib import Path

import pytest

from dynalint import api
from dynalint.lint import engine
from dynalint.pipeline import stages
from dynalint.project import files
from dynalint.project.config import Config

ROOT = Path(__file__).resolve().parent.parent
COMPILED_PRINT = "import torch\n\n\n@torch.compile\ndef f(x):\n    print(x)\n    return x\n"


def _compiled(body: str) -> str:
    return f"import torch\n\n\n@torch.compile\ndef g(a):\n    return {body}\n"


def _run(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "dynalint", *args], capture_output=True, text=True, cwd=cwd, timeout=300,
        env={**os.environ, "PYTHONPATH": str(ROOT)}, stdin=subprocess.DEVNULL,
    )


@pytest.fixture
def hostile(tmp_path: Path) -> Path:
    tree = tmp_path / "hostile"
    tree.mkdir()
    (tree / "pyproject.toml").write_text("[tool.dynalint]\nmax-file-size-kb = 64\n", encoding="utf-8")
    (tree / "good.py").write_text(COMPILED_PRINT, encoding="utf-8")
    # Python compiles all three; the first is linted in full, the second is too deep for LibCST
    # (its summary still counts), the third is module-level code the ast walk must survive.
    (tree / "chain_900.py").write_text(_compiled(" + ".join(["a"] * 900)), encoding="utf-8")
    (tree / "chain_2600.py").write_text(_compiled(" + ".join(["a"] * 2600)), encoding="utf-8")
    (tree / "module_chain.py").write_text("x = " + " + ".join(["a"] * 2000) + "\n", encoding="utf-8")
    (tree / "separators.py").write_text(
        'import torch\n\n\n@torch.compile\ndef h(x):\n    s = "a\u2028b\x85c"  # \u2028 \x85\n\x0c\n'
        "    print(s)\n    return x\n", encoding="utf-8")
    (tree / "carriage_returns.py").write_bytes(COMPILED_PRINT.replace("\n", "\r").encode())
    os.mkfifo(tree / "fifo.py")
    (tree / "loop_a.py").symlink_to(tree / "loop_b.py")
    (tree / "loop_b.py").symlink_to(tree / "loop_a.py")
    (tree / "dangling.py").symlink_to(tree / "nowhere.py")
    (tree / "generated.py").write_text("X = 1\n" * 20_000, encoding="utf-8")  # 117 KiB > 64
    (tree / "nul.py").write_bytes(b"import torch\x00\n")
    (tree / "truncated.py").write_text(COMPILED_PRINT[:40], encoding="utf-8")
    package = tree / "pkg"
    (package / "dist").mkdir(parents=True)
    (package / "__init__.py").write_text("", encoding="utf-8")
    (package / "dist" / "__init__.py").write_text("", encoding="utf-8")
    (package / "dist" / "collectives.py").write_text(COMPILED_PRINT, encoding="utf-8")
    (package / "build").mkdir()
    (package / "build" / "generated_stub.py").write_text("x = 1\n", encoding="utf-8")
    return tree


# file -> the code it must get (and only that one), or None: linted, nothing to say.
EXPECTED = {
    "good.py": ["DYN201"],
    "chain_900.py": [],
    "chain_2600.py": ["DYN904"],
    "module_chain.py": [],
    "separators.py": ["DYN201"],
    "carriage_returns.py": ["DYN201"],
    "fifo.py": ["DYN902"],
    "loop_a.py": ["DYN902"],
    "loop_b.py": ["DYN902"],
    "dangling.py": ["DYN902"],
    "generated.py": ["DYN904"],
    "nul.py": ["DYN902"],
    "truncated.py": ["DYN901"],
    "pkg/dist/collectives.py": ["DYN201"],
}


def test_every_bad_file_costs_only_its_own_diagnostic(hostile: Path) -> None:
    text = _run(".", cwd=hostile)
    assert "Traceback" not in text.stdout + text.stderr
    assert text.returncode == 1, text.stderr
    as_json = _run(".", "--output-format", "json", "-q", cwd=hostile)
    assert as_json.returncode == 1, as_json.stderr
    findings = json.loads(as_json.stdout)
    by_file: dict[str, list[str]] = {}
    for finding in findings:
        by_file.setdefault(finding["filename"], []).append(finding["code"])
    assert {name: by_file.get(name, []) for name in EXPECTED} == EXPECTED
    assert set(by_file) <= set(EXPECTED), f"unexpected files: {set(by_file) - set(EXPECTED)}"
    good = next(f for f in findings if f["filename"] == "good.py")
    assert good["location"] == {"row": 6, "column": 5}
    messages = {f["filename"]: f["message"] for f in findings}
    assert "FIFO" in messages["fifo.py"] and "symlink loop" in messages["loop_a.py"]
    assert "dangling" in messages["dangling.py"] and "max-file-size-kb" in messages["generated.py"]
    assert "LibCST" in messages["chain_2600.py"]
    # The build artefact folder (no __init__.py) was left out, and the summary line says so.
    assert "Skipped 1 excluded folder holding Python files: pkg/build." in text.stderr


def test_one_named_file_survives_a_hostile_project_around_it(hostile: Path) -> None:
    """Pre-commit names one file: the rest of the project is context, and its bad files cost nothing."""
    result = _run("good.py", cwd=hostile)
    assert "Traceback" not in result.stderr
    assert result.returncode == 1, result.stderr
    assert result.stdout.startswith("good.py:6:5: DYN201")
    assert "DYN90" not in result.stdout, "context files are not reported on"


def _print_position(source: str) -> tuple[int, int]:
    """Where Python's tokenizer puts the ``print`` name (1-based column)."""
    for token in tokenize.generate_tokens(io.StringIO(source, newline="").readline):
        if token.string == "print":
            return token.start[0], token.start[1] + 1
    raise AssertionError("no print")


SEPARATED = {
    "form feed before the def": "import torch\n\x0c\n@torch.compile\ndef f(x):\n    print(x)\n",
    "form feed inside the indentation": "import torch\n\nclass M(torch.nn.Module):\n\x0c    def forward(self, x):\n"
                                        "        print(x)\n        return x\n",
    "U+2028 in a string": 'import torch\n@torch.compile\ndef f(x):\n    s = "\u2028\u2029"\n    print(s)\n',
    "U+0085 in a comment": "import torch\n@torch.compile\ndef f(x):\n    # a\x85b\x0bc\x1cd\n    print(x)\n",
    "CRLF": "import torch\r\n@torch.compile\r\ndef f(x):\r\n    print(x)\r\n",
    "lone CR": "import torch\r@torch.compile\rdef f(x):\r    print(x)\r",
    "mixed": "import torch\r\n@torch.compile\rdef f(x):\n    y = 1\r    print(x)\r\n",
    "tabs": "import torch\n@torch.compile\ndef f(x):\n\tif x:\n\t\tprint(x)\n",
    "form feed then a tab": "import torch\n@torch.compile\ndef f(x):\n    if x:\n    \x0c  \t  print(x)\n    return x\n",
    "form feed in a tab-indented file": "import torch\n@torch.compile\ndef f(x):\n\tif x:\n\x0c\t\tprint(x)\n\treturn x\n",
    "BOM": "\ufeffimport torch\n@torch.compile\ndef f(x):\n    print(x)\n",
    "wide characters before": "import torch\n@torch.compile\ndef f(x):\n    y = '日本'; print(x)\n",
}


@pytest.mark.parametrize("source", SEPARATED.values(), ids=SEPARATED.keys())
def test_findings_land_where_pythons_tokenizer_puts_them(tmp_path: Path, source: str) -> None:
    path = tmp_path / "odd.py"
    path.write_bytes(source.encode("utf-8"))
    findings = api.lint_paths([str(path)], Config(root=tmp_path)).findings
    assert [(f.code, f.start.line, f.start.column) for f in findings] == [
        ("DYN201", *_print_position(source.removeprefix("\ufeff")))
    ]


@pytest.mark.parametrize("stage", ["summarize", "link", "lint"])
def test_a_stage_that_raises_on_one_file_costs_that_file_one_diagnostic(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, stage: str
) -> None:
    (tmp_path / "good.py").write_text(COMPILED_PRINT, encoding="utf-8")
    (tmp_path / "cursed.py").write_text(COMPILED_PRINT, encoding="utf-8")

    # Each stage's function (the lint stage's is imported by the pipeline when a run has something to lint),
    # and where its arguments name the file(s) it works on.
    module, target, files_of = {
        "summarize": (stages, "summarize", lambda args: [args[1]]),
        "link": (stages, "link", lambda args: [summary.path for summary in args[0]]),
        "lint": (engine, "lint_module", lambda args: [args[1]]),
    }[stage]
    real = getattr(module, target)

    def cursed(*args, **kwargs):  # the stage raises whenever its work includes one file
        if any("cursed" in name for name in files_of(args)):
            raise ValueError("boom")
        return real(*args, **kwargs)

    monkeypatch.setattr(module, target, cursed)
    findings = api.lint_paths([str(tmp_path)], Config(root=tmp_path)).findings
    codes = {(Path(f.filename).name, f.code) for f in findings}
    assert codes == {("good.py", "DYN201"), ("cursed.py", "DYN903")}
    crash = next(f for f in findings if f.code == "DYN903")
    assert f"in the {stage} stage: ValueError: boom" in crash.message and "please report" in crash.message


def test_a_folder_that_cannot_be_listed_is_reported(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # Tests may run as root, which reads any folder: the walk's own error path is what is checked.
    (tmp_path / "good.py").write_text(COMPILED_PRINT, encoding="utf-8")
    (tmp_path / "locked").mkdir()
    real_scandir = os.scandir

    def scandir(path: object = "."):
        if str(path).endswith("locked"):
            raise PermissionError(13, "Permission denied", str(path))
        return real_scandir(path)

    monkeypatch.setattr(os, "scandir", scandir)
    found = files.discover([str(tmp_path)], Config(root=tmp_path))
    assert [p.name for p in found.files] == ["good.py"]
    assert [(Path(f.filename).name, f.code) for f in found.problems] == [("locked", "DYN902")]
    assert "Permission denied" in found.problems[0].message


def test_a_file_that_disappears_after_discovery_is_reported(tmp_path: Path) -> None:
    gone = tmp_path / "gone.py"
    finding = files.read_source(gone, "gone.py")
    assert not isinstance(finding, str) and finding.code == "DYN902"
    assert "disappeared" in finding.message


@pytest.mark.parametrize("walked", [".", "pkg", "pkg/dist"])
def test_a_dist_package_is_linted_from_any_folder_named(hostile: Path, walked: str) -> None:
    found = files.discover([str(hostile / walked)], Config(root=hostile)).files
    assert hostile / "pkg" / "dist" / "collectives.py" in found
    assert hostile / "pkg" / "build" / "generated_stub.py" not in found


def test_an_exclude_the_user_wrote_still_drops_a_dist_package(hostile: Path) -> None:
    found = files.discover([str(hostile)], Config(root=hostile, exclude=("dist",)))
    assert not [p for p in found.files if "dist" in p.parts]
    assert sorted(found.skipped) == sorted([files.display_name(hostile / "pkg" / d) for d in ("build", "dist")])
