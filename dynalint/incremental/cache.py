"""The on-disk cache between runs: each file's summary, and each linted file's findings.

Beside the pipeline, one collaborator of its stages (``pipeline/``). Two packs live in the cache folder (``.dynalint_cache`` in the
project root unless ``cache-dir`` says otherwise), one entry per file path:

- **summaries**: the file's stat (size, mtime, inode), its content hash, its module name, and what the
  summarize stage made of it (a ``ModuleSummary`` or the finding that says why there is none). A
  context file whose stat matches is not even read; a file that was read is matched by content.
- **findings**: the findings of a linted file and the digest they are valid for (``findings_digest``
  in ``pipeline/stages.py``: the file's content, its rules, its compiled regions and why-chains, the Dynamo
  settings, and the content of every module it imports, transitively).
- **snapshot**: what the last run's program was made of and its answer per file (``snapshot.py``),
  so that a run over an unchanged tree needs neither the summaries nor a link.

A run that changed a few entries of a large pack (pre-commit after an edit: one summary, one file's
findings) does not rewrite the pack: it writes the changed entries to ``<pack>.delta.pack``, which
is read over the pack, and the pack itself is rewritten (the delta removed) once the delta holds more
than ``DELTA_LIMIT`` entries. Every entry says what it is valid for (a stat, a content hash, a
digest), so an entry lost or outdated by two runs racing costs a recomputation, never a wrong answer.

Every entry is also keyed by dynalint's own code (a stat of each of its source files), so an upgrade,
or an edit in a checkout, never reuses what older code computed. The packs are pickles signed with a
per-user key (HMAC-SHA256, the key kept in the user's cache folder): a cache folder that came with a
cloned repository cannot make dynalint unpickle anything it did not write itself. A pack that is
missing, truncated, foreign or unsigned is ignored and rebuilt; a folder that cannot be written is
used read-only. Packs are replaced atomically, so concurrent runs (pre-commit runs hooks in parallel)
each see a whole pack, the last writer's.

The language server keeps one ``Cache.in_memory`` across its runs: it starts from the packs on disk,
keeps every entry in the process, and never writes, so an unsaved buffer never reaches the disk.
"""

from __future__ import annotations

import hashlib
import hmac
import os
import pickle
import secrets
import shutil
import sys
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from dynalint.model.version import __version__

_DELTA_PACKS = frozenset({"summaries", "findings"})  # per-file entries: a few can be written on their own
DELTA_LIMIT = 64  # entries a delta may hold before its pack is rewritten whole
_SIGNATURE_BYTES = 32
_MAGIC = b"dynalint-cache-1\n"


def code_fingerprint() -> str:
    """What identifies the dynalint code that computed an entry: version, Python, each source file's stat."""
    package = Path(__file__).resolve().parent.parent  # the dynalint package: every wing
    stats = []
    for path in sorted(package.rglob("*.py")):
        try:
            info = path.stat()
        except OSError:
            continue
        stats.append(f"{path.relative_to(package)}:{info.st_size}:{info.st_mtime_ns}")
    text = "\n".join([__version__, sys.version, *stats])
    return hashlib.sha256(text.encode()).hexdigest()[:24]


