"""The long fuzz run: thousands of hypothesmith programs and fixture mutants through the whole pipeline.

    python bench/fuzz.py [--programs 10000] [--mutants 10000] [--seed 0] [--jobs 2]
                         [--crash-dir fuzz-crashes] [--keep-per-kind 25] [--cli-every 200]
                         [--timeout 60] [--minimize SECONDS] [--twice] [--dynalint-root PATH]

It sits beside the test suite, not in it: ``tests/fuzz`` runs a few hundred inputs on every test run;
this runs as many as asked, on ``--jobs`` processes, with the same generators and the same oracle
(``tests/fuzz/fuzzing.py``: an exception escaping the API, DYN903, DYN901 on code Python compiles,
a finding outside the file, the CLI exiting 2), plus two kinds that only a long run can afford to
catch: an input running past ``--timeout`` seconds, and a worker process dying (segfault, abort);
``--twice`` also lints each input a second time in the same process and reports findings that change.

Generated programs are counted after wrapping: each hypothesmith module makes three (as is, as an
``@torch.compile`` function's body, as an ``nn.Module.forward`` body). Every ``--cli-every``-th
input also goes through the real ``dynalint`` command. It prints a table (inputs run, crashes by
kind, CPU and wall time) and writes crashing inputs under ``--crash-dir`` as they are found, one
folder per kind (the first ``--keep-per-kind`` distinct inputs of each, 0 for all), with ``index.json``;
``--minimize`` shrinks the smallest input of each kind into ``min-<kind>.py``, ready to become a
``tests/fuzz/crashes/`` file.
Everything is determined by ``--seed`` (and the dynalint under test, ``--dynalint-root`` to fuzz
another copy, e.g. ``git archive HEAD dynalint | tar -x -C /tmp/head``).
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Iterator
from concurrent.futures import FIRST_COMPLETED, ProcessPoolExecutor, wait
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass, field, replace
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests" / "fuzz"))
import fuzzing  # noqa: E402

PROGRAM_CHUNK = 20  # hypothesmith modules per task (x3 programs)
MUTANT_CHUNK = 50
NODE_EVERY = 8  # one program task in NODE_EVERY draws from from_node (LibCST trees: slower, other shapes)


@dataclass(frozen=True)
class Task:
    id: int
    source: str  # "programs" or "mutants"
    seed: int
    start: int  # mutants: first index; programs: unused
    count: int  # mutants: how many; programs: hypothesmith examples
    grammar: bool = True
    skip: frozenset[int] = frozenset()  # inputs (by position in the task) that killed a worker


@dataclass
class Outcome:
    task: int
    source: str
    inputs: int = 0
    cli_runs: int = 0
    cpu_s: float = 0.0
    crashes: list[tuple[str, bytes, fuzzing.Crash]] = field(default_factory=list)


class _Timeout(BaseException):
    """Not an ``Exception``: the pipeline's own ``except Exception`` must not swallow it."""


def _on_alarm(signum: int, frame: object) -> None:
    raise _Timeout


_STATE: dict[str, object] = {}


def _init_worker(run_root: str, dynalint_root: str | None, timeout: float, cli_every: int, twice: bool) -> None:
    if dynalint_root:
        sys.path.insert(0, dynalint_root)
    workdir = Path(run_root) / f"w{os.getpid()}"
    fuzzing.prepare_workdir(workdir)
    _STATE.update(workdir=workdir, timeout=timeout, cli_every=cli_every, twice=twice)
    signal.signal(signal.SIGALRM, _on_alarm)


def _judge(outcome: Outcome, task: Task, position: int, name: str, data: bytes) -> None:
    """Run the oracle on one input, under the time limit, leaving a marker naming it while it runs
    (the marker and ``fuzzed.py`` are what the parent reads if this process dies)."""
    workdir: Path = _STATE["workdir"]  # type: ignore[assignment]
    outcome.inputs += 1
    if position in task.skip:
        return
    cli_every = int(_STATE["cli_every"])  # type: ignore[arg-type]
    cli = cli_every > 0 and (task.id * 7919 + position) % cli_every == 0  # spread over tasks and sources
    marker = workdir / "busy"
    marker.write_text(json.dumps({"task": task.id, "position": position, "name": name}), encoding="utf-8")
    (workdir / fuzzing.FILE_NAME).write_bytes(data)
    signal.setitimer(signal.ITIMER_REAL, float(_STATE["timeout"]))  # type: ignore[arg-type]
    try:
        crashes = fuzzing.check(data, workdir, source=position % 4 == 0, cli=cli, twice=bool(_STATE["twice"]))
    except _Timeout:
        crashes = [fuzzing.Crash("timeout", "timeout", f"ran past {_STATE['timeout']} s", "api")]
        _settle()
    except Exception as error:  # the harness's own bug: report it, keep fuzzing
        crashes = [fuzzing.Crash("harness", f"harness error {type(error).__name__}", repr(error)[:200], "api")]
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
    marker.unlink()
    outcome.cli_runs += cli
    outcome.crashes += [(name, data, crash) for crash in crashes]


