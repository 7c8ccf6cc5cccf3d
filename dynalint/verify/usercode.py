"""Verify stage, inside the worker: the setting user code runs in while Dynamo is watched.

``worker.py`` imports a job's file by path (``import_path``), with ``torch.compile`` defaulting to the
chosen backend (``default_backend``), the Dynamo / inductor / functorch configs restored afterwards
(``restored_configs``) and a single-process gloo group for code that uses ``torch.distributed``
(``ensure_process_group``). The test and bench harnesses (``tests/harness/``) reuse these pieces.
torch is imported lazily, inside functions only.
"""

from __future__ import annotations

import contextlib
import functools
import importlib
import importlib.util
import re
import socket
import sys
import types
from collections.abc import Iterator
from pathlib import Path
from typing import Any, Protocol

USES_DIST = re.compile(r"torch\.distributed|from\s+torch\s+import\s+[^\n]*\bdistributed\b")
ERROR_MAX = 2000  # characters of an error message kept in a result


class CompileHook(Protocol):
    """Sees every ``torch.compile`` call made under ``default_backend``: may swap its backend and
    wrap what it returns (the snippet harness counts graphs and compares with eager this way)."""

    def backend(self, backend: Any) -> Any: ...

    def wrap(self, compiled: Any, original: Any) -> Any: ...


def _free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def ensure_process_group() -> None:
    """A single-process gloo group (rank 0, world size 1), unless one exists."""
    import torch.distributed as dist

    if not dist.is_initialized():
        dist.init_process_group(
            "gloo", rank=0, world_size=1, init_method=f"tcp://127.0.0.1:{_free_port()}"
        )


def destroy_process_group() -> None:
    import torch.distributed as dist

    if dist.is_available() and dist.is_initialized():
        dist.destroy_process_group()


def _config_modules() -> list[types.ModuleType]:
    import torch._dynamo.config
    import torch._functorch.config
    import torch._inductor.config

    return [torch._dynamo.config, torch._inductor.config, torch._functorch.config]


@contextlib.contextmanager
def restored_configs() -> Iterator[None]:
    """Undo config changes user code makes (torch._dynamo.reset() does not)."""
    saved = [(mod, mod.get_config_copy()) for mod in _config_modules()]
    try:
        yield
    finally:
        for mod, cfg in saved:
            with contextlib.suppress(Exception):
                mod.load_config(cfg)


@contextlib.contextmanager
def default_backend(backend: Any, hook: CompileHook | None = None) -> Iterator[None]:
    """Make ``torch.compile`` default to ``backend`` (a name or a backend object) inside the block.

    Graph breaks are decided by Dynamo before any backend sees a graph, so ``"eager"`` observes the
    same breaks as inductor at a fraction of the cost; code that names a backend keeps it. With a
    ``hook``, every call's backend and compiled callable go through it.
    """
    if backend is None and hook is None:
        yield
        return
    import torch

    original = torch.compile

    def compile_with_default(model: Any = None, **kwargs: Any) -> Any:
        if backend is not None:
            kwargs.setdefault("backend", backend)
        if hook is None:
            return original(model, **kwargs) if model is not None else original(**kwargs)
        if model is None:  # ``@torch.compile(...)``: torch's own decorator would call us again
            return functools.partial(compile_with_default, **kwargs)
        kwargs["backend"] = hook.backend(kwargs.get("backend", "inductor"))
        return hook.wrap(original(model, **kwargs), model)

    torch.compile = compile_with_default
    try:
        yield
    finally:
        torch.compile = original


def _package_root(path: Path) -> Path | None:
    """The outermost folder of the package holding ``path``, or None when its folder is no package."""
    root = None
    folder = path.parent
    while (folder / "__init__.py").is_file():
        root = folder
        folder = folder.parent
    return root


def import_path(path: Path) -> types.ModuleType:
    """Import ``path`` as a module, making its package (if any) or its folder importable.

    A file inside a package (a folder with ``__init__.py``) is imported under its dotted name with the
    package root's parent on ``sys.path``, so relative imports work; any other file under its stem
    with its folder on ``sys.path``.
    """
    root = _package_root(path)
    if root is not None:
        search = str(root.parent)
        parts = path.relative_to(root.parent).with_suffix("").parts
        name = ".".join(parts[:-1] if parts[-1] == "__init__" else parts)
    else:
        search = str(path.parent)
        name = path.stem
    if search not in sys.path:
        sys.path.insert(0, search)
    if root is not None:
        module = importlib.import_module(name)
        loaded = getattr(module, "__file__", None)
        if loaded is None or Path(loaded).resolve() != path:
            raise ImportError(f"{name!r} resolved to {loaded}, not {path}")
        return module
    spec = importlib.util.spec_from_file_location(name, path)
    if spec is None or spec.loader is None:
        raise ImportError(f"cannot import {path}")
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module
