"""Measure what DYN301's fix changes: a ``disable``d helper around ``dist.all_reduce`` against the same
helper rewritten to ``torch.distributed._functional_collectives.all_reduce``, at world size 2 (gloo, two
spawned processes on the CPU). A test harness, not part of dynalint: ``tests/test_fix_measurements.py``
runs it and classifies the fix from what it prints.

Prints one JSON object: per rank, per version (``before``, ``after``) and per mode (``eager``,
``compiled``), the forward values, the input's gradient and the graph breaks.
"""

from __future__ import annotations

import json
import os
import socket
import sys


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def _rank(rank: int, world: int, port: int, queue: object) -> None:
    import torch
    import torch.distributed as dist
    import torch.distributed._functional_collectives as funcol
    from torch._dynamo.utils import counters

    os.environ["MASTER_ADDR"], os.environ["MASTER_PORT"] = "127.0.0.1", str(port)
    dist.init_process_group("gloo", rank=rank, world_size=world)

    @torch.compiler.disable
    def in_place(t: torch.Tensor) -> torch.Tensor:
        dist.all_reduce(t)
        return t

    def functional(t: torch.Tensor) -> torch.Tensor:
        return funcol.all_reduce(t, "sum", dist.group.WORLD)

    measured = {}
    for version, helper in (("before", in_place), ("after", functional)):
        for mode in ("eager", "compiled"):
            torch._dynamo.reset()
            counters.clear()
            torch.manual_seed(rank)
            x = torch.randn(4, requires_grad=True)

            def step(x: torch.Tensor, helper=helper) -> torch.Tensor:
                return helper(x * 2) + 1

            run = torch.compile(step, backend="eager") if mode == "compiled" else step
            y = run(x)
            y.sum().backward()
            measured[f"{version}-{mode}"] = {"forward": y.detach().tolist(), "grad": x.grad.tolist(),
                                             "breaks": sum(counters["graph_break"].values())}
    queue.put((rank, measured))  # type: ignore[attr-defined]
    dist.destroy_process_group()


def main() -> None:
    import torch.multiprocessing as mp

    world = int(sys.argv[1]) if len(sys.argv) > 1 else 2
    context = mp.get_context("spawn")
    queue = context.Queue()
    port = _free_port()
    workers = [context.Process(target=_rank, args=(rank, world, port, queue)) for rank in range(world)]
    for worker in workers:
        worker.start()
    results = dict(queue.get(timeout=300) for _ in workers)
    for worker in workers:
        worker.join(60)
    print(json.dumps({str(rank): results[rank] for rank in sorted(results)}))


if __name__ == "__main__":
    main()