def _settle() -> None:
    """Wait for the threads an interrupted lint left running (dynalint lints on a deep-stack thread)
    before the next input, with the marker still naming the input: if one of them brings the process
    down, that input is the culprit, and no later input runs beside it."""
    signal.setitimer(signal.ITIMER_REAL, 0)
    for thread in threading.enumerate():
        if thread is not threading.main_thread():
            thread.join(600)


def run_task(task: Task) -> Outcome:
    started = time.process_time()
    outcome = Outcome(task.id, task.source)
    if task.source == "mutants":
        for position in range(task.count):
            index = task.start + position
            mutant = fuzzing.mutant(task.seed, index)
            _judge(outcome, task, position, f"mutant {task.seed}:{index} {mutant.name}", mutant.data)
    else:
        position = 0

        def callback(code: str) -> None:
            nonlocal position
            for variant, program in fuzzing.wrap(code).items():
                name = f"{'grammar' if task.grammar else 'node'} task {task.id} #{position} {variant}"
                _judge(outcome, task, position, name, program.encode("utf-8", "surrogatepass"))
                position += 1

        fuzzing.for_each_generated(callback, task.count, grammar=task.grammar, seed=task.seed * 100_003 + task.id)
    outcome.cpu_s = time.process_time() - started
    return outcome


