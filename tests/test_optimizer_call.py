"""DYN509 ``optimizer-call``: which optimizers and calls are taken for ``torch.optim``'s.

What breaks was measured on torch 2.13 for every class of ``torch.optim`` (the page's Examples are
compiled again by the verify tests and the release matrix): construction and ``zero_grad()`` are skipped
functions, ``step()`` breaks for all but ``Muon`` (and ``SparseAdam``, not measurable on dense gradients).
These tests pin down how the rule knows an optimizer: by what built it, never by a method's name alone.
"""

from __future__ import annotations

import textwrap

import pytest

from dynalint.api import lint_source
from dynalint.checks.optimizer_call import optimizer_class
from dynalint.project.config import Config


def flagged(source: str) -> list[tuple[int, str]]:
    findings = lint_source(textwrap.dedent(source), "train.py", Config(select=("DYN509",)))
    return [(f.start.line, f.message.split("`")[1]) for f in findings]


def test_an_optimizer_is_known_by_its_constructor_under_any_import_path() -> None:
    assert optimizer_class("torch.optim.Adam") == "Adam"
    assert optimizer_class("torch.optim.adamw.AdamW") == "AdamW"
    assert optimizer_class("torch.optim.lr_scheduler.StepLR") is None  # a scheduler steps without breaking
    assert optimizer_class("torch.optim.Optimizer") is None  # the base class is subclassed, not built
    assert optimizer_class("torch.optim.swa_utils.AveragedModel") is None
    assert optimizer_class("mylib.optim.Adam") is None


def test_built_in_the_function_at_module_level_or_in_init() -> None:
    source = """
        import torch
        import torch.optim as optim
        from torch.optim import AdamW

        weights = torch.nn.Parameter(torch.randn(4, 1))
        GLOBAL = torch.optim.SGD([weights], lr=0.1)
        SCHEDULE = torch.optim.lr_scheduler.StepLR(GLOBAL, 3)

        class Trainer:
            def __init__(self, p):
                self.optimizer = AdamW([p])
                self.ema = object()

            @torch.compile
            def step(self, x):
                self.optimizer.zero_grad()
                self.ema.step()
                loss = (x * 2).sum()
                self.optimizer.step()
                SCHEDULE.step()
                return loss

        @torch.compile
        def fit(x, passed):
            local = optim.Adam([weights])
            local.step()
            passed.step()
            GLOBAL.zero_grad(set_to_none=True)
            return x
    """
    assert flagged(source) == [
        (17, "AdamW.zero_grad()"),
        (20, "AdamW.step()"),
        (21, "StepLR.step()"),
        (26, "torch.optim.Adam()"),
        (27, "Adam.step()"),
        (29, "SGD.zero_grad()"),
    ]  # not ``self.ema.step()`` nor an optimizer passed in as an argument; the scheduler's step is skipped too


def test_a_rebound_local_is_no_longer_an_optimizer_and_muon_steps_without_breaking() -> None:
    source = """
        import torch

        @torch.compile
        def fit(x, params):
            solver = torch.optim.SGD(params)
            solver = make_other()
            solver.step()
            muon = torch.optim.Muon(params)
            muon.step()
            muon.zero_grad()
            return x
    """
    assert flagged(source) == [(6, "torch.optim.SGD()"), (9, "torch.optim.Muon()"), (11, "Muon.zero_grad()")]


def test_eager_code_is_not_flagged() -> None:
    source = """
        import torch

        def train(model, batches):
            opt = torch.optim.Adam(model.parameters())
            for x in batches:
                opt.zero_grad()
                model(x).sum().backward()
                opt.step()
    """
    assert flagged(source) == []


