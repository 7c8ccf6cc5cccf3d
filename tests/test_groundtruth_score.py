"""The ground-truth bench's scoring (``bench/groundtruth/gt_score.py``) on synthetic data: no torch, no models."""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "bench" / "groundtruth"))

from gt_score import Site, StaticFinding, score  # noqa: E402


def test_precision_recall_misses_and_false_positives() -> None:
    sites = {
        ("a.py", 10): Site("a.py", 10, {"GB0033"}),
        ("a.py", 20): Site("a.py", 20, {"GB0036"}),
        ("b.py", 5): Site("b.py", 5),
    }
    traced = {("a.py", 10), ("a.py", 11), ("a.py", 20), ("a.py", 30), ("b.py", 5)}
    findings = [
        StaticFinding("DYN101", "a.py", 9, 10),  # spans a break site: true
        StaticFinding("DYN104", "a.py", 30, 30),  # traced, no break: false positive
        StaticFinding("DYN104", "a.py", 99, 99),  # never traced: not judged
    ]
    result = score(sites, traced, findings)
    assert (result.recall.hits, result.recall.total) == (1, 3)
    assert (result.precision.hits, result.precision.total) == (1, 2)
    assert result.unjudged == 1
    assert [(s.path, s.line) for s in result.misses] == [("a.py", 20), ("b.py", 5)]
    assert [f.line for f in result.false_positives] == [30]
    assert result.per_rule["DYN101"].value == 1.0 and result.per_rule["DYN104"].value == 0.0
    assert result.per_gb["GB0036"].value == 0.0 and result.per_gb["unknown"].total == 1
    assert result.rule_sites == {"DYN101": 1}


def test_data_dependent_sites_by_gb_id_then_by_reason() -> None:
    from gt_score import DATA_DEPENDENT, is_data_dependent

    assert {"GB0170", "GB0124", "GB0036", "GB0038"} <= DATA_DEPENDENT.keys()
    assert Site("a.py", 1, {"GB0170"}).data_dependent  # if tensor:
    assert Site("a.py", 1, {"GB0007", "GB0124"}).data_dependent  # any of its ids counts
    assert not Site("a.py", 1, {"GB0007"}).data_dependent  # a skipped function
    assert not Site("a.py", 1, {"GB0007"}, {"Tensor.item() ..."}).data_dependent  # an id decides, not words
    assert is_data_dependent((), ["Data-dependent branching"])  # no id: Dynamo's reason
    assert not is_data_dependent((), ["call to a skipped function"])
