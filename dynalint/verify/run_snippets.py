"""Run snippets under torch.compile and report the graph breaks Dynamo logs.

Usage: ``python -m dynalint.verify.run_snippets [--timeout S] < snippets.json``

stdin:  ``[{"id": str, "source": str}, ...]``, each source a complete program
        that imports torch, compiles a function and calls it.
stdout: ``{id: {"breaks": [{"gb_id", "reason", "line", "function"}, ...],
        "error": str | null}}`` and nothing else (snippet output goes to stderr).

Each snippet runs in a fresh ``__main__`` module compiled under the file name
``snippet_<n>.py`` (registered with linecache), with Dynamo state and the
dynamo/inductor/functorch configs reset between snippets.  Snippets that
mention ``torch.distributed`` get a single-process gloo group (rank 0,
world_size 1), created once and destroyed at the end.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import linecache
import re
import signal
import socket
import sys
import types
from typing import Any, Iterator

from dynalint.verify.observe import record_breaks

_USES_DIST = re.compile(r"torch\.distributed|from\s+torch\s+import\s+[^\n]*\bdistributed\b")
_ERROR_MAX = 2000


class SnippetTimeout(Exception):
    """A snippet ran longer than --timeout seconds."""


def _free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _ensure_process_group() -> None:
    import torch.distributed as dist

    if not dist.is_initialized():
        dist.init_process_group(
            "gloo", rank=0, world_size=1, init_method=f"tcp://127.0.0.1:{_free_port()}"
        )


def _destroy_process_group() -> None:
    import torch.distributed as dist

    if dist.is_available() and dist.is_initialized():
        dist.destroy_process_group()


def _config_modules() -> list[Any]:
    import torch._dynamo.config
    import torch._functorch.config
    import torch._inductor.config

    return [torch._dynamo.config, torch._inductor.config, torch._functorch.config]


@contextlib.contextmanager
def _restored_configs() -> Iterator[None]:
    """Undo config changes a snippet makes (torch._dynamo.reset() does not)."""
    saved = [(mod, mod.get_config_copy()) for mod in _config_modules()]
    try:
        yield
    finally:
        for mod, cfg in saved:
            with contextlib.suppress(Exception):
                mod.load_config(cfg)


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


@contextlib.contextmanager
def _default_backend(backend: str | None) -> Iterator[None]:
    """Make ``torch.compile`` default to ``backend`` while a snippet runs.

    Graph breaks are decided by Dynamo before any backend sees a graph, so ``"eager"`` observes the
    same breaks as inductor at a fraction of the cost; a snippet that names a backend keeps it.
    """
    if backend is None:
        yield
        return
    import torch

    original = torch.compile

    def compile_with_default(model: Any = None, **kwargs: Any) -> Any:
        kwargs.setdefault("backend", backend)
        return original(model, **kwargs) if model is not None else original(**kwargs)

    torch.compile = compile_with_default  # type: ignore[assignment]
    try:
        yield
    finally:
        torch.compile = original  # type: ignore[assignment]


@contextlib.contextmanager
def _time_limit(seconds: float) -> Iterator[None]:
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


def run_one(n: int, source: str, timeout: float = 0, backend: str | None = "eager") -> dict[str, Any]:
    """Run one snippet; return its breaks and error (``None`` when it ran through)."""
    filename = f"snippet_{n}.py"
    error: str | None = None
    with _restored_configs(), _default_backend(backend), _as_main(filename, source) as namespace:
        with record_breaks(filename) as breaks:
            try:
                if _USES_DIST.search(source):
                    _ensure_process_group()
                code = compile(source, filename, "exec")
                with _time_limit(timeout):
                    exec(code, namespace)
            except (Exception, SystemExit) as e:  # noqa: BLE001  (report, keep going)
                error = f"{type(e).__name__}: {str(e).strip()}"[:_ERROR_MAX]
    return {
        "breaks": [
            {"gb_id": b.gb_id, "reason": b.reason, "line": b.line, "function": b.function}
            for b in breaks
        ],
        "error": error,
    }


def run_all(
    snippets: list[dict[str, str]], timeout: float = 0, backend: str | None = "eager"
) -> dict[str, dict[str, Any]]:
    results: dict[str, dict[str, Any]] = {}
    try:
        for n, snippet in enumerate(snippets):
            results[str(snippet["id"])] = run_one(n, snippet["source"], timeout, backend)
    finally:
        _destroy_process_group()
        from dynalint.verify.observe import reset_dynamo

        reset_dynamo()
    return results


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--timeout", type=float, default=120.0, help="seconds per snippet (0: none)")
    parser.add_argument("--backend", default="eager", help="default torch.compile backend ('none': torch's own)")
    args = parser.parse_args(argv)
    out = sys.stdout
    snippets = json.load(sys.stdin)
    with contextlib.redirect_stdout(sys.stderr):  # stdout carries the JSON only
        results = run_all(snippets, args.timeout, None if args.backend == "none" else args.backend)
    json.dump(results, out, indent=2)
    out.write("\n")
    out.flush()
    return 0


if __name__ == "__main__":
    sys.exit(main())
