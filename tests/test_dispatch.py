"""Regions through dynamic dispatch: calls whose target is picked at run time from values the tree names.

Each case compiles a model whose ``forward`` calls something dynamic; the only ``print`` that may be
flagged is in the code that call can reach. Findings reached this way are ``likely``, and their
why-chain names the dispatching expression and the function it reached. Probed with ``print-call``.
"""

from __future__ import annotations

import textwrap

import pytest

from dynalint.analysis import program
from dynalint.api import lint_source
from dynalint.model.finding import Confidence, Finding
from dynalint.project.config import Config

PRINT_ONLY = Config(select=("DYN201",))


def lint(source: str) -> list[Finding]:
    return lint_source(textwrap.dedent(source), "case.py", PRINT_ONLY)


def reached(source: str) -> dict[str, Finding]:
    """The flagged prints, by the text of the string each prints."""
    text = textwrap.dedent(source).splitlines()
    return {text[f.start.line - 1].split('"')[1]: f for f in lint(source)}


PROCESSORS = """
    import torch
    from torch import nn


    class AttnProcessor:
        def __call__(self, attn, x):
            print("plain")
            return x


    class AttnProcessor2_0:
        def __call__(self, attn, x):
            print("sdpa")
            return x


    class Unused:
        def __call__(self, attn, x):
            print("unused")
            return x
"""


def test_attribute_given_by_a_setter_runs_each_instance_passed_to_it() -> None:
    source = PROCESSORS + """
    class Attention(nn.Module):
        def __init__(self, fast):
            super().__init__()
            processor = AttnProcessor2_0() if fast else AttnProcessor()
            self.set_processor(processor)

        def set_processor(self, processor):
            self.processor = processor

        def forward(self, x):
            return self.processor(self, x)


    model = torch.compile(Attention(True))
    """
    found = reached(source)
    assert set(found) == {"plain", "sdpa"}
    assert all(f.confidence is Confidence.LIKELY for f in found.values())
    assert found["sdpa"].region is not None
    assert found["sdpa"].region.describe().endswith("Attention.forward -> self.processor (AttnProcessor2_0.__call__)")


def test_setter_called_from_outside_the_class() -> None:
    source = PROCESSORS + """
    class Attention(nn.Module):
        def set_processor(self, processor):
            self.processor = processor

        def forward(self, x):
            return self.processor(self, x)


    model = Attention()
    model.set_processor(AttnProcessor())
    fast = torch.compile(model)
    """
    assert set(reached(source)) == {"plain"}


def test_attribute_built_from_a_constructor_default() -> None:
    source = PROCESSORS + """
    class Block(nn.Module):
        def __init__(self, processor_cls=AttnProcessor2_0):
            super().__init__()
            self.processor = processor_cls()

        def forward(self, x):
            return self.processor(self, x)


    model = torch.compile(Block())
    """
    assert set(reached(source)) == {"sdpa"}


def test_plain_class_with_call_assigned_in_init_is_followed_certainly() -> None:
    source = PROCESSORS + """
    class Block(nn.Module):
        def __init__(self):
            super().__init__()
            self.processor = AttnProcessor()

        def forward(self, x):
            return self.processor(self, x)


    model = torch.compile(Block())
    """
    found = reached(source)
    assert set(found) == {"plain"}
    assert found["plain"].confidence is Confidence.CERTAIN


def test_module_level_dict_of_functions_called_by_key() -> None:
    source = """
    import torch


    def relu(x):
        print("relu")
        return x


    def gelu(x):
        print("gelu")
        return x


    def unrelated(x):
        print("unrelated")
        return x


    ACTIVATIONS = {"relu": relu, "gelu": gelu}


    @torch.compile
    def step(x, name):
        return ACTIVATIONS[name](x)
    """
    found = reached(source)
    assert set(found) == {"relu", "gelu"}
    assert found["gelu"].region is not None
    assert found["gelu"].region.describe().endswith("step -> ACTIVATIONS[...] (gelu)")


def test_registry_filled_by_a_decorator_and_read_with_get() -> None:
    source = """
    import torch

    LOSSES = {}


    def register(name):
        def add(fn):
            LOSSES[name] = fn
            return fn
        return add


    @register("l1")
    def l1(x):
        print("l1")
        return x


    @register("l2")
    def l2(x):
        print("l2")
        return x


    def unregistered(x):
        print("unregistered")
        return x


    @torch.compile
    def step(x, name):
        loss_fn = LOSSES.get(name)
        return loss_fn(x)
    """
    assert set(reached(source)) == {"l1", "l2"}


def test_loss_module_picked_from_a_mapping_of_classes() -> None:
    source = """
    import torch
    from torch import nn


    class Focal(nn.Module):
        def forward(self, x):
            print("focal")
            return x


    class Dice(nn.Module):
        def forward(self, x):
            print("dice")
            return x


    LOSSES = {"focal": Focal, "dice": Dice}


    class Model(nn.Module):
        def __init__(self, loss):
            super().__init__()
            self.loss = LOSSES[loss]()

        def forward(self, x):
            return self.loss(x)


    model = torch.compile(Model("dice"))
    """
    assert set(reached(source)) == {"focal", "dice"}


def test_attribute_given_a_function_from_a_mapping() -> None:
    source = """
    import torch
    from torch import nn


    def swish(x):
        print("swish")
        return x


    ACT = {"swish": swish}


    class Block(nn.Module):
        def __init__(self, name):
            super().__init__()
            self.act = ACT[name]

        def forward(self, x):
            return self.act(x)


    model = torch.compile(Block("swish"))
    """
    assert set(reached(source)) == {"swish"}


