"""The fuzzing harness: program sources, fixture mutators and the crash oracle, shared by the fuzz
tests in this folder and by ``bench/fuzz.py`` (the long run).

It sits on top of the whole pipeline and judges it from outside: every input goes through
``dynalint.api.lint_paths`` on a file (files -> summarize -> program -> lint), optionally through
``lint_source`` and through the real ``dynalint`` command, and the result is checked against what
Python itself says about the same bytes. Nothing here imports torch or executes the programs it
makes: ``compile()`` is the only judge of validity, and generated code is never run.

A *crash* is:
- an exception escaping the API (``exception``);
- the CLI exiting 2 or printing a traceback (``cli``);
- a DYN903 internal-error finding (``internal-error``);
- a DYN901 syntax error on bytes that ``compile(data, name, "exec")`` accepts (``false-syntax-error``),
  or a DYN902 unreadable-file on such bytes (``false-unreadable``);
- a finding placed outside the file: line outside 1..(lines as Python counts them, EOF line
  included), an end before its start, or a rule finding's column past the end of its line
  (``bad-position``).
``bench/fuzz.py`` adds ``timeout`` and ``worker-died`` (a segfault or abort of the process), and with
``--twice`` ``nondeterministic`` (the same file linted twice in one process, different findings).
"""

from __future__ import annotations

import ast
import hashlib
import io
import json
import os
import random
import re
import subprocess
import sys
import textwrap
import time
import tokenize
import traceback
import warnings
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TypeVar

T = TypeVar("T")
ROOT = Path(__file__).resolve().parents[2]
FIXTURES = tuple(sorted(p for p in (ROOT / "fixtures").rglob("*.py")))
CRASHES = Path(__file__).resolve().parent / "crashes"
FILE_NAME = "fuzzed.py"

# Python's own line breaks: the tokenizer ends a line at \r\n, \r or \n and nowhere else, unlike
# ``str.splitlines`` (which also splits at \x0b, \x0c, \x1c-\x1e, \x85, U+2028, U+2029).
_LINE = re.compile(r"[^\r\n]*(?:\r\n|\r|\n)|[^\r\n]+\Z")
_LINE_BYTES = re.compile(rb"[^\r\n]*(?:\r\n|\r|\n)|[^\r\n]+\Z")


# --------------------------------------------------------------------------------------------------
# The oracle


@dataclass(frozen=True)
class Crash:
    category: str  # one of the kinds listed in the module docstring
    key: str  # what deduplicates crashes: the category plus where / what, without line numbers
    detail: str  # one line for a human: the message, with line numbers
    via: str  # "api" (lint_paths on a file), "source" (lint_source on text) or "cli"


@dataclass(frozen=True)
class _Seen:
    """A finding as the oracle needs it, from an API ``Finding`` or a CLI JSON record."""

    code: str
    message: str
    line: int
    column: int
    end_line: int
    end_column: int


def python_lines(source: bytes | str) -> list[bytes] | list[str]:
    """The file's lines as Python's tokenizer counts them, terminators included."""
    return (_LINE_BYTES if isinstance(source, bytes) else _LINE).findall(source)  # type: ignore[arg-type]


def python_accepts(source: bytes | str) -> bool:
    """Whether CPython compiles ``source`` (bytes: with its coding cookie / BOM, as for a file)."""
    try:
        with warnings.catch_warnings():  # under ``-W error`` an invalid escape would be a SyntaxError
            warnings.simplefilter("ignore")
            compile(source, FILE_NAME, "exec", dont_inherit=True)
    except (SyntaxError, ValueError, RecursionError, MemoryError, OverflowError, UnicodeError):
        return False
    return True


def _decoded(source: bytes | str) -> str | None:
    """The text Python reads from ``source`` (for column checks), independently of dynalint's reader."""
    if isinstance(source, str):
        return source
    try:
        encoding, _ = tokenize.detect_encoding(io.BytesIO(source).readline)
        text = source.decode(encoding)
    except (SyntaxError, UnicodeDecodeError, LookupError):
        return None
    return text[1:] if text.startswith("\ufeff") else text


def _normalized(message: str, width: int = 200) -> str:
    """A message without its numbers and quoted fragments, so that one bug is one key. Its first two
    lines count: LibCST puts the cause ("tokenizer error: ...") on the second."""
    lines = [line.strip() for line in message.strip().splitlines() if line.strip()][:2]
    text = re.sub(r"'[^']*'|\"[^\"]*\"|`[^`]*`", "…", " / ".join(lines))
    text = re.sub(r"expected one of .*", "expected one of …", text)
    return re.sub(r"\d+", "N", text)[:width]


def _exception_crash(error: BaseException, via: str) -> Crash:
    frames = traceback.extract_tb(error.__traceback__)
    # Attribute the crash to the deepest frame in dynalint itself: that is where a fix goes, and
    # recursion crashes end in library frames (ast, libcst) that say little.
    package = str(dynalint_root() / "dynalint")
    own = [f for f in frames if f.filename.startswith(package)]
    frame = (own or frames or [None])[-1]
    if frame is None:
        where, line = "?", 0
    else:
        where, line = f"{Path(frame.filename).name}:{frame.name}", frame.lineno or 0
    cycle = {Path(f.filename).name for f in frames[-60:] if f in own}
    if isinstance(error, RecursionError) and cycle:
        # Where the limit strikes within a recursive cycle (``visit``, ``generic_visit``, ``visit_Call``)
        # is chance: the key names the modules the recursion runs through.
        where = "|".join(sorted(cycle))
    name = type(error).__name__
    try:
        message = str(error)[:200]
    except Exception:  # a KeyError's message is the repr of its key: a deep LibCST node recurses
        message = "<message not printable>"
    return Crash("exception", f"exception {name} in {where}", f"{name}: {message} ({where}, line {line})", via)


