"""DYN205 ``random-call``: host-side randomness and RNG state in compiled code. Page: ``rules/DYN205-random-call.md``.

Three families, each with its own look-alikes that do *not* break (measured on torch 2.13):
Python's ``random`` (Dynamo replays ``randint``, ``randrange`` and ``uniform``, and the same methods of a
``random.Random`` instance, but not ``random.random()`` or the other functions), NumPy's ``np.random``
(traced through ``torch._numpy``: only array-valued draws stay in the graph) and torch's global RNG
state (``torch.manual_seed`` and friends; ``torch.rand`` and the other sampling ops are fine). A
``torch.Generator`` object is a fourth: creating one breaks (GB0363), so does reseeding one
(``g.manual_seed(s)``, GB7650), and so does any sampling call given one (``torch.randn(n, generator=g)``,
``t.normal_(generator=g)``: GB0055, its argument has no graph form); ``generator=None`` is fine.
A generator is known by what built it: a module-level name, an attribute set in ``__init__``, or a local
of the function (``rng = np.random.default_rng(seed)``, then ``rng.choice(...)``: GB0156, measured).
"""

from __future__ import annotations

import libcst as cst

from dynalint.analysis.instances import constructed_by
from dynalint.analysis.qualified_names import dotted_name
from dynalint.analysis.tensor_method_names import TENSOR_METHOD_NAMES
from dynalint.lint.rule import LocalObjectRule
from dynalint.model.finding import Confidence

# ``random`` module functions that break (GB0007); ``randint``, ``randrange`` and ``uniform`` do not.
PYTHON_MODULE = frozenset(
    {"random", "gauss", "normalvariate", "lognormvariate", "vonmisesvariate", "gammavariate", "betavariate",
     "paretovariate", "weibullvariate", "expovariate", "triangular", "binomialvariate", "choice", "choices",
     "shuffle", "sample", "seed", "getstate", "setstate", "getrandbits", "randbytes"}
)
# Methods of a ``random.Random`` instance that break (GB0156); ``random``, ``randint``, ``randrange``,
# ``uniform``, ``seed``, ``getstate`` and ``setstate`` are traced.
PYTHON_INSTANCE = PYTHON_MODULE - {"random", "seed", "getstate", "setstate"}
# ``torch._numpy.random`` implements these; any other ``np.random`` function is unsupported (GB0294).
NUMPY_TRACED = frozenset({"seed", "shuffle", "rand", "randn", "random", "random_sample", "sample", "uniform",
                          "normal", "randint", "choice"})
NUMPY_SIZE_POSITION = {"rand": 0, "randn": 0, "random": 0, "random_sample": 0, "sample": 0, "uniform": 2,
                       "normal": 2, "randint": 2}
NUMPY_GENERATORS = frozenset({"numpy.random.default_rng", "numpy.random.RandomState", "numpy.random.Generator"})
TORCH_STATE = frozenset(
    {"torch.manual_seed", "torch.random.manual_seed", "torch.cuda.manual_seed", "torch.cuda.manual_seed_all",
     "torch.get_rng_state", "torch.set_rng_state", "torch.random.get_rng_state", "torch.random.set_rng_state",
     "torch.cuda.get_rng_state", "torch.cuda.set_rng_state", "torch.initial_seed", "torch.random.initial_seed",
     "torch.random.fork_rng",
     # the same functions through the module that defines them (torchattacks seeds ``torch.cuda.random``)
     "torch.cuda.random.manual_seed", "torch.cuda.random.manual_seed_all", "torch.cuda.random.get_rng_state",
     "torch.cuda.random.set_rng_state"}
)

TORCH_GENERATORS = frozenset({"torch.Generator", "torch._C.Generator"})
GENERATOR_RESEEDS = frozenset({"manual_seed"})  # measured; the generator's other methods are not claimed


