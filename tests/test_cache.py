"""The cache between runs: the same findings as without it, invalidated by what a file depends on,
and harmless when it is damaged, foreign, forged, unwritable or shared by concurrent runs."""

from __future__ import annotations

import hashlib
import importlib.util
import json
import os
import pickle
import random
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path
from types import SimpleNamespace

import pytest

from dynalint.api import lint_paths
from dynalint.incremental import cache
from dynalint.incremental.digests import ImportClosure
from dynalint.lint import parallel
from dynalint.project.config import Config, load

ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture(autouse=True)
def _own_signing_key(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> None:
    """Each test signs with a key of its own, never the user's."""
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path_factory.mktemp("user-cache")))


def write(folder: Path, files: dict[str, str]) -> None:
    for name, text in files.items():
        target = folder / name
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(textwrap.dedent(text), encoding="utf-8")


def findings(folder: Path, *paths: str, use_cache: bool = True) -> list[tuple[str, int, str]]:
    config = load(None, folder)
    result = lint_paths([str(folder / p) for p in paths or (".",)], config, use_cache=use_cache)
    return [(Path(f.filename).name, f.start.line, f.code) for f in result.findings]


def dynalint(cwd: Path, *args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "dynalint", *args], cwd=cwd, capture_output=True, text=True,
                          timeout=300, env={**os.environ, **(env or {})})


PROJECT = {
    "pyproject.toml": "[tool.dynalint]\n",
    "pkg/__init__.py": "",
    "pkg/helpers.py": """
        import torch


        def fast(x):
            return x * 2
    """,
    "pkg/model.py": """
        import torch

        from pkg.helpers import fast


        @torch.compile
        def step(x):
            y = fast(x)
            return y + 1
    """,
}


def test_cached_findings_equal_uncached_over_the_fixtures(tmp_path: Path) -> None:
    shutil.copytree(ROOT / "fixtures", tmp_path / "fixtures")
    (tmp_path / "pyproject.toml").write_text("[tool.dynalint]\n", encoding="utf-8")
    fresh = dynalint(tmp_path, "--no-cache", "--output-format", "json", "fixtures")
    cold = dynalint(tmp_path, "--output-format", "json", "fixtures")
    warm = dynalint(tmp_path, "--output-format", "json", "fixtures")
    assert fresh.returncode == cold.returncode == warm.returncode == 1
    assert json.loads(fresh.stdout) and fresh.stdout == cold.stdout == warm.stdout
    assert (tmp_path / ".dynalint_cache" / "findings.pack").is_file()
    assert not (tmp_path / "fixtures" / ".dynalint_cache").exists()


def test_cached_findings_equal_uncached_over_a_real_library(tmp_path: Path) -> None:
    spec = importlib.util.find_spec("torch")  # located, never imported
    if spec is None or not spec.submodule_search_locations:
        pytest.skip("torch is not installed")
    shutil.copytree(Path(spec.submodule_search_locations[0]) / "nn", tmp_path / "nn")
    (tmp_path / "pyproject.toml").write_text("[tool.dynalint]\n", encoding="utf-8")
    fresh = dynalint(tmp_path, "--no-cache", "--output-format", "json", "nn")
    cold = dynalint(tmp_path, "--output-format", "json", "nn")
    warm = dynalint(tmp_path, "--output-format", "json", "nn")
    staged = dynalint(tmp_path, "--output-format", "json", "nn/modules/activation.py")
    assert json.loads(fresh.stdout) and fresh.stdout == cold.stdout == warm.stdout
    alone = [f for f in json.loads(fresh.stdout) if f["filename"] == "nn/modules/activation.py"]
    assert json.loads(staged.stdout) == alone


def test_editing_an_imported_helper_re_reports_the_unchanged_file(tmp_path: Path) -> None:
    write(tmp_path, PROJECT)
    assert findings(tmp_path) == []
    write(tmp_path, {"pkg/helpers.py": """
        import torch


        def _fast(x):
            return x * 2


        fast = torch.compiler.disable(_fast)
    """})
    assert findings(tmp_path) == findings(tmp_path, use_cache=False) == [("model.py", 9, "DYN002")]