def test_an_optimizer_declared_by_its_base_class_is_flagged_likely() -> None:
    """Measured on torch 2.13, an SGD passed in: ``opt.step()`` broke (GB0025) and ``opt.zero_grad()`` (GB0008)
    with ``opt: torch.optim.Optimizer``, and so did ``self.base.step()`` with ``base`` stored from such a
    parameter (schedulefree's wrappers). Likely: the base class does not say which optimizer it is. An
    undeclared one (``self.other``) is not followed."""
    source = textwrap.dedent("""\
        import torch
        from torch.optim import Optimizer


        class Wrapper:
            def __init__(self, base: Optimizer, other):
                self.base = base
                self.other = other

            def step(self):
                self.base.step()
                self.other.step()


        @torch.compile
        def train_step(model, x, opt: "torch.optim.Optimizer", wrapper: Wrapper):
            model(x).sum().backward()
            opt.step()
            opt.zero_grad()
            wrapper.step()
    """)
    found = lint_source(source, "train.py", Config(select=("DYN509",)))
    assert [(f.start.line, f.confidence.value) for f in found] == [(11, "likely"), (18, "likely"), (19, "likely")]


def test_an_unannotated_parameter_named_as_an_optimizer_is_likely_one() -> None:
    """torchensemble's ``_parallel_fit_per_epoch(train_loader, estimator, cur_lr, optimizer, ...)`` zeroes
    and steps it inside the compiled call: GB0008 and GB0025 there, as measured with an SGD passed in. A
    name that only contains the word (``optimizer_name``) is no optimizer."""
    source = textwrap.dedent("""\
        import torch


        @torch.compile
        def train_step(model, x, optimizer, base_optimizer, optimizer_name):
            optimizer.zero_grad()
            model(x).sum().backward()
            optimizer.step()
            base_optimizer.step()
            optimizer_name.step()
    """)
    found = lint_source(source, "train.py", Config(select=("DYN509",)))
    assert [(f.start.line, f.confidence.value) for f in found] == [(6, "likely"), (8, "likely"), (9, "likely")]


STORED_OPTIMIZER = """\
import torch


class Finder:
    def __init__(self, model, optimizer, optimizer_name="sgd", scaler=None):
        self.model = model
        self.optimizer = optimizer
        self.optimizer_name = optimizer_name
        self.scaler = scaler

    def step(self, x):
        self.optimizer.zero_grad()
        self.model(x).sum().backward()
        self.optimizer.step()
        if self.scaler is not None:
            self.scaler.step(self.optimizer)
        return x


model = torch.nn.Linear(2, 2)
finder = Finder(model, torch.optim.SGD(model.parameters(), lr=0.1))
torch.compile(finder.step, backend="eager")(torch.ones(2))
"""


def test_an_attribute_given_only_a_parameter_named_as_an_optimizer_is_likely_one() -> None:
    """torch-lr-finder's ``LRFinder`` keeps ``self.optimizer = optimizer`` and zeroes and steps it in its train
    step; ``self.optimizer_name`` and ``self.scaler`` are not optimizers."""
    found = lint_source(STORED_OPTIMIZER, "finder.py", Config(select=("DYN509",)))
    assert [(f.start.line, f.confidence.value) for f in found] == [(12, "likely"), (14, "likely")]


@pytest.mark.torch
def test_dynamo_breaks_where_an_attribute_given_an_optimizer_is_zeroed_and_stepped() -> None:
    from conftest import dynamo_break_lines

    found = lint_source(STORED_OPTIMIZER, "finder.py", Config(select=("DYN509",)))
    assert {12, 14} == {f.start.line for f in found} <= dynamo_break_lines(STORED_OPTIMIZER)


