"""Ground-truth bench, the summary: model results and static findings in, Markdown tables out.

Collects each library's break sites (the union over its models and both modes; a break with no frame
in the library is excluded and counted by where it happened), lints the library (``gt_static``),
scores it (``gt_score``) and renders: per library, per rule, per GB id, the miss categories with
examples, then every miss and every false positive with its source line, and the models that failed.

Part of the harness run by ``python bench/groundtruth/groundtruth.py`` (see ``README.md``).
"""

from __future__ import annotations

import collections
import os
from importlib import metadata
from typing import Any

import gt_runner
import gt_static
from gt_score import Score, Site, StaticFinding, score

EXAMPLES = 3


def _where(path: str) -> str:
    """Where a break outside the library happened: ``torch/_dynamo``, a package, or the file."""
    parts = path.split(os.sep)
    if "site-packages" in parts:
        rest = parts[parts.index("site-packages") + 1:]
        return "/".join(rest[:2]) if rest and rest[0] == "torch" else (rest[0] if rest else path)
    return os.path.basename(path) or "(no frame)"


def collect(results: dict[str, dict[str, Any]]) -> dict[str, dict[str, Any]]:
    """Per library: its models' results, break sites, traced lines and the breaks outside it."""
    libraries: dict[str, dict[str, Any]] = {}
    for model_id, result in results.items():
        library = model_id.split("/", 1)[0]
        lib = libraries.setdefault(library, {"models": {}, "sites": {}, "traced": set(),
                                             "outside": collections.Counter(), "events": 0})
        lib["models"][model_id] = result
        for mode, observed in result.get("modes", {}).items():
            lib["traced"].update((path, line) for path, line in observed["traced"])
            for brk in observed["breaks"]:
                lib["events"] += 1
                if brk["rel"] is None or brk["line"] <= 0:
                    lib["outside"][(_where(brk["file"]), brk["gb_id"] or "unknown")] += 1
                    continue
                site = lib["sites"].setdefault((brk["rel"], brk["line"]), Site(brk["rel"], brk["line"]))
                if brk["gb_id"]:
                    site.gb_ids.add(brk["gb_id"])
                site.reasons.add(brk["reason"])
                site.models.add(f"{model_id.split('/', 1)[1]}:{mode}")
    return libraries


def _version(library: str, lib: dict[str, Any]) -> str:
    """The library's version as its models recorded it, else as its distribution's metadata says."""
    recorded = next((r["version"] for r in lib["models"].values() if r.get("version") not in (None, "?")), None)
    if recorded:
        return str(recorded)
    try:
        return metadata.version(gt_static.distribution(library))
    except metadata.PackageNotFoundError:
        return "?"


def compile_table(results: dict[str, dict[str, Any]], sealed: tuple[str, ...] = ()) -> list[str]:
    """The compile side per library (no dynalint): models, break sites, data-dependent ones, and the half."""
    libraries = collect(results)
    rows = ["## The compile side (every library, both halves)\n",
            "| library | half | version | models ok / run | break events | break sites | data-dependent control flow |",
            "|---|---|---|---|---|---|---|"]
    totals: collections.Counter[str] = collections.Counter()
    for library, lib in sorted(libraries.items()):
        statuses = collections.Counter(gt_runner.status(r) for r in lib["models"].values())
        version = _version(library, lib)
        dependent = sum(site.data_dependent for site in lib["sites"].values())
        half = "sealed" if library in sealed else "dev"
        rows.append(f"| {library} | {half} | {version} | {statuses['ok']} / {len(lib['models'])} | {lib['events']} "
                    f"| {len(lib['sites'])} | {dependent} |")
        for key, value in (("models", len(lib["models"])), ("sites", len(lib["sites"])), ("dependent", dependent),
                           (f"{half} sites", len(lib["sites"])), (f"{half} dependent", dependent)):
            totals[key] += value
    for half in ("dev", "sealed"):
        rows.append(f"| **{half} half** | | | | | {totals[f'{half} sites']} | {totals[f'{half} dependent']} |")
    rows.append(f"| **all** ({len(libraries)} libraries) | | | {totals['models']} models | | {totals['sites']} "
                f"| {totals['dependent']} |")
    return rows + ["", "Data-dependent control flow: a break site with a GB id of `gt_score.DATA_DEPENDENT` "
                   "(branching on a tensor, `.item()`/`.tolist()`, dynamic-shape operators, tensor-bounded "
                   "slices).", "", compile_time(results) + "\n"]


