"""The value analysis, seen through the rules that ask it: data vs metadata vs unknown.

Conditions on tensor values are flagged; conditions on metadata never are; a value whose tensor-ness
is only assumed (a bare, un-annotated `forward` argument) or unknown is never reported as `certain`.
"""

from __future__ import annotations

import textwrap

import pytest

from dynalint.api import lint_source
from dynalint.model.dynamo_settings import DynamoSettings
from dynalint.model.finding import Confidence, Finding
from dynalint.project.config import Config

MODEL = """
import torch
from torch import nn
import torch.nn.functional as F

class M(nn.Module):
    def __init__(self):
        super().__init__()
        self.proj = nn.Linear(4, 4)
        self.scale = nn.Parameter(torch.ones(4))
        self.register_buffer("step", torch.zeros(()))

    def forward(self, x, mask=None, causal=True, n: int = 2, t: torch.Tensor = None):
        h = self.proj(x)
        s = F.softmax(h, -1)
        B, T = x.shape[:2]
        flag = x.sum() > 0
        v = h.max().item()
        if {condition}:
            h = h + 1
        return h

compiled = torch.compile(M())
"""


def branch_findings(condition: str) -> list[Finding]:
    source = MODEL.replace("{condition}", condition)
    return [f for f in lint_source(source, "m.py", Config(select=("DYN102",))) if f.start.line == 19]


@pytest.mark.parametrize(
    "condition",
    [
        "x.sum() > 0",
        "h.mean() < 0.5",
        "s.max() > 0.9",
        "(x > 3).any()",
        "flag",
        "self.scale.sum() > 1",
        "self.step > 10",
        "torch.isnan(h).any()",
        "t.all()",
        "x.abs().sum() > n",
        "h.sum() if causal else h.mean()",
    ],
)
def test_conditions_on_tensor_values_are_flagged(condition: str) -> None:
    findings = branch_findings(condition)
    assert len(findings) == 1
    assert findings[0].confidence is Confidence.CERTAIN


@pytest.mark.parametrize(
    "condition",
    [
        "x.shape[0] > 2",
        "x.dim() == 3",
        "x.ndim == 3",
        "x.dtype == torch.float16",
        "x.numel() > 10",
        "len(x) > 1",
        "x.size(0) == B",
        "T > 4",
        "mask is None",
        "mask is not None",
        "self.training",
        "causal",
        "n > 1",
        "torch.compiler.is_compiling()",
        "x.requires_grad",
        "x.device.type == 'cpu'",
        "min(x.shape[0], 3) > 1",
        "isinstance(x, torch.Tensor)",
        "torch.is_grad_enabled()",
        "unknown_global > 0",
    ],
)
def test_conditions_on_metadata_or_constants_are_not_flagged(condition: str) -> None:
    assert branch_findings(condition) == []


@pytest.mark.parametrize("condition", ["mask is not None and mask.any()", "mask.sum() > 0", "v < -mask.max()"])
def test_reductions_on_values_of_unknown_type_are_only_likely(condition: str) -> None:
    # ``mask=None`` may be an optional tensor or a flag: ``.any()`` makes a tensor likely, not certain. A
    # Python number read from a tensor (``v``) compared with a probable tensor gives a probable tensor (POT's
    # ``if reg_m < -nx.max(M):`` after ``reg_m = float(nx.max(M)) + 1`` broke there, GB0170, on torch 2.13).
    (finding,) = branch_findings(condition)
    assert finding.confidence is Confidence.LIKELY


@pytest.mark.parametrize("condition", ["mask", "mask > 0", "output_attentions"])
def test_bare_forward_inputs_are_not_data(condition: str) -> None:
    # Used bare, an un-annotated input may be a Python flag or number: Dynamo would not break. (``x``
    # is no such input in MODEL: ``x.sum()`` before the test shows it is a tensor, see below.)
    assert branch_findings(condition.replace("output_attentions", "mask")) == []


def test_a_method_no_python_type_has_shows_an_input_is_a_tensor_from_then_on() -> None:
    source = textwrap.dedent("""\
        import torch
        from torch import nn

        class M(nn.Module):
            def forward(self, x, scores):
                if scores:
                    x = x + 1
                scores = scores
                top = scores.softmax(-1)
                if scores[0] > 0.5:
                    x = x * 2
                return x, top

        torch.compile(M())
    """)
    lines = [f.start.line for f in lint_source(source, "m.py", Config(select=("DYN102",)))]
    assert lines == [10]  # before ``.softmax``, ``scores`` may be a flag; after it, it is a tensor


def test_value_read_into_python_is_reported_where_it_is_read() -> None:
    # ``v = h.max().item()`` breaks at the ``.item()`` (DYN101); the branch on ``v`` only breaks
    # when scalar capture is on, so DYN102 reports it then and only then.
    assert branch_findings("v > 0") == []
    source = MODEL.replace("{condition}", "v > 0")
    captured = Config(select=("DYN102",), dynamo=DynamoSettings(capture_scalar_outputs=True))
    assert [f.start.line for f in lint_source(source, "m.py", captured)] == [19]


def lint_one(body: str, code: str) -> list[Finding]:
    source = "import torch\n\n@torch.compile\ndef f(x: torch.Tensor, y, n: int):\n" + textwrap.indent(
        textwrap.dedent(body), "    "
    )
    return lint_source(source, "f.py", Config(select=(code,)))


def test_item_on_unknown_receiver_is_likely_and_on_tensor_certain() -> None:
    findings = {f.start.line: f.confidence for f in lint_one("a = x.item()\nb = y.item()\n", "DYN101")}
    assert findings == {5: Confidence.CERTAIN, 6: Confidence.LIKELY}


def test_item_on_metadata_is_not_flagged() -> None:
    assert lint_one("a = x.shape.numel()\nb = torch.Size([2]).item if False else 0\n", "DYN101") == []


@pytest.mark.parametrize(
    "body, flagged",
    [
        ("s = x.sum()\nreturn x[:s]\n", True),
        ("return x[: int(x[0])]\n", True),
        # Converted on an earlier line: the break is at the ``int()`` (DYN104), not at the slice.
        ("a = int(x[0])\nreturn x[a:]\n", False),
        ("return x[: x[0].item()]\n", True),
        ("k = x.shape[0] // 2\nreturn x[:k]\n", False),
        ("return x[:n]\n", False),
        ("return x[x > 0]\n", False),
        ("idx = torch.arange(3)\nreturn x[idx]\n", False),
        ("return x[:, None, ::2]\n", False),
        ("x[x > 0] = 0\nreturn x\n", False),
    ],
)
def test_slice_bounds(body: str, flagged: bool) -> None:
    assert bool(lint_one(body, "DYN103")) is flagged


def test_reassignment_updates_the_kind() -> None:
    body = "v = x.sum()\nv = x.shape[0]\nif v > 2:\n    pass\n"
    assert lint_one(body, "DYN102") == []


@pytest.mark.parametrize(
    "condition",
    ["torch.is_autocast_enabled()", "torch.are_deterministic_algorithms_enabled()",
     "torch.get_default_dtype() == torch.float16"],
)
def test_torch_queries_are_not_tensors(condition: str) -> None:
    assert branch_findings(condition) == []


def test_hf_style_optional_flag_is_not_data() -> None:
    source = MODEL.replace(
        "        if {condition}:",
        "        flag2 = mask if mask is not None else False\n        if flag2:",
    )
    assert lint_source(source, "m.py", Config(select=("DYN102",))) == []


