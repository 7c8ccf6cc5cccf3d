"""Command line: parse flags, build a ``Pipeline``, print with a reporter, map the result to an exit code.

Exit codes: 0 no findings, 1 findings (``--exit-zero`` turns that into 0), 2 usage, config or
internal error, 130 interrupted (Ctrl-C). ``dynalint PATH...`` is short for ``dynalint check PATH...``.
"""

from __future__ import annotations

import gc
import json
import os
import sys
import traceback
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

import click

from dynalint.model.finding import Confidence
from dynalint.model.version import __version__
from dynalint.output import progress, rule_table
from dynalint.output.reporters import REPORTERS, Run
from dynalint.output.reporters.text import summary
from dynalint.project.config import Config, ConfigError, Overrides, load

if TYPE_CHECKING:
    from dynalint.pipeline import LintResult, Pipeline

# What a command needs is imported when it runs: ``--version`` and ``--help`` import no stage, and a
# run with no compiled code never imports LibCST or the rules (issue 11, start-up).
STDIN = "-"  # ``pipeline.STDIN``

EXIT_CLEAN, EXIT_FINDINGS, EXIT_ERROR = 0, 1, 2
EXIT_INTERRUPTED = 130  # 128 + SIGINT, what a shell reports for a Ctrl-C


class _DefaultToCheck(click.Group):
    """A group whose first argument, when it is not a subcommand, starts ``check``."""

    def parse_args(self, ctx: click.Context, args: list[str]) -> list[str]:
        if args and args[0] in self.commands and args[0] != "check" and _holds_python(args[0]):
            # The subcommand wins, as it always has; a folder of that name with code in it is one word away.
            click.echo(f"dynalint: hint: `{args[0]}` is a subcommand; to lint the folder use "
                       f"`dynalint check {args[0]}`", err=True)
        if not args or (args[0] not in self.commands and args[0] not in ("--help", "-h", "--version")):
            args = ["check", *args]
        return super().parse_args(ctx, args)

    def invoke(self, ctx: click.Context) -> object:
        # A crash of dynalint itself is exit 2 with a report, never 1, which means "findings".
        try:
            return super().invoke(ctx)
        except (click.exceptions.Exit, click.ClickException, click.Abort, SystemExit, KeyboardInterrupt):
            raise
        except Exception:  # noqa: BLE001 - anything else is a bug of ours
            click.echo(f"dynalint {__version__}: internal error, please report it:\n" + traceback.format_exc(), err=True)
            sys.exit(EXIT_ERROR)


def _holds_python(path: str) -> bool:
    from dynalint.project import files

    return files.holds_python(Path(path))


def _codes(values: tuple[str, ...]) -> tuple[str, ...] | None:
    """``--select A,B --select C`` -> ``("A", "B", "C")``; ``None`` when the flag was not given."""
    if not values:
        return None
    return tuple(code.strip().upper() for value in values for code in value.split(",") if code.strip())


@click.group(cls=_DefaultToCheck, context_settings={"help_option_names": ["-h", "--help"], "max_content_width": 100})
@click.version_option(__version__, prog_name="dynalint")
def main() -> None:
    """Find torch.compile graph breaks before running the code.

    `dynalint PATH...` is short for `dynalint check PATH...` (default: the current folder).
    Common options of check: --output-format FORMAT, --select/--ignore CODES, --add-noqa,
    --baseline FILE, --verify, -q. `dynalint check --help` lists them all.
    """


@main.command(short_help="Lint files and folders (the default command).")
@click.argument("paths", nargs=-1, type=click.Path())
@click.option("--output-format", type=click.Choice(list(REPORTERS)), default="text", show_default=True)
@click.option("--min-confidence", type=click.Choice([c.value for c in reversed(Confidence)]),
              help="Drop findings less sure than this (default: config, else likely: keep all).")
@click.option("--select", multiple=True, help="Codes, prefixes or ALL to enable (replaces the default set).")
@click.option("--extend-select", multiple=True, help="Codes or prefixes to enable on top of the selection.")
@click.option("--ignore", multiple=True, help="Codes or prefixes to disable.")
@click.option("--target-torch", metavar="VERSION",
              help="The torch the findings are for (default: config, else the installed torch, the project's pin, "
                   "the newest measured release).")
