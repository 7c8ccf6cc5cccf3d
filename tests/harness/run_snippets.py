"""Run snippets under torch.compile and report what Dynamo did: graph breaks, graphs, recompiles.

A test harness, not part of dynalint: ``tests/test_rule_pages.py`` (through ``conftest.run_snippets``)
proves the rule pages with it. It runs user code with the verify stage's own pieces
(``dynalint.verify.usercode``, ``dynalint.verify.observe``), so the pages are proved by the same
observer that ``--verify`` uses.

Usage: ``python tests/harness/run_snippets.py [--timeout S] < snippets.json``, or with ``--serve``: one request
per line of stdin (a JSON list of snippets), one line of results per request on stdout, until stdin closes. The
torch tests' ``conftest.run_snippets`` keeps one such process for the whole run, so that torch is imported once
and not once per test.

stdin:  ``[{"id": str, "source": str, "ranks"?: [int], "compare_eager"?: bool}, ...]``, each source a
        complete program that imports torch, compiles a function and calls it.
stdout: ``{id: result}`` and nothing else (snippet output goes to stderr), where a result is
        ``{"breaks": [{"gb_id", "reason", "line", "function"}, ...], "error": str | null,
        "graphs": int | null, "recompiles": [{"compile_id", "line", "reason"}, ...], "recompile_limit": int}``.

- ``graphs``: FX graphs handed to a backend. ``torch.compile`` defaults to ``backend="eager"`` and every
  backend but inductor is wrapped in the verify stage's ``CountingBackend``, which compares equal
  exactly when the backend it wraps does, so Dynamo's backend-match guard sees what it would see
  unwrapped (a snippet that uses inductor gets ``null``).
- ``recompiles``: one entry per compilation of a frame Dynamo had compiled before, read from
  ``torch._dynamo.utils.get_compilation_metrics()`` (each record carries the failing guard as
  ``recompile_reason``; ``guard_failures`` holds one entry per cache entry *checked*, not per
  recompile). ``line`` is the snippet line that installed the failing guard, when the reason names one.
  ``recompile_limit`` counts the compilations refused by ``config.recompile_limit`` (the frame then
  runs eagerly).

Two modes, asked for by the snippet's keys or by a first-line comment
``# dynalint-harness: ranks=0,1 compare-eager``:

- ``ranks``: the snippet runs once per rank under torch's fake process group (one process, Dynamo
  reset in between); the result adds ``per_rank: {rank: result}``; its own ``breaks`` are the union,
  ``recompiles`` (and ``mismatches``) all ranks' (each with its ``rank``), ``error`` the first error,
  ``graphs`` null.
- ``compare_eager``: every call of a compiled callable is replayed eagerly (the original function or
  module, on deep copies of the arguments) and the outputs compared; the result adds
  ``mismatches: [{"line", "compiled", "eager"}]``, ``line`` being the snippet line of the call, and
  ``eager_outputs``: every eager replay's result as plain JSON (a tensor as dtype, shape and values); the
  snippet starts from ``torch.manual_seed(0)``, so two versions of one program (a fix's before and
  after) draw the same inputs and weights.

Each snippet runs in a fresh ``__main__`` module compiled under the file name ``snippet_<n>.py``
(registered with linecache), with Dynamo state, the dynamo/inductor/functorch configs and
``os.environ`` restored between snippets. Snippets that mention ``torch.distributed`` (outside the
ranks mode) get a single-process gloo group (rank 0, world_size 1), created once and destroyed at
the end.
"""

from __future__ import annotations

import argparse
import contextlib
import copy
import functools
import json
import linecache
import os
import re
import signal
import sys
import types
from typing import Any, Callable, Iterator

from dynalint.verify.observe import CountingBackend, record_breaks, reset_dynamo
from dynalint.verify.usercode import (
    ERROR_MAX,
    USES_DIST,
    default_backend,
    destroy_process_group,
    ensure_process_group,
    restored_configs,
)

_DIRECTIVE = re.compile(r"#\s*dynalint-harness:\s*(?P<options>.*)")
_RECOMPILE_LIMIT = "Dynamo recompile limit exceeded"  # the Gb_type of the refusal
_SHOWN_MAX = 200


class SnippetTimeout(Exception):
    """A snippet ran longer than --timeout seconds."""