def test_isinstance_narrows_inside_its_block_only() -> None:
    body = (
        "if isinstance(y, float):\n    if y < 0:\n        pass\n"
        "if isinstance(y, torch.Tensor):\n    if y.sum() < 0:\n        pass\n"
    )
    findings = lint_one(body, "DYN102")
    assert [(f.start.line, f.confidence) for f in findings] == [(9, Confidence.CERTAIN)]


def test_isinstance_tensor_on_a_shape_value_does_not_make_it_a_tensor() -> None:
    body = (
        "rows, width = x.shape\n"
        "if isinstance(width, torch.Tensor):\n    half = width.div(2, rounding_mode='trunc')\n"
        "else:\n    half = width // 2\n"
        "out = torch.zeros(rows, half)\n"
    )
    assert lint_one(body, "DYN109") == []


def test_a_slice_of_a_tensor_given_as_a_size_is_not_a_data_dependent_size() -> None:
    # diffusers' ``mask.new_ones((hidden_states[:2]))``: a TypeError eager and compiled (measured), not a break;
    # a 0-d tensor read from the same tensor is one.
    body = "a = x.new_ones((x[:2]))\nb = x.new_ones(x[0].sum())\n"
    assert [f.start.line for f in lint_one(body, "DYN109")] == [6]


def test_after_a_size_read_from_a_tensor_breaks_the_resumed_frame_takes_that_tensor_as_an_input() -> None:
    # Measured on torch 2.13: ``torch.arange(d)`` breaks (GB0033); Dynamo resumes after it with ``d`` an input
    # of the new frame, so ``torch.arange(0, d)`` right after does not. In a branch the other path may run.
    body = (
        "d = x.sum().long()\n"
        "a = torch.arange(d)\n"
        "b = torch.arange(0, d)\n"
        "e = x.max().long()\n"
        "if flag:\n    c = torch.arange(e)\n    c = torch.arange(2, e)\n"
        "else:\n    c = torch.arange(1, e)\n"
        "d = x.min().long()\n"
        "f = torch.arange(d)\n"
    )
    assert [f.start.line for f in lint_one(body, "DYN109")] == [6, 10, 13, 15]


def test_a_list_made_of_a_tensor_is_a_sequence_of_tensors_not_a_tensor() -> None:
    # MONAI's ``id_list = list(torch.unique(t))`` then ``if 0 not in id_list``: Python compares item by item
    # and Dynamo 2.13 does not break there (measured); branching on an item, or membership in the tensor, does.
    body = (
        "ids = list(x)\n"
        "if 0 not in ids:\n    x = x + 1\n"
        "for i in ids:\n    if i > 0:\n        x = x * 2\n"
        "if 0 in x:\n    x = x - 1\n"
    )
    found = lint_one(body, "DYN102")
    # The break in the loop gives up the frame: the later test on line 11 never runs under Dynamo, and is
    # named in the first finding instead of being reported (tests/test_truth_tests.py has the rule).
    assert [f.start.line for f in found] == [9]
    assert "line 11" in found[0].message


def test_item_of_a_shape_value_stays_a_shape_value() -> None:
    body = (
        "factor = 1.0 + 1.0 * (x.size(0) > 1)\n"
        "if isinstance(factor, torch.Tensor):\n    factor = factor.item()\n"
        "tail = x[int(factor - 1):]\n"
    )
    assert lint_one(body, "DYN103") == []


def test_attributes_built_by_non_tensor_torch_calls_are_not_tensors() -> None:
    source = textwrap.dedent("""
        import torch
        from torch import nn

        class M(nn.Module):
            def __init__(self):
                super().__init__()
                self.home = torch.device("cpu")
                self.scale = torch.ones(())

            def forward(self, x):
                if x.device != self.home:
                    x = x.to(self.home)
                if self.scale > 1:
                    x = x * 2
                return x

        m = torch.compile(M())
    """)
    findings = lint_source(source, "m.py", Config(select=("DYN102",)))
    assert [f.start.line for f in findings] == [14]  # the buffer, not the device


BRANCHES = """
import torch
from torch import Tensor


def convert(x):
    return x


@torch.compile
def keep_loops(edge_index: Tensor, sparse: bool, guidance: Tensor = None):
    if sparse:
        edge_index = convert(edge_index)  # an in-tree helper of unknown result: not a tensor for sure
    mask = edge_index[0] != edge_index[1]
    edge_index = edge_index[:, mask]
    if guidance is not None:
        guidance = guidance.float()
    else:
        guidance = None
    if guidance:
        edge_index = edge_index + 1
    return edge_index
"""


def test_after_an_if_a_name_holds_what_either_branch_bound() -> None:
    """A rebinding in one branch does not erase what the other path holds: a tensor on one path is a tensor."""
    found = {(f.start.line, f.code) for f in lint_source(textwrap.dedent(BRANCHES), "branches.py")}
    assert (15, "DYN105") in found  # the mask still indexes a tensor on the path that skipped ``convert``
    assert (20, "DYN102") in found  # ``guidance`` is a tensor when it was given, whatever ``else`` set


# -- annotations: parameters, containers, aliases, returns ---------------------------------------
ANNOTATED = """
import torch
from typing import Dict, List, Optional, Tuple
from torch import Tensor
from torch import nn

OptTensor = Optional[Tensor]

{helpers}

class M(nn.Module):
    def reduce(self, x, index{annotation}, dim_size=None):
        {body}
        return x

    def forward(self, x, index):
        return self.reduce(x, index)

compiled = torch.compile(M())
"""


def annotated_findings(annotation: str, body: str, helpers: str = "", select: str = "DYN104") -> list[Finding]:
    source = ANNOTATED.format(annotation=annotation, body=body, helpers=helpers)
    return lint_source(source, "m.py", Config(select=(select,)))


@pytest.mark.parametrize(
    "annotation",
    [": Tensor", ": torch.Tensor", ": Optional[Tensor]", ": Tensor | None", ": 'Optional[Tensor]'",
     ": 'torch.Tensor'", ": OptTensor", ": Optional[OptTensor]"],
)
def test_tensor_annotated_parameters_of_any_method_are_tensors(annotation: str) -> None:
    (finding,) = annotated_findings(annotation, "n = int(index.max()) + 1")
    assert finding.confidence is Confidence.CERTAIN


@pytest.mark.parametrize("annotation", ["", ": int", ": Optional[int]", ": List[int]", ": 'MyType'"])
def test_parameters_not_annotated_as_tensors_are_not_certain(annotation: str) -> None:
    assert [f for f in annotated_findings(annotation, "n = int(index.max()) + 1")
            if f.confidence is Confidence.CERTAIN] == []


@pytest.mark.parametrize(
    "annotation, body",
    [
        (": Dict[str, Tensor]", "order = index['order'].tolist()"),
        (": 'Dict[str, torch.Tensor]'", "order = index['order'].tolist()"),
        (": dict[str, Tensor]", "order = index['order'].tolist()"),
        (": List[Tensor]", "order = index[0].tolist()"),
        (": Tuple[Tensor, ...]", "order = index[-1].tolist()"),
        (": Tuple[int, Tensor]", "order = index[1].tolist()"),
        (": List[Tensor]", "for t in index:\n            order = t.tolist()"),
        (": Tuple[Tensor, Tensor]", "a, b = index\n        order = b.tolist()"),
    ],
)
def test_items_of_tensor_containers_are_tensors(annotation: str, body: str) -> None:
    (finding,) = annotated_findings(annotation, body, select="DYN101")
    assert finding.confidence is Confidence.CERTAIN