def plan(programs: int, mutants: int, seed: int) -> list[Task]:
    examples = -(-programs // 3)
    generated = [
        Task(n, "programs", seed, 0, min(PROGRAM_CHUNK, examples - start), grammar=n % NODE_EVERY != NODE_EVERY - 1)
        for n, start in enumerate(range(0, examples, PROGRAM_CHUNK))
    ]
    mutated = [
        Task(len(generated) + n, "mutants", seed, start, min(MUTANT_CHUNK, mutants - start))
        for n, start in enumerate(range(0, mutants, MUTANT_CHUNK))
    ]
    # Interleave the two sources so that a partial run (or a progress line) shows both.
    longest = max(len(generated), len(mutated))
    return [task for n in range(longest) for task in (generated[n:n + 1] + mutated[n:n + 1])]


_PROBE = """\
import sys
from pathlib import Path
sys.path[:0] = [p for p in sys.argv[3:]]
import fuzzing
fuzzing.check(Path(sys.argv[1]).read_bytes(), Path(sys.argv[2]), source=True)
"""


def _kills_python(data: bytes, scratch: Path, dynalint_root: str | None) -> int:
    """Whether linting ``data`` kills a fresh interpreter: its negative exit code (the signal), else 0."""
    scratch.mkdir(parents=True, exist_ok=True)
    path = scratch / "suspect.bin"
    path.write_bytes(data)
    paths = [str(ROOT / "tests" / "fuzz"), *([dynalint_root] if dynalint_root else [])]
    try:
        completed = subprocess.run([sys.executable, "-c", _PROBE, str(path), str(scratch / "work"), *paths],
                                   capture_output=True, timeout=300)
    except subprocess.TimeoutExpired:
        return 0
    return completed.returncode if completed.returncode < 0 else 0


def execute(tasks: list[Task], args: argparse.Namespace, run_root: Path) -> Iterator[Outcome]:
    """Run every task, surviving dead workers. When a worker dies (segfault, abort), the pool breaks
    and the other workers are terminated; the dead one is known by its exit code, and the input it was
    on by the marker in its folder. That input is reported (``worker-died``) and skipped when its task
    re-runs; the interrupted tasks of the others re-run in full."""
    pending = {task.id: task for task in tasks}
    restarts = 0
    while pending:
        broken = False
        with ProcessPoolExecutor(args.jobs, initializer=_init_worker,
                                 initargs=(str(run_root), args.dynalint_root, args.timeout, args.cli_every,
                                           args.twice)) as pool:
            # Private, but stable since 3.8: the exit codes of the workers tell the dead one from the
            # ones the pool terminated (SIGTERM) when it broke.
            processes = getattr(pool, "_processes", None)
            futures = {pool.submit(run_task, task): task.id for task in pending.values()}
            while futures and not broken:
                done, _ = wait(futures, return_when=FIRST_COMPLETED)
                for future in done:
                    task_id = futures.pop(future)
                    try:
                        outcome = future.result()
                    except BrokenProcessPool:
                        broken = True
                        continue
                    except Exception as error:  # outside any one input (generation, say): lose the task
                        crash = fuzzing.Crash("harness", f"harness error {type(error).__name__}",
                                              f"task {task_id} lost: {error!r}"[:200], "api")
                        outcome = Outcome(task_id, pending[task_id].source, crashes=[(f"task {task_id}", b"", crash)])
                    del pending[task_id]
                    yield outcome
        if not broken:
            break
        restarts += 1
        if restarts > 200:
            print("fuzz: more than 200 dead pools, giving up on the rest", file=sys.stderr)
            break
        exits = {pid: process.exitcode for pid, process in (processes or {}).items()}
        for marker in sorted(run_root.glob("w*/busy")):
            info = json.loads(marker.read_text(encoding="utf-8"))
            data = (marker.parent / fuzzing.FILE_NAME).read_bytes()
            marker.unlink()
            code = exits.get(int(marker.parent.name[1:]))
            if code == -signal.SIGTERM:
                continue  # terminated by the pool, innocent: its task re-runs in full
            if code is None or code >= 0:  # no exit code to go by: does the input kill a fresh interpreter?
                code = _kills_python(data, run_root / "probe", args.dynalint_root) or None
            how = signal.Signals(-code).name if code and code < 0 else "unreproduced"
            if how == "unreproduced" and restarts <= 5:
                continue
            task = pending.get(info["task"])
            if task is not None:
                pending[task.id] = replace(task, skip=task.skip | {info["position"]})
            crash = fuzzing.Crash("worker-died", f"worker died ({how})", f"the process linting it died ({how})", "api")
            yield Outcome(-1, "programs" if task is None or task.source == "programs" else "mutants",
                          crashes=[(info["name"], data, crash)])


def _slug(key: str) -> str:
    return re.sub(r"[^A-Za-z0-9]+", "_", key).strip("_")[:80] or "crash"


def _minimize_one(key: str, via: str, data: bytes, budget: float, workdir: str, dynalint_root: str | None) -> bytes:
    if dynalint_root:
        sys.path.insert(0, dynalint_root)
    work = Path(workdir)

    def still(candidate: bytes) -> bool:
        if via == "source":
            found = fuzzing.check_source(candidate.decode("utf-8", "surrogateescape"))
        elif via == "cli":
            found = fuzzing.check_cli(candidate, work)
        else:
            found = fuzzing.check_api(candidate, work)
        return any(crash.key == key for crash in found)

    return fuzzing.minimize(data, still, budget)


class CrashLog:
    """Crashes by kind, written out as they arrive (a run cut short keeps what it found)."""

    def __init__(self, crash_dir: Path | None, keep_per_kind: int) -> None:
        self.crash_dir = crash_dir
        self.keep = keep_per_kind
        self.by_key: dict[str, list[tuple[str, bytes, fuzzing.Crash]]] = {}
        self.written: dict[str, set[str]] = {}
        self.index: list[dict[str, object]] = []
        if crash_dir:
            crash_dir.mkdir(parents=True, exist_ok=True)

    def add(self, name: str, data: bytes, crash: fuzzing.Crash) -> None:
        self.by_key.setdefault(crash.key, []).append((name, data, crash))
        if self.crash_dir is None or not data:
            return
        written = self.written.setdefault(crash.key, set())
        digest = fuzzing.digest(data)
        if digest in written or (self.keep and len(written) >= self.keep):
            return
        written.add(digest)
        folder = self.crash_dir / _slug(crash.key)
        folder.mkdir(exist_ok=True)
        path = folder / f"{digest}.py"
        path.write_bytes(data)
        self.index.append({"key": crash.key, "category": crash.category, "via": crash.via, "detail": crash.detail,
                           "input": name, "file": str(path), "bytes": len(data)})
        (self.crash_dir / "index.json").write_text(json.dumps(self.index, indent=1), encoding="utf-8")

    def minimize(self, args: argparse.Namespace, run_root: Path) -> dict[str, Path]:
        """One reproducer per kind, shrunk from the smallest input of the kind, as ``min-<kind>.py``."""
        if self.crash_dir is None or args.minimize <= 0:
            return {}
        shrinkable = {key: min(items, key=lambda item: len(item[1])) for key, items in self.by_key.items()
                      if items[0][2].category not in ("worker-died", "timeout", "harness")}
        minimized: dict[str, Path] = {}
        with ProcessPoolExecutor(args.jobs) as pool:
            futures = {
                key: pool.submit(_minimize_one, key, crash.via, data, args.minimize, str(run_root / f"min{n}"),
                                 args.dynalint_root)
                for n, (key, (_, data, crash)) in enumerate(sorted(shrinkable.items()))
            }
            for key, future in futures.items():
                try:
                    small = future.result()
                except Exception as error:  # a shrink step that kills the process: keep the original
                    print(f"fuzz: could not minimize {key!r}: {error!r}"[:300], file=sys.stderr)
                    continue
                path = self.crash_dir / f"min-{_slug(key)}.py"
                path.write_bytes(small)
                minimized[key] = path
        return minimized


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--programs", type=int, default=10_000, help="generated programs (after wrapping, x3)")
    parser.add_argument("--mutants", type=int, default=10_000, help="mutants of fixtures/**/*.py")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 2)
    parser.add_argument("--crash-dir", type=Path, default=None, help="where crashing inputs are written")
    parser.add_argument("--keep-per-kind", type=int, default=25, help="inputs written per crash kind (0: all)")
    parser.add_argument("--cli-every", type=int, default=200, help="every Nth input also through the CLI (0: never)")
    parser.add_argument("--timeout", type=float, default=60.0, help="seconds per input before it is a crash")
    parser.add_argument("--minimize", type=float, default=0.0, help="seconds to shrink one input per kind")
    parser.add_argument("--twice", action="store_true", help="lint each input twice and compare (state leaks)")
    parser.add_argument("--dynalint-root", default=None, help="a folder holding another dynalint/ to fuzz")
    args = parser.parse_args(argv)
    if args.dynalint_root:
        args.dynalint_root = str(Path(args.dynalint_root).resolve())
        sys.path.insert(0, args.dynalint_root)

    tasks = plan(args.programs, args.mutants, args.seed)
    started = time.perf_counter()
    totals = {"programs": Outcome(-1, "programs"), "mutants": Outcome(-1, "mutants")}
    crashing_inputs: dict[str, set[str]] = {"programs": set(), "mutants": set()}
    log = CrashLog(args.crash_dir, args.keep_per_kind)
    last_report = started
    run_root = Path(tempfile.mkdtemp(prefix="dynalint-fuzz-"))
    try:
        for outcome in execute(tasks, args, run_root):
            total = totals[outcome.source]
            total.inputs += outcome.inputs
            total.cli_runs += outcome.cli_runs
            total.cpu_s += outcome.cpu_s
            for name, data, crash in outcome.crashes:
                crashing_inputs[outcome.source].add(name)
                log.add(name, data, crash)
            if time.perf_counter() - last_report > 30:
                last_report = time.perf_counter()
                print(f"[{last_report - started:7.0f} s] programs {totals['programs'].inputs}, mutants "
                      f"{totals['mutants'].inputs}, crash kinds {len(log.by_key)}", file=sys.stderr, flush=True)
        wall = time.perf_counter() - started
        minimized = log.minimize(args, run_root)
    finally:
        shutil.rmtree(run_root, ignore_errors=True)
    _print_table(args, totals, crashing_inputs, log.by_key, wall, minimized)
    return 0