@contextlib.contextmanager
def _as_main(filename: str, source: str) -> Iterator[dict[str, Any]]:
    """A fresh ``__main__`` module namespace; the source is visible to linecache."""
    module = types.ModuleType("__main__")
    module.__file__ = filename
    old_main = sys.modules.get("__main__")
    linecache.cache[filename] = (len(source), None, source.splitlines(True), filename)
    sys.modules["__main__"] = module
    try:
        yield module.__dict__
    finally:
        if old_main is not None:
            sys.modules["__main__"] = old_main
        linecache.cache.pop(filename, None)


class _ComparedCall:
    """A compiled callable whose every call is replayed eagerly on copies of its arguments and compared."""

    def __init__(self, compiled: Any, original: Any, observer: _CompileObserver) -> None:
        self._compiled = compiled
        self._original = original
        self._observer = observer

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        import torch

        if torch.compiler.is_compiling():  # called from another compiled function: Dynamo inlines it
            return self._compiled(*args, **kwargs)
        try:
            replay_args, replay_kwargs = copy.deepcopy((args, kwargs))
        except Exception:  # noqa: BLE001  (uncopyable arguments: replay on the same objects)
            replay_args, replay_kwargs = args, kwargs
        got = self._compiled(*args, **kwargs)
        want = self._original(*replay_args, **replay_kwargs)
        self._observer.eager_outputs.append(_plain(want))
        if not _same(got, want):
            self._observer.mismatches.append(
                {"line": _caller_line(self._observer.filename), "compiled": _shown(got), "eager": _shown(want)}
            )
        return got

    def __get__(self, instance: Any, owner: Any = None) -> Any:
        """Bind like the function it stands for when it decorates a method."""
        return self if instance is None else functools.partial(self, instance)

    def __getattr__(self, name: str) -> Any:
        if name in ("_compiled", "_original", "_observer"):  # not set yet (copy, pickle)
            raise AttributeError(name)
        return getattr(self._compiled, name)


def _same(got: Any, want: Any) -> bool:
    import torch

    if isinstance(got, torch.Tensor) or isinstance(want, torch.Tensor):
        return (
            isinstance(got, torch.Tensor) and isinstance(want, torch.Tensor)
            and got.shape == want.shape and got.dtype == want.dtype
            and bool(torch.allclose(got.detach(), want.detach(), rtol=1e-5, atol=1e-6, equal_nan=True))
        )
    if isinstance(got, (list, tuple)) and isinstance(want, (list, tuple)):
        return type(got) is type(want) and len(got) == len(want) and all(map(_same, got, want))
    if isinstance(got, dict) and isinstance(want, dict):
        return got.keys() == want.keys() and all(_same(got[k], want[k]) for k in got)
    try:
        return bool(got == want)
    except Exception:  # noqa: BLE001
        return False


def _plain(value: Any) -> Any:
    """A value as JSON: a tensor as its dtype, shape and values (so that two runs compare in the test)."""
    import torch

    if isinstance(value, torch.Tensor):
        data = value.detach().cpu()
        return {"dtype": str(data.dtype), "shape": list(data.shape),
                "values": data.flatten().tolist() if not data.is_complex() else [str(v) for v in data.flatten().tolist()]}
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    if isinstance(value, dict):
        return {str(k): _plain(v) for k, v in value.items()}
    if value is None or isinstance(value, (bool, int, float, str)):
        return value
    return repr(value)


def _shown(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= _SHOWN_MAX else text[: _SHOWN_MAX - 3] + "..."


def _caller_line(filename: str) -> int:
    frame = sys._getframe(1)
    while frame is not None and frame.f_code.co_filename != filename:
        frame = frame.f_back  # type: ignore[assignment]
    return frame.f_lineno if frame is not None else 0


class _CompileObserver:
    """What the patched ``torch.compile`` saw while one snippet ran."""

    def __init__(self, filename: str, compare_eager: bool = False) -> None:
        self.filename = filename
        self.compare_eager = compare_eager
        self.graphs = 0
        self.uncounted = False  # a backend that could not be wrapped (inductor) compiled something
        self.mismatches: list[dict[str, Any]] = []
        self.eager_outputs: list[Any] = []  # each compiled call's eager replay, as plain JSON values

    def count(self) -> None:
        self.graphs += 1

    def backend(self, backend: Any) -> Any:
        if isinstance(backend, CountingBackend):
            return backend
        if backend == "inductor":
            self.uncounted = True
            return backend
        return CountingBackend(backend, on_graph=self.count)

    def wrap(self, compiled: Any, original: Any) -> Any:
        return _ComparedCall(compiled, original, self) if self.compare_eager else compiled


@contextlib.contextmanager
def time_limit(seconds: float) -> Iterator[None]:
    if seconds <= 0 or not hasattr(signal, "SIGALRM"):
        yield
        return

    def on_alarm(signum: int, frame: Any) -> None:
        raise SnippetTimeout(f"snippet exceeded {seconds:g}s")

    old = signal.signal(signal.SIGALRM, on_alarm)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, old)


