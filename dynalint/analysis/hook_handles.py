"""Summarize stage, hook handles: the attributes that keep the ``RemovableHandle`` a hook's registration returned.

``summarize.py`` hands every assignment and call of its one ``ast`` pass to a ``HookHandles`` of the module.
It records the last names of attributes given a handle (``self.handle = m.register_forward_hook(f)``,
``module.__flops_handle__ = handle`` with ``handle`` a local bound to one) and of attributes holding handles
as items (``self.hooks[name] = m.register_forward_hook(f)``, ``self.handles.append(...)``, a list display of
registrations); an item given one under a literal key (``self.gg["hook"] = ...``) is recorded as that item
alone, ``gg['hook']`` (``keyed``), since such a dict often keeps other values beside it. ``program.py`` unites
them over the tree (``Program.hook_handles``) for DYN511: a handle made before compiling is a value Dynamo cannot
represent (GB0013, measured on torch 2.13), so compiled code that tests one (``if self.handle is not None``,
``hasattr(m, "__flops_handle__")``) or removes it breaks.
"""

from __future__ import annotations

import ast
from collections.abc import Callable

from dynalint.analysis.qualified_names import dotted_name
from dynalint.analysis.torch_facts import GLOBAL_HOOK_REGISTRATIONS, MODULE_HOOK_REGISTRATIONS

_GROWERS = frozenset({"append", "add", "extend"})  # ``handles.append(h)``; ``extend`` with a display of them
# The last names of the global registrations: a call is resolved only when its last name is one of them.
_GLOBAL_REGISTRATION_NAMES = frozenset(name.rpartition(".")[2] for name in GLOBAL_HOOK_REGISTRATIONS)


class HookHandles:
    """Which attributes of a module's code hold a hook's handle, or handles as items (by their last name)."""

    def __init__(self, resolve: Callable[[str | None], str | None]) -> None:
        self._resolve = resolve
        self.attributes: set[str] = set()
        self.containers: set[str] = set()
        self._local_handles: dict[str, set[str]] = {}  # function (qualname, ``""`` at module level) -> locals
        self._local_containers: dict[str, set[str]] = {}

    def _registers(self, value: ast.expr) -> bool:
        if not isinstance(value, ast.Call):
            return False
        func = value.func
        if isinstance(func, ast.Attribute) and func.attr in MODULE_HOOK_REGISTRATIONS:
            return True
        written = dotted_name(func)
        return (written is not None and written.rpartition(".")[2] in _GLOBAL_REGISTRATION_NAMES
                and self._resolve(written) in GLOBAL_HOOK_REGISTRATIONS)

    def _holds_handle(self, scope: str, value: ast.expr) -> bool:
        return self._registers(value) or (
            isinstance(value, ast.Name) and value.id in self._local_handles.get(scope, ()))

    def _holds_handles(self, scope: str, value: ast.expr) -> bool:
        if isinstance(value, (ast.List, ast.Tuple, ast.Set)):
            return bool(value.elts) and all(self._holds_handle(scope, e) for e in value.elts)
        if isinstance(value, (ast.ListComp, ast.SetComp, ast.GeneratorExp)):
            return self._holds_handle(scope, value.elt)
        if isinstance(value, ast.DictComp):
            return self._holds_handle(scope, value.value)
        if isinstance(value, ast.Dict):
            return bool(value.values) and all(self._holds_handle(scope, v) for v in value.values)
        return isinstance(value, ast.Name) and value.id in self._local_containers.get(scope, ())

    def assigned(self, scope: str, targets: list[ast.expr], value: ast.expr) -> None:
        """``targets = value`` in function ``scope``."""
        if self._holds_handle(scope, value):
            for target in targets:
                self._store(scope, target, self.attributes, self._local_handles)
        elif self._holds_handles(scope, value):
            for target in targets:
                self._store(scope, target, self.containers, self._local_containers)

    def _store(self, scope: str, target: ast.expr, attributes: set[str], local: dict[str, set[str]]) -> None:
        if isinstance(target, ast.Attribute):
            attributes.add(target.attr)
        elif isinstance(target, ast.Name):
            local.setdefault(scope, set()).add(target.id)
        elif isinstance(target, ast.Subscript) and (key := constant_key(target.slice)) is not None and isinstance(
                target.value, ast.Attribute) and attributes is self.attributes:
            # ``self.gg["hook"] = registration``: that one item (``gg`` holds counters beside it)
            attributes.add(keyed(target.value.attr, key))
        elif isinstance(target, ast.Subscript):  # ``hooks[name] = registration``: ``hooks`` holds handles
            self._store(scope, target.value, self.containers, self._local_containers)

    def called(self, scope: str, call: ast.Call) -> None:
        """``handles.append(registration)`` in function ``scope``."""
        func = call.func
        if not (isinstance(func, ast.Attribute) and func.attr in _GROWERS and len(call.args) == 1):
            return
        (grown,) = call.args
        if self._holds_handle(scope, grown) or (func.attr == "extend" and self._holds_handles(scope, grown)):
            self._store(scope, func.value, self.containers, self._local_containers)


def constant_key(key: ast.expr) -> str | None:
    """The string of a subscript's literal key (``gg["hook"]``), ``None`` for any other key."""
    return key.value if isinstance(key, ast.Constant) and isinstance(key.value, str) else None


def keyed(attribute: str, key: str) -> str:
    """How one item of an attribute is named among the attributes given a handle: ``gg["hook"]``."""
    return f"{attribute}[{key!r}]"