def test_a_new_caller_elsewhere_re_reports_a_file_that_imports_nothing(tmp_path: Path) -> None:
    """The region set changed (a function became compiled) although no file the helper imports did."""
    write(tmp_path, {**PROJECT, "pkg/helpers.py": """
        def fast(x):
            print("fast")
            return x * 2
    """, "pkg/model.py": """
        import torch


        @torch.compile
        def step(x):
            return x + 1
    """})
    assert findings(tmp_path, "pkg/helpers.py") == []
    write(tmp_path, {"pkg/model.py": """
        import torch

        from pkg.helpers import fast


        @torch.compile
        def step(x):
            return fast(x) + 1
    """})
    assert findings(tmp_path, "pkg/helpers.py") == [("helpers.py", 3, "DYN201")]


def test_an_unchanged_tree_is_answered_from_the_cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    write(tmp_path, {**PROJECT, "pkg/model.py": PROJECT["pkg/model.py"].replace("return y + 1", "print(y)")})
    first = findings(tmp_path)
    assert first == [("model.py", 10, "DYN201")]
    import dynalint.lint.engine as engine
    import dynalint.pipeline.stages as stages

    def must_not_lint(*args: object, **kwargs: object) -> None:
        raise AssertionError("a file was linted again although nothing changed")

    def must_not_parse(*args: object, **kwargs: object) -> None:
        raise AssertionError("a file was parsed again although nothing changed")

    monkeypatch.setattr(engine, "lint_module", must_not_lint)
    monkeypatch.setattr(stages, "prepare", must_not_parse)
    assert findings(tmp_path) == first


