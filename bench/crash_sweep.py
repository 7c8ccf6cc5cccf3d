"""Crash sweep: run the installed ``dynalint`` CLI over big trees of real code and list every crash.

    python bench/crash_sweep.py --build-corpus /tmp/sweep-site    # once: pip --no-deps + torch's sources
    python bench/crash_sweep.py --corpus /tmp/sweep-site [--precommit-files 10] [--rev HEAD] [--json-out F]
    python bench/crash_sweep.py FOLDER [FOLDER...]                # or any folders

What it measures, per corpus root (a folder), each as a separate child process of the CLI:

- folder mode: ``dynalint --output-format json --exit-zero --extend-select ALL ROOT`` (every rule on,
  so that every rule meets every file), run from an empty temporary folder so that no
  ``[tool.dynalint]`` config is picked up;
- pre-commit mode: ``--precommit-files`` files of the root, drawn at random with ``--seed``, each
  named alone (``dynalint path/to/file.py``) from the root's project folder, as pre-commit does. That
  mode also summarizes every other file of the project as context, so one bad file anywhere in the
  project can break every commit (``--build-corpus`` marks each package folder as a project).

For each run: wall time, CPU time (user + system), peak RSS of the child (``os.wait4``'s
``ru_maxrss``), exit status, whether stderr holds a Python traceback, and the findings of the JSON
report counted by code (DYN901 syntax error, DYN902 unreadable file, DYN903 rule crash, rule
findings). Then it lists every DYN903 with its file and message, every DYN901 / DYN902, and every run
that exited 2, died on a signal, printed a traceback or ran past ``--timeout`` (a hang), with its
stderr. Unless ``--no-bisect``, a failed folder run is narrowed down to the file that causes it:
subsets of the root are copied into a temporary project (same relative paths, so the same module
names) and linted until one file is left; the culprit is set aside and the rest is run again, so
that several culprits are all found and the rest's findings and DYN9xx are not hidden by the crash.

``--rev REV`` sweeps a git revision (extracted with ``git archive`` into a temporary folder, first on
the children's PYTHONPATH) instead of the working tree: a stable snapshot while others edit it.
Exit status: 0 when nothing crashed, 1 when any crash (DYN903, exit 2, signal, traceback, hang) was
seen. ``--json-out FILE`` keeps every run's numbers (written after each root), to compare sweeps.
It never imports torch or dynalint: it only reads files and runs the CLI.
"""

from __future__ import annotations

import argparse
import collections
import importlib.util
import json
import os
import random
import re
import shlex
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path

DEFAULT_PACKAGES = (
    "diffusers", "timm", "sympy", "numpy", "scipy", "transformers", "pandas", "huggingface_hub",
    "safetensors", "networkx",
)
# The folders dynalint's own walk skips (dynalint/files.py DEFAULT_EXCLUDE), for sampling and bisecting.
SKIPPED_DIRS = (
    ".git", ".hg", ".svn", ".venv", "venv", ".tox", ".nox", ".mypy_cache", ".ruff_cache", ".pytest_cache",
    "__pycache__", "__pypackages__", "build", "dist", "node_modules", "site-packages", ".eggs",
)
PROJECT_MARKERS = (".git", "pyproject.toml")
MARKER_TEXT = "# Marks this folder as a project for bench/crash_sweep.py's pre-commit mode.\n"
SUMMARY = re.compile(r"(\d+) files? checked")
CRASH_CODES = ("DYN901", "DYN902", "DYN903")
REPO = Path(__file__).resolve().parent.parent
CHILD_ENV: dict[str, str] | None = None  # with --rev: PYTHONPATH points the CLI at that revision's sources