def test_nothing_is_followed_when_no_value_is_known() -> None:
    source = PROCESSORS + """
    class Attention(nn.Module):
        def __init__(self, processor):
            super().__init__()
            self.processor = processor

        def forward(self, x):
            return self.processor(self, x)


    model = torch.compile(Attention(None))
    """
    assert reached(source) == {}


def test_method_called_on_self_in_a_base_class_runs_each_subclass_override() -> None:
    source = """
    import torch
    from torch import nn


    class Augmentation(nn.Module):
        def forward(self, x):
            return self.apply_transform(x)

        def apply_transform(self, x):
            return x


    class Rain(Augmentation):
        def apply_transform(self, x):
            print("rain")
            return x


    class Snow(Augmentation):
        def apply_transform(self, x):
            print("snow")
            return x


    class Unrelated(nn.Module):
        def apply_transform(self, x):
            print("unrelated")
            return x


    model = torch.compile(Rain())
    """
    found = reached(source)
    assert set(found) == {"rain", "snow"}
    assert found["snow"].region is not None
    assert "self.apply_transform (Snow.apply_transform)" in found["snow"].region.describe()


def test_an_instance_made_and_called_in_one_expression_runs_its_call() -> None:
    """``Helper(...)(x)``: the new instance's ``__call__`` (MONAI's ``DiceHelper(...)(y_pred=..., y=...)``)."""
    found = reached("""
        import torch


        class Helper:
            def __init__(self, scale):
                print("constructor")
                self.scale = scale

            def __call__(self, x):
                print("called")
                return x * self.scale


        class Other:
            def __call__(self, x):
                print("other")
                return x


        @torch.compile
        def step(x):
            return Helper(2)(x)
    """)
    assert set(found) == {"called", "constructor"}  # Dynamo traces ``Helper(2)``'s ``__init__`` too
    assert "Helper.__call__" in found["called"].region.chain[-1].function
    assert "Helper.__init__" in found["constructor"].region.chain[-1].function


def test_a_method_called_on_an_instance_of_a_class_picked_from_a_registry() -> None:
    """``solver = SOLVERS[method](...)`` then ``solver.integrate(t)`` (torchdiffeq's ``odeint``): the method of
    each class the registry holds runs, found through the classes' bases; a class the registry does not
    hold is not reached."""
    source = """
    import torch


    class Solver:
        def integrate(self, t):
            print("base")
            return t


    class Euler(Solver):
        pass


    class Adaptive(Solver):
        def integrate(self, t):
            print("adaptive")
            return t


    class Unlisted(Solver):
        def integrate(self, t):
            print("unlisted")
            return t


    SOLVERS = {"euler": Euler, "dopri5": Adaptive}


    @torch.compile
    def odeint(t: torch.Tensor, method: str) -> torch.Tensor:
        solver = SOLVERS[method](rtol=1e-3)
        return solver.integrate(t)
    """
    assert set(reached(source)) == {"base", "adaptive"}


CALLBACKS = """
    import torch


    def at_recall(p, r):
        print("default")
        return p


    def at_precision(p, r):
        print("passed")
        return r


    def never_passed(p, r):
        print("unused")
        return p


    def compute(p, r, reduce_fn=at_recall):
        return reduce_fn(p, r)
"""


def test_a_called_parameter_runs_its_default_and_every_function_callers_pass_for_it() -> None:
    source = CALLBACKS + """
    @torch.compile
    def run(p, r):
        return compute(p, r) + compute(p, r, reduce_fn=at_precision)
    """
    found = reached(source)
    assert set(found) == {"default", "passed"}
    assert all(f.confidence is Confidence.LIKELY for f in found.values())
    last = found["passed"].region.chain[-1]
    assert (last.function, last.via) == ("at_precision", "reduce_fn")


def test_a_called_parameter_takes_what_any_caller_in_the_tree_passes_by_position_as_setters_do() -> None:
    source = CALLBACKS + """
    @torch.compile
    def run(p, r):
        return compute(p, r)


    def elsewhere(p, r):
        return compute(p, r, never_passed)
    """
    assert set(reached(source)) == {"default", "unused"}
    assert "unused" not in reached(CALLBACKS + """
    @torch.compile
    def run(p, r):
        return compute(p, r)
    """)


CONSTRUCTED = """
import torch
from torch import nn


class Solver:
    def __init__(self, x, **unused):
        print("unused options")
        self.steps = int(x.sum().item())


class Base:
    def __init__(self, x):
        print("base constructor")
        self.x = x


class Derived(Base):
    pass


class Scaled(nn.Module):
    def __init__(self, n):
        super().__init__()
        self.weight = nn.Parameter(torch.ones(n))

    def forward(self, x):
        return x * self.weight


SOLVERS = {"plain": Solver}


@torch.compile(backend="eager")
def run(x):
    solver = SOLVERS["plain"](x, extra=1)
    inherited = Derived(x)
    scaled = Scaled(4)
    return scaled(x) * solver.steps + inherited.x


run(torch.randn(4))
"""