def compile_time(results: dict[str, dict[str, Any]]) -> str:
    """The models' recorded run times (``gt_runner`` writes ``seconds``; results cached before it did have none)."""
    timed = [r["seconds"] for r in results.values() if isinstance(r.get("seconds"), (int, float))]
    return (f"Compile time: {sum(timed) / 60:.0f} min summed over the {len(timed)} of {len(results)} models "
            f"whose result records its run time (one model at a time; `--jobs 2` runs two at once).")


def _label(sites: list[Site], gb_id: str) -> str:
    reasons = collections.Counter(r for s in sites if s.gb_id == gb_id for r in s.reasons)
    return reasons.most_common(1)[0][0][:70].replace("|", "/") if reasons else ""


def _site_text(library: str, site: Site) -> str:
    models = sorted(site.models)
    shown = ", ".join(models[:2]) + (f" +{len(models) - 2}" if len(models) > 2 else "")
    code = gt_static.source_line(library, site.path, site.line).replace("|", "\\|")
    return f"`{site.path}:{site.line}` {site.gb_id} ({shown}): `{code[:100]}`"


def _finding_text(library: str, finding: StaticFinding) -> str:
    code = gt_static.source_line(library, finding.path, finding.line).replace("|", "\\|")
    return (f"{finding.code} `{finding.path}:{finding.line}` [{finding.confidence}]: `{code[:100]}` "
            f"({finding.message[:90]})")


def render(results: dict[str, dict[str, Any]], command: str, half: str = "development",
           compile_side: list[str] | None = None) -> str:
    """The summary: ``compile_side`` (both halves, no dynalint) then the scores of ``results``' libraries."""
    libraries = collect(results)
    out = [f"# Ground truth: static dynalint against real graph breaks ({half} half)\n",
           f"`{command}` on torch {gt_runner.cache_folder().name.removeprefix('torch-')}, CPU, "
           "`backend=\"eager\"`, each model in eval (`no_grad`) and train mode. Scored below: the "
           f"{half} half ({', '.join(sorted(libraries)) or 'no library of it selected'}).\n", *(compile_side or [])]
    total = Score()
    scored: dict[str, tuple[Score, gt_static.StaticResult]] = {}
    rows = ["| library | version | models ok / run | graphs | break events | break sites (in library) "
            "| data-dependent control flow | outside the library | declared compiled "
            "| findings: judged / on untraced lines / guarded in line | recall | misses outside a region | precision |",
            "|---|---|---|---|---|---|---|---|---|---|---|---|---|"]
    for library, lib in sorted(libraries.items()):
        entries = [e for r in lib["models"].values() for e in r.get("entries", ())]
        static = gt_static.lint(library, entries)
        result = score(lib["sites"], lib["traced"], static.findings)
        scored[library] = (result, static)
        total.merge(result)
        statuses = collections.Counter(gt_runner.status(r) for r in lib["models"].values())
        version = _version(library, lib)
        graphs = sum(m["graphs"] for r in lib["models"].values() for m in r.get("modes", {}).values())
        dependent = sum(site.data_dependent for site in lib["sites"].values())
        rows.append(f"| {library} | {version} | {statuses['ok']} / {len(lib['models'])} | {graphs} | {lib['events']} "
                    f"| {len(lib['sites'])} | {dependent} | {sum(lib['outside'].values())} | {len(static.declared)} "
                    f"| {result.precision.total} / {result.unjudged} / {len(result.guarded)} | {result.recall.shown()} "
                    f"| {_unregioned(result, static)} | {result.precision.shown()} |")
    dependent_all = sum(s.data_dependent for lib in libraries.values() for s in lib["sites"].values())
    rows.append(f"| **all** | | {sum(len(l['models']) for l in libraries.values())} models | | | "
                f"{total.recall.total} | {dependent_all} | | | {total.precision.total} / {total.unjudged} / {len(total.guarded)} | {total.recall.shown()} "
                f"| {sum(_unregioned(*pair) for pair in scored.values())} | {total.precision.shown()} |")
    out += [f"## Per library ({half} half)\n", *rows, ""]
    out += ["Recall: break sites with a finding on their line / break sites. Precision: findings on traced "
            "lines that are break sites / findings on traced lines. \"Models ok\" excludes models that "
            "raised under compile in a mode (what was observed before the error still counts). \"Declared "
            "compiled\": the library's entry points the models compiled, passed as `compiled` in the config. "
            "\"Misses outside a region\": missed sites in a function dynalint does not take for compiled "
            "code (the call graph did not reach it), the others are in one. \"Guarded in line\": findings "
            "behind a guard on their own line (`a and f()`, `if c: f()`), which a traced line neither confirms "
            "nor refutes (`gt_line_guard.py`): left out of precision, listed at the end.\n"]
    out += _rules_table(total) + _gb_table(total, libraries) + _miss_categories(scored, libraries)
    out += _outside(libraries) + _failures(results) + _lists(scored)
    return "\n".join(out)