_RULE_CRASH = re.compile(
    r"Rule (?P<code>\S+) `[^`]*` crashed on this file: (?P<type>\w+).*?(?:\(at (?P<at>[^:()]+):\d+\))?$", re.S
)


def _judge(seen: Iterable[_Seen], source: bytes | str, accepted: bool, via: str) -> list[Crash]:
    lines = python_lines(source)
    breaks = (b"\n", b"\r") if isinstance(source, bytes) else ("\n", "\r")
    # A diagnostic may sit on the line after a final line break (where an editor puts EOF).
    last_line = max(1, len(lines) + (1 if not lines or lines[-1].endswith(breaks) else 0))  # type: ignore[arg-type]
    text_lines: list[str] | None = None
    crashes = []
    for finding in seen:
        code, message = finding.code, finding.message
        if code == "DYN903":
            match = _RULE_CRASH.search(message)
            key = (f"DYN903 {match['code']} {match['type']}" + (f" at {match['at']}" if match["at"] else "")
                   if match else f"DYN903 {_normalized(message)}")
            crashes.append(Crash("internal-error", key, message[:300], via))
        elif code == "DYN901" and accepted:
            crashes.append(Crash("false-syntax-error", f"false DYN901: {_normalized(message)}",
                                 f"line {finding.line}: {message[:250]}", via))
        elif code == "DYN902" and accepted and _decoded(source) is not None:
            # ``compile(bytes)`` skips comments undecoded, so it takes invalid UTF-8 there that
            # ``python file.py`` refuses: only bytes that also decode strictly must not be DYN902.
            crashes.append(Crash("false-unreadable", f"false DYN902: {_normalized(message)}",
                                 f"line {finding.line}: {message[:250]}", via))
        problem = None
        if not 1 <= finding.line <= last_line:
            problem = f"line {finding.line} outside 1..{last_line}"
        elif not finding.line <= finding.end_line <= last_line:
            problem = f"end line {finding.end_line} outside {finding.line}..{last_line}"
        elif finding.column < 1 or (finding.end_line == finding.line and finding.end_column < finding.column):
            problem = f"column {finding.column}..{finding.end_column} on one line"
        elif not code.startswith("DYN9"):
            if text_lines is None:
                decoded = _decoded(source)
                text_lines = [line.rstrip("\r\n") for line in python_lines(decoded)] if decoded is not None else []
            if finding.line <= len(text_lines) and finding.column > len(text_lines[finding.line - 1]) + 1:
                problem = f"column {finding.column} past the end of line {finding.line}"
        if problem:
            crashes.append(Crash("bad-position", f"bad position {code}: {re.sub(r'[0-9]+', 'N', problem)}",
                                 f"{code} {problem}: {message[:200]}", via))
    return crashes


def _from_finding(finding: object) -> _Seen:
    return _Seen(finding.code, finding.message, finding.start.line, finding.start.column,  # type: ignore[attr-defined]
                 finding.end.line, finding.end.column)  # type: ignore[attr-defined]


# The API runs at this many frames of stack whatever the caller (pytest, hypothesis, a pool worker,
# the minimizer): recursion crashes sit near a threshold of depth, and without this an input would
# crash in one harness and pass in another. 100 is above every caller here (hypothesis under pytest
# calls back at ~55 frames), so the oracle is a little stricter than a shallow command line.
STACK_DEPTH = 100


def _at_stack_depth(call: Callable[[], T]) -> T:
    frame, depth = sys._getframe(), 0
    while frame is not None:
        frame, depth = frame.f_back, depth + 1

    def descend(levels: int) -> T:
        return call() if levels <= 0 else descend(levels - 1)

    return descend(STACK_DEPTH - depth - 1)


def prepare_workdir(workdir: Path) -> Path:
    """A folder that holds only the file under test: a ``pyproject.toml`` there stops the API's
    project-context discovery (which would otherwise summarize every ``.py`` file in, say, /tmp)."""
    workdir.mkdir(parents=True, exist_ok=True)
    marker = workdir / "pyproject.toml"
    if not marker.exists():
        marker.write_text("", encoding="utf-8")
    return workdir


def check_api(data: bytes, workdir: Path, accepted: bool | None = None, twice: bool = False) -> list[Crash]:
    """Lint ``data`` as a file through ``lint_paths``, as the CLI does, and judge the result.

    ``twice`` lints it again in the same process and compares: state that outlives a run (a cache
    keyed by ``id()`` of a freed node, say) shows as findings that change (``nondeterministic``)."""
    from dynalint.api import lint_paths
    from dynalint.project.config import Config

    path = prepare_workdir(workdir) / FILE_NAME
    path.write_bytes(data)
    accepted = python_accepts(data) if accepted is None else accepted
    runs = []
    for _ in range(2 if twice else 1):
        try:
            with warnings.catch_warnings():  # mutants are full of invalid escapes; ``ast.parse`` warns on each
                warnings.simplefilter("ignore")
                runs.append(_at_stack_depth(lambda: lint_paths([str(path)], Config(root=workdir)).findings))
        except Exception as error:  # the oracle's first question: did anything escape?
            return [_exception_crash(error, "api")]
    crashes = _judge(map(_from_finding, runs[0]), data, accepted, "api")
    if twice:
        first, second = ({(f.code, f.start, f.end, f.message) for f in run} for run in runs)
        if first != second:
            changed = sorted(first ^ second)[0]
            crashes.append(Crash("nondeterministic", f"nondeterministic {changed[0]}",
                                 f"{changed[0]} at {changed[1]} in one run only: {changed[3][:200]}", "api"))
    return crashes


