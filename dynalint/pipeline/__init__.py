"""The pipeline: discover → summarize → link → lint → suppress / select, for the front ends above it.

``Pipeline`` (``run.py``) is the one object a run needs: the config of every folder, the run's options,
the cache stores, and the stages in the order they run. The CLI, the language server, the census
plugin and the public ``api`` all build one; ``--verify`` is handed the same object to lint what the
factories reached (``Pipeline.relint``).
"""

from __future__ import annotations

from dynalint.pipeline.result import STDIN, LintResult
from dynalint.pipeline.run import Options, Pipeline

__all__ = ["STDIN", "LintResult", "Options", "Pipeline"]
