"""DYN303 ``breaking-collective``: ``torch.distributed`` calls that Dynamo cannot trace. Page: ``rules/DYN303-breaking-collective.md``.

Measured on torch 2.13 (gloo, world size 1; ``send`` / ``recv`` under the fake process group with two
ranks). Left out on purpose: the in-place synchronous collectives that Dynamo rewrites to functional
collectives (``all_reduce``, ``all_gather``, ``all_gather_into_tensor``, ``reduce_scatter_tensor``,
``all_to_all_single``), the rank and group queries (``get_rank``, ``get_world_size``, ``get_backend``,
``is_initialized``), and ``isend`` / ``irecv`` / ``batch_isend_irecv``, which trace when
``enable_p2p_compilation`` is on. The object collectives (``all_gather_object``,
``broadcast_object_list``, ``gather_object``, ``scatter_object_list``) and ``monitored_barrier`` are left
out too: on 2.13 they do not break but make compilation fail outright, which is another finding.
"""

from __future__ import annotations

from dynalint.lint.rule import CallRule

BREAKING = (
    "broadcast", "reduce", "barrier", "gather", "scatter", "reduce_scatter", "all_to_all",
    "all_reduce_coalesced", "new_group", "send", "recv",
)


class BreakingCollective(CallRule):
    code = "DYN303"
    name = "breaking-collective"
    message = "`{call}` in compiled code breaks the graph"
    help = "Use the functional collectives in `torch.distributed._functional_collectives`, or move the call out of the compiled function"
    # GB0007 for the collectives Dynamo treats as opaque C++ calls; GB2696 for ``send`` / ``recv``. With
    # ``enable_p2p_compilation`` on, ``send`` / ``recv`` still break, as GB7312 / GB0291.
    gb_ids = ("GB0007", "GB2696")
    calls = frozenset(
        f"{prefix}{name}" for prefix in ("torch.distributed.", "torch.distributed.distributed_c10d.") for name in BREAKING
    )