def test_items_of_a_container_of_python_values_are_not_tensors() -> None:
    assert annotated_findings(": Tuple[int, Tensor]", "order = index[0].tolist()", select="DYN101") == []


@pytest.mark.parametrize(
    "helpers, body",
    [
        ("def degree(index) -> Tensor:\n    return index", "n = int(degree(index).max())"),
        ("def degree(index) -> 'torch.Tensor':\n    return index", "n = int(degree(index).max())"),
        ("def split(index) -> Tuple[Tensor, OptTensor]:\n    return index, None",
         "a, b = split(index)\n        n = int(b.max())"),
        ("def split(index) -> Tuple[Tensor, Tensor]:\n    return index, index", "n = int(split(index)[1].max())"),
        ("def parts(index) -> Dict[str, Tensor]:\n    return {}", "n = int(parts(index)['a'].max())"),
    ],
)
def test_returns_of_annotated_functions_of_the_tree_are_typed(helpers: str, body: str) -> None:
    (finding,) = annotated_findings("", body, helpers)
    assert finding.confidence is Confidence.CERTAIN


def test_type_alias_defined_in_another_module(tmp_path) -> None:
    from dynalint.api import lint_paths

    package = tmp_path / "pkg"
    package.mkdir()
    (package / "__init__.py").write_text("")
    (package / "typing.py").write_text("from typing import Optional, Union\nfrom torch import Tensor\n\n"
                                       "OptTensor = Optional[Tensor]\nAdj = Union[Tensor, 'SparseTensor']\n")
    (package / "model.py").write_text(textwrap.dedent("""
        import torch
        from pkg.typing import Adj, OptTensor

        class M(torch.nn.Module):
            def forward(self, x, index: OptTensor, adj: Adj):
                a = int(index.max())
                b = int(adj.max())
                if not adj.has_value():
                    pass
                return x

        compiled = torch.compile(M())
    """))
    findings = lint_paths([str(tmp_path)], Config(select=("DYN104", "DYN102"))).findings
    assert [(f.code, f.start.line, f.confidence) for f in findings] == [
        ("DYN104", 7, Confidence.CERTAIN), ("DYN104", 8, Confidence.LIKELY)
    ]


@pytest.mark.parametrize(
    "condition",
    ["torch.seed() > 0", "torch.initial_seed() % 2", "torch.get_default_dtype() == torch.float64",
     "torch.is_floating_point(x)", "torch.is_tensor(mask)", "x.is_cuda", "h.requires_grad",
     "x.dtype == torch.float16", "t.dtype in (torch.float16, torch.bfloat16)", "torch.is_grad_enabled()"],
)
def test_python_values_from_torch_are_not_tensor_data(condition: str) -> None:
    assert branch_findings(condition) == []


@pytest.mark.parametrize(
    "read, use",
    [
        ("flag2 = True if (x > 0).any() else False", "if flag2:"),
        ("flag2 = bool(x.sum() > 0)", "if flag2:"),
        ("flag2 = int(x.sum())", "if flag2 > 2:"),
        ("flag2 = x.sum().item()", "while flag2 > 2:"),
    ],
)
def test_a_value_read_out_of_a_tensor_breaks_once_where_it_is_read(read: str, use: str) -> None:
    source = MODEL.replace("        if {condition}:", f"        {read}\n        {use}")
    findings = lint_source(source, "m.py", Config(select=("DYN101", "DYN102", "DYN104")))
    assert [f.start.line for f in findings if f.start.line >= 19] == [19]  # line 18 reads ``h.max().item()``


def loop_findings(body: str, codes: tuple[str, ...] = ("DYN102",)) -> list[tuple[int, str]]:
    source = "import torch\n\n\n@torch.compile\ndef f(t: torch.Tensor, ts: list, n: int):\n" + textwrap.indent(
        textwrap.dedent(body), "    ")
    return [(f.start.line - 5, f.code) for f in lint_source(source, "loops.py", Config(select=codes))]


def test_a_comprehension_over_a_tensor_binds_its_target_to_tensors_and_its_if_is_checked() -> None:
    assert loop_findings("return [v for v in t if v != 0]\n") == [(1, "DYN102")]
    assert loop_findings("return [i for i in range(n) if i not in t]\n") == [(1, "DYN102")]
    assert loop_findings("return [i for i in range(n) if i != 0]\n") == []


def test_a_comprehension_binds_its_target_before_its_element() -> None:
    # LibCST holds the element before the ``for``: the element must see the target already bound.
    assert loop_findings("return [torch.randperm(k) for k in t]\n", ("DYN109",)) == [(1, "DYN109")]


def test_zip_and_enumerate_bind_each_name_from_its_own_iterable() -> None:
    assert loop_findings("return [torch.randperm(k) + o for o, k in zip(t, t)]\n", ("DYN109",)) == [(1, "DYN109")]
    assert loop_findings("""
        for i, row in enumerate(t):
            if i == 0:
                pass
            if row.sum() > 0:
                pass
    """) == [(5, "DYN102")]
    assert loop_findings("""
        for i, row in zip(range(n), t):
            if i == 0:
                pass
            if row > 0:
                pass
    """) == [(5, "DYN102")]


def test_a_comprehension_target_does_not_leak_into_the_function() -> None:
    assert loop_findings("""
        v = n
        values = [v for v in t]
        if v > 1:
            pass
    """) == []


def test_after_an_isinstance_tensor_test_that_returns_the_name_is_not_a_tensor() -> None:
    """kornia's ``_source_end_and_extent``: the tensor case returns, so ``size == 1`` compares a Python int."""
    source = textwrap.dedent("""
        from typing import Union
        import torch


        @torch.compile
        def extent(size: Union[int, torch.Tensor], t: torch.Tensor):
            if isinstance(size, torch.Tensor):
                return (size - 1).clamp(min=1)
            if t.sum() > 0:
                pass
            return 1 if size == 1 else size - 1
    """)
    assert [f.start.line for f in lint_source(source, "k.py", Config(select=("DYN102",)))] == [10]


def test_a_list_appended_tensors_holds_tensors() -> None:
    """MONAI's panoptic quality: ``masks = []`` filled by ``.append(tensor)``, then ``masks[i] > 0`` is a mask."""
    source = textwrap.dedent("""
        import torch


        @torch.compile
        def select(pred: torch.Tensor, ids: list, k: int):
            masks = []
            for i in ids:
                masks.append(torch.as_tensor(pred == i).int())
            names = []
            names.append("a")
            chosen = masks[k - 1]
            return pred[chosen > 0], names[0]
    """)
    found = lint_source(source, "p.py", Config(select=("DYN105",)))
    assert [(f.start.line, f.code) for f in found] == [(13, "DYN105")]


def test_super_forward_in_a_subclass_of_a_recurrent_layer_is_reported_where_dynamo_breaks() -> None:
    """pytorch-forecasting's ``class GRU(RNN, nn.GRU)``: measured on torch 2.13, GB0014 on both the
    ``super().forward`` line and the caller's ``self.rnn(x)`` line; a plain module's ``super().forward`` is fine."""
    source = textwrap.dedent("""
        import torch
        from torch import nn


        class GRU(nn.GRU):
            def forward(self, x, hx=None):
                y = x * 2
                return super().forward(y, hx)


        class Wide(nn.Linear):
            def forward(self, x):
                return super().forward(x)


        class Model(nn.Module):
            def __init__(self):
                super().__init__()
                self.rnn = GRU(4, 4, batch_first=True)

            def forward(self, x):
                return self.rnn(x)[0]
    """)
    found = lint_source(source, "rnn.py", Config(select=("DYN505",)))
    assert [f.start.line for f in found] == [9, 23]