def test_a_class_constructed_in_compiled_code_has_its_constructor_compiled() -> None:
    """``Solver(...)``, through a registry too, runs ``Solver.__init__`` under Dynamo; a class with no
    ``__init__`` of its own runs its base's."""
    lines = CONSTRUCTED.splitlines()
    findings = lint_source(CONSTRUCTED, "case.py", Config(select=("DYN2", "DYN101", "DYN503")))
    flagged = {(f.code, lines[f.start.line - 1].strip()) for f in findings}
    assert flagged == {
        ("DYN201", 'print("unused options")'), ("DYN101", "self.steps = int(x.sum().item())"),
        ("DYN201", 'print("base constructor")'), ("DYN503", "self.weight = nn.Parameter(torch.ones(n))"),
    }


@pytest.mark.torch
def test_dynamo_breaks_in_the_constructors_of_classes_built_in_compiled_code() -> None:
    from conftest import run_snippets

    result = run_snippets([{"id": "constructed", "source": CONSTRUCTED}])["constructed"]
    assert result["error"] is None
    broken = {brk["line"] for brk in result["breaks"]}
    findings = lint_source(CONSTRUCTED, "case.py", Config(select=("DYN2", "DYN101", "DYN503")))
    assert {f.start.line for f in findings} <= broken


BY_NAME = """
    import torch
    from torch import nn


    class ExactStrategy:
        def exact_prediction(self, x):
            print("exact")
            return x


    class LinearStrategy:
        def exact_prediction(self, x):
            print("linear")
            return x


    class Other:
        def reshape(self, x):
            print("reshape")
            return x

        def items(self):
            print("items")
            return []


    class Model(nn.Module):
        def __init__(self, strategy):
            super().__init__()
            self.strategy = strategy

        def forward(self, x, helper):
            out = self.strategy.exact_prediction(x)
            out = helper.reshape(out)
            helper.items()
            return out

    compiled = torch.compile(Model(ExactStrategy()))
"""


def test_a_method_on_a_value_of_unknown_class_runs_each_method_of_that_name_in_the_tree() -> None:
    found = reached(BY_NAME)
    assert set(found) == {"exact", "linear"}
    assert all(f.confidence is Confidence.LIKELY for f in found.values())
    assert found["exact"].region is not None
    assert found["exact"].region.describe().endswith("Model.forward -> self.strategy.exact_prediction (ExactStrategy.exact_prediction)")


def test_a_method_name_a_tensor_or_a_builtin_container_has_is_not_resolved_by_name() -> None:
    # ``helper.reshape`` may be a tensor's, ``helper.items`` a dict's: neither ``Other`` method is reached.
    assert "reshape" not in reached(BY_NAME) and "items" not in reached(BY_NAME)


def test_a_name_defined_by_too_many_classes_is_not_followed() -> None:
    classes = "".join(f"""
    class Strategy{i}:
        def exact_prediction(self, x):
            print("s{i}")
            return x
""" for i in range(program._MAX_BY_NAME))  # with BY_NAME's own, past the limit
    assert {"exact", "linear"} <= set(reached(BY_NAME))
    # Only the class the tree itself passes to ``Model`` is left: ``Model(ExactStrategy())``.
    assert set(reached(BY_NAME + classes)) == {"exact"}


def test_an_autograd_function_applied_in_compiled_code_has_its_forward_compiled() -> None:
    found = reached("""
    import torch
    from torch.autograd import Function


    class Scale(Function):
        @staticmethod
        def forward(ctx, x):
            print("forward")
            return x * 2

        @staticmethod
        def backward(ctx, grad):
            return grad * 2


    class NotAFunction:
        @staticmethod
        def apply(x):
            return x

        @staticmethod
        def forward(ctx, x):
            print("plain")
            return x


    @torch.compile
    def run(x):
        return Scale.apply(x) + NotAFunction.apply(x)
    """)
    assert set(found) == {"forward"}
    assert found["forward"].confidence is Confidence.CERTAIN


def test_an_autograd_functions_backward_is_likely_compiled_with_its_apply() -> None:
    """Measured on torch 2.13: with an input that requires grad, Dynamo traces ``backward`` while it traces
    ``Square.apply(x)`` and the ``print`` in it breaks (GB0059); under ``no_grad`` it is not traced. So the
    finding is likely, and names the ``apply`` call it comes through."""
    found = reached("""
    import torch


    class Square(torch.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x)
            return x * x

        @staticmethod
        def backward(ctx, grad):
            (x,) = ctx.saved_tensors
            print("backward")
            return 2 * x * grad


    class Unapplied(torch.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x

        @staticmethod
        def backward(ctx, grad):
            print("unapplied")
            return grad


    @torch.compile
    def run(x):
        return Square.apply(x) + 1
    """)
    assert set(found) == {"backward"}
    assert found["backward"].confidence is Confidence.LIKELY
    assert found["backward"].region is not None
    assert found["backward"].region.describe().endswith("run -> Square.apply (Square.backward)")


def test_a_property_read_in_compiled_code_has_its_getter_compiled() -> None:
    found = reached("""
    import functools

    import torch
    from torch import nn


    class Dist:
        @property
        def variance(self):
            print("variance")
            return 1

        @functools.cached_property
        def stddev(self):
            print("stddev")
            return 1

        def unread(self):
            print("method")
            return 1


    class Model(nn.Module):
        @property
        def scale(self):
            print("scale")
            return 2

        @property
        def unused(self):
            print("unused")
            return 3

        def forward(self, x, dist):
            return x * self.scale + dist.variance + dist.stddev + len([dist.unread])

    compiled = torch.compile(Model())
    """)
    assert set(found) == {"scale", "variance", "stddev"}
    assert found["scale"].confidence is Confidence.CERTAIN  # ``self.scale``: the class is known
    assert found["variance"].confidence is Confidence.LIKELY  # ``dist``'s class is not: found by name


