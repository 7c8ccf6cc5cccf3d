"""Ground-truth bench, kornia_moons: a placeholder, to be replaced by its builder."""

from __future__ import annotations


def names() -> list[str]:
    return []


def build(name: str):
    raise KeyError(name)