@click.option("--config", "config_file", type=click.Path(dir_okay=False, path_type=Path), help="Config file to use.")
@click.option("--exit-zero", is_flag=True, help="Exit 0 even when there are findings.")
@click.option("--force-exclude", is_flag=True, help="Apply exclusions to paths given explicitly too.")
@click.option("--stdin-filename", help="Name of the file read from `-` (for messages and per-file ignores).")
@click.option("-q", "--quiet", is_flag=True, help="Print findings only, no summary.")
@click.option("-v", "--verbose", is_flag=True,
              help="With --verify: every census line (functions a factory covered too) and errors in full.")
@click.option("--jobs", "-j", type=click.IntRange(min=1), default=None,
              help="Worker processes for big runs (default: the CPUs this process may use).")
@click.option("--no-cache", is_flag=True, help="Neither read nor write the cache (.dynalint_cache in the project root).")
@click.option("--verify", is_flag=True, help="Compile flagged code for real and give each finding a verdict.")
@click.option("--verify-backend", type=click.Choice(["eager", "aot_eager", "inductor"]), default="eager",
              show_default=True, help="Backend for --verify (breaks are decided before any backend runs).")
@click.option("--device", type=click.Choice(["auto", "cpu", "cuda"]), default="auto", show_default=True,
              help="Where --verify runs the code (auto: cuda when available).")
@click.option("--verify-timeout", type=float, callback=lambda ctx, param, value: _positive_seconds(value),
              help="Seconds per verified function (default: config, else 120).")
@click.option("--census-out", type=click.Path(dir_okay=False, path_type=Path),
              help="With --verify: write the per-function break census as JSON.")
@click.option("--baseline", type=click.Path(exists=True, dir_okay=False, path_type=Path),
              help="Report only findings this baseline does not hold (with --verify: a break census to gate on).")
@click.option("--add-noqa", is_flag=True, help="Write `# noqa: CODE` on every line with findings (edits files), and exit 0.")
@click.option("--write-baseline", type=click.Path(dir_okay=False, path_type=Path),
              help="Record this run's findings as the baseline, and exit 0.")
