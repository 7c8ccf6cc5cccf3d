"""Derive the table of library calls Dynamo cannot trace, by measuring each on the installed torch.

    python bench/skiplist/derive.py            # measure, print the table, rewrite the generated module
    python bench/skiplist/derive.py --check    # measure and print only; exit 1 if the module is stale

Every call in ``candidates.CALLS`` runs inside a function compiled with ``torch.compile`` on the CPU,
judged by the differential tester's oracle (the recorders ``--verify`` uses). A call *breaks* when Dynamo
logs a graph break on its line. Beside the measurement the table shows what torch's trace rules say of
the function (``trace_rules.lookup`` / ``check_verbose``): ``skipped`` when they mark it skipped, and
``inlined`` when Dynamo inlines it and the break comes from inside. Calls another rule already reports
(``copy.deepcopy`` is DYN207's, the clock is DYN204's) are left to that rule.

The calls that break and no other rule owns are written to ``dynalint/analysis/skipped_library_calls.py``,
which DYN004 reads; a torch-marked test checks the module against the installed torch.
"""

from __future__ import annotations

import argparse
from collections import Counter
import importlib
import importlib.util
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path[:0] = [str(ROOT), str(ROOT / "bench" / "difftest"), str(Path(__file__).resolve().parent)]

from candidates import CALLS, EXTRA_IMPORTS, FILLED, OBJECTS, PREPARE  # noqa: E402
from generated import write_or_check  # noqa: E402

GENERATED = ROOT / "dynalint" / "analysis" / "skipped_library_calls.py"
OWN_CODE = "DYN004"

PRELUDE = '''import dataclasses
import enum

import torch
{prepare}{imports}

CFG = {{"a": 1, "size": 2}}
BLOB = pickle.dumps(CFG)
TEXT = "aab"
LABELS = [0, 1, 1, 0]
PREDICTED = [0, 1, 0, 0]
SCORES = [0.1, 0.8, 0.7, 0.3]
POINTS = [[0.0, 0.0], [0.0, 1.0], [5.0, 5.0], [5.0, 6.0]]
MODEL = torch.nn.Linear(3, 3)
{objects}


def helper(a, b=1):
    return a


@dataclasses.dataclass
class Conf:
    size: int = 2


class Color(enum.Enum):
    RED = 1


conf = Conf()


def probe(x):
    value = {call}
    return x + 1


torch.compile(probe, backend="eager")(torch.ones(3))
'''

def top_module(name: str) -> str:
    return name.split(".")[0]


def importable(module: str) -> bool:
    return importlib.util.find_spec(module) is not None


def submodule(name: str) -> str | None:
    """The submodule to import for ``name`` (``os.path`` for ``os.path.isdir``), or ``None`` where the prefix names
    an object and not a module (``os.environ.pop``: ``os`` imported suffices)."""
    prefix = name.rsplit(".", 1)[0]
    try:
        return prefix if importlib.util.find_spec(prefix) is not None else None
    except (ImportError, ValueError):  # ``os.environ``: ``os`` is not a package
        return None


def program(call: str, modules: list[str]) -> str:
    imports = "\n".join(f"import {module}" for module in modules)
    # the objects whose methods are measured, each built (before compiling) where its package is installed
    objects = "\n".join(f"{name} = {made}" + "".join(f"\n{name}.put({item})" for item in range(4) if name in FILLED)
                        for name, made in OBJECTS.items() if top_module(made) in modules)
    return PRELUDE.format(imports=imports, prepare=preparation(modules), objects=objects, call=call)


def preparation(modules: list[str]) -> str:
    """The statements ``PREPARE`` asks for before importing ``modules``, with the bench's modules made importable
    (the harness running a measuring program does not have them on its path); empty when none is needed."""
    prepare = "".join(f"{statement}\n" for statement in dict.fromkeys(
        statement for module, statement in PREPARE.items() if module in modules))
    if not prepare:
        return ""
    return f"import sys\nsys.path.insert(0, {str(ROOT / 'bench' / 'groundtruth')!r})\nimport gt_models\n{prepare}"


def call_line(text: str) -> int:
    return next(number for number, line in enumerate(text.splitlines(), 1) if line.startswith("    value = "))


def resolve(name: str) -> object:
    parts = name.split(".")
    for cut in range(len(parts) - 1, 0, -1):
        try:
            target: object = importlib.import_module(".".join(parts[:cut]))
        except ImportError:
            continue
        for attribute in parts[cut:]:
            target = getattr(target, attribute)
        return target
    raise ImportError(name)


def trace_rules_say(name: str) -> str:
    """``skipped`` when torch's trace rules mark the function skipped, else ``inlined``."""
    from torch._dynamo import trace_rules
    from torch._dynamo.variables import SkipFunctionVariable

    target = resolve(name)
    if trace_rules.lookup(target) is SkipFunctionVariable:
        return "skipped"
    try:
        return "skipped" if trace_rules.check_verbose(target).skipped else "inlined"
    except Exception:  # noqa: BLE001 - C types with no file: lookup above already decided
        return "inlined"


def owner(text: str) -> str | None:
    from dynalint.api import lint_source

    line = call_line(text)
    codes = sorted({f.code for f in lint_source(text, "probe.py") if f.start.line == line and f.code != OWN_CODE})
    return ", ".join(codes) or None