@dataclass
class Run:
    root: str
    mode: str  # "folder", "pre-commit" or "bisect"
    argv: list[str]
    cwd: str
    target: str  # the folder or file named
    wall_s: float = 0.0
    cpu_s: float = 0.0  # user + system time of the child: steadier than wall time on a busy machine
    maxrss_mib: float = 0.0
    exit: int | None = None  # negative: killed by that signal
    timed_out: bool = False
    traceback: bool = False
    files_checked: int | None = None
    json_error: str | None = None
    codes: dict[str, int] = field(default_factory=dict)
    diagnostics: list[dict[str, object]] = field(default_factory=list)  # every DYN9xx, as reported
    stderr_tail: str = ""
    exception: str = ""  # the last line of a traceback, when there is one

    @property
    def failed(self) -> bool:
        """A crash of the process itself (not a finding): exit 2, a signal, a traceback or a hang."""
        return self.timed_out or self.traceback or self.exit not in (0, 1)

    @property
    def findings(self) -> int:
        return sum(self.codes.values())


# ---------------------------------------------------------------------------------------------- running


def run_measured(argv: list[str], cwd: Path, timeout: float) -> tuple[float, float, float, int | None, bool, str, str]:
    """Run ``argv``; return wall seconds, CPU seconds, peak RSS (MiB), exit status, timed out, stdout, stderr."""
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        started = time.perf_counter()
        child = subprocess.Popen(argv, cwd=cwd, stdin=subprocess.DEVNULL, stdout=out, stderr=err,
                                 start_new_session=True, env=CHILD_ENV)
        timed_out = False
        pause = 0.001
        try:
            while True:
                pid, status, usage = os.wait4(child.pid, os.WNOHANG)
                if pid:
                    break
                if time.perf_counter() - started > timeout:
                    timed_out = True
                    _kill(child.pid)
                    pid, status, usage = os.wait4(child.pid, 0)
                    break
                time.sleep(pause)
                pause = min(pause * 2, 0.05)
        except BaseException:  # interrupted (Ctrl-C, SIGTERM): take the child down too
            _kill(child.pid)
            child.returncode = -1
            raise
        wall = time.perf_counter() - started
        code = os.waitstatus_to_exitcode(status)
        child.returncode = code  # reaped here, not by Popen
        out.seek(0)
        err.seek(0)
        stdout = out.read().decode("utf-8", "replace")
        stderr = err.read().decode("utf-8", "replace")
    return wall, usage.ru_utime + usage.ru_stime, usage.ru_maxrss / 1024.0, code, timed_out, stdout, stderr


def _kill(pid: int) -> None:
    try:
        os.killpg(pid, signal.SIGKILL)  # the child leads its own session: this takes its children too
    except ProcessLookupError:
        pass


def _terminate(signum: int, frame: object) -> None:
    raise SystemExit(128 + signum)


def lint(dynalint: list[str], extra: list[str], root: str, mode: str, target: str, cwd: Path,
         timeout: float) -> Run:
    argv = [*dynalint, "--output-format", "json", "--exit-zero", *extra, target]
    run = Run(root=root, mode=mode, argv=argv, cwd=str(cwd), target=target)
    run.wall_s, run.cpu_s, run.maxrss_mib, run.exit, run.timed_out, stdout, stderr = run_measured(argv, cwd, timeout)
    run.traceback = "Traceback (most recent call last)" in stderr
    lines = stderr.rstrip().splitlines()
    # A RecursionError's traceback is a thousand identical frames: keep where it started and how it ended.
    kept = lines if len(lines) <= 30 else [*lines[:12], f"... ({len(lines) - 24} lines)", *lines[-12:]]
    run.stderr_tail = "\n".join(kept)
    if run.traceback:
        run.exception = next((line for line in reversed(lines) if line and not line.startswith(" ")), "")
    match = SUMMARY.search(stderr)
    run.files_checked = int(match.group(1)) if match else None
    if stdout.strip():
        try:
            report = json.loads(stdout)
        except json.JSONDecodeError as error:
            run.json_error = f"stdout is not JSON: {error}"
        else:
            counts = collections.Counter(item["code"] for item in report)
            run.codes = dict(sorted(counts.items()))
            run.diagnostics = [
                {"code": item["code"], "filename": item["filename"], "row": item["location"]["row"],
                 "message": item["message"]}
                for item in report if item["code"].startswith("DYN9")
            ]
    elif run.exit in (0, 1):
        run.json_error = "no JSON on stdout"
    return run


