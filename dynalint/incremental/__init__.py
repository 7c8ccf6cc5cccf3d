"""what lets a run skip work: the on-disk cache, the digests that key it, and the snapshot
that answers a run over unchanged files without summarizing or linting anything.
"""
