"""dynalint's own version: the one place it is written (the build reads it, the cache signs with it,
reports name it). A leaf of the model wing, so that every stage may read it without importing upward.
"""

from __future__ import annotations

__version__ = "0.1.0"
