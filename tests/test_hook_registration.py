"""DYN511 ``hook-registration``, each case measured on torch 2.13 (graph-break logs; the page's Examples are
proven again under Dynamo by ``test_rule_pages``): registering a module hook breaks (GB0467), and so does
removing it through its handle (GB0013), for a handle kept in a local, a list or a dict; a tensor's
``register_hook`` traces."""

from __future__ import annotations

import textwrap

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
