"""DYN511 ``hook-registration``, each case measured on torch 2.13 (graph-break logs; the page's Examples are
proven again under Dynamo by ``test_rule_pages``): registering a module hook breaks (GB0467), and so does
removing it through its handle (GB0013), for a handle kept in a local, a list or a dict; a tensor's
``register_hook`` traces."""

from __future__ import annotations

import textwrap

import pytest

from dynalint.api import lint_source
from dynalint.project.config import Config

SOURCE = textwrap.dedent("""\
    import torch
    from torch import nn
    from torch.nn.modules.module import register_module_forward_hook


    class Probe(nn.Module):
        def __init__(self):
            super().__init__()
            self.lin = nn.Linear(3, 3)

        def forward(self, x, given):
            handle = self.lin.register_forward_hook(lambda m, i, o: o)
            y = self.lin(x)
            handle.remove()
            by_name = {}
            by_name["pre"] = self.lin.register_forward_pre_hook(lambda m, i: None)
            by_name["pre"].remove()
            kept = []
            kept.append(self.lin.register_full_backward_hook(lambda m, gi, go: None))
            y.register_hook(lambda grad: grad)
            given.remove()
            handle = None
            global_hook = register_module_forward_hook(lambda m, i, o: None)
            for h in kept:
                h.remove()
            return y


    model = torch.compile(Probe())
""")
LINES = SOURCE.splitlines()


def flagged() -> list[str]:
    return [LINES[f.start.line - 1].strip() for f in lint_source(SOURCE, "probe.py", Config(select=("DYN511",)))]


def test_registrations_and_removals_of_module_hooks_are_flagged_and_a_tensor_hook_is_not() -> None:
    assert flagged() == [
        "handle = self.lin.register_forward_hook(lambda m, i, o: o)",
        "handle.remove()",
        'by_name["pre"] = self.lin.register_forward_pre_hook(lambda m, i: None)',
        'by_name["pre"].remove()',
        "kept.append(self.lin.register_full_backward_hook(lambda m, gi, go: None))",
        "global_hook = register_module_forward_hook(lambda m, i, o: None)",
        "h.remove()",
    ]  # not ``y.register_hook`` (a tensor's), nor ``given.remove()`` (nothing says it is a handle)


def test_a_registration_in_code_that_is_not_compiled_is_not_flagged() -> None:
    source = textwrap.dedent("""\
        import torch

        layer = torch.nn.Linear(3, 3)


        def tap():
            handle = layer.register_forward_hook(lambda m, i, o: o)
            handle.remove()


        @torch.compile
        def run(x):
            return layer(x)
    """)
    assert lint_source(source, "tap.py", Config(select=("DYN511",))) == []


# Handles kept in attributes, made before compiling (ptflops' ``module.__flops_handle__``, torchbearer's
# ``self.gg["hook"]``): each use below broke with GB0013 on torch 2.13; reading one without using it and the
# ``len`` of a list of them traced.
KEPT = textwrap.dedent("""\
    import torch
    from torch import nn


    def hook(module, args, output):
        return output


    class Tap:
        def __init__(self, m):
            self.gg = {"hook": None}
            self.gg["hook"] = m.register_forward_hook(hook)
            handle = m.register_forward_hook(hook)
            m.__my_handle__ = handle
            m.__my_count__ = m.register_forward_hook(hook)
            self.single = m.register_forward_hook(hook)
            self.handles = []
            self.handles.append(m.register_forward_hook(hook))
            self.by_name = {"a": m.register_forward_hook(hook)}


    class Other:
        def __init__(self):
            self.single = None


    layer = nn.Linear(2, 2)
    fresh = nn.Linear(2, 2)
    tap = Tap(layer)


    def tested(x):
        if tap.gg["hook"] is not None:
            x = x + 1
        return x


    def probed(x):
        return x * 2 if hasattr(layer, "__my_handle__") else x


    def truth(x):
        if tap.single:
            x = x + 1
        return x


    def read_only(x):
        h = tap.single
        return x * len(tap.handles)


    def removed(x):
        tap.by_name["a"].remove()
        return x


    def removed_all(x):
        for h in tap.handles:
            h.remove()
        return x


    def counted_once(x):  # ``fresh`` has no handle yet: the function is the one that stores it
        if hasattr(fresh, "__my_count__"):
            return x
        fresh.__my_count__ = 1
        return x * 3


    def unrelated(x):
        if hasattr(layer, "weight"):
            x = x + 1
        return x


    torch.compile(tested, backend="eager")(torch.randn(2))
    torch.compile(probed, backend="eager")(torch.randn(2))
    torch.compile(truth, backend="eager")(torch.randn(2))
    torch.compile(read_only, backend="eager")(torch.randn(2))
    torch.compile(removed, backend="eager")(torch.randn(2))
    torch.compile(removed_all, backend="eager")(torch.randn(2))
    torch.compile(counted_once, backend="eager")(torch.randn(2))
    torch.compile(unrelated, backend="eager")(torch.randn(2))
""")


