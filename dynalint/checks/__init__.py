"""The rule catalogue in code: one module per rule, listed in code order in ``ALL_RULES``.

Adding a rule touches three files: its module here, one line below, and its page in ``rules/``.
"""

from __future__ import annotations

from dynalint.checks.async_collective import AsyncCollective
from dynalint.checks.autograd_call import AutogradCall
from dynalint.checks.baked_runtime_value import BakedRuntimeValue
from dynalint.checks.breaking_collective import BreakingCollective
from dynalint.checks.class_statement import ClassStatement
from dynalint.checks.comprehension_resume import ComprehensionResume
from dynalint.checks.copy_call import CopyCall
from dynalint.checks.data_dependent_branch import DataDependentBranch
from dynalint.checks.data_dependent_size import DataDependentSize
from dynalint.checks.data_ptr_comparison import DataPtrComparison
from dynalint.checks.disabled_call import DisabledCall
from dynalint.checks.disabled_collective import DisabledCollective
from dynalint.checks.dynamic_output_shape import DynamicOutputShape
from dynalint.checks.explicit_graph_break import ExplicitGraphBreak
from dynalint.checks.global_mutation import GlobalMutation
from dynalint.checks.io_call import IoCall
from dynalint.checks.logging_call import LoggingCall
from dynalint.checks.numpy_call import NumpyCall
from dynalint.checks.parameter_construction import ParameterConstruction
from dynalint.checks.print_call import PrintCall
from dynalint.checks.python_scalar_recompile import PythonScalarRecompile
from dynalint.checks.random_call import RandomCall
from dynalint.checks.rank_divergent_break import RankDivergentBreak
from dynalint.checks.recurrent_module_call import RecurrentModuleCall
from dynalint.checks.skipped_torch_function import SkippedTorchFunction
from dynalint.checks.sparse_tensor import SparseTensor
from dynalint.checks.tensor_as_int import TensorAsInt
from dynalint.checks.tensor_attribute_write import TensorAttributeWrite
from dynalint.checks.tensor_bounded_slice import TensorBoundedSlice
from dynalint.checks.tensor_item import TensorItem
from dynalint.checks.tensor_sort_key import TensorSortKey
from dynalint.checks.tensor_to_scalar import TensorToScalar
from dynalint.checks.threading_lock import ThreadingLock
from dynalint.checks.torch_assert import TorchAssert
from dynalint.checks.tqdm_call import TqdmCall
from dynalint.checks.untraceable_context_manager import UntraceableContextManager
from dynalint.checks.wall_clock_call import WallClockCall
from dynalint.checks.warnings_call import WarningsCall
from dynalint.rule import Rule

ALL_RULES: tuple[type[Rule], ...] = (
    ExplicitGraphBreak,
    DisabledCall,
    SkippedTorchFunction,
    TensorItem,
    DataDependentBranch,
    TensorBoundedSlice,
    TensorToScalar,
    DynamicOutputShape,
    TensorSortKey,
    DataPtrComparison,
    TorchAssert,
    DataDependentSize,
    TensorAsInt,
    ComprehensionResume,
    PrintCall,
    LoggingCall,
    WarningsCall,
    WallClockCall,
    RandomCall,
    IoCall,
    CopyCall,
    ThreadingLock,
    TqdmCall,
    NumpyCall,
    UntraceableContextManager,
    DisabledCollective,
    AsyncCollective,
    BreakingCollective,
    RankDivergentBreak,
    BakedRuntimeValue,
    PythonScalarRecompile,
    GlobalMutation,
    AutogradCall,
    TensorAttributeWrite,
    ParameterConstruction,
    ClassStatement,
    RecurrentModuleCall,
    SparseTensor,
)