# ---------------------------------------------------------------------------------------------- the tree


def python_files(root: Path) -> list[Path]:
    """The ``.py`` files dynalint's walk would check under ``root`` (sorted, relative to ``root``)."""
    found = []
    for directory, subdirectories, filenames in os.walk(root):
        subdirectories[:] = sorted(
            d for d in subdirectories if d not in SKIPPED_DIRS and not d.endswith(".egg-info")
        )
        for name in filenames:
            if name.endswith((".py", ".pyi")):
                found.append((Path(directory) / name).relative_to(root))
    return sorted(found)


def project_of(root: Path) -> Path:
    """The folder pre-commit mode's context comes from: the nearest one holding ``.git`` or
    ``pyproject.toml`` at or above ``root`` (dynalint/files.py ``project_root``), else ``root``."""
    for candidate in (root, *root.parents):
        if any((candidate / marker).exists() for marker in PROJECT_MARKERS):
            return candidate
    return root


def dynalint_command(given: str | None) -> list[str]:
    if given:
        return shlex.split(given)
    beside = Path(sys.executable).parent / "dynalint"
    if beside.exists():
        return [str(beside)]
    found = shutil.which("dynalint")
    if found:
        return [found]
    sys.exit("crash_sweep: no `dynalint` next to this Python or on PATH; give --dynalint")


# ---------------------------------------------------------------------------------------------- bisecting


def _failure_signature(run: Run) -> str:
    if run.timed_out:
        return "timeout"
    if run.exception:
        return run.exception.split(":", 1)[0]  # the exception's type
    return f"exit {run.exit}"


def bisect(root: Path, failed: Run, options: argparse.Namespace, dynalint: list[str], extra: list[str],
           log: list[Run]) -> tuple[list[dict[str, object]], Run | None]:
    """The files of ``root`` that make a folder run fail, and the run of the rest once it passes.

    Subsets are copied into a temporary project (same relative paths) and linted as folders. A subset
    "fails" when its run fails the same way (same exception type, or both hang). Once a culprit is
    found it is set aside and the rest is run again; a different failure there is chased next.
    """
    files = python_files(root)
    culprits: list[dict[str, object]] = []
    workspace = Path(tempfile.mkdtemp(prefix="crash-sweep-bisect-"))

    def attempt(subset: list[Path]) -> Run:
        project = workspace / "project"
        shutil.rmtree(project, ignore_errors=True)
        base = project / root.name
        base.mkdir(parents=True)
        (project / "pyproject.toml").write_text(MARKER_TEXT, encoding="utf-8")
        for relative in subset:
            (base / relative).parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(root / relative, base / relative)
        run = lint(dynalint, extra, str(root), "bisect", str(base), project, options.bisect_timeout)
        run.target = f"{len(subset)} files of {root}"
        for item in run.diagnostics:  # name the files as they are in the corpus, not in the copy
            item["filename"] = str(root.parent / str(item["filename"]))
        log.append(run)
        return run

    rest: Run | None = None
    try:
        remaining, run = files, failed
        while True:
            if not run.failed:
                rest = run
                break
            if len(culprits) >= options.max_culprits:
                break
            want = _failure_signature(run)
            suspects, last = remaining, run
            while len(suspects) > 1:
                half = len(suspects) // 2
                for part in (suspects[:half], suspects[half:]):
                    outcome = attempt(part)
                    if outcome.failed and _failure_signature(outcome) == want:
                        suspects, last = part, outcome
                        break
                else:
                    break  # it takes files from both halves together: report the set
            culprits.append({
                "files": [str(root / s) for s in suspects],
                "exception": last.exception or want,
                "stderr_tail": last.stderr_tail,
            })
            print(f"  bisect: {want} <- {', '.join(str(root / s) for s in suspects[:5])}"
                  f"{' ...' if len(suspects) > 5 else ''}", file=sys.stderr, flush=True)
            chosen = set(suspects)
            remaining = [f for f in remaining if f not in chosen]
            if not remaining:
                break
            run = attempt(remaining)
    finally:
        shutil.rmtree(workspace, ignore_errors=True)
    return culprits, rest