def check_source(text: str, accepted: bool | None = None) -> list[Crash]:
    """Lint ``text`` through ``lint_source`` (the editors' and rule pages' entry point)."""
    from dynalint.api import lint_source

    accepted = python_accepts(text) if accepted is None else accepted
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            findings = _at_stack_depth(lambda: lint_source(text, FILE_NAME))
    except Exception as error:
        return [_exception_crash(error, "source")]
    return _judge(map(_from_finding, findings), text, accepted, "source")


def dynalint_root() -> Path:
    """The folder holding the ``dynalint`` package under test (this checkout, unless ``bench/fuzz.py
    --dynalint-root`` put another copy first on ``sys.path``)."""
    import dynalint

    return Path(dynalint.__file__).resolve().parent.parent


def dynalint_command() -> list[str]:
    """The installed console script next to this interpreter, else ``python -m dynalint``."""
    script = Path(sys.executable).with_name("dynalint")
    return [str(script)] if script.exists() else [sys.executable, "-m", "dynalint"]


def check_cli(data: bytes, workdir: Path, accepted: bool | None = None, timeout: float = 120) -> list[Crash]:
    """Lint ``data`` with the real command line (JSON output) and judge exit code, stderr and findings."""
    path = prepare_workdir(workdir) / FILE_NAME
    path.write_bytes(data)
    accepted = python_accepts(data) if accepted is None else accepted
    # The package under test goes first on the child's path, ahead of the editable install.
    under_test = str(dynalint_root())
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [under_test, os.environ.get("PYTHONPATH")]))}
    try:
        completed = subprocess.run([*dynalint_command(), "--output-format", "json", FILE_NAME], cwd=workdir,
                                   capture_output=True, timeout=timeout, env=env)
    except subprocess.TimeoutExpired:
        return [Crash("timeout", "timeout cli", f"the CLI ran past {timeout:.0f} s", "cli")]
    stderr = completed.stderr.decode("utf-8", "replace")
    crashes = []
    if completed.returncode not in (0, 1) or "Traceback" in stderr:
        tail = [line for line in stderr.strip().splitlines() if line.strip()]
        last = tail[-1] if tail else ""
        crashes.append(Crash("cli", f"cli exit {completed.returncode}: {_normalized(last, 60)}",
                             f"exit {completed.returncode}: {last[:250]}", "cli"))
    if completed.returncode in (0, 1):
        try:
            records = json.loads(completed.stdout.decode("utf-8"))
        except (UnicodeDecodeError, json.JSONDecodeError) as error:
            return [*crashes, Crash("cli", "cli unreadable JSON", str(error)[:200], "cli")]
        if bool(records) != (completed.returncode == 1):  # DESIGN: never 0 with findings, 1 only with some
            crashes.append(Crash("cli", f"cli exit {completed.returncode} with {len(records)} findings",
                                 f"exit {completed.returncode}, {len(records)} findings", "cli"))
        try:
            seen = [
                _Seen(r["code"], r["message"], r["location"]["row"], r["location"]["column"],
                      (r.get("end_location") or r["location"])["row"],
                      (r.get("end_location") or r["location"])["column"])
                for r in records
            ]
        except (KeyError, TypeError) as error:  # the README promises ruff's field names
            return [*crashes, Crash("cli", "cli JSON without its documented fields", repr(error)[:200], "cli")]
        crashes += _judge(seen, data, accepted, "cli")
    return crashes


def check(data: bytes, workdir: Path, *, source: bool = False, cli: bool = False, twice: bool = False
          ) -> list[Crash]:
    """Every requested entry point on one input; one crash per key."""
    accepted = python_accepts(data)
    crashes = check_api(data, workdir, accepted, twice)
    if source:
        # Editors hand ``lint_source`` text; bytes that are not UTF-8 reach it as lone surrogates.
        text = data.decode("utf-8", "surrogateescape")
        crashes += check_source(text, python_accepts(text))
    if cli:
        crashes += check_cli(data, workdir, accepted)
    unique: dict[str, Crash] = {}
    for crash in crashes:
        unique.setdefault(crash.key, crash)
    return list(unique.values())


def describe(crashes: Sequence[tuple[str, bytes, Crash]], limit: int = 12) -> str:
    """An assertion message: each crash key once, with its count and the smallest input that shows it."""
    by_key: dict[str, list[tuple[str, bytes, Crash]]] = {}
    for item in crashes:
        by_key.setdefault(item[2].key, []).append(item)
    parts = [f"{len(crashes)} crashes of {len(by_key)} kinds:"]
    for key, items in sorted(by_key.items(), key=lambda kv: -len(kv[1]))[:limit]:
        name, data, crash = min(items, key=lambda item: len(item[1]))
        shown = data if len(data) <= 400 else data[:200] + b" ... " + data[-150:]
        parts.append(f"- [{len(items)}x] {key}\n    {crash.detail}\n    smallest: {name} ({len(data)} bytes) "
                     f"via {crash.via}: {shown!r}")
    return "\n".join(parts)