class RandomCall(LocalObjectRule):
    code = "DYN205"
    name = "random-call"
    message = "`{call}` in compiled code breaks the graph: it {why}"
    help = "Sample with torch ops (`torch.rand`, `torch.randn_like`) inside, and seed or draw host values outside"
    gb_ids = ("GB0007", "GB0156", "GB0033", "GB0294", "GB0208", "GB0142", "GB0363", "GB7650", "GB0055")

    def visit_Call(self, node: cst.Call) -> None:
        resolved = self.context.resolve(node.func)
        why = self._why(node, resolved) if resolved else None
        if why is not None:
            self.report(node, call=f"{resolved}()", why=why)
            return
        why = self._instance_why(node)
        if why is not None:
            self.report(node, call=f"{dotted_name(node.func) or 'generator method'}()", why=why)
            return
        generator = self._generator_argument(node, resolved)
        if generator is not None:  # ``likely`` unless built here: a ``generator=None`` default passes None
            built = (self.locals.built(generator) or constructed_by(self.context, generator)) in TORCH_GENERATORS
            self.report(node, confidence=None if built else Confidence.LIKELY,
                        call=f"{resolved or dotted_name(node.func) or _method_name(node.func)}()",
                        why="samples with an explicit `torch.Generator`, which Dynamo cannot pass into the graph")

    def _why(self, node: cst.Call, resolved: str) -> str | None:
        module, _, function = resolved.rpartition(".")
        if module == "random" and function in PYTHON_MODULE:
            return "uses Python's global generator, which Dynamo does not trace"
        if resolved == "random.SystemRandom":
            return "creates an OS-backed generator that Dynamo cannot trace"
        if module == "numpy.random":
            return self._numpy_why(node, function)
        if resolved in TORCH_STATE:
            return "reads or resets torch's global RNG state, which Dynamo does not trace"
        if resolved in TORCH_GENERATORS:
            return "creates a `torch.Generator`, an object Dynamo cannot create inside the compiled region"
        return None

    def _numpy_why(self, node: cst.Call, function: str) -> str | None:
        if function not in NUMPY_TRACED:
            return "is a NumPy random function that Dynamo cannot trace"
        if function == "choice":
            return "reads tensor data while sampling"
        position = NUMPY_SIZE_POSITION.get(function)
        if position is not None and not _has_size(node, position):
            return "returns a Python scalar read from a traced sample"
        return None

    def _instance_why(self, node: cst.Call) -> str | None:
        func = node.func
        if not isinstance(func, cst.Attribute):
            return None
        built = self.locals.built(func.value) or constructed_by(self.context, func.value)
        if built == "random.Random" and func.attr.value in PYTHON_INSTANCE:
            return "is a method of a Python generator that Dynamo does not trace"
        if built in NUMPY_GENERATORS:
            return "is a method of a NumPy generator, which Dynamo cannot trace"
        if built in TORCH_GENERATORS and func.attr.value in GENERATOR_RESEEDS:
            return "reseeds a `torch.Generator`, a stateful operation Dynamo does not trace"
        return None

    def _generator_argument(self, node: cst.Call, resolved: str | None) -> cst.BaseExpression | None:
        """``torch.randn(n, generator=g)``, ``t.normal_(generator=g)``: the generator given to a torch call or
        to a tensor's method, other than ``None``. Not to any other call (``posterior.sample(generator=g)``
        may be the project's own function, which Dynamo traces into)."""
        func = node.func
        if resolved is None:
            if not (isinstance(func, cst.Attribute) and func.attr.value in TENSOR_METHOD_NAMES
                    and self.context.kind(func.value).may_be_tensor) or self.context.resolve_call(func):
                return None
        elif not resolved.startswith("torch."):
            return None
        for arg in node.args:
            # ``None`` written, or a parameter left to its ``None`` default by every compiled caller.
            if arg.keyword is not None and arg.keyword.value == "generator" and not (
                    isinstance(arg.value, cst.Name)
                    and (arg.value.value == "None" or arg.value.value in self.context.values.nones)):
                return arg.value
        return None


def _has_size(node: cst.Call, position: int) -> bool:
    """Whether the call passes a ``size`` (positionally, or as a keyword other than ``None``)."""
    if any(a.star for a in node.args):
        return True  # ``*dims``: assume an array
    positional = [a for a in node.args if a.keyword is None]
    for arg in node.args:
        if arg.keyword is not None and arg.keyword.value == "size":
            return not (isinstance(arg.value, cst.Name) and arg.value.value == "None")
    return len(positional) > position


def _method_name(func: cst.BaseExpression) -> str:
    """``Tensor.normal_`` for ``x.new_empty(n).normal_``: a method on a value with no dotted name."""
    return f"Tensor.{func.attr.value}" if isinstance(func, cst.Attribute) else "sampling call"
