"""``--fix --verify``'s decision, on plain values: what is kept, and the reason a fix is reverted.
Torch-free: the factories' results are made up here; ``test_fixes.py`` runs them for real."""

from __future__ import annotations

from pathlib import Path

from dynalint.pipeline.proven_fixes import _judge, _Run
from dynalint.verify import outputs
from dynalint.verify.protocol import Job, JobResult

JOB = Job("factory:f:make", "factory", "/p/f.py", "/p", "/p", "f", "f:make")


def run(eager: object, compiled: object, error: str | None = None) -> _Run:
    summary = {"eager": eager, "compiled": compiled}
    return _Run([JOB], {JOB.id: JobResult(JOB.id, error=error, outputs=summary)}, Path("/p"))


def tensor(*values: float, shape: list[int] | None = None) -> dict:
    return {"tensor": "torch.float32", "shape": shape or [len(values)], "values": list(values)}


def test_fewer_breaks_and_the_same_outputs_keep_the_fix() -> None:
    before = run(tensor(1.0, 2.0), tensor(1.0, 2.0))
    assert _judge(before, run(tensor(1.0, 2.0 + 1e-7), tensor(1.0, 2.0)), 2, 0) == "kept"


def test_the_reasons_a_fix_is_reverted() -> None:
    before = run(tensor(1.0, 2.0), tensor(1.0, 2.0))
    assert _judge(before, run(tensor(1.0, 2.0), tensor(1.0, 2.0)), 2, 2) == "break count unchanged: 2 -> 2"
    assert _judge(before, run(tensor(1.0, 2.0), tensor(1.0, 2.0)), 1, 3) == "more breaks: 1 -> 3"
    assert _judge(before, run(tensor(1.0, 3.0), tensor(1.0, 3.0)), 2, 0).startswith("outputs differ: factory `f:make` "
                                                                                  "computes something else eagerly")
    assert "compiled after the fix disagrees" in _judge(before, run(tensor(1.0, 2.0), tensor(0.0, 2.0)), 2, 0)
    broadcast = tensor(1.0, 2.0, 1.0, 2.0, shape=[2, 2])
    assert _judge(before, run(broadcast, broadcast), 2, 0).startswith("outputs differ")
    assert _judge(before, run(None, None, error="ValueError: boom"), 2, 0).startswith("factory `f:make` failed")


def test_outputs_agree_as_allclose_does() -> None:
    assert outputs.agree(tensor(1.0, float("nan")), tensor(1.0 + 1e-6, float("nan")))
    assert not outputs.agree(tensor(1.0), tensor(1.001))
    assert not outputs.agree(tensor(1.0), {**tensor(1.0), "tensor": "torch.float64"})
    assert outputs.agree([tensor(1.0), {"loss": 2.0}], [tensor(1.0), {"loss": 2.0}])
    assert not outputs.agree([tensor(1.0)], [tensor(1.0), tensor(1.0)])
