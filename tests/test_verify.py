"""``dynalint --verify``: every finding gets a verdict from real Dynamo, and the break census gates.

Each test runs ``python -m dynalint`` in a subprocess (this module never imports torch). A verify run
pays one torch import per worker, so the cases are batched: the rule pages' Example blocks are one
folder and one run, their Use-instead blocks another, and ``fixtures/verify/outcomes`` holds every
way a verified function can end in one run (a break, a branch never taken, no way to call it, a
hang, a segfault, ``os._exit``, user code on the worker's stdin and stdout, a module only a factory
can build, ``fullgraph=True``, a break no rule predicts). Fixture folders are copied to a temporary
directory first: running them writes ``__pycache__`` and the census test edits them.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from dynalint import checks
from dynalint.lint import rule_pages
from dynalint.model.torch_releases import BASELINE

ROOT = Path(__file__).resolve().parent.parent
FIXTURES = ROOT / "fixtures" / "verify"
HARNESS = re.compile(r"#\s*dynalint-harness:")
KIND = re.compile(r"\bKind:\s*(?P<kind>[\w-]+)")
TEXT_FINDING = re.compile(r"^(?P<path>\S+?):(?P<line>\d+):\d+: (?P<code>DYN\d{3}) .*?(?P<verdict>\[[^\n]*\])$", re.M)


# Extra --verify options for a whole run, e.g. on a GPU machine:
# DYNALINT_VERIFY_ARGS="--device cuda --verify-backend inductor" python -m pytest tests/test_verify.py
EXTRA_VERIFY_ARGS = tuple(os.environ.get("DYNALINT_VERIFY_ARGS", "").split())


def dynalint(*args: str, cwd: Path, timeout: float = 300) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")]))}
    extra = EXTRA_VERIFY_ARGS if "--verify" in args else ()
    return subprocess.run(
        [sys.executable, "-m", "dynalint", *args, *extra], cwd=cwd, capture_output=True, text=True, timeout=timeout,
        env=env,
    )


def verify_json(folder: Path, *extra: str) -> tuple[subprocess.CompletedProcess[str], list[dict[str, Any]]]:
    completed = dynalint("--verify", "--output-format", "json", *extra, ".", cwd=folder)
    # An uncaught exception exits 1 too: the traceback is what tells it from "findings".
    assert completed.returncode in (0, 1) and "Traceback" not in completed.stderr, completed.stderr[-4000:]
    return completed, json.loads(completed.stdout)


def copy_fixture(name: str, destination: Path) -> Path:
    target = destination / name
    shutil.copytree(FIXTURES / name, target)
    return target


def line_of(path: Path, text: str) -> int:
    """The 1-based line of the only line of ``path`` that contains ``text``."""
    found = [n for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1) if text in line]
    assert len(found) == 1, (path, text, found)
    return found[0]


# -- the rule pages, verified ----------------------------------------------------------------------


def _kind(page: rule_pages.Page) -> str:
    """What the page's rule warns of: its metadata line's ``Kind:``, ``break`` when absent."""
    kind = KIND.search(page.text.splitlines()[2])
    return kind.group("kind") if kind else "break"


def _write_blocks(section: str, folder: Path, kinds: tuple[str, ...] = ("break",)) -> dict[str, str]:
    """Each block of ``section`` of every page of ``kinds`` as ``folder/<block id>.py``; ``{file name: page code}``."""
    folder.mkdir()
    written = {}
    for page in rule_pages.load_pages().values():
        rule = checks.lookup(page.code)
        if _kind(page) not in kinds or (rule is not None and not rule.applies_here):
            continue  # DYN112 on Python 3.12 and later: nothing to verify
        for block in page.blocks(section):
            if HARNESS.search(block.source.split("\n", 1)[0]):  # rank / recompile / stale-value modes
                continue
            name = block.id.replace("-", "_") + ".py"
            (folder / name).write_text(block.source, encoding="utf-8")
            written[name] = page.code
    assert written, f"no {section} blocks of {kinds} pages found"
    return written


@pytest.fixture(scope="module")
def examples(tmp_path_factory: pytest.TempPathFactory) -> tuple[dict[str, str], list[dict[str, Any]]]:
    folder = tmp_path_factory.mktemp("pages") / "examples"
    blocks = _write_blocks("Example", folder)
    completed, findings = verify_json(folder)
    assert completed.returncode == 1, completed.stderr[-4000:]
    return blocks, findings


@pytest.mark.torch
def test_every_example_finding_is_confirmed_with_a_gb_id_of_its_rule(
    examples: tuple[dict[str, str], list[dict[str, Any]]],
) -> None:
    """Each finding names the GB ids its pattern breaks with on the installed torch (the version table's
    column for it: the rule's own ids on 2.13), and the break observed on its line has one of them."""
    blocks, findings = examples
    listed = json.loads(dynalint("rules", "--output-format", "json", cwd=ROOT).stdout)
    rules = {r["code"]: set(r["gb_ids"]) for r in listed}
    own = [f for f in findings if f["code"] == blocks.get(f["filename"])]
    assert {f["filename"] for f in own} == set(blocks), "an Example block yielded no finding of its rule"
    wrong = [
        f"{f['filename']}:{f['location']['row']} {f['code']} {f['gb_ids']} {f['verify']}"
        for f in own
        if f["verify"]["verdict"] != "confirmed"
        or not f["verify"]["matches_rule"]
        or not set(f["verify"]["gb_ids"]) & set(f["gb_ids"])
        or (f["torch"]["measured"] == BASELINE and not set(f["gb_ids"]) <= rules[f["code"]])
    ]
    assert not wrong, "\n".join(wrong)


@pytest.mark.torch
def test_examples_break_nowhere_that_no_rule_predicted(examples: tuple[dict[str, str], list[dict[str, Any]]]) -> None:
    _, findings = examples
    unpredicted = [f"{f['filename']}:{f['location']['row']} {f['message']}" for f in findings if f["code"] == "DYN090"]
    assert not unpredicted, "\n".join(unpredicted)


@pytest.mark.torch
def test_use_instead_blocks_verify_clean(tmp_path: Path) -> None:
    folder = tmp_path / "use_instead"
    _write_blocks("Use instead", folder)
    completed, findings = verify_json(folder)
    # --verify compiles only functions that hold findings, so this run compiles nothing: no DYN090
    # can appear. That each of these blocks compiles without a break is test_rule_pages' job.
    assert findings == [], [f"{f['filename']}:{f['location']['row']} {f['code']}" for f in findings]
    assert completed.returncode == 0, completed.stderr[-4000:]


@pytest.mark.torch
def test_recompile_and_stale_value_findings_are_never_refuted(tmp_path: Path) -> None:
    # No graph break is expected on their lines, so not seeing one proves nothing either way.
    blocks = _write_blocks("Example", tmp_path / "hazards", kinds=("recompile", "stale-value"))
    _, findings = verify_json(tmp_path / "hazards")
    own = [f for f in findings if f["code"] == blocks.get(f["filename"])]
    assert {f["filename"] for f in own} == set(blocks), "an Example block yielded no finding of its rule"
    wrong = [
        f"{f['filename']}:{f['location']['row']} {f['code']} {f['verify']}"
        for f in own
        if f["verify"]["verdict"] != "unverifiable" or "hazard is not one" not in f["verify"]["reason"]
    ]
    assert not wrong, "\n".join(wrong)


# -- every outcome of a verified function, in one run ---------------------------------------------------


@pytest.fixture(scope="module")
def outcomes(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict[tuple[str, int], dict[str, Any]]]:
    folder = copy_fixture("outcomes", tmp_path_factory.mktemp("verify"))
    completed, findings = verify_json(folder, "--census-out", "census.json")
    assert completed.returncode == 1, completed.stderr[-4000:]
    by_site = {}
    for finding in findings:
        key = (finding["filename"], finding["location"]["row"])
        assert key not in by_site, f"two findings at {key}"
        by_site[key] = finding
    return folder, by_site


def _verdict(outcomes: tuple[Path, dict[tuple[str, int], dict[str, Any]]], name: str, text: str) -> dict[str, Any]:
    folder, by_site = outcomes
    finding = by_site.get((name, line_of(folder / name, text)))
    assert finding is not None, f"no finding at {name}: {text}"
    assert isinstance(finding.get("verify"), dict) and "verdict" in finding["verify"], finding
    return finding["verify"]


@pytest.mark.torch
def test_every_finding_has_a_verify_object(outcomes: tuple[Path, dict[tuple[str, int], dict[str, Any]]]) -> None:
    _, by_site = outcomes
    verdicts = {f["verify"]["verdict"] for f in by_site.values()}
    assert verdicts == {"confirmed", "not reached", "unverifiable"}


@pytest.mark.torch
@pytest.mark.parametrize("name", ["a_confirmed.py", "z_confirmed.py"])
def test_confirmed_before_and_after_the_failures(
    outcomes: tuple[Path, dict[tuple[str, int], dict[str, Any]]], name: str
) -> None:
    verdict = _verdict(outcomes, name, 'print("')
    assert verdict["verdict"] == "confirmed" and "GB0059" in verdict["gb_ids"], verdict


@pytest.mark.torch
def test_a_declared_factory_verifies_what_verify_cannot_construct(
    outcomes: tuple[Path, dict[tuple[str, int], dict[str, Any]]],
) -> None:
    # The same run's failures (hang, crashes, no annotation) stay unverifiable although this factory
    # ran fine: it compiled another function, so it says nothing about theirs.
    verdict = _verdict(outcomes, "i_factory.py", 'print("projecting"')
    assert verdict["verdict"] == "confirmed" and "GB0059" in verdict["gb_ids"], verdict


@pytest.mark.torch
def test_a_function_the_factory_ran_is_not_synthesized_again(
    outcomes: tuple[Path, dict[tuple[str, int], dict[str, Any]]],
) -> None:
    # Projection.forward is an entry of its own, but the factory already ran it with real inputs:
    # its census entry points there instead of failing to construct Projection without arguments.
    folder, _ = outcomes
    functions = json.loads((folder / "census.json").read_text(encoding="utf-8"))["functions"]
    entry = functions["i_factory.py::Projection.forward"]
    assert entry["status"] == "covered" and "factory:i_factory:example" in entry["reason"], entry
    assert functions["factory:i_factory:example"]["breaks"] == 1


@pytest.mark.torch
def test_fullgraph_first_break_is_confirmed_and_the_rest_not_reached(
    outcomes: tuple[Path, dict[tuple[str, int], dict[str, Any]]],
) -> None:
    first = _verdict(outcomes, "j_fullgraph.py", 'print("first")')
    assert first["verdict"] == "confirmed" and first["gb_ids"] == ["GB0059"], first
    assert _verdict(outcomes, "j_fullgraph.py", 'print("second")')["verdict"] == "not reached"


@pytest.mark.torch
def test_branch_never_taken_is_not_reached(outcomes: tuple[Path, dict[tuple[str, int], dict[str, Any]]]) -> None:
    verdict = _verdict(outcomes, "b_branch.py", 'print("scaled"')
    assert verdict["verdict"] == "not reached", verdict
    assert verdict["reason"].startswith("branch not taken for synthesized inputs (eval, no_grad)"), verdict


@pytest.mark.torch
def test_a_line_after_a_break_dynamo_gave_the_frame_up_on_is_not_reached_and_names_that_break(
    outcomes: tuple[Path, dict[tuple[str, int], dict[str, Any]]],
) -> None:
    folder, _ = outcomes
    tick = line_of(folder / "l_gave_up.py", 'print("tick")')
    assert _verdict(outcomes, "l_gave_up.py", 'print("tick")')["verdict"] == "confirmed"
    verdict = _verdict(outcomes, "l_gave_up.py", "scale = x.sum().item()")
    assert verdict["verdict"] == "not reached", verdict
    assert verdict["reason"].startswith(
        f"ran eagerly after the break at l_gave_up.py:{tick} (GB0059) in the same frame: Dynamo gave up `ticks`"
    ), verdict
    stopped = _verdict(outcomes, "j_fullgraph.py", 'print("second")')
    first = line_of(folder / "j_fullgraph.py", 'print("first")')
    assert stopped["reason"].startswith(f"compile stopped at the break at j_fullgraph.py:{first} (GB0059)"), stopped


@pytest.mark.torch
def test_a_train_mode_factory_runs_the_training_path_that_eval_mode_never_takes(
    outcomes: tuple[Path, dict[tuple[str, int], dict[str, Any]]],
) -> None:
    folder, _ = outcomes
    functions = json.loads((folder / "census.json").read_text(encoding="utf-8"))["functions"]
    training = line_of(folder / "m_modes.py", 'print("training step")')
    site = f"m_modes.py:{training} GB0059"
    assert functions["factory:m_modes:example@train"]["break_sites"] == [site], functions
    assert functions["factory:m_modes:example"]["break_sites"] == [], functions
    verdict = _verdict(outcomes, "m_modes.py", 'print("training step")')
    assert verdict["verdict"] == "confirmed" and verdict["gb_ids"] == ["GB0059"], verdict


@pytest.mark.torch
def test_the_second_call_counts_the_recompile_the_first_one_causes(
    outcomes: tuple[Path, dict[tuple[str, int], dict[str, Any]]],
) -> None:
    folder, _ = outcomes
    entry = json.loads((folder / "census.json").read_text(encoding="utf-8"))["functions"]["n_counter.py::counted"]
    assert entry["status"] == "ran" and entry["recompiles"] == 1 and entry["graphs"] == 2, entry


@pytest.mark.torch
def test_a_class_a_factory_built_but_never_called_is_not_reached_and_no_factory_is_asked_for(
    outcomes: tuple[Path, dict[tuple[str, int], dict[str, Any]]],
) -> None:
    folder, _ = outcomes
    verdict = _verdict(outcomes, "m_modes.py", 'print("spare")')
    assert verdict["verdict"] == "not reached", verdict
    assert "factory `m_modes:example`'s inputs (eval, no_grad)" in verdict["reason"], verdict
    assert "factory `m_modes:example`'s inputs (train, grad enabled)" in verdict["reason"], verdict
    entry = json.loads((folder / "census.json").read_text(encoding="utf-8"))["functions"]["m_modes.py::Spare.forward"]
    assert entry["status"] == "unverifiable" and "declare" not in entry["reason"], entry
    assert entry["reason"].endswith(
        "`factory:m_modes:example`, `factory:m_modes:example@train` built it, but never called `Spare.forward`"
    ), entry


@pytest.mark.torch
@pytest.mark.parametrize(
    ("text", "reason"),
    [
        ('print("untyped"', r"parameter `x` \(no annotation\)"),
        ('print("scaled forward")', r"constructing `Scaled` needs arguments"),
        ('print("wide forward")', r"`Wide\(\)` with its default arguments has 67,117,056 parameters"),
    ],
)
def test_uncallable_function_is_unverifiable_with_the_reason(
    outcomes: tuple[Path, dict[tuple[str, int], dict[str, Any]]], text: str, reason: str
) -> None:
    verdict = _verdict(outcomes, "c_unrunnable.py", text)
    assert verdict["verdict"] == "unverifiable" and re.search(reason, verdict["reason"]), verdict


@pytest.mark.torch
@pytest.mark.parametrize(
    ("name", "reason"),
    [
        ("d_hang.py", r"timed out after 10 s"),
        ("e_segfault.py", r"killed by SIGSEGV"),
        ("f_exit.py", r"exited with code 3"),
    ],
)
def test_hang_and_crashes_are_unverifiable_and_named(
    outcomes: tuple[Path, dict[tuple[str, int], dict[str, Any]]], name: str, reason: str
) -> None:
    verdict = _verdict(outcomes, name, 'print("')
    assert verdict["verdict"] == "unverifiable" and re.search(reason, verdict["reason"]), verdict


@pytest.mark.torch
def test_user_code_on_the_workers_stdin_and_stdout_leaves_the_protocol_alone(
    outcomes: tuple[Path, dict[tuple[str, int], dict[str, Any]]],
) -> None:
    # h_stdio.py writes a non-JSON line to fd 1 at import and calls input() under compile.
    verdict = _verdict(outcomes, "h_stdio.py", "answer = input(")
    assert verdict["verdict"] == "confirmed" and "GB0059" in verdict["gb_ids"], verdict


@pytest.mark.torch
def test_break_no_rule_predicts_is_reported_as_dyn090(
    outcomes: tuple[Path, dict[tuple[str, int], dict[str, Any]]],
) -> None:
    folder, by_site = outcomes
    line = line_of(folder / "g_unpredicted.py", "str(y)")
    finding = by_site.get(("g_unpredicted.py", line))
    assert finding is not None and finding["code"] == "DYN090", finding
    assert finding["name"] == "observed-graph-break"
    assert finding["verify"]["verdict"] == "confirmed" and "GB0059" in finding["verify"]["gb_ids"], finding
    assert "GB0059" in finding["message"] and finding["verify"]["observed_in"] == "describe"
    # Dynamo's own explanation and hints, the GB id's page, and why the function is compiled.
    explanation = finding["verify"]["explanation"]
    assert explanation and f"Dynamo: {explanation}" in finding["message"]
    assert finding["verify"]["hints"] and finding["help"] == f"Dynamo's hint: {finding['verify']['hints'][0]}"
    assert finding["url"] == "https://meta-pytorch.github.io/compile-graph-break-site/gb/gb0059.html"
    chain = finding["region"]["chain"]
    assert finding["region"]["function"] == "describe" and chain and chain[-1]["function"] == "describe", chain
    # The predicted print of the same function is confirmed, not mistaken for the unpredicted break.
    assert _verdict(outcomes, "g_unpredicted.py", 'print("describing")')["verdict"] == "confirmed"
    assert [f for f in by_site.values() if f["code"] == "DYN090"] == [finding]


@pytest.mark.torch
def test_a_check_failing_on_made_up_inputs_is_no_graph_break(
    outcomes: tuple[Path, dict[tuple[str, int], dict[str, Any]]],
) -> None:
    # The synthesized input is 2-d: the assert raises, and Dynamo logs that line as a break. The
    # exception is what happened there: no DYN090, no break site, and the census says why.
    folder, by_site = outcomes
    assert ("k_bad_input.py", line_of(folder / "k_bad_input.py", "assert len(")) not in by_site
    entry = json.loads((folder / "census.json").read_text(encoding="utf-8"))["functions"]["k_bad_input.py::field_norm"]
    # torch 2.13 keeps the assert's message; torch 2.11 re-raises it from Dynamo and the reason quotes the
    # user's ``assert`` statement instead (``worker._one_line``): either way, the check and its words.
    assert entry["status"] == "error" and entry["reason"].startswith("AssertionError: "), entry
    assert "a 3-d field" in entry["reason"] and "k_bad_input.py:8" in entry["reason"], entry
    assert entry["break_sites"] == [], entry


@pytest.mark.torch
def test_a_finding_dynamo_does_not_break_on_is_refuted(tmp_path: Path) -> None:
    folder = copy_fixture("refuted", tmp_path)
    _, findings = verify_json(folder)
    assert [(f["code"], f["location"]["row"], f["verify"]["verdict"]) for f in findings] == [
        ("DYN201", line_of(folder / "reordered_print.py", 'print("chatty"'), "refuted")
    ]
    # A refutation holds for the inputs that ran, and says which.
    assert findings[0]["verify"]["reason"] == "for synthesized inputs (eval, no_grad)", findings[0]


@pytest.mark.torch
def test_installed_code_outside_the_project_is_verified_where_the_factories_ran(tmp_path: Path) -> None:
    fixture = copy_fixture("installed", tmp_path)
    project, library = fixture / "project", fixture / "site-packages"
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT), str(library)])}  # installed: importable
    completed = subprocess.run(
        [sys.executable, "-m", "dynalint", "--verify", "--output-format", "json", "--census-out", "census.json",
         *EXTRA_VERIFY_ARGS, "build.py", str(library / "fakelib")],
        cwd=project, capture_output=True, text=True, timeout=300, env=env,
    )
    assert completed.returncode == 1 and "Traceback" not in completed.stderr, completed.stderr[-4000:]
    findings = json.loads(completed.stdout)
    model = library / "fakelib" / "model.py"
    verdicts = {f["location"]["row"]: f["verify"] for f in findings if f["filename"].endswith("fakelib/model.py")}
    inputs = "factory `build:tiny`'s inputs (eval, no_grad)"
    assert verdicts[line_of(model, 'print("model"')] == {"verdict": "refuted", "gb_ids": [], "reason": f"for {inputs}"}
    unreached = verdicts[line_of(model, ".item()")]
    assert unreached["verdict"] == "not reached" and unreached["reason"].startswith(f"branch not taken for {inputs}")
    breaking = line_of(model, "graph_break()")
    assert verdicts[breaking]["verdict"] == "confirmed", verdicts
    # unused.py holds a finding, but no factory ran it: with factories, only what they reached is linted.
    assert not [f for f in findings if f["filename"].endswith("unused.py")], findings
    functions = json.loads((project / "census.json").read_text(encoding="utf-8"))["functions"]
    sites = functions["factory:build:tiny"]["break_sites"]
    assert [site.split(" ")[0] for site in sites] == [f"fakelib/model.py:{breaking}"], sites
    # Imported through the package's re-export, the model is still the class its module defines.
    assert functions["fakelib/model.py::Model.forward"]["status"] == "covered", functions