def test_a_call_of_a_decorated_function_runs_the_wrapper_its_decorator_defines() -> None:
    found = reached("""
    import functools

    import torch


    def deprecated_arg(name):
        def decorator(fn):
            @functools.wraps(fn)
            def wrapper(*args, **kwargs):
                print("wrapper")
                return fn(*args, **kwargs)
            return wrapper
        return decorator


    def traced(fn):
        def inner(*args):
            print("inner")
            return fn(*args)
        return inner


    def unused_decorator(fn):
        def never(*args):
            print("never")
            return fn(*args)
        return never


    @deprecated_arg("old")
    def scale(x):
        return x * 2


    @traced
    def shift(x):
        return x + 1


    @torch.compile
    def run(x):
        return shift(scale(x))
    """)
    assert set(found) == {"wrapper", "inner"}


def test_a_lightning_module_is_a_module_whose_forward_is_compiled() -> None:
    found = reached("""
    import lightning.pytorch as pl
    from some_framework import Base


    class Forecaster(pl.LightningModule):
        def forward(self, x):
            print("lightning")
            return x


    class Plain(Base):
        def forward(self, x):
            print("unknown base")
            return x
    """)
    assert set(found) == {"lightning"}
    assert found["lightning"].confidence is Confidence.LIKELY  # no compile site: as any module's forward


def test_a_class_deriving_from_a_subscripted_generic_module_is_a_module() -> None:
    # pykeen: ``class TransEInteraction(NormBasedInteraction[FloatTensor, FloatTensor, FloatTensor])``.
    found = reached("""
    from typing import Generic, TypeVar

    import torch
    from torch import nn

    H = TypeVar("H")


    class Interaction(nn.Module, Generic[H]):
        def forward(self, h):
            raise NotImplementedError


    class NormBased(Interaction[H]):
        pass


    class TransE(NormBased[torch.Tensor]):
        def forward(self, h):
            print("generic base")
            return h


    class Box(Generic[H]):
        def forward(self, h):
            print("not a module")
            return h
    """)
    assert set(found) == {"generic base"}


def test_a_compiled_torchmetrics_metric_runs_its_update_and_compute() -> None:
    found = reached("""
    import torch
    from torchmetrics import Metric


    class Error(Metric):
        def update(self, preds, target):
            print("update")

        def compute(self):
            print("compute")

        def reset_extra(self):
            print("never called")


    metric = torch.compile(Error())
    """)
    assert set(found) == {"update", "compute"}


def test_an_attribute_given_a_bound_method_of_the_same_object_runs_that_method_and_its_overrides() -> None:
    found = reached("""
    import torch
    from torch import nn


    class PairLoss(nn.Module):
        def __init__(self, on_matrix):
            super().__init__()
            self.loss_method = self.matrix_loss if on_matrix else self.pair_loss

        def forward(self, x):
            return self.loss_method(x)

        def matrix_loss(self, x):
            print("matrix")

        def pair_loss(self, x):
            print("pair")

        def unused(self, x):
            print("unused")


    class Circle(PairLoss):
        def pair_loss(self, x):
            print("override")


    model = torch.compile(Circle(True))
    """)
    assert set(found) == {"matrix", "pair", "override"}
    assert found["matrix"].region is not None
    assert found["matrix"].region.describe().endswith("forward -> self.loss_method (PairLoss.matrix_loss)")


def test_a_local_given_a_bound_method_of_the_same_object_runs_that_method() -> None:
    # denoising-diffusion-pytorch's ``sample``. Measured on torch 2.13 (CPU): compiled with ``ddim=False`` the
    # print of ``p_sample_loop`` breaks (GB0059), with ``ddim=True`` that of ``ddim_sample``.
    found = reached("""
    import torch
    from torch import nn


    class Diffusion(nn.Module):
        def __init__(self, ddim):
            super().__init__()
            self.ddim = ddim

        def p_sample_loop(self, x):
            print("loop")
            return x

        def ddim_sample(self, x):
            print("ddim")
            return x

        def unused(self, x):
            print("unused")
            return x

        def sample(self, x):
            sample_fn = self.p_sample_loop if not self.ddim else self.ddim_sample
            return sample_fn(x)


    diffusion = Diffusion(False)
    fast = torch.compile(diffusion.sample)
    """)
    assert set(found) == {"loop", "ddim"}
    assert all(f.confidence is Confidence.LIKELY for f in found.values())


def test_calling_a_class_built_by_a_metaclass_of_the_tree_runs_the_metaclass_call() -> None:
    # pyro's ``DistributionMeta``. Measured on torch 2.13: both prints break, the metaclass's first.
    found = reached("""
    import torch


    class Meta(type):
        def __call__(cls, *args, **kwargs):
            print("meta")
            return super().__call__(*args, **kwargs)


    class Dist(metaclass=Meta):
        def __init__(self, x):
            print("init")
            self.x = x


    class Normal(Dist):
        pass


    @torch.compile
    def f(x):
        return Normal(x).x
    """)
    assert set(found) == {"meta", "init"}