def test_a_step_after_the_frame_was_given_up_still_breaks_but_zero_grad_does_not() -> None:
    """Measured on torch 2.13: after a break in a loop's body gives the function up (here ``zero_grad()``,
    certain), Dynamo runs the rest eagerly, yet compiles ``step()``'s own frame, whose ``graph_break()`` breaks
    again (GB0025), while a later ``zero_grad()`` is a skipped frame and breaks no more (laplace's SWAG loop,
    with the optimizer bound by an annotated assignment)."""
    source = textwrap.dedent("""\
        import torch
        from torch.optim import Optimizer


        @torch.compile
        def fit(model, x):
            optimizer: Optimizer = torch.optim.SGD(list(model.parameters()), lr=0.1)
            for epoch in range(2):
                optimizer.zero_grad()
                model(x).sum().backward()
                optimizer.step()
                optimizer.zero_grad()
            return x
    """)
    found = lint_source(source, "swag.py", Config(select=("DYN509",)))
    assert [(f.start.line, f.message.split("`")[1]) for f in found] == [
        (7, "torch.optim.SGD()"), (9, "SGD.zero_grad()"), (11, "SGD.step()")]
    assert found[1].gives_up_frame and "line 12" in found[1].message and "line 11" not in found[1].message


def test_an_optimizer_built_from_a_generator_gives_the_function_up() -> None:
    """Measured on torch 2.13 (SGD, Adam, AdamW): built from ``model.parameters()`` (``params=`` too) or a generator
    expression, the optimizer consumes the generator, which Dynamo cannot rebuild to resume after the break
    (GB0467 or GB0008, then GB8335): nothing later in the function breaks but ``step()``. Built from a list, the
    function resumes and ``zero_grad()`` breaks again (GB0008)."""
    source = textwrap.dedent("""\
        import torch


        @torch.compile
        def from_generator(model, x):
            optimizer = torch.optim.Adam((p for p in model.parameters() if p.requires_grad))
            optimizer.zero_grad()
            optimizer.step()
            return x


        @torch.compile
        def from_list(model, x):
            optimizer = torch.optim.Adam(list(model.parameters()))
            optimizer.zero_grad()
            optimizer.step()
            return x
    """)
    found = lint_source(source, "fit.py", Config(select=("DYN509",)))
    assert [(f.start.line, f.gives_up_frame) for f in found] == [
        (6, True), (8, False), (14, False), (15, False), (16, False)]


def test_an_optimizer_class_passed_as_a_type_builds_an_optimizer() -> None:
    """laplace's ``marglik_training(..., optimizer_cls: Type[Optimizer] = Adam)`` builds with
    ``optimizer_cls(model.parameters(), **kwargs)`` inside the compiled call (GB0008 there on the ground-truth
    bench). ``type[Adam]`` says which optimizer: certain; the base class does not (Muon's step traces): likely."""
    source = textwrap.dedent("""\
        from typing import Optional, Type

        import torch
        from torch.optim import Adam, Optimizer


        @torch.compile
        def fit(model, x, optimizer_cls: Type[Optimizer] = Adam, adam: type[Adam] = Adam,
                maybe: Optional[Type[Optimizer]] = None, factory: type = Adam):
            optimizer = optimizer_cls(list(model.parameters()), lr=0.1)
            second = adam(list(model.parameters()))
            third = maybe(list(model.parameters()))
            fourth = factory(list(model.parameters()))
            optimizer.zero_grad()
            second.step()
            fourth.step()
            return third
    """)
    found = lint_source(source, "fit.py", Config(select=("DYN509",)))
    assert [(f.start.line, f.message.split("`")[1], f.confidence.value) for f in found] == [
        (10, "torch.optim.Optimizer()", "likely"), (11, "torch.optim.Adam()", "certain"),
        (12, "torch.optim.Optimizer()", "likely"), (14, "Optimizer.zero_grad()", "likely"),
        (15, "Adam.step()", "certain")]


