"""The differential tester's generator: small, valid model modules built from a grammar of what model code does.

    from grammar import generate
    program = generate(seed)          # a Program: source, the probe's lines, its construct label

Each program is one module: an ``nn.Module`` whose ``forward`` is compiled with ``torch.compile(model)``,
with a submodule that returns a tuple, a plain helper object holding tensors, and module-level helper
functions. ``forward`` holds a few setup statements (values every construct may use) and one **probe**:
a *value* (a tensor of float, int or bool dtype, a Python value known at trace time, tensor data, a
compile-time guard, a container), a *derivation* of it (``.item()``, ``and``/``or``/``not``, a
conditional expression, a comparison, a mask, a reduction, a call through a helper or submodule), and a
*use* (``if``, ``while``, a conditional expression, ``assert`` with or without a literal or computed
message, ``range()``, a factory, ``view``, list indexing, indexing with a 0-d tensor, logging, a helper
whose parameter a later line shows to be a tensor), placed in the plain body, in a loop or in a ``try`` block. Names are neutral
(``v3``) or deliberately misleading (an int called ``mask``), so a name is never evidence.

The construct label (``use/value/placement``) is what the confusion tables group by. The same seed
always gives the same program.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field

HEADER = '''\
import logging

import torch
import torch.nn as nn

logger = logging.getLogger("difftest")


def is_tracing():
    return torch.jit.is_scripting() or torch.compiler.is_compiling()


def positive(t):
    return t.sum() > 0


def shape_of(t):
    return t.shape[0] + 1


class Spans:
    def __init__(self, t):
        self.longest = t.max()
        self.count = 3


class Gate(nn.Module):
    def forward(self, h):
        return h.argmax(-1), h.softmax(-1)


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.proj = nn.Linear(8, 8)
        self.gate = Gate()
        self.spans = Spans(torch.tensor([2, 3]))
        self.scale = 2
        self.under_trace = False

    def forward(self, x, idx, mask, n, flag):
        y = x.clone()
'''

FOOTER = '''\
        return y


model = Model().eval()
compiled = torch.compile(model, backend="eager")
with torch.no_grad():
    for flag in (False, True):  # both sides of every test on the flag: a static linter cannot know which runs
        compiled(torch.randn(4, 8), torch.tensor([0, 1, 2, 3]), torch.tensor([True, False, True, True]), 3, flag)
'''

INDENT = " " * 8


@dataclass
class Program:
    seed: int
    source: str
    construct: str  # use/value/placement
    probe_lines: list[int] = field(default_factory=list)  # 1-based lines of the probe statements


# -- values: (expression, kind) ------------------------------------------------------------------
# Kinds: "cond_data" a 0-d tensor or bool tensor whose truth needs its data; "py_bool" a Python bool
# known at trace time; "guard" true under Dynamo at trace time; "container" a Python container;
# "int_meta" a Python int known at trace time; "int_data" an int computed from tensor data;
# "int_tensor" a 0-d integer tensor; "bool_tensor" a bool tensor of several elements (a mask).
VALUES: dict[str, list[str]] = {
    "cond_data": [
        "x.sum() > 0", "x.any()", "mask.any()", "torch.isfinite(x).all()", "(x > 0).all()", "idx.eq(1).any()",
        "x.max() > 1", "positive(x)", "self.proj(x).mean() < 0", "x.norm() > 0",
    ],
    "py_bool": [
        "flag", "self.training", "x.dtype == torch.float32", "x.shape[0] > 2", "x.dim() == 2", "n > 2",
        "x.is_cuda", "len(idx) == 4", "self.scale > 1", "x.numel() > 0",
    ],
    "guard": [
        "torch.compiler.is_compiling()", "torch._dynamo.is_compiling()", "is_tracing()",
        "torch.jit.is_scripting() or torch.compiler.is_compiling()", "flag or torch.compiler.is_compiling()",
    ],
    "container": ["[x, x * 2]", "(x, y)", "{'a': x}", "[x]", "[]", "[1, 2]", "(n, n)"],
    "int_meta": ["x.shape[0]", "x.size(1)", "x.dim()", "len(x)", "n", "self.scale", "n * 2 + x.shape[0]",
                 "shape_of(x)", "self.spans.count", "x.numel() // 8"],
    "int_data": ["int(idx.max()) + 1", "int(x.abs().sum() > 0) + 1", "idx.max().item() + 1",
                 "int(self.spans.longest)", "len(x[mask])", "int(mask.sum())"],
    "int_tensor": ["idx.max() + 1", "mask.sum()", "self.spans.longest", "(idx > 1).sum() + 1"],
    "bool_tensor": ["mask", "x[:, 0] > 0", "~mask", "mask & (idx > 0)", "idx.eq(2)", "(x > 0).any(-1)"],
}

NAMES_MISLEADING = ["mask", "text_mask", "is_valid", "keep", "attention_mask_2", "sel"]


def _name(rng: random.Random, counter: list[int]) -> str:
    counter[0] += 1
    if rng.random() < 0.2:
        return f"{rng.choice(NAMES_MISLEADING)}_{counter[0]}"
    return f"v{counter[0]}"


def _value(rng: random.Random, kind: str, setup: list[str], counter: list[int], bind: bool) -> str:
    """An expression of ``kind``; with ``bind``, assigned to a fresh name in ``setup`` first (one more
    step for the analysis to follow)."""
    expression = rng.choice(VALUES[kind])
    if not bind:
        return expression
    name = _name(rng, counter)
    setup.append(f"{name} = {expression}")
    return name


# -- uses: each returns the probe's lines (relative to the body), given a value of a kind --------
def _cond_kind(rng: random.Random) -> str:
    return rng.choice(["cond_data", "py_bool", "guard", "container", "cond_data", "bool_tensor_any"])


def _cond(rng: random.Random, setup: list[str], counter: list[int]) -> tuple[str, str]:
    """A condition and the label of its value: plain, or combined with ``and``/``or``/``not``, or folded
    through a conditional expression."""
    kind = _cond_kind(rng)
    if kind == "bool_tensor_any":
        kind = "cond_data"
    value = _value(rng, kind, setup, counter, rng.random() < 0.5)
    shape = rng.choice(["plain", "plain", "not", "or_left", "or_right", "and_left", "and_right", "bound_or"])
    other_kind = rng.choice(["py_bool", "cond_data", "guard"])
    other = _value(rng, other_kind, setup, counter, rng.random() < 0.3)
    if shape == "not":
        return f"not {value}", f"not-{kind}"
    if shape == "or_left":
        return f"{value} or {other}", f"{kind}-or-{other_kind}"
    if shape == "or_right":
        return f"{other} or {value}", f"{other_kind}-or-{kind}"
    if shape == "and_left":
        return f"{value} and {other}", f"{kind}-and-{other_kind}"
    if shape == "and_right":
        return f"{other} and {value}", f"{other_kind}-and-{kind}"
    if shape == "bound_or":  # the combination bound to a name first, tested later
        name = _name(rng, counter)
        setup.append(f"{name} = {other} or {value}")
        return name, f"bound-{other_kind}-or-{kind}"
    return value, kind


def use_if(rng: random.Random, setup: list[str], counter: list[int]) -> tuple[list[str], str]:
    cond, label = _cond(rng, setup, counter)
    return [f"if {cond}:", "    y = y + 1"], f"if/{label}"


def use_ternary(rng: random.Random, setup: list[str], counter: list[int]) -> tuple[list[str], str]:
    cond, label = _cond(rng, setup, counter)
    return [f"y = y + 1 if {cond} else y - 1"], f"ternary/{label}"


def use_boolop_assign(rng: random.Random, setup: list[str], counter: list[int]) -> tuple[list[str], str]:
    cond, label = _cond(rng, setup, counter)
    name = _name(rng, counter)
    return [f"{name} = {cond}", f"y = y * 1"], f"boolop-assign/{label}"


def use_while(rng: random.Random, setup: list[str], counter: list[int]) -> tuple[list[str], str]:
    if rng.random() < 0.5:
        container = rng.choice(["[x, x * 2]", "[x]", "[]"])
        name = _name(rng, counter)
        setup.append(f"{name} = {container}")
        return [f"while {name}:", f"    y = y + {name}.pop()"], "while/container"
    cond, label = _cond(rng, setup, counter)
    counter_name = _name(rng, counter)
    setup.append(f"{counter_name} = 0")
    return [f"while ({cond}) and {counter_name} < 2:", f"    {counter_name} += 1"], f"while/{label}"


def use_assert(rng: random.Random, setup: list[str], counter: list[int]) -> tuple[list[str], str]:
    # Not ``assert [x]``: Dynamo 2.13 fails on it with its own TypeError (GB0112), not code anyone writes.
    if rng.random() < 0.3:  # a plain assert on tensor data, always true for the inputs the programs get
        value = rng.choice(
            ["torch.isfinite(x).all()", "(x == x).all()", "mask.any()", "(idx >= 0).all()", "not (x != x).any()"])
        return [f"assert {value}"], "assert/plain-tensor"
    kind = rng.choice(["cond_data", "py_bool"])
    value = _value(rng, kind, setup, counter, rng.random() < 0.5)
    if rng.random() < 0.5:  # a message: Dynamo keeps the assert in the graph only for a literal one
        shape, message = rng.choice([
            ("literal", "'bad input'"), ("literal", "'bad ' 'input'"), ("format", "'bad {}'.format(n)"),
            ("fstring", "f'bad {n}'"), ("percent", "'bad %d' % n"), ("name", "logger.name"),
        ])
        plain = rng.choice(["torch.isfinite(x).all()", "(idx >= 0).all()", "mask.any()", f"({value}) or True"])
        return [f"assert {plain}, {message}"], f"assert/message-{shape}"
    value = f"({value}) or True"  # never fails: a failing assert raises, and Dynamo breaks on the raise
    return [f"assert {value}"], f"assert/{kind}"


def use_container_truth(rng: random.Random, setup: list[str], counter: list[int]) -> tuple[list[str], str]:
    container = _value(rng, "container", setup, counter, True)
    shape = rng.choice(["if", "ternary", "not"])
    if shape == "if":
        return [f"if {container}:", "    y = y + 1"], "container-truth/if"
    if shape == "not":
        return [f"if not {container}:", "    y = y - 1"], "container-truth/not"
    return [f"y = y + 1 if {container} else y"], "container-truth/ternary"


def _int(rng: random.Random, setup: list[str], counter: list[int]) -> tuple[str, str]:
    kind = rng.choice(["int_meta", "int_meta", "int_data", "int_tensor"])
    value = _value(rng, kind, setup, counter, rng.random() < 0.5)
    if rng.random() < 0.3:  # a conditional expression with a tensor on one arm
        other = rng.choice(VALUES["int_meta"])
        test = rng.choice(["torch.is_tensor(x)", "flag", "n > 2"])
        return f"({value} if {test} else {other})", f"{kind}-ternary"
    return value, kind


def use_range(rng: random.Random, setup: list[str], counter: list[int]) -> tuple[list[str], str]:
    value, label = _int(rng, setup, counter)
    return [f"for i in range({value}):", "    y = y + i"], f"range/{label}"


def use_factory(rng: random.Random, setup: list[str], counter: list[int]) -> tuple[list[str], str]:
    value, label = _int(rng, setup, counter)
    factory = rng.choice(["torch.arange({v})", "torch.zeros({v})", "torch.full(({v},), 1.0)", "torch.ones({v}, 2)"])
    name = _name(rng, counter)
    return [f"{name} = {factory.format(v=value)}", f"y = y + {name}.sum()"], f"factory/{label}"


def use_view(rng: random.Random, setup: list[str], counter: list[int]) -> tuple[list[str], str]:
    kind = rng.choice(["int_meta", "int_data"])
    size = rng.choice({"int_meta": ["x.shape[0]", "x.size(0) * 2", "n + 1", "self.scale * 2"],
                       "int_data": ["int(idx.max()) + 1", "int(mask.sum())"]}[kind])
    name = _name(rng, counter)
    if kind == "int_meta":
        return [f"{name} = y.reshape({size}, -1)", f"y = {name}.reshape(4, 8)"], f"view/{kind}"
    return [f"{name} = y.reshape(-1)[:{size}]", "y = y * 1"], f"view/{kind}"


def use_index(rng: random.Random, setup: list[str], counter: list[int]) -> tuple[list[str], str]:
    shape = rng.choice(["mask", "int_tensor", "slice_tensor", "slice_meta", "list_meta", "list_data", "gate",
                        "scalar_tensor", "scalar_tensor"])
    name = _name(rng, counter)
    if shape == "scalar_tensor":  # a 0-d integer tensor as the index (read through ``__index__``), or not 0-d
        position, label = rng.choice([
            ("idx.argmax()", "0d"), ("torch.argmax(x[:, 0])", "0d"), ("mask.sum() - 1", "0d"),
            ("torch.count_nonzero(mask) - 1", "0d"), ("idx.max()", "0d"), ("idx.argmin() + 1", "0d"),
            ("idx.argmax(dim=0, keepdim=True)", "1d"), ("idx.argsort()", "1d"), ("idx.max(0).indices", "0d-dim"),
            ("torch.searchsorted(idx, torch.tensor(2))", "0d"), ("torch.tensor(1)", "0d"),
            ("torch.searchsorted(idx, torch.tensor([2]))", "1d"),
        ])
        if rng.random() < 0.5:
            bound = _name(rng, counter)
            setup.append(f"{bound} = {position}")
            position = bound
        return [f"{name} = x[{position}]", "y = y + 1"], f"index/scalar-tensor-{label}"
    if shape == "mask":
        mask = _value(rng, "bool_tensor", setup, counter, rng.random() < 0.5)
        return [f"{name} = x[{mask}]", "y = y * 1"], "index/mask"
    if shape == "gate":
        chosen, weights = _name(rng, counter), _name(rng, counter)
        setup.append(f"{chosen}, {weights} = self.gate(x)")
        selected = _name(rng, counter)
        setup.append(f"{selected} = {chosen}.eq(1)")
        return [f"{name} = x[{selected}]", "y = y * 1"], "index/submodule-tuple-mask"
    if shape == "int_tensor":
        return [f"{name} = x[idx]", "y = y * 1"], "index/int-tensor"
    if shape == "slice_tensor":
        bound = _value(rng, "int_tensor", setup, counter, rng.random() < 0.5)
        return [f"{name} = x[:{bound}]", "y = y * 1"], "index/slice-tensor"
    if shape == "slice_meta":
        bound = _value(rng, "int_meta", setup, counter, rng.random() < 0.5)
        return [f"{name} = x[:{bound}]", "y = y * 1"], "index/slice-meta"
    items = _name(rng, counter)
    setup.append(f"{items} = [x, x * 2, x * 3]")
    if shape == "list_meta":
        position = rng.choice(["x.dim() - 1", "n - 2", "len(idx) - 3", "self.scale - 1"])
        return [f"{name} = {items}[{position}]", f"y = y + {name}"], "index/list-meta"
    position = rng.choice(["int(idx.max()) - 2", "idx.min().item()", "int(mask.sum()) - 2"])
    return [f"{name} = {items}[{position}]", f"y = y + {name}"], "index/list-data"


def use_scalar(rng: random.Random, setup: list[str], counter: list[int]) -> tuple[list[str], str]:
    expression = rng.choice(["x.sum().item()", "x.tolist()", "float(x.mean())", "int(idx.max())", "bool(mask.any())",
                             "x.mean().item() if flag else 0.0", "x.shape[0] * 1.0", "float(n)", "int(self.scale)",
                             "x.sum() * 2", "mask.bool()", "mask & ~mask", "x.numel() * 2", "torch.allclose(x, x)",
                             "x.equal(x)", "torch.equal(idx, idx)"])
    name = _name(rng, counter)
    return [f"{name} = {expression}", "y = y * 1"], "scalar"


def use_logging(rng: random.Random, setup: list[str], counter: list[int]) -> tuple[list[str], str]:
    guarded = rng.random() < 0.5
    call = rng.choice(['logger.debug("step %s", n)', 'print("step", n)', 'logger.warning("x")'])
    if guarded:
        guard = rng.choice(VALUES["guard"])
        return [f"if not ({guard}):", f"    {call}"], "logging/guarded"
    return [call], "logging/plain"


def use_iteration(rng: random.Random, setup: list[str], counter: list[int]) -> tuple[list[str], str]:
    shape = rng.choice(["tensor", "zip", "enumerate", "comprehension", "comprehension_if"])
    items = _name(rng, counter)
    setup.append(f"{items} = [x, x * 2]")
    if shape == "tensor":
        return ["for row in x:", "    y = y + row"], "iterate/tensor"
    if shape == "zip":
        return [f"for a, b in zip({items}, {items}):", "    y = y + a * b"], "iterate/zip"
    if shape == "enumerate":
        return [f"for k, a in enumerate({items}):", "    y = y + a * k"], "iterate/enumerate"
    name = _name(rng, counter)
    if shape == "comprehension":
        return [f"{name} = [t * 2 for t in {items}]", f"y = y + {name}[0]"], "iterate/comprehension"
    cond = rng.choice(["t.sum() > 0", "t.dim() == 2", "flag", "t.any()"])
    return [f"{name} = [t for t in {items} if {cond}]", "y = y * 1"], f"iterate/comprehension-if"


def use_parameter_evidence(rng: random.Random, setup: list[str], counter: list[int]) -> tuple[list[str], str]:
    """A helper tests its parameter, and only a later line shows what the parameter is (``v.type_as(w)``):
    at the top level of its body (then it is a tensor throughout), or under a type test (then it may not be)."""
    helper = f"pick{counter[0] + 1}"
    counter[0] += 1
    shape = rng.choice(["top-level", "top-level", "under-isinstance"])
    argument, label = rng.choice([("x.sum()", "tensor"), ("(x > 0).sum()", "tensor"), ("n", "int")])
    if shape == "top-level" and label == "int":
        argument, label = "x.mean()", "tensor"  # ``n.type_as(w)`` would raise
    evidence = rng.choice(["v = v.type_as(w)", "v = v.clone()", "d = v.dim()", "v = v.unsqueeze(0).squeeze(0)"])
    test = rng.choice(["v == 0", "v < 1", "not v"])
    if shape == "top-level":
        body = [f"    if {test}:", "        return w", f"    {evidence}"]
    else:
        body = [f"    if {test}:", "        return w", "    if isinstance(v, torch.Tensor):", f"        {evidence}"]
    setup += [f"def {helper}(v, w):", *body, "    return w * 2"]
    return [f"y = {helper}({argument}, y)"], f"parameter-evidence/{shape}-{label}"


USES = [use_if, use_ternary, use_boolop_assign, use_while, use_assert, use_container_truth, use_range,
        use_factory, use_view, use_index, use_scalar, use_logging, use_iteration]
# Uses added later, each drawn for a share of the seeds from a stream of its own, so that the programs
# of every other seed stay what they were (and Dynamo's kept verdicts stay valid).
LATER_USES = [(use_parameter_evidence, 0.07)]


def generate(seed: int) -> Program:
    rng = random.Random(seed)
    counter = [0]
    setup: list[str] = []
    use = rng.choice(USES)
    for later, share in LATER_USES:
        if random.Random(f"{later.__name__}:{seed}").random() < share:
            use = later
    probe, construct = use(rng, setup, counter)
    placement = rng.choice(["plain", "plain", "plain", "loop", "try"])
    body: list[str] = list(setup)
    if placement == "loop":
        body.append("for _ in range(2):")
        body += ["    " + line for line in probe]
        probe_start = len(body) - len(probe)
    elif placement == "try":
        body.append("try:")
        body += ["    " + line for line in probe]
        probe_start = len(body) - len(probe)
        body += ["except Exception:", "    pass"]
    else:
        probe_start = len(body)
        body += probe
    if rng.random() < 0.3:  # a second look at a value after the probe: a follow-on site
        body.append("y = y + 1 if x.sum() > 0 else y")
    first = HEADER.count("\n") + 1
    source = HEADER + "".join(f"{INDENT}{line}\n" for line in body) + FOOTER
    lines = [first + probe_start + i for i in range(len(probe))]
    return Program(seed, source, f"{construct}/{placement}", lines)
