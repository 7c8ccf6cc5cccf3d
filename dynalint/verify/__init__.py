"""Verify stage: the only package that imports torch, and only lazily inside functions."""
