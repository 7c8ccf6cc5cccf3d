"""``dynalint --verify`` leaves no process behind, however the run ends, and its exit code says how.

Each ``torch`` test runs ``python -m dynalint`` in a subprocess, as ``test_verify.py`` does, with a
tag of its own in the environment: the workers inherit it, and so does everything user code starts
in them (the fixtures also put it in their children's arguments). After the run, no process on the
machine may carry the tag. ``fixtures/verify/processes/ends`` holds every way a verified function
can end badly, in one run; ``stuck/`` is a function that never returns, for interrupting dynalint.
The option checks and the runner's protocol test need no torch (the latter uses a fake worker).
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import time
import uuid
from pathlib import Path
from typing import Any

import pytest

from dynalint.verify import plan, runner
from dynalint.verify.protocol import JobResult, ObservedBreak, Verdict

ROOT = Path(__file__).resolve().parent.parent
FIXTURES = ROOT / "fixtures" / "verify" / "processes"
TAG = "DYNALINT_TEST_TAG"


def tagged(tag: str) -> list[str]:
    """``pid command`` of every live process whose arguments or environment hold ``tag``."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit() or int(entry.name) == os.getpid():  # monkeypatch.setenv tags this one
            continue
        try:  # a zombie has neither: it is dead already
            arguments, environment = (entry / "cmdline").read_bytes(), (entry / "environ").read_bytes()
        except OSError:  # gone meanwhile, or not ours
            continue
        if tag.encode() in arguments or tag.encode() in environment:
            found.append(f"{entry.name} {arguments.replace(bytes(1), b' ').decode(errors='replace')}")
    return found


def assert_none_left(tag: str) -> None:
    deadline = time.monotonic() + 5  # SIGKILL is delivered asynchronously: allow it a moment
    while tagged(tag) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert not tagged(tag), "left behind:\n" + "\n".join(tagged(tag))


