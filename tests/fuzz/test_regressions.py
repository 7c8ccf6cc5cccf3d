"""Every input in ``tests/fuzz/crashes/`` once crashed dynalint; each must now pass the fuzz oracle.

The files are minimized fuzz finds, named after the crash kind (``recursion_add_chain.py``). They are
read as bytes and linted as a file named ``fuzzed.py`` through the API, through ``lint_source`` and
through the real command, and judged like any fuzz input (``fuzzing.check``): no exception, no
DYN903, no DYN901 where Python compiles the bytes, every finding inside the file, CLI exit 0 or 1.
Inputs that are not UTF-8 text (NUL bytes, invalid sequences) are kept as ``.bin`` so that no tool
reads them as source; ``.py`` files are valid UTF-8. To add one: minimize a ``bench/fuzz.py`` crash
(``--minimize``) and drop it here under the kind's name.

One kind needs more than a file: ``bench/fuzz.py``'s per-input time limit interrupts a lint with an
exception in the calling thread, and a process that is interrupted while dynalint's deep-stack thread
is in the LibCST stage then died of SIGABRT (the command line too, on Ctrl-C: exit -6, not 130).
``test_an_interrupted_lint_does_not_abort_the_process`` replays that on ``abort_on_interrupt_*.py``.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import fuzzing
import pytest

INTERRUPTED = fuzzing.CRASHES / "abort_on_interrupt_long_function.py"
# The interrupt's input lints cleanly when left alone (in 5 s a run: not worth three more here).
CASES = sorted(p for p in fuzzing.CRASHES.glob("*") if p.suffix in (".py", ".bin") and p != INTERRUPTED)

# Interrupt ``lint_source`` after ``delay`` seconds (SIGALRM -> an exception in the main thread, as
# Ctrl-C or a signal-based timeout would), then leave at once: the process must exit 0.
INTERRUPT = """\
import signal, sys
from pathlib import Path

from dynalint.api import lint_source


class Interrupted(BaseException):
    pass


def interrupt(signum, frame):
    raise Interrupted


source = Path(sys.argv[1]).read_text(encoding="utf-8")
signal.signal(signal.SIGALRM, interrupt)
signal.setitimer(signal.ITIMER_REAL, float(sys.argv[2]))
try:
    lint_source(source, "long.py")
    print("finished")
except Interrupted:
    print("interrupted")
"""


def test_there_are_reproducers() -> None:
    assert CASES, f"no reproducers in {fuzzing.CRASHES}"


@pytest.mark.parametrize("path", CASES, ids=[p.name for p in CASES])
def test_crash_reproducer_passes_the_oracle(path: Path, tmp_path: Path) -> None:
    data = path.read_bytes()
    crashes = [(path.name, data, crash) for crash in fuzzing.check(data, tmp_path, source=True, cli=True)]
    assert not crashes, fuzzing.describe(crashes)


def test_an_interrupted_lint_does_not_abort_the_process() -> None:
    # Several moments, since what runs on the deep-stack thread when the exception lands decides it
    # (it died in 6 of 6 runs at 0.2-0.5 s, on a 4.5 s lint, when this was found).
    failures = []
    for delay in ("0.2", "0.35", "0.5"):
        completed = subprocess.run(
            [sys.executable, "-c", INTERRUPT, str(INTERRUPTED), delay],
            capture_output=True, timeout=300, cwd=fuzzing.ROOT,
        )
        stderr = completed.stderr.decode("utf-8", "replace")
        if completed.returncode != 0 or "Fatal Python error" in stderr:
            failures.append(f"interrupted after {delay} s: exit {completed.returncode}, "
                            f"{completed.stdout.decode().strip()!r}, stderr {stderr[-300:]!r}")
    assert not failures, "\n".join(failures)