def test_a_local_named_as_an_optimizer_made_by_a_factory_is_likely_one() -> None:
    """torchensemble's ``optimizer = set_module.set_optimizer(estimator, name)`` builds it with
    ``getattr(torch.optim, name)(...)``, then zeroes and steps it in the compiled fit (GB0008, GB0025 on the
    ground-truth bench), and its snapshot ensembles rebind it with ``optimizer = self._clip_lr(optimizer, lr)``. A
    local so named and made by a call is likely an optimizer, whoever's function made it: the tree's, a callable's
    the caller passed, or a lookup's (skorch's ``optimizer = getattr(self, name + "_")``). Not one a class builds
    (``Progress(...)``), nor ``optimizer_name``."""
    source = textwrap.dedent("""\
        import torch
        from rich.progress import Progress


        def set_optimizer(model, name):
            return getattr(torch.optim, name)(model.parameters())


        @torch.compile
        def fit(model, x, make):
            optimizer = set_optimizer(model, "Adam")
            made_optimizer = make(model)
            optimizer_name = set_optimizer(model, "SGD")
            bar_optimizer = Progress()
            optimizer.zero_grad()
            made_optimizer.step()
            optimizer_name.step()
            bar_optimizer.step()
            optimizer.step()
            return x


        class Ensemble:
            @torch.compile
            def fit(self, model, x):
                optimizer = set_optimizer(model, "Adam")
                optimizer = self._clip_lr(optimizer, 1e-6)
                optimizer.step()
                return x
    """)
    found = lint_source(source, "fit.py", Config(select=("DYN509",)))
    assert [(f.start.line, f.confidence.value) for f in found] == [
        (15, "likely"), (16, "likely"), (19, "likely"), (28, "likely")]


def test_an_attribute_named_as_an_optimizer_made_by_a_factory_is_likely_one() -> None:
    """poutyne's ``Model.__init__`` sets ``self.optimizer = get_optimizer(optimizer, self.network)``, a function
    that builds any optimizer from a name, and its compiled batch step zeroes and steps it (GB0008 and GB0025,
    measured on torch 2.13 with ``"SGD"``). An attribute so named and so set is likely an optimizer; one set by
    a function from outside the tree (``tqdm``) is not, nor one whose name says otherwise."""
    source = textwrap.dedent("""\
        import torch
        from tqdm import tqdm


        def get_optimizer(optimizer, network):
            if isinstance(optimizer, str):
                return getattr(torch.optim, optimizer)(network.parameters(), lr=0.1)
            return optimizer


        class Model:
            def __init__(self, network, optimizer):
                self.network = network
                self.optimizer = get_optimizer(optimizer, network)
                self.bar_optimizer = tqdm(range(3))
                self.optimizer_name = get_optimizer("SGD", network)

            @torch.compile
            def train_on_batch(self, x):
                self.optimizer.zero_grad()
                self.bar_optimizer.step()
                self.optimizer_name.step()
                loss = self.network(x).sum()
                self.optimizer.step()
                return loss
    """)
    found = lint_source(source, "model.py", Config(select=("DYN509",)))
    assert [(f.start.line, f.confidence.value) for f in found] == [(20, "likely"), (24, "likely")]


PROGRAM_FACTORY_ATTRIBUTE = """\
import torch


def get_optimizer(optimizer, network):
    if isinstance(optimizer, str):
        return getattr(torch.optim, optimizer)(network.parameters(), lr=0.1)
    return optimizer


class Model:
    def __init__(self, network, optimizer):
        self.network = network
        self.optimizer = get_optimizer(optimizer, network)

    def train_on_batch(self, x):
        self.optimizer.zero_grad()
        loss = self.network(x).sum()
        self.optimizer.step()
        return loss


model = Model(torch.nn.Linear(3, 3), "SGD")
torch.compile(model.train_on_batch, backend="eager")(torch.rand(2, 3))
"""


@pytest.mark.torch
def test_dynamo_breaks_where_an_attribute_made_by_a_factory_is_zeroed_and_stepped() -> None:
    """The attribute made by ``get_optimizer`` (poutyne's shape), run under Dynamo: ``zero_grad()`` breaks (GB0008)
    and ``step()`` breaks (GB0025), on the lines dynalint flags."""
    from conftest import dynamo_break_lines

    found = lint_source(PROGRAM_FACTORY_ATTRIBUTE, "fw.py", Config(select=("DYN509",)))
    assert {f.start.line for f in found} == dynamo_break_lines(PROGRAM_FACTORY_ATTRIBUTE) == {16, 18}