def test_a_name_bound_to_what_a_wrapper_factory_returns_runs_the_wrapper_when_called() -> None:
    # pyro's ``_param = effectful(get_param, type="param")``.
    found = reached("""
    import functools

    import torch


    def effectful(fn=None, type=None):
        if fn is None:
            return functools.partial(effectful, type=type)

        @functools.wraps(fn)
        def _fn(*args, **kwargs):
            print("wrapped")
            return fn(*args, **kwargs)

        return _fn


    def unrelated():
        def inner():
            print("never")
        return inner


    _param = effectful(len, type="param")


    @torch.compile
    def f(x):
        return _param(x)
    """)
    assert set(found) == {"wrapped"}


def test_an_attribute_holding_an_annotated_constructor_argument_runs_the_declared_class_and_its_subclasses() -> None:
    # ``sample`` is a method of more classes than a call by name may reach: only the annotation decides.
    others = "".join(f"""
    class Other{i}:
        def sample(self, x):
            print("other")
            return x
    """ for i in range(14))
    source = """
    import torch
    from torch import nn


    class Estimator(nn.Module):
        def sample(self, x):
            print("base")
            return x

        def forward(self, x):
            print("base forward")
            return x


    class Categorical(Estimator):
        def sample(self, x):
            print("categorical")
            return x


    class Unrelated(nn.Module):
        def sample(self, x):
            print("unrelated")
            return x

        def forward(self, x):
            print("unrelated forward")
            return x
    """ + others + """

    class Mixed(nn.Module):
        def __init__(self, discrete: Estimator, head: Estimator, plain) -> None:
            super().__init__()
            self.discrete = discrete
            self.head = head
            self.plain = plain
            self.other = other  # a union: not declared as one class

        def forward(self, x):
            return self.discrete.sample(x) + self.head(x) + self.plain.sample(x) + self.other.sample(x)


    @torch.compile
    def run(model: Mixed, x):
        return model(x)
    """
    found = reached(source)
    # ``Unrelated.forward`` runs too, at likely, as every ``forward`` of an ``nn.Module`` subclass does
    assert set(found) - {"unrelated forward"} == {"base", "categorical", "base forward"}
    chain = found["categorical"].region.describe() if found["categorical"].region else ""
    assert chain.endswith("Mixed.forward -> self.discrete.sample (Categorical.sample)"), chain
    assert found["categorical"].confidence is Confidence.LIKELY
    assert found["base forward"].region is not None
    assert found["base forward"].region.describe().endswith("Mixed.forward -> self.head (Estimator.forward)")


DECORATED = """
    import torch
    from torch import nn


    def eval_decorator(fn):
        def inner(self, *args, **kwargs):
            was_training = self.training
            self.eval()
            out = fn(self, *args, **kwargs)
            self.train(was_training)
            return out
        return inner


    class Wrapper(nn.Module):
        @eval_decorator
        def generate(self, x):
            print("generate")
            return x

        @eval_decorator
        def beam_search(self, x):
            print("beam search")
            return x
"""


def test_a_decorators_inner_function_compiled_itself_runs_each_function_it_decorates() -> None:
    # What ``torch.compile(wrapper.generate)`` traces first is ``inner``'s code: the declaration names it.
    config = Config(select=("DYN201",), compiled=("case:eval_decorator.<locals>.inner",))
    text = textwrap.dedent(DECORATED).splitlines()
    found = {text[f.start.line - 1].split('"')[1]: f for f in lint_source(textwrap.dedent(DECORATED), "case.py", config)}
    assert set(found) == {"generate", "beam search"}
    assert found["generate"].confidence is Confidence.LIKELY
    assert found["generate"].region is not None
    assert found["generate"].region.describe().endswith("eval_decorator.inner -> fn (Wrapper.generate)")


def test_a_decorated_method_called_in_compiled_code_does_not_run_the_others_its_decorator_wraps() -> None:
    source = DECORATED + """

    @torch.compile
    def run(model: Wrapper, x):
        return model.generate(x)
    """
    assert set(reached(source)) == {"generate"}


LOCAL_REGISTRY = """
    import torch
    from torch import nn


    def get_method(kind, methods, method):
        if isinstance(method, str):
            return methods[method.lower()]
        return method


    def rk4(x):
        print("rk4")
        return x


    def euler(x):
        print("euler")
        return x


    def midpoint(x):
        print("midpoint")
        return x


    def unused(x):
        print("unused")
        return x


    class Cubic:
        def __call__(self, x):
            print("cubic")
            return x


    class Linear:
        def __call__(self, x):
            print("linear")
            return x


    class Interp:
        def __init__(self, method="cubic"):
            methods = {"cubic": Cubic, "linear": Linear}
            cls = get_method("interp", methods, method)
            self.obj = cls()

        def __call__(self, x):
            return self.obj(x)
"""


def test_a_helper_handed_a_local_dict_of_callables_returns_one_of_them() -> None:
    """xitorch's ``get_method(name, methods, method)``, measured on torch 2.13: Dynamo traces whichever
    value the helper picks from the local dict, a function called at once or a class whose instance is
    kept and called later; a function the dict does not hold is not reached."""
    source = LOCAL_REGISTRY + """
    class Model(nn.Module):
        def __init__(self):
            super().__init__()
            self.interp = Interp()

        def forward(self, x, method="rk4"):
            methods = {"rk4": rk4, "euler": euler}
            solver = get_method("solve", methods, method)
            return solver(x) + self.interp(x)


    model = torch.compile(Model())
    """
    found = reached(source)
    assert set(found) == {"rk4", "euler", "cubic", "linear"}
    assert found["cubic"].region is not None
    assert found["cubic"].region.describe().endswith("Interp.__call__ -> self.obj (Cubic.__call__)")


