"""The coverage map of torch's graph-break registry: what dynalint does about every GB id.

Beside the pipeline, like ``rule_pages.py``: read by ``dynalint rules --coverage``, which renders the map
(as text, JSON or a Markdown page; generated on demand, never committed, so that a new rule
changes no generated file), and by the tests that keep it complete. Each id is
predicted by rules (derived from the rules' own ``gb_ids``), "invisible" in source (with a reason), or
"not yet" covered (with the source shape that triggers it). The last two, and every id's registry
title, are data in ``rules/coverage.toml``, shipped inside the package as ``dynalint/_rules`` like the
rule pages. The registry itself (``torch/_dynamo/graph_break_registry.json``) is only located here,
never imported: the map renders without torch.
"""

from __future__ import annotations

import importlib.util
import json
import sys
from dataclasses import dataclass
from pathlib import Path

from dynalint.lint import rule_pages
from dynalint.lint.rule import Rule
from dynalint.model.selection import gb_page

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib

DATA_NAME = "coverage.toml"
PREDICTED, INVISIBLE, NOT_YET = "predicted", "invisible", "not-yet"
CLASSES = (PREDICTED, INVISIBLE, NOT_YET)
PAGE_COMMAND = "dynalint rules --coverage --output-format markdown"


@dataclass(frozen=True)
class Entry:
    """One GB id and what dynalint does about it."""

    gb_id: str
    title: str  # the registry's Gb_type
    kind: str  # one of CLASSES
    rules: tuple[str, ...]  # codes of the rules that predict it (PREDICTED only)
    reason: str  # INVISIBLE: a key of the data's [reasons]
    detail: str  # PREDICTED: shapes no rule flags yet; INVISIBLE: a note; NOT_YET: the trigger

    @property
    def url(self) -> str:
        return gb_page(self.gb_id)


@dataclass(frozen=True)
class CoverageData:
    """``gb_coverage.toml`` as read: the reason vocabulary and the raw entry per id."""

    reasons: dict[str, str]
    ids: dict[str, dict[str, str]]


def data_path() -> Path | None:
    for folder in (rule_pages.PACKAGED, rule_pages.CHECKOUT):
        if (folder / DATA_NAME).is_file():
            return folder / DATA_NAME
    return None


def load_data(path: Path | None = None) -> CoverageData:
    path = path or data_path()
    if path is None:
        raise FileNotFoundError(f"{DATA_NAME} is not installed with dynalint")
    with path.open("rb") as handle:
        raw = tomllib.load(handle)
    return CoverageData(reasons=dict(raw.get("reasons", {})), ids=dict(raw.get("ids", {})))


def predictions(rules: tuple[type[Rule], ...]) -> dict[str, tuple[str, ...]]:
    """GB id -> codes of the rules naming it in their ``gb_ids``, in catalogue order."""
    found: dict[str, list[str]] = {}
    for rule in rules:
        for gb_id in rule.gb_ids:
            found.setdefault(gb_id, []).append(rule.code)
    return {gb_id: tuple(codes) for gb_id, codes in found.items()}


def build(data: CoverageData, rules: tuple[type[Rule], ...]) -> list[Entry]:
    """The map, one entry per id of the data, in id order. Consistency is the tests' job, not this one's:
    an id that a rule predicts is PREDICTED whatever the data says."""
    predicted = predictions(rules)
    entries = []
    for gb_id in sorted(data.ids):
        raw = data.ids[gb_id]
        if gb_id in predicted:
            entry = Entry(gb_id, raw["title"], PREDICTED, predicted[gb_id], "", raw.get("gaps", ""))
        elif raw.get("class") == INVISIBLE:
            entry = Entry(gb_id, raw["title"], INVISIBLE, (), raw.get("reason", ""), raw.get("note", ""))
        else:
            entry = Entry(gb_id, raw["title"], raw.get("class", ""), (), "", raw.get("trigger", ""))
        entries.append(entry)
    return entries


def counts(entries: list[Entry]) -> dict[str, int]:
    return {kind: sum(1 for entry in entries if entry.kind == kind) for kind in CLASSES}


def registry_path() -> Path | None:
    """The installed torch's registry file, found without importing torch."""
    try:
        spec = importlib.util.find_spec("torch")
    except (ImportError, ValueError):
        return None
    if spec is None or not spec.submodule_search_locations:
        return None
    path = Path(list(spec.submodule_search_locations)[0]) / "_dynamo" / "graph_break_registry.json"
    return path if path.is_file() else None


def load_registry(path: Path) -> dict[str, str]:
    """GB id -> its first Gb_type, from the registry file."""
    registry = json.loads(path.read_text(encoding="utf-8"))
    return {gb_id: versions[0]["Gb_type"] for gb_id, versions in registry.items()}