def _print_table(args: argparse.Namespace, totals: dict[str, Outcome], crashing: dict[str, set[str]],
                 by_key: dict[str, list[tuple[str, bytes, fuzzing.Crash]]], wall: float,
                 minimized: dict[str, Path]) -> None:
    under_test = fuzzing.dynalint_root()
    print(f"dynalint fuzz: seed {args.seed}, {args.jobs} jobs, dynalint from {under_test}")
    print(f"{'source':<22}{'inputs':>9}{'crashing':>10}{'CLI runs':>10}{'CPU s':>10}")
    for source, label in (("programs", "generated programs"), ("mutants", "fixture mutants")):
        total = totals[source]
        print(f"{label:<22}{total.inputs:>9}{len(crashing[source]):>10}{total.cli_runs:>10}{total.cpu_s:>10.1f}")
    print(f"wall time: {wall:.1f} s")
    categories: dict[str, int] = {}
    for items in by_key.values():
        categories[items[0][2].category] = categories.get(items[0][2].category, 0) + len(items)
    print("crashes by category: " + (", ".join(f"{c} {n}" for c, n in sorted(categories.items())) or "none"))
    if not by_key:
        return
    print(f"\n{'inputs':>7}  {'smallest':>9}  kind")
    for key, items in sorted(by_key.items(), key=lambda kv: (-len(kv[1]), kv[0])):
        name, data, crash = min(items, key=lambda item: len(item[1]))
        print(f"{len(items):>7}  {len(data):>8}B  {key}")
        print(f"{'':>20}{crash.detail[:160]!r}")
        print(f"{'':>20}first smallest: {name} (via {crash.via})")
        if key in minimized:
            print(f"{'':>20}minimized: {minimized[key]} ({minimized[key].stat().st_size} B)")


if __name__ == "__main__":
    sys.exit(main())