def _unregioned(result: Score, static: gt_static.StaticResult) -> int:
    return sum(not static.in_region(site.path, site.line) for site in result.misses)


def _rules_table(total: Score) -> list[str]:
    rows = ["## Per rule\n", "| rule | judged findings | true (on a break site) | precision | break sites covered |",
            "|---|---|---|---|---|"]
    for code in sorted(set(total.per_rule) | set(total.rule_sites)):
        ratio = total.per_rule.get(code)
        rows.append(f"| {code} | {ratio.total if ratio else 0} | {ratio.hits if ratio else 0} | "
                    f"{ratio.shown() if ratio else '-'} | {total.rule_sites.get(code, 0)} |")
    return rows + [""]


def _gb_table(total: Score, libraries: dict[str, dict[str, Any]]) -> list[str]:
    sites = [s for lib in libraries.values() for s in lib["sites"].values()]
    rows = ["## Per GB id (recall)\n", "| GB id | Dynamo's reason | break sites | with a finding | recall |",
            "|---|---|---|---|---|"]
    for gb_id, ratio in sorted(total.per_gb.items(), key=lambda kv: (-kv[1].total, kv[0])):
        rows.append(f"| {gb_id} | {_label(sites, gb_id)} | {ratio.total} | {ratio.hits} | {ratio.shown()} |")
    return rows + [""]


def _miss_categories(scored: dict[str, tuple[Score, Any]], libraries: dict[str, dict[str, Any]]) -> list[str]:
    sites = [s for lib in libraries.values() for s in lib["sites"].values()]
    misses = [(library, site) for library, (result, _) in scored.items() for site in result.misses]
    by_gb = collections.defaultdict(list)
    for library, site in misses:
        by_gb[site.gb_id].append((library, site))
    rows = ["## Top miss categories\n"]
    for gb_id, group in sorted(by_gb.items(), key=lambda kv: (-len(kv[1]), kv[0]))[:12]:
        per_lib = collections.Counter(library for library, _ in group)
        split = ", ".join(f"{lib} {n}" for lib, n in per_lib.most_common())
        rows.append(f"- **{gb_id}** {_label(sites, gb_id)}: {len(group)} missed sites ({split})")
        for library, site in group[:EXAMPLES]:
            rows.append(f"  - {library}: {_site_text(library, site)}")
    return rows + [""]


def _outside(libraries: dict[str, dict[str, Any]]) -> list[str]:
    rows = ["## Breaks with no frame in the library (excluded from scoring)\n"]
    for library, lib in sorted(libraries.items()):
        if lib["outside"]:
            shown = ", ".join(f"{where} {gb} ×{n}" for (where, gb), n in lib["outside"].most_common(8))
            rows.append(f"- {library}: {sum(lib['outside'].values())} break events: {shown}")
    return rows + ["" if len(rows) > 1 else "none\n"]


def _failures(results: dict[str, dict[str, Any]]) -> list[str]:
    rows = ["## Models that did not run cleanly\n"]
    for model_id, result in sorted(results.items()):
        status = gt_runner.status(result)
        if status == "ok":
            continue
        detail = result.get("build_error") or result.get("crash") or (
            f"{result['timeout']:.0f} s" if "timeout" in result else "; ".join(
                f"{mode}: {m['error']}" for mode, m in result.get("modes", {}).items() if m.get("error")))
        rows.append(f"- `{model_id}` {status}: {str(detail).splitlines()[-1][:200] if detail else ''}")
    return rows + ["" if len(rows) > 1 else "none\n"]


def _lists(scored: dict[str, tuple[Score, Any]]) -> list[str]:
    rows = ["## Every miss\n"]
    for library, (result, static) in sorted(scored.items()):
        rows.append(f"### {library}: {len(result.misses)} missed break sites\n")
        rows += [f"- {_site_text(library, site)}{'' if static.in_region(site.path, site.line) else ' (no region)'}"
                 for site in result.misses] + [""]
    rows.append("## Every false positive (traced, no break on the line)\n")
    for library, (result, _) in sorted(scored.items()):
        rows.append(f"### {library}: {len(result.false_positives)} false positives\n")
        rows += [f"- {_finding_text(library, f)}" for f in result.false_positives] + [""]
    rows.append("## Findings guarded in their line (traced, not judged)\n")
    for library, (result, _) in sorted(scored.items()):
        if result.guarded:
            rows.append(f"### {library}: {len(result.guarded)} guarded findings, {result.guarded_on_sites} on a break site\n")
            rows += [f"- {_finding_text(library, f)}" for f in result.guarded] + [""]
    return rows
