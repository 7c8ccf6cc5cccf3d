"""Control flow through the value analysis: what the engine's walk changes in a function's bindings.

``regions.LintContext`` calls ``enter`` and ``leave`` around every node of a compiled function, with the
``ValueScope`` of the function being walked. This module keeps the state that spans nodes:

- **narrowing**: inside ``if isinstance(x, torch.Tensor):`` ``x`` is a tensor, inside ``if isinstance(x,
  float):`` a constant (each name of an ``and`` chain of such tests); in the ``else`` of ``if isinstance(a,
  torch.Tensor) or isinstance(b, torch.Tensor):`` neither name is a tensor; after ``if isinstance(x,
  torch.Tensor): ... return`` with no ``else``, ``x`` is no longer a tensor;
- **branch joins**: the ``else`` is walked from the bindings made before the ``if``, and after it a name
  holds the larger kind of the two branches (a tensor on one path is a tensor);
- **loops and comprehensions**: a ``for`` target is bound from what it iterates; a comprehension's
  targets are bound before its element is walked (LibCST holds the element first) and what they held
  outside is put back when it ends;
- **bindings after a statement**: assignments, augmented assignments, walrus, ``with ... as`` and
  ``list.append`` are applied when the node is left, so a query at a node sees what came before it;
  a method no Python type has (``x.clone()``) called on an un-annotated ``forward`` input makes it a tensor.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TypeVar

import libcst as cst

from dynalint.analysis.compile_guards import CST
from dynalint.analysis.torch_facts import PYTHON_TYPES, TENSOR_TYPES
from dynalint.analysis.values.lattice import Kind, ValueType
from dynalint.analysis.values.scope import ValueScope

NUMPY_ARRAY = "numpy.ndarray"

_COMPREHENSIONS = frozenset({cst.ListComp, cst.SetComp, cst.DictComp, cst.GeneratorExp})
_Held = TypeVar("_Held")  # what a table of bindings holds: a ``Kind``, a ``ValueType``


class ValueFlow:
    """The value analysis's state across the nodes of one walk (see the module docstring)."""

    def __init__(self) -> None:
        # ``if isinstance(x, float):`` -> inside that block ``x`` is of that kind (block id -> names and kinds);
        # ``if isinstance(a, Tensor) or isinstance(b, Tensor):`` -> in its ``else`` neither is a tensor.
        self._narrowed: dict[int, list[tuple[str, Kind]]] = {}
        # ``if isinstance(a, np.ndarray):`` -> inside that block ``a`` is a NumPy array (block id -> name, and
        # whether it was one before).
        self._numpy_narrowed: dict[int, tuple[str, bool]] = {}
        self._saved: dict[int, list[Kind | None]] = {}
        # ``if`` statements being walked: id -> (the bindings before it, those at the end of its body).
        self._branches: dict[int, tuple[_Bindings, _Bindings | None]] = {}
        self._body_of: dict[int, int] = {}  # id of an ``if`` body -> id of its ``if``
        # Comprehensions being walked: id -> what their target names held outside them.
        self._comprehension_saved: dict[int, list[tuple[str, Kind | None, ValueType | None]]] = {}

    def enter(self, node: cst.CSTNode, values: ValueScope) -> None:
        """Before ``node``'s children are walked. Exact type tests, and id lookups only when their tables
        hold anything: this runs for every node."""
        if self._narrowed and id(node) in self._narrowed:
            narrowed = self._narrowed[id(node)]
            self._saved[id(node)] = [values.env.get(name) for name, _ in narrowed]
            values.env.update(narrowed)
        if self._numpy_narrowed and id(node) in self._numpy_narrowed:
            values.numpy_arrays.add(self._numpy_narrowed[id(node)][0])
        if type(node) is cst.If:
            self._narrow(node, values)
            self._branches[id(node)] = (_Bindings.of(values), None)
            self._body_of[id(node.body)] = id(node)
        elif type(node) is cst.For:
            values.bind_loop_target(node.target, node.iter)
        elif (type(node) is cst.ListComp or type(node) is cst.SetComp or type(node) is cst.DictComp
              or type(node) is cst.GeneratorExp):
            self._enter_comprehension(node, values)

    def leave(self, node: cst.CSTNode, values: ValueScope) -> None:
        """After ``node``'s children were walked, before ``bind``."""
        if type(node) in _COMPREHENSIONS:
            self._leave_comprehension(node, values)
        if self._narrowed and id(node) in self._narrowed:
            narrowed = self._narrowed.pop(id(node))
            for (name, kind), previous in reversed(list(zip(narrowed, self._saved.pop(id(node))))):
                # a name the block bound again keeps that binding: ``if isinstance(lengths, list): lengths =
                # torch.tensor(lengths)`` leaves a tensor, not what ``lengths`` was before the test
                if values.env.get(name) == kind:
                    _put_back(values.env, name, previous)
        if self._numpy_narrowed and id(node) in self._numpy_narrowed:
            name, was = self._numpy_narrowed.pop(id(node))
            if not was:
                values.numpy_arrays.discard(name)
        if self._body_of and id(node) in self._body_of:
            self._end_of_body(self._body_of.pop(id(node)), values)
        elif type(node) is cst.If and id(node) in self._branches:
            self._join_branches(self._branches.pop(id(node)), values)
            self._narrow_after_exit(node, values)
        elif type(node) is cst.Assert:
            self._narrow_asserted(node.test, values)

    @staticmethod
    def bind(node: cst.CSTNode, values: ValueScope) -> None:
        """What a statement or expression just left binds (nothing for a node that closes a scope)."""
        if type(node) is cst.Assign:
            for target in node.targets:
                values.bind(target.target, node.value)
        elif type(node) is cst.AnnAssign:
            if node.value is not None:
                values.bind(node.target, node.value)
        elif type(node) is cst.AugAssign:
            if type(node.target) is cst.Name:
                values.bind(node.target, None, max(values.kind(node.target), values.kind(node.value)))
        elif type(node) is cst.NamedExpr:
            values.bind(node.target, node.value)
        elif type(node) is cst.WithItem and node.asname is not None:
            values.bind(node.asname.name, None, Kind.UNKNOWN)
        elif type(node) is cst.Call:
            values.record_append(node)
            values.confirm_tensor(node)

    # -- comprehensions --------------------------------------------------------------------------
    def _enter_comprehension(self, node: cst.BaseComp, values: ValueScope) -> None:
        saved: list[tuple[str, Kind | None, ValueType | None]] = []
        clause: cst.CompFor | None = node.for_in
        while clause is not None:
            for name in _target_names(clause.target):
                saved.append((name, values.env.get(name), values.structures.get(name)))
            values.bind_loop_target(clause.target, clause.iter)
            clause = clause.inner_for_in
        self._comprehension_saved[id(node)] = saved

    def _leave_comprehension(self, node: cst.CSTNode, values: ValueScope) -> None:
        for name, kind, structure in reversed(self._comprehension_saved.pop(id(node), [])):
            _put_back(values.env, name, kind)
            _put_back(values.structures, name, structure)

    # -- branches ----------------------------------------------------------------------------------
    def _end_of_body(self, statement: int, values: ValueScope) -> None:
        """The ``if`` body is done: keep what it bound, and walk the ``else`` from the bindings before the ``if``."""
        before, _ = self._branches[statement]
        self._branches[statement] = (before, _Bindings.of(values))
        values.env.clear()
        values.env.update(before.env)
        values.numpy_values.clear()
        values.numpy_values.update(before.numpy_values)

    @staticmethod
    def _join_branches(branches: tuple[_Bindings, _Bindings | None], values: ValueScope) -> None:
        """After an ``if``, a name holds what either branch bound: the larger kind (a tensor on one path is a tensor),
        and a NumPy value if either branch bound it to one."""
        _, body = branches
        if body is None:
            return
        other = values.env
        joined = {name: max(body.env.get(name, other.get(name, Kind.UNKNOWN)),
                            other.get(name, body.env.get(name, Kind.UNKNOWN)))
                  for name in {*body.env, *other}}
        other.clear()
        other.update(joined)
        values.numpy_values |= body.numpy_values

    # -- narrowing ---------------------------------------------------------------------------------
    def _narrow_after_exit(self, node: cst.If, values: ValueScope) -> None:
        """After ``if isinstance(x, torch.Tensor): ... return`` (no ``else``), ``x`` is not a tensor; after
        ``if not isinstance(x, torch.Tensor): raise ...``, it is one."""
        if node.orelse is not None or not CST.body_exits(node):
            return
        if isinstance(node.test, cst.UnaryOperation) and isinstance(node.test.operator, cst.Not):
            self._narrow_asserted(node.test.expression, values)
            return
        tested = isinstance_test(node.test, values)
        if tested is None:
            return
        subject, resolved = tested
        if resolved <= TENSOR_TYPES and values.env.get(subject.value, Kind.UNKNOWN).is_tensor_like:
            values.bind(subject, None, Kind.UNKNOWN)

    @staticmethod
    def _narrow_asserted(test: cst.BaseExpression, values: ValueScope) -> None:
        """``assert isinstance(t, torch.Tensor)`` (torchdiffeq's ``_check_timelike``): from here on ``t`` is a
        tensor (branching on ``t[0] > t[1]`` after it broke, GB0170, measured on torch 2.13)."""
        tested = isinstance_test(test, values)
        if tested is not None and tested[1] and tested[1] <= TENSOR_TYPES:
            values.bind(tested[0], None, Kind.TENSOR)

    def _narrow(self, node: cst.If, values: ValueScope) -> None:
        """What the test proves in the body (each ``isinstance`` of an ``and`` chain: ``isinstance(high, Number)
        and isinstance(low, Number)``), and in the ``else`` (``elif``) what an ``or`` chain of tensor tests
        disproves: after ``if isinstance(high, Tensor) or isinstance(low, Tensor):`` neither is a tensor."""
        body: list[tuple[str, Kind]] = []
        for operand in and_operands(node.test):
            tested = isinstance_test(operand, values)
            if tested is None:
                continue
            subject, resolved = tested
            if resolved <= TENSOR_TYPES:
                # A shape value (``embed_dim`` from ``x.shape``) is a tensor only under tracing by TorchScript
                # or ``torch.fx``; under Dynamo that block is dead, and its bindings must not make sizes tensors.
                if values.env.get(subject.value) is not Kind.META:
                    body.append((subject.value, Kind.TENSOR))
            elif resolved <= PYTHON_TYPES:
                body.append((subject.value, Kind.CONST))
            elif resolved == {NUMPY_ARRAY} and operand is node.test:
                self._numpy_narrowed[id(node.body)] = (subject.value, subject.value in values.numpy_arrays)
        if body:
            self._narrowed[id(node.body)] = body
        if node.orelse is None:
            return
        otherwise = []
        for operand in or_operands(node.test):
            tested = isinstance_test(operand, values)
            if (tested is not None and tested[1] and tested[1] <= TENSOR_TYPES
                    and values.env.get(tested[0].value, Kind.UNKNOWN).is_tensor_like):
                otherwise.append((tested[0].value, Kind.UNKNOWN))
        if otherwise:
            self._narrowed[id(node.orelse)] = otherwise


