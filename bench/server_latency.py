"""Time to first diagnostics of ``dynalint server`` on a real tree, as ratios against the CLI in the same run.

    python bench/server_latency.py [--repeat 3] [--tree PATH] [--file REL]

The tree (default: diffusers, see ``corpus.py``) is copied into a scratch project with a
``pyproject.toml``. Each repeat times, alternating:

- **server cold**: a fresh ``dynalint server`` with no cache on disk; from ``didOpen`` of one file (and
  from the process start) to its first ``publishDiagnostics``. It summarizes the whole project;
- **after a change**: the same server, a ``print`` added to the file's first ``forward``; from
  ``didChange`` to the updated diagnostics (one file re-summarized, the rest from memory);
- **server, CLI cache on disk**: a fresh server started after ``dynalint FILE`` filled the cache;
- the references: ``dynalint --no-cache FILE`` and ``dynalint FILE`` with a warm cache, whole processes.

It prints the medians and the ratios server / CLI.
"""

from __future__ import annotations

import argparse
import asyncio
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from lsprotocol import types
from pygls.lsp.client import LanguageClient

sys.path.insert(0, str(Path(__file__).resolve().parent))
import corpus  # noqa: E402

TIMEOUT = 600


async def _server_run(project: Path, relative: str) -> dict[str, float]:
    """One server session: cold open, then one change; seconds for each, and the findings seen."""
    client = LanguageClient("bench", "1")
    published: asyncio.Queue[tuple[float, int]] = asyncio.Queue()

    @client.feature(types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS)
    def on_diagnostics(params: types.PublishDiagnosticsParams) -> None:
        published.put_nowait((time.perf_counter(), len(params.diagnostics)))

    @client.feature(types.WINDOW_LOG_MESSAGE)
    def on_log(params: types.LogMessageParams) -> None:
        """The server's line per run (files summarized): not needed here."""

    path = project / relative
    text = path.read_text(encoding="utf-8")
    uri = path.as_uri()
    started = time.perf_counter()
    await client.start_io(sys.executable, "-m", "dynalint", "server", cwd=str(project))
    await client.initialize_async(types.InitializeParams(capabilities=types.ClientCapabilities(),
                                                         root_uri=project.as_uri()))
    client.initialized(types.InitializedParams())
    opened = time.perf_counter()
    client.text_document_did_open(types.DidOpenTextDocumentParams(types.TextDocumentItem(uri, "python", 1, text)))
    first_at, first_count = await asyncio.wait_for(published.get(), TIMEOUT)
    edited = _with_print(text)
    changed = time.perf_counter()
    client.text_document_did_change(types.DidChangeTextDocumentParams(
        types.VersionedTextDocumentIdentifier(2, uri), [types.TextDocumentContentChangeWholeDocument(edited)]
    ))
    second_at, second_count = await asyncio.wait_for(published.get(), TIMEOUT)
    await client.shutdown_async(None)
    client.exit(None)
    await client.stop()
    return {"open": first_at - opened, "from start": first_at - started, "change": second_at - changed,
            "findings": first_count, "findings after change": second_count}


def _with_print(text: str) -> str:
    """``text`` with ``print("edited")`` as the first statement of its first ``forward``."""
    lines = text.splitlines(keepends=True)
    for index, line in enumerate(lines):
        if line.lstrip().startswith("def forward("):
            body = index + 1
            while not lines[body - 1].rstrip().endswith(":"):  # a signature over several lines
                body += 1
            indent = line[: len(line) - len(line.lstrip())] + "    "
            lines.insert(body, f'{indent}print("edited")\n')
            return "".join(lines)
    raise SystemExit("the file has no forward method to edit")


def _cli(project: Path, *args: str) -> float:
    started = time.perf_counter()
    subprocess.run([sys.executable, "-m", "dynalint", "--exit-zero", "--quiet", *args], cwd=project,
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True)
    return time.perf_counter() - started


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--tree", type=Path, help="a package folder (default: diffusers from corpus.py)")
    parser.add_argument("--file", default="models/attention_processor.py", help="the file opened, inside the tree")
    options = parser.parse_args()
    package = options.tree or corpus.diffusers()
    timings: dict[str, list[float]] = {}
    counts: set[tuple[float, float]] = set()
    with tempfile.TemporaryDirectory() as scratch:
        project = Path(scratch)
        (project / "pyproject.toml").write_text("[tool.dynalint]\n", encoding="utf-8")
        shutil.copytree(package, project / package.name, ignore=shutil.ignore_patterns("__pycache__"))
        relative = f"{package.name}/{options.file}"
        cache = project / ".dynalint_cache"
        for _ in range(options.repeat):
            shutil.rmtree(cache, ignore_errors=True)
            cold = asyncio.run(_server_run(project, relative))
            assert not cache.exists(), "the server wrote the cache"
            timings.setdefault("CLI --no-cache FILE", []).append(_cli(project, "--no-cache", relative))
            timings.setdefault("CLI FILE, cache filled (first run)", []).append(_cli(project, relative))
            timings.setdefault("CLI FILE, warm cache", []).append(_cli(project, relative))
            warm = asyncio.run(_server_run(project, relative))
            for name, value in (("server cold: didOpen -> diagnostics", cold["open"]),
                                ("server cold: process start -> diagnostics", cold["from start"]),
                                ("server: didChange -> diagnostics", cold["change"]),
                                ("server, CLI cache on disk: didOpen -> diagnostics", warm["open"]),
                                ("server, CLI cache on disk: didChange -> diagnostics", warm["change"])):
                timings.setdefault(name, []).append(value)
            counts.add((cold["findings"], cold["findings after change"]))
    files = sum(1 for _ in package.rglob("*.py"))
    median = {name: statistics.median(values) for name, values in timings.items()}
    print(f"{package.name}: {files} files, opened {options.file}; median of {options.repeat} (seconds)")
    for name, value in median.items():
        print(f"  {name:<52} {value:7.2f}")
    print(f"  diagnostics on open / after the change: {sorted(counts)}")
    print("  ratios:")
    for case, reference in (("server cold: process start -> diagnostics", "CLI --no-cache FILE"),
                            ("server: didChange -> diagnostics", "CLI FILE, warm cache"),
                            ("server, CLI cache on disk: didOpen -> diagnostics", "CLI FILE, warm cache")):
        print(f"    {case} / {reference}: {median[case] / median[reference]:.2f}x")


if __name__ == "__main__":
    main()