# --------------------------------------------------------------------------------------------------
# Generated programs (hypothesmith), wrapped so that the rules really run on them

FUNCTION_TEMPLATE = "import torch\n\n\n@torch.compile\ndef fuzzed(x):\n    pass\n"
FORWARD_TEMPLATE = (
    "import torch\nfrom torch import nn\n\n\nclass Fuzzed(nn.Module):\n    def forward(self, x):\n        pass\n"
)


def _wrap_with_libcst(code: str, template: str) -> str | None:
    """``code``'s statements as the body of the template's innermost function, re-indented by LibCST
    (which re-renders indentation per block, leaving string contents and bracketed lines alone)."""
    import libcst as cst

    try:
        generated = cst.parse_module(code)
    except Exception:  # LibCST rejects some programs CPython accepts: the textual wrapper takes those
        return None
    body = list(generated.body) or [cst.SimpleStatementLine([cst.Pass()])]
    # Keep the module's header and footer comments: odd characters in comments are part of the input.
    body[0] = body[0].with_changes(leading_lines=[*generated.header, *body[0].leading_lines])

    class Replace(cst.CSTTransformer):
        def leave_FunctionDef(self, original: cst.FunctionDef, updated: cst.FunctionDef) -> cst.FunctionDef:
            block = updated.body
            if isinstance(block, cst.IndentedBlock) and len(block.body) == 1 and isinstance(
                    block.body[0], cst.SimpleStatementLine) and isinstance(block.body[0].body[0], cst.Pass):
                return updated.with_changes(body=block.with_changes(body=body, footer=generated.footer))
            return updated

    try:
        return cst.parse_module(template).visit(Replace()).code
    except Exception:
        return None


def _wrap_textually(code: str, template: str) -> str:
    """The fallback: indent every line by the template's indentation (may not compile; then DYN901 is right)."""
    indent = template.rsplit("\n", 2)[-2][: -len("pass")]
    head = template[: template.rindex(indent + "pass")]
    return head + (textwrap.indent(code, indent, lambda line: True) or indent + "pass\n")


def wrap(code: str) -> dict[str, str]:
    """The programs made from one generated module: as is, as an ``@torch.compile`` function's body
    and as an ``nn.Module.forward`` body (both with ``import torch`` at the top)."""
    programs = {"module": code}
    for name, template in (("compiled_function", FUNCTION_TEMPLATE), ("forward", FORWARD_TEMPLATE)):
        programs[name] = _wrap_with_libcst(code, template) or _wrap_textually(code, template)
    return programs


def for_each_generated(callback: Callable[[str], None], count: int, *, grammar: bool = True,
                       seed: int | None = None) -> None:
    """Call ``callback`` on up to ``count`` hypothesmith programs: deterministic, derandomized when
    ``seed`` is None, else drawn from ``seed``. Never shrinks: the callback records, it does not raise."""
    import hypothesmith
    from hypothesis import HealthCheck, Phase, given, settings
    from hypothesis import seed as with_seed

    strategy = hypothesmith.from_grammar() if grammar else hypothesmith.from_node()

    @settings(max_examples=count, database=None, deadline=None, derandomize=seed is None,
              phases=[Phase.generate], suppress_health_check=list(HealthCheck), print_blob=False)
    @given(strategy)
    def run(code: str) -> None:
        callback(code)

    (with_seed(seed)(run) if seed is not None else run)()


# --------------------------------------------------------------------------------------------------
# Mutations of fixtures/**/*.py