@pytest.mark.torch
def test_compiled_functions_without_findings_are_verified_too(tmp_path: Path) -> None:
    # No rule flags ``str(tensor)``: the function has no finding, yet it is compiled, its break is
    # reported as DYN090, and the census covers it.
    (tmp_path / "quiet.py").write_text(
        "import torch\n\n\n@torch.compile\ndef describe(x: torch.Tensor) -> torch.Tensor:\n"
        "    label = str(x)\n    return x * len(label)\n",
        encoding="utf-8",
    )
    completed, findings = verify_json(tmp_path, "--census-out", str(tmp_path / "census.json"))
    assert [(f["code"], f["location"]["row"]) for f in findings] == [("DYN090", 6)]
    census = json.loads((tmp_path / "census.json").read_text(encoding="utf-8"))
    assert census["functions"]["quiet.py::describe"]["breaks"] == 1
    [(site, detail)] = census["functions"]["quiet.py::describe"]["sites"].items()
    assert site.startswith("quiet.py:6 ") and detail["verdict"] == "DYN090" and detail["rules"] == []


# -- the break census and its gate ---------------------------------------------------------------------------


FRESH = """

@torch.compile
def fresh(x: torch.Tensor) -> torch.Tensor:
    print("fresh")
    return x - 1
"""


