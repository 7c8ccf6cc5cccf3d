"""Ground truth on real code: compile real models, record every graph break, score static dynalint.

    python bench/groundtruth/groundtruth.py [--quick | --cover] [--models PATTERN,...] [--jobs 2] [--timeout 300]
                                            [--fresh] [--cached] [--out bench/groundtruth/summary.md]
                                            [--setup] [--sealed] [--compile-only]

For each model of the catalogue (``gt_models.py``: 16 libraries, at tiny sizes with random weights)
a worker process (``gt_worker.py``) compiles it on the installed torch with ``backend="eager"``, in eval (``no_grad``) and train mode, and records the graph-break sites (file,
line, GB id) and the traced lines of the library, through the observers ``--verify`` uses. Results
are cached per model (``gt_runner.py``). Then dynalint lints each library's installed source in
process (``gt_static.py``) and the findings are scored against the union of the models' breaks
(``gt_score.py``); the Markdown summary (``gt_report.py``) goes to stdout and to ``--out``.

``--models`` takes ``fnmatch`` patterns over ids such as ``timm/resnet18`` or ``torch_geometric/*``;
``--quick`` is a ten-model subset; ``--cover`` the models of ``cover.txt`` (``gt_cover.py``), whose results
hold every break site, traced line and entry point of the whole bench's, and so score the same;
``--cached`` scores only what the cache holds (runs nothing).
The summary scores the development half only; the sealed half (``sealed.toml``, ``gt_halves``) is
scored with ``--sealed`` alone. ``--compile-only`` prints the break sites of both halves and scores
nothing. ``--setup`` installs the libraries first (``gt_setup.py``); the driver runs itself in that
environment (``--venv``) whenever it exists.
``transformers`` is deliberately absent: it is the held-out corpus, never tuned or measured on here.
"""

from __future__ import annotations

import argparse
import fnmatch
import os
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import gt_halves  # noqa: E402
import gt_models  # noqa: E402
import gt_setup  # noqa: E402


def select(patterns: str | None, quick: bool, covering: bool = False) -> list[str]:
    everything = gt_models.catalog()
    if quick:
        everything = [m for m in everything if m in gt_models.QUICK]
    if covering:
        import gt_cover

        kept = set(gt_cover.read())
        everything = [m for m in everything if m in kept]
    if not patterns:
        return everything
    wanted = [p.strip() for p in patterns.split(",") if p.strip()]
    return [m for m in everything if any(fnmatch.fnmatch(m, p) or m.endswith("/" + p) for p in wanted)]


def in_environment(venv: Path | None) -> None:
    """Run this driver again with ``venv``'s Python (where the libraries are) unless it already is that one."""
    if venv is None or not (venv / "bin" / "python").exists():
        return
    if Path(sys.prefix).resolve() == venv.resolve():
        return
    python = str(venv / "bin" / "python")
    arguments = [a for a in sys.argv[1:] if a != "--setup"]
    os.execv(python, [python, str(Path(__file__).resolve()), *arguments])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--models", help="comma-separated fnmatch patterns over model ids")
    parser.add_argument("--quick", action="store_true", help="a ten-model subset")
    parser.add_argument("--cover", action="store_true",
                        help="only the models of cover.txt, which observe all that the whole bench does (gt_cover.py)")
    parser.add_argument("--jobs", type=int, default=2, help="models compiled at once (default 2)")
    parser.add_argument("--timeout", type=float, default=300.0, help="seconds per model (default 300)")
    parser.add_argument("--fresh", action="store_true", help="ignore cached model results")
    parser.add_argument("--cached", action="store_true", help="score cached results only; run nothing")
    parser.add_argument("--no-server", action="store_true",
                        help="start a fresh process per model instead of forking it from a library's server")
    parser.add_argument("--out", type=Path, help="also write the Markdown summary here")
    parser.add_argument("--compile-only", action="store_true",
                        help="print the compile side of every library (break sites), score nothing")
    parser.add_argument("--sealed", action="store_true",
                        help="score the sealed half (sealed.toml) instead of the development half")
    parser.add_argument("--setup", action="store_true", help="create or update the environment first (gt_setup.py)")
    parser.add_argument("--venv", type=Path, default=gt_setup.VENV,
                        help=f"the environment to run in (default {gt_setup.VENV})")
    parser.add_argument("--no-venv", action="store_true", help="run with this Python, whatever it has installed")
    options = parser.parse_args()
    if options.setup:
        gt_setup.install(options.venv)
    in_environment(None if options.no_venv else options.venv.expanduser())
    import gt_report
    import gt_runner

    models = select(options.models, options.quick, options.cover)
    if not models:
        raise SystemExit("no model matches --models")
    started = time.perf_counter()
    results = gt_runner.run_all(models, jobs=options.jobs, timeout=options.timeout, fresh=options.fresh,
                                only_cached=options.cached, serve=not options.no_server,
                                progress=lambda line: print(line, file=sys.stderr))
    print(f"{len(results)} model results in {time.perf_counter() - started:.0f} s", file=sys.stderr)
    command = "python bench/groundtruth/groundtruth.py " + " ".join(sys.argv[1:])
    sealed = gt_halves.load()
    compile_side = gt_report.compile_table(results, sealed.protected)
    if options.compile_only:
        print("\n".join(compile_side))
        return
    scored = gt_halves.half({m.split("/", 1)[0] for m in results}, sealed, options.sealed)
    half = "sealed" if options.sealed else "development"
    text = gt_report.render({m: r for m, r in results.items() if m.split("/", 1)[0] in scored}, command.strip(),
                            half=half, compile_side=compile_side)
    print(text)
    if options.out:
        options.out.write_text(text + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
