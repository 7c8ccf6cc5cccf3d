"""Compile what a user factory returns, call it with its example inputs, and report Dynamo's breaks.

A test harness, not part of dynalint: ``tests/test_projects.py`` proves a project's annotations with
it, through the verify stage's own observer.

Usage: ``python tests/harness/run_factory.py ROOT MODULE:FUNCTION [--backend eager]``. ``ROOT`` goes
on ``sys.path`` and bounds the files whose lines are reported. The factory returns
``(callable, args, kwargs)``: a function or a constructed module and the inputs to call it with (the
example-inputs convention of ``torch.export`` and TorchBench). Prints a JSON list of breaks:
``{"file": path relative to ROOT, "line", "gb_id", "reason", "function"}``.
"""

from __future__ import annotations

import argparse
import importlib
import sys
from pathlib import Path

from run_snippets import answer_in_json

from dynalint.verify.observe import record_breaks


def run(root: Path, factory_ref: str, backend: str) -> list[dict[str, object]]:
    import torch

    sys.path.insert(0, str(root))
    module_name, _, function_name = factory_ref.partition(":")
    factory = getattr(importlib.import_module(module_name), function_name)
    target, args, kwargs = factory()
    with record_breaks(str(root)) as breaks:
        torch.compile(target, backend=backend)(*args, **kwargs)
    return [
        {
            "file": Path(b.filename).resolve().relative_to(root).as_posix()
            if Path(b.filename).resolve().is_relative_to(root)
            else b.filename,
            "line": b.line,
            "gb_id": b.gb_id,
            "reason": b.reason,
            "function": b.function,
        }
        for b in breaks
    ]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("root", type=Path)
    parser.add_argument("factory", help="module:function returning (callable, args, kwargs)")
    parser.add_argument("--backend", default="eager")
    options = parser.parse_args(argv)
    return answer_in_json(lambda backend: run(options.root.resolve(), options.factory, backend), options.backend)


if __name__ == "__main__":
    sys.exit(main())