def kept_flagged() -> set[int]:
    return {f.start.line for f in lint_source(KEPT, "kept.py", Config(select=("DYN511",))) if f.start.line > 25}


def test_uses_of_a_handle_kept_in_an_attribute_are_flagged() -> None:
    lines = KEPT.splitlines()
    assert [lines[n - 1].strip() for n in sorted(kept_flagged())] == [
        'if tap.gg["hook"] is not None:',
        'return x * 2 if hasattr(layer, "__my_handle__") else x',
        "if tap.single:",
        'tap.by_name["a"].remove()',
        "h.remove()",
    ]


@pytest.mark.torch
def test_dynamo_breaks_on_kept_handles_where_dynalint_says() -> None:
    from conftest import dynamo_break_lines

    assert {line for line in dynamo_break_lines(KEPT) if line > 25} == kept_flagged()


LSUV = textwrap.dedent("""\
    import torch

    layer = torch.nn.Linear(3, 3)


    class Lsuv:
        def __init__(self):
            self.gg = {"hook": None, "position": 0, "done": 0}
            self.gg["hook"] = layer.register_forward_hook(lambda m, i, o: o)

        def step(self, x):
            if self.gg["position"] > self.gg["done"]:
                x = x + 1
            if self.gg["hook"] is None or not self.gg["done"]:
                x = x - 1
            return x


    lsuv = Lsuv()
    torch.compile(lsuv.step, backend="eager")(torch.randn(3))
""")


def test_other_items_of_a_dict_holding_a_handle_under_a_literal_key_are_not_handles() -> None:
    flagged = [f.start.line for f in lint_source(LSUV, "lsuv.py", Config(select=("DYN511",)))]
    assert flagged == [14]


@pytest.mark.torch
def test_dynamo_breaks_only_on_the_item_holding_the_handle() -> None:
    from conftest import dynamo_break_lines

    assert dynamo_break_lines(LSUV) == {14}


# A handle made while tracing: storing it into an attribute breaks at the store, returning it at the return
# (GB0013, measured on torch 2.13); stored into a module-level dict it breaks at the frame's end, on no line of
# its own, and is not flagged. The registrations are DYN511's as before.
ESCAPES = textwrap.dedent("""\
    import torch
    from torch import nn


    def hook(module, args, output):
        return output


    layer = nn.Linear(2, 2)
    store = {}


    def stored(x):
        handle = layer.register_forward_hook(hook)
        layer.__h__ = handle
        return x * 2


    def in_a_dict(x):
        handle = layer.register_forward_hook(hook)
        store["h"] = handle
        return x * 2


    def returned(x):
        handle = layer.register_forward_hook(hook)
        y = x * 2
        return y, handle


    torch.compile(stored, backend="eager")(torch.randn(2))
    torch.compile(in_a_dict, backend="eager")(torch.randn(2))
    torch.compile(returned, backend="eager")(torch.randn(2))
""")


def escapes_flagged() -> set[int]:
    lines = ESCAPES.splitlines()
    return {f.start.line for f in lint_source(ESCAPES, "escapes.py", Config(select=("DYN511",)))
            if "register_forward_hook" not in lines[f.start.line - 1]}


def test_a_handle_made_while_tracing_is_flagged_where_it_leaves_the_frame() -> None:
    lines = ESCAPES.splitlines()
    assert [lines[n - 1].strip() for n in sorted(escapes_flagged())] == ["layer.__h__ = handle", "return y, handle"]


@pytest.mark.torch
def test_dynamo_breaks_on_escaping_handles_where_dynalint_says() -> None:
    from conftest import dynamo_break_lines

    lines = ESCAPES.splitlines()
    in_a_dict_return = next(n for n, line in enumerate(lines, 1) if line.strip() == 'store["h"] = handle') + 1
    flagged = {f.start.line for f in lint_source(ESCAPES, "escapes.py", Config(select=("DYN511",)))}
    assert dynamo_break_lines(ESCAPES) == flagged | {in_a_dict_return}