# Characters that some line splitter treats as a line break, or that are invisible, or that change
# the length of a line in one unit and not in another (code points vs UTF-8 bytes vs UTF-16 units).
ODD_CHARACTERS = (
    "\u2028", "\u2029", "\x85", "\x0c", "\x0b", "\x1c", "\x1d", "\x1e", "\r", "\r\n", "\ufeff", "\t",
    "\u200b", "\u200c", "\u200d", "\u2060", "\xa0", "\u3000", "\u0301", "\U0001f600", "\u202e", "\x00",
    "\udcff", "\udc80",
)
# ``str.splitlines`` breaks lines at these and Python does not: any of them in a comment or a string
# before a compiled function shifts every line index computed one way and used the other.
SPLITLINES_ONLY_BREAKS = ("\u2028", "\u2029", "\x85", "\x0c", "\x0b", "\x1c", "\x1d", "\x1e")
# NFKC folds these to ASCII, so ``ast`` and LibCST disagree on the identifier and on its width.
IDENTIFIER_VARIANTS = {"x": "ｘ", "f": "ｆ", "i": "ⅰ", "fi": "ﬁ", "a": "ª", "t": "ｔ", "s": "ſ"}
RULE_TRIGGERS = (
    "print({x})", "{x}.item()", "{x}.tolist()", "if {x}.sum() > 0:\n{i}    {x} = {x} + 1",
    "torch._dynamo.graph_break()", "import pdb; pdb.set_trace()", "{x} = {x}[: {x}.argmax()]",
    "logging.info('%s', {x})", "while {x}.any():\n{i}    break", "assert {x}.all(), 'bad'",
    "{x} = torch.nonzero({x})", "global _fz\n{i}_fz = 1",
)
DEEP_EXPRESSIONS: dict[str, Callable[[int], str]] = {
    "parens": lambda n: "(" * n + "x" + ")" * n,
    "lists": lambda n: "[" * n + "x" + "]" * n,
    "add_chain": lambda n: " + ".join(["x"] * n),
    "call_add_chain": lambda n: " + ".join(["x.sum()"] * n),
    "sub_mul_chain": lambda n: " - ".join(["x * 2"] * n),
    "attribute_chain": lambda n: "x" + ".a" * n,
    "call_chain": lambda n: "x" + ".f()" * n,
    "subscript_chain": lambda n: "x" + "[0]" * n,
    "unary_chain": lambda n: "-" * n + "x",
    "not_chain": lambda n: "not " * n + "x",
    "power_chain": lambda n: " ** ".join(["x"] * n),
    "ifexp_chain": lambda n: "x if x else " * n + "x",
    "lambda_chain": lambda n: "lambda: " * n + "x",
    "compare_chain": lambda n: " < ".join(["x"] * n),
    "bool_chain": lambda n: " and ".join(["x"] * n),
    "string_concat": lambda n: " ".join(["'a'"] * n),
    "call_arguments": lambda n: "f(" + ", ".join(["x"] * n) + ")",
    "nested_calls": lambda n: "f(" * n + "x" + ")" * n,
    "dict_nest": lambda n: "{'a': " * n + "x" + "}" * n,
    "fstring": lambda n: "f'" + "{x}" * n + "'",
}
# Around CPython's limits: 200 nested brackets, 100 indentation levels, ~1000-3000 for recursion.
EXPRESSION_SIZES = (50, 150, 199, 200, 300, 500, 800, 1000, 1500, 2000, 3000)
BLOCK_DEPTHS = (10, 30, 60, 90, 97, 98, 99, 100, 101, 150)
BLOCK_HEADERS = ("if x:", "for _i in x:", "while x:", "with x:", "def _f(x):", "class _C:", "try:", "else:")
LONG_SIZES = (2_000, 20_000, 200_000)
MANY_STATEMENTS = (500, 2000, 5000)
# The in-suite run keeps big inputs big enough to cross limits but cheap: a 200,000-character line in
# a compiled function costs seconds of LibCST parsing, and finds nothing a 20,000-character one misses.
QUICK_LONG_SIZES = (2_000, 20_000)
QUICK_MANY_STATEMENTS = (300, 1000)
BAD_BYTES = (b"\x80", b"\xff", b"\xc3", b"\xc0\xaf", b"\xed\xa0\x80", b"\xf4\x90\x80\x80", b"\xe2\x80", b"\xfe\xff")


def _text(data: bytes) -> str:
    return data.decode("utf-8", "surrogateescape")


def _bytes(text: str) -> bytes:
    return text.encode("utf-8", "surrogateescape")


def _statement_sites(text: str) -> list[int]:
    """0-based lines where a statement starts the line (a new statement can go just before it)."""
    try:
        tree = ast.parse(text)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return []
    lines = python_lines(text)
    sites = []
    for node in ast.walk(tree):
        if not isinstance(node, ast.stmt):
            continue
        decorators = getattr(node, "decorator_list", None)
        line = (min(d.lineno for d in decorators) if decorators else node.lineno) - 1
        if 0 <= line < len(lines):
            content = lines[line]
            indent = len(content) - len(content.lstrip(" \t"))
            if decorators or node.col_offset == len(content[:indent].encode("utf-8")):
                sites.append(line)
    return sorted(set(sites))


def _insert_statement(rng: random.Random, text: str, make: Callable[[str], str]) -> str:
    """Insert ``make(indent)`` (one or more whole lines) before a statement, inside a function when
    there is one, so that it lands in compiled code where the LibCST rules run."""
    lines = python_lines(text)
    sites = _statement_sites(text)
    indented = [s for s in sites if lines[s][:1] in (" ", "\t")]
    if indented and (rng.random() < 0.85 or not sites):
        where = rng.choice(indented)
    elif sites:
        where = rng.choice(sites)
    else:
        where = rng.randrange(len(lines) + 1)
    target = lines[where] if where < len(lines) else ""
    indent = target[: len(target) - len(target.lstrip(" \t"))]
    block = make(indent)
    if not block.endswith(("\n", "\r")):
        block += "\n"
    return "".join(lines[:where]) + block + "".join(lines[where:])


def _deep_expression(rng: random.Random, text: str) -> str:
    kind = rng.choice(sorted(DEEP_EXPRESSIONS))
    expr = DEEP_EXPRESSIONS[kind](rng.choice(EXPRESSION_SIZES))
    form = rng.choice(("{i}_fz = {e}", "{i}print({e})", "{i}if {e}:\n{i}    pass", "{i}_fz = ({e}).item()",
                       "{i}return {e}", "{i}_fz = [{e} for _ in x]"))
    return _insert_statement(rng, text, lambda indent: form.format(i=indent, e=expr))


def _deep_block(rng: random.Random, text: str) -> str:
    depth = rng.choice(BLOCK_DEPTHS)
    step = rng.choice((" ", "  ", "    ", "\t"))

    def make(indent: str) -> str:
        out = []
        closers = []
        for level in range(depth):
            header = rng.choice(BLOCK_HEADERS)
            pad = indent + step * level
            if header == "else:":  # an else needs its if: make the pair, the nesting goes under else
                out.append(f"{pad}if x:\n{pad}{step}pass\n")
            out.append(f"{pad}{header}\n")
            if header == "try:":
                closers.append(f"{pad}except Exception:\n{pad}{step}pass\n")
            else:
                closers.append("")
        out.append(f"{indent}{step * depth}print(x)\n")
        out.extend(reversed(closers))
        return "".join(out)

    return _insert_statement(rng, text, make)


