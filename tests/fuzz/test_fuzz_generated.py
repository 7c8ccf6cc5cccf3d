"""Short derandomized hypothesmith fuzz, in the normal test suite.

hypothesmith writes Python that CPython compiles (from the grammar, and from LibCST node trees);
each program is linted three ways: as is, as the body of an ``@torch.compile`` function and as the
body of an ``nn.Module.forward`` (``fuzzing.wrap``), so that the LibCST rules really walk it. The
programs are judged by the oracle in ``fuzzing.py``; a failure lists every crash kind with its
smallest program. Generation is the cost here (about 0.1 s a grammar program, 0.5 s a node tree),
so the counts are small; ``bench/fuzz.py`` runs tens of thousands.
"""

from __future__ import annotations

from pathlib import Path

import fuzzing
import pytest

EXAMPLES = {"grammar": 70, "node": 8}


@pytest.mark.parametrize("strategy", sorted(EXAMPLES))
def test_generated_programs_do_not_crash_the_pipeline(strategy: str, tmp_path: Path) -> None:
    crashes = []
    programs = 0

    def judge(code: str) -> None:
        nonlocal programs
        for variant, program in fuzzing.wrap(code).items():
            data = program.encode("utf-8", "surrogatepass")
            found = fuzzing.check(data, tmp_path, source=True)
            crashes.extend((f"{strategy} #{programs} {variant}", data, crash) for crash in found)
            programs += 1

    fuzzing.for_each_generated(judge, EXAMPLES[strategy], grammar=strategy == "grammar")
    assert programs >= EXAMPLES[strategy], "hypothesmith generated fewer programs than asked"
    assert not crashes, fuzzing.describe(crashes)


def test_a_generated_program_through_the_command_line(tmp_path: Path) -> None:
    crashes = []

    def judge(code: str) -> None:
        for variant, program in fuzzing.wrap(code).items():
            data = program.encode("utf-8", "surrogatepass")
            crashes.extend((variant, data, crash) for crash in fuzzing.check_cli(data, tmp_path))

    fuzzing.for_each_generated(judge, 1)
    assert not crashes, fuzzing.describe(crashes)