def test_an_attribute_a_subclass_builds_as_an_lstm_is_reported_in_the_base_forward() -> None:
    """timm's sequencer: ``RNN2dBase`` holds an identity, ``LSTM2d`` replaces it with ``nn.LSTM``."""
    source = textwrap.dedent("""
        import torch
        from torch import nn


        class Base(nn.Module):
            def __init__(self):
                super().__init__()
                self.rnn = nn.Identity()

            def forward(self, x):
                y, _ = self.rnn(x)
                return y


        class WithLSTM(Base):
            def __init__(self):
                super().__init__()
                self.rnn = nn.LSTM(4, 4)


        class Plain(nn.Module):
            def __init__(self):
                super().__init__()
                self.rnn = nn.Identity()

            def forward(self, x):
                return self.rnn(x)
    """)
    found = lint_source(source, "seq.py", Config(select=("DYN505",)))
    assert [(f.start.line, f.confidence) for f in found] == [(12, Confidence.LIKELY)]


RECURRENT_IN_BRANCHES = """\
import torch
from torch import nn


class Forecaster(nn.Module):
    def __init__(self, recurrent):
        super().__init__()
        self.recurrent = recurrent
        self.encoder = nn.GRU(4, 4, batch_first=True)

    def forward(self, x):
        if self.recurrent:
            out, _ = self.encoder(x)
        else:
            out, _ = self.encoder(x, None)
        return self.encoder.hidden_size * out


model = torch.compile(Forecaster(False), backend="eager")
model(torch.ones(1, 3, 4))
"""


def test_each_branch_of_an_if_has_its_own_first_read_of_a_recurrent_layer() -> None:
    """neuralforecast's ``GRU``: one branch runs, so the frame falls back at the first read on that path."""
    found = lint_source(RECURRENT_IN_BRANCHES, "forecaster.py", Config(select=("DYN505",)))
    assert [f.start.line for f in found] == [13, 15]  # not line 16: a branch already read the layer


@pytest.mark.torch
def test_the_first_read_in_the_branch_taken_is_where_dynamo_falls_back() -> None:
    from conftest import run_snippets

    result = run_snippets([{"id": "branches", "source": RECURRENT_IN_BRANCHES}])["branches"]
    assert {(b["line"], b["gb_id"]) for b in result["breaks"]} == {(15, "GB0014")}


ZERO_D = """
import torch

@torch.compile
def pick(scores: torch.Tensor, labels: torch.Tensor, rows: torch.Tensor, n: int):
    {body}
"""


@pytest.mark.parametrize("body, flagged", [
    ("return labels[scores.argmax()]", True),
    ("best = torch.argmin(scores)\n    return labels[best - 1]", True),
    ("count = torch.count_nonzero(scores > 0)\n    return labels[count // 2]", True),
    ("i = scores.argmax()\n    r = i // 4\n    return rows[r, i % 4]", True),  # one finding per statement
    ("return labels[scores.argmax(dim=0, keepdim=True)]", False),  # one element, one dimension: advanced indexing
    ("return labels[scores.argmax(1)]", False),  # a dimension given: not known to be 0-d
    ("return labels[rows]", False),
    ("return labels[n - 1]", False),
    ("i = scores.argmax()\n    i = n\n    return labels[i]", False),  # rebound to a Python int
])
def test_an_index_is_read_into_python_only_when_it_is_a_0d_tensor(body: str, flagged: bool) -> None:
    findings = lint_source(ZERO_D.format(body=body), "case.py", Config(select=("DYN103",)))
    assert len(findings) == (1 if flagged else 0)
    assert all(f.gb_ids == ("GB0033",) and "0-d tensor" in f.message for f in findings)


ASSERTS = """
import torch

@torch.compile
def check(t: torch.Tensor, name: str):
    {statement}
    return t
"""


@pytest.mark.parametrize("statement, flagged", [
    ("assert (t > 0).all()", False),
    ("assert (t > 0).all(), 'positive'", False),
    ("assert (t > 0).all(), 'posi' 'tive'", False),
    ("assert (t > 0).all(), f'{name} must be positive'", True),
    ("assert (t > 0).all(), '{} must be positive'.format(name)", True),
    ("assert (t > 0).all(), name", True),
    ("assert t.dim() == 1, f'{name} must be 1-d'", False),  # metadata: decided while tracing
])
def test_an_assert_on_a_tensor_breaks_only_with_a_computed_message(statement: str, flagged: bool) -> None:
    findings = lint_source(ASSERTS.format(statement=statement), "case.py", Config(select=("DYN102",)))
    assert [f.gb_ids for f in findings] == ([("GB0170",)] if flagged else [])


NUMPY = """
import numpy as np
import torch

@torch.compile
def f(x: torch.Tensor, data, n: int):
    {body}
    return x
"""


@pytest.mark.parametrize("body, flagged", [
    ("k = int(np.prod([x.shape[0], n]))", {"DYN104"}),  # a NumPy reduction of a sequence: a tensor
    ("k = int(np.ceil(n / 3))", set()),  # NumPy of Python numbers is folded while tracing
    ("k = int(np.prod(x.shape))", {"DYN104"}),  # a shape is a sequence: an array too (GB0033, measured)
    ("dims = list(x.shape)\n    k = int(np.prod(dims[:-1]))", {"DYN104"}),  # a slice of a shape bound to a name
    ("k = np.sqrt(float(x.shape[0]))", set()),  # of one size: a Python number
    ("if np.isscalar(data):\n        x = x * 2", {"DYN210"}),
    ("a = x.numpy()\n    d = a.dtype", {"DYN210"}),
    ("d = x.dtype", set()),  # a tensor's dtype
    ("if isinstance(data, np.ndarray):\n        d = data.dtype", {"DYN210"}),
    ("if isinstance(data, np.ndarray):\n        x = x + 1\n    d = data.dtype", set()),  # outside the block: unknown
    ("ok = isinstance(data, np.ndarray) and data.dtype == np.float16", {"DYN210"}),
    ("ok = isinstance(data, torch.Tensor) and data.dtype == torch.float16", set()),
])
def test_numpy_in_compiled_code(body: str, flagged: set[str]) -> None:
    findings = lint_source(NUMPY.format(body=body), "case.py", Config(select=("DYN104", "DYN210")))
    assert {f.code for f in findings} == flagged


NUMPY_TRUTH = textwrap.dedent("""\
    import numpy as np
    import torch


    def check(v, flags, tol, a, b):
        if np.sqrt(v) > 1:
            return 1
        if np.any(flags):
            return 2
        err = np.abs(a - b)
        if err > tol:
            return 3
        if -np.log2(v) > 5:
            return 4
        if 0.0 > min(np.sum(flags), abs(np.log(v))):
            return 8
        need = np.any(flags) or np.all(flags)
        if need:
            return 9
        n = int(np.ceil(v))
        if n > 2:
            return 5
        if float(np.sqrt(v)) > 1:
            return 6
        if np.isscalar(v):
            return 7
        return 0


    @torch.compile(backend="eager")
    def f(x):
        return x + check(0.5, [False], 0.1, 1.0, 1.05)


    f(torch.ones(2))
""")


