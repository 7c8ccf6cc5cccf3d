"""The differential tester's oracle: Dynamo itself, judging every line of generated programs.

    python bench/difftest/oracle.py < programs.json > verdicts.json     (one worker; ``judge`` runs several)

Each program runs in a worker process under ``torch.compile`` on the CPU, with the recorders
``--verify`` uses (``dynalint.verify.observe``): every graph break's line and GB id, whether Dynamo gave
up the frame, and every line Dynamo traced. A line *breaks* when a break was logged on it, is *traced
clean* when Dynamo traced it without a break, and is *not traced* otherwise (after a break that gave
up the frame, or never reached). A program that raises, eagerly or compiled, is reported with its error
and left out of the comparison.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


@dataclass
class Verdict:
    """What Dynamo did with one program."""

    breaks: dict[int, list[str]] = field(default_factory=dict)  # line -> GB ids logged on it
    traced: set[int] = field(default_factory=set)
    frame_skipped: set[int] = field(default_factory=set)  # break lines after which the frame ran eagerly
    error: str | None = None

    def as_json(self) -> dict[str, object]:
        return {"breaks": {str(k): v for k, v in self.breaks.items()}, "traced": sorted(self.traced),
                "frame_skipped": sorted(self.frame_skipped), "error": self.error}

    @classmethod
    def from_json(cls, data: dict[str, object]) -> Verdict:
        breaks = data["breaks"]
        assert isinstance(breaks, dict)
        return cls({int(k): list(v) for k, v in breaks.items()}, set(data["traced"]),  # type: ignore[arg-type]
                   set(data["frame_skipped"]), data["error"])  # type: ignore[arg-type]


def judge(sources: Sequence[str], jobs: int = 2, timeout: float = 60.0) -> list[Verdict]:
    """Dynamo's verdict on each source, in order, from ``jobs`` worker processes."""
    if not sources:
        return []
    chunks = [list(range(start, len(sources), jobs)) for start in range(min(jobs, len(sources)))]
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")])}
    workers = []
    for chunk in chunks:
        payload = json.dumps({"timeout": timeout, "programs": [[i, sources[i]] for i in chunk]})
        process = subprocess.Popen([sys.executable, __file__], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                   stderr=subprocess.DEVNULL, text=True, env=env)
        assert process.stdin is not None
        process.stdin.write(payload)
        process.stdin.close()
        workers.append(process)
    verdicts: dict[int, Verdict] = {}
    for process in workers:
        assert process.stdout is not None
        for line in process.stdout:  # one ``[number, verdict]`` a line: a crash loses only what is left
            number, value = json.loads(line)
            verdicts[number] = Verdict.from_json(value)
        process.wait()
    return [verdicts.get(i, Verdict(error="the worker died")) for i in range(len(sources))]


# -- the worker ------------------------------------------------------------------------------------
def _run_one(source: str, folder: Path, number: int, timeout: float) -> Verdict:
    import signal

    from dynalint.verify.observe import record_breaks, record_traced_lines

    path = folder / f"prog_{number}.py"
    path.write_text(source, encoding="utf-8")
    code = compile(source, str(path), "exec")
    verdict = Verdict()

    def expire(signum: int, frame: object) -> None:
        raise TimeoutError(f"over {timeout:g} s")

    signal.signal(signal.SIGALRM, expire)
    signal.setitimer(signal.ITIMER_REAL, timeout)
    try:
        with record_breaks(str(path)) as breaks, record_traced_lines(str(path)) as traced:
            exec(code, {"__name__": "__main__", "__file__": str(path)})  # noqa: S102 - generated programs
    except BaseException as error:  # noqa: BLE001 - a program that raises is reported, not judged
        verdict.error = f"{type(error).__name__}: {error}"[:300]
        return verdict
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
    for observed in breaks:
        if observed.filename == str(path):
            verdict.breaks.setdefault(observed.line, []).append(observed.gb_id or "")
            if observed.frame_skipped:
                verdict.frame_skipped.add(observed.line)
    verdict.traced = {line for file, line in traced if file == str(path)}
    return verdict


def main() -> None:
    import logging

    request = json.load(sys.stdin)
    logging.getLogger("difftest").disabled = True  # the programs log; their output is not the point
    answer = sys.stdout
    sys.stdout = open(os.devnull, "w")  # noqa: SIM115 - the programs print; only verdicts go to the parent
    with tempfile.TemporaryDirectory(prefix="difftest-") as folder:
        for number, source in request["programs"]:
            verdict = _run_one(source, Path(folder), number, request["timeout"])
            answer.write(json.dumps([number, verdict.as_json()]) + "\n")
            answer.flush()


if __name__ == "__main__":
    main()
