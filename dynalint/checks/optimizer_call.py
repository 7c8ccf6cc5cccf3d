"""DYN509 ``optimizer-call``: a ``torch.optim`` optimizer or learning-rate scheduler built, stepped or zeroed in
compiled code.

Page: ``rules/DYN509-optimizer-call.md``. Measured on torch 2.13, every optimizer class of ``torch.optim``:
building one (``torch.optim.Adam(params, lr=...)``) sets an attribute Dynamo cannot (GB0467), or, in a frame
resumed after another break, calls a function Dynamo skips (GB0008); ``zero_grad()`` is a skipped function
(GB0008); ``step()`` of the optimizers whose step is wrapped for ``differentiable`` (SGD, Adam, AdamW,
RMSprop, ...) calls ``torch._dynamo.graph_break()`` before and after the update (GB0025), Adafactor's
step reads a tensor as a Python number (GB0124) and LBFGS's runs its closure and loop eagerly (GB0098).
``Muon.step()`` traced without a break, and ``SparseAdam`` needs sparse gradients: neither is flagged.

An optimizer is known by what built it: a call resolving to a ``torch.optim`` class, stored in a local
of the same function, a module-level name or an attribute set in ``__init__`` (``instances.constructed_by``).
An optimizer that arrives as an argument is followed when it is declared one (``base: torch.optim.Optimizer``,
a parameter, or ``self.base`` storing such a parameter; schedulefree's wrappers): ``likely``, since the
declared base class does not say which optimizer it is, and Muon's ``step()`` traces. So is an unannotated
parameter named as an optimizer (``optimizer``, ``base_optimizer``; torchensemble's per-epoch helpers), and an
attribute only ever given such a parameter (``self.optimizer = optimizer``; torch-lr-finder's ``LRFinder``), at
``likely`` confidence too (measured with an SGD passed in: ``step()`` GB0025, ``zero_grad()`` GB0008).
"""

from __future__ import annotations

import re

import libcst as cst

from dynalint.analysis.cst_walk import named_parameters
from dynalint.analysis.instances import class_of_parameter, constructed_by, handed_back, is_self, stored_from_parameter
from dynalint.analysis.qualified_names import dotted_name
from dynalint.lint.rule import LocalObjectRule, written_name
from dynalint.model.finding import Confidence

OPTIMIZERS = "torch.optim."
# ``step()`` that traced without a break (Muon) or could not be measured on dense gradients (SparseAdam).
STEP_TRACES = frozenset({"Muon", "SparseAdam"})
NOT_OPTIMIZERS = ("lr_scheduler", "swa_utils")
OPTIMIZER_BASES = frozenset({"torch.optim.Optimizer", "torch.optim.optimizer.Optimizer"})
ANY_OPTIMIZER = "Optimizer"  # what ``_held`` answers where which optimizer it is is not known
# What ``LocalConstructions`` holds for an unannotated parameter named as an optimizer, or a local of that name made
# by a call of unknown result (a ``likely`` one).
NAMED_OPTIMIZER = "<a parameter named as an optimizer>"
# A trailing underscore too: skorch names what it built ``optimizer_`` and ``lr_scheduler_``. And one word after it,
# naming what it trains (a GAN's two: torchgan's ``optimizer_generator`` / ``optimizer_discriminator``,
# ``optimizer_G``), unless the word says the value describes an optimizer rather than is one (``optimizer_name``,
# ``optimizer_cls``, ``optimizer_kwargs``, ``optimizer_idx``, ``optimizer_closure``).
_ABOUT_AN_OPTIMIZER = ("name|names|cls|class|type|kwargs|args|config|cfg|conf|params|param|state|states|idx|index|id|"
                       "key|keys|fn|func|factory|builder|closure|dict|spec|options|opts|init|lr|step|steps|list")
OPTIMIZER_NAME = re.compile(rf"(?:^|_)(?:optimi[sz]er|optim|opt)(?:_(?!(?:{_ABOUT_AN_OPTIMIZER})_?$)[A-Za-z0-9]+)?_?$")


# Module methods that return generators: an optimizer built from one consumes it, and Dynamo cannot rebuild the
# consumed generator to resume after the break (GB8335, measured on torch 2.13 for SGD, Adam and AdamW given
# ``model.parameters()``, as ``params=`` too, bound to a local first, wrapped in ``filter`` or ``map``, or a generator
# expression): the rest of the function runs eagerly. ``filter`` over a list, or ``iter`` of one, resumes.
GENERATOR_METHODS = frozenset({"parameters", "named_parameters", "buffers", "named_buffers", "modules", "children"})
LAZY_WRAPPERS = frozenset({"builtins.filter", "builtins.map"})
# What ``LocalConstructions`` holds for a local bound to a generator (``params = model.parameters()``).
GENERATOR = "<a generator>"


