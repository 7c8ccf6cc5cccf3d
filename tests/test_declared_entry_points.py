"""Compile entry points outside the linted code: ``compiled`` in ``[tool.dynalint]``, as README documents it.

A library is compiled by its users, not by itself: ``torch.compile(k_hop_subgraph)`` or a training
step that calls ``model.recon_loss`` lives in another project. Declared, those functions are compiled
regions (``certain``, the chain naming the declaration) and what they call is too; undeclared, they
are not. A malformed entry is a configuration error (exit 2) naming the key.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from dynalint.api import lint_paths
from dynalint.cli import main
from dynalint.model.finding import Confidence
from dynalint.project.config import Config, ConfigError, parse

PACKAGE = {
    "graphs/__init__.py": "from graphs.subgraph import k_hop\n",
    "graphs/subgraph.py": """\
import torch


def k_hop(index, hops):
    for _ in range(hops):
        print(index)  # reached only through the declaration
        index = _step(index)
    return index


def _step(index):
    print("step")  # called by k_hop: compiled once k_hop is
    return index


def unrelated(index):
    print(index)  # never declared, never called: not compiled
""",
    "graphs/models.py": """\
import torch
from tensordict.nn import TensorDictModuleBase as ExternalModule
from torch import nn


class AutoEncoder(nn.Module):
    def forward(self, x):
        return x

    def recon_loss(self, z):
        print(z)  # a method, not forward: compiled only when declared
        return z.sum()


class Graph(AutoEncoder):
    pass


class Scorer:
    def __call__(self, x):
        print(x)  # what calling an instance runs
        return x


class Policy(ExternalModule):
    def forward(self, x):
        print(x)  # forward of a class whose module base is another package's
        return x


class Operator:
    def __init__(self, x):
        print(x)  # built, never called
        self.x = x

    def matmul(self, y):
        return self.x @ y


class Trainer:
    def setup(self):
        def loss_step(x):
            print(x)  # a closure the trainer keeps: compiled only when declared
            return x.sum()

        self.loss_step = loss_step
""",
}


def _print_line(name: str, marker: str) -> tuple[str, int]:
    """Where the ``print`` commented with ``marker`` is in the file ``name``."""
    lines = PACKAGE[name].splitlines()
    return name, next(n for n, line in enumerate(lines, start=1) if "print(" in line and marker in line)


PRINTS = {
    "k_hop": _print_line("graphs/subgraph.py", "through the declaration"),
    "_step": _print_line("graphs/subgraph.py", "called by k_hop"),
    "recon_loss": _print_line("graphs/models.py", "a method, not forward"),
    "__call__": _print_line("graphs/models.py", "calling an instance"),
    "loss_step": _print_line("graphs/models.py", "a closure the trainer keeps"),
    "Policy.forward": _print_line("graphs/models.py", "module base is another package's"),
    "Operator.__init__": _print_line("graphs/models.py", "built, never called"),
}


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    for name, text in PACKAGE.items():
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text(text, encoding="utf-8")
    return tmp_path


def flagged(tree: Path, *compiled: str) -> dict[tuple[str, int], Confidence]:
    config = Config(root=tree, select=("DYN201",), compiled=compiled, cache_dir=tree / ".cache")
    result = lint_paths([str(tree / "graphs")], config)
    return {(Path(f.filename).resolve().relative_to(tree.resolve()).as_posix(), f.start.line): f.confidence
            for f in result.findings}


def test_undeclared_library_functions_are_not_compiled(tree: Path) -> None:
    assert flagged(tree) == {}


def test_declared_function_through_a_re_export_is_a_certain_region_and_so_is_what_it_calls(tree: Path) -> None:
    found = flagged(tree, "graphs.k_hop")
    assert found == {PRINTS["k_hop"]: Confidence.CERTAIN, PRINTS["_step"]: Confidence.CERTAIN}


def test_declared_method_by_module_and_qualname_inherited_by_a_subclass(tree: Path) -> None:
    assert set(flagged(tree, "graphs.models:Graph.recon_loss")) == {PRINTS["recon_loss"]}


def test_declared_class_runs_what_calling_an_instance_runs(tree: Path) -> None:
    assert set(flagged(tree, "graphs.models.Scorer")) == {PRINTS["__call__"]}


def test_a_declared_class_the_tree_cannot_call_runs_its_forward_or_else_its_constructor(tree: Path) -> None:
    """torchrl's losses derive from tensordict's module base, outside the tree: their ``forward`` is what a call
    runs. A linear operator or a distribution is built by the compiled code, not called: its constructor runs."""
    assert set(flagged(tree, "graphs.models.Policy")) == {PRINTS["Policy.forward"]}
    assert set(flagged(tree, "graphs.models.Operator")) == {PRINTS["Operator.__init__"]}


def test_a_nested_function_is_declared_by_its_qualname(tree: Path) -> None:
    # ``Trainer.setup.<locals>.loss_step`` is what ``loss_step.__qualname__`` says: a user copies it from there.
    assert set(flagged(tree, "graphs.models:Trainer.setup.<locals>.loss_step")) == {PRINTS["loss_step"]}
    assert flagged(tree, "graphs.models:Trainer.setup.<locals>.missing") == {}


def test_a_name_not_in_the_tree_declares_nothing(tree: Path) -> None:
    assert flagged(tree, "graphs.missing", "elsewhere:Model.forward") == {}


def test_the_chain_names_the_declaration(tree: Path) -> None:
    config = Config(root=tree, select=("DYN201",), compiled=("graphs.subgraph.k_hop",), cache_dir=tree / ".cache")
    [finding] = [f for f in lint_paths([str(tree / "graphs")], config).findings if f.start.line == PRINTS["_step"][1]]
    assert finding.region is not None
    assert "graphs.subgraph.k_hop" in finding.region.chain[0].how
    assert [link.function for link in finding.region.chain] == ["k_hop", "_step"]


def test_the_cached_findings_follow_the_declaration(tree: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tree)
    pyproject = tree / "pyproject.toml"
    runs = []
    for declared in ('["graphs.k_hop"]', "[]", '["graphs.k_hop"]'):
        pyproject.write_text(f'[tool.dynalint]\nselect = ["DYN201"]\ncompiled = {declared}\n', encoding="utf-8")
        result = CliRunner().invoke(main, ["graphs", "--output-format", "json"], catch_exceptions=False)
        runs.append({(item["filename"], item["location"]["row"]) for item in json.loads(result.stdout)})
    assert runs[0] == runs[2] == {PRINTS["k_hop"], PRINTS["_step"]}
    assert runs[1] == set()


@pytest.mark.parametrize("value", ['"graphs.k_hop"', '["graphs.k_hop:"]', '["graphs..k_hop"]', '["a:b:c"]', '[""]',
                                   '["graphs.<locals>.k_hop"]', '["graphs:f.<locals>"]',
                                   '["graphs:f.<lambda>"]'])
def test_a_malformed_entry_is_a_config_error_naming_the_key(value: str, tmp_path: Path) -> None:
    import tomllib

    table = tomllib.loads(f"compiled = {value}\n")
    with pytest.raises(ConfigError, match="`compiled`"):
        parse(table, tmp_path / "pyproject.toml")


def test_valid_entries_are_kept_in_order(tmp_path: Path) -> None:
    entries = ["pkg.mod.function", "pkg.mod:Class.method", "pkg.Model", "pkg.mod:Class.setup.<locals>.step"]
    assert parse({"compiled": entries}, tmp_path / "pyproject.toml").compiled == tuple(entries)