ASSERTED_TENSORS = textwrap.dedent("""\
    import torch


    def asserted(name, t):
        assert isinstance(t, torch.Tensor), f"{name} must be a tensor"
        if t[0] > t[1]:
            return 1
        return 0


    def raised(t, n):
        if not isinstance(t, torch.Tensor):
            raise TypeError("t")
        if not isinstance(n, int):
            raise TypeError("n")
        if n > 1 and t[0] > t[1]:
            return 1
        return 0


    @torch.compile(backend="eager")
    def f(x, t):
        return x + asserted("t", t) + raised(t, 2)


    f(torch.ones(2), torch.tensor([0.0, 1.0]))
""")


def test_an_isinstance_assertion_or_guard_that_raises_proves_a_tensor() -> None:
    # torchdiffeq's ``assert isinstance(timelike, torch.Tensor)`` before ``if t[0] > t[1]`` (GB0170, torch 2.13).
    lines = ASSERTED_TENSORS.splitlines()
    findings = lint_source(ASSERTED_TENSORS, "case.py", Config(select=("DYN102",)))
    assert [lines[f.start.line - 1].strip() for f in findings] == ["if t[0] > t[1]:", "if n > 1 and t[0] > t[1]:"]
    assert findings[0].confidence is Confidence.CERTAIN


@pytest.mark.torch
def test_dynamo_breaks_on_values_an_isinstance_assertion_proved_tensors() -> None:
    from conftest import dynamo_break_lines

    findings = lint_source(ASSERTED_TENSORS, "case.py", Config(select=("DYN102",)))
    assert dynamo_break_lines(ASSERTED_TENSORS) == {f.start.line for f in findings}


MAPPED_CONVERSIONS = textwrap.dedent("""\
    import torch


    @torch.compile(backend="eager")
    def f(edges: torch.Tensor, x):
        v1, v2 = map(int, edges[0])
        return x + v1 + v2


    @torch.compile(backend="eager")
    def g(x: torch.Tensor, sizes: list):
        counts = list(map(int, sizes))
        widths = list(map(float, x))
        return x + widths[0] + counts[0]


    f(torch.tensor([[0, 1], [1, 2]]), torch.ones(2))
    g(torch.ones(2), [1, 2])
""")


def test_a_conversion_mapped_over_a_tensor_reads_its_values() -> None:
    # pyro's ``v1, v2 = map(int, edges[e])`` (GB0124 on the ground-truth bench); a list's ``map(int, ...)`` traces.
    lines = MAPPED_CONVERSIONS.splitlines()
    findings = lint_source(MAPPED_CONVERSIONS, "case.py", Config(select=("DYN104",)))
    assert [lines[f.start.line - 1].strip() for f in findings] == [
        "v1, v2 = map(int, edges[0])", "widths = list(map(float, x))"]


@pytest.mark.torch
def test_dynamo_breaks_at_a_conversion_mapped_over_a_tensor() -> None:
    from conftest import dynamo_break_lines

    findings = lint_source(MAPPED_CONVERSIONS, "case.py", Config(select=("DYN104",)))
    assert dynamo_break_lines(MAPPED_CONVERSIONS) == {f.start.line for f in findings}


NUMPY_SHAPES = textwrap.dedent("""\
    import numpy as np
    import torch


    @torch.compile(backend="eager")
    def f(x, v):
        (axes,) = np.where([v > 0.0, v < 0.0])
        i = np.argwhere([v, 0.0])
        j = np.flatnonzero([v, 0.0])
        k = np.unique([v, v], axis=0)
        w = np.where([True, False], 1.0, 2.0)
        n = np.nonzero([v, 0.0])
        return x + 1


    f(torch.ones(2), 2.5)
""")


def test_numpy_functions_whose_output_size_depends_on_values_break_on_python_lists_too() -> None:
    # torchio's ``(axes,) = np.where(axes_to_flip_hot)``, POT's ``np.where(np.min(M, axis=1) < eps)[0]``: GB0036.
    lines = NUMPY_SHAPES.splitlines()
    findings = lint_source(NUMPY_SHAPES, "case.py", Config(select=("DYN105", "DYN210")))
    assert [lines[f.start.line - 1].strip().split(" = ")[0] for f in findings] == ["(axes,)", "i", "j", "k", "n"]


@pytest.mark.torch
def test_dynamo_breaks_at_numpy_functions_of_value_dependent_size() -> None:
    from conftest import dynamo_break_lines

    findings = lint_source(NUMPY_SHAPES, "case.py", Config(select=("DYN105", "DYN210")))
    assert dynamo_break_lines(NUMPY_SHAPES) == {f.start.line for f in findings}


DECLARED_COPIES = textwrap.dedent("""\
    import copy
    from typing import Dict, List

    import torch


    def set_default_option(defopt: Dict, opt: Dict) -> Dict:
        res = copy.copy(defopt)
        res.update(opt)
        return res


    def shallow(items: List[int], pair: tuple, n: int, plain):
        a = copy.copy(items)
        b = copy.copy(pair)
        c = copy.copy(n)
        d = copy.copy(plain)
        return a, b, c, d


    @torch.compile(backend="eager")
    def f(x):
        o = set_default_option({"a": 1}, {"b": 2})
        a, b, c, d = shallow([1, 2], (1, 2), 3, "text")
        return x + o["a"] + c


    f(torch.ones(2))
""")


def test_a_shallow_copy_of_a_parameter_declared_a_dict_or_list_breaks() -> None:
    """xitorch's ``set_default_option(defopt: Dict, ...)`` runs ``copy.copy(defopt)`` (GB0007 on the ground-truth
    bench). A tuple, an int or an undeclared parameter is not taken for a container (the torch test measures)."""
    lines = DECLARED_COPIES.splitlines()
    findings = lint_source(DECLARED_COPIES, "case.py", Config(select=("DYN207",)))
    assert [lines[f.start.line - 1].strip() for f in findings] == ["res = copy.copy(defopt)", "a = copy.copy(items)"]


@pytest.mark.torch
def test_dynamo_breaks_at_a_shallow_copy_of_a_dict_or_list_argument() -> None:
    from conftest import dynamo_break_lines

    findings = lint_source(DECLARED_COPIES, "case.py", Config(select=("DYN207",)))
    assert dynamo_break_lines(DECLARED_COPIES) == {f.start.line for f in findings}


DECLARED_MODULES = textwrap.dedent("""\
    import copy
    import torch
    from torch import nn


    class Averaged(nn.Module):
        def __init__(self, model: nn.Module, config: dict | None = None):
            super().__init__()
            self.model = model
            self.config = config

        def forward(self, x):
            shadow = copy.deepcopy(self.model)
            settings = copy.deepcopy(self.config)
            return shadow(x)


    def swag(model: nn.Module, x: torch.Tensor):
        copied = copy.deepcopy(model)
        return copied(x)


    net = nn.Linear(2, 2)
    torch.compile(Averaged(net), backend="eager")(torch.ones(2))
    torch.compile(swag, backend="eager")(net, torch.ones(2))
""")


