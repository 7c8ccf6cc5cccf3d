"""The ground-truth bench's model server (``gt_zygote.run_forked``): a forked child per model, its result
written, its failure or its overrun reported, the server left standing. The model is stood in for by a
patched ``gt_worker.run``: no torch."""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "bench" / "groundtruth"))

import gt_zygote  # noqa: E402


def test_a_forked_model_writes_its_result_and_leaves_the_server_untouched(tmp_path: Path,
                                                                           monkeypatch: pytest.MonkeyPatch) -> None:
    seen: list[str] = []

    def run(model_id: str) -> dict[str, str]:
        seen.append(model_id)  # in the child: the server's own list never grows
        return {"model": model_id}

    monkeypatch.setattr(gt_zygote.gt_worker, "run", run)
    out = tmp_path / "m.json"
    assert gt_zygote.run_forked("lib/m", out, 30.0) == {"exit": 0, "stderr": ""}
    assert json.loads(out.read_text(encoding="utf-8")) == {"model": "lib/m"}
    assert seen == []
    assert not out.with_suffix(".err").exists()


def test_a_model_that_raises_reports_its_traceback(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    def run(model_id: str) -> dict[str, str]:
        raise ValueError(f"cannot build {model_id}")

    monkeypatch.setattr(gt_zygote.gt_worker, "run", run)
    outcome = gt_zygote.run_forked("lib/bad", tmp_path / "bad.json", 30.0)
    assert outcome["exit"] == 1
    assert "ValueError: cannot build lib/bad" in outcome["stderr"]
    assert not (tmp_path / "bad.json").exists()


def test_a_model_past_its_time_is_killed(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    def run(model_id: str) -> dict[str, str]:
        time.sleep(60)
        return {"model": model_id}

    monkeypatch.setattr(gt_zygote.gt_worker, "run", run)
    started = time.monotonic()
    assert gt_zygote.run_forked("lib/slow", tmp_path / "slow.json", 1.0) == {"timeout": 1.0}
    assert time.monotonic() - started < 30