@click.option("--fix", is_flag=True, help="Apply the safe fixes (edits files); the exit code counts what remains.")
@click.option("--unsafe-fixes", is_flag=True, help="With --fix or --diff: apply the unsafe fixes too.")
@click.option("--diff", is_flag=True, help="Print the fixes as a unified diff and write nothing; exit 1 if any.")
@click.option("--show-fixes", is_flag=True, help="With --fix: list each fix applied.")
def check(
    paths: tuple[str, ...],
    output_format: str,
    min_confidence: str | None,
    select: tuple[str, ...],
    extend_select: tuple[str, ...],
    ignore: tuple[str, ...],
    target_torch: str | None,
    config_file: Path | None,
    exit_zero: bool,
    force_exclude: bool,
    stdin_filename: str | None,
    quiet: bool,
    verbose: bool,
    jobs: int | None,
    no_cache: bool,
    verify: bool,
    verify_backend: str,
    device: str,
    verify_timeout: float | None,
    census_out: Path | None,
    baseline: Path | None,
    write_baseline: Path | None,
    add_noqa: bool,
    fix: bool,
    unsafe_fixes: bool,
    diff: bool,
    show_fixes: bool,
) -> None:
    """Lint PATHS (files or folders; `-` reads standard input; default `.`)."""
    from dynalint.lint import parallel
    from dynalint.pipeline import Options, Pipeline
    from dynalint.project import files
    from dynalint.project.config_tree import ConfigTree

    paths = paths or ((STDIN,) if stdin_filename else (".",))  # a name for stdin means stdin
    conflict = _conflict(add_noqa=add_noqa, write_baseline=write_baseline is not None, baseline=baseline is not None,
                         verify=verify, stdin=STDIN in paths, fix=fix, diff=diff)
    if conflict:
        click.echo(f"dynalint: error: {conflict}", err=True)
        sys.exit(EXIT_ERROR)
    try:
        start = Path(stdin_filename) if stdin_filename and paths == (STDIN,) else Path.cwd()
        config = load(config_file, start if start.exists() else Path.cwd())
        overrides = Overrides(
            select=_codes(select), extend_select=_codes(extend_select), ignore=_codes(ignore),
            min_confidence=Confidence(min_confidence) if min_confidence else None, target_torch=target_torch,
        )
        config = config.with_overrides(**overrides)
    except ConfigError as error:
        click.echo(f"dynalint: error: {error}", err=True)
        sys.exit(EXIT_ERROR)
    # lexists: a symlink loop or a dangling link is there, and gets its own diagnostic (DYN902).
    missing = [p for p in paths if p != STDIN and not os.path.lexists(p)]
    if missing:
        click.echo(f"dynalint: error: no such file or directory: {missing[0]}", err=True)
        sys.exit(EXIT_ERROR)
    stdin_text = sys.stdin.buffer.read() if STDIN in paths else None
    gc.disable()  # for the rest of this process: see Pipeline.run (the exit frees everything at once)
    # --verify observes installed code named on the command line like the project's; with factories,
    # it lints such code only where the factories ran (``verify.verify`` calls ``Pipeline.relint``).
    libraries = files.third_party(paths, config.root) if verify else ()
    deferred = libraries if config.verify_factories else ()
    static_paths = [p for p in paths if p == STDIN or os.path.realpath(p) not in deferred]
    bar = progress.Progress(sys.stderr) if progress.wants_progress(sys.stderr, os.environ) and not quiet else None
    pipeline = Pipeline(
        ConfigTree(config, overrides, fixed=config_file is not None),
        Options(force_exclude=force_exclude, stdin_text=stdin_text, stdin_filename=stdin_filename,
                use_cache=not no_cache, jobs=jobs or parallel.default_jobs(), program_needed=verify),
        progress=bar.update if bar is not None else None,
    )

    try:
        result = pipeline.run(static_paths)
        config = pipeline.groups[0]
    except ConfigError as error:  # a sub-project's own config, read when the walk reached it
        click.echo(f"dynalint: error: {error}", err=True)
        sys.exit(EXIT_ERROR)
    except KeyboardInterrupt:
        click.echo("dynalint: interrupted", err=True)
        sys.exit(EXIT_INTERRUPTED)
    except Exception:  # an engine bug outside every per-file guard: say so plainly and exit 2, never 0
        click.echo(f"dynalint {__version__}: internal error, please report it:\n" + traceback.format_exc(), err=True)
        sys.exit(EXIT_ERROR)
    finally:
        if bar is not None:
            bar.close()
    if census_out and not verify:
        click.echo("dynalint: error: --census-out needs --verify", err=True)
        sys.exit(EXIT_ERROR)
    if verify and len(pipeline.groups) > 1:
        sources = ", ".join(str(c.source or "defaults") for c in pipeline.groups)
        click.echo(f"dynalint: error: --verify checks one project at a time; these files use "
                   f"{len(pipeline.groups)} configs ({sources}): run it in each project", err=True)
        sys.exit(EXIT_ERROR)
    if not quiet:
        for warning in result.warnings:
            click.echo(f"dynalint: warning: {warning}", err=True)
    if add_noqa:
        from dynalint.output import add_noqa as noqa_writer

        added = noqa_writer.add_noqa(result.findings)
        for line in added.left:
            click.echo(f"dynalint: not annotated: {line}", err=True)
        if not quiet:
            click.echo(f"Added {_count(added.directives, 'noqa directive')} to {_count(added.files, 'file')}", err=True)
        sys.exit(EXIT_CLEAN)
    if write_baseline is not None:
        from dynalint.output import baseline as findings_baseline

        written = findings_baseline.write(result.findings, write_baseline)
        if not quiet:
            click.echo(f"Wrote {_count(written, 'finding')} to the baseline {write_baseline}", err=True)
        sys.exit(EXIT_CLEAN)
    if baseline is not None and not verify:
        result.findings = _without_baseline(result.findings, baseline, quiet)
        baseline = None  # the findings left are the new ones: they decide the exit code as usual
    if fix and verify:
        result = _proven_fix(pipeline, static_paths, result, config, unsafe_fixes, verify_backend, device,
                             verify_timeout, census_out, quiet)
        verify = False  # done: the fixes were verified, and the census written, by the proof
    elif fix or diff:
        result = _fix(pipeline, static_paths, result, config, unsafe_fixes, diff, show_fixes, quiet)
    gate_failed = False
    verify_failures: list[str] = []
    if verify:
        relinter = pipeline if deferred else None
        result, gate_failed, verify_failures = _verify(
            result, config, libraries, relinter, verify_backend, device, verify_timeout, census_out, baseline, quiet,
            verbose,
        )
    if verify_failures:  # a factory that failed verifies nothing: CI must not pass on it
        status = EXIT_ERROR
    elif gate_failed:
        status = EXIT_FINDINGS
    elif baseline is not None:  # the census gate decides: findings alone do not fail a baseline run
        status = EXIT_CLEAN
    else:
        status = EXIT_FINDINGS if result.findings and not exit_zero else EXIT_CLEAN
    REPORTERS[output_format](result.findings, sys.stdout, Run(
        status, result.files_checked, color=progress.wants_color(sys.stdout, os.environ)))
    if not quiet:
        click.echo(summary(result.findings, result.files_checked, result.skipped,
                           color=progress.wants_color(sys.stderr, os.environ)), err=True, color=True)
    for failure in verify_failures:
        click.echo(f"dynalint: error: {failure}", err=True)
    sys.exit(status)


