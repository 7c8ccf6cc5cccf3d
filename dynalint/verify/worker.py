"""Verify stage, the process that runs user code: compile each job's target and watch Dynamo.

``python -m dynalint.verify.worker --backend eager --device auto --result-fd N`` reads one JSON job
per line on stdin (``protocol.Job``) and writes one JSON result per line (``protocol.JobResult``) on file
descriptor ``N`` (stdout when run by hand without it), after a ``protocol.Ready`` line once torch is
imported; both sides read and write the protocol's dataclasses (``from_json`` / ``to_json``), never
bare dicts. Everything user code prints goes to stderr.
torch is imported once per worker. For a job it imports the target's file (module-level code runs
with ``torch.compile`` defaulting to the chosen backend, so scripts and rule-page examples verify
themselves), then, unless that already traced the target, compiles the target and calls it twice
(a recompile the first call's side effects cause is counted): with inputs from a factory, or
synthesized where that is safe (annotated tensors and Python scalars, ``nn.Module`` classes with no
required constructor arguments). The job's mode sets how: ``eval`` (``model.eval()`` under
``torch.no_grad()``, the default) or ``train`` (``model.train()``, grad enabled); the result says
which inputs and mode its observations hold for. A factory's result also lists the classes of every
module its model holds, so that a verdict can say a factory built a class it never ran. A target
that cannot be run is reported ``unverifiable`` with the reason, never as "no break". The runner (``runner.py``) owns
timeouts and crashes: this process may be killed at any moment, with everything it started.
"""

from __future__ import annotations

import argparse
import copy
import inspect
import os
import re
import signal
import sys
import time
import traceback
import types
import typing
from pathlib import Path
from typing import IO, Any

from dynalint.verify.observe import (
    CountingBackend,
    in_torch,
    parse_record,
    record_breaks,
    record_traced_lines,
    reset_dynamo,
    user_files,
)
from dynalint.verify import containment
from dynalint.verify.outputs import summarize
from dynalint.verify.protocol import Job, JobResult, Ready
from dynalint.verify.usercode import (
    ERROR_MAX,
    USES_DIST,
    default_backend,
    ensure_process_group,
    import_path,
    restored_configs,
)

# A module built with its default arguments, only to be traced, must stay cheap (about 200 MB float32).
MAX_DEFAULT_PARAMETERS = 50_000_000
GRAD = {"eval": "no_grad", "train": "grad enabled"}


class Unverifiable(Exception):
    """The target cannot be run safely or at all; the message says why."""


def _device(requested: str) -> str:
    import torch

    if requested == "auto":
        return "cuda" if torch.cuda.is_available() else "cpu"
    if requested == "cuda" and not torch.cuda.is_available():
        # A usage error, said once before any job: not a run where every finding is "unverifiable".
        print(f"--device cuda: this torch ({torch.__version__}) sees no CUDA device; use --device auto or cpu",
              file=sys.stderr)
        sys.exit(2)
    return requested


def _advice(job: Job, what: str) -> str:
    """What to do about a target no input could be made for: declare a factory, unless one built it."""
    if job.built_by:
        return f"{', '.join(f'`{b}`' for b in job.built_by)} built it, but never called `{job.target}`"
    return f"declare an example-inputs factory {what}in [tool.dynalint.verify]"


def _synthesize(parameter: inspect.Parameter, hints: dict[str, Any], device: str, job: Job) -> Any:
    import torch

    hint = hints.get(parameter.name)
    origin = typing.get_origin(hint)
    options = typing.get_args(hint) if origin in (typing.Union, getattr(types, "UnionType", ())) else (hint,)
    options = tuple(o for o in options if o is not type(None))
    if parameter.default is not inspect.Parameter.empty:
        return parameter.default
    if any(o is torch.Tensor or (isinstance(o, type) and issubclass(o, torch.Tensor)) for o in options):
        return torch.randn(2, 8, device=device)
    for kind, value in ((bool, False), (int, 2), (float, 0.5)):
        if kind in options:
            return value
    raise Unverifiable(
        f"cannot make an input for parameter `{parameter.name}`"
        + (" (no annotation)" if hint is None else f" of type {hint!r}")
        + "; " + _advice(job, "")
    )


def _arguments(function: Any, device: str, job: Job, skip_first: bool = False) -> list[Any]:
    signature = inspect.signature(function)
    try:
        hints = typing.get_type_hints(function)
    except Exception:  # unresolvable string annotations: fall back to none
        hints = {}
    parameters = [
        p for p in signature.parameters.values() if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)
    ]
    if skip_first:
        parameters = parameters[1:]
    return [_synthesize(p, hints, device, job) for p in parameters]