# Learning-rate schedulers: building one, ``step()``, ``get_last_lr()`` and ``get_lr()`` are functions Dynamo skips
# (GB0008, measured on torch 2.13 for StepLR and CosineAnnealingLR); reading ``optimizer.param_groups`` traces.
SCHEDULERS = "torch.optim.lr_scheduler."
SCHEDULER_BASE = "torch.optim.lr_scheduler.LRScheduler"
SCHEDULER_METHODS = frozenset({"step", "get_last_lr", "get_lr"})
# A value named as a learning-rate scheduler (skorch's ``lr_scheduler.step(score)``, torchtnt's ``self.lr_scheduler``)
# is likely one. Only so named: diffusers' ``noise_scheduler.step(...)`` is a sampler of the tree, which traces.
SCHEDULER_NAME = re.compile(r"(?:^|_)lr_?scheduler_?$")
# A value named only ``scheduler`` is as often a diffusion sampler, whose ``step`` takes the model's output, the
# timestep and the sample (diffusers' ``self.scheduler.step(noise_pred, t, latents)``, which traces), as a
# learning-rate scheduler, whose ``step`` takes nothing, a metric or an epoch (catalyst's ``scheduler.step()``,
# poutyne's ``self.scheduler.step(logs[self.monitor])``, lightning's ``scheduler.step(epoch=...)``): it is taken for
# one only at such a ``step``, or at ``get_last_lr()`` / ``get_lr()``, which samplers do not have.
PLAIN_SCHEDULER_NAME = re.compile(r"^_*sched(?:uler)?_?$")
_LR_STEP_KEYWORDS = frozenset({"epoch", "metrics"})
# The mixed-precision loss scaler: ``scale(loss)``, ``step(optimizer)``, ``unscale_(optimizer)`` and ``update()`` are
# functions Dynamo skips (GB0008, measured on torch 2.13 for ``torch.amp.GradScaler("cpu")``; skrl steps its
# optimizers this way).
GRAD_SCALERS = frozenset({"torch.amp.GradScaler", "torch.amp.grad_scaler.GradScaler", "torch.cuda.amp.GradScaler",
                          "torch.cpu.amp.GradScaler"})
GRAD_SCALER_METHODS = frozenset({"scale", "step", "unscale_", "update", "get_scale"})
SCALER_NAME = re.compile(r"(?:^|_)(?:grad|amp|loss)_?scaler$")
# A local or parameter named only ``scaler`` (coqui's trainer steps ``scaler`` typed ``"AMPScaler"``) may be a feature
# scaler: it is taken for the loss scaler at the calls only that one takes, ``unscale_(...)``, ``get_scale()``,
# ``update()`` and ``step(optimizer)``, given a value named as an optimizer. Not ``self.scaler``: an optional one that
# ``__init__`` stores from a parameter (torch-lr-finder's) is left alone.
PLAIN_SCALER_NAME = re.compile(r"^_*scaler$")
# What a call of a value named as an optimizer builds: an optimizer instance is not callable, so ``optimizer(params,
# lr=...)`` (coqui's ``optimizer = getattr(torch.optim, name)``), ``self.optimizer(params=[x])`` (art's attacks hold
# the class they are given) or ``optim_klass([x])`` builds one. Only the plain names, with a word for a class after
# them: ``opt_fn`` or ``opt_model`` (what ``torch.compile`` returned) are not.
OPTIMIZER_CLASS_NAME = re.compile(r"^_*(?:[a-z0-9]+_)?(?:optimi[sz]er|optim)(?:_?(?:cls|class|klass|type|ctor))?$")


def _named_optimizer_key(owner: cst.BaseExpression) -> bool:
    """``state[OPTIMIZER]`` / ``state[torchbearer.OPTIMIZER]``: the item of a state dict under a key named as the
    optimizer (torchbearer's ``state[torchbearer.OPTIMIZER].step(...)``)."""
    if not (isinstance(owner, cst.Subscript) and len(owner.slice) == 1
            and isinstance(owner.slice[0].slice, cst.Index)):
        return False
    key = owner.slice[0].slice.value
    name = key.attr.value if isinstance(key, cst.Attribute) else key.value if isinstance(key, cst.Name) else ""
    return bool(OPTIMIZER_NAME.search(name.lower()))