def test_a_local_dict_of_functions_indexed_or_read_with_get_and_called() -> None:
    source = LOCAL_REGISTRY + """
    @torch.compile
    def step(x, name):
        steps = {"rk4": rk4, "euler": euler}
        fallback = dict(midpoint=midpoint)
        return steps[name](x) + fallback.get(name)(x)
    """
    assert set(reached(source)) == {"rk4", "euler", "midpoint"}


def test_a_class_built_with_a_local_dict_is_not_taken_for_an_item_of_it() -> None:
    source = LOCAL_REGISTRY + """
    class Picker:
        def __init__(self, table):
            self.table = table

        def __call__(self, x):
            return x


    @torch.compile
    def step(x):
        table = {"rk4": rk4}
        picker = Picker(table)
        return picker(x)
    """
    assert set(reached(source)) == set()


def test_a_registry_picked_from_a_dict_literal_of_registries_holds_the_items_of_each() -> None:
    """xitorch's ``methods = {"minimizer": _OPT_METHODS, "rootfinder": _RF_METHODS}[alg_type]`` handed to
    ``get_method``: the function called may be any item of either module-level registry."""
    source = LOCAL_REGISTRY + """
    _OPT = {"rk4": rk4}
    _RF = {"euler": euler}


    @torch.compile
    def solve(x, alg, method):
        methods = {"minimizer": _OPT, "rootfinder": _RF}[alg]
        fn = get_method(alg, methods, method)
        return fn(x)
    """
    assert set(reached(source)) == {"rk4", "euler"}


def test_a_callback_handed_to_a_base_constructor_runs_where_the_base_calls_it() -> None:
    """ignite's ``EpochMetric(compute_fn)``: subclasses hand it a function or a lambda calling one through
    ``super().__init__(compute_fn=...)``, users through the constructor; ``compute()`` calls ``self.compute_fn``.
    A function no constructor call hands over is not run."""
    source = """
    import torch


    def kappa(y_pred, y, weights):
        print("kappa")
        return y_pred


    def plain(y_pred, y):
        print("plain")
        return y_pred


    def built(y_pred, y):
        print("built")
        return y_pred


    def unused(y_pred, y):
        print("unused")
        return y_pred


    class EpochMetric:
        def __init__(self, compute_fn, check=True):
            self.compute_fn = compute_fn

        def compute(self, y_pred, y):
            return self.compute_fn(y_pred, y)


    class Kappa(EpochMetric):
        def __init__(self, weights=None):
            super().__init__(compute_fn=lambda y_pred, y: kappa(y_pred, y, weights), check=False)


    class Plain(EpochMetric):
        def __init__(self):
            super().__init__(plain)


    METRICS = [Kappa(), Plain(), EpochMetric(built)]


    @torch.compile
    def run(y_pred, y):
        return [metric.compute(y_pred, y) for metric in METRICS]
    """
    assert set(reached(source)) == {"kappa", "plain", "built"}


HANDED_METHOD = """
    import torch


    class Cell(torch.nn.Module):
        def __init__(self, activation, state_fallback):
            super().__init__()
            self.activation = activation
            self.state_fallback = state_fallback

        def forward(self, x, state=None):
            state = state if state is not None else self.state_fallback(x)
            return self.activation(x, state)


    def step(x, state):
        return x + state


    class LeakyCell(Cell):
        def __init__(self):
            super().__init__(activation=step, state_fallback=self.initial_state)

        def initial_state(self, x):
            print("leaky state")
            return torch.zeros_like(x)

        def unused_state(self, x):
            print("unused state")
            return torch.zeros_like(x)


    class SpikingCell(LeakyCell):
        def initial_state(self, x):
            print("spiking state")
            return torch.ones_like(x)


    for cell in (LeakyCell(), SpikingCell()):
        torch.compile(cell, backend="eager")(torch.ones(2))
"""


def test_a_bound_method_handed_to_a_base_constructor_runs_where_the_base_calls_it() -> None:
    """norse's cells: ``super().__init__(state_fallback=self.initial_state)``, then the base's ``forward`` calls
    ``self.state_fallback(x)``. The method is the handing class's, found through its MRO, or an override of it in
    a class deriving from it; a method nobody hands over is not run."""
    assert set(reached(HANDED_METHOD)) == {"leaky state", "spiking state"}


@pytest.mark.torch
def test_dynamo_traces_a_bound_method_handed_to_a_base_constructor() -> None:
    from conftest import dynamo_break_lines

    assert dynamo_break_lines(textwrap.dedent(HANDED_METHOD)) == {f.start.line for f in lint(HANDED_METHOD)}


def test_a_super_call_that_hands_arguments_up_still_runs_the_bases_method() -> None:
    # Recording what ``super().__init__(...)`` hands up must not lose the call itself: the base's ``__init__`` and
    # ``super().forward(x)`` run (torchode's modules, built in compiled code, broke at their bases' constructors).
    source = """
    import torch
    from torch import nn


    def scale(x):
        return x * 2


    class Base(nn.Module):
        def __init__(self, fn):
            super().__init__()
            print("base init")
            self.fn = fn

        def forward(self, x):
            print("base forward")
            return self.fn(x)


    class Child(Base):
        def __init__(self):
            super().__init__(scale)

        def forward(self, x):
            return super().forward(x)


    @torch.compile
    def run(x):
        return Child()(x)
    """
    assert set(reached(source)) == {"base init", "base forward"}


