"""The rule catalogue in code: one module per rule, listed in code order in ``ALL_RULES``.

Adding a rule touches three files: its module here, one line below, and its page in ``rules/``.
"""

from __future__ import annotations

from dynalint.checks.data_dependent_branch import DataDependentBranch
from dynalint.checks.disabled_collective import DisabledCollective
from dynalint.checks.logging_call import LoggingCall
from dynalint.checks.print_call import PrintCall
from dynalint.checks.tensor_bounded_slice import TensorBoundedSlice
from dynalint.checks.tensor_item import TensorItem
from dynalint.rule import Rule

ALL_RULES: tuple[type[Rule], ...] = (
    TensorItem,
    DataDependentBranch,
    TensorBoundedSlice,
    PrintCall,
    LoggingCall,
    DisabledCollective,
)
