"""DYN004 ``skipped-library-call``: a call of a standard-library or third-party function that Dynamo
cannot trace. Page: ``rules/DYN004-skipped-library-call.md``.

Config hashing (``zlib.crc32``), serialization (``pickle.dumps``, ``json.dumps``), introspection
(``inspect.stack``, ``sys._getframe``) and process queries (``os.getpid``) are C functions or modules
that torch's trace rules skip, or Python whose inside Dynamo cannot follow. The table is data, measured
call by call on the installed torch by ``bench/skiplist/derive.py`` and kept in
``analysis/skipped_library_calls``; calls that other rules explain (the clock, randomness, copying,
files) are left to them. Names are resolved through the imports, so ``from zlib import crc32`` counts.
"""

from __future__ import annotations

import libcst as cst

from dynalint.analysis.skipped_library_calls import MEASURED_ON, SKIPPED_LIBRARY_CALLS
from dynalint.lint.rule import Rule


class SkippedLibraryCall(Rule):
    code = "DYN004"
    name = "skipped-library-call"
    message = "`{call}` cannot be traced by torch.compile ({gb} on torch {measured}): calling it in compiled code breaks the graph"
    help = "Compute it once outside the compiled code (in `__init__`, or before the call) and pass the result in"
    gb_ids = tuple(sorted({gb_id for gb_id, _ in SKIPPED_LIBRARY_CALLS.values()}))

    def visit_Call(self, node: cst.Call) -> None:
        resolved = self.context.resolve(node.func)
        if resolved is not None and resolved in SKIPPED_LIBRARY_CALLS:
            gb_id, _ = SKIPPED_LIBRARY_CALLS[resolved]
            self.report(node, call=f"{resolved}()", gb=gb_id, measured=MEASURED_ON)