@contextlib.contextmanager
def _restored_environ() -> Iterator[None]:
    """Undo a snippet's changes to ``os.environ`` (stale-value examples set variables)."""
    saved = dict(os.environ)
    try:
        yield
    finally:
        for key in set(os.environ) - set(saved):
            del os.environ[key]
        for key, value in saved.items():
            if os.environ.get(key) != value:
                os.environ[key] = value


def _recompiles(filename: str) -> tuple[list[dict[str, Any]], int]:
    """Recompilations since the metrics were last cleared, and how many the recompile limit refused."""
    from torch._dynamo.utils import get_compilation_metrics

    frame = re.compile(rf'File "{re.escape(filename)}", line (\d+)')
    marker = re.compile(rf"{re.escape(filename)}:(\d+)")
    recompiles, refused = [], 0
    for metrics in get_compilation_metrics():
        if metrics.fail_reason and _RECOMPILE_LIMIT in metrics.fail_reason:
            refused += 1
        reason = metrics.recompile_reason
        if not reason:
            continue
        lines = frame.findall(reason) or marker.findall(reason)
        recompiles.append({
            "compile_id": str(metrics.compile_id),  # "frame/attempt"
            "line": int(lines[-1]) if lines else None,
            "reason": reason.splitlines()[0][:_SHOWN_MAX],
        })
    return recompiles, refused


def options_of(snippet: dict[str, Any]) -> dict[str, Any]:
    """The harness modes a snippet asks for: its ``ranks`` / ``compare_eager`` keys or a first-line comment."""
    options: dict[str, Any] = {"ranks": snippet.get("ranks"), "compare_eager": bool(snippet.get("compare_eager"))}
    first = snippet["source"].split("\n", 1)[0]
    directive = _DIRECTIVE.match(first.strip())
    if directive:
        for option in directive.group("options").split():
            name, _, value = option.partition("=")
            if name == "ranks":
                options["ranks"] = [int(r) for r in value.split(",") if r]
            elif name == "compare-eager":
                options["compare_eager"] = True
            else:
                raise ValueError(f"unknown dynalint-harness option {option!r}")
    return options


def run_one(
    n: int, source: str, timeout: float = 0, backend: str | None = "eager", compare_eager: bool = False
) -> dict[str, Any]:
    """Run one snippet; return its breaks, graphs, recompiles and error (``None`` when it ran through)."""
    from torch._dynamo.utils import clear_compilation_metrics

    filename = f"snippet_{n}.py"
    error: str | None = None
    observer = _CompileObserver(filename, compare_eager)
    with restored_configs(), _restored_environ(), default_backend(backend, observer), \
            _as_main(filename, source) as namespace:
        with record_breaks(filename) as breaks:
            clear_compilation_metrics()
            try:
                if USES_DIST.search(source):
                    ensure_process_group()
                code = compile(source, filename, "exec")
                if compare_eager:  # two versions of a program (a fix's before and after) draw the same numbers
                    import random

                    import torch

                    torch.manual_seed(0)
                    random.seed(0)
                with time_limit(timeout):
                    exec(code, namespace)
            except (Exception, SystemExit) as e:  # noqa: BLE001  (report, keep going)
                error = f"{type(e).__name__}: {str(e).strip()}"[:ERROR_MAX]
        recompiles, refused = _recompiles(filename)
    result: dict[str, Any] = {
        "breaks": [
            {"gb_id": b.gb_id, "reason": b.reason, "line": b.line, "function": b.function}
            for b in breaks
        ],
        "error": error,
        "graphs": None if observer.uncounted else observer.graphs,
        "recompiles": recompiles,
        "recompile_limit": refused,
    }
    if compare_eager:
        result["mismatches"] = observer.mismatches
        result["eager_outputs"] = observer.eager_outputs
    return result