def _a_loss_scaler_call(call: cst.Call) -> bool:
    """``unscale_(...)``, ``get_scale()``, ``update()`` or ``step(optimizer)`` (its one argument named as an optimizer):
    what a loss scaler takes and a feature scaler (``fit``, ``transform``) does not."""
    assert isinstance(call.func, cst.Attribute)
    method = call.func.attr.value
    if method == "step":
        return (len(call.args) == 1 and call.args[0].keyword is None
                and bool(OPTIMIZER_NAME.search(written_name(call.args[0].value).lower())))
    return method == "unscale_" or (method in ("get_scale", "update") and not call.args)


def _an_lr_scheduler_call(call: cst.Call) -> bool:
    """``get_last_lr()`` / ``get_lr()``, or a ``step`` given at most one positional argument (a metric) and no keyword
    but ``epoch`` or ``metrics``: what a learning-rate scheduler's methods take, and a sampler's ``step`` does not."""
    assert isinstance(call.func, cst.Attribute)
    if call.func.attr.value != "step":
        return True
    positional = [a for a in call.args if a.keyword is None and not a.star]
    keywords = {a.keyword.value for a in call.args if a.keyword is not None}
    return len(positional) <= 1 and keywords <= _LR_STEP_KEYWORDS and not any(a.star for a in call.args)


def scheduler_class(qualified: str | None) -> str | None:
    """``torch.optim.lr_scheduler.StepLR`` for that class (the bases ``LRScheduler`` and ``_LRScheduler`` too)."""
    if not qualified or not qualified.startswith(SCHEDULERS):
        return None
    name = qualified[len(SCHEDULERS):]
    if "." in name or not name.lstrip("_")[:1].isupper():
        return None
    return SCHEDULER_BASE if name in ("LRScheduler", "_LRScheduler") else qualified


def optimizer_class(qualified: str | None) -> str | None:
    """``Adam`` for ``torch.optim.Adam`` / ``torch.optim.adam.Adam``; ``None`` for anything else."""
    if not qualified or not qualified.startswith(OPTIMIZERS):
        return None
    parts = qualified[len(OPTIMIZERS):].split(".")
    if parts[0] in NOT_OPTIMIZERS or not parts[-1][:1].isupper() or parts[-1] == "Optimizer":
        return None
    return parts[-1]