def isinstance_test(test: cst.BaseExpression, values: ValueScope) -> tuple[cst.Name, set[str | None]] | None:
    """``isinstance(name, T)`` / ``isinstance(name, (T, U))``: the name and the qualified types (``None``
    for a type that is not a name the imports know, such as ``type(None)``)."""
    if not (isinstance(test, cst.Call) and values.resolve(test.func) == "builtins.isinstance"
            and len(test.args) == 2):
        return None
    subject, types = test.args[0].value, test.args[1].value
    if not isinstance(subject, cst.Name):
        return None
    named = [e.value for e in types.elements] if isinstance(types, cst.Tuple) else [types]
    return subject, {values.resolve(t) for t in named}


def and_operands(node: cst.BaseExpression) -> list[cst.BaseExpression]:
    """The operands of an unparenthesised ``and`` chain, left to right (LibCST nests ``A and B and C`` as
    ``(A and B) and C``); anything else is its own single operand."""
    return _chain(node, cst.And)


def or_operands(node: cst.BaseExpression) -> list[cst.BaseExpression]:
    """The operands of an unparenthesised ``or`` chain, left to right; anything else is its own single operand."""
    return _chain(node, cst.Or)


def _chain(node: cst.BaseExpression, operator: type[cst.And] | type[cst.Or]) -> list[cst.BaseExpression]:
    if not (isinstance(node, cst.BooleanOperation) and isinstance(node.operator, operator) and not node.lpar):
        return [node]
    return [*_chain(node.left, operator), node.right]