def _refuse_large_default(owner: type, job: Job) -> None:
    """Refuse to build, with its default arguments, a module too large to verify on the spot.

    Model classes often default to their full size (billions of parameters): built on the ``meta``
    device first, which allocates nothing, its parameters are counted before any memory is spent. A
    class that cannot be built on ``meta`` is left to the real construction to judge.
    """
    import torch

    try:
        with torch.device("meta"):
            probe = owner()
        parameters = sum(p.numel() for p in probe.parameters())
    except Exception:
        return
    if parameters > MAX_DEFAULT_PARAMETERS:
        raise Unverifiable(
            f"`{owner.__name__}()` with its default arguments has {parameters:,} parameters (over "
            f"{MAX_DEFAULT_PARAMETERS:,}); " + _advice(job, "that builds a small one ")
        )


def _resolve(module: types.ModuleType, qualname: str) -> tuple[Any, Any]:
    """``(owner class or None, attribute)`` for ``Class.method`` / ``function`` in ``module``."""
    owner = None
    value = module
    parts = qualname.split(".")
    for index, part in enumerate(parts):
        if not hasattr(value, part):
            raise Unverifiable(f"`{qualname}` is not reachable from its module (nested or conditional definition)")
        if index == len(parts) - 1:
            owner = value if inspect.isclass(value) else None
        value = getattr(value, part)
    return owner, value


def _missing_module(job: Job) -> str:
    """What to do when a factory's module is in none of the folders searched."""
    module = job.target.partition(":")[0]
    searched = ", ".join(dict.fromkeys((*job.extra_paths, job.sys_path)))
    return (f"factory `{job.target}`: no module `{module}` in {searched}; for a src/ layout or another source "
            f"folder, set `pythonpath = [\"src\"]` (folders relative to pyproject.toml) in [tool.dynalint.verify]")


def _mode_arguments(factory: Any, mode: str) -> dict[str, Any]:
    """What a factory that asks for the mode gets: ``mode="train"`` / ``"eval"``, or ``train=True`` /
    ``False``, so that one factory can return labels (and the loss path) in train mode."""
    try:
        parameters = inspect.signature(factory).parameters
    except (TypeError, ValueError):  # a builtin or a C callable: nothing to ask
        return {}
    if "mode" in parameters:
        return {"mode": mode}
    if "train" in parameters:
        return {"train": mode == "train"}
    return {}


def _callable_and_inputs(job: Job, module: types.ModuleType, device: str) -> tuple[Any, list[Any], dict[str, Any]]:
    import torch

    if job.kind == "factory":
        factory_module, _, name = job.target.partition(":")
        imported = __import__("importlib").import_module(factory_module)
        factory = getattr(imported, name, None)
        if factory is None:
            raise Unverifiable(f"factory `{job.target}`: module `{factory_module}` has no `{name}`")
        built = factory(**_mode_arguments(factory, job.mode))
        if not (isinstance(built, tuple) and len(built) == 3):
            raise Unverifiable(f"factory `{job.target}` must return (callable, args, kwargs)")
        target, args, kwargs = built
        if isinstance(target, torch.nn.Module):
            target = target.to(device).train(job.mode == "train")
        move = lambda v: v.to(device) if isinstance(v, torch.Tensor) else v  # noqa: E731
        return target, [move(a) for a in args], {k: move(v) for k, v in kwargs.items()}
    owner, attribute = _resolve(module, job.target)
    original = getattr(attribute, "_torchdynamo_orig_callable", attribute)
    if owner is None:
        return original, _arguments(original, device, job), {}
    if not (inspect.isclass(owner) and issubclass(owner, torch.nn.Module)):
        raise Unverifiable(f"`{job.target}` is a method of a class that is not an nn.Module")
    _refuse_large_default(owner, job)
    try:
        instance = owner().to(device)
    except TypeError as error:
        raise Unverifiable(f"constructing `{owner.__name__}` needs arguments ({error}); {_advice(job, '')}") from None
    instance.train(job.mode == "train")
    arguments = _arguments(original, device, job, skip_first=True)
    if job.target.endswith(".forward"):
        return instance, arguments, {}
    return getattr(instance, job.target.rsplit(".", 1)[1]), arguments, {}


