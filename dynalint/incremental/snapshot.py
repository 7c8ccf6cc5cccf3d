"""Beside the pipeline, used by ``pipeline/run.py``: answer a run over files the last run saw, unchanged, from the
cache alone, without loading every file's summary or linking the program.

A file named inside a project (pre-commit's one staged file) is linted with the whole project as
context: its compiled regions come from compile sites anywhere in the tree. Loading the summaries of
1,100 files from the cache and linking them costs about a second, for a file whose findings the
cache holds already. So each run with the cache on records a snapshot of what its program was made
of: every file's identity (module name, display name), its stat and its content hash, and for each
file it linted, its answer: the digest its cached findings are valid for (``digests.py``), nothing to
lint (no compiled region there, or no rule on), or the diagnostic that says why it has no summary.

A later run with the same settings over the same files, where every file named has the content the
snapshot recorded and every other file its stat (as the summaries cache judges context files),
would link the very same program: its answers stand, and the run loads the snapshot and the
findings of those digests, nothing else. Anything else (a file edited, added or removed, other
settings, a file the last run did not lint, two files with one module name, standard input) runs
the whole pipeline, which records the snapshot anew.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Optional

from dynalint.incremental import cache
from dynalint.model.finding import Finding
from dynalint.project import torch_target
from dynalint.project.config import Config
from dynalint.project.files import SourceFile

PACK = "snapshot"
Stat = Optional[tuple[int, int, int]]  # a runtime alias: ``tuple[...] | None`` needs Python 3.10


@dataclass(frozen=True)
class Member:
    """One file of the run: what names it, and its stat before the run read it."""

    module: str
    is_package: bool
    display: str
    stat: Stat


@dataclass
class Ledger:
    """What the run's stages learnt about each file (by real path), for the snapshot to record."""

    contents: dict[str, str] = field(default_factory=dict)  # the content hash of each file summarized
    answers: dict[str, tuple[str, object]] = field(default_factory=dict)  # ("digest", d), ("clean", None), ("finding", f)
    complete: bool = True  # False: the run was not one a snapshot may stand for (a link that failed)


def run_key(config: Config) -> str:
    """What the run's findings depend on besides the files: every setting, and the torch they are for."""
    return repr((config, torch_target.target(config.target_torch, config.root)))


def recordable(members: dict[str, Member]) -> bool:
    """A run whose module names are unique (else which file gets the name depends on the order) and
    whose every file has a stat (standard input has none)."""
    modules = [member.module for member in members.values()]
    return len(set(modules)) == len(modules) and all(member.stat is not None for member in members.values())


def answer(store: cache.Cache, key: str, members: dict[str, Member],
           texts: dict[str, str | Finding]) -> list[Finding] | None:
    """The findings of the files named (``texts``: what reading each gave, by real path; the other
    members are context), or ``None`` when the snapshot cannot stand for this run."""
    recorded = store.pack(PACK)
    if recorded.get("run") != key or not recordable(members):
        return None
    known: dict[str, tuple[Member, str | None]] = recorded.get("members", {})
    if known.keys() != members.keys():
        return None
    answers: dict[str, tuple[str, object]] = recorded.get("answers", {})
    findings: list[Finding] = []
    for path, member in members.items():
        was, content = known[path]
        if (was.module, was.is_package, was.display) != (member.module, member.is_package, member.display):
            return None
        if path in texts:
            text = texts[path]
            if content is None or not isinstance(text, str) or cache.content_hash(text) != content:
                return None
            kind, value = answers.get(path, ("", None))
            if kind == "digest" and isinstance(value, str):
                cached = store.findings_for(path, value)
                if cached is None:
                    return None
                findings += cached
            elif kind == "finding" and isinstance(value, Finding):
                findings.append(value)
            elif kind != "clean":
                return None
        elif was.stat != member.stat:
            return None
    return findings


def record(store: cache.Cache, key: str, members: dict[str, Member], ledger: Ledger) -> None:
    """Keep what this run was made of; answers of an earlier run over the same files are kept too."""
    if not ledger.complete or not recordable(members):
        return
    recorded = {path: (member, ledger.contents.get(path)) for path, member in members.items()}
    answers: dict[str, tuple[str, object]] = {}
    previous = store.pack(PACK)
    if previous.get("run") == key and previous.get("members") == recorded:
        answers = dict(previous.get("answers", {}))
    answers.update(ledger.answers)
    snapshot = {"run": key, "members": recorded, "answers": answers}
    if snapshot != previous:
        store.replace_pack(PACK, snapshot)


def members_of(sources: Sequence[tuple[str, SourceFile, Stat]]) -> dict[str, Member]:
    """``(real path, source, stat)`` rows as the run's members."""
    return {path: Member(source.module, source.is_package, source.display, stat) for path, source, stat in sources}