@pytest.mark.parametrize("damage", ["truncated", "foreign version", "forged", "garbage"])
def test_a_damaged_or_foreign_cache_is_ignored_and_rebuilt(tmp_path: Path, damage: str) -> None:
    write(tmp_path, {**PROJECT, "pkg/helpers.py": "def fast(x):\n    print(x)\n    return x\n"})
    expected = findings(tmp_path, use_cache=False)
    assert expected == [("helpers.py", 2, "DYN201")]
    assert findings(tmp_path) == expected
    folder = tmp_path / ".dynalint_cache"
    marker = tmp_path / "unpickled"
    for pack in folder.glob("*.pack"):
        data = pack.read_bytes()
        if damage == "truncated":
            pack.write_bytes(data[: len(data) // 2])
        elif damage == "garbage":
            pack.write_bytes(os.urandom(len(data)))
        elif damage == "foreign version":
            # Signed with the right key but computed by other code: must not be trusted either.
            cache._write(pack, {"x": 1}, cache._user_key(), "another-dynalint")
        else:  # a pack that came with a cloned repository: a pickle that would run code if loaded
            body = pickle.dumps(("x", _Exploit(str(marker))))
            pack.write_bytes(cache._MAGIC + b"\0" * 32 + body)
    assert findings(tmp_path) == expected
    assert not marker.exists()
    assert findings(tmp_path) == expected  # and the rebuilt cache serves the next run


class _Exploit:
    def __init__(self, path: str) -> None:
        self.path = path

    def __reduce__(self) -> tuple[object, tuple[str, str]]:
        return (shutil.copyfile, (__file__, self.path))


def test_an_unwritable_cache_folder_costs_nothing(tmp_path: Path) -> None:
    write(tmp_path, {**PROJECT, "pkg/helpers.py": "def fast(x):\n    print(x)\n    return x\n"})
    (tmp_path / "blocker").write_text("a file where the cache folder's parent should be", encoding="utf-8")
    (tmp_path / "pyproject.toml").write_text('[tool.dynalint]\ncache-dir = "blocker/cache"\n', encoding="utf-8")
    result = dynalint(tmp_path, "--output-format", "json", ".")
    assert result.returncode == 1, result.stderr
    assert [(f["filename"], f["code"]) for f in json.loads(result.stdout)] == [("pkg/helpers.py", "DYN201")]
    assert "Traceback" not in result.stderr


def test_concurrent_runs_on_one_tree_both_finish_with_the_right_findings(tmp_path: Path) -> None:
    shutil.copytree(ROOT / "fixtures", tmp_path / "fixtures")
    (tmp_path / "pyproject.toml").write_text("[tool.dynalint]\n", encoding="utf-8")
    expected = dynalint(tmp_path, "--no-cache", "--output-format", "json", "fixtures").stdout
    runs = [subprocess.Popen([sys.executable, "-m", "dynalint", "--output-format", "json", "fixtures"],
                             cwd=tmp_path, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
            for _ in range(3)]
    outputs = [run.communicate(timeout=300) for run in runs]
    assert [run.returncode for run in runs] == [1, 1, 1], [err for _, err in outputs]
    assert all(out == expected for out, _ in outputs)
    assert dynalint(tmp_path, "--output-format", "json", "fixtures").stdout == expected


def test_clean_removes_only_a_folder_dynalint_made(tmp_path: Path) -> None:
    write(tmp_path, PROJECT)
    findings(tmp_path)
    assert (tmp_path / ".dynalint_cache" / "CACHEDIR.TAG").is_file()
    result = dynalint(tmp_path, "clean")
    assert result.returncode == 0 and not (tmp_path / ".dynalint_cache").exists()
    (tmp_path / "precious").mkdir()
    (tmp_path / "pyproject.toml").write_text('[tool.dynalint]\ncache-dir = "precious"\n', encoding="utf-8")
    assert dynalint(tmp_path, "clean").returncode == 0 and (tmp_path / "precious").is_dir()


def test_no_cache_writes_nothing(tmp_path: Path) -> None:
    write(tmp_path, PROJECT)
    assert dynalint(tmp_path, "--no-cache", ".").returncode == 0
    assert not (tmp_path / ".dynalint_cache").exists()


def test_import_closure_digest_matches_a_plain_walk_on_random_graphs() -> None:
    generator = random.Random(20261124)
    for _ in range(300):
        names = [f"m{i}" for i in range(generator.randint(1, 12))]
        edges = {m: generator.sample(names, generator.randint(0, min(3, len(names)))) for m in names}
        modules = {
            m: SimpleNamespace(imports=SimpleNamespace(aliases={f"a{j}": f"{t}.X" for j, t in enumerate(edges[m])}))
            for m in names
        }
        contents = {m: str(generator.random()) for m in names}
        closure = ImportClosure(SimpleNamespace(modules=modules), contents)  # type: ignore[arg-type]
        for module in generator.sample(names, len(names)):
            reached, pending = {module}, [module]
            while pending:
                for target in edges[pending.pop()]:
                    if target not in reached:
                        reached.add(target)
                        pending.append(target)
            text = repr(sorted((name, contents[name]) for name in reached))
            assert closure.digest(module) == hashlib.sha256(text.encode()).hexdigest(), (module, edges)


def test_config_rejects_an_empty_cache_dir(tmp_path: Path) -> None:
    (tmp_path / "pyproject.toml").write_text('[tool.dynalint]\ncache-dir = ""\n', encoding="utf-8")
    result = dynalint(tmp_path, ".")
    assert result.returncode == 2 and "cache-dir" in result.stderr
    assert Config(root=tmp_path).cache_folder == tmp_path / ".dynalint_cache"


def test_parallel_findings_equal_serial_findings(tmp_path: Path) -> None:
    shutil.copytree(ROOT / "fixtures", tmp_path / "fixtures")
    (tmp_path / "pyproject.toml").write_text("[tool.dynalint]\n", encoding="utf-8")
    serial = dynalint(tmp_path, "--no-cache", "-j", "1", "--output-format", "json", "fixtures")
    both = dynalint(tmp_path, "--no-cache", "-j", "2", "--output-format", "json", "fixtures")
    assert json.loads(serial.stdout) and serial.stdout == both.stdout
    assert serial.returncode == both.returncode == 1


def test_a_worker_that_dies_costs_only_its_own_item() -> None:
    def work(index: int) -> str:
        if index == 7:
            os._exit(3)  # what a crash in a native parser looks like from outside
        return f"done {index}"

    results = parallel.run(work, 40, jobs=2, lost=lambda index: f"lost {index}")
    assert results == [f"lost {i}" if i == 7 else f"done {i}" for i in range(40)]


def test_a_pool_that_breaks_while_batches_are_handed_over_costs_only_the_dying_item(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A worker can die before the last batches are submitted: ``submit`` then raises at once (seen on a loaded
    CI machine). Those batches run alone like the others of a broken pool."""
    from concurrent.futures import ProcessPoolExecutor
    from concurrent.futures.process import BrokenProcessPool

    real_submit = ProcessPoolExecutor.submit
    handed: list[int] = []

    def submit_then_break(pool: ProcessPoolExecutor, *args: object) -> object:
        handed.append(1)
        if len(handed) > 3:
            raise BrokenProcessPool("A child process terminated abruptly, the process pool is not usable anymore")
        return real_submit(pool, *args)

    monkeypatch.setattr(ProcessPoolExecutor, "submit", submit_then_break)

    def work(index: int) -> str:
        if index == 7:
            os._exit(3)
        return f"done {index}"

    results = parallel.run(work, 40, jobs=2, lost=lambda index: f"lost {index}")
    assert results == [f"lost {i}" if i == 7 else f"done {i}" for i in range(40)]
    assert len(handed) > 3, "the pool was made to break while batches were still being handed over"


def test_stdin_under_a_name_is_that_file_of_its_project_and_leaves_the_cache_true(tmp_path: Path) -> None:
    """An editor sends the buffer: the cross-file region is found, and the file on disk is not confused with it."""
    write(tmp_path, {**PROJECT, "pkg/helpers.py": "def fast(x):\n    return x * 2\n"})
    buffer = "def fast(x):\n    print(x)\n    return x * 2\n"
    result = subprocess.run(  # no path at all: a name for stdin means stdin
        [sys.executable, "-m", "dynalint", "--output-format", "json", "--stdin-filename", "pkg/helpers.py"],
        cwd=tmp_path, input=buffer, capture_output=True, text=True, timeout=300)
    assert result.returncode == 1, result.stderr
    assert [(f["filename"], f["location"]["row"], f["code"]) for f in json.loads(result.stdout)] == [
        ("pkg/helpers.py", 2, "DYN201")
    ]
    assert findings(tmp_path) == []  # the file on disk has no print, whatever the cache saw from stdin


STAGED = {**PROJECT, "pkg/helpers.py": "def fast(x):\n    print(x)\n    return x * 2\n"}


def test_an_unchanged_tree_answers_a_named_file_without_summaries_or_a_link(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The pre-commit case: one file named, nothing changed since the last run (``snapshot.py``)."""
    write(tmp_path, STAGED)
    expected = findings(tmp_path, "pkg/helpers.py", use_cache=False)
    assert expected == [("helpers.py", 2, "DYN201")]
    assert findings(tmp_path, "pkg/helpers.py") == expected
    import dynalint.pipeline.stages as stages

    loaded: list[str] = []
    real_load = cache._load
    monkeypatch.setattr(cache, "_load", lambda path, *rest: loaded.append(path.name) or real_load(path, *rest))
    monkeypatch.setattr(stages, "link", lambda *args, **kwargs: pytest.fail("the program was linked again"))
    assert findings(tmp_path, "pkg/helpers.py") == expected
    assert "summaries.pack" not in loaded and "snapshot.pack" in loaded


@pytest.mark.parametrize("change", ["a file added", "a file removed", "other settings"])
def test_a_snapshot_never_stands_for_a_changed_tree_or_other_settings(tmp_path: Path, change: str) -> None:
    write(tmp_path, STAGED)
    assert findings(tmp_path, "pkg/helpers.py") == [("helpers.py", 2, "DYN201")]
    config = None
    if change == "a file added":  # compiles nothing new, but the tree is another one: the file is linted again
        write(tmp_path, {"pkg/extra.py": "import torch\n\n\n@torch.compile\ndef g(x):\n    return x\n"})
    elif change == "a file removed":  # the only caller goes: the helper is not compiled any more
        (tmp_path / "pkg" / "model.py").unlink()
    else:
        config = load(None, tmp_path).with_overrides(ignore=("DYN201",))
    config = config or load(None, tmp_path)
    fresh = lint_paths([str(tmp_path / "pkg/helpers.py")], config, use_cache=False).findings
    warm = lint_paths([str(tmp_path / "pkg/helpers.py")], config, use_cache=True).findings
    assert warm == fresh
    assert bool(fresh) == (change == "a file added")


def test_an_edit_writes_a_delta_beside_the_summaries_not_the_whole_pack(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Pre-commit after an edit: the run stores one changed summary, not the summaries of the whole tree."""
    import dynalint.pipeline.stages as stages

    write(tmp_path, {**PROJECT, "pkg/helpers.py": "def fast(x):\n    return x * 2\n"})
    assert findings(tmp_path) == []
    folder = tmp_path / ".dynalint_cache"
    whole = (folder / "summaries.pack").read_bytes()
    write(tmp_path, {"pkg/helpers.py": "def fast(x):\n    print(x)\n    return x * 2\n"})
    assert findings(tmp_path, "pkg/helpers.py") == [("helpers.py", 2, "DYN201")]
    assert (folder / "summaries.pack").read_bytes() == whole
    assert (folder / "summaries.delta.pack").is_file()

    # The next run reads the delta over the pack: the edited file is not summarized again.
    summarized: list[str] = []
    real_prepare = stages.prepare
    monkeypatch.setattr(stages, "prepare", lambda source, *rest: summarized.append(source.display) or real_prepare(source, *rest))
    (tmp_path / "pkg" / "model.py").write_text((tmp_path / "pkg" / "model.py").read_text() + "# edited\n")
    assert findings(tmp_path) == [("helpers.py", 2, "DYN201")]
    assert [Path(name).name for name in summarized] == ["model.py"]


def test_a_delta_past_its_limit_rewrites_the_pack_and_removes_the_delta(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    write(tmp_path, {**PROJECT, "pkg/helpers.py": "def fast(x):\n    return x * 2\n"})
    assert findings(tmp_path) == []
    folder = tmp_path / ".dynalint_cache"
    write(tmp_path, {"pkg/helpers.py": "def fast(x):\n    print(x)\n    return x * 2\n"})
    assert findings(tmp_path) == [("helpers.py", 2, "DYN201")]
    assert (folder / "summaries.delta.pack").is_file()
    whole = (folder / "summaries.pack").read_bytes()
    monkeypatch.setattr(cache, "DELTA_LIMIT", 0)
    write(tmp_path, {"pkg/helpers.py": "def fast(x):\n    print(x)\n    return x * 3\n"})
    assert findings(tmp_path) == [("helpers.py", 2, "DYN201")]
    assert (folder / "summaries.pack").read_bytes() != whole
    assert not (folder / "summaries.delta.pack").exists()
    assert findings(tmp_path, use_cache=False) == findings(tmp_path) == [("helpers.py", 2, "DYN201")]


def test_a_caller_elsewhere_that_starts_passing_a_tensor_re_reports_the_callee(tmp_path: Path) -> None:
    """A parameter's kind comes from what the callers pass, and callers live in files the callee's
    import closure does not hold: the callee's findings must follow an edit of its caller."""
    write(tmp_path, {**PROJECT, "pkg/helpers.py": """
        import torch


        def widen(x, n: int | torch.Tensor):
            return x.repeat(int(n))
    """, "pkg/model.py": """
        import torch

        from pkg.helpers import widen


        @torch.compile
        def step(x):
            return widen(x, x.shape[0])
    """})
    assert findings(tmp_path, "pkg/helpers.py") == []
    write(tmp_path, {"pkg/model.py": """
        import torch

        from pkg.helpers import widen


        @torch.compile
        def step(x):
            return widen(x, x.sum())
    """})
    assert findings(tmp_path, "pkg/helpers.py") == findings(tmp_path, "pkg/helpers.py", use_cache=False) == [
        ("helpers.py", 6, "DYN104")]