def isinstance_narrowed(operands: list[cst.BaseExpression], values: ValueScope,
                        accepts: Callable[[set[str | None]], bool]) -> set[str]:
    """The names that ``isinstance`` tests among ``operands`` (earlier operands of an ``and``) prove to be of
    types ``accepts`` takes (``isinstance(n, int) and n < 2``: ``n`` a Python int in ``n < 2``)."""
    tests = (isinstance_test(operand, values) for operand in operands)
    return {tested[0].value for tested in tests if tested is not None and tested[1] and accepts(tested[1])}


@dataclass(frozen=True)
class _Bindings:
    """What a function's names held at one point of an ``if``: their kinds, and which hold NumPy values."""

    env: dict[str, Kind]
    numpy_values: frozenset[str]

    @classmethod
    def of(cls, values: ValueScope) -> _Bindings:
        return cls(dict(values.env), frozenset(values.numpy_values))


def _put_back(table: dict[str, _Held], name: str, previous: _Held | None) -> None:
    """Restore what ``name`` held in ``table`` before a block or comprehension (``None``: it held nothing)."""
    if previous is None:
        table.pop(name, None)
    else:
        table[name] = previous


def _target_names(target: cst.BaseExpression) -> list[str]:
    """The names a ``for`` target binds: ``i``, ``(offset, n)``, ``[a, *rest]``."""
    if isinstance(target, cst.Name):
        return [target.value]
    if isinstance(target, (cst.Tuple, cst.List)):
        return [name for element in target.elements for name in _target_names(element.value)]
    return []  # ``self.x`` or ``d[k]``: nothing the value analysis binds
