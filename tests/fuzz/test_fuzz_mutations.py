"""Short seeded mutation fuzz over fixtures/**/*.py, in the normal test suite.

Each mutant is one fixture with one to three operators applied (truncation, deleted / duplicated /
swapped lines, deep nesting near CPython's limits, long lines, odd Unicode and line breaks, form
feeds in indentation, backslash continuations, NUL and invalid UTF-8 bytes, coding cookies, ...; see
``fuzzing.MUTATORS``), reproducible from its seed and index alone. The run is small and capped in
size (``quick``) so that it costs seconds; ``bench/fuzz.py`` is the long run with the same generators.
A failure lists every crash kind with its smallest input.
"""

from __future__ import annotations

from pathlib import Path

import fuzzing

SEED = 20_240_611
MUTANTS = 7 * len(fuzzing.MUTATORS)  # 7 rounds: each mutant's first operator cycles through all of them
# Mutants whose first operator is one of these also go through the real command (a subprocess each).
CLI_OPERATORS = ("deep_expression", "odd_character", "long_line", "invalid_utf8")


def test_fixture_mutants_do_not_crash_the_pipeline(tmp_path: Path) -> None:
    crashes = []
    for index in range(MUTANTS):
        mutant = fuzzing.mutant(SEED, index, quick=True)
        found = fuzzing.check(mutant.data, tmp_path, source=index % 2 == 0)
        crashes += [(f"mutant {SEED}:{index} {mutant.name}", mutant.data, crash) for crash in found]
    assert not crashes, fuzzing.describe(crashes)


def test_fixture_mutants_do_not_crash_the_command_line(tmp_path: Path) -> None:
    crashes = []
    for index in (fuzzing.MUTATORS.index(name) for name in CLI_OPERATORS):
        mutant = fuzzing.mutant(SEED, index, quick=True)
        found = fuzzing.check_cli(mutant.data, tmp_path)
        crashes += [(f"mutant {SEED}:{index} {mutant.name}", mutant.data, crash) for crash in found]
    assert not crashes, fuzzing.describe(crashes)