def test_a_deep_copy_of_a_parameter_declared_a_module_breaks() -> None:
    """laplace's ``fit_diagonal_swag_var(model: nn.Module, ...)`` and ema-pytorch's ``deepcopy(self.model)`` of the
    ``model: Module`` its ``__init__`` stored (GB4198 on the ground-truth bench); a config declared a dict is no module."""
    lines = DECLARED_MODULES.splitlines()
    findings = lint_source(DECLARED_MODULES, "case.py", Config(select=("DYN207",)))
    assert [lines[f.start.line - 1].strip() for f in findings] == [
        "shadow = copy.deepcopy(self.model)", "copied = copy.deepcopy(model)"]


@pytest.mark.torch
def test_dynamo_breaks_at_a_deep_copy_of_a_module_argument() -> None:
    from conftest import dynamo_break_lines

    findings = lint_source(DECLARED_MODULES, "case.py", Config(select=("DYN207",)))
    assert dynamo_break_lines(DECLARED_MODULES) == {f.start.line for f in findings}


NUMPY_MODULES = textwrap.dedent("""\
    import numpy as np
    import torch


    @torch.compile(backend="eager")
    def f(x):
        xs, ws = np.polynomial.legendre.leggauss(3)
        w = np.lib.stride_tricks.sliding_window_view(np.arange(5), 2)
        np.testing.assert_allclose(1.0, 1.0)
        m = np.ma.masked_array([1.0, 2.0])
        y = np.fft.fft(np.ones(4))
        return x + 1


    f(torch.ones(2))
""")


def test_a_function_of_a_numpy_module_torch_numpy_does_not_map_breaks() -> None:
    # xitorch's ``np.polynomial.legendre.leggauss(n)`` (GB0007 on the ground-truth bench); ``np.fft`` is mapped.
    lines = NUMPY_MODULES.splitlines()
    findings = lint_source(NUMPY_MODULES, "case.py", Config(select=("DYN210",)))
    assert [lines[f.start.line - 1].strip().split("(")[0] for f in findings] == [
        "xs, ws = np.polynomial.legendre.leggauss", "w = np.lib.stride_tricks.sliding_window_view",
        "np.testing.assert_allclose", "m = np.ma.masked_array",
    ]


@pytest.mark.torch
def test_dynamo_breaks_at_functions_of_numpy_modules_it_does_not_map() -> None:
    from conftest import dynamo_break_lines

    findings = lint_source(NUMPY_MODULES, "case.py", Config(select=("DYN210",)))
    assert dynamo_break_lines(NUMPY_MODULES) == {f.start.line for f in findings}


def test_a_branch_on_what_a_numpy_function_gave_breaks_whatever_its_arguments() -> None:
    """Dynamo runs NumPy as ``torch._numpy``, so ``np.sqrt(0.5)`` is a tensor to it: branching on it, on a name
    bound to one or on arithmetic of one breaks (GB0170), while ``int()`` / ``float()`` of one of Python numbers
    is folded (the torch test below measures both)."""
    lines = NUMPY_TRUTH.splitlines()
    findings = lint_source(NUMPY_TRUTH, "case.py", Config(select=("DYN102", "DYN104", "DYN210")))
    assert [(f.code, lines[f.start.line - 1].strip()) for f in findings] == [
        ("DYN102", "if np.sqrt(v) > 1:"), ("DYN102", "if np.any(flags):"), ("DYN102", "if err > tol:"),
        ("DYN102", "if -np.log2(v) > 5:"), ("DYN102", "if 0.0 > min(np.sum(flags), abs(np.log(v))):"),
        ("DYN102", "need = np.any(flags) or np.all(flags)"), ("DYN102", "if need:"), ("DYN210", "if np.isscalar(v):"),
    ]


DYNAMIC_BUFFERS = textwrap.dedent("""\
    import torch


    class Norm(torch.nn.Module):
        def __init__(self, order):
            super().__init__()
            self._order = order
            for id in order:
                self.register_buffer(f"{id}_indices", torch.LongTensor([0, 2]))
                self.register_buffer("size_{}".format(id), torch.tensor(2))
                if id == "a":
                    setattr(self, f"{id}_bounds", [0, 2])
                else:
                    self.register_buffer(f"{id}_bounds", torch.LongTensor([0, 2]))
            self.register_parameter("scale_w", torch.nn.Parameter(torch.ones(2)))

        def forward(self, x):
            w = getattr(self, "scale_w")
            if w.sum() < 0:
                x = x - 1
            if getattr(self, "_order"):
                x = x + 0
            bounds = getattr(self, f"{self._order[0]}_bounds")
            x = x[:, bounds[0]:bounds[1]]
            size = getattr(self, f"size_{self._order[0]}")
            if size > 1:
                x = x * 2
            for id in self._order:
                indices = getattr(self, f"{id}_indices")
                x = x[:, indices[0]:indices[1]] * 2
            return x


    torch.compile(Norm(["a", "b"]), backend="eager")(torch.ones(2, 3))
""")


def test_getattr_of_a_buffer_registered_under_a_built_name_is_a_tensor() -> None:
    """e2cnn's ``register_buffer(f"{id}_indices", ...)``, then ``getattr(self, f"{id}_indices")`` in ``forward``:
    a tensor, whose items bound a slice (measured on torch 2.13: GB0124). ``register_parameter``, a name made by
    ``str.format`` (``'indices_{}'.format(s)``, e2cnn's norm nonlinearity) and a constant name count too; an
    attribute registered as neither does not, nor one ``setattr`` gives a list on another path (e2cnn's
    contiguous fields).
    """
    lines = DYNAMIC_BUFFERS.splitlines()
    findings = lint_source(DYNAMIC_BUFFERS, "case.py", Config(select=("DYN102", "DYN103")))
    assert [(f.code, lines[f.start.line - 1].strip()) for f in findings] == [
        ("DYN102", "if w.sum() < 0:"), ("DYN102", "if size > 1:"), ("DYN103", "x = x[:, indices[0]:indices[1]] * 2"),
    ]


@pytest.mark.torch
def test_dynamo_breaks_on_buffers_read_through_getattr() -> None:
    from conftest import dynamo_break_lines

    findings = lint_source(DYNAMIC_BUFFERS, "case.py", Config(select=("DYN102", "DYN103")))
    assert dynamo_break_lines(DYNAMIC_BUFFERS) == {f.start.line for f in findings}


def test_a_name_bound_to_a_numpy_value_in_one_branch_is_not_one_in_the_other() -> None:
    # POT's ``if m is None: m = min(np.sum(p), np.sum(q))`` / ``elif m < 0``: the ``elif`` sees the parameter
    # (measured on torch 2.13: no break there); after the ``if`` either may hold.
    source = textwrap.dedent("""\
        import numpy as np
        import torch


        @torch.compile
        def f(x, m, p):
            if m is None:
                m = np.sum(p)
            elif m < 0:
                m = 0.0
            if m > 3:
                x = x + 1
            return x
    """)
    found = lint_source(source, "case.py", Config(select=("DYN102",)))
    assert [f.start.line for f in found] == [11]


@pytest.mark.torch
def test_dynamo_breaks_on_a_branch_on_numpy_of_python_numbers() -> None:
    from conftest import dynamo_break_lines

    findings = lint_source(NUMPY_TRUTH, "case.py", Config(select=("DYN102", "DYN104", "DYN210")))
    assert dynamo_break_lines(NUMPY_TRUTH) == {f.start.line for f in findings}


