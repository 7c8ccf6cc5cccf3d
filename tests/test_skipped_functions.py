"""DYN003's list of skipped torch functions is torch's own: each entry is one Dynamo's trace rules skip.

Marked ``torch``: it imports the installed torch (2.13 in the test environment) and asks
``torch._dynamo.trace_rules.lookup`` about each function, the lookup Dynamo itself makes before it
decides to break with GB0007. That each skipped call really breaks is shown by DYN003's page examples
and the fixtures, compiled under Dynamo by their own tests.
"""

from __future__ import annotations

import importlib

import pytest

from dynalint.analysis.torch_facts import SKIPPED_FUNCTIONS


def _resolve(qualified: str) -> object:
    module_name, _, attribute = qualified.rpartition(".")
    while module_name:
        try:
            module = importlib.import_module(module_name)
            break
        except ImportError:
            module_name, _, outer = module_name.rpartition(".")
            attribute = f"{outer}.{attribute}"
    found: object = module
    for part in attribute.split("."):
        found = getattr(found, part)
    return found


@pytest.mark.torch
@pytest.mark.parametrize("qualified", sorted(SKIPPED_FUNCTIONS))
def test_each_listed_function_is_skipped_by_dynamo(qualified: str) -> None:
    from torch._dynamo import trace_rules
    from torch._dynamo.variables import SkipFunctionVariable

    assert trace_rules.lookup(_resolve(qualified)) is SkipFunctionVariable, qualified