ALIASED_APPLY = """
import torch


class Double(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        print("double forward")
        return x * 2

    @staticmethod
    def backward(ctx, grad):
        return grad * 2


class Halve(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        print("halve forward")
        return x / 2

    @staticmethod
    def backward(ctx, grad):
        return grad / 2


class Unused(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        print("unused forward")
        return x


def doubled(x):
    func = Double.apply
    return func(x)


def halved(x):
    function = Halve
    return function.apply(x)


torch.compile(doubled, backend="eager")(torch.ones(2))
torch.compile(halved, backend="eager")(torch.ones(2))
"""


def test_an_autograd_function_applied_through_a_local_runs_its_forward() -> None:
    """linear_operator's ``func = InvQuadLogdet.apply; func(...)`` and ``func = Solve; func.apply(...)``: the local
    names the ``apply`` (or the class), and calling it traces the ``forward`` as ``Double.apply(x)`` would."""
    found = reached(ALIASED_APPLY)
    assert set(found) == {"double forward", "halve forward"}
    assert [(f.region.chain[-1].function, f.region.chain[-1].via) for f in found.values()] == [
        ("Double.forward", "func"), ("Halve.forward", "function.apply")]


@pytest.mark.torch
def test_dynamo_traces_an_autograd_function_applied_through_a_local() -> None:
    from conftest import dynamo_break_lines

    assert dynamo_break_lines(textwrap.dedent(ALIASED_APPLY)) == {f.start.line for f in lint(ALIASED_APPLY)}


HELD_STRATEGY = """
import torch


class TrustRegion:
    def update(self, x):
        print("trust region")
        return x * 2


class Adaptive:
    def update(self, x):
        print("adaptive")
        return x / 2


class Constant:
    def update(self, x):
        print("constant")
        return x


class Optimizer(torch.nn.Module):
    def __init__(self, strategy=None):
        super().__init__()
        self.strategy = TrustRegion() if strategy is None else strategy

    def forward(self, x):
        return self.strategy.update(x)


torch.compile(Optimizer(), backend="eager")(torch.ones(2))
torch.compile(Optimizer(Adaptive()), backend="eager")(torch.ones(2))
"""


def test_a_method_of_an_attribute_runs_on_each_instance_it_is_given() -> None:
    """pypose's ``self.strategy = TrustRegion() if strategy is None else strategy``, then ``self.strategy.update(...)``:
    the method of the class built there, and of each instance a caller of the constructor passes; a class with a
    method of that name that no one stores there is not run."""
    found = reached(HELD_STRATEGY)
    assert set(found) == {"trust region", "adaptive"}
    assert {f.region.chain[-1].via for f in found.values()} == {"self.strategy.update"}


@pytest.mark.torch
def test_dynamo_traces_the_method_of_each_instance_an_attribute_is_given() -> None:
    from conftest import dynamo_break_lines

    assert dynamo_break_lines(textwrap.dedent(HELD_STRATEGY)) == {f.start.line for f in lint(HELD_STRATEGY)}


HELD_CLASS = """
import torch


class LogSemiring:
    @staticmethod
    def sum(x):
        print("log sum")
        return torch.logsumexp(x, -1)


class MaxSemiring:
    @staticmethod
    def sum(x):
        print("max sum")
        return x.amax(-1)


class SampledSemiring:
    @staticmethod
    def sum(x):
        print("sampled sum")
        return x.sum(-1)


class Chain:
    def __init__(self, semiring=LogSemiring):
        self.semiring = semiring

    def partition(self, x):
        return self.semiring.sum(x)


def run(x):
    return Chain().partition(x) + Chain(MaxSemiring).partition(x)


torch.compile(run, backend="eager")(torch.ones(3))
"""


def test_a_static_method_of_a_class_an_attribute_holds_runs() -> None:
    """torch_struct's ``self.semiring = semiring`` (a class: ``LinearChain(semiring=LogSemiring)``), then
    ``self.semiring.sum(...)``: the static method of the default class and of each class a constructor call of the
    tree passes; a class no one stores there is not run."""
    assert set(reached(HELD_CLASS)) == {"log sum", "max sum"}


@pytest.mark.torch
def test_dynamo_traces_the_static_method_of_each_class_an_attribute_holds() -> None:
    from conftest import dynamo_break_lines

    # The prints break, and so does each call of a method that breaks on a ``Chain`` built in the compiled code.
    found = lint_source(textwrap.dedent(HELD_CLASS), "case.py", Config(select=("DYN201", "DYN508")))
    assert dynamo_break_lines(textwrap.dedent(HELD_CLASS)) == {f.start.line for f in found}


UNWRAPPED = """
import functools

import torch


def log_usage(fn):
    @functools.wraps(fn)
    def wrapper(*args, **kwargs):
        return fn(*args, **kwargs)
    return wrapper


class Saliency:
    @log_usage
    def attribute(self, x):
        print("saliency")
        return x * 2


class NoiseTunnel:
    def __init__(self, method):
        self.method = method

    @log_usage
    def attribute(self, x):
        print("noise tunnel")
        return self.method.attribute.__wrapped__(self.method, x)


def run(x):
    tunnel = NoiseTunnel(Saliency())
    return tunnel.attribute.__wrapped__(tunnel, x)


torch.compile(run, backend="eager")(torch.ones(3))
"""