@pytest.mark.parametrize("test, line", [
    ("(\n        (x < 0).any()\n        or (y < 0).any()\n    )", 6),  # a call's jump: the ``if`` line
    ("(\n        x.sum() > 0\n        and y.sum() > 0\n    )", 7),  # a comparison's jump: its own line
    ("(x < 0).any()", 6),
])
def test_a_multi_line_condition_is_placed_where_cpython_puts_its_jump(test: str, line: int) -> None:
    source = f"import torch\n\n\n@torch.compile\ndef f(x: torch.Tensor, y: torch.Tensor):\n    if {test}:\n        x = x + 1\n    return x\n"
    (finding,) = lint_source(source, "case.py", Config(select=("DYN102",)))
    assert finding.start.line == line


@pytest.mark.parametrize("body, flagged", [
    ("i = torch.searchsorted(edges, torch.tensor(limit))\n    return edges[i]", True),  # 0-d: looked up with a 0-d value
    ("i = torch.bucketize(torch.tensor(limit), edges)\n    return edges[i - 1]", True),
    ("return edges[torch.tensor(1)]", False),  # a tensor of a constant: Dynamo knows its value
    ("i = torch.searchsorted(edges, torch.tensor([limit]))\n    return edges[i]", False),  # 1-d: advanced indexing
])
def test_a_position_looked_up_with_a_0d_value_is_0d(body: str, flagged: bool) -> None:
    source = f"import torch\n\n@torch.compile\ndef f(edges: torch.Tensor, limit: float):\n    {body}\n"
    findings = lint_source(source, "case.py", Config(select=("DYN103",)))
    assert len(findings) == (1 if flagged else 0)


@pytest.mark.parametrize("test, flagged", [
    ("isinstance(limit, int) and limit < 2", False),  # the ``and`` proves ``limit`` a Python int
    ("isinstance(limit, int) and limit > 0 and limit < x.shape[0]", False),  # every later operand
    ("isinstance(limit, (int, float)) and limit > x.sum()", True),  # the tensor side is still a tensor
    ("isinstance(limit, torch.Tensor) and limit < 2", False),  # a tensor test: never true for a Python value
])
def test_an_isinstance_test_on_a_python_type_narrows_the_rest_of_its_and(test: str, flagged: bool) -> None:
    source = f"import torch\n\n@torch.compile\ndef f(x: torch.Tensor, limit):\n    if {test}:\n        x = x + 1\n    return x\n"
    assert bool(lint_source(source, "case.py", Config(select=("DYN102",)))) is flagged


def test_a_0d_index_in_a_statement_after_another_reported_one_is_reported_too() -> None:
    """One finding per statement (the first read breaks), a compound statement's header counting as one:
    measured, ``y = t[t.argmax()]`` then ``if t[t.argmin()] > 0:`` breaks on both lines (GB0033)."""
    source = ZERO_D.format(body="y = labels[scores.argmax()]\n    if labels[scores.argmin()] > 0:\n"
                                "        y = y + labels[scores.argmax()] + labels[scores.argmin()]\n    return y")
    findings = lint_source(source, "case.py", Config(select=("DYN103",)))
    assert [f.start.line for f in findings] == [6, 7, 8]


def test_a_method_no_tensor_has_shows_an_input_is_not_a_tensor() -> None:
    # ``forward``'s un-annotated inputs are taken for tensors once a tensor method is called on them; a
    # method no tensor has (a process group's) says the opposite, and the comparison is Python.
    source = textwrap.dedent("""\
        import torch
        from torch import nn

        class M(nn.Module):
            def forward(self, x, group):
                if group._get_backend_name() != "gloo":
                    x = x + 1
                if group.float().sum() > 0:
                    x = x + 2
                return x

        compiled = torch.compile(M())
        """)
    found = lint_source(source, "m.py", Config(select=("DYN102",)))
    assert [f.start.line for f in found] == [8]


def test_isclose_makes_a_mask_and_indexing_by_it_is_reported_where_read_not_where_written() -> None:
    """torchmetrics' R2: ``cond = ~torch.isclose(...) & ...`` selects from tensors (measured: GB0036 at the
    read), while ``raw[cond] = 0.0`` alone does not break (measured: no break)."""
    source = textwrap.dedent("""
        import torch


        @torch.compile
        def r2(rss: torch.Tensor, tss: torch.Tensor):
            cond = ~torch.isclose(rss, torch.zeros_like(rss)) & ~torch.isclose(tss, torch.zeros_like(tss))
            raw = torch.ones_like(rss)
            raw[cond] = 0.0
            return raw, rss[cond]
    """)
    found = lint_source(source, "p.py", Config(select=("DYN105",)))
    assert [(f.start.line, f.code) for f in found] == [(10, "DYN105")]


def test_an_array_then_a_shape_on_a_receiver_of_unknown_type_is_a_modules_function_not_sizes() -> None:
    # POT's ``nx.reshape(row_scaling, (-1, 1))`` (``nx``: a backend of any library): no tensor method takes
    # a tensor then a shape, so the tensor is the array reshaped. A tensor's own ``view`` given a tensor
    # read as a size still is one.
    body = "a = y.reshape(x.sum(1), (-1, 1))\nb = x.view(x[0].sum(), -1)\nc = y.view(x[0].sum(), 2)\n"
    assert [f.start.line for f in lint_one(body, "DYN109")] == [6, 7]


def test_allclose_on_a_receiver_of_unknown_type_answers_a_python_bool_not_a_tensor() -> None:
    # ``nx.allclose(a, b)``: on tensors the call itself breaks (a data comparison, DYN101), and the bool it
    # gives is a constant to what follows; a branch on it breaks nothing (POT's ``if symmetric:``).
    body = "same = y.allclose(x, x * 2) and y.equal(x, x)\nif same:\n    x = x + 1\nif y.sum(x) > 0:\n    x = x - 1\n"
    assert [f.start.line for f in lint_one(body, "DYN102")] == [8]


@pytest.mark.parametrize("summary", ["y.dot(s)", "y.trace()", "y.dist(s)", "y.vdot(s)"])
def test_products_and_scalar_summaries_of_an_unknown_receiver_are_likely_tensors(summary: str) -> None:
    # torchmin's BFGS update: ``rho_inv = y.dot(s)`` then ``if rho_inv <= 1e-10:`` (GB0170, and so are these
    # forms on tensors, measured on torch 2.13); ``y`` and ``s`` are un-annotated inputs of unknown kind.
    source = textwrap.dedent(f"""\
        import torch

        @torch.compile
        def update(y, s):
            rho_inv = {summary}
            if rho_inv <= 1e-10:
                return y
            return y / rho_inv
    """)
    (finding,) = lint_source(source, "bfgs.py", Config(select=("DYN102",)))
    assert finding.start.line == 6 and finding.confidence is Confidence.LIKELY


def test_a_tensor_given_to_a_torch_ops_number_argument_is_read_as_one() -> None:
    # Measured on torch 2.13: ``alpha=`` / ``beta=`` / ``value=`` given a tensor break (GB0033, torchmin's
    # BFGS and CG); a Python number there, ``lerp``'s tensor weight, and the in-place ``add_`` / ``addcmul_`` /
    # ``addcdiv_`` that Dynamo rewrites for optimizers, do not.
    source = textwrap.dedent("""\
        import torch

        @torch.compile
        def step(a, b, eye, s: torch.Tensor, y: torch.Tensor):
            rho = 1.0 / y.dot(s)
            left = torch.addr(eye, s, y, alpha=-rho)
            a.sub_(b, alpha=rho)
            c = torch.add(a, b, alpha=2.0)
            d = torch.lerp(a, b, rho)
            e = torch.addcmul(a, a, b, value=0.5)
            f = s.addmm(eye, eye, beta=s.sum())
            a.add_(b, alpha=rho)
            a.addcdiv_(b, b, value=-rho)
            torch.addr(
                left, s, s,
                alpha=rho, out=eye)
            return left, c, d, e, f
    """)
    found = [(f.start.line, f.message.split("`")[1]) for f in lint_source(source, "cg.py", Config(select=("DYN104",)))]
    # A call over several lines is flagged on its first, where Dynamo reports the break (torchmin's BFGS).
    assert found == [(6, "alpha=-rho"), (7, "alpha=rho"), (11, "beta=s.sum()"), (14, "alpha=rho")]


