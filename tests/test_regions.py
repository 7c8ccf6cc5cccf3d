"""Which code counts as compiled (program + region provider), probed with the `print-call` rule.

Each case is a small file; the assertion is the set of lines flagged and, where it matters, the
confidence and the why-chain. Code outside every compiled region must never be flagged.
"""

from __future__ import annotations

import textwrap

import pytest

from dynalint.api import lint_source
from dynalint.model.finding import Confidence, Finding
from dynalint.project.config import Config

PRINT_ONLY = Config(select=("DYN201",))


def lint(source: str) -> list[Finding]:
    return lint_source(textwrap.dedent(source), "case.py", PRINT_ONLY)


def flagged_lines(source: str) -> set[int]:
    return {f.start.line for f in lint(source)}


@pytest.mark.parametrize(
    "header, decorator",
    [
        ("import torch", "@torch.compile"),
        ("import torch", "@torch.compile(fullgraph=False, dynamic=True)"),
        ("import torch as T", "@T.compile"),
        ("from torch import compile as tc", "@tc()"),
    ],
)
def test_compile_decorator_under_any_alias(header: str, decorator: str) -> None:
    source = f"{header}\n\n{decorator}\ndef f(x):\n    print(x)\n    return x\n"
    assert flagged_lines(source) == {5}


def test_function_passed_to_torch_compile() -> None:
    source = """
        import torch

        def f(x):
            print(x)
            return x

        def g(x):
            print(x)
            return x

        fast_f = torch.compile(f, backend="eager")
    """
    assert flagged_lines(source) == {5}


def test_bound_method_passed_to_torch_compile() -> None:
    source = """
        import torch

        class Trainer:
            def __init__(self):
                self.fast_step = torch.compile(self.step)

            def step(self, x):
                print(x)
                return x

            def report(self, x):
                print(x)
    """
    assert flagged_lines(source) == {9}


def test_module_compiled_by_instance_is_certain_and_uncompiled_forward_likely() -> None:
    source = """
        import torch
        from torch import nn

        class Compiled(nn.Module):
            def forward(self, x):
                print(x)
                return x

        class Elsewhere(nn.Module):
            def forward(self, x):
                print(x)
                return x

        def build():
            model = Compiled()
            model.compile()
            return model
    """
    findings = {f.start.line: f for f in lint(source)}
    assert set(findings) == {7, 12}
    assert findings[7].confidence is Confidence.CERTAIN
    assert findings[12].confidence is Confidence.LIKELY


def test_plain_classes_and_functions_are_not_regions() -> None:
    source = """
        import torch

        class Loader:
            def forward(self, x):
                print(x)

        def train(model, data):
            for batch in data:
                loss = model(batch)
                print(loss.item())
    """
    assert flagged_lines(source) == set()


def test_helper_called_from_compiled_code_carries_the_chain() -> None:
    source = """
        import torch
        from torch import nn

        def log_shape(x):
            print(x.shape)

        class Block(nn.Module):
            def forward(self, x):
                log_shape(x)
                return x

        class Model(nn.Module):
            def __init__(self):
                super().__init__()
                self.block = Block()

            def forward(self, x):
                return self.block(x)

        model = torch.compile(Model())
    """
    (finding,) = lint(source)
    assert finding.start.line == 6
    assert finding.confidence is Confidence.CERTAIN
    assert finding.region is not None
    chain = [link.function for link in finding.region.chain]
    assert chain == ["Model.forward", "Block.forward", "log_shape"]
    assert finding.region.chain[0].line == 21 and "torch.compile" in finding.region.chain[0].how


def test_helper_called_only_from_eager_code_is_not_flagged() -> None:
    source = """
        import torch

        def log_shape(x):
            print(x.shape)

        @torch.compile
        def f(x):
            return x * 2

        def main(x):
            log_shape(f(x))
    """
    assert flagged_lines(source) == set()


def test_disabled_functions_are_not_regions() -> None:
    source = """
        import torch

        @torch.compiler.disable
        def report(x):
            print(x)

        @torch.compile
        def f(x):
            return x * 2
    """
    assert flagged_lines(source) == set()


def test_is_compiling_guards() -> None:
    source = """
        import torch
        from torch._dynamo import is_compiling

        @torch.compile
        def f(x):
            if not torch.compiler.is_compiling():
                print("eager only")
            if is_compiling():
                print("traced")
            else:
                print("eager only")
            return x
    """
    assert flagged_lines(source) == {10}


def test_nested_function_inherits_the_region() -> None:
    source = """
        import torch

        @torch.compile
        def f(x):
            def inner(y):
                print(y)
                return y
            return inner(x)
    """
    assert flagged_lines(source) == {7}