@pytest.mark.torch
def test_census_gate_fails_on_a_new_break_and_reports_a_fixed_one(tmp_path: Path) -> None:
    project = copy_fixture("census", tmp_path)
    src = project / "src"
    model = src / "model.py"
    original = model.read_text(encoding="utf-8")
    census = tmp_path / "census.json"

    recorded = dynalint("--verify", "--census-out", str(census), "src", cwd=project)
    assert recorded.returncode == 1, recorded.stderr[-4000:]
    functions = json.loads(census.read_text(encoding="utf-8"))["functions"]
    assert set(functions) == {"src/model.py::step", "src/model.py::maybe", "src/model.py::untyped"}
    step = functions["src/model.py::step"]
    print_line, item_line = line_of(model, 'print("step"'), line_of(model, ".item()")
    assert step["status"] == "ran" and step["breaks"] == 2
    assert step["break_sites"] == [f"src/model.py:{print_line} GB0059", f"src/model.py:{item_line} GB0124"]
    # Each site with its static verdict, as the pytest plugin's census has them.
    assert step["sites"] == {
        f"src/model.py:{print_line} GB0059": {"gb_id": "GB0059", "verdict": "confirmed", "rules": ["DYN201"]},
        f"src/model.py:{item_line} GB0124": {"gb_id": "GB0124", "verdict": "confirmed", "rules": ["DYN101"]},
    }
    assert functions["src/model.py::untyped"]["status"] == "unverifiable"
    # The text reporter shows each verdict after the message.
    shown = {(int(m["line"]), m["verdict"]) for m in TEXT_FINDING.finditer(recorded.stdout)}
    assert (print_line, "[confirmed GB0059]") in shown and (item_line, "[confirmed GB0124]") in shown
    maybe = [v for line, v in shown if line == line_of(model, 'print("maybe"')]
    assert maybe == ["[not reached: branch not taken for synthesized inputs (eval, no_grad): compiled and run, "
                     "but Dynamo never traced this line]"], shown
    untyped = [v for line, v in shown if line == line_of(model, 'print("untyped")')]
    assert len(untyped) == 1 and untyped[0].startswith("[unverifiable: cannot make an input"), shown

    # From src/ now: the census still names src/model.py, because names are relative to the project.
    new_line = line_of(model, "y = y * 2")  # replaced in place: the other lines keep their numbers
    worse_source = original.replace("    y = y * 2\n", '    print("doubled", y.shape)\n') + FRESH
    model.write_text(worse_source, encoding="utf-8")
    fresh_line = line_of(model, 'print("fresh")')
    worse = dynalint("--verify", "--baseline", str(census), ".", cwd=src)
    assert worse.returncode == 1, worse.stderr[-4000:]
    regressions = sorted(line for line in worse.stderr.splitlines() if line.startswith("regression:"))
    assert len(regressions) == 2, worse.stderr
    assert regressions[0] == f"regression: src/model.py::fresh: breaks 0 -> 1 (not in the baseline); " \
        f"new break sites: src/model.py:{fresh_line} GB0059"
    assert regressions[1].startswith("regression: src/model.py::step: breaks 2 -> 3"), worse.stderr
    assert regressions[1].endswith(f"new break sites: src/model.py:{new_line} GB0059"), worse.stderr

    model.write_text(original.replace('    print("step", y.shape)\n', "    y = y + 0\n"), encoding="utf-8")
    better = dynalint("--verify", "--baseline", str(census), ".", cwd=src)
    assert better.returncode == 0, better.stderr[-4000:]
    assert "regression:" not in better.stderr
    assert re.search(
        rf"^improved: src/model.py::step: breaks 2 -> 1.*fixed: src/model.py:{print_line} GB0059$", better.stderr, re.M
    ), better.stderr