# Pairs of options that cannot both hold, and why: refused with exit 2 rather than one silently winning.
_CONFLICTS = (
    ("add_noqa", "write_baseline", "--add-noqa and --write-baseline", "each is a run of its own that edits or writes files"),
    ("write_baseline", "baseline", "--write-baseline and --baseline", "a new baseline records every finding, the old one "
                                                                      "would hide some"),
    ("add_noqa", "baseline", "--add-noqa and --baseline", "--add-noqa annotates every finding, the baseline would hide some"),
    ("add_noqa", "verify", "--add-noqa and --verify", "--add-noqa writes the static findings and stops before verifying"),
    ("write_baseline", "verify", "--write-baseline and --verify", "a static baseline records static findings; with "
                                                                   "--verify, --baseline takes a break census instead"),
    ("add_noqa", "stdin", "--add-noqa and `-`", "standard input is no file to write the comments into"),
    ("fix", "diff", "--fix and --diff", "--diff shows the fixes and writes nothing, --fix writes them"),
    ("fix", "add_noqa", "--fix and --add-noqa", "each edits the files; fix first, then annotate what remains"),
    ("diff", "add_noqa", "--diff and --add-noqa", "--diff writes nothing, --add-noqa edits the files"),
    ("fix", "write_baseline", "--fix and --write-baseline", "fix first, then record what remains"),
    ("diff", "write_baseline", "--diff and --write-baseline", "--diff writes nothing"),
    ("diff", "verify", "--diff and --verify", "--verify proves fixes it applies: use --fix --verify"),
    ("fix", "stdin", "--fix and `-`", "standard input is no file to write (the language server fixes buffers)"),
    ("diff", "stdin", "--diff and `-`", "not supported yet for standard input (the language server fixes buffers)"),
)


def _conflict(**given: bool) -> str | None:
    """The first pair of options given together that cannot both hold, said in one line."""
    for first, second, options, why in _CONFLICTS:
        if given[first] and given[second]:
            return f"{options} cannot be used together: {why}"
    return None


def _count(number: int, noun: str) -> str:
    return f"{number} {noun}{'' if number == 1 else 'es' if noun.endswith(('x', 's')) else 's'}"


