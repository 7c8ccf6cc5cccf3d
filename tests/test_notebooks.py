"""Jupyter notebooks are linted cell by cell (issue 12, point 5): IPython syntax blanked line for line,
the code cells linted as one module, each finding placed in its cell (``cell`` in JSON,
``nb.ipynb:cell 3:4:5`` in text), ``# noqa`` inside a cell, a clear DYN902 for a file that is no
notebook, every output format sensible, ``--add-noqa`` writing only the cell's line, the cache following
cells that move. Torch-free: the CLI runs in-process with click's ``CliRunner``.
"""

from __future__ import annotations

import json
import re
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
from click.testing import CliRunner, Result

from dynalint.cli import main
from dynalint.project import notebook

ROOT = Path(__file__).resolve().parent.parent
SARIF_SCHEMA = ROOT / "tests" / "schemas" / "sarif-2.1.0-rtm.5.json"

STEP = "def step(x):\n    y = x + 1\n    print(y)\n    return y\n"
COMPILE = "compiled = torch.compile(step)\n"


def code(source: str | list[str]) -> dict[str, object]:
    return {"cell_type": "code", "metadata": {}, "execution_count": None, "outputs": [], "source": source}


def markdown(source: str) -> dict[str, object]:
    return {"cell_type": "markdown", "metadata": {}, "source": [source]}


def document(*cells: dict[str, object], language: str = "python") -> str:
    return json.dumps({
        "cells": list(cells),
        "metadata": {"kernelspec": {"language": language, "name": "k"}, "language_info": {"name": language}},
        "nbformat": 4, "nbformat_minor": 5,
    }, indent=1)


def lines(text: str) -> list[str]:
    return text.splitlines(keepends=True)


# Cell 1 markdown, cell 2 imports with magics, cell 3 the function, cell 4 the compile site.
NOTEBOOK = document(
    markdown("# Training step\n"),
    code(lines("import torch\n%matplotlib inline\n!pip list\n")),
    code(lines(STEP)),
    code(lines(COMPILE)),
)


def run(project: Path, monkeypatch: pytest.MonkeyPatch, *args: str, cache: bool = False, stdin: str | None = None,
        ) -> Result:
    monkeypatch.chdir(project)
    return CliRunner().invoke(main, ["check", *([] if cache else ["--no-cache"]), "-j", "1", *args], input=stdin)


def write(project: Path, files: dict[str, str]) -> None:
    for name, text in files.items():
        (project / name).parent.mkdir(parents=True, exist_ok=True)
        (project / name).write_text(text, encoding="utf-8")


def as_json(result: Result) -> list[dict]:
    return json.loads(result.stdout)


# -- IPython syntax -------------------------------------------------------------------------------------


@pytest.mark.parametrize("line", [
    "%matplotlib inline", "!pip install torch", "files = !ls", "t = %timeit -o f()", "x.y?", "??x", "torch.compile?",
    "%time print(1)",
])
def test_ipython_lines_are_blanked_and_keep_their_line(line: str) -> None:
    text = notebook.python_of_cell(f"a = 1\n{line}\nb = 2\n")
    assert text.splitlines() == ["a = 1", "pass", "b = 2"]


def test_a_magic_inside_a_block_still_parses() -> None:
    text = notebook.python_of_cell("for i in range(3):\n    %time f(i)\n")
    assert text == "for i in range(3):\n    pass\n"
    compile(text, "cell", "exec")


def test_a_modulo_continuing_an_expression_is_python() -> None:
    # Black puts a binary operator first on a continuation line: not a magic there.
    source = 'msg = (\n    "%s and %s"\n    % (a, b)\n)\n'
    assert notebook.python_of_cell(source) == source


def test_a_magic_continued_with_a_backslash_is_blanked_whole() -> None:
    assert notebook.python_of_cell("!pip install \\\n    torch\nx = 1\n").splitlines() == ["pass", "", "x = 1"]