# -- without torch ---------------------------------------------------------------------------------------------


def test_verify_without_torch_exits_2_and_names_the_extra(tmp_path: Path) -> None:
    (tmp_path / "model.py").write_text(
        'import torch\n\n\n@torch.compile\ndef f(x):\n    print("hi")\n    return x\n', encoding="utf-8"
    )
    # ``sys.modules["torch"] = None`` makes ``importlib.util.find_spec("torch")`` answer None: torch is hidden.
    hide_torch = (
        "import runpy, sys; sys.modules['torch'] = None; sys.argv = ['dynalint', '--verify', 'model.py']; "
        "runpy.run_module('dynalint', run_name='__main__', alter_sys=True)"
    )
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")]))}
    completed = subprocess.run(
        [sys.executable, "-c", hide_torch], cwd=tmp_path, capture_output=True, text=True, timeout=120, env=env
    )
    assert completed.returncode == 2, completed.stderr
    assert "dynalint[verify]" in completed.stderr


@pytest.mark.torch
def test_device_cuda_on_a_torch_without_cuda_is_a_usage_error(tmp_path: Path) -> None:
    import torch

    if torch.cuda.is_available():
        pytest.skip("this torch sees a CUDA device")
    folder = copy_fixture("outcomes", tmp_path)
    ran = dynalint("check", "--no-cache", "--verify", "--device", "cuda", "a_confirmed.py", cwd=folder)
    assert ran.returncode == 2, ran.stderr
    assert ran.stderr.count("\n") == 1 and "--device cuda" in ran.stderr and "no CUDA device" in ran.stderr, ran.stderr
    assert "verified on" not in ran.stderr and ran.stdout == ""


