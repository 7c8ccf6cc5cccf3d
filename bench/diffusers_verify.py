"""The catalogue's precision and recall on diffusers models, measured by ``dynalint --verify``.

    pip install 'diffusers==0.42.1'     # its dependencies (the source linted is the unpacked wheel)
    python bench/diffusers_verify.py [--keep DIR] [--installed]

Lays out a project in a temporary folder (or ``--keep DIR``): diffusers' source (``corpus.py``)
beside ``fixtures/diffusers/`` (tiny model factories, their compile sites and the ``pyproject.toml``
that declares the factories), then runs the installed command on it, as a user would:
``dynalint --verify --output-format json --census-out census.json .``.
With ``--installed``, diffusers is not copied: the project holds only the factories, and the command
names the installed package where pip put it, as third-party code
(``dynalint --verify ... tiny_models.py .../site-packages/diffusers``); verify then lints only the
diffusers files the factories ran.

Each compile site in ``tiny_models.compile_all`` is one model. A static finding belongs to the model
whose compile site starts its why-chain; the model's factory ran it under real Dynamo. Per model it
prints the static findings, how many were confirmed, refuted or not reached (and unverifiable), and
the breaks Dynamo saw there that no rule flagged anywhere (recall's misses: the break sites in the
factory's census entry that carry no finding). Findings in the rest of diffusers (``forward``
methods no compile site reaches) are summed in one more row.
"""

from __future__ import annotations

import argparse
import ast
import collections
import importlib.util
import json
import re
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import corpus  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
FIXTURE = ROOT / "fixtures" / "diffusers"
VERDICTS = ("confirmed", "refuted", "not reached", "unverifiable")


def lay_out(target: Path, copy_diffusers: bool = True) -> None:
    if copy_diffusers:
        shutil.copytree(corpus.diffusers(), target / "diffusers", ignore=shutil.ignore_patterns("__pycache__"))
    for name in ("tiny_models.py", "pyproject.toml"):
        shutil.copy(FIXTURE / name, target / name)


def compile_sites() -> dict[int, str]:
    """``{line: factory}`` for each ``torch.compile(build_X())`` in ``compile_all`` (factory ``X``)."""
    tree = ast.parse((FIXTURE / "tiny_models.py").read_text(encoding="utf-8"))
    sites = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and ast.unparse(node.func) == "torch.compile" and node.args:
            built = node.args[0]
            if isinstance(built, ast.Call) and isinstance(built.func, ast.Name):
                sites[node.lineno] = built.func.id.removeprefix("build_")
    return sites


def _location(site: str) -> tuple[str, int]:
    """``("diffusers/x.py", 12)`` from a census break site ``"diffusers/x.py:12 GB0124"``."""
    path, _, line = site.split(" ")[0].rpartition(":")
    return path, int(line)


def _package_path(filename: str) -> str:
    """A finding's file as the census names it: an installed file from its package folder on."""
    for folder in ("site-packages/", "dist-packages/"):
        if folder in filename:
            return filename.rsplit(folder, 1)[1]
    return filename


def table(findings: list[dict], census: dict, sites: dict[int, str]) -> list[str]:
    flagged = {(_package_path(f["filename"]), f["location"]["row"]) for f in findings if f["code"] != "DYN090"}
    rows: dict[str, collections.Counter] = collections.defaultdict(collections.Counter)
    for finding in findings:
        if finding["code"] == "DYN090" or finding.get("region") is None:
            continue
        head = finding["region"]["chain"][0]
        model = sites.get(head["line"]) if head["filename"].endswith("tiny_models.py") else None
        row = rows[model or "(rest of diffusers)"]
        row["findings"] += 1
        row[(finding.get("verify") or {}).get("verdict", "none")] += 1
    lines = [
        "| model | graphs | breaks seen | static findings | confirmed | refuted | not reached | unverifiable "
        "| breaks no rule saw |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    for model in [*dict.fromkeys(sites.values()), "(rest of diffusers)"]:
        entry = census["functions"].get(f"factory:tiny_models:{model}", {})
        unseen = [site for site in entry.get("break_sites", ()) if _location(site) not in flagged]
        row = rows.get(model, collections.Counter())
        graphs = entry.get("graphs", "-") if entry.get("status", "ran") == "ran" else entry.get("status", "-")
        lines.append(
            f"| {model} | {graphs} | {entry.get('breaks', '-')} | {row['findings']} | "
            + " | ".join(str(row[v]) for v in VERDICTS)
            + f" | {len(unseen) if entry else '-'}{' (' + ', '.join(unseen) + ')' if unseen else ''} |"
        )
    return lines


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--keep", type=Path, help="lay the project out here and keep it (must not exist)")
    parser.add_argument("--installed", action="store_true",
                        help="verify the installed diffusers in place instead of a copy inside the project")
    options = parser.parse_args()
    if importlib.util.find_spec("huggingface_hub") is None or importlib.util.find_spec("torch") is None:
        raise SystemExit("needs torch and diffusers' dependencies: pip install torch==2.13.0 'diffusers==0.42.1'")
    folder = options.keep or Path(tempfile.mkdtemp(prefix="dynalint-diffusers-"))
    folder.mkdir(parents=True, exist_ok=options.keep is None)
    lay_out(folder, copy_diffusers=not options.installed)
    paths = ["tiny_models.py", str(corpus.installed("diffusers"))] if options.installed else ["."]
    started = time.perf_counter()
    completed = subprocess.run(
        [sys.executable, "-m", "dynalint", "--verify", "--output-format", "json", "--census-out", "census.json", *paths],
        cwd=folder, capture_output=True, text=True,
    )
    elapsed = time.perf_counter() - started
    if completed.returncode not in (0, 1):
        raise SystemExit(f"dynalint exited {completed.returncode}:\n{completed.stderr[-4000:]}")
    findings = json.loads(completed.stdout)
    census = json.loads((folder / "census.json").read_text(encoding="utf-8"))
    where = f"installed at {paths[1]}" if options.installed else "copied into the project"
    print(f"dynalint --verify over diffusers {corpus.DIFFUSERS_VERSION} ({where}): {elapsed:.0f} s, "
          f"{len(findings)} findings (DYN090 included), exit {completed.returncode}\n")
    print("\n".join(table(findings, census, compile_sites())))
    verdicts = collections.Counter((f.get("verify") or {}).get("verdict") for f in findings)
    print(f"\nall verdicts: {dict(verdicts)}")
    reasons = collections.Counter(
        re.sub(r"`[^`]*`|\d[\d,.]*", "_", f["verify"]["reason"]).split(" (")[0][:90]
        for f in findings if (f.get("verify") or {}).get("verdict") == "unverifiable"
    )
    print("unverifiable, by reason:")
    for reason, count in reasons.most_common(8):
        print(f"  {count:>3}  {reason}")
    for finding in findings:
        verdict = finding.get("verify") or {}
        if verdict.get("verdict") in ("refuted", "not reached"):
            print(f"  {_package_path(finding['filename'])}:{finding['location']['row']} {finding['code']} "
                  f"{verdict['verdict']}: {verdict.get('reason')}")
    for finding in findings:
        verdict = finding.get("verify") or {}
        if verdict.get("verdict") in ("confirmed", "refuted") or finding["code"] == "DYN090":
            print(f"  {finding['filename']}:{finding['location']['row']} {finding['code']} "
                  f"{verdict.get('verdict')} {verdict.get('gb_ids', [])}")
    if options.keep is None:
        shutil.rmtree(folder)


if __name__ == "__main__":
    main()