def _fix(pipeline: Pipeline, paths: Sequence[str], result: LintResult, config: Config, unsafe: bool, diff: bool,
         show: bool, quiet: bool) -> LintResult:
    """``--fix`` / ``--diff``: the fix loop; write the files (``--fix``) or print the diff and exit."""
    from dynalint.output import fix_edits
    from dynalint.pipeline import fixing

    outcome = fixing.fix(pipeline, paths, result, config, unsafe)
    for finding, why in outcome.dropped:
        click.echo(f"dynalint: fix not applied: {finding.filename}:{finding.start.line}:{finding.start.column}: "
                   f"{finding.code}: {why}", err=True)
    fixed = len(outcome.applied)
    if diff:
        for file in outcome.changed:
            click.echo(fix_edits.unified_diff(file.display, file.before, file.after), nl=False)
        if not quiet:
            click.echo(f"Would fix {_count(fixed, 'finding')} in {_count(len(outcome.changed), 'file')}", err=True)
        sys.exit(EXIT_FINDINGS if outcome.changed else EXIT_CLEAN)
    fixing.write(outcome.changed)
    if show:
        for finding in outcome.applied:
            assert finding.fix is not None
            click.echo(f"fixed {finding.filename}:{finding.start.line}:{finding.start.column}: {finding.code} "
                       f"{finding.fix.message}", err=True)
    if not quiet:
        click.echo(f"Fixed {_count(fixed, 'finding')} in {_count(len(outcome.changed), 'file')}", err=True)
    return outcome.result


def _proven_fix(pipeline: Pipeline, paths: Sequence[str], result: LintResult, config: Config, unsafe: bool,
                backend: str, device: str, timeout: float | None, census_out: Path | None, quiet: bool) -> LintResult:
    """``--fix --verify``: keep each function's fixes only where the factories show fewer breaks and the
    same outputs; write the files with those; print breaks before -> after per function and in total."""
    import importlib.util

    from dynalint.pipeline import fixing, proven_fixes

    if not config.verify_factories:
        click.echo("dynalint: error: --fix --verify needs factories ([tool.dynalint.verify] factories): it proves "
                   "each fix by running them before and after", err=True)
        sys.exit(EXIT_ERROR)
    if importlib.util.find_spec("torch") is None:
        click.echo("dynalint: error: --verify needs torch: pip install 'dynalint[verify]'", err=True)
        sys.exit(EXIT_ERROR)
    try:
        outcome, proof = proven_fixes.prove(pipeline, paths, result, config, unsafe, backend=backend, device=device,
                                            timeout=config.verify_timeout if timeout is None else timeout)
    except KeyboardInterrupt:
        click.echo("dynalint: interrupted; --verify stopped its workers", err=True)
        sys.exit(EXIT_INTERRUPTED)
    if proof.failures:
        for failure in proof.failures:
            click.echo(f"dynalint: error: {failure}; no fix was applied", err=True)
        sys.exit(EXIT_ERROR)
    fixing.write(outcome.changed)
    if census_out is not None:
        census_out.write_text(json.dumps(proof.census, indent=2) + "\n", encoding="utf-8")
    if not quiet:
        width = max((len(v.function) for v in proof.verdicts), default=8)
        click.echo(f"{'function':<{width}}  breaks  fixes  verdict", err=True)
        for verdict in proof.verdicts:
            after = "?" if verdict.after is None else str(verdict.after)
            codes = ",".join(sorted({f.code for f in verdict.fixes}))
            shown = "kept" if verdict.kept else f"reverted: {verdict.reason}"
            click.echo(f"{verdict.function:<{width}}  {verdict.before} -> {after}  {codes}  {shown}", err=True)
        kept = sum(len(v.fixes) for v in proof.verdicts if v.kept)
        click.echo(f"breaks under the factories: {proof.breaks_before} -> {proof.breaks_after}; kept {_count(kept, 'fix')} "
                   f"in {_count(len(outcome.changed), 'file')}, reverted "
                   f"{_count(sum(len(v.fixes) for v in proof.verdicts if not v.kept), 'fix')}", err=True)
    return outcome.result


