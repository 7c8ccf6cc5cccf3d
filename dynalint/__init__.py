"""dynalint: find TorchDynamo graph breaks before running the code.

The package's public surface is small: :func:`lint_source` and :func:`lint_paths` (in ``api``),
the value types in ``finding`` and the :class:`Rule` base class for writing checks.
"""

from __future__ import annotations

__version__ = "0.1.0"

__all__ = ["__version__"]