def test_a_sibling_helper_of_a_compiled_closure_is_compiled() -> None:
    # ``run`` calls ``helper``, a def of the function enclosing both: Python finds it in that scope.
    source = """
        import torch

        def make():
            def helper(y):
                print(y)
                return y

            def unused(y):
                print(y)

            @torch.compile
            def run(x):
                return helper(x)

            return run
    """
    assert flagged_lines(source) == {6}


def test_what_a_nested_function_calls_is_compiled_when_it_is_passed_on_rather_than_called() -> None:
    # botorch's ``fatmax``: ``max_fun`` is handed to a helper that calls it, and ``max_fun`` calls ``_pareto``.
    source = """
        import torch

        def _pareto(y):
            print(y)
            return y

        def apply(fn, x):
            return fn(x)

        @torch.compile
        def fatmax(x):
            def max_fun(y):
                return _pareto(y)
            return apply(max_fun, x)
    """
    assert flagged_lines(source) == {5}


DATACLASS_POST_INIT = """\
from dataclasses import dataclass

import torch


@dataclass
class MoG:
    logits: torch.Tensor

    def __post_init__(self):
        if not torch.all(torch.isfinite(self.logits)):
            raise ValueError("logits")


@dataclass
class Written:
    logits: torch.Tensor

    def __init__(self, logits):
        self.logits = logits

    def __post_init__(self):
        print("never called: the written __init__ does not call it")


@torch.compile(backend="eager")
def f(logits):
    return MoG(logits).logits + Written(logits).logits


f(torch.ones(3))
"""


def test_constructing_a_dataclass_runs_its_post_init() -> None:
    # The ``__init__`` the decorator writes calls ``__post_init__``; a written one replaces it.
    found = lint_source(DATACLASS_POST_INIT, "mog.py", Config(select=("DYN102", "DYN201")))
    assert [(f.code, f.start.line) for f in found] == [("DYN102", 11)]


@pytest.mark.torch
def test_dynamo_breaks_in_the_post_init_of_a_dataclass_built_in_compiled_code() -> None:
    from conftest import run_snippets

    result = run_snippets([{"id": "mog", "source": DATACLASS_POST_INIT}])["mog"]
    assert {(b["line"], b["gb_id"]) for b in result["breaks"]} == {(11, "GB0170")}


def test_a_class_body_does_not_enclose_its_methods() -> None:
    # Inside ``Model.forward``, ``helper`` is the module's function, not the method of the same name.
    source = """
        import torch
        from torch import nn

        def helper(y):
            print("module")
            return y

        class Model(nn.Module):
            def helper(self, y):
                print("method")
                return y

            def forward(self, x):
                def shadowed(helper):
                    return helper(x)
                return helper(x) + shadowed(x)

        model = torch.compile(Model())
    """
    assert flagged_lines(source) == {6}


def test_module_level_code_is_never_a_region() -> None:
    source = """
        import torch
        print("loading")
        model = torch.compile(torch.nn.Linear(2, 2))
    """
    assert flagged_lines(source) == set()


def test_inherited_forward_and_subclass_of_in_file_module() -> None:
    source = """
        import torch
        from torch import nn

        class Base(nn.Module):
            def helper(self, x):
                print(x)
                return x

        class Child(Base):
            def forward(self, x):
                return self.helper(x)

        model = torch.compile(Child())
    """
    (finding,) = lint(source)
    assert finding.start.line == 7
    assert [link.function for link in finding.region.chain] == ["Child.forward", "Base.helper"]


def test_super_calls_reach_the_next_class_of_the_mro_and_no_further() -> None:
    # Dynamo inlines ``super().step(x)`` like any method call: the base's print breaks as well (measured on
    # torch 2.13 by the ground truth: laplace's ``ParametricLaplace.optimize_prior_precision`` calls its
    # base's through ``super()``). ``Root.step`` is shadowed by ``Base.step`` and never runs.
    source = """
        import torch

        class Root:
            def step(self, x):
                print("root")
                return x

        class Base(Root):
            def step(self, x):
                print("base")
                return x

        class Child(Base):
            def step(self, x):
                return super().step(x) + 1

            @torch.compile
            def run(self, x):
                return self.step(x)

        class Unrelated:
            def step(self, x):
                return super().step(x)
    """
    (finding,) = lint(source)
    assert finding.start.line == 11
    assert [link.function for link in finding.region.chain] == ["Child.run", "Child.step", "Base.step"]


