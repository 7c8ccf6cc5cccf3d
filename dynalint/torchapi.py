"""Torch API facts, as data: which qualified names compile, disable, are collectives, and so on.

Read by every stage (summary, guards, regions, program, rules) so that each fact is written once.
Names are fully qualified as the import tables resolve them (``torch.compiler.disable``). Adding a torch
function is one line here. Value-analysis facts (what returns a tensor, a Python value or metadata)
still live in ``values.py``; they are to join these.
"""

from __future__ import annotations

# ``torch.compiler.is_compiling()`` and its aliases: code under ``if not is_compiling():`` is never traced.
IS_COMPILING = frozenset(
    {
        "torch.compiler.is_compiling",
        "torch.compiler.is_dynamo_compiling",
        "torch._dynamo.is_compiling",
        "torch._dynamo.external_utils.is_compiling",
        "torch._utils.is_compiling",
    }
)

COMPILE = frozenset({"torch.compile"})
DISABLE = frozenset(
    {
        "torch._dynamo.disable",
        "torch.compiler.disable",
        "torch._dynamo.eval_frame.disable",
        "torch._disable_dynamo",
    }
)
DYNAMO_CONFIG = "torch._dynamo.config."
# Decorators whose functions Dynamo does not trace into (and does not break on either).
NOT_TRACED = frozenset(
    {
        "torch._dynamo.decorators.leaf_function",
        "torch._dynamo.leaf_function",
        "torch._dynamo.nonstrict_trace",
        "torch._dynamo.decorators.nonstrict_trace",
        "torch.library.custom_op",
        "torch._library.custom_ops.custom_op",
        "torch._dynamo.allow_in_graph",
        "torch.compiler.allow_in_graph",
    }
)
TENSOR_RETURNS = frozenset({"torch.Tensor", "torch.FloatTensor", "torch.LongTensor"})
PARTIAL = frozenset({"functools.partial"})
MODULE_BASES = frozenset({"torch.nn.Module", "torch.nn.modules.module.Module"})
COLLECTIVES = frozenset(
    f"torch.distributed.{name}"
    for name in (
        "all_reduce", "all_gather", "all_gather_into_tensor", "all_gather_object", "reduce_scatter",
        "reduce_scatter_tensor", "all_to_all", "all_to_all_single", "broadcast", "broadcast_object_list",
        "reduce", "barrier", "gather", "scatter", "send", "recv", "isend", "irecv", "monitored_barrier",
    )
)
# Constructors of ``nn.Module`` containers: attributes built from them hold sub-modules.
CONTAINERS = frozenset({"torch.nn.ModuleList", "torch.nn.Sequential", "torch.nn.ModuleDict"})
PARAMETERS = frozenset({"torch.nn.Parameter", "torch.nn.parameter.Parameter", "torch.nn.parameter.Buffer",
                        "torch.nn.Buffer"})