def test_a_question_mark_in_a_string_or_comment_is_python() -> None:
    source = 'q = "why?"\n# really?\n'
    assert notebook.python_of_cell(source) == source


def test_cell_magics_blank_a_foreign_body_and_keep_a_python_one() -> None:
    assert notebook.python_of_cell("%%bash\nls -l\necho hi\n") == "\n\n\n"
    assert notebook.python_of_cell("%%time\ny = f(x)\n") == "\ny = f(x)\n"


# -- cells into one module, findings back into cells ---------------------------------------------------------


def test_findings_are_placed_in_their_cell_with_ruffs_text_form(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    write(tmp_path, {"nb.ipynb": NOTEBOOK})
    result = run(tmp_path, monkeypatch, "nb.ipynb")
    assert result.exit_code == 1, result.output
    # `print` is line 3 of the notebook's third cell; the compile site is line 1 of the fourth.
    assert result.stdout.splitlines()[0].startswith("nb.ipynb:cell 3:3:5: DYN201 ")
    assert "compiled via: nb.ipynb:cell 4:1 torch.compile(step) -> step" in result.stdout


def test_json_cell_is_the_cell_number_in_a_notebook_and_null_in_a_py_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    write(tmp_path, {"nb.ipynb": NOTEBOOK, "script.py": "import torch\n" + STEP + COMPILE})
    for output_format in ("json", "json-lines"):
        result = run(tmp_path, monkeypatch, "--output-format", output_format, ".")
        found = as_json(result) if output_format == "json" else [json.loads(x) for x in result.stdout.splitlines()]
        by_file = {f["filename"]: f for f in found}
        assert by_file["nb.ipynb"]["cell"] == 3 and by_file["nb.ipynb"]["location"] == {"row": 3, "column": 5}
        assert by_file["nb.ipynb"]["region"]["chain"][0] | {"how": ""} == {
            "filename": "nb.ipynb", "cell": 4, "line": 1, "function": "step", "how": ""}
        assert by_file["script.py"]["cell"] is None and by_file["script.py"]["location"]["row"] == 4


def test_cells_share_one_namespace(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # The function is compiled by a cell below it: only the cells read as one module know that.
    # The same cells, each a notebook alone, give the function no compile site (a `likely` finding at most).
    write(tmp_path, {"nb.ipynb": NOTEBOOK})
    found = as_json(run(tmp_path, monkeypatch, "--output-format", "json", "nb.ipynb"))
    assert [(f["code"], f["confidence"]) for f in found] == [("DYN201", "certain")]


def test_source_as_a_string_or_a_list_is_the_same(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    as_string = document(code("import torch\n" + STEP + COMPILE))
    as_list = document(code(lines("import torch\n" + STEP + COMPILE)))
    write(tmp_path, {"a.ipynb": as_string, "b.ipynb": as_list})
    found = as_json(run(tmp_path, monkeypatch, "--output-format", "json", "."))
    assert {(f["filename"], f["cell"], f["location"]["row"]) for f in found} == {("a.ipynb", 1, 4), ("b.ipynb", 1, 4)}


def test_noqa_inside_a_cell_suppresses(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    silenced = STEP.replace("print(y)", "print(y)  # noqa: DYN201")
    write(tmp_path, {"nb.ipynb": document(code("import torch\n"), code(silenced), code(COMPILE))})
    result = run(tmp_path, monkeypatch, "nb.ipynb")
    assert result.exit_code == 0, result.output
    assert "All checks passed (1 file checked)" in result.stderr


def test_a_syntax_error_is_placed_in_its_cell(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    write(tmp_path, {"nb.ipynb": document(code("import torch\n"), markdown("text"), code("x = 1\ny = (\n"))})
    found = as_json(run(tmp_path, monkeypatch, "--output-format", "json", "nb.ipynb"))
    assert [(f["code"], f["cell"]) for f in found] == [("DYN901", 3)]


def test_a_folder_walk_finds_notebooks(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    write(tmp_path, {"notebooks/nb.ipynb": NOTEBOOK})
    result = run(tmp_path, monkeypatch, ".")
    assert re.search(r"^notebooks/nb\.ipynb:cell 3:3:5: DYN201 ", result.stdout, re.M), result.output


def test_a_notebook_compiling_a_module_places_the_why_chain_in_its_cell(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # `model.ipynb` beside `model.py`: the notebook must not take the module name `import model` finds.
    module = ("import torch\n\n\nclass Net(torch.nn.Module):\n    def forward(self, x):\n"
              "        print(x)\n        return x\n")
    write(tmp_path, {
        "model.py": module,
        "model.ipynb": document(markdown("# Run"), code("import torch\nfrom model import Net\n"),
                                code("net = torch.compile(Net())\n")),
    })
    found = as_json(run(tmp_path, monkeypatch, "--output-format", "json", "."))
    in_module = [f for f in found if f["filename"] == "model.py"]
    assert [(f["code"], f["confidence"]) for f in in_module] == [("DYN201", "certain")]
    head = in_module[0]["region"]["chain"][0]
    assert (head["filename"], head["cell"], head["line"]) == ("model.ipynb", 3, 1)


def test_stdin_named_as_a_notebook_is_read_as_one(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    result = run(tmp_path, monkeypatch, "--stdin-filename", "nb.ipynb", "-", stdin=NOTEBOOK)
    assert result.stdout.splitlines()[0].startswith("nb.ipynb:cell 3:3:5: DYN201 "), result.output


def test_a_notebook_whose_kernel_is_not_python_has_nothing_to_lint(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    write(tmp_path, {"r.ipynb": document(code("library(ggplot2)\nprint(x)\n"), language="R")})
    result = run(tmp_path, monkeypatch, "r.ipynb")
    assert result.exit_code == 0 and "DYN901" not in result.stdout, result.output


# -- files that are not notebooks ------------------------------------------------------------------------


@pytest.mark.parametrize(("text", "why"), [
    ('{"cells": [', "not a valid notebook: not JSON (Expecting value at line 1, column 12)"),
    ('{"metadata": {}}', "not a valid notebook: no `cells` list"),
    ('[1, 2]', "not a valid notebook: no `cells` list"),
    ('{"worksheets": [], "nbformat": 3}', "an nbformat 3 notebook"),
    ('{"cells": [{"cell_type": "code", "source": 3}]}', "cell 1's `source` is neither a string nor a list of strings"),
    ('{"cells": ["x"]}', "cell 1 is not an object"),
])
def test_a_file_that_is_no_notebook_is_a_dyn902_not_a_crash(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, text: str, why: str
) -> None:
    write(tmp_path, {"bad.ipynb": text, "nb.ipynb": NOTEBOOK})
    result = run(tmp_path, monkeypatch, "bad.ipynb", "nb.ipynb")
    assert result.exit_code == 1 and "Traceback" not in result.output
    bad = [line for line in result.stdout.splitlines() if line.startswith("bad.ipynb:")]
    assert len(bad) == 1 and bad[0].startswith("bad.ipynb:1:1: DYN902 ") and why in bad[0], result.output
    assert "nb.ipynb:cell 3:3:5: DYN201" in result.stdout  # the other notebook is still linted


def test_a_notebook_with_an_empty_cell_list_is_checked_and_clean(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    write(tmp_path, {"empty.ipynb": document()})
    result = run(tmp_path, monkeypatch, "empty.ipynb")
    assert result.exit_code == 0 and "All checks passed (1 file checked)" in result.stderr, result.output


def test_outputs_do_not_count_against_the_size_limit_but_code_does(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    with_image = json.loads(NOTEBOOK)
    with_image["cells"][3]["outputs"] = [{"output_type": "display_data", "metadata": {},
                                          "data": {"image/png": "A" * 300_000}}]
    write(tmp_path, {"pyproject.toml": "[tool.dynalint]\nmax-file-size-kb = 100\n",
                     "nb.ipynb": json.dumps(with_image),
                     "big.ipynb": document(code("x = 1\n" * 20_000))})
    result = run(tmp_path, monkeypatch, ".")
    assert "nb.ipynb:cell 3:3:5: DYN201" in result.stdout, result.output
    assert re.search(r"^big\.ipynb:1:1: DYN904 .*code cells are \d+ KiB, over the 100 KiB limit", result.stdout, re.M)


# -- the other output formats ----------------------------------------------------------------------------


def test_github_annotates_the_file_and_says_the_cell(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    write(tmp_path, {"nb.ipynb": NOTEBOOK})
    (command,) = run(tmp_path, monkeypatch, "--output-format", "github", "nb.ipynb").stdout.splitlines()
    properties, message = command.removeprefix("::error ").split("::", 1)
    assert properties == "file=nb.ipynb,title=dynalint DYN201 (print-call)"  # no JSON line numbers
    assert message.startswith("cell 3:3:5: DYN201 ")


def test_gitlab_junit_and_concise_say_the_cell(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    write(tmp_path, {"nb.ipynb": NOTEBOOK})
    (issue,) = as_json(run(tmp_path, monkeypatch, "--output-format", "gitlab", "nb.ipynb"))
    assert issue["location"] == {"path": "nb.ipynb", "lines": {"begin": 1}}
    assert issue["description"].startswith("cell 3:3:5: DYN201 ")
    report = ET.fromstring(run(tmp_path, monkeypatch, "--output-format", "junit", "nb.ipynb").stdout)
    (case,) = report.iter("testcase")
    assert case.get("name") == "DYN201 print-call at cell 3:3:5" and case.get("line") is None
    concise = run(tmp_path, monkeypatch, "--output-format", "concise", "nb.ipynb").stdout
    assert concise.startswith("nb.ipynb:cell 3:3:5: DYN201 ") and len(concise.splitlines()) == 1


def test_sarif_gives_the_cell_in_properties_and_validates(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    jsonschema = pytest.importorskip("jsonschema", reason="pip install -e '.[test]' installs jsonschema")
    write(tmp_path, {"nb.ipynb": NOTEBOOK})
    log = json.loads(run(tmp_path, monkeypatch, "--output-format", "sarif", "nb.ipynb").stdout)
    schema = json.loads(SARIF_SCHEMA.read_text(encoding="utf-8"))
    assert list(jsonschema.Draft4Validator(schema).iter_errors(log)) == []
    (result,) = log["runs"][0]["results"]
    assert "region" not in result["locations"][0]["physicalLocation"]
    assert (result["properties"]["cell"], result["properties"]["cellLine"], result["properties"]["cellColumn"]) == (3, 3, 5)
    assert result["message"]["text"].startswith("cell 3:3:5: DYN201 ")


# -- what writes or remembers: --add-noqa, the baseline, the cache -----------------------------------------


def jupyter_json(text: str) -> str:
    """The notebook as Jupyter (nbformat) writes it: one-space indent, sorted keys, UTF-8, a final newline."""
    return json.dumps(json.loads(text), indent=1, sort_keys=True, ensure_ascii=False) + "\n"


def test_add_noqa_writes_into_the_cell_and_nothing_else(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    with_magic = "def step(x):\n    %time y = x + 1\n    print(y)  # why \u00e9\n    return y\n"
    original = jupyter_json(document(markdown("# Étape"), code("import torch\n"), code(lines(with_magic)),
                                     code(COMPILE)))
    write(tmp_path, {"nb.ipynb": original})
    result = run(tmp_path, monkeypatch, "--add-noqa", "nb.ipynb")
    assert result.exit_code == 0 and "Added 1 noqa directive to 1 file" in result.stderr, result.output
    after = (tmp_path / "nb.ipynb").read_text(encoding="utf-8")
    expected = json.loads(original)
    expected["cells"][2]["source"][2] = "    print(y)  # why \u00e9  # noqa: DYN201\n"
    assert json.loads(after) == expected
    assert after == jupyter_json(after)  # still in Jupyter's own layout: a diff of one line
    assert len([a for a, b in zip(original.splitlines(), after.splitlines()) if a != b]) == 1
    rerun = run(tmp_path, monkeypatch, "nb.ipynb")
    assert rerun.exit_code == 0, rerun.output


def test_add_noqa_leaves_a_notebook_it_cannot_write_back_unchanged(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    compact = json.dumps(json.loads(NOTEBOOK), separators=(",", ":"))  # no json.dumps layout dynalint tries
    write(tmp_path, {"nb.ipynb": compact})
    result = run(tmp_path, monkeypatch, "--add-noqa", "nb.ipynb")
    assert result.exit_code == 0 and (tmp_path / "nb.ipynb").read_text(encoding="utf-8") == compact
    assert ("not annotated: nb.ipynb:cell 3:3: notebook not annotated (its JSON layout is not one dynalint "
            "can write back unchanged)") in result.stderr


def test_the_baseline_survives_cells_and_lines_added_above(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    write(tmp_path, {"nb.ipynb": NOTEBOOK})
    assert run(tmp_path, monkeypatch, "--write-baseline", "base.json", "nb.ipynb").exit_code == 0
    moved = document(markdown("# New intro"), code("import torch\n"), code("# a comment\n\n" + STEP), code(COMPILE))
    write(tmp_path, {"nb.ipynb": moved})
    result = run(tmp_path, monkeypatch, "--baseline", "base.json", "nb.ipynb")
    assert result.exit_code == 0 and "1 known findings not shown, 0 new" in result.stderr, result.output


def test_the_cache_places_cached_findings_in_the_cells_of_this_run(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The same code cells, re-cut: a markdown cell inserted above and the function's cell split in two.
    # The joined code is unchanged, so its findings come from the cache; their cells must be this run's.
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "user-cache"))  # the cache's signing key
    write(tmp_path, {"nb.ipynb": NOTEBOOK})
    first = run(tmp_path, monkeypatch, "nb.ipynb", cache=True)
    assert first.stdout.startswith("nb.ipynb:cell 3:3:5: DYN201 ")
    head, tail = STEP.split("    print(y)\n")
    write(tmp_path, {"nb.ipynb": document(markdown("# Intro"), markdown("# Training step\n"),
                                          code("import torch\n"), code(head), code("    print(y)\n" + tail),
                                          code(COMPILE))})
    cached = run(tmp_path, monkeypatch, "nb.ipynb", cache=True)
    fresh = run(tmp_path, monkeypatch, "nb.ipynb")
    assert cached.stdout == fresh.stdout
    assert cached.stdout.startswith("nb.ipynb:cell 5:1:5: DYN201 "), cached.output
    assert "compiled via: nb.ipynb:cell 6:1 torch.compile(step)" in cached.stdout


def test_a_module_named_alone_is_placed_in_the_cell_of_the_notebook_that_compiles_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # As pre-commit names only the staged module: the notebook is context, read for its compile site,
    # and the why-chain still says which cell compiles the model.
    (tmp_path / ".git").mkdir()
    module = ("import torch\n\n\nclass Net(torch.nn.Module):\n    def forward(self, x):\n"
              "        print(x)\n        return x\n")
    write(tmp_path, {"net.py": module, "run.ipynb": document(markdown("# Run"), code("import torch\nfrom net import Net\n"),
                                                              code("model = torch.compile(Net())\n"))})
    result = run(tmp_path, monkeypatch, "net.py")
    assert "compiled via: run.ipynb:cell 3:1 torch.compile(Net()) -> Net.forward" in result.stdout, result.output