def test_an_autograd_function_applied_through_a_module_level_alias_runs_its_forward() -> None:
    # ``_norm = _Norm.apply`` then ``_norm(x)`` (pymde, measured on torch 2.13 by the ground truth: a branch
    # on a tensor in such a ``forward`` broke, GB0170): Dynamo traces ``forward`` as for ``_Norm.apply(x)``.
    source = """
        import torch

        class _Norm(torch.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                print("norm")
                return x.norm()

            @staticmethod
            def backward(ctx, g):
                return g

        _norm = _Norm.apply

        @torch.compile
        def f(x):
            return _norm(x)
    """
    (finding,) = lint(source)
    assert (finding.code, finding.start.line) == ("DYN201", 7)
    assert [link.function for link in finding.region.chain] == ["f", "_Norm.forward"]


def test_a_function_handed_to_a_library_call_dynamo_runs_eagerly_is_compiled_as_a_frame_of_its_own() -> None:
    # Measured on torch 2.13: ``scipy.optimize.minimize`` breaks (DYN004) and runs eagerly; each call it makes
    # of ``objective`` enters a frame Dynamo compiles, which breaks at its print. Likely: the library may
    # not call it. ``report`` is only handed to ``print`` (not a library DYN004 knows): not compiled.
    source = """
        import numpy as np
        import scipy.optimize
        import torch

        def objective(z):
            print("objective", z)
            return float(np.sum(z ** 2))

        def report(value):
            print("report", value)

        @torch.compile
        def fit(x):
            result = scipy.optimize.minimize(objective, np.ones(2), method="Nelder-Mead")
            print(report)
            return x * float(result.fun)
    """
    found = [(f.start.line, f.confidence) for f in lint(source)]
    assert found == [(7, Confidence.LIKELY), (16, Confidence.CERTAIN)]
    (callback,) = [f for f in lint(source) if f.start.line == 7]
    assert [link.function for link in callback.region.chain] == ["fit", "objective"]
    assert "handed to `scipy.optimize.minimize`" in callback.region.chain[-1].how


@pytest.mark.parametrize(
    "guarded",
    [
        "if not torch.compiler.is_compiling() and verbose:\n        print(x)",
        "compiling = torch.compiler.is_compiling()\n    if not compiling:\n        print(x)",
        "if torch.compiler.is_compiling():\n        x = x + 1\n    elif verbose:\n        print(x)",
        "if torch.compiler.is_compiling() or verbose:\n        x = x + 1\n    else:\n        print(x)",
        "if torch.compiler.is_compiling():\n        return x\n    print(x)",
    ],
)
def test_is_compiling_guard_forms(guarded: str) -> None:
    source = f"import torch\n\nverbose = True\n\n@torch.compile\ndef f(x):\n    {guarded}\n    return x\n"
    assert flagged_lines(source) == set()


def test_is_compiling_guard_does_not_hide_the_traced_side() -> None:
    source = (
        "import torch\n\n@torch.compile\ndef f(x, verbose):\n"
        "    if torch.compiler.is_compiling() and verbose:\n        print(x)\n    return x\n"
    )
    assert flagged_lines(source) == {6}


def test_helper_called_only_under_the_guard_is_not_compiled() -> None:
    source = """
        import torch

        def log_stats(x):
            print("mean", x.mean())

        @torch.compile
        def f(x):
            if not torch.compiler.is_compiling():
                log_stats(x)
            return x * 2
    """
    assert flagged_lines(source) == set()


def test_model_moved_with_to_is_still_known() -> None:
    source = """
        import torch
        from torch import nn

        class Net(nn.Module):
            def forward(self, x):
                print(x)
                return x

        def build(device):
            model = Net().to(device).eval()
            model.compile()
            return model
    """
    (finding,) = lint(source)
    assert finding.confidence is Confidence.CERTAIN


@pytest.mark.parametrize(
    "factory",
    [
        "def build():\n            return Net().eval()",
        "def build() -> Net:\n            return make_any_module()",
    ],
)
def test_compiled_factory_result_is_known(factory: str) -> None:
    # `torch.compile(build())`: the class comes from the factory's `return Net(...).eval()` or from its
    # `-> Net` annotation; either way Net.forward is compiled from this site.
    source = f"""
        import torch
        from torch import nn

        class Net(nn.Module):
            def forward(self, x):
                print(x)
                return x

        {factory}

        compiled = torch.compile(build())
    """
    (finding,) = lint(source)
    assert finding.confidence is Confidence.CERTAIN
    assert finding.region is not None and "torch.compile(build())" in finding.region.describe()


def test_calling_a_sub_module_runs_its_own_call_method_as_well_as_forward() -> None:
    """PyG's aggregations override ``__call__`` (then call ``super().__call__``): Dynamo traces both."""
    source = """
        import torch
        from torch import nn


        class Aggregation(nn.Module):
            def __call__(self, x, index: torch.Tensor):
                print("aggregating")
                return super().__call__(x, index, 3)

            def forward(self, x, index, size):
                print(size)
                return x


        class Conv(nn.Module):
            def __init__(self):
                super().__init__()
                self.aggr = Aggregation()

            def forward(self, x, index):
                return self.aggr(x, index)


        model = torch.compile(Conv())
    """
    assert flagged_lines(source) == {8, 12}


