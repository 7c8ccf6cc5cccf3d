"""Ground-truth bench, the model server: torch and one library imported once, a forked child per model.

    python bench/groundtruth/gt_zygote.py LIBRARY
    (stdin: one ``MODEL_ID OUT.json TIMEOUT`` line per model; stdout: one JSON line per model, in order)

Importing torch and a library costs more than compiling one of its tiny models (5 to 25 s on this
2-core machine, against 2 to 5 s), and the bench compiles a thousand models. This server pays the
imports once per library: for each model it forks, and the child builds, compiles and observes the
model exactly as ``gt_worker.py`` does in a process of its own (``gt_worker.run``), writes the result to
``OUT.json`` and exits. Forking keeps the models apart as separate processes do: no model sees another's
Dynamo caches, patched globals or parameter stores. A child past ``TIMEOUT`` seconds is killed. The
scheduler (``gt_runner.py``) starts one server per library and worker thread, and falls back to a
process per model when a server cannot start.

Part of the harness run by ``python bench/groundtruth/groundtruth.py`` (see ``README.md``).
"""

from __future__ import annotations

import json
import os
import signal
import sys
import time
import traceback
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parents[1]))  # the checkout's dynalint
sys.path.insert(0, str(HERE))

import gt_models  # noqa: E402
import gt_worker  # noqa: E402


def preload(library: str) -> None:
    """Import what every model of ``library`` needs, before any fork (one intra-op thread, as the worker)."""
    import importlib

    import torch

    torch.set_num_threads(1)
    gt_models.prepare_import(library)
    importlib.import_module(gt_models.package_of(library))
    import gt_calls  # noqa: F401
    from dynalint.verify import observe, usercode, verdicts  # noqa: F401

    warm_up_dynamo()


def warm_up_dynamo() -> None:
    """Import Dynamo's modules once, in the server, instead of in every child.

    ``import torch._dynamo`` and the modules a first ``torch.compile`` call loads cost about 1.3 s here,
    which a forked child would otherwise pay again for each model: a julius model took 2.0 s in a child of
    a cold server, 1.1 s with these imports done before the fork. Nothing is compiled here: a throwaway
    compile in the server (0.6 s a model) changed what Dynamo then did in the children for pyro (56 of its
    76 models broke at ``distribution.py:26``, where a fresh process does not), so a child must start from
    a Dynamo that has never compiled, as a fresh process does."""
    import torch._dynamo.convert_frame  # noqa: F401
    import torch._dynamo.symbolic_convert  # noqa: F401
    import torch._dynamo.variables  # noqa: F401
    import torch._subclasses.fake_tensor  # noqa: F401
    import torch.fx.experimental.symbolic_shapes  # noqa: F401


def run_forked(model_id: str, out: Path, timeout: float) -> dict[str, Any]:
    """Run one model in a forked child; what became of it: ``{"exit": code, "stderr": tail}`` or ``{"timeout": s}``."""
    errors = out.with_suffix(".err")
    pid = os.fork()
    if pid == 0:  # the child: its output goes to a file, its result to ``out``
        code = 1
        try:
            descriptor = os.open(errors, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
            os.dup2(descriptor, 1)
            os.dup2(descriptor, 2)
            out.write_text(json.dumps(gt_worker.run(model_id)), encoding="utf-8")
            code = 0
        except BaseException:  # noqa: BLE001 - whatever happens, the child must not return into the loop
            os.write(2, traceback.format_exc().encode("utf-8", "replace"))  # fd 2, whatever ``sys.stderr`` is
        finally:
            os._exit(code)
    deadline = time.monotonic() + timeout
    while True:
        done, status = os.waitpid(pid, os.WNOHANG)
        if done:
            break
        if time.monotonic() > deadline:
            os.kill(pid, signal.SIGKILL)
            os.waitpid(pid, 0)
            errors.unlink(missing_ok=True)
            return {"timeout": timeout}
        time.sleep(0.05)
    tail = errors.read_text(encoding="utf-8", errors="replace")[-600:] if errors.exists() else ""
    errors.unlink(missing_ok=True)
    return {"exit": os.waitstatus_to_exitcode(status), "stderr": tail.strip()}


MARK = "@@gt "  # starts each answer line: whatever else a library prints to stdout is not read as one


def main() -> None:
    preload(sys.argv[1])
    print(MARK + json.dumps({"ready": True}), flush=True)
    for line in sys.stdin:
        model_id, out, timeout = line.split()
        print(MARK + json.dumps(run_forked(model_id, Path(out), float(timeout))), flush=True)


if __name__ == "__main__":
    main()