# ---------------------------------------------------------------------------------------------- the corpus


def build_corpus(destination: Path, packages: list[str]) -> None:
    """``pip install --no-deps --target DEST`` the packages, copy torch's sources beside them
    (located without importing torch) and mark every top-level package as a project."""
    site = destination
    site.mkdir(parents=True, exist_ok=True)
    command = [sys.executable, "-m", "pip", "install", "--no-deps", "--upgrade", "--target", str(site), *packages]
    print("$", shlex.join(command), flush=True)
    subprocess.run(command, check=True)
    spec = importlib.util.find_spec("torch")
    if spec is None or not spec.submodule_search_locations:
        print("torch is not installed here: its sources are left out", file=sys.stderr)
    else:
        source = Path(list(spec.submodule_search_locations)[0])
        for path in python_files(source):
            target = site / "torch" / path
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(source / path, target)
        print(f"copied torch's {len(python_files(source))} .py/.pyi files from {source}")
    for root in corpus_roots(site):
        marker = root / "pyproject.toml"
        if not marker.exists():
            marker.write_text(MARKER_TEXT, encoding="utf-8")
    print("corpus roots:")
    for root in corpus_roots(site):
        print(f"  {len(python_files(root)):>6}  {root}")


def corpus_roots(site: Path) -> list[Path]:
    return sorted(
        p for p in site.iterdir()
        if p.is_dir() and not p.name.endswith((".dist-info", ".egg-info", ".data"))
        and p.name not in ("bin", "__pycache__")
        and any(p.glob("*.py"))
    )


# ---------------------------------------------------------------------------------------------- reporting


def _exits(runs: list[Run]) -> str:
    counts = collections.Counter("hang" if r.timed_out else str(r.exit) for r in runs)
    if len(counts) == 1 and len(runs) == 1:
        return next(iter(counts))
    return " ".join(f"{code}x{n}" for code, n in sorted(counts.items()))


def _row(label: str, mode: str, runs: list[Run], files: int) -> list[str]:
    codes: collections.Counter[str] = collections.Counter()
    for run in runs:
        codes.update(run.codes)
    rules = sum(n for code, n in codes.items() if not code.startswith("DYN9"))
    others = sum(n for code, n in codes.items() if code.startswith("DYN9") and code not in CRASH_CODES)
    wall = sum(r.wall_s for r in runs)
    walls = f"{wall:.1f}" if len(runs) == 1 else f"{wall:.1f} (max {max(r.wall_s for r in runs):.1f})"
    return [
        label, mode, str(files), walls, f"{sum(r.cpu_s for r in runs):.1f}",
        f"{max((r.maxrss_mib for r in runs), default=0):.0f}", _exits(runs),
        str(sum(r.traceback for r in runs)), *(str(codes.get(c, 0)) for c in CRASH_CODES), str(others),
        str(rules), str(sum(codes.values())),
    ]