def test_a_closure_over_a_parameter_declared_an_optimizer_steps_it() -> None:
    """ignite's ``supervised_training_step(model, optimizer: torch.optim.Optimizer, ...)`` returns ``update``, which
    zeroes and steps the enclosing function's optimizer (GB0008 and GB0025 there on the ground-truth bench). A
    parameter of the closure itself, or a local of it, shadows the enclosing one."""
    source = textwrap.dedent("""\
        import torch


        def training_step(model, optimizer: torch.optim.Optimizer, loss_fn):
            @torch.compile
            def update(batch):
                optimizer.zero_grad()
                loss = loss_fn(model(batch))
                optimizer.step()
                return loss

            @torch.compile
            def shadowed(batch, optimizer: int):
                optimizer.step()
                return batch

            @torch.compile
            def rebound(batch):
                optimizer = loss_fn
                optimizer.step()
                return batch

            return update, shadowed, rebound
    """)
    found = lint_source(source, "engine.py", Config(select=("DYN509",)))
    assert [(f.start.line, f.confidence.value) for f in found] == [(7, "likely"), (9, "likely")]


def test_a_nested_function_sees_the_enclosing_functions_optimizer_unless_a_parameter_hides_it() -> None:
    source = textwrap.dedent("""\
        import torch


        @torch.compile
        def train(model, x):
            sgd = torch.optim.SGD(list(model.parameters()))

            def step():
                sgd.step()

            def other(sgd):
                sgd.step()

            step()
            other(x)
            return x
    """)
    found = lint_source(source, "nested.py", Config(select=("DYN509",)))
    assert [f.start.line for f in found] == [6, 9]


def test_learning_rate_schedulers_are_skipped_too() -> None:
    """Measured on torch 2.13: building ``StepLR`` / ``CosineAnnealingLR``, their ``step()``, ``get_last_lr()`` and
    ``get_lr()`` break (GB0008), while reading ``optimizer.param_groups[0]["lr"]`` traces (ignite's
    ``LRScheduler`` handler calls ``self.lr_scheduler.get_lr()``, its parameter declared a scheduler)."""
    source = textwrap.dedent("""\
        import torch
        from torch.optim.lr_scheduler import CosineAnnealingLR, LRScheduler

        opt = torch.optim.SGD([torch.nn.Parameter(torch.ones(1))], lr=0.1)
        sched = torch.optim.lr_scheduler.StepLR(opt, 1)


        class Handler:
            def __init__(self, lr_scheduler: LRScheduler):
                self.lr_scheduler = lr_scheduler
                self.cos = CosineAnnealingLR(opt, 10)

            @torch.compile
            def __call__(self, x):
                lrs = self.lr_scheduler.get_lr()
                self.cos.step()
                made = torch.optim.lr_scheduler.StepLR(opt, 1)
                lr = opt.param_groups[0]["lr"]
                return x * lrs[0] * lr * sched.get_last_lr()[0]
    """)
    found = lint_source(source, "handler.py", Config(select=("DYN509",)))
    assert [(f.start.line, f.message.split("`")[1], f.confidence.value) for f in found] == [
        (15, "LRScheduler.get_lr()", "likely"), (16, "CosineAnnealingLR.step()", "certain"),
        (17, "torch.optim.lr_scheduler.StepLR()", "certain"), (19, "StepLR.get_last_lr()", "certain")]


def test_a_generator_bound_to_a_local_or_wrapped_in_filter_gives_the_function_up_too() -> None:
    """Measured on torch 2.13: ``params = model.parameters()`` then ``SGD(params)``, and ``Adam(filter(f,
    model.parameters()))`` or ``map(...)``, break with GB8335 and run the rest eagerly; ``filter`` over a list, or
    ``iter`` of one, resumes (a later ``print`` broke again)."""
    source = textwrap.dedent("""\
        import torch


        @torch.compile
        def bound(model, x):
            params = model.parameters()
            optimizer = torch.optim.SGD(params)
            optimizer.zero_grad()
            return x


        @torch.compile
        def filtered(model, x):
            optimizer = torch.optim.Adam(filter(lambda p: p.requires_grad, model.parameters()))
            optimizer.zero_grad()
            return x


        @torch.compile
        def over_a_list(model, x):
            optimizer = torch.optim.Adam(filter(lambda p: p.requires_grad, list(model.parameters())))
            optimizer.zero_grad()
            return x
    """)
    found = lint_source(source, "fit.py", Config(select=("DYN509",)))
    assert [(f.start.line, f.gives_up_frame) for f in found] == [(7, True), (14, True), (21, False), (22, False)]