def _long_line(rng: random.Random, text: str, quick: bool) -> str:
    size = rng.choice(QUICK_LONG_SIZES if quick else LONG_SIZES)
    form = rng.choice((
        lambda i: f"{i}_fz = '" + "a" * size + "'",
        lambda i: f"{i}_fz = [" + "1, " * (size // 3) + "]",
        lambda i: f"{i}print(x)  # " + "c" * size,
        lambda i: f"{i}_fz = x" + " " * size + "+ 1",
        lambda i: f"{i}_fz = {{" + ", ".join(f"'k{n}': x" for n in range(size // 8)) + "}",
        lambda i: f"{i}_fz = x; " * (size // 8) + "print(x)",
        lambda i: f"{i}print(" + "'é' " * (size // 4) + ", x.item())",
    ))
    return _insert_statement(rng, text, form)


def _many_statements(rng: random.Random, text: str, quick: bool) -> str:
    count = rng.choice(QUICK_MANY_STATEMENTS if quick else MANY_STATEMENTS)
    return _insert_statement(rng, text, lambda i: f"{i}x = x + 1\n" * count + f"{i}print(x)\n")


def _rule_trigger(rng: random.Random, text: str) -> str:
    trigger = rng.choice(RULE_TRIGGERS)
    name = rng.choice(("x", "self.weight", "logits", "ｘ", "x\u0301"))
    return _insert_statement(rng, text, lambda i: i + trigger.format(i=i, x=name))


def _odd_character(rng: random.Random, text: str) -> str:
    # Half the time a line-break look-alike, mostly where Python allows it (comments, strings), since
    # a syntax error stops the pipeline at ``ast.parse`` before most of the code under test.
    char = rng.choice(SPLITLINES_ONLY_BREAKS if rng.random() < 0.5 else ODD_CHARACTERS)
    lines = python_lines(text) or [""]
    where = rng.randrange(len(lines))
    line = lines[where]
    body = line.rstrip("\r\n")
    end = line[len(body):]
    place = rng.choice(("comment", "comment", "comment", "string", "string", "statement", "statement",
                        "statement", "end", "start", "terminator", "anywhere"))
    if place == "statement":  # a whole line holding the character in a comment and a string, in compiled code
        return _insert_statement(rng, text, lambda i: f"{i}print('a{char}b', x)  # c{char}d")
    if place == "comment":
        line = f"{body}  # a{char}b{end}"
    elif place == "string" and re.search(r"['\"]", body):
        quote = re.search(r"['\"]", body).start()  # type: ignore[union-attr]
        line = body[: quote + 1] + char + body[quote + 1:] + end
    elif place == "end":
        line = body + char + end
    elif place == "start":
        line = char + line
    elif place == "terminator":
        line = body + char + ("" if char in ("\r", "\r\n") else end)
    else:
        at = rng.randrange(len(text) + 1)
        return text[:at] + char + text[at:]
    lines[where] = line
    return "".join(lines)


def _newlines(rng: random.Random, text: str) -> str:
    style = rng.choice(("\r\n", "\r", "mixed", "\x0c\n", *SPLITLINES_ONLY_BREAKS))
    if style in SPLITLINES_ONLY_BREAKS:  # breaks Python does not take as such, at the end of a few lines
        lines = python_lines(text)
        # Form feed is whitespace to Python: bare at a line's end; the others only in a comment.
        suffix = style if style == "\x0c" else "  #" + style
        for index in rng.sample(range(len(lines)), min(len(lines), 3)):
            body = lines[index].rstrip("\r\n")
            lines[index] = body + suffix + lines[index][len(body):]
        return "".join(lines)
    if style == "mixed":
        return "".join(line.rstrip("\r\n") + rng.choice(("\n", "\r\n", "\r")) for line in python_lines(text))
    return "".join(line.rstrip("\r\n") + style for line in python_lines(text))


def _continuation(rng: random.Random, text: str) -> str:
    """A backslash line continuation: after a statement (joining the blank line below, which ends a
    function's last statement one line after ``ast`` says it ends) or splitting a line between tokens
    (the rest of it at any indentation, even column 0)."""
    lines = python_lines(text)
    candidates = [n for n, line in enumerate(lines) if line.strip() and "#" not in line and
                  not line.rstrip().endswith(("\\", ":"))]
    if not candidates:
        return text
    indented = [n for n in candidates if lines[n][:1] in (" ", "\t")]
    where = rng.choice(indented if indented and rng.random() < 0.85 else candidates)
    line = lines[where]
    body = line.rstrip("\r\n")
    end = line[len(body):] or "\n"
    spaces = [n for n, char in enumerate(body) if char == " " and body[:n].strip()]
    if spaces and rng.random() < 0.5:
        cut = rng.choice(spaces)
        lines[where] = body[:cut] + " \\" + end + rng.choice(("", " ", "        ")) + body[cut:].lstrip() + end
    else:
        lines[where] = body + rng.choice((" \\", "\\")) + end + rng.choice(("", "    ", "\x0c")) + end
    return "".join(lines)


def _form_feed_indentation(rng: random.Random, text: str) -> str:
    """Indentation that Python measures from a form feed on (it resets the column to 0 there), mixed
    with tabs: on the only line of a block, any whitespace after the form feed that goes deeper than
    the header is valid; on any line, whitespace before a form feed is ignored."""
    lines = python_lines(text)

    def width(line: str) -> int:
        return len(line) - len(line.lstrip(" \t\x0c"))

    sole = [n for n in range(1, len(lines) - 1)
            if lines[n - 1].rstrip().endswith(":") and lines[n].strip() and "\x0c" not in lines[n - 1]
            and width(lines[n]) > width(lines[n - 1]) >= width(lines[n + 1])]
    if sole and rng.random() < 0.7:
        where = rng.choice(sole)
        header = lines[where - 1][: width(lines[where - 1])].split("\x0c")[-1]
        deeper = len(header.expandtabs()), len(header)  # Python's two measures: tabs to 8, tabs as 1
        after = " " * (deeper[0] + 1)
        for _ in range(20):  # spaces and tabs, often fewer characters than the header but wider
            candidate = " " * rng.randrange(6) + "\t" * rng.randrange(3) + " " * rng.randrange(4)
            if len(candidate.expandtabs()) > deeper[0] and len(candidate) > deeper[1]:
                after = candidate
                break
        indent = lines[where - 1][: width(lines[where - 1])] + rng.choice(("", " ", "\t")) + "\x0c" + after
    else:
        candidates = [n for n, line in enumerate(lines) if line.strip()]
        if not candidates:
            return text
        where = rng.choice(candidates)
        indent = rng.choice(("", " ", "\t", "  \t ")) + "\x0c" + lines[where][: width(lines[where])]
    lines[where] = indent + lines[where][width(lines[where]):]
    return "".join(lines)


def _tabs(rng: random.Random, text: str) -> str:
    everywhere = rng.random() < 0.5
    out = []
    for line in python_lines(text):
        if everywhere or rng.random() < 0.3:
            stripped = line.lstrip(" ")
            spaces = len(line) - len(stripped)
            line = "\t" * (spaces // 4) + " " * (spaces % 4) + stripped
        out.append(line)
    return "".join(out)


def _identifiers(rng: random.Random, text: str) -> str:
    names = sorted(set(re.findall(r"\b[A-Za-z_][A-Za-z_0-9]*\b", text)) - {"import", "from", "def", "class"})
    if not names:
        return text
    name = rng.choice(names)
    plain, fancy = rng.choice(sorted(IDENTIFIER_VARIANTS.items()))
    if plain in name:
        new = name.replace(plain, fancy, 1)
    else:
        new = name + rng.choice(("é", "\u0301", "ß", "ſ", "ｘ"))
    return re.sub(rf"\b{re.escape(name)}\b", new, text)


def _crossover(rng: random.Random, text: str) -> str:
    other = python_lines(FIXTURES[rng.randrange(len(FIXTURES))].read_text(encoding="utf-8"))
    lines = python_lines(text)
    start = rng.randrange(max(len(other), 1))
    chunk = other[start: start + rng.randint(1, 30)]
    where = rng.randrange(len(lines) + 1)
    return "".join(lines[:where] + chunk + lines[where:])


def _delete_lines(rng: random.Random, text: str) -> str:
    lines = python_lines(text)
    if not lines:
        return text
    start = rng.randrange(len(lines))
    del lines[start: start + rng.choice((1, 1, 2, 3, 5, 10))]
    return "".join(lines)


def _duplicate_lines(rng: random.Random, text: str) -> str:
    lines = python_lines(text)
    if not lines:
        return text
    start = rng.randrange(len(lines))
    chunk = lines[start: start + rng.choice((1, 1, 2, 4, 8))]
    where = start + len(chunk) if rng.random() < 0.6 else rng.randrange(len(lines) + 1)
    return "".join(lines[:where] + chunk * rng.choice((1, 1, 2, 50)) + lines[where:])


def _swap_lines(rng: random.Random, text: str) -> str:
    lines = python_lines(text)
    if len(lines) < 2:
        return text
    a, b = rng.sample(range(len(lines)), 2)
    lines[a], lines[b] = lines[b], lines[a]
    return "".join(lines)


def _delete_characters(rng: random.Random, text: str) -> str:
    for _ in range(rng.randint(1, 3)):
        if not text:
            break
        at = rng.randrange(len(text))
        text = text[:at] + text[at + rng.randint(1, 4):]
    return text


def _insert_token(rng: random.Random, text: str) -> str:
    token = rng.choice((":", "(", ")", "[", "]", "\\", "'''", '"', "#", "lambda", "yield", "await", "async ",
                        "@", "=", ",", ";", "\n", "    ", "\t", "pass", "return", "match x:", "*", "**", "->"))
    at = rng.randrange(len(text) + 1)
    return text[:at] + token + text[at:]


TEXT_MUTATORS: dict[str, Callable[[random.Random, str], str]] = {
    "delete_lines": _delete_lines,
    "duplicate_lines": _duplicate_lines,
    "swap_lines": _swap_lines,
    "delete_characters": _delete_characters,
    "insert_token": _insert_token,
    "crossover": _crossover,
    "deep_expression": _deep_expression,
    "deep_block": _deep_block,
    "rule_trigger": _rule_trigger,
    "odd_character": _odd_character,
    "newlines": _newlines,
    "continuation": _continuation,
    "form_feed_indentation": _form_feed_indentation,
    "tabs": _tabs,
    "identifiers": _identifiers,
}


def _truncate(rng: random.Random, data: bytes) -> bytes:
    if not data:
        return data
    if rng.random() < 0.5:  # anywhere, possibly inside a UTF-8 sequence
        return data[: rng.randrange(len(data))]
    lines = python_lines(data)
    return b"".join(lines[: rng.randrange(len(lines))])


def _nul(rng: random.Random, data: bytes) -> bytes:
    at = rng.randrange(len(data) + 1)
    return data[:at] + b"\x00" * rng.choice((1, 1, 8)) + data[at:]


def _invalid_utf8(rng: random.Random, data: bytes) -> bytes:
    bad = rng.choice(BAD_BYTES)
    if rng.random() < 0.5:  # in a comment: still invalid, Python checks the whole file
        lines = python_lines(data) or [b""]
        where = rng.randrange(len(lines))
        body = lines[where].rstrip(b"\r\n")
        lines[where] = body + b"  # " + bad + lines[where][len(body):]
        return b"".join(lines)
    at = rng.randrange(len(data) + 1)
    return data[:at] + bad + data[at:]


def _coding(rng: random.Random, data: bytes) -> bytes:
    choice = rng.randrange(7)
    if choice == 0:
        return b"\xef\xbb\xbf" + data
    if choice == 1:  # a BOM with a contradicting cookie
        return b"\xef\xbb\xbf# -*- coding: latin-1 -*-\n" + data
    if choice == 2:
        return b"# -*- coding: fuzz-unknown -*-\n" + data
    if choice == 3:  # latin-1 declared and used, after a shebang
        text = _text(data).encode("latin-1", "replace")
        return b"#!/usr/bin/env python\n# vim: set fileencoding=latin-1 :\n" + text.replace(b"# ", b"# caf\xe9 ", 3)
    if choice == 4:
        return b"# coding: utf-8\n" + data.replace(b"\n", b"\n\xef\xbb\xbf", 1)
    if choice == 5:  # a cookie too late to count, over latin-1 bytes
        return b"\n\n# coding: latin-1\n# caf\xe9\n" + data
    return b"# coding=cp1252\n" + _text(data).encode("cp1252", "replace")


def _bit_flip(rng: random.Random, data: bytes) -> bytes:
    buffer = bytearray(data)
    for _ in range(rng.randint(1, 3)):
        if buffer:
            buffer[rng.randrange(len(buffer))] ^= 1 << rng.randrange(8)
    return bytes(buffer)


BYTE_MUTATORS: dict[str, Callable[[random.Random, bytes], bytes]] = {
    "truncate": _truncate,
    "nul": _nul,
    "invalid_utf8": _invalid_utf8,
    "coding": _coding,
    "bit_flip": _bit_flip,
}


SIZED_MUTATORS: dict[str, Callable[[random.Random, str, bool], str]] = {
    "long_line": _long_line,
    "many_statements": _many_statements,
}
MUTATORS = (*TEXT_MUTATORS, *SIZED_MUTATORS, *BYTE_MUTATORS)
MAX_MUTANT = 4_000_000  # bytes: duplication of a long line must not grow without bound


def _apply(name: str, rng: random.Random, data: bytes, quick: bool) -> bytes:
    if name in BYTE_MUTATORS:
        return BYTE_MUTATORS[name](rng, data)
    if name in SIZED_MUTATORS:
        return _bytes(SIZED_MUTATORS[name](rng, _text(data), quick))
    return _bytes(TEXT_MUTATORS[name](rng, _text(data)))


@dataclass(frozen=True)
class Mutant:
    name: str  # fixture and operators, e.g. "fixtures/cases/hazards.py+odd_character+nul"
    data: bytes


def mutant(seed: int, index: int, quick: bool = False) -> Mutant:
    """The ``index``-th mutant of run ``seed``: reproducible on its own. Its first operator cycles
    through all of them, so that even a short run exercises every one; one or two more may follow.
    ``quick`` caps the sizes of long lines and long functions (the in-suite run)."""
    rng = random.Random(f"{seed}:{index}")
    fixture = FIXTURES[rng.randrange(len(FIXTURES))]
    data = fixture.read_bytes()
    operators = [MUTATORS[index % len(MUTATORS)]]
    operators += rng.sample(MUTATORS, rng.choice((0, 0, 1, 2)))
    for name in operators:
        data = _apply(name, rng, data, quick)[:MAX_MUTANT]
    return Mutant("+".join([fixture.relative_to(ROOT).as_posix(), *operators]), data)


# --------------------------------------------------------------------------------------------------
# Minimizing a crashing input into a reproducer


def minimize(data: bytes, still_crashes: Callable[[bytes], bool], budget_s: float = 60.0) -> bytes:
    """A smaller input that still crashes the same way: delta debugging over lines, then words, then
    bytes, within the budget. Deep-nesting inputs shrink as words (the chain gets shorter)."""
    deadline = time.monotonic() + budget_s

    def reduce(parts: list[bytes]) -> list[bytes]:
        chunk = max(len(parts) // 2, 1)
        while chunk >= 1 and time.monotonic() < deadline:
            start, changed = 0, False
            while start < len(parts) and time.monotonic() < deadline:
                candidate = parts[:start] + parts[start + chunk:]
                if candidate and still_crashes(b"".join(candidate)):
                    parts, changed = candidate, True
                else:
                    start += chunk
            if not changed:
                chunk //= 2
        return parts

    best = b"".join(reduce(python_lines(data)))  # type: ignore[arg-type]
    best = b"".join(reduce(re.findall(rb"\s+|\w+|[^\w\s]", best, re.S)))  # words: `x if x else` chains shrink fast
    if len(best) <= 4_000:
        best = b"".join(reduce([best[i:i + 1] for i in range(len(best))]))
    return best


def digest(data: bytes) -> str:
    return hashlib.sha1(data).hexdigest()[:12]