def print_table(rows: list[list[str]]) -> None:
    header = ["root", "mode", "files", "wall s", "CPU s", "peak RSS MiB", "exit", "tracebacks", *CRASH_CODES,
              "other DYN9", "rule findings", "total findings"]
    widths = [max(len(str(row[i])) for row in [header, *rows]) for i in range(len(header))]
    for index, row in enumerate([header, *rows]):
        print("  ".join(cell.rjust(w) if i > 1 else cell.ljust(w) for i, (cell, w) in enumerate(zip(row, widths))))
        if index == 0 or index == len(rows) - 1:
            print("  ".join("-" * w for w in widths))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0],
                                     formatter_class=argparse.RawDescriptionHelpFormatter, epilog=__doc__)
    parser.add_argument("roots", nargs="*", type=Path, help="corpus folders, each swept as a whole")
    parser.add_argument("--dynalint", help="the CLI to run (default: `dynalint` beside this Python, else PATH)")
    parser.add_argument("--args", default="--extend-select ALL",
                        help="extra CLI arguments for every run (default: %(default)s)")
    parser.add_argument("--timeout", type=float, default=1800.0, help="seconds per run before it counts as a hang")
    parser.add_argument("--precommit-files", type=int, default=50, help="files per root named one by one (0: none)")
    parser.add_argument("--seed", type=int, default=0, help="seed of the pre-commit sample")
    parser.add_argument("--no-bisect", dest="bisect", action="store_false",
                        help="do not narrow a failed folder run down to its file")
    parser.add_argument("--bisect-timeout", type=float, default=600.0, help="seconds per bisecting run")
    parser.add_argument("--max-culprits", type=int, default=10, help="culprit files to find per failed root")
    parser.add_argument("--rev", help="sweep this git revision of the repository (extracted with `git archive`, "
                        "put first on PYTHONPATH) instead of the sources the CLI imports: a stable snapshot")
    parser.add_argument("--json-out", type=Path, help="write every run as JSON here")
    parser.add_argument("--corpus", type=Path, metavar="DIR",
                        help="sweep every top-level package folder of DIR (as made by --build-corpus) too")
    parser.add_argument("--build-corpus", type=Path, metavar="DEST",
                        help="install the corpus into DEST (pip --no-deps + torch's sources) and exit")
    parser.add_argument("--packages", nargs="+", default=list(DEFAULT_PACKAGES), help="for --build-corpus")
    options = parser.parse_args()
    signal.signal(signal.SIGTERM, _terminate)

    if options.build_corpus:
        build_corpus(options.build_corpus, options.packages)
        return 0
    if options.corpus:
        options.roots += corpus_roots(options.corpus)
    if not options.roots:
        parser.error("give corpus folders or --corpus DIR (made by --build-corpus DEST first)")
    for root in options.roots:
        if not root.is_dir():
            parser.error(f"not a folder: {root}")

    dynalint = dynalint_command(options.dynalint)
    extra = shlex.split(options.args)
    started = time.perf_counter()
    print("$", shlex.join([sys.executable, *sys.argv]))
    print(f"dynalint: {shlex.join(dynalint)} (extra arguments: {options.args or 'none'})", flush=True)
    snapshot = None
    if options.rev:
        snapshot = Path(tempfile.mkdtemp(prefix="crash-sweep-rev-"))
        commit = subprocess.run(["git", "-C", str(REPO), "rev-parse", options.rev], check=True,
                                capture_output=True, text=True).stdout.strip()
        archive = subprocess.Popen(["git", "-C", str(REPO), "archive", commit], stdout=subprocess.PIPE)
        subprocess.run(["tar", "-x", "-C", str(snapshot)], stdin=archive.stdout, check=True)
        archive.wait()
        global CHILD_ENV
        CHILD_ENV = {**os.environ, "PYTHONPATH": os.pathsep.join(
            [str(snapshot), *filter(None, [os.environ.get("PYTHONPATH")])])}
        print(f"sources: revision {options.rev} = {commit}, extracted to {snapshot} (first on PYTHONPATH)")
    else:
        print(f"sources: whatever the CLI imports (an editable install: the working tree of {REPO})")
    try:
        version = subprocess.run([*dynalint, "--version"], capture_output=True, text=True, env=CHILD_ENV, timeout=120)
        print(f"version: {version.stdout.strip() or version.stderr.strip()}", flush=True)
    except subprocess.TimeoutExpired:
        print("version: `--version` did not answer in 120 s", flush=True)
    runs: list[Run] = []
    bisect_runs: list[Run] = []
    culprits: dict[str, list[dict[str, object]]] = {}
    rows: dict[str, list[list[str]]] = {}
    checked: dict[str, int] = {}  # files per root (on disk when the folder run crashed before its summary)
    roots = [root.resolve() for root in options.roots]
    on_disk = {root: python_files(root) for root in roots}

    def save() -> None:  # after every root: a sweep cut short still leaves its numbers
        if options.json_out:
            options.json_out.write_text(json.dumps({
                "command": shlex.join([sys.executable, *sys.argv]),
                "seconds": time.perf_counter() - started,
                "runs": [asdict(r) for r in runs],
                "bisect_runs": [asdict(r) for r in bisect_runs],
                "culprits": culprits,
            }, indent=2) + "\n", encoding="utf-8")

    neutral = Path(tempfile.mkdtemp(prefix="crash-sweep-cwd-"))
    try:
        # Phase 1: every root as a whole (the most files for the time), bisecting any failure.
        for root in roots:
            print(f"\n== {root}: {len(on_disk[root])} .py/.pyi files", file=sys.stderr, flush=True)
            run = lint(dynalint, extra, str(root), "folder", str(root), neutral, options.timeout)
            runs.append(run)
            print(f"  folder: {run.wall_s:.1f} s (CPU {run.cpu_s:.1f} s), {run.maxrss_mib:.0f} MiB, exit {run.exit}"
                  f"{' (HANG)' if run.timed_out else ''}{' traceback: ' + run.exception if run.traceback else ''}",
                  file=sys.stderr, flush=True)
            files = run.files_checked if run.files_checked is not None else len(on_disk[root])
            checked[str(root)] = files
            rows[str(root)] = [_row(root.name, "folder", [run], files)]
            if run.failed and options.bisect:
                culprits[str(root)], rest = bisect(root, run, options, dynalint, extra, bisect_runs)
                if rest is not None:  # what the crash hid: the findings and DYN9xx of every other file
                    rest.mode = "folder minus culprits"
                    runs.append(rest)
                    rows[str(root)].append(_row(root.name, f"folder minus {len(culprits[str(root)])} culprit(s)",
                                                [rest], rest.files_checked or 0))
            save()
        # Phase 2: pre-commit mode, one file at a time with the whole project as context.
        for root in roots if options.precommit_files > 0 else ():
            if not on_disk[root]:
                continue
            project = project_of(root)
            context = len(python_files(project))
            if project != root:
                print(f"  note: pre-commit mode's project is {project} ({context} files), not the root",
                      file=sys.stderr)
            sample = random.Random(options.seed).sample(on_disk[root], min(options.precommit_files, len(on_disk[root])))
            print(f"\n== {root} pre-commit: {len(sample)} files one by one", file=sys.stderr, flush=True)
            sampled: list[Run] = []
            for index, relative in enumerate(sample, start=1):
                target = (root / relative).relative_to(project).as_posix()
                one = lint(dynalint, extra, str(root), "pre-commit", target, project, options.timeout)
                sampled.append(one)
                if one.failed:
                    print(f"  pre-commit {index}/{len(sample)} {target}: exit {one.exit} {one.exception}",
                          file=sys.stderr, flush=True)
            runs += sampled
            print(f"  pre-commit: {len(sampled)} files, {sum(r.wall_s for r in sampled):.1f} s in all "
                  f"(CPU {sum(r.cpu_s for r in sampled):.1f} s), {sum(r.failed for r in sampled)} failed "
                  f"(context: {context} files in {project})", file=sys.stderr, flush=True)
            rows[str(root)].append(_row(root.name, f"pre-commit x{len(sampled)}", sampled, len(sampled)))
            save()
    finally:
        shutil.rmtree(neutral, ignore_errors=True)
        if snapshot is not None:
            shutil.rmtree(snapshot, ignore_errors=True)
    elapsed = time.perf_counter() - started
    on_disk_total = sum(len(found) for found in on_disk.values())

    total = _row("TOTAL", "all runs", runs, sum(checked.values()))
    print(f"\n== table ({on_disk_total} .py/.pyi files on disk in {len(options.roots)} roots; "
          f"files = files checked; pre-commit rows: times summed, RSS max)")
    print_table([*(row for root in roots for row in rows[str(root)]), total])

    diagnostics = [(run, d) for run in runs for d in run.diagnostics]
    crashes = [(run, d) for run, d in diagnostics if d["code"] == "DYN903"]
    seen: set[tuple[object, ...]] = set()
    print(f"\n== DYN903 (rule crashed on a file): {len(crashes)}")
    for run, d in crashes:
        key = (d["filename"], d["message"])
        again = " (again, pre-commit)" if key in seen else ""
        seen.add(key)
        print(f"  [{run.root.rsplit('/', 1)[-1]} {run.mode}] {d['filename']}:{d['row']}: {d['message']}{again}")
    causes = collections.Counter(str(d["message"]).split("crashed on this file: ", 1)[-1] for _, d in crashes)
    if causes:
        print("  by cause:")
        for cause, n in causes.most_common():
            print(f"    {n:>5}  {cause}")
    for code, title in (("DYN901", "syntax error"), ("DYN902", "unreadable file")):
        listed = [(run, d) for run, d in diagnostics if d["code"] == code]
        print(f"\n== {code} ({title}): {len(listed)}")
        for run, d in listed:
            print(f"  [{run.root.rsplit('/', 1)[-1]} {run.mode}] {d['filename']}:{d['row']}: {d['message']}")

    failed = [r for r in runs if r.failed]
    print(f"\n== failed runs (exit 2, signal, traceback or hang): {len(failed)}")
    shown: set[tuple[str, str, str]] = set()
    for run in failed:
        state = "HANG" if run.timed_out else f"exit {run.exit}"
        print(f"\n-- [{run.mode}] {run.target} ({state}, {run.wall_s:.1f} s) cwd {run.cwd}")
        print(f"   $ {shlex.join(run.argv)}")
        found = culprits.get(run.root, [])
        if run.mode == "pre-commit" and found:
            named = str(Path(run.cwd) / run.target)
            same = [c for c in found if c["exception"] == run.exception]
            if same and not any(named in c["files"] for c in same):
                print(f"   cause: not this file but a file of its project, summarized as context: "
                      f"{', '.join(f for c in same for f in c['files'])}")
        signature = (run.root, run.mode, run.exception or state)
        if signature in shown:
            print(f"   {run.exception or state} (as above)")
            continue
        shown.add(signature)
        print("   " + (run.stderr_tail or "(nothing on stderr)").replace("\n", "\n   "))
    odd = [r for r in runs if r.json_error and not r.failed]
    for run in odd:
        print(f"\n-- [{run.mode}] {run.target}: {run.json_error}")
    if culprits:
        print("\n== bisected causes of failed folder runs")
        for root, found in culprits.items():
            if not found:
                print(f"  {root}: no subset fails alone (the failure needs the whole tree, or is flaky)")
            for item in found:
                print(f"  {root}: {item['exception']}")
                for name in item["files"]:
                    print(f"      {name}")

    print(f"\n== sweep took {elapsed:.0f} s ({len(runs)} runs, {len(bisect_runs)} bisecting runs)")
    if options.json_out:
        save()
        print(f"runs written to {options.json_out}")
    return 1 if failed or crashes else 0


if __name__ == "__main__":
    sys.exit(main())