# Optimizers handed over by frameworks, known only by how they are named: an attribute of any object (avalanche's
# plugins zero ``strategy.optimizer``), an item of a collection named for them (skrl's ``self.optimizers[uid]``),
# the short names ``opt`` and ``optim`` (lightning's ``opt = self.optimizers()``), and a local that takes one.
HANDED_OVER = """\
import torch


class Strategy:
    def __init__(self, model):
        self.model = model
        self.optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
        self.optimizers = {"a": torch.optim.SGD(model.parameters(), lr=0.1)}


def after(strategy, x):
    loss = strategy.model(x).sum()
    strategy.optimizer.zero_grad()
    return loss


def per_agent(strategy, x):
    loss = strategy.model(x).sum()
    strategy.optimizers["a"].zero_grad()
    return loss


def with_opt(opt, model, x):
    loss = model(x).sum()
    opt.zero_grad()
    return loss


def module_zero(model, x):
    model.zero_grad()
    return model(x).sum()


def optim_local(model, x):
    optim = strategy.optimizer
    optim.zero_grad()
    return model(x).sum()


model = torch.nn.Linear(2, 2)
strategy = Strategy(model)
x = torch.rand(3, 2)
torch.compile(after, backend="eager")(strategy, x)
torch.compile(per_agent, backend="eager")(strategy, x)
torch.compile(with_opt, backend="eager")(strategy.optimizer, model, x)
torch.compile(module_zero, backend="eager")(model, x)
torch.compile(optim_local, backend="eager")(model, x)
"""


def test_optimizers_handed_over_are_known_by_their_names() -> None:
    findings = lint_source(HANDED_OVER, "plugins.py", Config(select=("DYN509",)))
    assert [(f.start.line, f.confidence.value) for f in findings] == [(13, "likely"), (19, "likely"), (25, "likely"),
                                                                      (36, "likely")]


def test_a_module_is_no_optimizer_and_a_description_of_one_is_none() -> None:
    """``model.zero_grad()`` traces (measured below); ``opt_kwargs`` / ``optim_cls`` describe an optimizer."""
    source = HANDED_OVER.replace("optim = strategy.optimizer\n", "optim = strategy.optimizer_cls\n")
    source = source.replace("def with_opt(opt, model, x):", "def with_opt(opt_kwargs, model, x):").replace(
        "    opt.zero_grad()", "    opt_kwargs.zero_grad()")
    assert [f.start.line for f in lint_source(source, "plugins.py", Config(select=("DYN509",)))] == [13, 19]


@pytest.mark.torch
def test_dynamo_breaks_where_optimizers_handed_over_are_zeroed() -> None:
    from conftest import dynamo_break_lines

    found = lint_source(HANDED_OVER, "plugins.py", Config(select=("DYN509",)))
    assert dynamo_break_lines(HANDED_OVER) == {f.start.line for f in found}


