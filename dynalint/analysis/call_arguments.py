"""Summarize stage, call arguments: which arguments of each call are Python values while Dynamo traces.

``seq2img(img, self.patch_size, hidden_states.shape)`` passes a shape, and
``self.pos_embed(shapes, max_txt_seq_len=text_seq_len)`` an int read from one (``text_seq_len =
encoder_hidden_states.shape[1]``). Whatever the callee's annotation says (``int | torch.Tensor``),
under Dynamo such an argument is a Python value: the program stage lets the arguments of every call
site in the tree decide a parameter's kind (``Program.parameter_types``), and the annotation decides
only where no call site is known.

The test is syntactic, on ``ast``, as the rest of the summarize stage: constants, tensor metadata
(``x.shape``, ``x.size(1)``, ``x.dim()``, ``len(...)``), arithmetic, indexing and displays of those, and
local names every binding of which is one of those. Anything else (a parameter, ``self.<attr>``, a
call) is not known to be Python.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass, field

from dynalint.analysis.qualified_names import dotted_name
from dynalint.analysis.torch_facts import META_ATTRIBUTES, META_METHODS

_PYTHON_BUILTINS = frozenset({"len", "max", "min", "abs", "round", "sum"})

Slot = int | str  # a positional argument's index, or a keyword argument's name
WHOLE = -1  # a call's whole result, where an element index would stand


@dataclass
class _Pending:
    index: int  # in the function's ``calls``
    python: list[Slot]  # arguments Python by their syntax
    names: list[tuple[Slot, str]]  # arguments that are a bare local name, decided at the function's end


@dataclass
class FunctionArguments:
    """What one function body binds to Python values, and the calls whose arguments wait on that."""

    python_names: set[str] = field(default_factory=set)
    other_names: set[str] = field(default_factory=set)  # bound at least once to something else
    # Names bound once, to a call's result or one element of it (``n, _ = helper(x)``): the callee as
    # written and the element (``WHOLE`` for the result itself), for the program to look up.
    returned: dict[str, tuple[str, int]] = field(default_factory=dict)
    pending: list[_Pending] = field(default_factory=list)
    # The elements every ``return`` gives a Python value in (``WHOLE``: a non-tuple value); ``None``
    # before the first ``return``.
    python_returns: set[int] | None = None

    def is_python(self, node: ast.expr) -> bool:
        """Whether ``node`` is a Python value under Dynamo, by its syntax (names as bound so far)."""
        if isinstance(node, ast.Constant):
            return True
        if isinstance(node, ast.Name):
            return node.id in self.python_names and node.id not in self.other_names
        if isinstance(node, ast.Attribute):
            return node.attr in META_ATTRIBUTES and node.attr != "training"
        if isinstance(node, ast.Subscript):
            return self.is_python(node.value)
        if isinstance(node, ast.Call):
            if isinstance(node.func, ast.Attribute):
                return node.func.attr in META_METHODS and node.func.attr not in ("data_ptr", "type")
            if isinstance(node.func, ast.Name) and node.func.id in _PYTHON_BUILTINS:
                if node.func.id == "len":
                    return True
                return bool(node.args) and all(self.is_python(a) for a in node.args)
            return False
        if isinstance(node, ast.BinOp):
            return self.is_python(node.left) and self.is_python(node.right)
        if isinstance(node, ast.UnaryOp):
            return self.is_python(node.operand)
        if isinstance(node, (ast.Tuple, ast.List)):
            return all(self.is_python(e) for e in node.elts)
        return False

    def bind(self, target: ast.expr, value: ast.expr | None) -> None:
        """``target = value`` (``value`` ``None``: bound by a ``for``, ``with`` or walrus, never Python here)."""
        if isinstance(value, ast.Call) and (callee := dotted_name(value.func)):
            self._bind_result(target, callee)
            return
        python = value is not None and self.is_python(value)
        for name in _bound_names(target):
            (self.python_names if python else self.other_names).add(name)
            self.returned.pop(name, None)

    def _bind_result(self, target: ast.expr, callee: str) -> None:
        if isinstance(target, ast.Name):
            elements: list[tuple[str, int]] = [(target.id, WHOLE)]
        elif isinstance(target, (ast.Tuple, ast.List)) and all(isinstance(e, ast.Name) for e in target.elts):
            elements = [(e.id, index) for index, e in enumerate(target.elts)]  # type: ignore[attr-defined]
        else:
            for name in _bound_names(target):
                self.other_names.add(name)
            return
        for name, index in elements:
            if name in self.returned or name in self.python_names:
                self.returned.pop(name, None)
                self.other_names.add(name)  # bound twice: not one call's result
            elif name not in self.other_names:
                self.returned[name] = (callee, index)

    def returns(self, value: ast.expr | None) -> None:
        """A ``return`` of ``value``: narrow the elements that are Python on every ``return``."""
        if isinstance(value, ast.Tuple):
            found = {index for index, element in enumerate(value.elts) if self.is_python(element)}
        else:
            found = {WHOLE} if value is not None and self.is_python(value) else set()
        self.python_returns = found if self.python_returns is None else self.python_returns & found

    def call(self, index: int, node: ast.Call) -> None:
        """Note the arguments of the call stored at ``calls[index]``."""
        python: list[Slot] = []
        names: list[tuple[Slot, str]] = []
        slots: list[tuple[Slot, ast.expr]] = [(i, a) for i, a in enumerate(node.args)]
        slots += [(k.arg, k.value) for k in node.keywords if k.arg is not None]
        for slot, value in slots:
            if isinstance(value, ast.Starred):
                continue
            if isinstance(value, ast.Name):
                names.append((slot, value.id))
            elif self.is_python(value):
                python.append(slot)
        if python or names:
            self.pending.append(_Pending(index, python, names))

    def settle(self) -> list[tuple[int, tuple[Slot, ...], tuple[tuple[Slot, str, int], ...]]]:
        """At the function's end: each noted call's index, the slots whose argument is Python, and the
        slots whose argument is a call's result (the program decides those)."""
        settled = []
        for pending in self.pending:
            python = list(pending.python)
            via: list[tuple[Slot, str, int]] = []
            for slot, name in pending.names:
                if name in self.other_names:
                    continue
                if name in self.python_names:
                    python.append(slot)
                elif name in self.returned:
                    via.append((slot, *self.returned[name]))
            if python or via:
                settled.append((pending.index, tuple(python), tuple(via)))
        return settled

    def returned_elements(self) -> tuple[int, ...]:
        """The elements Python on every ``return`` (``WHOLE`` for the value itself), sorted."""
        return tuple(sorted(self.python_returns or ()))


def has_splat(node: ast.Call) -> bool:
    """``f(*args)`` / ``f(**kwargs)``: which parameter gets what is not known from the call."""
    return any(isinstance(a, ast.Starred) for a in node.args) or any(k.arg is None for k in node.keywords)


def _bound_names(target: ast.expr) -> list[str]:
    if isinstance(target, ast.Name):
        return [target.id]
    if isinstance(target, (ast.Tuple, ast.List)):
        return [name for element in target.elts for name in _bound_names(element)]
    if isinstance(target, ast.Starred):
        return _bound_names(target.value)
    return []