def run_job(job: Job, backend: str, device: str, imported: dict[str, types.ModuleType]) -> JobResult:
    import torch
    import torch._dynamo.exc
    import torch._dynamo.utils

    counting = CountingBackend(backend)
    mine = user_files(job.observed, job.libraries)
    mode = job.mode
    inputs: str | None = None
    built: tuple[str, ...] = ()
    error: str | None = None
    unverifiable: str | None = None
    error_site: tuple[str, int] | None = None
    outputs: dict[str, Any] | None = None
    error_detail: str | None = None
    started = time.perf_counter()
    observing = record_breaks(job.observed, mine), record_traced_lines(job.observed, mine)
    with restored_configs(), observing[0] as breaks, observing[1] as traced:
        torch._dynamo.utils.guard_failures.clear()
        try:
            with default_backend(counting):
                for folder in (*reversed(job.extra_paths), job.sys_path):
                    if folder not in sys.path:
                        sys.path.insert(0, folder)
                if job.kind == "factory" and not Path(job.path).is_file():
                    raise Unverifiable(_missing_module(job))
                source = Path(job.path).read_text(encoding="utf-8", errors="replace")
                if USES_DIST.search(source):
                    ensure_process_group()
                if job.path not in imported:  # module-level code runs once per worker
                    imported[job.path] = import_path(Path(job.path))
                module = imported[job.path]
                first, last = job.lines
                target_lines_traced = any(f == job.path and first <= line <= last for f, line in traced)
                if target_lines_traced:
                    inputs = "the calls its module makes when imported"
                if job.kind == "factory" or not target_lines_traced:
                    target, args, kwargs = _callable_and_inputs(job, module, device)
                    whose = f"factory `{job.target}`'s" if job.kind == "factory" else "synthesized"
                    inputs = f"{whose} inputs ({mode}, {GRAD[mode]})"
                    built = _classes(target)
                    compiled = torch.compile(target, backend=counting, fullgraph=job.fullgraph)
                    if job.record_outputs:
                        outputs = _eager_and_compiled(target, compiled, args, kwargs, mode)
                    else:
                        with torch.enable_grad() if mode == "train" else torch.no_grad():
                            compiled(*args, **kwargs)
                            compiled(*args, **kwargs)
        except Unverifiable as reason:
            unverifiable = str(reason)
        except torch._dynamo.exc.Unsupported as exc:
            # Under fullgraph=True Dynamo raises the first break instead of logging it: it is the
            # observation, not a failure (the lines after it were never traced: not reached).
            breaks.append(parse_record(str(exc), job.observed, mine))
        except (Exception, SystemExit) as exc:  # user code failed: say how, keep what was observed
            error_site = _raised_at(exc)
            where = f" at {Path(error_site[0]).name}:{error_site[1]}" if error_site else ""
            error_detail = f"{type(exc).__name__}: {str(exc).strip()}{where}"[:ERROR_MAX]
            error = _one_line(exc, where)
    return JobResult(
        job.id,
        error=error,
        unverifiable=unverifiable,
        breaks=tuple(breaks),
        traced=tuple(sorted(traced)),
        graphs=counting.graphs,
        recompiles=sum(len(v) for v in torch._dynamo.utils.guard_failures.values()),
        seconds=round(time.perf_counter() - started, 3),
        device=device,
        error_site=error_site,
        inputs=inputs,
        built=built if job.kind == "factory" else (),
        outputs=outputs,
        error_detail=error_detail if error_detail != error else None,
    )


_NAMED_FRAME = re.compile(r'File "([^"]+)", line (\d+)')


def _raised_at(exc: BaseException) -> tuple[str, int] | None:
    """Where the user's code raised ``exc``: the innermost frame of its traceback, unless that frame is
    Dynamo's own. Torch 2.11 raises what user code raised while Dynamo traced it from Dynamo's interpreter
    (``symbolic_convert.py``), naming the user's frames in the message after "from user code:" (seen on
    the GPU image's torch 2.11 for a failing ``assert``): then the last frame that names."""
    frame = traceback.extract_tb(exc.__traceback__)[-1] if exc.__traceback__ else None
    text = str(exc)
    if "from user code:" in text and (frame is None or in_torch(frame.filename)):
        named = _NAMED_FRAME.findall(text.split("from user code:", 1)[1])
        if named:
            return named[-1][0], int(named[-1][1])
    return (frame.filename, frame.lineno or 0) if frame else None


def _one_line(exc: BaseException, where: str) -> str:
    """An error as one line: its first line, and Dynamo's first hint when it gave one (its messages run to
    twenty lines: ``-v`` shows them whole)."""
    text = str(exc).strip()
    first = text.splitlines()[0].strip() if text else ""
    if first == "from user code:":  # torch 2.11's re-raise (``_raised_at``): the raising statement says more
        lines = [line.strip() for line in text.split("from user code:", 1)[1].splitlines()]
        named = [index for index, line in enumerate(lines) if _NAMED_FRAME.match(line)]
        first = lines[named[-1] + 1] if named and named[-1] + 1 < len(lines) else first
    hint = next((line.strip().removeprefix("Hint:").strip() for line in text.splitlines()
                 if line.strip().startswith("Hint:")), None)
    return f"{type(exc).__name__}: {first}{where}" + (f" (hint: {hint})" if hint else "")


