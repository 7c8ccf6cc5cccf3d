"""The ground-truth bench's two halves and its installation plan (``gt_halves``, ``gt_setup``): no torch."""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "bench" / "groundtruth"))

import gt_halves  # noqa: E402
import gt_setup  # noqa: E402


def test_the_default_half_leaves_the_sealed_libraries_out(tmp_path: Path) -> None:
    sealed_file = tmp_path / "sealed.toml"
    sealed_file.write_text('libraries = ["b", "d"]\ncommand = "python x.py --sealed"\n', encoding="utf-8")
    sealed = gt_halves.load(sealed_file)
    assert sealed == gt_halves.Sealed(("b", "d"), "python x.py --sealed")
    libraries = ["a", "b", "c", "d", "a"]
    assert gt_halves.half(libraries, sealed, want_sealed=False) == ["a", "c"]
    assert gt_halves.half(libraries, sealed, want_sealed=True) == ["b", "d"]


def test_the_pick_after_the_sealed_half_is_in_neither_half_until_it_is_sealed(tmp_path: Path) -> None:
    sealed_file = tmp_path / "sealed.toml"
    sealed_file.write_text('libraries = ["b"]\nfollowing = ["c"]\ncommand = "python x.py --sealed"\n', encoding="utf-8")
    sealed = gt_halves.load(sealed_file)
    assert sealed.protected == ("b", "c")
    assert gt_halves.half(["a", "b", "c"], sealed, want_sealed=False) == ["a"]
    assert gt_halves.half(["a", "b", "c"], sealed, want_sealed=True) == ["b"]


def test_without_a_sealed_file_everything_is_development(tmp_path: Path) -> None:
    sealed = gt_halves.load(tmp_path / "absent.toml")
    assert gt_halves.half(["a"], sealed, want_sealed=False) == ["a"]
    assert gt_halves.half(["a"], sealed, want_sealed=True) == []


def test_the_committed_sealed_half_is_libraries_of_the_catalogue() -> None:
    sealed = gt_halves.load()
    assert len(sealed.libraries) >= 4
    assert "--sealed" in sealed.command
    import gt_models

    catalogued = set(gt_models.BUILDER_MODULES) | {"diffusers", "timm", "torch_geometric", "kornia", "monai"}
    assert set(sealed.libraries) <= catalogued
    assert set(sealed.following) <= catalogued and not set(sealed.following) & set(sealed.libraries)


def test_every_library_has_a_builder_module_of_its_own() -> None:
    """Two libraries sharing a builder would list one's models under the other (``sam``, the SAM optimizer, was
    first given ``gt_sam``, segment_anything's builder, and replaced it)."""
    import gt_models

    modules = list(gt_models.BUILDER_MODULES.values())
    assert len(modules) == len(set(modules))
    assert all((Path(gt_models.HERE) / f"{module}.py").is_file() for module in modules)


def test_every_install_is_pinned_and_constrained_to_the_one_torch(tmp_path: Path) -> None:
    commands = gt_setup.commands(tmp_path / "venv")
    assert commands[0][1:3] == ["-m", "venv"]
    constraints = str(gt_setup.constraints_file(tmp_path / "venv"))
    installs = [c for c in commands if "install" in c]
    assert installs and all(c[c.index("-c") + 1] == constraints for c in installs)
    assert f"torch=={gt_setup.TORCH}" in gt_setup.CONSTRAINTS and gt_setup.TORCH == "2.13.0"
    assert commands[1][-1] == "torch==2.13.0"  # torch first, alone
    requirements = [a for c in installs for a in c if "==" in a]
    named = [a for c in installs for a in c[c.index("-c") + 2:] if not a.startswith("-") and "/" not in a]
    assert set(named) == set(requirements)  # nothing unpinned
    assert not any(r.split("==")[0] in ("transformers", "peft", "sentence-transformers") for r in requirements)


def test_the_compile_side_counts_sites_and_data_dependent_ones_per_half() -> None:
    import gt_report

    def result(*breaks: tuple[str, int, str]) -> dict[str, object]:
        found = [{"file": f"/lib/{p}", "rel": p, "line": n, "gb_id": gb, "reason": ""} for p, n, gb in breaks]
        return {"version": "1", "modes": {"eval": {"traced": [], "breaks": found, "graphs": 1, "error": None}}}

    results = {
        "a/m1": result(("x.py", 3, "GB0170"), ("x.py", 9, "GB0007")),
        "a/m2": result(("x.py", 3, "GB0170")),  # the same site again
        "b/m1": result(("y.py", 1, "GB0124")),
    }
    table = "\n".join(gt_report.compile_table(results, sealed=("b",)))
    assert "| a | dev | 1 | 2 / 2 | 3 | 2 | 1 |" in table
    assert "| b | sealed | 1 | 1 / 1 | 1 | 1 | 1 |" in table
    assert "| **dev half** | | | | | 2 | 1 |" in table and "| **sealed half** | | | | | 1 | 1 |" in table


def test_the_compile_time_sums_the_recorded_run_times() -> None:
    import gt_report

    results = {"a/m1": {"seconds": 90.0}, "a/m2": {"seconds": 30.0}, "b/m1": {}}  # b/m1: cached before times
    assert gt_report.compile_time(results).startswith("Compile time: 2 min summed over the 2 of 3 models")