# Learning-rate schedulers handed over: made by a callable named as one (poutyne's ``self.torch_lr_scheduler(...)``),
# or named only ``scheduler`` and stepped as a learning-rate scheduler is (catalyst's and lightning's ``scheduler.
# step()``, a metric for ``ReduceLROnPlateau``). A sampler's ``step(model_output, t, sample)`` (diffusers') traces.
PROGRAM_HANDED_SCHEDULERS = """\
import torch


class SchedulerCallback:
    def __init__(self, scheduler_class, **kwargs):
        self.torch_lr_scheduler = scheduler_class
        self.kwargs = kwargs
        self.scheduler = None

    def on_train_begin(self, optimizer):
        self.scheduler = self.torch_lr_scheduler(optimizer, **self.kwargs)

    def on_epoch_end(self, x):
        self.scheduler.step()
        return x * 2


def scheduler_step(scheduler, x, metric=None):
    if metric is None:
        scheduler.step()
    else:
        scheduler.step(metric)
    return x + 1


class Sampler:
    def step(self, model_output, timestep, sample):
        return sample - 0.1 * model_output


class Pipeline:
    def __init__(self, scheduler):
        self.scheduler = scheduler

    def denoise(self, x):
        return self.scheduler.step(x * 0.5, 3, x)


weights = torch.nn.Parameter(torch.ones(2))
optimizer = torch.optim.SGD([weights], lr=0.1)
callback = SchedulerCallback(torch.optim.lr_scheduler.StepLR, step_size=2)
callback.on_train_begin(optimizer)
torch.compile(callback.on_epoch_end, backend="eager")(torch.ones(2))
torch.compile(scheduler_step, backend="eager")(torch.optim.lr_scheduler.StepLR(optimizer, step_size=2), torch.ones(2))
plateau = torch.optim.lr_scheduler.ReduceLROnPlateau(optimizer)
torch.compile(scheduler_step, backend="eager")(plateau, torch.ones(2), 0.5)
torch.compile(Pipeline(Sampler()).denoise, backend="eager")(torch.ones(2))
"""


def test_schedulers_handed_over_are_known_by_their_names_and_their_steps() -> None:
    findings = lint_source(PROGRAM_HANDED_SCHEDULERS, "callbacks.py", Config(select=("DYN509",)))
    assert [(f.start.line, f.confidence.value) for f in findings] == [(14, "likely"), (20, "likely"), (22, "likely")]


def test_a_scheduler_stepped_with_a_model_output_a_timestep_and_a_sample_is_a_sampler() -> None:
    assert "self.scheduler.step(x * 0.5, 3, x)" in PROGRAM_HANDED_SCHEDULERS.splitlines()[35]
    assert 36 not in {f.start.line for f in lint_source(PROGRAM_HANDED_SCHEDULERS, "callbacks.py",
                                                        Config(select=("DYN509",)))}


@pytest.mark.torch
def test_dynamo_breaks_where_schedulers_handed_over_are_stepped() -> None:
    from conftest import dynamo_break_lines

    found = lint_source(PROGRAM_HANDED_SCHEDULERS, "callbacks.py", Config(select=("DYN509",)))
    assert dynamo_break_lines(PROGRAM_HANDED_SCHEDULERS) == {f.start.line for f in found}


def test_a_tree_with_schedulers_of_its_own_does_not_take_a_plain_scheduler_for_torch_s() -> None:
    """mmengine defines ``_ParamScheduler`` with a ``step`` of its own (which traces) and steps ``scheduler.step()``
    over its runner's schedulers: in a tree with such a class, the name alone says nothing. A ``*Scheduler`` deriving
    from a ``torch.optim.lr_scheduler`` class (catalyst's ``BaseScheduler``) is a learning-rate scheduler and does not
    count."""
    own = PROGRAM_HANDED_SCHEDULERS.replace("class Sampler:", "class ParamScheduler:\n    def step(self):\n"
                                            "        return 0\n\n\nclass Sampler:")
    lines = {f.start.line for f in lint_source(own, "callbacks.py", Config(select=("DYN509",)))}
    assert lines == {14}
    derived = PROGRAM_HANDED_SCHEDULERS.replace(
        "class Sampler:", "class WarmupScheduler(torch.optim.lr_scheduler.LRScheduler):\n    def step(self):\n"
        "        return super().step()\n\n\nclass Sampler:")
    assert {f.start.line for f in lint_source(derived, "callbacks.py", Config(select=("DYN509",)))} == {14, 20, 22}