def _eager_and_compiled(target: Any, compiled: Any, args: list[Any], kwargs: dict[str, Any], mode: str) -> dict[str, Any]:
    """``--fix --verify``: the model compiled (run twice, as always) and run eagerly (Dynamo off, on copies
    of the inputs taken before), each from the same seed; both outputs summarized (``outputs.summarize``)."""
    import torch

    try:
        eager_args, eager_kwargs = copy.deepcopy((args, kwargs))
    except Exception:  # noqa: BLE001 - inputs that cannot be copied: run on the same objects
        eager_args, eager_kwargs = args, kwargs
    grad = torch.enable_grad if mode == "train" else torch.no_grad
    # Compiled first: a frame run while Dynamo is disabled is not traced afterwards (measured on 2.13).
    torch.manual_seed(0)
    with grad():
        first = compiled(*args, **kwargs)
        compiled(*args, **kwargs)
    torch.manual_seed(0)
    with torch._dynamo.config.patch(disable=True), grad():
        eager = target(*eager_args, **eager_kwargs)
    return {"eager": summarize(eager), "compiled": summarize(first)}


def _classes(target: Any) -> tuple[str, ...]:
    """``module.Qualname`` of the class of every module ``target`` holds (a module, or a module's method)."""
    import torch

    owner = getattr(target, "__self__", target)
    if not isinstance(owner, torch.nn.Module):
        return ()
    return tuple(sorted({f"{type(m).__module__}.{type(m).__qualname__}" for m in owner.modules()}))


def _protocol_streams(result_fd: int | None) -> tuple[IO[str], IO[str]]:
    """The job and result pipes, moved off file descriptors 0 and 1.

    User code, C extensions and child processes (``os.system``) use fds 0 and 1 directly: reading
    stdin would swallow the next job and wait forever (``input()``), and writing stdout would corrupt
    the results. They get ``/dev/null`` and stderr instead; the pipes live on non-inheritable fds, the
    results on the one the runner passed (a copy of stdout when run by hand).
    """
    sys.stdout.flush()
    jobs = os.fdopen(os.dup(0), "r", encoding="utf-8")
    result_fd = os.dup(1) if result_fd is None else result_fd
    os.set_inheritable(result_fd, False)  # pass_fds made it inheritable; user subprocesses must not get it
    out = os.fdopen(result_fd, "w", encoding="utf-8")
    null = os.open(os.devnull, os.O_RDONLY)
    os.dup2(null, 0)
    os.close(null)
    os.dup2(2, 1)
    sys.stdout = sys.stderr  # line-buffered: user prints stay in order with its errors
    return jobs, out


def main(argv: list[str] | None = None) -> int:
    # The runner holds these back while it starts a worker, and the mask is inherited: user code
    # (and its children) must see SIGINT and SIGTERM as usual. The runner kills with SIGKILL anyway.
    signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT, signal.SIGTERM})
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--backend", default="eager")
    parser.add_argument("--device", default="auto", choices=("auto", "cpu", "cuda"))
    parser.add_argument("--result-fd", type=int, default=None)
    parser.add_argument("--parent", type=int, default=None, help="the supervisor's pid: die with it")
    options = parser.parse_args(argv)
    if options.parent is not None:
        containment.die_with_parent(options.parent)
    jobs, out = _protocol_streams(options.result_fd)
    import torch  # noqa: F401  (once per worker)
    import torch._dynamo  # noqa: F401  (seconds more: paid before "ready", not out of the first job's time limit)

    device = _device(options.device)
    imported: dict[str, types.ModuleType] = {}
    pid = os.getpid()
    out.write(Ready(device).to_json() + "\n")
    out.flush()
    for line in jobs:
        if not line.strip():
            continue
        job = Job.from_json(line)
        reset_dynamo()
        try:
            result = run_job(job, options.backend, device, imported)
        except Exception as error:  # a bug of ours: report it for this job and keep serving
            result = JobResult.empty(job.id, error=f"internal error in the verify worker: {error!r}")
        if os.getpid() != pid:  # a copy user code forked (os.fork) came back here: only the worker answers
            os._exit(0)
        out.write(result.to_json() + "\n")
        out.flush()
    return 0


if __name__ == "__main__":
    sys.exit(main())