def content_hash(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()


def stat_key(path: Path) -> tuple[int, int, int] | None:
    try:
        info = path.stat()
    except OSError:
        return None
    return info.st_size, info.st_mtime_ns, info.st_ino


@dataclass(frozen=True)
class SummaryEntry:
    stat: tuple[int, int, int] | None
    content: str  # content hash of the text summarized
    module: str
    is_package: bool
    display: str
    value: Any  # ModuleSummary, or the Finding that says why there is none


@dataclass
class Cache:
    """One run's view of the cache folder; ``folder`` ``None`` is the disabled cache (``--no-cache``).

    Each pack is read when the run first asks for it: a run that ``snapshot.py`` answers reads the
    snapshot and the findings, never the summaries of the whole tree.
    """

    folder: Path | None
    fingerprint: str = ""
    memory_only: bool = False  # keeps entries in this process and never saves them
    summarized: int = 0  # summaries handed to ``store_summary``: the files summarized since it was opened
    _packs: dict[str, dict] = field(default_factory=dict)
    _dirty: set[str] = field(default_factory=set)
    _on_disk: set[str] = field(default_factory=set)  # packs whose whole file was there when loaded
    _delta_keys: dict[str, set[str]] = field(default_factory=dict)  # entries to write as the pack's delta

    @classmethod
    def open(cls, folder: Path | None) -> Cache:
        return cls(None) if folder is None else cls(folder, code_fingerprint())

    def pack(self, name: str) -> dict:
        """The pack ``name`` as loaded, its delta read over it (empty when missing, damaged, foreign or disabled)."""
        if name not in self._packs:
            loaded = None if self.folder is None else _load(self.folder / f"{name}.pack", _user_key(), self.fingerprint)
            self._packs[name] = loaded if isinstance(loaded, dict) else {}
            if isinstance(loaded, dict):
                self._on_disk.add(name)
            self._delta_keys[name] = set()
            if name in _DELTA_PACKS and self.folder is not None:
                delta = _load(self.folder / f"{name}.delta.pack", _user_key(), self.fingerprint)
                if isinstance(delta, dict):
                    self._packs[name].update(delta)
                    self._delta_keys[name].update(delta)
        return self._packs[name]

    def replace_pack(self, name: str, value: dict) -> None:
        if self._keeps:
            self._packs[name] = value
            self._dirty.add(name)

    @property
    def summaries(self) -> dict[str, SummaryEntry]:
        return self.pack("summaries")

    @property
    def findings(self) -> dict[str, tuple[str, list]]:
        return self.pack("findings")

    @classmethod
    def in_memory(cls, seed: Path | None) -> Cache:
        """A cache for one long-lived process: the packs in ``seed`` (if any) to start from, never saved."""
        cache = cls.open(seed) if seed is not None else cls(None, code_fingerprint())
        cache.memory_only = True
        return cache

    @property
    def _keeps(self) -> bool:
        return self.folder is not None or self.memory_only

    # -- summaries ------------------------------------------------------------------------------
    def summary_by_stat(self, path: str, stat: tuple[int, int, int] | None, module: str, is_package: bool,
                        display: str) -> SummaryEntry | None:
        entry = self.summaries.get(path)
        if entry is None or stat is None or entry.stat != stat:
            return None
        return entry if (entry.module, entry.is_package, entry.display) == (module, is_package, display) else None

    def summary_by_content(self, path: str, content: str, module: str, is_package: bool,
                           display: str) -> SummaryEntry | None:
        entry = self.summaries.get(path)
        if entry is None or (entry.content, entry.module, entry.is_package, entry.display) != (
            content, module, is_package, display
        ):
            return None
        return entry

    def store_summary(self, path: str, entry: SummaryEntry) -> None:
        self.summarized += 1
        if self._keeps and self.summaries.get(path) != entry:
            self.summaries[path] = entry
            self._changed("summaries", path)

    # -- findings -------------------------------------------------------------------------------
    def findings_for(self, path: str, digest: str) -> list | None:
        stored = self.findings.get(path)
        return list(stored[1]) if stored is not None and stored[0] == digest else None

    def store_findings(self, path: str, digest: str, findings: list) -> None:
        if self._keeps:
            self.findings[path] = (digest, list(findings))
            self._changed("findings", path)

    def _changed(self, name: str, path: str) -> None:
        self._dirty.add(name)
        self._delta_keys[name].add(path)

    # -- disk -----------------------------------------------------------------------------------
    def save(self) -> None:
        """Write the packs that changed; a folder that cannot be written leaves the cache as it was."""
        if self.folder is None or self.memory_only or not self._dirty:
            return
        try:
            self.folder.mkdir(parents=True, exist_ok=True)
            _mark_folder(self.folder)
            key = _user_key()
            for name in sorted(self._dirty):
                self._save_pack(name, key)
        except OSError:
            return
        self._dirty.clear()

    def _save_pack(self, name: str, key: bytes | None) -> None:
        """The changed entries as the pack's delta when they are few and the pack is there; else the whole pack."""
        assert self.folder is not None
        changed = self._delta_keys.get(name, set())
        if name in _DELTA_PACKS and name in self._on_disk and len(changed) <= DELTA_LIMIT:
            pack = self._packs[name]
            _write(self.folder / f"{name}.delta.pack", {path: pack[path] for path in changed}, key, self.fingerprint)
            return
        _write(self.folder / f"{name}.pack", self._packs[name], key, self.fingerprint)
        self._on_disk.add(name)
        (self.folder / f"{name}.delta.pack").unlink(missing_ok=True)
        changed.clear()


def clean(folder: Path) -> bool:
    """Remove a cache folder; whether there was one. Only a folder dynalint marked as its cache is removed."""
    if not (folder / "CACHEDIR.TAG").is_file():
        return False
    shutil.rmtree(folder, ignore_errors=True)
    return True


# -- packs ----------------------------------------------------------------------------------------
def _load(path: Path, key: bytes | None, fingerprint: str) -> object:
    try:
        data = path.read_bytes()
    except OSError:
        return None
    if key is None or not data.startswith(_MAGIC) or len(data) < len(_MAGIC) + _SIGNATURE_BYTES:
        return None
    signature = data[len(_MAGIC):len(_MAGIC) + _SIGNATURE_BYTES]
    body = data[len(_MAGIC) + _SIGNATURE_BYTES:]
    if not hmac.compare_digest(signature, hmac.new(key, body, hashlib.sha256).digest()):
        return None  # written by someone else, or damaged: never unpickled
    try:
        stored_fingerprint, payload = pickle.loads(body)
    except Exception:  # noqa: BLE001 - a pack from another dynalint may name classes that moved
        return None
    return payload if stored_fingerprint == fingerprint else None


def _write(path: Path, payload: object, key: bytes | None, fingerprint: str) -> None:
    if key is None:
        return
    body = pickle.dumps((fingerprint, payload), protocol=pickle.HIGHEST_PROTOCOL)
    signature = hmac.new(key, body, hashlib.sha256).digest()
    handle, temporary = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(handle, "wb") as out:
            out.write(_MAGIC + signature + body)
        os.replace(temporary, path)  # atomic: a concurrent reader sees the old pack or the new one
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise


def _mark_folder(folder: Path) -> None:
    """Tell git and backup tools that the folder is a cache (so nobody needs to ``.gitignore`` it)."""
    for name, text in (("CACHEDIR.TAG", "Signature: 8a477f597d28d172789f06886806bc55\n# dynalint's cache\n"),
                       (".gitignore", "# Created by dynalint\n*\n")):
        target = folder / name
        if not target.exists():
            target.write_text(text, encoding="utf-8")


def _user_key() -> bytes | None:
    """The per-user signing key, created on first use; ``None`` when the user's cache folder is unusable."""
    base = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "dynalint"
    target = base / "cache-key"
    try:
        return bytes.fromhex(target.read_text(encoding="ascii").strip())
    except (OSError, ValueError):
        pass
    try:
        base.mkdir(parents=True, exist_ok=True)
        handle, temporary = tempfile.mkstemp(dir=base, prefix=".cache-key.")
        with os.fdopen(handle, "w", encoding="ascii") as out:
            out.write(secrets.token_hex(32))
        os.chmod(temporary, 0o600)
        try:
            os.link(temporary, target)  # the first writer wins; a concurrent run reads its key
        except FileExistsError:
            pass
        finally:
            os.unlink(temporary)
        return bytes.fromhex(target.read_text(encoding="ascii").strip())
    except (OSError, ValueError):
        return None