class OptimizerCall(LocalObjectRule):
    code = "DYN509"
    name = "optimizer-call"
    message = ("`{call}` in compiled code breaks the graph: Dynamo skips building, zeroing and stepping "
               "torch.optim's optimizers and learning-rate schedulers, and the AMP loss scaler's steps")
    help = ("Compile the model's forward and loss, and build, zero and step the optimizer and its scheduler outside "
            "the compiled code")
    gb_ids = ("GB0467", "GB0008", "GB0025", "GB8335")
    _own_schedulers: bool | None = None  # ``_schedulers_of_its_own``, computed once per rule instance

    def visit_FunctionDef(self, node: cst.FunctionDef) -> None:
        super().visit_FunctionDef(node)
        self.declare_named_parameters(node, OPTIMIZER_NAME, NAMED_OPTIMIZER)
        program = self.context.program
        for param in named_parameters(node.params):
            # ``optimizer: Optimizable``, a ``Protocol`` of the tree (lightning's precision plugins): whatever the
            # caller passes, a torch optimizer as much as any; named as one, it is likely one
            name = param.name.value
            declared = [program.canonical(c) or c for c in self.context.declared(param.name)]
            if (param.annotation is not None and OPTIMIZER_NAME.search(name) and declared
                    and all(map(program.is_protocol, declared))):
                self.locals.declare(name, NAMED_OPTIMIZER)

    def visit_Assign(self, node: cst.Assign) -> None:
        """``params = model.parameters()``: a local generator. ``optimizer = set_optimizer(model, name)``: a local
        named as an optimizer, made by a function of the tree (a factory, which may build it with a dynamic
        ``getattr(torch.optim, name)``) or a method of ``self``, is likely one; so is a local that takes an attribute
        or an item known as an optimizer only by its name (``optim = strategy.optimizer``)."""
        super().visit_Assign(node)
        names = [target.target.value for target in node.targets if isinstance(target.target, cst.Name)]
        if self._holds_generator(node.value):
            for name in names:
                self.locals.declare(name, GENERATOR)
        elif isinstance(node.value, cst.Call) and not self.builds_a_class(node.value):
            for name in names:
                if OPTIMIZER_NAME.search(name) and not self._held(cst.Name(name)):
                    self.locals.declare(name, NAMED_OPTIMIZER)
        elif isinstance(node.value, (cst.Attribute, cst.Subscript)) and self._held(node.value) == ANY_OPTIMIZER:
            for name in names:
                if not self._held(cst.Name(name)):
                    self.locals.declare(name, NAMED_OPTIMIZER)

    def visit_Call(self, node: cst.Call) -> None:
        resolved = self.context.resolve(node.func)
        if scheduler_class(resolved):
            self.report(node, gb_ids=("GB0008",), pattern="lr_scheduler", call=f"{resolved}()")
            return
        # ``optimizer_cls(params)`` with ``optimizer_cls: type[Adam]``, or the base class (``likely``).
        built = optimizer_class(resolved) or _optimizer_or_base(class_of_parameter(self.context, node.func))
        if built:
            from_generator = any(self._holds_generator(a.value) for a in node.args)
            self.report(node, confidence=Confidence.LIKELY if built == ANY_OPTIMIZER else None,
                        call=f"torch.optim.{built}()", gives_up_frame=from_generator)
            return
        if self._builds_a_named_optimizer(node):
            from_generator = any(self._holds_generator(a.value) for a in node.args)
            self.report(node, confidence=Confidence.LIKELY, call=f"{dotted_name(node.func)}(...)",
                        gives_up_frame=from_generator)
            return
        func = node.func
        if not isinstance(func, cst.Attribute):
            return
        receiver = handed_back(self.context, func.value)
        func = func.with_changes(value=receiver) if receiver is not func.value else func
        scaler = self._grad_scaler(func.value, node) if func.attr.value in GRAD_SCALER_METHODS else None
        if scaler is not None:
            # ``scaler.step(optimizer)`` runs the optimizer's ``step()``, whose own frame Dynamo compiles and breaks
            # in (GB0025) even where the caller runs eagerly after a break in a loop (measured on torch 2.13).
            stepped = func.attr.value == "step"
            self.report(node, gb_ids=("GB0008", "GB0025") if stepped else ("GB0008",), pattern="grad_scaler",
                        call=f"GradScaler.{func.attr.value}()", breaks_in_callee_frame=stepped, confidence=scaler)
            return
        if func.attr.value in SCHEDULER_METHODS:
            scheduler = self._scheduler(func.value, node)
            if scheduler:
                self.report(node, confidence=Confidence.LIKELY if scheduler == SCHEDULER_BASE else None, gb_ids=("GB0008",),
                            pattern="lr_scheduler", call=f"{scheduler.rpartition('.')[2]}.{func.attr.value}()")
                return
        if func.attr.value not in ("step", "zero_grad"):
            return
        held = self._held(func.value)
        # ``step()`` breaks inside its own frame, which Dynamo compiles even where the caller runs eagerly.
        stepped = func.attr.value == "step"
        if held and not (stepped and held in STEP_TRACES):
            # Any optimizer (declared as the base class, or named as one): which one is not known, and Muon's
            # ``step()`` traces.
            self.report(node, confidence=Confidence.LIKELY if held == ANY_OPTIMIZER else None,
                        call=f"{held}.{func.attr.value}()", breaks_in_callee_frame=stepped)

    def _grad_scaler(self, owner: cst.BaseExpression, call: cst.Call) -> Confidence | None:
        """Whether ``owner`` is the AMP loss scaler: built as one (the rule's own confidence), declared one (``self.
        grad_scaler: Optional[GradScaler]``), or named as one and built by no class of the tree (torchtnt's
        ``grad_scaler = self.grad_scaler``, given by a factory; a plain ``scaler`` at a call only a loss scaler takes):
        ``likely``. ``None`` otherwise."""
        built = self.locals.built(owner) or constructed_by(self.context, owner)
        if built in GRAD_SCALERS:
            return self.confidence
        if any(name in GRAD_SCALERS for name in self.context.declared(owner)):
            return Confidence.LIKELY
        if self.named_and_unbuilt(owner, SCALER_NAME, built):
            return Confidence.LIKELY
        plain = isinstance(owner, cst.Name) and self.named_and_unbuilt(owner, PLAIN_SCALER_NAME, built)
        return Confidence.LIKELY if plain and _a_loss_scaler_call(call) else None

    def _scheduler(self, owner: cst.BaseExpression, call: cst.Call) -> str | None:
        """The scheduler class that built ``owner``; ``LRScheduler`` (``likely``) where it is only declared one, named
        as one, or made by a callable named as one (poutyne's ``self.torch_lr_scheduler(optimizer)``, deepspeed's
        ``self.client_lr_scheduler(...)``, classes handed in)."""
        made = self.locals.built(owner) or constructed_by(self.context, owner)
        built = scheduler_class(made)
        if built:
            return built
        if any(scheduler_class(name) for name in self.context.declared(owner)):
            return SCHEDULER_BASE
        if made is not None and SCHEDULER_NAME.search(made.rpartition(".")[2].lower()):
            return SCHEDULER_BASE
        if (self.named_and_unbuilt(owner, PLAIN_SCHEDULER_NAME, made) and _an_lr_scheduler_call(call)
                and not self._schedulers_of_its_own()):
            return SCHEDULER_BASE
        return SCHEDULER_BASE if self.named_and_unbuilt(owner, SCHEDULER_NAME, made) else None

    def _schedulers_of_its_own(self) -> bool:
        """Whether the tree defines scheduler classes of its own, named ``*Scheduler`` with a ``step`` and deriving
        from no ``torch.optim.lr_scheduler`` class (mmengine's ``_ParamScheduler``, whose ``step`` traces): a value
        named only ``scheduler`` may then be one of them, so its name does not make it a learning-rate scheduler."""
        if self._own_schedulers is None:
            program = self.context.program
            self._own_schedulers = any(
                qualified.rpartition(".")[2].endswith("Scheduler")
                and not any(scheduler_class(program.canonical(base)) for current in program.mro(qualified)
                            for base in program.classes[current].definition.bases)
                for qualified in program.classes_with_method("step"))
        return self._own_schedulers

    def _builds_a_named_optimizer(self, call: cst.Call) -> bool:
        """``optimizer(params, lr=lr)``, ``self.optimizer(params=[adv])``: a call of a local or of an attribute of
        ``self`` named as an optimizer (``OPTIMIZER_CLASS_NAME``), given the parameters (first, or ``params=``), that no
        function or class of the tree is known to be, nor to have built."""
        func = call.func
        if isinstance(func, cst.Attribute) and is_self(func.value):
            name = func.attr.value
        elif isinstance(func, cst.Name):
            name = func.value
        else:
            return False
        given = any(a.keyword is None and not a.star for a in call.args[:1]) or any(
            a.keyword is not None and a.keyword.value == "params" for a in call.args)
        if not (given and OPTIMIZER_CLASS_NAME.search(name)) or self.context.resolve_call(func) is not None:
            return False
        built = self.locals.built(func) or constructed_by(self.context, func)
        return built in (None, NAMED_OPTIMIZER, "builtins.getattr") or optimizer_class(built) is not None

    def _held(self, owner: cst.BaseExpression) -> str | None:
        """The optimizer class that built ``owner``; ``Optimizer`` where it is only declared one, or named as one."""
        built = self.locals.built(owner)
        held = _optimizer_or_base(built or constructed_by(self.context, owner))
        if held is not None:
            return held
        declared = self.context.declared(owner)
        named = (built == NAMED_OPTIMIZER or stored_from_parameter(self.context, owner, OPTIMIZER_NAME)
                 or self._named_optimizer_attribute(owner) or _named_optimizer_key(owner))
        return ANY_OPTIMIZER if named or any(n in OPTIMIZER_BASES for n in declared) else None

    def _named_optimizer_attribute(self, owner: cst.BaseExpression) -> bool:
        """``self.optimizer`` that no class of the tree is known to build: given by a factory (poutyne's
        ``self.optimizer = get_optimizer(optimizer, self.network)``), by the caller, by a framework's ``prepare``
        (pytorch-accelerated's ``self.optimizer = prepared_components[1]``) or from outside the tree: the attribute
        counterpart of a local so named, ``likely`` as that is."""
        return isinstance(owner, (cst.Attribute, cst.Subscript)) and self.named_and_unbuilt(
            owner, OPTIMIZER_NAME, constructed_by(self.context, owner))

    def _holds_generator(self, node: cst.BaseExpression) -> bool:
        """A generator, or a lazy ``filter`` / ``map`` over one: what Dynamo cannot rebuild once consumed."""
        if isinstance(node, cst.GeneratorExp):
            return True
        if isinstance(node, cst.Name):
            return self.locals.built(node) == GENERATOR
        if not isinstance(node, cst.Call):
            return False
        if isinstance(node.func, cst.Attribute) and node.func.attr.value in GENERATOR_METHODS:
            return True
        wrapper = self.context.resolve(node.func)
        return wrapper in LAZY_WRAPPERS and any(self._holds_generator(a.value) for a in node.args)


def _optimizer_or_base(qualified: str | None) -> str | None:
    """``optimizer_class``, and ``Optimizer`` for the base class (what a ``type[Optimizer]`` builds)."""
    return ANY_OPTIMIZER if qualified in OPTIMIZER_BASES else optimizer_class(qualified)