def dynalint(*args: str, cwd: Path, tag: str, **popen: Any) -> subprocess.Popen[str]:
    env = {**os.environ, TAG: tag,
           "PYTHONPATH": os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")]))}
    return subprocess.Popen([sys.executable, "-m", "dynalint", *args], cwd=cwd, env=env, text=True,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, preexec_fn=_like_a_terminal, **popen)


def _like_a_terminal() -> None:
    # A shell starts background jobs, CI steps among them, with SIGINT ignored, and a child inherits
    # that; Python then never turns SIGINT into KeyboardInterrupt. A terminal's job gets the default.
    signal.signal(signal.SIGINT, signal.SIG_DFL)


@pytest.fixture
def tag() -> str:
    return f"dynalint-test-{uuid.uuid4().hex}"


# -- every bad end of a verified function costs its verdict, and nothing outlives the run ----------------


@pytest.mark.torch
def test_each_bad_end_costs_one_verdict_and_leaves_no_process(tmp_path: Path, tag: str) -> None:
    folder = tmp_path / "ends"
    shutil.copytree(FIXTURES / "ends", folder)
    started = time.monotonic()
    process = dynalint("--verify", "--verify-timeout", "10", "--output-format", "json", ".", cwd=folder, tag=tag)
    try:
        stdout, stderr = process.communicate(timeout=300)
    finally:
        process.kill()
    assert process.returncode == 1 and "Traceback" not in stderr, stderr[-4000:]
    assert time.monotonic() - started < 300
    verdicts = {f["filename"]: f["verify"] for f in json.loads(stdout) if f["code"] == "DYN201"}
    assert verdicts["a_loud.py"]["verdict"] == "confirmed", verdicts  # 100 MB printed, twice, and still heard
    assert verdicts["b_orphans.py"]["verdict"] == "confirmed", verdicts
    assert verdicts["f_escapes.py"]["verdict"] == "confirmed", verdicts  # its own-session children die too
    for name, reason in [
        ("g_memory.py", "out of memory: its processes held"),
        ("c_hang.py", "timed out after 10 s"),
        ("d_segfault.py", "killed by SIGSEGV"),
        ("e_exit.py", "exited with code 3"),
    ]:
        assert verdicts[name]["verdict"] == "unverifiable" and reason in verdicts[name]["reason"], verdicts[name]
    assert_none_left(tag)


# -- an interrupted run -----------------------------------------------------------------------------------


@pytest.mark.torch
@pytest.mark.parametrize(("signum", "code"), [(signal.SIGTERM, 2), (signal.SIGINT, 130)])
def test_an_interrupted_run_kills_its_workers_and_exits_with_one_line(
    tmp_path: Path, tag: str, signum: signal.Signals, code: int
) -> None:
    folder = tmp_path / "stuck"
    shutil.copytree(FIXTURES / "stuck", folder)
    # Its own session, like a shell job: Ctrl-C is a SIGINT to the whole foreground process group.
    process = dynalint("--verify", "--verify-timeout", "300", ".", cwd=folder, tag=tag, start_new_session=True)
    try:
        deadline = time.monotonic() + 240
        while not any("time.sleep(300)" in p for p in tagged(tag)):  # the user code's child runs
            if process.poll() is not None or time.monotonic() > deadline:
                process.kill()
                pytest.fail(f"the function never started: {process.communicate()[1][-4000:]}")
            time.sleep(0.2)
        if signum == signal.SIGINT:
            os.killpg(process.pid, signum)
        else:
            os.kill(process.pid, signum)
        stdout, stderr = process.communicate(timeout=30)
    finally:
        process.kill()
    assert process.returncode == code, stderr
    assert len(stderr.strip().splitlines()) == 1 and "stopped its workers" in stderr, stderr
    assert stdout == ""
    assert_none_left(tag)


# -- the time limit is checked before anything runs (no torch needed) ----------------------------------------------


@pytest.mark.parametrize("value", ["nan", "inf", "0", "-1"])
def test_a_timeout_that_is_no_limit_is_a_usage_error(tmp_path: Path, tag: str, value: str) -> None:
    (tmp_path / "model.py").write_text("import torch\n", encoding="utf-8")
    process = dynalint("--verify", "--verify-timeout", value, "model.py", cwd=tmp_path, tag=tag)
    _, stderr = process.communicate(timeout=120)
    assert process.returncode == 2, stderr
    assert "--verify-timeout" in stderr and f"positive, finite number of seconds, got {value}" in stderr, stderr


@pytest.mark.parametrize("value", ["nan", "inf", "0", "-1.5"])
def test_a_configured_timeout_that_is_no_limit_is_a_config_error(tmp_path: Path, tag: str, value: str) -> None:
    (tmp_path / "pyproject.toml").write_text(f"[tool.dynalint.verify]\ntimeout = {value}\n", encoding="utf-8")
    (tmp_path / "model.py").write_text("import torch\n", encoding="utf-8")
    process = dynalint("--verify", "model.py", cwd=tmp_path, tag=tag)
    _, stderr = process.communicate(timeout=120)
    assert process.returncode == 2, stderr
    assert "`verify.timeout` must be a positive, finite number of seconds" in stderr, stderr


# -- the runner's side of the protocol, against a fake worker (no torch needed) --------------------------------


def test_a_stray_line_on_the_result_pipe_costs_one_job_and_no_process_survives(
    tmp_path: Path, tag: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(runner, "WORKER_MODULE", "fake_worker")
    monkeypatch.setenv("PYTHONPATH", str(FIXTURES))
    monkeypatch.setenv(TAG, tag)  # for the fake worker's child; the workers carry it too
    jobs = [plan.Job(name, "function", str(tmp_path / "x.py"), str(tmp_path), str(tmp_path), "x", name)
            for name in ("orphan", "garbage", "answer")]
    results = runner.run(jobs, timeout=30)
    assert results["orphan"].unverifiable is None and results["answer"].unverifiable is None, results
    assert results["answer"].graphs == 1 and not results["answer"].crashed, results
    garbage = results["garbage"]
    assert garbage.crashed and "answered 'garbage' instead of a result" in (garbage.unverifiable or ""), results
    assert_none_left(tag)


def test_the_protocol_round_trips_and_verdicts_keep_their_json_shape() -> None:
    result = JobResult(
        "f.py::g", error="EOFError: at f.py:3", breaks=(ObservedBreak("GB0059", "input()", "/f.py", 3, "g"),),
        traced=(("/f.py", 3),), graphs=2, seconds=0.5, device="cpu", error_site=("/f.py", 3),
    )
    assert JobResult.from_dict(json.loads(json.dumps(result.as_dict()))) == result
    assert JobResult.empty("x", unverifiable="why", crashed=True).as_dict() == {
        "id": "x", "error": None, "unverifiable": "why", "breaks": [], "traced": [], "graphs": 0, "recompiles": 0,
        "crashed": True,
    }
    assert Verdict("confirmed", ("GB0170",), matches_rule=True).as_dict() == {
        "verdict": "confirmed", "gb_ids": ["GB0170"], "matches_rule": True}
    assert Verdict("refuted").as_dict() == {"verdict": "refuted", "gb_ids": []}
    assert list(Verdict("confirmed", (), observed_in="").as_dict()) == ["verdict", "gb_ids", "observed_in"]


@pytest.mark.torch
def test_a_killed_dynalint_takes_its_worker_and_the_workers_children_with_it(tmp_path: Path, tag: str) -> None:
    """SIGKILL runs no cleanup in dynalint: the worker notices its parent is gone and kills its own process
    group, the user code's child included."""
    folder = tmp_path / "stuck"
    shutil.copytree(FIXTURES / "stuck", folder)
    process = dynalint("--verify", "--verify-timeout", "300", ".", cwd=folder, tag=tag, start_new_session=True)
    try:
        deadline = time.monotonic() + 240
        while not any("time.sleep(300)" in p for p in tagged(tag)):
            if process.poll() is not None or time.monotonic() > deadline:
                process.kill()
                pytest.fail(f"the function never started: {process.communicate()[1][-4000:]}")
            time.sleep(0.2)
        process.kill()  # SIGKILL, to dynalint alone
        process.communicate(timeout=30)
    finally:
        process.kill()
    assert_none_left(tag)


# -- Ctrl-C on a static run ---------------------------------------------------------------------------------


@pytest.mark.parametrize("jobs", ["1", "2"])
def test_ctrl_c_on_a_cold_thousand_file_run_exits_130_within_a_second(tmp_path: Path, jobs: str) -> None:
    """The stages stop between files (and the worker pool is killed, not waited for)."""
    for index in range(1000):
        (tmp_path / f"m{index:04}.py").write_text(
            "import torch\n\n\n@torch.compile\ndef step(x: torch.Tensor) -> torch.Tensor:\n"
            + "".join(f"    x = x * {k} + torch.relu(x)\n" for k in range(40)) + "    print(x)\n    return x\n",
            encoding="utf-8")
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")]))}
    process = subprocess.Popen([sys.executable, "-m", "dynalint", "check", ".", "--no-cache", "-q", "-j", jobs],
                               cwd=tmp_path, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
                               start_new_session=True, preexec_fn=_like_a_terminal)
    try:
        time.sleep(3)  # under way: imports done, files being summarized or linted
        assert process.poll() is None, "the run ended before it could be interrupted"
        sent = time.monotonic()
        os.killpg(process.pid, signal.SIGINT)  # what a terminal's Ctrl-C does
        _, stderr = process.communicate(timeout=60)
        took = time.monotonic() - sent
    finally:
        process.kill()
    assert process.returncode == 130 and stderr.strip() == "dynalint: interrupted", stderr
    assert took < 1.0, f"exited {took:.2f} s after Ctrl-C"


def test_a_long_error_is_one_line_with_dynamos_hint_and_whole_in_the_detail() -> None:
    from dynalint.verify import worker

    error = RuntimeError("Unsupported: data-dependent branching\n  Explanation: a tensor's value decides\n"
                         "  Hint: use torch.cond\n  Hint: or torch.where\n\n  Developer debug context: ...\n" * 3)
    assert worker._one_line(error, " at m.py:3") == (
        "RuntimeError: Unsupported: data-dependent branching at m.py:3 (hint: use torch.cond)")


# -- where user code raised, as the worker reports it (no torch needed) -------------------------------------------


def test_the_raising_site_is_the_innermost_frame_or_the_user_frame_dynamo_names() -> None:
    """Torch 2.13 raises a failing ``assert`` from the user's frame; torch 2.11 (the GPU image's) re-raises it
    from Dynamo's interpreter with the user's frames in its message: either way the site is the user's line."""
    from dynalint.verify.worker import _one_line, _raised_at

    def fails() -> None:
        assert False, "a 3-d field"

    try:
        fails()
    except AssertionError as raised:
        assert _raised_at(raised) == (__file__, fails.__code__.co_firstlineno + 1)
    reraised = AssertionError('from user code:\n   File "/p/outer.py", line 3, in run\n    return field_norm(x)\n'
                              '  File "/p/k_bad_input.py", line 8, in field_norm\n    assert len(field.shape) == 3')
    assert _raised_at(reraised) == ("/p/k_bad_input.py", 8)
    assert _raised_at(AssertionError("no frames")) is None
    assert _one_line(reraised, " at k_bad_input.py:8") == "AssertionError: assert len(field.shape) == 3 at k_bad_input.py:8"