def audit(data: CoverageData, rules: tuple[type[Rule], ...], registry: dict[str, str] | None) -> list[str]:
    """Every way the map is wrong, one line each; empty when it is sound. Without a registry (no torch
    installed) only the data's own consistency is checked."""
    predicted = predictions(rules)
    problems = []
    for gb_id, raw in sorted(data.ids.items()):
        kind = raw.get("class")
        if gb_id in predicted and kind is not None:
            rules_named = ", ".join(predicted[gb_id])
            problems.append(f"{gb_id} is classified twice: {kind} in {DATA_NAME}, predicted by {rules_named}")
        elif gb_id in predicted and ("reason" in raw or "trigger" in raw):
            problems.append(f"{gb_id} is predicted by {', '.join(predicted[gb_id])} but has a reason or a trigger")
        elif gb_id not in predicted and kind is None:
            problems.append(f"{gb_id} is unclassified: no rule predicts it and {DATA_NAME} gives no class")
        elif gb_id not in predicted and kind not in (INVISIBLE, NOT_YET):
            problems.append(f"{gb_id} has an unknown class {kind!r}")
        elif kind == INVISIBLE and raw.get("reason") not in data.reasons:
            problems.append(f"{gb_id} is invisible with an unknown reason {raw.get('reason')!r}")
        elif kind == NOT_YET and not raw.get("trigger"):
            problems.append(f"{gb_id} is not-yet without a trigger")
        if gb_id not in predicted and "gaps" in raw:
            problems.append(f"{gb_id} has gaps but no rule predicts it")
    problems += [f"{gb_id} is named by {', '.join(codes)} but missing from {DATA_NAME}"
                 for gb_id, codes in sorted(predicted.items()) if gb_id not in data.ids]
    if registry is None:
        return problems
    problems += [f"{gb_id} ({title}) is in the registry but not in {DATA_NAME}"
                 for gb_id, title in sorted(registry.items()) if gb_id not in data.ids]
    problems += [
        f"{gb_id} is in {DATA_NAME} but not in the registry" for gb_id in sorted(data.ids) if gb_id not in registry
    ]
    problems += [f"{gb_id} is named by {', '.join(codes)} but not in the registry"
                 for gb_id, codes in sorted(predicted.items()) if gb_id not in registry]
    problems += [
        f"{gb_id}: title {raw['title']!r} differs from the registry's {registry[gb_id]!r}"
        for gb_id, raw in sorted(data.ids.items())
        if gb_id in registry and raw.get("title") != registry[gb_id]
    ]
    return problems


def _describe(entry: Entry, reasons: dict[str, str]) -> str:
    if entry.kind == PREDICTED:
        return ", ".join(entry.rules) + (f"; {entry.detail}" if entry.detail else "")
    if entry.kind == INVISIBLE:
        return f"{entry.reason}: {entry.detail or reasons.get(entry.reason, '')}"
    return entry.detail


def render_text(entries: list[Entry], reasons: dict[str, str]) -> str:
    tally = counts(entries)
    lines = [f"{len(entries)} GB ids: " + ", ".join(f"{tally[kind]} {kind}" for kind in CLASSES)]
    for kind in CLASSES:
        lines.append(f"\n{kind}:")
        lines += [
            f"{e.gb_id}  {e.title[:60]:<60}  {_describe(e, reasons)}" for e in entries if e.kind == kind
        ]
    return "\n".join(lines)


def render_json(entries: list[Entry], reasons: dict[str, str]) -> str:
    rows = [
        {"gb_id": e.gb_id, "title": e.title, "class": e.kind, "rules": list(e.rules), "reason": e.reason,
         "detail": e.detail, "url": e.url}
        for e in entries
    ]
    return json.dumps({"counts": counts(entries), "reasons": reasons, "ids": rows}, indent=2)


def _cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


def render_markdown(entries: list[Entry], reasons: dict[str, str]) -> str:
    tally = counts(entries)
    lines = [
        "# Coverage of torch's graph-break registry",
        "",
        f"<!-- Generated by `{PAGE_COMMAND}` from `rules/coverage.toml` and the rules' GB ids. -->",
        "",
        "Every id of `torch/_dynamo/graph_break_registry.json` (torch 2.13), and what dynalint does about it:",
        "predicted by rules, not visible in source (with the reason), or not yet covered (with the source",
        "shape that triggers it: the work list for new rules).",
        "",
        "| class | ids |",
        "|---|---|",
        f"| predicted by a rule | {tally[PREDICTED]} |",
        f"| not visible in source | {tally[INVISIBLE]} |",
        f"| not yet | {tally[NOT_YET]} |",
        f"| **all** | **{len(entries)}** |",
        "",
        "Reasons an id is not visible in source:",
        "",
        "| reason | ids | meaning |",
        "|---|---|---|",
    ]
    for reason, meaning in reasons.items():
        number = sum(1 for e in entries if e.kind == INVISIBLE and e.reason == reason)
        lines.append(f"| `{reason}` | {number} | {_cell(meaning)} |")
    headings = {
        PREDICTED: ("Predicted by rules", "rules", "source shapes no rule flags yet"),
        NOT_YET: ("Not yet", "", "what triggers it"),
        INVISIBLE: ("Not visible in source", "reason", "note"),
    }
    for kind in (PREDICTED, NOT_YET, INVISIBLE):
        title, second, third = headings[kind]
        lines += ["", f"## {title} ({tally[kind]})", ""]
        if kind == NOT_YET:
            lines += ["| GB id | title | trigger |", "|---|---|---|"]
        else:
            lines += [f"| GB id | title | {second} | {third} |", "|---|---|---|---|"]
        for e in entries:
            if e.kind != kind:
                continue
            link = f"[{e.gb_id}]({e.url})"
            if kind == PREDICTED:
                lines.append(f"| {link} | {_cell(e.title)} | {', '.join(e.rules)} | {_cell(e.detail)} |")
            elif kind == NOT_YET:
                lines.append(f"| {link} | {_cell(e.title)} | {_cell(e.detail)} |")
            else:
                lines.append(f"| {link} | {_cell(e.title)} | `{e.reason}` | {_cell(e.detail)} |")
    return "\n".join(lines) + "\n"


RENDERERS = {"text": render_text, "json": render_json, "markdown": render_markdown}