def factory_project(folder: Path, factories: str, model: str) -> None:
    """A project whose ``[tool.dynalint.verify]`` declares ``factories`` (TOML), with ``model.py``."""
    (folder / "pyproject.toml").write_text(f"[tool.dynalint.verify]\nfactories = {factories}\n", encoding="utf-8")
    (folder / "model.py").write_text(model, encoding="utf-8")


@pytest.mark.torch
def test_a_factory_that_fails_fails_the_run_and_names_its_entry(tmp_path: Path) -> None:
    """A misspelled factory, one returning the wrong shape and one whose model raises each exit 2 with one
    line naming the factory, the exception and the ``pyproject.toml`` entry; a good one beside them
    still runs. Before, each gave exit 0 with a stderr note."""
    factory_project(tmp_path, '["model:fnuc", "model:wrong_shape", "model:raises", "model:build"]',
                    "import torch\n\n\nclass Net(torch.nn.Module):\n    def forward(self, x):\n        return x * 2\n\n\n"
                    "def build():\n    return Net(), (torch.randn(2),), {}\n\n\n"
                    "def wrong_shape():\n    return Net()\n\n\n"
                    "class Boom(torch.nn.Module):\n    def forward(self, x):\n        raise ValueError('boom in forward')\n\n\n"
                    "def raises():\n    return Boom(), (torch.randn(2),), {}\n")
    completed = dynalint("--verify", *EXTRA_VERIFY_ARGS, "model.py", cwd=tmp_path)
    errors = [line for line in completed.stderr.splitlines() if line.startswith("dynalint: error:")]
    entry = f"([tool.dynalint.verify] factories in {tmp_path / 'pyproject.toml'})"
    assert completed.returncode == 2, completed.stderr[-3000:]
    assert len(errors) == 3 and all(line.endswith(entry) for line in errors), completed.stderr
    assert "factory `model:fnuc` (eval): factory `model:fnuc`: module `model` has no `fnuc`" in errors[0]
    assert "factory `model:wrong_shape` (eval): factory `model:wrong_shape` must return (callable, args, kwargs)" in errors[1]
    assert "factory `model:raises` (eval): ValueError: boom in forward at model.py:19" in errors[2]
    assert "census factory:model:build: 1 graphs" in completed.stderr  # the good one ran
    assert "Traceback" not in completed.stderr