def run_ranks(
    n: int, source: str, ranks: list[int], timeout: float = 0, backend: str | None = "eager",
    compare_eager: bool = False,
) -> dict[str, Any]:
    """Run one snippet once per rank under the fake process group; per-rank results plus their union."""
    import torch.distributed as dist
    from torch.testing._internal.distributed.fake_pg import FakeStore

    destroy_process_group()  # the gloo group of earlier snippets; the next one that needs it recreates it
    per_rank: dict[str, dict[str, Any]] = {}
    for rank in ranks:
        dist.init_process_group("fake", store=FakeStore(), rank=rank, world_size=max(ranks) + 1)
        try:
            per_rank[str(rank)] = run_one(n, source, timeout, backend, compare_eager)
        finally:
            destroy_process_group()
    union: list[dict[str, Any]] = []
    for result in per_rank.values():
        union += [b for b in result["breaks"] if b not in union]
    errors = [r["error"] for r in per_rank.values() if r["error"]]
    merged: dict[str, Any] = {}
    if compare_eager:
        merged["mismatches"] = [{**m, "rank": int(rank)} for rank, r in per_rank.items() for m in r["mismatches"]]
    return {
        **merged,
        "breaks": union,
        "error": errors[0] if errors else None,
        "graphs": None,
        "recompiles": [{**r, "rank": int(rank)} for rank, result in per_rank.items() for r in result["recompiles"]],
        "recompile_limit": sum(r["recompile_limit"] for r in per_rank.values()),
        "per_rank": per_rank,
    }


def run_all(
    snippets: list[dict[str, Any]], timeout: float = 0, backend: str | None = "eager", first: int = 0
) -> dict[str, dict[str, Any]]:
    """Each snippet's result by its id; the snippets run as ``snippet_<first>.py``, ``snippet_<first + 1>.py``..."""
    results: dict[str, dict[str, Any]] = {}
    try:
        for n, snippet in enumerate(snippets, first):
            try:
                options = options_of(snippet)
            except ValueError as e:
                results[str(snippet["id"])] = {"breaks": [], "error": f"ValueError: {e}", "graphs": None,
                                               "recompiles": [], "recompile_limit": 0}
                continue
            if options["ranks"]:
                result = run_ranks(n, snippet["source"], options["ranks"], timeout, backend, options["compare_eager"])
            else:
                result = run_one(n, snippet["source"], timeout, backend, options["compare_eager"])
            results[str(snippet["id"])] = result
    finally:
        destroy_process_group()
        reset_dynamo()
    return results


def harness_parser(description: str, timeout: float, unit: str) -> argparse.ArgumentParser:
    """The options every harness takes: a time limit per unit of work and the default backend."""
    parser = argparse.ArgumentParser(description=description)
    parser.add_argument("--timeout", type=float, default=timeout, help=f"seconds per {unit} (0: none)")
    parser.add_argument("--backend", default="eager", help="default torch.compile backend ('none': torch's own)")
    return parser


def answer_in_json(compute: Callable[[str | None], object], backend: str, indent: int | None = 2) -> int:
    """Run ``compute(backend)`` with user output sent to stderr; stdout carries the JSON results only (on one
    line with ``indent=None``)."""
    out = sys.stdout
    with contextlib.redirect_stdout(sys.stderr):
        results = compute(None if backend == "none" else backend)
    json.dump(results, out, indent=indent)
    out.write("\n")
    out.flush()
    return 0


def serve(timeout: float, backend: str) -> int:
    """Answer one request per line of stdin until it closes; each snippet gets a file name of its own across
    requests, so no two programs of one process share one."""
    served = 0
    for line in sys.stdin:
        snippets = json.loads(line)
        answer_in_json(lambda chosen: run_all(snippets, timeout, chosen, first=served), backend, indent=None)
        served += len(snippets)
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = harness_parser(__doc__.splitlines()[0], 120.0, "snippet")
    parser.add_argument("--serve", action="store_true", help="answer one JSON request per line until stdin closes")
    args = parser.parse_args(argv)
    if args.serve:
        return serve(args.timeout, args.backend)
    snippets = json.load(sys.stdin)
    return answer_in_json(lambda backend: run_all(snippets, args.timeout, backend), args.backend)


if __name__ == "__main__":
    sys.exit(main())
