"""Ground-truth bench, rtdl_num_embeddings: a placeholder, to be replaced by its builder."""

from __future__ import annotations


def names() -> list[str]:
    return []


def build(name: str):
    raise KeyError(name)
