"""Ground truth on real code: compile real models, record every graph break, score static dynalint.

    python bench/groundtruth/groundtruth.py [--quick] [--models PATTERN,...] [--jobs 2] [--timeout 300]
                                            [--fresh] [--cached] [--out bench/groundtruth/summary.md]

For each model of the catalogue (``gt_models.py``: diffusers, timm, torch_geometric, at tiny sizes
with random weights) a worker process (``gt_worker.py``) compiles it on the installed torch with
``backend="eager"``, in eval (``no_grad``) and train mode, and records the graph-break sites (file,
line, GB id) and the traced lines of the library, through the observers ``--verify`` uses. Results
are cached per model (``gt_runner.py``). Then dynalint lints each library's installed source in
process (``gt_static.py``) and the findings are scored against the union of the models' breaks
(``gt_score.py``); the Markdown summary (``gt_report.py``) goes to stdout and to ``--out``.

``--models`` takes ``fnmatch`` patterns over ids such as ``timm/resnet18`` or ``torch_geometric/*``;
``--quick`` is a ten-model subset; ``--cached`` scores only what the cache holds (runs nothing).
``transformers`` is deliberately absent: it is the held-out corpus, never tuned or measured on here.
"""

from __future__ import annotations

import argparse
import fnmatch
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import gt_halves  # noqa: E402
import gt_models  # noqa: E402
import gt_report  # noqa: E402
import gt_runner  # noqa: E402


def select(patterns: str | None, quick: bool) -> list[str]:
    everything = gt_models.catalog()
    if quick:
        everything = [m for m in everything if m in gt_models.QUICK]
    if not patterns:
        return everything
    wanted = [p.strip() for p in patterns.split(",") if p.strip()]
    return [m for m in everything if any(fnmatch.fnmatch(m, p) or m.endswith("/" + p) for p in wanted)]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--models", help="comma-separated fnmatch patterns over model ids")
    parser.add_argument("--quick", action="store_true", help="a ten-model subset")
    parser.add_argument("--jobs", type=int, default=2, help="models compiled at once (default 2)")
    parser.add_argument("--timeout", type=float, default=300.0, help="seconds per model (default 300)")
    parser.add_argument("--fresh", action="store_true", help="ignore cached model results")
    parser.add_argument("--cached", action="store_true", help="score cached results only; run nothing")
    parser.add_argument("--out", type=Path, help="also write the Markdown summary here")
    parser.add_argument("--compile-only", action="store_true",
                        help="print the compile side of every library (break sites), score nothing")
    options = parser.parse_args()
    models = select(options.models, options.quick)
    if not models:
        raise SystemExit("no model matches --models")
    started = time.perf_counter()
    results = gt_runner.run_all(models, jobs=options.jobs, timeout=options.timeout, fresh=options.fresh,
                                only_cached=options.cached, progress=lambda line: print(line, file=sys.stderr))
    print(f"{len(results)} model results in {time.perf_counter() - started:.0f} s", file=sys.stderr)
    command = "python bench/groundtruth/groundtruth.py " + " ".join(sys.argv[1:])
    if options.compile_only:
        print("\n".join(gt_report.compile_table(results, gt_halves.load().libraries)))
        return
    text = gt_report.render(results, command.strip())
    print(text)
    if options.out:
        options.out.write_text(text + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