@pytest.mark.torch
def test_a_break_inside_a_file_not_linted_is_placed_on_the_callers_line_and_named(tmp_path: Path) -> None:
    """The break is in an installed utility nobody asked to lint: the finding stays on the line the user
    can change, and says (in text and in JSON) which frame really broke."""
    library = tmp_path / "lib" / "site-packages" / "fakeutil"
    library.mkdir(parents=True)
    (library / "__init__.py").write_text("", encoding="utf-8")
    (library / "collate.py").write_text(
        "def gather(batch):\n    out = {k: v * 2 for k, v in batch.items()}\n    print('gathered')\n    return out\n",
        encoding="utf-8")
    project = tmp_path / "project"
    project.mkdir()
    (project / "model.py").write_text(
        "import torch\n\nfrom fakeutil.collate import gather\n\n\n@torch.compile(backend='eager')\n"
        "def step(x: torch.Tensor) -> torch.Tensor:\n    out = gather({'a': x})\n    return out['a'] + 1\n",
        encoding="utf-8")
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT), str(library.parent)])}
    completed = subprocess.run([sys.executable, "-m", "dynalint", "--verify", "--output-format", "json",
                                *EXTRA_VERIFY_ARGS, "model.py"], cwd=project, capture_output=True, text=True,
                               timeout=300, env=env)
    assert "Traceback" not in completed.stderr, completed.stderr[-3000:]
    [finding] = [f for f in json.loads(completed.stdout) if f["code"] == "DYN090"]
    assert (finding["filename"], finding["location"]["row"]) == ("model.py", 8)
    assert finding["verify"]["break_in"] == "fakeutil/collate.py:3 (gather)", finding
    assert "inside `fakeutil/collate.py:3 (gather)`, called from here" in finding["message"]
    assert "pass that path to lint it" in finding["message"]