def _without_baseline(findings: list, path: Path, quiet: bool) -> list:
    """The findings a static baseline does not hold; says how many it held and how many are gone."""
    from dynalint.output import baseline as findings_baseline

    try:
        outcome = findings_baseline.apply(findings, findings_baseline.load(path))
    except findings_baseline.BaselineError as error:
        click.echo(f"dynalint: error: {error}", err=True)
        sys.exit(EXIT_ERROR)
    if not quiet:
        click.echo(f"baseline {path}: {outcome.known} known findings not shown, {len(outcome.new)} new, "
                   f"{outcome.gone} recorded ones gone", err=True)
    return outcome.new


def _positive_seconds(value: float | None) -> float | None:
    """``--verify-timeout``: ``nan`` and ``inf`` never expire, ``0`` and less would expire at once."""
    if value is not None and not 0 < value < float("inf"):
        raise click.BadParameter(f"must be a positive, finite number of seconds, got {value:g}")
    return value


def _verify(
    result: LintResult,
    config: Config,
    libraries: Sequence[str],
    relinter: Pipeline | None,
    backend: str,
    device: str,
    timeout: float | None,
    census_out: Path | None,
    baseline: Path | None,
    quiet: bool,
    verbose: bool = False,
) -> tuple[LintResult, bool, list[str]]:
    """Run ``--verify``; return the lint result with judged findings, whether the census gate failed, and
    what failed the run (a declared factory that did not run its model; factories that ran nothing)."""
    from dynalint import verify as verifier
    from dynalint.verify import census as census_module

    try:
        outcome = verifier.verify(
            verifier.Static(result.findings, result.program, result.entries), root=config.root,
            factories=config.verify_factories, libraries=libraries, relinter=relinter, backend=backend,
            device=device, timeout=config.verify_timeout if timeout is None else timeout,
            memory_gb=config.verify_memory_gb, pythonpath=config.verify_pythonpath,
        )
    except (verifier.TorchMissing, verifier.WorkerError) as error:
        click.echo(f"dynalint: error: {error}", err=True)
        sys.exit(EXIT_ERROR)
    # Caught here, or click would print "Aborted!" and exit 1, the code for findings. The workers
    # and everything user code started in them are already killed when these arrive.
    except KeyboardInterrupt:
        click.echo("dynalint: interrupted; --verify stopped its workers", err=True)
        sys.exit(EXIT_INTERRUPTED)
    except verifier.Terminated as error:
        click.echo(f"dynalint: error: {error}; --verify stopped its workers", err=True)
        sys.exit(EXIT_ERROR)
    if census_out is not None:
        census_out.write_text(json.dumps(outcome.census, indent=2) + "\n", encoding="utf-8")
    ran = any(entry["status"] != "unverifiable" or entry.get("seconds") for entry in outcome.census["functions"].values())
    if not quiet:
        for line in census_module.describe(outcome.census, verbose):
            click.echo(line, err=True)
        if ran:
            click.echo(f"verified on {outcome.device}", err=True)
    if outcome.relinted is not None:  # the installed files the factories reached were linted too
        result = outcome.relinted
    from dynalint.pipeline import unpredicted

    # In line order per file, DYN090 among the others.
    result.findings = sorted(unpredicted.explain(outcome.findings, config), key=lambda f: f.sort_key)
    entry = f"[tool.dynalint.verify] factories in {config.source}" if config.source else "the declared factories"
    failures = [f"{failure} ({entry})" for failure in outcome.failed_factories]
    if outcome.ran_nothing:
        failures.append(f"--verify ran nothing: no declared factory ran its model ({entry})")
    elif (outcome.relinted or result).files_checked == 0:
        failures.append("--verify checked no file: nothing was linted, so nothing was verified")
    elif not outcome.census["functions"]:
        failures.append("--verify verified nothing: no compile site in the linted files (no `torch.compile` reaches "
                        "them) and no factory declared in [tool.dynalint.verify]")
    if baseline is None:
        return result, False, failures
    try:
        comparison = census_module.compare(outcome.census, census_module.load(baseline))
    except ValueError as error:
        click.echo(f"dynalint: error: {error}", err=True)
        sys.exit(EXIT_ERROR)
    for line in census_module.report(comparison):
        click.echo(line, err=True)
    return result, comparison.failed, failures


