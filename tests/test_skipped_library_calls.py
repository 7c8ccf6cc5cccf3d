"""DYN004: library calls Dynamo cannot trace, from a table measured on the installed torch.

The static tests lint small modules (no torch). The torch-marked test runs ``bench/skiplist/derive.py``'s
measurement again, one compiled program per candidate call, and checks the generated table against it
both ways: every listed call still breaks with the recorded GB id and trace-rules verdict, and every
candidate that breaks, installed here and owned by no other rule, is listed.
"""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from dynalint.analysis.skipped_library_calls import SKIPPED_LIBRARY_CALLS
from dynalint.api import lint_source

ROOT = Path(__file__).resolve().parents[1]

MODULE = '''import torch
{imports}


class Tagger(torch.nn.Module):
    def forward(self, x, name):
        {line}
        return x + 1


def outside(name):
    {line}
'''


def _dyn004_lines(imports: str, line: str) -> list[int]:
    text = MODULE.format(imports=imports, line=line)
    return [f.start.line for f in lint_source(text, "tagger.py") if f.code == "DYN004"]


def test_a_measured_call_in_a_forward_is_flagged_and_the_same_call_outside_compiled_code_is_not() -> None:
    assert _dyn004_lines("import zlib", "seed = zlib.crc32(name.encode())") == [7]


def test_calls_are_resolved_through_the_imports() -> None:
    assert _dyn004_lines("from zlib import crc32 as checksum", "seed = checksum(name.encode())") == [7]
    assert _dyn004_lines("import os.path as osp", "seen = osp.exists(name)") == [7]


@pytest.mark.parametrize("line", ["m = re.match('a+', name)", "p = struct.pack('i', 3)", "j = os.path.join(name, 'b')",
                                  "s = inspect.signature(print)", "q = math.sqrt(4.0)"])
def test_calls_measured_as_traced_are_not_flagged(line: str) -> None:
    assert _dyn004_lines("import inspect, math, os, re, struct", line) == []


@pytest.mark.parametrize("line, flagged", [
    ("dense = not sp.issparse(x)", []),  # SciPy's type test is pure Python: measured to trace
    ("box = optimize.Bounds(0.0, 1.0)", []),
    ("graph = sp.csr_matrix(x)", [8]),  # measured to break
    ("found = optimize.minimize(len, 0.0)", [8]),  # not measured: SciPy taken whole
])
def test_a_package_taken_whole_spares_its_calls_measured_to_trace(line: str, flagged: list[int]) -> None:
    assert _dyn004_lines("import scipy.sparse as sp\nfrom scipy import optimize", line) == flagged


@pytest.mark.parametrize("imports, line", [
    ("from sklearn.metrics import roc_auc_score", "score = roc_auc_score(name, x)"),  # measured: GB0007
    ("from sklearn import metrics", "score = metrics.log_loss(name, x)"),  # not measured: scikit-learn taken whole
    ("import pandas as pd", "frame = pd.DataFrame({'a': name})"),  # measured: GB0008
    ("import pandas as pd", "stamp = pd.to_datetime(name)"),  # not measured: pandas taken whole
])
def test_packages_the_trace_rules_skip_whole_are_taken_whole(imports: str, line: str) -> None:
    # scikit-learn and pandas are in torch 2.13's ``THIRDPARTY_SKIPLIST``: each of their calls measured broke.
    assert _dyn004_lines(imports, line) == [len(imports.splitlines()) + 6]


OBJECT_METHODS = textwrap.dedent("""\
    import networkx
    import torch


    @torch.compile(backend="eager")
    def f(x):
        graph = networkx.Graph()
        y = x + 1
        graph.add_edge(1, 2)
        n = graph.number_of_nodes()
        text = "ab".upper()
        return y + n + len(text)


    f(torch.ones(2))
""")


@pytest.mark.parametrize("imports, body, flagged", [
    ("from sklearn.cluster import KMeans", "km = KMeans(2)\n        km.fit(x)", [7, 8]),  # measured: GB0008 each
    ("import pandas as pd", "df = pd.DataFrame({'a': name})\n        m = df.mean()", [7, 8]),
    ("import SimpleITK as sitk", "t = sitk.ScaleTransform(3)\n        t.SetScale(x)", [7, 8]),  # GB0007 each
    ("import zlib", "h = zlib.compressobj()\n        h.flush()", []),  # a standard-library object: not listed
    ("from sklearn.cluster import KMeans", "km = KMeans(2) if name else other\n        km.fit(x)", [7]),  # not known
])
def test_a_method_of_an_object_a_skipped_package_built_breaks(imports: str, body: str, flagged: list[int]) -> None:
    text = (f"import torch\n{imports}\n\n\nclass Tagger(torch.nn.Module):\n"
            f"    def forward(self, x, name, other):\n        {body}\n        return x\n")
    assert [f.start.line for f in lint_source(text, "tagger.py") if f.code == "DYN004"] == flagged


@pytest.mark.torch
def test_dynamo_breaks_at_each_method_of_an_object_a_skipped_package_built() -> None:
    from conftest import dynamo_break_lines

    found = {f.start.line for f in lint_source(OBJECT_METHODS, "graph.py") if f.code == "DYN004"}
    assert found == dynamo_break_lines(OBJECT_METHODS) == {7, 9, 10}


def test_a_local_function_with_a_listed_name_is_not_flagged() -> None:
    assert _dyn004_lines("def crc32(data):\n    return 3", "seed = crc32(name)") == []