def test_a_reduction_named_on_an_array_backend_module_is_a_probable_tensor() -> None:
    """geomloss's ``if bk.any(m < 0):`` and tensorly's ``if tl.all(x == 0):`` dispatch to torch on tensors and
    broke there (GB0170, torch 2.13, on the ground-truth bench): likely. Not the standard library's
    ``math.prod`` of a list, nor ``allclose``, whose Python bool is no second break."""
    source = textwrap.dedent("""\
        import math
        import torch
        import mybackend as bk


        @torch.compile
        def f(m, xs: list):
            if bk.any(m < 0):
                return m
            if math.prod(xs) > 3:
                return m
            if bk.allclose(m, m):
                return m
            return m
    """)
    found = lint_source(source, "f.py", Config(select=("DYN102",)))
    assert [(f.start.line, f.confidence) for f in found] == [(8, Confidence.LIKELY)]


def test_a_math_function_given_a_tensor_reads_its_value() -> None:
    # Measured on torch 2.13: ``math.sqrt`` / ``exp`` / ``floor`` / ``isnan`` / ``atan2`` of a tensor break
    # (GB0033); of a size they are folded, and ``math.prod`` keeps its tensors.
    source = textwrap.dedent("""\
        import math
        import torch

        @torch.compile
        def rescale(x: torch.Tensor, n: int):
            scale = math.sqrt(x.pow(2).mean())
            if math.isnan(x.sum()):
                x = x + 1
            angle = math.atan2(1.0, x[0])
            width = math.floor(math.log2(x.shape[0]))
            both = math.prod([x, x])
            return x / scale + angle + width + math.exp(n) + both
    """)
    found = [(f.start.line, f.message.split("`")[1]) for f in lint_source(source, "m.py", Config(select=("DYN104",)))]
    assert found == [(6, "math.sqrt()"), (7, "math.isnan()"), (9, "math.atan2()")]
    # What ``math.sqrt(t)`` returned is a value read from the tensor: a branch on it is no second break.
    branch = source.replace("if math.isnan(x.sum()):", "if scale > 1:")
    assert lint_source(branch, "m.py", Config(select=("DYN102",))) == []


def test_a_value_of_unknown_type_is_a_tensor_once_a_tensor_only_call_succeeds_on_it() -> None:
    # torchmin's ``f = self.fun(x)``, then ``autograd.grad(f, x)``, then ``float(f)``: measured on torch 2.13, the
    # ``float()`` breaks (GB0124), as does a branch on a value after ``.detach()`` was called on it (GB0170).
    # Before the call the value may be anything; ``shape.numel()`` is a ``torch.Size``'s too.
    source = textwrap.dedent("""\
        import torch
        from torch import autograd

        class Objective:
            def direction(self, x):
                f = self.fun(x)
                early = float(f)
                grad = autograd.grad(f, x)[0]
                return float(f), grad, early

            def detached(self, x, shape):
                f = self.fun(x)
                n = shape.numel()
                y = f.detach()
                if f > 0:
                    return y
                if n > 1:
                    return y * 2
                return y + 1

        objective = Objective()

        @torch.compile
        def step(x):
            return objective.direction(x), objective.detached(x, x.shape)
    """)
    found = [(f.code, f.start.line, f.confidence)
             for f in lint_source(source, "m.py", Config(select=("DYN104", "DYN102")))]
    assert found == [("DYN104", 9, Confidence.LIKELY), ("DYN102", 15, Confidence.CERTAIN)]


ACCUMULATED = textwrap.dedent("""\
    import torch


    class Counter:
        def __init__(self):
            self.correct = 0
            self.seen = 0

        def update(self, pred, target):
            self.correct += (pred.argmax(-1) == target).sum()
            self.seen += len(target)

        def compute(self):
            if self.seen == 0:
                return 0.0
            return float(self.correct) / self.seen


    counter = Counter()


    @torch.compile(backend="eager")
    def step(pred, target):
        counter.update(pred, target)
        return counter.compute()


    step(torch.randn(4, 3), torch.tensor([0, 1, 2, 0]))
""")


def test_an_attribute_a_tensor_is_added_to_holds_a_tensor() -> None:
    """opacus' ``self.unclipped_num += (len(f) - (f < 1).sum())``, then ``float(self.unclipped_num)`` in another
    method (GB0124 on the ground-truth bench): the count starts as ``0`` and becomes a tensor. One that only
    ever adds Python ints (``self.seen += len(target)``) stays a Python value."""
    lines = ACCUMULATED.splitlines()
    findings = lint_source(ACCUMULATED, "counter.py", Config(select=("DYN102", "DYN104")))
    assert [(f.code, lines[f.start.line - 1].strip()) for f in findings] == [
        ("DYN104", "return float(self.correct) / self.seen")]


@pytest.mark.torch
def test_dynamo_breaks_on_reading_an_attribute_a_tensor_was_added_to() -> None:
    from conftest import dynamo_break_lines

    findings = lint_source(ACCUMULATED, "counter.py", Config(select=("DYN102", "DYN104")))
    assert dynamo_break_lines(ACCUMULATED) == {f.start.line for f in findings}


DECLARED_FIELDS = textwrap.dedent("""\
    from dataclasses import dataclass
    from typing import NamedTuple, Optional

    import torch


    class State(NamedTuple):
        t: torch.Tensor
        n: int


    @dataclass
    class Settings:
        scale: torch.Tensor
        steps: int


    @torch.compile(backend="eager")
    def advance(state: State, settings: Optional[Settings], x):
        if state.t > 0.5:
            x = x * 2
        if settings.scale > 1:
            x = x + 1
        if state.n > 1 and settings.steps > 1:
            x = x - 1
        return x


    advance(State(torch.tensor(0.7), 2), Settings(torch.tensor(2.0), 3), torch.ones(2))
""")


def test_a_field_a_named_tuple_or_dataclass_declares_a_tensor_is_one_on_a_parameter_declared_that_class() -> None:
    """``state.t`` of ``state: State`` with ``class State(NamedTuple): t: torch.Tensor`` is a tensor (GB0170 under
    Dynamo, torch 2.13, and so for a dataclass's field); the fields declared ``int`` are Python values."""
    lines = DECLARED_FIELDS.splitlines()
    findings = lint_source(DECLARED_FIELDS, "state.py", Config(select=("DYN102",)))
    assert [lines[f.start.line - 1].strip() for f in findings] == ["if state.t > 0.5:", "if settings.scale > 1:"]


@pytest.mark.torch
def test_dynamo_breaks_on_a_tensor_field_of_a_declared_class() -> None:
    from conftest import dynamo_break_lines

    findings = lint_source(DECLARED_FIELDS, "state.py", Config(select=("DYN102",)))
    assert dynamo_break_lines(DECLARED_FIELDS) == {f.start.line for f in findings}