@main.command(short_help="Remove the project's cache folder.")
@click.option("--config", "config_file", type=click.Path(dir_okay=False, path_type=Path), help="Config file to use.")
def clean(config_file: Path | None) -> None:
    """Remove the cache folder of the project (`cache-dir`, else .dynalint_cache in its root)."""
    from dynalint.incremental import cache

    try:
        folder = load(config_file, Path.cwd()).cache_folder
    except ConfigError as error:
        click.echo(f"dynalint: error: {error}", err=True)
        sys.exit(EXIT_ERROR)
    if cache.clean(folder):
        click.echo(f"Removed {folder}", err=True)
    else:
        click.echo(f"No cache at {folder}", err=True)


@main.command()
@click.argument("code_or_name")
def rule(code_or_name: str) -> None:
    """Print the page of a rule, by code (DYN101) or name (tensor-item)."""
    from dynalint import checks
    from dynalint.lint import rule_pages
    from dynalint.model.diagnostics import ALL_DIAGNOSTICS

    found = checks.lookup(code_or_name)
    diagnostic = next((d for d in ALL_DIAGNOSTICS if code_or_name.upper() == d.code or code_or_name == d.name), None)
    if found is None and diagnostic is None:
        click.echo(f"dynalint: error: no rule named {code_or_name!r} (see `dynalint rules`)", err=True)
        sys.exit(EXIT_ERROR)
    if diagnostic is not None:
        click.echo(f"# {diagnostic.code} `{diagnostic.name}`: {diagnostic.summary}\n\n{diagnostic.help}.")
        return
    assert found is not None
    page = rule_pages.load_pages().get(found.code)
    if page is None:  # an install without the pages: the rule's own metadata still says the essentials
        click.echo(
            f"# {found.code} `{found.name}`\n\n{rule_table.template_free(found.message)}\n\n"
            f"help: {found.help}\nGB ids: {', '.join(found.gb_ids)}"
        )
        return
    from dynalint.output.release_table import release_table

    click.echo(page.text.rstrip() + "\n\n" + release_table(found.code))


@main.command(short_help="Run the language server on stdin/stdout.")
@click.option("--jobs", "-j", type=click.IntRange(min=1), default=None,
              help="Worker processes for big runs (default: the CPUs this process may use).")
def server(jobs: int | None) -> None:
    """Run the language server on standard input and output (needs `pip install 'dynalint[server]'`)."""
    try:
        from dynalint.editor import server as language_server
    except ImportError as error:
        if (error.name or "").partition(".")[0] not in ("pygls", "lsprotocol"):
            raise
        click.echo("dynalint: error: the language server needs pygls 2: pip install 'dynalint[server]'", err=True)
        sys.exit(EXIT_ERROR)
    language_server.serve(jobs)


@main.command(name="rules", short_help="List the rules (--coverage: every GB id).")
@click.option("--output-format", type=click.Choice(sorted(rule_table.RENDERERS)), default="text", show_default=True)
@click.option("--coverage", is_flag=True, help="Show the coverage map of torch's graph-break registry instead.")
def list_rules(output_format: str, coverage: bool) -> None:
    """List every rule: code, name, GB ids, summary (markdown: the table the README points to)."""
    from dynalint.checks import ALL_RULES

    if coverage:
        _print_coverage(output_format)
        return
    click.echo(rule_table.RENDERERS[output_format](rule_table.rows(ALL_RULES)))


def _print_coverage(output_format: str) -> None:
    """``dynalint rules --coverage``: every GB id of the registry and what dynalint does about it."""
    from dynalint.checks import ALL_RULES
    from dynalint.output import gb_coverage

    try:
        data = gb_coverage.load_data()
    except FileNotFoundError as error:
        click.echo(f"dynalint: error: {error}", err=True)
        sys.exit(EXIT_ERROR)
    click.echo(gb_coverage.RENDERERS[output_format](gb_coverage.build(data, ALL_RULES), data.reasons).rstrip("\n"))
