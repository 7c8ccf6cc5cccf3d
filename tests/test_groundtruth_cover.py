"""The ground-truth bench's cover (``bench/groundtruth/gt_cover.py``) on synthetic results: no torch."""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "bench" / "groundtruth"))

import gt_cover  # noqa: E402


def _result(seconds: float, traced: list[tuple[str, int]], breaks: list[tuple[str, int, str]] = (),
            entries: tuple[str, ...] = ()) -> dict:
    return {"seconds": seconds, "entries": list(entries), "modes": {"eval": {
        "traced": [list(t) for t in traced],
        "breaks": [{"rel": path, "line": line, "gb_id": gb, "reason": "x", "file": path} for path, line, gb in breaks],
    }}}


def test_the_cover_keeps_every_fact_and_leaves_out_models_that_add_none() -> None:
    results = {
        "lib/big": _result(10.0, [("a.py", 1), ("a.py", 2), ("a.py", 3)], [("a.py", 2, "GB0170")], ("lib.a:F",)),
        "lib/small": _result(2.0, [("a.py", 1), ("a.py", 2)], [("a.py", 2, "GB0170")], ("lib.a:F",)),
        "lib/line3": _result(1.0, [("a.py", 3)]),
        "lib/same_as_small": _result(3.0, [("a.py", 1), ("a.py", 2)], [("a.py", 2, "GB0170")], ("lib.a:F",)),
        "other/one": _result(4.0, [("b.py", 1)], [("b.py", 1, "GB0124")]),
    }
    chosen = gt_cover.cover(results)
    assert chosen == ["lib/small", "lib/line3", "other/one"]
    kept = set().union(*(gt_cover.facts(results[m]) for m in chosen))
    assert kept == set().union(*(gt_cover.facts(r) for r in results.values()))


def test_a_site_seen_with_another_gb_id_or_an_entry_point_seen_once_keeps_its_model() -> None:
    results = {
        "lib/a": _result(1.0, [("a.py", 1)], [("a.py", 1, "GB0170")]),
        "lib/b": _result(5.0, [("a.py", 1)], [("a.py", 1, "GB0036")]),
        "lib/c": _result(5.0, [("a.py", 1)], [], ("lib.a:G",)),
    }
    assert gt_cover.cover(results) == ["lib/a", "lib/b", "lib/c"]


def test_breaks_outside_the_library_are_no_fact(tmp_path: Path) -> None:
    outside = _result(1.0, [])
    outside["modes"]["eval"]["breaks"] = [{"rel": None, "line": 3, "gb_id": "GB0007", "reason": "", "file": "/x.py"}]
    assert gt_cover.facts(outside) == set()
    gt_cover.write(["lib/a", "lib/b"], "made here\nfrom nothing", tmp_path / "cover.txt")
    assert gt_cover.read(tmp_path / "cover.txt") == ["lib/a", "lib/b"]