@pytest.mark.torch
def test_a_factory_that_takes_the_mode_returns_labels_in_train_mode_and_the_loss_break_is_seen(tmp_path: Path) -> None:
    """One factory, declared in both modes: called with ``mode="train"`` it returns labels, the forward
    takes its loss path, and the break there (a ``.item()`` on the loss) is confirmed; in eval mode that
    path is not reached."""
    factory_project(tmp_path, '["model:build", { factory = "model:build", mode = "train" }]',
                    "import torch\n\n\nclass Net(torch.nn.Module):\n    def __init__(self):\n        super().__init__()\n"
                    "        self.proj = torch.nn.Linear(4, 2)\n\n"
                    "    def forward(self, x, labels=None):\n        out = self.proj(x)\n        if labels is not None:\n"
                    "            loss = torch.nn.functional.cross_entropy(out, labels)\n"
                    "            self.last_loss = loss.item()\n        return out\n\n\n"
                    "def build(mode='eval'):\n    x = torch.randn(2, 4)\n    if mode == 'train':\n"
                    "        return Net(), (x,), {'labels': torch.tensor([0, 1])}\n    return Net(), (x,), {}\n")
    completed = dynalint("--verify", "--output-format", "json", *EXTRA_VERIFY_ARGS, "model.py", cwd=tmp_path)
    assert "Traceback" not in completed.stderr, completed.stderr[-3000:]
    verdicts = {f["location"]["row"]: f["verify"] for f in json.loads(completed.stdout) if f["code"] == "DYN101"}
    assert verdicts[13]["verdict"] == "confirmed", verdicts


