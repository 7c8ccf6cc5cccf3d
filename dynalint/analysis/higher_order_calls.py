"""Summarize stage, higher-order calls: the functions a call hands to Python or torch to be called at once.

``summarize.py`` asks here, for each call it records, which of its arguments the callee runs before it
returns: ``map(step, xs)`` runs ``step``, ``model.apply(init)`` runs ``init`` on every submodule,
``sorted(xs, key=rank)`` runs ``rank``. Dynamo traces into each of them (measured on torch 2.13: a
``print`` in the function handed on breaks at its own line, GB0059), so the program must count them as
called where the higher-order call is written; it records one call of each such argument there, with its
arguments unknown. ``functools.partial(fn, ...)`` handed on is ``fn`` (ptflops'
``model.apply(partial(add_hook, **kwargs))``).

Left out on purpose: ``torch.vmap`` and ``torch.func`` transforms (a break inside one is reported by
Dynamo as the transform's own failure, GB0149, at no line of the function), and callables that run their
argument later or elsewhere (``threading.Thread(target=...)``, hooks, which ``program.py`` handles).
"""

from __future__ import annotations

import ast
from collections.abc import Callable

from dynalint.analysis.qualified_names import dotted_name, names_a_class

# Qualified callee -> the positions and keywords of the arguments it calls.
_CALLED_ARGUMENTS: dict[str, tuple[tuple[int, ...], tuple[str, ...]]] = {
    "builtins.map": ((0,), ()),
    "builtins.filter": ((0,), ()),
    "builtins.sorted": ((), ("key",)),
    "builtins.min": ((), ("key",)),
    "builtins.max": ((), ("key",)),
    "functools.reduce": ((0,), ("function",)),
    "torch.utils._pytree.tree_map": ((0,), ("func",)),
    "torch.utils._pytree.tree_map_only": ((1,), ("func",)),
    "torch.utils.checkpoint.checkpoint": ((0,), ("function",)),
}
# ``module.apply(fn)``: ``nn.Module.apply`` runs ``fn`` on every submodule. An autograd Function's ``apply``
# is called on the class (``Scale.apply(x)``) with tensors, not functions, and is left to the program.
_MODULE_APPLY = "apply"
_PARTIALS = frozenset({"functools.partial", "functools.partialmethod"})


def called_arguments(call: ast.Call, resolved: str | None, resolve: Callable[[str | None], str | None]) -> list[str]:
    """The arguments of ``call`` (its callee qualified as ``resolved``) that the callee runs, each as written
    (``step``, ``self._init_weights``, ``F.relu``); ``resolve`` qualifies a dotted name as the module's
    imports do. Only names and attributes are returned, a ``partial`` of one being that one."""
    handed: list[ast.expr] = []
    if resolved in _CALLED_ARGUMENTS:
        positions, keywords = _CALLED_ARGUMENTS[resolved]
        handed += [call.args[p] for p in positions if p < len(call.args)]
        handed += [k.value for k in call.keywords if k.arg in keywords]
    elif (isinstance(call.func, ast.Attribute) and call.func.attr == _MODULE_APPLY and len(call.args) == 1
          and not call.keywords and not names_a_class(dotted_name(call.func.value))):
        handed.append(call.args[0])
    written = (_function_written(arg, resolve) for arg in handed)
    return [name for name in written if name is not None]


def _function_written(arg: ast.expr, resolve: Callable[[str | None], str | None]) -> str | None:
    if isinstance(arg, ast.Call) and resolve(dotted_name(arg.func)) in _PARTIALS and arg.args:
        arg = arg.args[0]
    if isinstance(arg, (ast.Name, ast.Attribute)):
        return dotted_name(arg)
    return None
