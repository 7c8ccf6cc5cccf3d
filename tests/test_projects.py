"""Compiled regions across files: the multi-file fixture project under ``fixtures/projects/``.

``tinygpt``: ``train.py`` compiles the model, the model lives in ``models/`` (re-exported by
``models/__init__``), its blocks iterate an ``nn.ModuleList``, and the break sits in ``ops/numerics``,
reached through ``ops/attention``. The same module's other helper is used only by the eager data
pipeline and must not be reported. Expected findings are the ``# error:`` annotations in the files;
the torch-marked test checks them against the breaks real Dynamo reports for the compiled model.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import ROOT

from test_cli import invoke

from dynalint.api import lint_paths
from dynalint.project.config import Config

PROJECT = ROOT / "fixtures" / "projects" / "tinygpt"
ANNOTATION = re.compile(r"#\s*error:\s*(DYN\d{3}(?:\s*,\s*DYN\d{3})*)")


def annotated(project: Path) -> set[tuple[str, int, str]]:
    expected = set()
    for path in sorted(project.rglob("*.py")):
        for number, line in enumerate(path.read_text().splitlines(), start=1):
            match = ANNOTATION.search(line)
            if match:
                rel = path.relative_to(project).as_posix()
                expected |= {(rel, number, code.strip()) for code in match.group(1).split(",")}
    return expected


def found(project: Path, paths: list[str] | None = None) -> set[tuple[str, int, str]]:
    result = lint_paths(paths or [str(project)], Config())
    return {
        (Path(f.filename).resolve().relative_to(project).as_posix(), f.start.line, f.code) for f in result.findings
    }


def test_findings_across_files_are_exactly_the_annotated_ones() -> None:
    expected = annotated(PROJECT)
    assert expected, "the fixture project must annotate its breaks"
    assert found(PROJECT) == expected


def test_helper_used_only_by_eager_code_is_not_reported() -> None:
    numerics = (PROJECT / "ops" / "numerics.py").read_text().splitlines()
    describe_line = next(i for i, line in enumerate(numerics, start=1) if "print(" in line)
    assert ("ops/numerics.py", describe_line, "DYN201") not in found(PROJECT)


def test_why_chain_in_text_and_json() -> None:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    text = subprocess.run(
        [sys.executable, "-m", "dynalint", "--no-cache", str(PROJECT)],
        capture_output=True, text=True, env=env, cwd=ROOT,
    )
    assert text.returncode == 1
    assert re.search(
        r"compiled via: \S*train\.py:\d+ torch\.compile\(model\) -> TinyGPT\.forward -> Block\.forward"
        r" -> causal_attention -> check_finite",
        text.stdout,
    ), text.stdout
    as_json = subprocess.run(
        [sys.executable, "-m", "dynalint", "--no-cache", "--output-format", "json", str(PROJECT)],
        capture_output=True, text=True, env=env, cwd=ROOT,
    )
    (finding,) = json.loads(as_json.stdout)
    chain = finding["region"]["chain"]
    assert [link["function"] for link in chain] == [
        "TinyGPT.forward", "Block.forward", "causal_attention", "check_finite"
    ]
    assert chain[0]["filename"].endswith("train.py") and "torch.compile(model)" in chain[0]["how"]
    assert all(isinstance(link["line"], int) and link["line"] > 0 for link in chain)


def test_a_file_named_alone_still_knows_it_is_compiled_from_elsewhere() -> None:
    # pre-commit passes only the staged files: the compile site in train.py is not among them.
    helper = PROJECT / "ops" / "numerics.py"
    assert found(PROJECT, [str(helper)]) == {t for t in annotated(PROJECT) if t[0] == "ops/numerics.py"}


@pytest.mark.torch
def test_annotations_match_real_dynamo_breaks() -> None:
    completed = subprocess.run(
        [sys.executable, str(ROOT / "tests" / "harness" / "run_factory.py"), str(PROJECT), "example_inputs:tiny_gpt"],
        capture_output=True, text=True, cwd=ROOT, env={**os.environ, "PYTHONPATH": str(ROOT)}, timeout=600,
    )
    assert completed.returncode == 0, completed.stderr[-3000:]
    observed = {(b["file"], b["line"]) for b in json.loads(completed.stdout)}
    assert observed == {(path, line) for path, line, _ in annotated(PROJECT)}


def test_base_class_imported_by_its_package_path_through_a_re_export(tmp_path: Path) -> None:
    # ``from pkg.conv import Base`` where ``pkg/conv/__init__`` re-exports ``Base`` from ``conv/base.py``:
    # the subclass is still an ``nn.Module``, so its ``forward`` is linted.
    package = tmp_path / "pkg"
    (package / "conv").mkdir(parents=True)
    (package / "__init__.py").write_text("")
    (package / "conv" / "__init__.py").write_text("from .base import Base\n")
    (package / "conv" / "base.py").write_text("import torch\n\nclass Base(torch.nn.Module):\n    pass\n")
    (package / "sub.py").write_text(
        "from pkg.conv import Base\n\nclass Sub(Base):\n    def forward(self, x):\n        return x.item()\n"
    )
    assert found(tmp_path) == {("pkg/sub.py", 5, "DYN101")}



def test_names_a_package_star_imports_are_followed_through_the_package_and_in_the_importing_module(
        tmp_path: Path) -> None:
    # tntorch: ``__init__`` star-imports its modules, which call each other as ``tn.truncated_svd`` (after
    # ``import tntorch as tn``) or bare after a star import of their own. Both reach their helper; a private
    # name (which a star import leaves out) and a parameter named as an exported function do not.
    package = tmp_path / "tnx"
    package.mkdir()
    (package / "__init__.py").write_text("from .round import *\nfrom .tensor import *\n")
    (package / "round.py").write_text(
        "def truncated_svd(m):\n    return m.item()\n\n\ndef rank(m):\n    return m.tolist()\n\n\n"
        "def _private(m):\n    print(m)\n    return m\n\n\ndef shadowed(m):\n    return m.numpy()\n")
    (package / "tensor.py").write_text(
        "import torch\nimport tnx as tn\nfrom .round import *\n\n\nclass Net(torch.nn.Module):\n"
        "    def forward(self, x):\n        return tn.truncated_svd(x) + tn._private(x)\n\n\n"
        "def helper(m, shadowed):\n    return shadowed(m)\n\n\n"
        "@torch.compile\ndef run(x):\n    return rank(x) + helper(x, abs)\n")
    assert found(tmp_path) == {("tnx/round.py", 2, "DYN101"), ("tnx/round.py", 6, "DYN101")}


def test_a_star_import_that_does_not_bind_a_name_leaves_it_to_the_next_one(tmp_path: Path) -> None:
    # deepctr-torch: ``from ..layers import *`` (a package whose ``__init__`` star-imports its submodules) and then
    # ``from ..inputs import *``, which defines ``get_dense_input``. The layers' chain does not bind the name, so
    # the model's call reaches the inputs' function; and ``nn``, which the layers' star imports do bind, makes
    # ``Extractor(nn.Module)`` a module whose ``forward`` a call runs.
    package = tmp_path / "ctr"
    (package / "layers").mkdir(parents=True)
    (package / "models").mkdir()
    (package / "__init__.py").write_text("")
    (package / "models" / "__init__.py").write_text("")
    (package / "layers" / "__init__.py").write_text("from .core import *\nfrom .utils import concat\n")
    (package / "layers" / "core.py").write_text("import torch.nn as nn\n\n\nclass DNN(nn.Module):\n    pass\n")
    (package / "layers" / "utils.py").write_text("def concat(x):\n    return x\n")
    (package / "inputs.py").write_text("from .layers.utils import concat\n\n\ndef get_dense_input(x):\n"
                                       "    return x.item()\n")
    (package / "models" / "dien.py").write_text(
        "import torch\n\nfrom ..layers import *\nfrom ..inputs import *\n\n\nclass Extractor(nn.Module):\n"
        "    def forward(self, x):\n        return x.tolist()\n\n\n@torch.compile\ndef run(x):\n"
        "    return get_dense_input(concat(Extractor()(x)))\n")
    assert found(tmp_path) == {("ctr/inputs.py", 5, "DYN101"), ("ctr/models/dien.py", 9, "DYN101")}


def test_torchs_is_compiling_re_exported_by_a_module_of_the_tree_is_still_a_guard(tmp_path: Path) -> None:
    # torchrl: its distribution utilities import ``is_dynamo_compiling`` from ``torch.compiler`` (or an older
    # name) and its losses import it from there. What it guards is never traced, through a local too.
    package = tmp_path / "rl"
    package.mkdir()
    (package / "__init__.py").write_text("")
    (package / "utils.py").write_text(
        "try:\n    from torch.compiler import is_dynamo_compiling\nexcept ImportError:\n"
        "    from torch._dynamo import is_compiling as is_dynamo_compiling\n")
    (package / "ppo.py").write_text(
        "import torch\n\nfrom rl.utils import is_dynamo_compiling\n\n\n@torch.compile\ndef entropy(t, analytic):\n"
        "    compiling = is_dynamo_compiling()\n    if analytic and not compiling and not t.isfinite().all():\n"
        "        return t * 2\n    if not is_dynamo_compiling():\n        print(t)\n    return t.item()\n")
    assert found(tmp_path) == {("rl/ppo.py", 13, "DYN101")}


def test_modules_of_a_namespace_package_are_found_by_the_name_their_importers_write(tmp_path: Path) -> None:
    # PEP 420: ``tabular/`` has no ``__init__.py`` (pytorch_tabnet ships so). Its modules import each other
    # as ``tabular.sparse`` and ``from tabular import losses``; a regular package below a namespace folder,
    # ``tabular/heads/``, is imported as ``tabular.heads.dense``. Each helper is reached from the compiled
    # forward, and only the helper never called stays unreported.
    folder = tmp_path / "tabular"
    (folder / "heads").mkdir(parents=True)
    (folder / "heads" / "__init__.py").write_text("")
    (folder / "heads" / "dense.py").write_text("def head(x):\n    return x.item()\n")
    (folder / "sparse.py").write_text("def sparsemax(x):\n    return x.tolist()\n\n\ndef unused(x):\n    return x.item()\n")
    (folder / "losses.py").write_text("def loss(x):\n    print(x)\n    return x\n")
    (folder / "network.py").write_text(
        "import torch\n\nfrom tabular import losses\nfrom tabular.heads.dense import head\n"
        "from tabular.sparse import sparsemax\n\n\nclass Net(torch.nn.Module):\n"
        "    def forward(self, x):\n        return losses.loss(sparsemax(x)) + head(x)\n"
    )
    assert found(tmp_path) == {
        ("tabular/heads/dense.py", 2, "DYN101"), ("tabular/sparse.py", 2, "DYN101"), ("tabular/losses.py", 2, "DYN201"),
    }


def test_a_folder_without_init_inside_a_package_is_part_of_its_modules_names(tmp_path: Path) -> None:
    # pytorch-minimize: ``torchmin/__init__.py`` is there, ``torchmin/constrained/`` has none, and
    # ``minimize_constr.py`` imports ``from .constrained.trust_constr import _minimize``. Python names the
    # module ``torchmin.constrained.trust_constr``; so must the call graph, or nothing it runs is compiled.
    # A folder without ``__init__.py`` outside any package (``scripts/``) still names nothing.
    package = tmp_path / "solvers"
    (package / "constrained").mkdir(parents=True)
    (tmp_path / "scripts").mkdir()
    (package / "__init__.py").write_text("")
    (package / "constrained" / "trust.py").write_text("def _minimize(x):\n    return x.item()\n")
    (package / "entry.py").write_text(
        "import torch\n\nfrom .constrained.trust import _minimize\n\n\n@torch.compile\n"
        "def minimize(x):\n    return _minimize(x)\n"
    )
    (tmp_path / "scripts" / "run.py").write_text(
        "import torch\n\nfrom helpers import tool\n\n\n@torch.compile\ndef main(x):\n    return tool(x)\n"
    )
    (tmp_path / "scripts" / "helpers.py").write_text("def tool(x):\n    print(x)\n    return x\n")
    assert found(tmp_path) == {("solvers/constrained/trust.py", 2, "DYN101"), ("scripts/helpers.py", 2, "DYN201")}


def test_without_a_project_marker_the_root_is_the_working_directory(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """No ``pyproject.toml`` and no ``.git`` above a named file: the working directory is the project, as in
    ruff, so a helper two folders down still learns that ``train.py`` compiles it (by name and from stdin)."""
    (tmp_path / "nets" / "blocks").mkdir(parents=True)
    (tmp_path / "nets" / "__init__.py").write_text("", encoding="utf-8")
    (tmp_path / "nets" / "blocks" / "__init__.py").write_text("", encoding="utf-8")
    helper = "def describe(x):\n    print(x.shape)\n    return x\n"
    (tmp_path / "nets" / "blocks" / "helper.py").write_text(helper, encoding="utf-8")
    (tmp_path / "train.py").write_text(
        "import torch\n\nfrom nets.blocks.helper import describe\n\n\n@torch.compile\n"
        "def step(x):\n    return describe(x)\n", encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    if any((parent / ".git").exists() or (parent / "pyproject.toml").exists() for parent in tmp_path.parents):
        pytest.skip("the temporary folder lies inside a project")
    named = invoke(["--no-cache", "--output-format", "concise", "nets/blocks/helper.py"])
    assert named.stdout.startswith("nets/blocks/helper.py:2:5: DYN201"), named.stdout + named.stderr
    piped = invoke(["--no-cache", "--output-format", "concise", "--stdin-filename", "nets/blocks/helper.py", "-"],
                   input=helper)
    assert piped.stdout.startswith("nets/blocks/helper.py:2:5: DYN201"), piped.stdout + piped.stderr