@pytest.mark.torch
def test_an_unpredicted_break_in_a_function_not_seen_as_compiled_names_the_rule_that_matches(tmp_path: Path) -> None:
    """The factory compiles ``scale``, which no compile site in the tree reaches: its ``.item()`` break is a
    DYN090, and the message says that DYN101 matches the line, and why the function was not linted."""
    factory_project(tmp_path, '["model:build"]',
                    "import torch\n\n\ndef scale(x):\n    return x * x.abs().max().item()\n\n\n"
                    "def build():\n    return scale, (torch.randn(4),), {}\n")
    completed, findings = verify_json(tmp_path)
    [finding] = [f for f in findings if f["code"] == "DYN090"]
    assert finding["location"]["row"] == 5
    assert finding["message"].startswith("DYN101 matches this line; this function was not seen as compiled "
                                         "(no compile site in the linted files reaches `scale`"), finding["message"]
    assert "Dynamo broke the graph here (GB0124" in finding["message"]  # what Dynamo saw is still said
    assert "no rule predicted it" not in finding["message"]


@pytest.mark.torch
def test_factories_in_a_src_layout_or_a_declared_pythonpath_are_imported(tmp_path: Path) -> None:
    """``src/`` is found on its own; another source folder needs ``pythonpath``, and without it the failure
    says exactly that."""
    model = ("import torch\n\n\nclass Net(torch.nn.Module):\n    def forward(self, x):\n        print(x.shape)\n"
             "        return x * 2\n")
    factory = "import torch\n\nfrom mypkg.model import Net\n\n\ndef build():\n    return Net(), (torch.randn(2),), {}\n"
    for folder, setting in (("src", ""), ("lib", 'pythonpath = ["lib"]\n'), ("lib", "")):
        project = tmp_path / f"{folder}-{bool(setting)}"
        (project / folder / "mypkg").mkdir(parents=True)
        (project / folder / "mypkg" / "__init__.py").write_text("", encoding="utf-8")
        (project / folder / "mypkg" / "model.py").write_text(model, encoding="utf-8")
        (project / folder / "mypkg" / "factories.py").write_text(factory, encoding="utf-8")
        (project / "pyproject.toml").write_text(
            f'[tool.dynalint.verify]\nfactories = ["mypkg.factories:build"]\n{setting}', encoding="utf-8")
        completed = dynalint("--verify", *EXTRA_VERIFY_ARGS, folder, cwd=project)
        if folder == "lib" and not setting:
            assert completed.returncode == 2, completed.stderr[-3000:]
            assert "no module `mypkg.factories`" in completed.stderr and 'set `pythonpath = ["src"]`' in completed.stderr
        else:
            assert completed.returncode == 1, completed.stderr[-3000:]
            assert "census factory:mypkg.factories:build: 1 graphs, 1 breaks" in completed.stderr, completed.stderr[-3000:]
            assert "Verified: 1 confirmed" in completed.stderr and "dynalint: error" not in completed.stderr
            assert ": covered (run by" not in completed.stderr  # covered functions: with -v only
            if folder == "src":
                verbose = dynalint("--verify", "-v", *EXTRA_VERIFY_ARGS, folder, cwd=project)
                assert "census src/mypkg/model.py::Net.forward: covered (run by" in verbose.stderr, verbose.stderr