@pytest.mark.parametrize(
    "header, base",
    [
        ("from torch import nn", "nn.Linear"),
        ("import torch", "torch.nn.Sequential"),
        ("from torch.nn.modules.instancenorm import _InstanceNorm", "_InstanceNorm"),
    ],
)
def test_subclass_of_a_torch_layer_is_a_module(header: str, base: str) -> None:
    source = f"{header}\n\nclass Norm({base}):\n    def forward(self, x):\n        print(x)\n        return x\n"
    (finding,) = lint(source)
    assert finding.start.line == 5 and finding.confidence is Confidence.LIKELY


def test_subclass_of_a_torch_parameter_is_not_a_module() -> None:
    source = "from torch import nn\n\nclass P(nn.Parameter):\n    def forward(self, x):\n        print(x)\n"
    assert flagged_lines(source) == set()


def test_compile_guards_the_project_wrote(tmp_path) -> None:
    from dynalint.api import lint_paths

    package = tmp_path / "pkg"
    package.mkdir()
    (package / "__init__.py").write_text("")
    (package / "utils.py").write_text(
        "import torch\n\ndef is_tracing() -> bool:\n"
        "    return torch.compiler.is_compiling() or torch.jit.is_tracing()\n"
    )
    (package / "model.py").write_text(textwrap.dedent("""
        import torch
        from pkg.utils import is_tracing

        def is_torchdynamo_compiling():
            return torch.compiler.is_compiling()

        class M(torch.nn.Module):
            def forward(self, x, mask: torch.Tensor):
                if not is_tracing() and torch.all(mask == 1):
                    print(x)
                tracing = is_torchdynamo_compiling()
                if not tracing and mask.sum().item() > 0:
                    x = x + 1
                if is_tracing() or bool(mask.any()):
                    x = x + 1
                return x

        compiled = torch.compile(M())
    """))
    assert lint_paths([str(tmp_path)], Config()).findings == []


@pytest.mark.parametrize("alias, body", [
    ('getattr(torch.compiler, "is_compiling", None) or getattr(torch._dynamo, "is_compiling", None)',
     "return bool(_compiling()) if _compiling is not None else False"),
    ("torch.compiler.is_compiling", "return _compiling()"),
    ('getattr(torch.compiler, "is_compiling", None)', "return bool(_compiling())"),
])
def test_a_guard_written_against_an_alias_found_at_import_is_a_guard(alias: str, body: str) -> None:
    """Version-tolerant libraries look ``is_compiling`` up once and wrap it (kornia's ``is_compiling``)."""
    source = (f"import torch\n\n_compiling = {alias}\n\n\ndef is_compiling() -> bool:\n    {body}\n\n\n"
              "@torch.compile\ndef f(x, target: torch.Tensor):\n"
              "    if not is_compiling() and not (target.max() < 3):\n        print(x)\n    return x\n")
    assert flagged_lines(source) == set()


def test_an_alias_of_another_torch_function_is_not_a_guard() -> None:
    source = ('import torch\n\n_exporting = getattr(torch.compiler, "is_exporting", None)\n\n\n'
              "def is_exporting() -> bool:\n    return bool(_exporting()) if _exporting is not None else False\n\n\n"
              "@torch.compile\ndef f(x):\n    if not is_exporting():\n        print(x)\n    return x\n")
    assert flagged_lines(source) == {13}


def test_a_guard_returned_by_a_nested_function_does_not_make_its_owner_a_guard() -> None:
    source = textwrap.dedent("""
        import torch

        def make_guard():
            def inner():
                return torch.compiler.is_compiling()
            inner()

        @torch.compile
        def f(x, mask: torch.Tensor):
            if not make_guard() and torch.all(mask == 1):
                x = x + 1
            return x
    """)
    assert [f.start.line for f in lint_source(source, "case.py", Config(select=("DYN102",)))] == [11]


def test_data_test_under_a_static_test_is_likely_and_says_when() -> None:
    source = textwrap.dedent("""
        import torch

        @torch.compile
        def clamp_inf(x: torch.Tensor) -> torch.Tensor:
            if x.dtype == torch.float16 and torch.isinf(x).any():
                x = x.clamp(-1000, 1000)
            if x is not None and x.sum() > 0:
                x = x + 1
            return x
    """)
    first, second = lint_source(source, "case.py", Config(select=("DYN102",)))
    assert first.start.line == 6 and first.confidence is Confidence.LIKELY
    assert "only when `x.dtype == torch.float16`" in first.message
    assert second.start.line == 8 and second.confidence is Confidence.CERTAIN