def test_a_module_level_renaming_of_a_listed_call_is_that_call() -> None:
    # ``checksum = functools.partial(zlib.crc32, ...)`` / ``checksum = crc32``: a call of it is a call of crc32.
    partial = "import functools\nimport zlib\nchecksum = functools.partial(zlib.crc32, value=0)"
    assert _dyn004_lines(partial, "seed = checksum(name.encode())") == [9]
    assert _dyn004_lines("from zlib import crc32\nchecksum = crc32", "seed = checksum(name.encode())") == [8]


def test_a_renaming_of_something_not_imported_is_not_a_call_of_it() -> None:
    local = "def crc32(data):\n    return 3\n\n\nchecksum = crc32"
    assert _dyn004_lines(local, "seed = checksum(name)") == []
    assert _dyn004_lines("import zlib\nchecksum = zlib.crc32(b'a')", "seed = checksum + 1") == []  # a value


OPTIONAL = {
    "pkg/__init__.py": "",
    "pkg/ops.py": """\
import functools

import torch

try:
    from opt_einsum import contract

    einsum = functools.partial(contract, backend="torch")
except ImportError:
    einsum = torch.einsum

crc = functools.partial(__import__("zlib").crc32)  # not a name: no renaming
""",
    "pkg/model.py": """\
import torch

from pkg.ops import einsum


class Scorer(torch.nn.Module):
    def forward(self, h, t):
        return einsum("...d,...d->...", h, t)


scorer = torch.compile(Scorer())
""",
}


def test_an_optional_accelerator_renamed_in_a_try_is_likely_where_it_is_imported(tmp_path: Path) -> None:
    # pykeen's pattern: opt_einsum's ``contract`` (measured: GB0007) where installed, else ``torch.einsum``.
    from dynalint.api import lint_paths
    from dynalint.model.finding import Confidence
    from dynalint.project.config import Config

    for name, text in OPTIONAL.items():
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text(text, encoding="utf-8")
    config = Config(root=tmp_path, select=("DYN004",), cache_dir=tmp_path / ".cache")
    found = [(Path(f.filename).name, f.start.line, f.confidence) for f in lint_paths([str(tmp_path / "pkg")], config).findings]
    assert found == [("model.py", 8, Confidence.LIKELY)]
    assert "opt_einsum.contract" in SKIPPED_LIBRARY_CALLS


def test_the_table_leaves_calls_other_rules_report_to_them() -> None:
    owned_elsewhere = {"time.time", "random.random", "copy.deepcopy", "warnings.warn", "logging.info"}
    assert not owned_elsewhere & set(SKIPPED_LIBRARY_CALLS)


@pytest.mark.torch
def test_the_table_is_what_the_installed_torch_does() -> None:
    sys.path.insert(0, str(ROOT / "bench" / "skiplist"))
    import derive

    rows = derive.measure()
    measured = {str(row["name"]): (str(row["gb"]), str(row["rules"])) for row in rows
                if row["breaks"] and not row["owner"] and not row["error"]}
    installed = {str(row["name"]) for row in rows if row["error"] != "not installed"}
    listed = {name: entry for name, entry in SKIPPED_LIBRARY_CALLS.items() if name in installed}
    assert listed == measured
    traced = {str(row["name"]) for row in rows if not row["breaks"] and not row["error"]}
    assert {"re.match", "dataclasses.asdict", "os.path.join"} <= traced  # the table's negatives are measured too


def test_linting_torch_itself_a_function_dynamo_puts_in_the_graph_whole_is_not_compiled_code(tmp_path: Path) -> None:
    """``F.interpolate`` is one node in the graph; its body (a ``warnings.warn``, an ``importlib`` call)
    runs only under fake tensors, never traced: measured, 0 breaks. A helper of torch that is not in
    that list is still followed."""
    from dynalint.api import lint_paths
    from dynalint.project.config import Config

    package = tmp_path / "torch"
    (package / "nn" / "modules").mkdir(parents=True)
    for init in (package / "__init__.py", package / "nn" / "__init__.py", package / "nn" / "modules" / "__init__.py"):
        init.write_text("", encoding="utf-8")
    (package / "nn" / "functional.py").write_text(
        "import warnings\n\n\ndef interpolate(x):\n    warnings.warn('slow')\n    return x\n\n\n"
        "def _private_helper(x):\n    warnings.warn('slow')\n    return x\n", encoding="utf-8")
    (package / "nn" / "modules" / "upsampling.py").write_text(
        "from torch.nn import functional as F\nfrom torch.nn.modules.module import Module\n\n\n"
        "class Upsample(Module):\n    def forward(self, x):\n        return F._private_helper(F.interpolate(x))\n",
        encoding="utf-8")
    (package / "nn" / "modules" / "module.py").write_text("class Module:\n    pass\n", encoding="utf-8")
    found = lint_paths([str(package)], Config(root=tmp_path, select=("DYN203",))).findings
    assert [(Path(f.filename).name, f.start.line) for f in found] == [("functional.py", 10)]


@pytest.mark.torch
def test_the_in_graph_functions_are_what_the_installed_torch_says() -> None:
    completed = subprocess.run([sys.executable, str(ROOT / "bench" / "skiplist" / "in_graph.py"), "--check"],
                               capture_output=True, text=True, timeout=300)
    assert completed.returncode == 0, completed.stderr


@pytest.mark.torch
def test_the_tensor_method_names_are_what_the_installed_torch_says() -> None:
    completed = subprocess.run([sys.executable, str(ROOT / "bench" / "skiplist" / "tensor_methods.py"), "--check"],
                               capture_output=True, text=True, timeout=300)
    assert completed.returncode == 0, completed.stderr