def measure() -> list[dict[str, object]]:
    from oracle import judge

    import torch

    installed = {name for name in CALLS if importable(top_module(name))}
    exec(preparation(sorted({top_module(name) for name in installed})), {})  # what resolving the names imports, here
    modules = sorted({top_module(name) for name in installed} | set(EXTRA_IMPORTS) | {"pickle"}
                     | {module for n in installed if n.count(".") > 1 and (module := submodule(n))})
    texts = {name: program(CALLS[name], modules) for name in installed}
    names = sorted(installed)
    verdicts = judge([texts[name] for name in names])
    rows: list[dict[str, object]] = []
    for name, verdict in zip(names, verdicts):
        line = call_line(texts[name])
        gb_ids = sorted({gb for gb in verdict.breaks.get(line, []) if gb})
        rows.append({"name": name, "error": verdict.error, "breaks": bool(verdict.breaks.get(line)),
                     "gb": gb_ids[0] if gb_ids else "", "rules": trace_rules_say(name), "owner": owner(texts[name])})
    for name in sorted(set(CALLS) - installed):
        rows.append({"name": name, "error": "not installed", "breaks": False, "gb": "", "rules": "", "owner": None})
    rows.sort(key=lambda row: str(row["name"]))
    print(f"torch {torch.__version__}: {len(CALLS)} calls, {len(installed)} measured", file=sys.stderr)
    return rows


def render(rows: list[dict[str, object]], torch_version: str) -> str:
    """The generated module: calls measured to break that no other rule owns, plus the entries of
    modules not installed here, kept from the module as it was."""
    kept = {str(row["name"]): (str(row["gb"]), str(row["rules"])) for row in rows
            if row["breaks"] and not row["owner"] and not row["error"]}
    absent = {str(row["name"]) for row in rows if row["error"] == "not installed"}
    kept.update({name: entry for name, entry in previous_table().items() if name in absent})
    body = "\n".join(f'    "{name}": ("{gb}", "{rules}"),' for name, (gb, rules) in sorted(kept.items()))
    whole = broken_packages(rows, previous_packages())
    packages = "\n".join(f'    "{package}": "{gb}",' for package, gb in whole.items())
    traced = sorted({str(row["name"]) for row in rows if top_module(str(row["name"])) in whole
                     and not row["breaks"] and not row["error"]}
                    | {name for name in previous_traced() if name.split(".", 1)[0] in whole and name in absent})
    exceptions = "\n".join(f'    "{name}",' for name in traced)
    return f'''"""Library calls Dynamo cannot trace, measured on torch {torch_version} (generated: do not edit).

Written by ``python bench/skiplist/derive.py``, which compiles one call of each candidate on the CPU and
keeps those that break the graph and that no other rule reports. Each name maps to the GB id Dynamo
logged and to what torch's trace rules say of the function: ``skipped`` (marked skipped, the break is at
the call) or ``inlined`` (Dynamo inlines it and breaks inside). DYN004 reads this table.
"""

MEASURED_ON = "{torch_version}"

SKIPPED_LIBRARY_CALLS: dict[str, tuple[str, str]] = {{
{body}
}}

# Packages whose measured calls break (at least {WHOLE_PACKAGE_MIN} of them, and three in four or more): any call
# into them is taken to break, named by the GB id their calls logged most often, but for the calls of
# theirs measured to trace (``TRACED_LIBRARY_CALLS``).
SKIPPED_LIBRARY_PACKAGES: dict[str, str] = {{
{packages}
}}

# The measured calls of those packages that trace: pure-Python helpers (a type test, a class holding bounds).
TRACED_LIBRARY_CALLS: frozenset[str] = frozenset({{
{exceptions}
}})
'''


WHOLE_PACKAGE_MIN = 8  # measured calls of a package before all of it is taken to break


def broken_packages(rows: list[dict[str, object]], previous: dict[str, str]) -> dict[str, str]:
    """Third-party packages (not installed here: as measured before) whose measured calls break, at least
    ``WHOLE_PACKAGE_MIN`` of them and three in four or more, with the GB id logged most often."""
    by_package: dict[str, list[dict[str, object]]] = {}
    for row in rows:
        by_package.setdefault(top_module(str(row["name"])), []).append(row)
    found = dict(previous)
    for package, measured in by_package.items():
        if any(row["error"] == "not installed" for row in measured):
            continue  # kept as it was
        found.pop(package, None)
        breaking = [row for row in measured if row["breaks"] and not row["error"]]
        if len(breaking) >= WHOLE_PACKAGE_MIN and 4 * len(breaking) >= 3 * len(measured):
            counts = Counter(str(row["gb"]) for row in breaking)
            found[package] = max(sorted(counts), key=counts.__getitem__)
    return dict(sorted(found.items()))


def previous_packages() -> dict[str, str]:
    try:
        from dynalint.analysis.skipped_library_calls import SKIPPED_LIBRARY_PACKAGES
    except ImportError:
        return {}
    return dict(SKIPPED_LIBRARY_PACKAGES)


def previous_traced() -> frozenset[str]:
    try:
        from dynalint.analysis.skipped_library_calls import TRACED_LIBRARY_CALLS
    except ImportError:
        return frozenset()
    return TRACED_LIBRARY_CALLS


def previous_table() -> dict[str, tuple[str, str]]:
    try:
        from dynalint.analysis.skipped_library_calls import SKIPPED_LIBRARY_CALLS
    except ImportError:
        return {}
    return dict(SKIPPED_LIBRARY_CALLS)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--check", action="store_true", help="do not write; exit 1 if the module is stale")
    options = parser.parse_args()
    import torch

    rows = measure()
    print(f"{'call':32} {'breaks':7} {'GB':7} {'trace rules':12} owner / error")
    for row in rows:
        note = row["error"] or row["owner"] or ""
        print(f"{row['name']:32} {'yes' if row['breaks'] else 'no':7} {row['gb']!s:7} {row['rules']!s:12} {note}")
    text = render(rows, torch.__version__.split("+")[0])
    return write_or_check(GENERATED, text, options.check, ROOT)


if __name__ == "__main__":
    raise SystemExit(main())
