"""The rules: one module per rule, listed in code order in ``ALL_RULES``, and looked up by code or name.

Importing this package imports every rule (and LibCST): only the stages that run or describe rules do
(the engine's caller, reporters that need a rule's metadata, ``--verify``, the editor). Selecting rules
needs none of it: ``model/selection.py`` works on the generated ``model/rule_index.py``, which
``python -m dynalint.checks`` rewrites from ``ALL_RULES`` (a test says when it is stale).
"""

from __future__ import annotations

from collections.abc import Iterable

from dynalint.checks.async_collective import AsyncCollective
from dynalint.checks.autograd_call import AutogradCall
from dynalint.checks.baked_runtime_value import BakedRuntimeValue
from dynalint.checks.breaking_collective import BreakingCollective
from dynalint.checks.built_object_method import BuiltObjectMethod
from dynalint.checks.class_statement import ClassStatement
from dynalint.checks.classmethod_autograd_forward import ClassmethodAutogradForward
from dynalint.checks.comprehension_resume import ComprehensionResume
from dynalint.checks.copy_call import CopyCall
from dynalint.checks.data_dependent_branch import DataDependentBranch
from dynalint.checks.data_dependent_size import DataDependentSize
from dynalint.checks.data_loading_call import DataLoadingCall
from dynalint.checks.data_ptr_comparison import DataPtrComparison
from dynalint.checks.deprecated_overload import DeprecatedOverload
from dynalint.checks.disabled_call import DisabledCall
from dynalint.checks.disabled_collective import DisabledCollective
from dynalint.checks.eager_frame_comprehension import EagerFrameComprehension
from dynalint.checks.dynamic_output_shape import DynamicOutputShape
from dynalint.checks.explicit_graph_break import ExplicitGraphBreak
from dynalint.checks.generic_alias_call import GenericAliasCall
from dynalint.checks.global_mutation import GlobalMutation
from dynalint.checks.hook_registration import HookRegistration
from dynalint.checks.io_call import IoCall
from dynalint.checks.load_state_dict_call import LoadStateDictCall
from dynalint.checks.logging_call import LoggingCall
from dynalint.checks.module_construction import ModuleConstruction
from dynalint.checks.numpy_call import NumpyCall
from dynalint.checks.optimizer_call import OptimizerCall
from dynalint.checks.outside_iterator_next import OutsideIteratorNext
from dynalint.checks.parameter_construction import ParameterConstruction
from dynalint.checks.print_call import PrintCall
from dynalint.checks.python_scalar_recompile import PythonScalarRecompile
from dynalint.checks.random_call import RandomCall
from dynalint.checks.rank_divergent_break import RankDivergentBreak
from dynalint.checks.recurrent_module_call import RecurrentModuleCall
from dynalint.checks.skipped_library_call import SkippedLibraryCall
from dynalint.checks.skipped_torch_function import SkippedTorchFunction
from dynalint.checks.sparse_tensor import SparseTensor
from dynalint.checks.tensor_as_int import TensorAsInt
from dynalint.checks.tensor_attribute_write import TensorAttributeWrite
from dynalint.checks.tensor_bounded_slice import TensorBoundedSlice
from dynalint.checks.tensor_item import TensorItem
from dynalint.checks.tensor_sort_key import TensorSortKey
from dynalint.checks.tensor_subclass_construction import TensorSubclassConstruction
from dynalint.checks.tensor_subclass_unwrap import TensorSubclassUnwrap
from dynalint.checks.tensor_to_scalar import TensorToScalar
from dynalint.checks.tensorclass_positional import TensorclassPositional
from dynalint.checks.threading_lock import ThreadingLock
from dynalint.checks.torch_assert import TorchAssert
from dynalint.checks.typed_dict_construction import TypedDictConstruction
from dynalint.checks.tqdm_call import TqdmCall
from dynalint.checks.unrebuildable_return import UnrebuildableReturn
from dynalint.checks.untraceable_context_manager import UntraceableContextManager
from dynalint.checks.wall_clock_call import WallClockCall
from dynalint.checks.warnings_call import WarningsCall
from dynalint.lint.rule import Rule

ALL_RULES: tuple[type[Rule], ...] = (
    ExplicitGraphBreak,
    DisabledCall,
    SkippedTorchFunction,
    SkippedLibraryCall,
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
    EagerFrameComprehension,
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
    ModuleConstruction,
    BuiltObjectMethod,
    OptimizerCall,
    DataLoadingCall,
    HookRegistration,
    TensorSubclassUnwrap,
    TypedDictConstruction,
    ClassmethodAutogradForward,
    UnrebuildableReturn,
    LoadStateDictCall,
    DeprecatedOverload,
    GenericAliasCall,
    TensorSubclassConstruction,
    OutsideIteratorNext,
    TensorclassPositional,
)

BY_CODE: dict[str, type[Rule]] = {rule.code: rule for rule in ALL_RULES}
BY_NAME: dict[str, type[Rule]] = {rule.name: rule for rule in ALL_RULES}


def lookup(code_or_name: str) -> type[Rule] | None:
    """The rule of a code (``DYN101``, any case) or a name (``tensor-item``); ``None`` when there is none."""
    return BY_NAME.get(code_or_name.lower()) or BY_CODE.get(code_or_name.upper())


def classes(codes: Iterable[str]) -> list[type[Rule]]:
    """The rule classes of ``codes``, in the order given."""
    return [BY_CODE[code] for code in codes]

