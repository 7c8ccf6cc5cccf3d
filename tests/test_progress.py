"""Progress and colours (issue 12, point 7): a progress line on a terminal's stderr for runs over about a
second, never on a pipe or in CI; colours on a terminal only, never with ``NO_COLOR``.

The terminal cases run the real CLI in a subprocess whose stdout and stderr are a pseudo-terminal
(``os.openpty``), the pipe cases the same command with pipes. The long run is dynalint on the
installed ``torch/nn`` (about 140 files, several seconds), found without importing torch.
"""

from __future__ import annotations

import importlib.util
import io
import os
import re
import select
import subprocess
import sys
import time
from pathlib import Path

import pytest

from dynalint.output import progress

ROOT = Path(__file__).resolve().parent.parent
ANSI = "\x1b["
LINE = "dynalint: linting "
PRINT = "import torch\n\n\n@torch.compile\ndef f(x):\n    print(x)\n    return x\n"


def _torch_nn() -> Path | None:
    spec = importlib.util.find_spec("torch")
    if spec is None or not spec.submodule_search_locations:
        return None
    folder = Path(next(iter(spec.submodule_search_locations))) / "nn"
    return folder if folder.is_dir() else None


TORCH_NN = _torch_nn()
long_run = pytest.mark.skipif(TORCH_NN is None, reason="needs the installed torch's source tree (the test extra)")


def _env(**extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in ("CI", "NO_COLOR", "FORCE_COLOR", "TERM")}
    env.update(TERM="xterm", **extra)
    return env


def _command(*args: str) -> list[str]:
    return [sys.executable, "-m", "dynalint", "check", "--no-cache", "-j", "1", "--exit-zero", *args]


def on_terminal(args: list[str], env: dict[str, str], cwd: Path, timeout: float = 300) -> str:
    """Everything the command wrote to its terminal (stdout and stderr are the same pseudo-terminal)."""
    leader, follower = os.openpty()
    child = subprocess.Popen(args, stdin=subprocess.DEVNULL, stdout=follower, stderr=follower, env=env, cwd=cwd)
    os.close(follower)
    chunks = []
    deadline = time.monotonic() + timeout
    try:
        while time.monotonic() < deadline:
            ready, _, _ = select.select([leader], [], [], 1.0)
            if not ready:
                if child.poll() is not None:
                    break
                continue
            try:
                data = os.read(leader, 65536)
            except OSError:  # EIO: the child closed the terminal
                break
            if not data:
                break
            chunks.append(data)
        child.wait(timeout=max(1.0, deadline - time.monotonic()))
    finally:
        if child.poll() is None:
            child.kill()
            child.wait()
        os.close(leader)
    return b"".join(chunks).decode("utf-8", "replace")


def on_pipes(args: list[str], env: dict[str, str], cwd: Path) -> str:
    done = subprocess.run(args, env=env, cwd=cwd, capture_output=True, text=True, timeout=300, check=False)
    return done.stdout + done.stderr


# -- the progress line ----------------------------------------------------------------------------------


class FakeClock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def test_progress_waits_a_second_then_draws_throttled_and_erases() -> None:
    clock, out = FakeClock(), io.StringIO()
    bar = progress.Progress(out, delay=1.0, interval=0.1, clock=clock)
    bar.update("summarizing", 1, 10)
    clock.now += 0.5
    bar.update("summarizing", 2, 10)
    assert out.getvalue() == ""  # a run shorter than a second shows nothing
    clock.now += 0.6
    bar.update("summarizing", 3, 10)
    clock.now += 0.01
    bar.update("summarizing", 4, 10)  # within the interval: not redrawn
    bar.update("summarizing", 10, 10)  # the last count always is
    assert out.getvalue() == "\r\x1b[Kdynalint: summarizing 3/10 files\r\x1b[Kdynalint: summarizing 10/10 files"
    bar.close()
    assert out.getvalue().endswith("\r\x1b[K")


def test_progress_that_never_drew_erases_nothing() -> None:
    out = io.StringIO()
    bar = progress.Progress(out, clock=FakeClock())
    bar.update("linting", 1, 2)
    bar.close()
    assert out.getvalue() == ""


class Stream(io.StringIO):
    def __init__(self, tty: bool) -> None:
        super().__init__()
        self.tty = tty

    def isatty(self) -> bool:
        return self.tty


@pytest.mark.parametrize(("tty", "environ", "progress_wanted", "color_wanted"), [
    (True, {"TERM": "xterm"}, True, True),
    (False, {"TERM": "xterm"}, False, False),
    (True, {"TERM": "xterm", "CI": "true"}, False, True),
    (True, {"TERM": "xterm", "NO_COLOR": "1"}, True, False),
    (True, {"TERM": "dumb"}, False, False),
])
def test_what_a_stream_gets(tty: bool, environ: dict[str, str], progress_wanted: bool, color_wanted: bool) -> None:
    assert progress.wants_progress(Stream(tty), environ) is progress_wanted
    assert progress.wants_color(Stream(tty), environ) is color_wanted


@long_run
def test_a_long_run_on_a_terminal_shows_progress_and_erases_it(tmp_path: Path) -> None:
    assert TORCH_NN is not None
    shown = on_terminal(_command(str(TORCH_NN)), _env(), tmp_path)
    assert LINE in shown, shown[-2000:]
    # Erased before the report: the findings start on a clean line, after the last progress line.
    last = shown.rindex(LINE)
    assert "\r\x1b[K" in shown[last:] and "DYN" in shown[last:]
    assert "Found " in shown


@long_run
@pytest.mark.parametrize("where", ["pipe", "CI"])
def test_a_long_run_on_a_pipe_or_in_ci_shows_no_progress(tmp_path: Path, where: str) -> None:
    assert TORCH_NN is not None
    args = _command(str(TORCH_NN))
    shown = on_pipes(args, _env(), tmp_path) if where == "pipe" else on_terminal(args, _env(CI="true"), tmp_path)
    assert "Found " in shown  # the run did finish and report
    assert "dynalint: summarizing" not in shown and LINE not in shown and "\x1b[K" not in shown


# -- colours --------------------------------------------------------------------------------------------


@pytest.fixture
def project(tmp_path: Path) -> Path:
    (tmp_path / "train.py").write_text(PRINT, encoding="utf-8")
    return tmp_path


def test_colours_on_a_terminal(project: Path) -> None:
    shown = on_terminal(_command("train.py"), _env(), project)
    assert "\x1b[1mtrain.py:6:5\x1b[0m: \x1b[1;31mDYN201\x1b[0m " in shown
    assert "\x1b[1;31mFound 1 finding" in shown


def test_no_colours_with_no_color_or_on_a_pipe(project: Path) -> None:
    for shown in (on_terminal(_command("train.py"), _env(NO_COLOR="1"), project),
                  on_pipes(_command("train.py"), _env(), project)):
        # A progress line is no colour: on a slow machine this run may last long enough to draw one.
        shown = re.sub(r"\r\x1b\[K(dynalint: [^\r]*)?", "", shown)
        assert "train.py:6:5: DYN201 " in shown and ANSI not in shown