def test_a_call_through_wrapped_runs_the_function_the_decorator_wraps() -> None:
    """captum's ``nt.attribute.__wrapped__(nt, ...)``: the method under a ``functools.wraps`` decorator, called
    with its receiver handed in; and the same through ``super()``."""
    assert set(reached(UNWRAPPED)) == {"saliency", "noise tunnel"}
    through_super = """
    import torch


    class Base:
        def attribute(self, x):
            print("base")
            return x


    class Child(Base):
        def attribute(self, x):
            return super().attribute.__wrapped__(self, x)


    @torch.compile
    def run(x):
        return Child().attribute(x)
    """
    assert set(reached(through_super)) == {"base"}


@pytest.mark.torch
def test_dynamo_traces_the_function_a_call_through_wrapped_runs() -> None:
    from conftest import dynamo_break_lines

    found = lint_source(textwrap.dedent(UNWRAPPED), "case.py", Config(select=("DYN201", "DYN508")))
    assert dynamo_break_lines(textwrap.dedent(UNWRAPPED)) == {f.start.line for f in found}


PARAMETER_CLASS = """
import torch


class CGSubproblem:
    def __init__(self, x):
        self.x = x

    def solve(self, radius):
        print("cg")
        return self.x * radius


class ExactSubproblem:
    def __init__(self, x):
        self.x = x

    def solve(self, radius):
        print("exact")
        return self.x


def trust_region(x0, subproblem=None):
    m = subproblem(x0)
    return m.solve(1.0)


def minimize_cg(x0):
    return trust_region(x0, subproblem=CGSubproblem)


torch.compile(minimize_cg, backend="eager")(torch.ones(3))
"""


def test_a_method_of_an_object_built_from_a_class_a_parameter_names_runs() -> None:
    """torchmin's ``m = subproblem(x, closure)`` then ``m.solve(radius)``, ``subproblem`` given a class by each
    caller (``subproblem=CGSubproblem``): that class's method runs, not another class's of the same name."""
    assert set(reached(PARAMETER_CLASS)) == {"cg"}


@pytest.mark.torch
def test_dynamo_traces_the_method_of_an_object_built_from_a_class_a_parameter_names() -> None:
    from conftest import dynamo_break_lines

    # The print breaks, and the call of the method on the object built in the frame breaks again (DYN508).
    found = lint_source(textwrap.dedent(PARAMETER_CLASS), "case.py", Config(select=("DYN201", "DYN508")))
    assert dynamo_break_lines(textwrap.dedent(PARAMETER_CLASS)) == {f.start.line for f in found}


PYDANTIC_MODEL = """
import torch
from pydantic import BaseModel, ConfigDict, field_validator, model_validator


class Inputs(BaseModel):
    model_config = ConfigDict(arbitrary_types_allowed=True)
    event: torch.Tensor
    time: torch.Tensor

    @field_validator("event", mode="before")
    @classmethod
    def coerce_event(cls, v):
        print("event checked")
        return v

    @model_validator(mode="after")
    def check_shapes(self):
        print("shapes checked")
        return self

    def unused(self):
        print("unused")
        return self


def loss(event, time):
    inputs = Inputs(event=event, time=time)
    return (inputs.time * inputs.event).sum()


torch.compile(loss, backend="eager")(torch.ones(3), torch.ones(3))
"""


def test_building_a_pydantic_model_runs_its_validators() -> None:
    """torchsurv validates its inputs with pydantic models: building one runs each ``field_validator``
    (pydantic-core calls them), not the model's other methods, nor (as measured) a ``model_validator``."""
    assert set(reached(PYDANTIC_MODEL)) == {"event checked"}


@pytest.mark.torch
def test_dynamo_compiles_the_validators_a_pydantic_model_runs() -> None:
    from conftest import dynamo_break_lines

    # Dynamo breaks in pydantic's own ``__init__`` (another file), then compiles each validator as a frame.
    assert dynamo_break_lines(textwrap.dedent(PYDANTIC_MODEL)) >= {f.start.line for f in lint(PYDANTIC_MODEL)}


BRANCH_BUILT = """
import torch


class Jacobian:
    def setup(self, x0):
        return x0


class BroydenFirst(Jacobian):
    def setup(self, x0):
        print("broyden")
        return x0


class LinearMixing(Jacobian):
    def setup(self, x0):
        print("mixing")
        return x0


class Unused(Jacobian):
    def setup(self, x0):
        print("unused")
        return x0


def solve(x0, method):
    if method == "broyden1":
        jacobian = BroydenFirst()
    else:
        jacobian = LinearMixing()
    return jacobian.setup(x0)


compiled = torch.compile(solve, backend="eager")
compiled(torch.ones(2), "broyden1")
compiled(torch.ones(2), "linearmixing")
"""


def test_a_local_built_from_another_class_on_each_branch_runs_the_method_of_each() -> None:
    """xitorch's root solvers: ``jacobian = BroydenFirst(...)`` on one branch, ``LinearMixing(...)`` on another,
    then ``jacobian.setup(...)``: either class's method, not only the last one written."""
    assert set(reached(BRANCH_BUILT)) == {"broyden", "mixing"}


@pytest.mark.torch
def test_dynamo_traces_the_method_of_the_class_each_branch_builds() -> None:
    from conftest import dynamo_break_lines

    found = lint_source(textwrap.dedent(BRANCH_BUILT), "case.py", Config(select=("DYN201", "DYN508")))
    assert dynamo_break_lines(textwrap.dedent(BRANCH_BUILT)) == {f.start.line for f in found}
