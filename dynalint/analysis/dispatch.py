"""Summarize stage, dynamic dispatch: what a value may hold, worded as sources ``program.py`` resolves.

``summary.py`` calls in here from its one ``ast`` pass. A *source* is a string naming where a value
comes from, as written in the file (``program.py`` resolves it against the tree later):

- ``new:X``: an instance, ``X(...)``; ``X`` may be a parameter's default (``rnn_layer=nn.LSTM``);
- ``ref:X``: ``X`` itself, a function or a class (``self.act = F.gelu``, ``{"relu": relu}``);
- ``item:D`` / ``newitem:D``: an item of the module-level registry ``D`` (``FUNCS[name]``,
  ``REGISTRY.get(key)``), or an instance made by calling one (``LOSSES[name]()``);
- ``arg:F:N:name``: the parameter ``name`` (position ``N``, ``self`` not counted) of function or method
  ``F``: a setter such as ``set_processor(self, processor)``, or a function that calls what it is given
  (``reduce_fn(...)``), whose values are the arguments of its calls.
- ``name:N``: the string ``"N"``, an identifier, handed to a function that looks an attribute up by it
  (``call_event("on_train_step_end", self)`` into ``getattr(callback, event)(...)``).
- ``none:``: ``None`` passed as an argument: nothing to run, but a value the tree does pass
  (``Attention(None)``), so the parameter's name is not asked what it holds (``named_classes.py``).

Recorded: every value ``self.attr`` is given in any method, locals bound to a registry item or to one
of several instances, module-level dict literals of callables (registries), functions that store a
parameter into a module-level registry (the inner function of a registering decorator), decorators,
the instance arguments of method calls (``attn.set_processor(AttnProcessor2_0())``), and the functions
passed as arguments (``compute(state, reduce_fn=_precision_at_recall)``), for a call of the parameter.
"""

from __future__ import annotations

import ast
from typing import TYPE_CHECKING

from dynalint.analysis.qualified_names import dotted_name

if TYPE_CHECKING:
    from dynalint.analysis.summary import FunctionSummary, ModuleSummary

NEW, REF, ITEM, NEW_ITEM, ARGUMENT, NAME, NONE = "new:", "ref:", "item:", "newitem:", "arg:", "name:", "none:"
# The key ``call_arguments`` keeps a ``super().<method>(...)`` call under: ``<calling class>@super().<method>``.
SUPER_CALL = "@super()."
REGISTRY_CALL = "[]"  # suffix of a call site's callee: ``FUNCS[name](x)`` is recorded as ``FUNCS[]``
INSTANCE_CALL = "()"  # suffix of a call site's callee: ``Helper(...)(x)`` is recorded as ``Helper()``
# A method of a new instance, called at once: ``Helper(...).run(x)`` is recorded as ``Helper().run``.
INSTANCE_METHOD = INSTANCE_CALL + "."
INSTANCES = (NEW, NEW_ITEM)
# Calls whose value is a copy of their argument, an instance of the same class (as written: ``from copy import
# deepcopy`` is the usual import).
_COPIES = frozenset({"copy.copy", "copy.deepcopy", "deepcopy"})
# ``functools.partial(fn, ...)`` as written (``from functools import partial`` is the usual import): a value that
# runs ``fn`` when called.
_PARTIALS = frozenset({"functools.partial", "partial"})
_METHOD_TYPES = frozenset({"types.MethodType", "MethodType"})  # as written
# A builtin container made by a display or a comprehension, as the source of what it is assigned to: an instance of
# no class of the tree, so dispatch runs nothing for it.
CONTAINERS: dict[type[ast.expr], str] = {
    ast.Dict: NEW + "builtins.dict", ast.DictComp: NEW + "builtins.dict", ast.List: NEW + "builtins.list",
    ast.ListComp: NEW + "builtins.list", ast.Set: NEW + "builtins.set", ast.SetComp: NEW + "builtins.set",
}
_CONTAINER_DISPLAYS = tuple(CONTAINERS)
# How ``getattr(receiver, name)(...)`` is recorded when ``name`` is a parameter: ``receiver.{name}``, each string
# the function's callers pass for ``name`` being a method it may call (``named_parameter`` reads it back).
NAMED_BY = "{%s}"


def decorators(node: ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef) -> list[str]:
    """The decorators as written, a call's arguments left out (``@register("relu")`` -> ``register``)."""
    written = (dotted_name(d.func if isinstance(d, ast.Call) else d) for d in node.decorator_list)
    return [name for name in written if name]


def _defaults(node: ast.FunctionDef | ast.AsyncFunctionDef) -> list[tuple[ast.arg, ast.expr]]:
    """Each parameter that has a default, with it."""
    positional = node.args.posonlyargs + node.args.args
    pairs = list(zip(positional[len(positional) - len(node.args.defaults):], node.args.defaults))
    return pairs + [(a, d) for a, d in zip(node.args.kwonlyargs, node.args.kw_defaults) if d is not None]


def parameter_defaults(node: ast.FunctionDef | ast.AsyncFunctionDef) -> dict[str, str]:
    """Parameters whose default is a dotted name (``rnn_layer=nn.LSTM``, ``act=F.gelu``)."""
    found = {arg.arg: dotted_name(default) for arg, default in _defaults(node)}
    return {name: default for name, default in found.items() if default and default != "None"}


def none_defaults(node: ast.FunctionDef | ast.AsyncFunctionDef) -> tuple[str, ...]:
    """The parameters whose default is ``None`` (``take_from=None``)."""
    return tuple(arg.arg for arg, default in _defaults(node)
                 if isinstance(default, ast.Constant) and default.value is None)


def registry_of(node: ast.expr) -> str | None:
    """``D`` for ``D[key]`` or ``D.get(key, ...)`` with ``D`` a dotted name."""
    if isinstance(node, ast.Subscript):
        return dotted_name(node.value)
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "get":
        return dotted_name(node.func.value)
    return None


def sources(expr: ast.expr, function: FunctionSummary | None) -> list[str]:
    """Where the value of ``expr`` comes from, as sources (empty when unknown)."""
    if isinstance(expr, ast.IfExp):
        return sources(expr.body, function) + sources(expr.orelse, function)
    if isinstance(expr, ast.BoolOp):
        return [found for value in expr.values for found in sources(value, function)]
    registry = registry_of(expr)
    if registry:
        local = _local_registry(function, registry)
        return list(local) if local is not None else [ITEM + registry]
    if isinstance(expr, ast.Call):
        return _called(expr, function)
    written = dotted_name(expr)
    if written is None:
        return []
    if function is not None:
        if written in function.local_sources:
            return list(function.local_sources[written])
        if written in function.local_types:
            return [NEW + function.local_types[written]]
        found = parameter_sources(function, written)
        if found:
            return found
    return [REF + written]


def argument_of(source: str) -> tuple[str, str] | None:
    """``arg:Model.__init__:0:encoder`` (what ``parameter_sources`` writes) -> the function and the parameter's
    name, ``("Model.__init__", "encoder")``; ``None`` for any other source."""
    if not source.startswith(ARGUMENT):
        return None
    function, _position, parameter = source[len(ARGUMENT):].rsplit(":", 2)
    return function, parameter


def parameter_sources(function: FunctionSummary, name: str) -> list[str]:
    """Where parameter ``name`` of ``function`` gets its value: the arguments of its calls, and its default."""
    position = _position(function, name)
    if position is None:
        return []
    default = function.param_defaults.get(name)
    return [f"{ARGUMENT}{function.qualname}:{position}:{name}", *([REF + default] if default else [])]


def _called(call: ast.Call, function: FunctionSummary | None) -> list[str]:
    registry = registry_of(call.func)
    if registry:
        local = _local_registry(function, registry)
        return _made(local) if local is not None else [NEW_ITEM + registry]
    written = dotted_name(call.func)
    if written is None:
        return []
    if function is not None and written in function.param_defaults:
        return [NEW + function.param_defaults[written]]
    if function is not None and written in function.local_sources:
        return _made(function.local_sources[written])
    if written in _COPIES and call.args:  # ``copy.deepcopy(reducer)`` holds an instance of what ``reducer`` holds
        return sources(call.args[0], function)
    if written in _PARTIALS and call.args:  # calling ``partial(step, scale=2)`` calls ``step``
        return sources(call.args[0], function)
    bound = bound_function(call)
    if bound is not None:  # ``count.__get__(module)``, ``types.MethodType(count, module)``: a method running ``count``
        return sources(bound, function)
    return [NEW + written, *_picked_from(call, function, written)]


def bound_function(call: ast.Call) -> ast.expr | None:
    """The function a call binds to an object as its method: ``fn`` for ``fn.__get__(obj)`` and for
    ``types.MethodType(fn, obj)`` (ptflops' ``module.start_flops_count = start_flops_count.__get__(module)``)."""
    func = call.func
    if isinstance(func, ast.Attribute) and func.attr == "__get__" and len(call.args) in (1, 2):
        return func.value
    if dotted_name(func) in _METHOD_TYPES and len(call.args) == 2:
        return call.args[0]
    return None


def _made(held: list[str]) -> list[str]:
    """The instances calling a value from ``held`` makes: a class named, or one picked from a registry."""
    made = {REF: NEW, ITEM: NEW_ITEM}
    return [made[kind] + source[len(kind):] for source in held for kind in (REF, ITEM) if source.startswith(kind)]


def _local_registry(function: FunctionSummary | None, name: str) -> list[str] | None:
    """The values of ``name``, when it is a dict literal of callables bound in ``function``."""
    return function.local_sources.get(name + REGISTRY_CALL) if function is not None else None


def _picked_from(call: ast.Call, function: FunctionSummary | None, written: str) -> list[str]:
    """What a helper handed a local registry may return: one of its values. ``get_method(name, methods,
    method)`` with ``methods = {"rk4": rk4, ...}`` picks a function or class from ``methods`` (xitorch's
    solvers and interpolators); the value called afterwards is one of them. A class built with a registry
    (``Solver(methods)``) is an instance of that class, not an item."""
    if function is None or _is_class_name(written):
        return []
    handed = (arg for arg in [*call.args, *(k.value for k in call.keywords)] if isinstance(arg, ast.Name))
    return [source for arg in handed for source in _local_registry(function, arg.id) or ()]


def _position(function: FunctionSummary, name: str) -> int | None:
    """The position of parameter ``name`` in a call (``self`` / ``cls`` of a method not counted)."""
    names = [param for param, _ in function.params]
    if name not in names:
        return None
    return names.index(name) - (1 if function.class_name and names[:1] in (["self"], ["cls"]) else 0)


def _is_class_name(written: str) -> bool:
    return written.split(".")[-1][:1].isupper()


def record_assignment(summary: ModuleSummary, function: FunctionSummary | None, class_name: str | None,
                      nested: bool, targets: list[ast.expr], value: ast.expr) -> None:
    """Record what an assignment tells dispatch: an attribute's value, a local's, a registry's content."""
    bound = bound_function(value) if isinstance(value, ast.Call) else None
    for target in targets:
        if bound is not None and isinstance(target, ast.Attribute) and (written := dotted_name(bound)):
            # ``module.count = count.__get__(module)``: a call ``<anything>.count()`` may run ``count``
            summary.bound_methods.setdefault(target.attr, []).append(written)
        if isinstance(target, ast.Attribute) and dotted_name(target.value) == "self" and class_name and function:
            cls = summary.classes.get(class_name)
            # ``self._labels = {}``: no dispatch source, but what DYN207 asks (``Program.held_container``)
            found = [CONTAINERS[type(value)]] if isinstance(value, _CONTAINER_DISPLAYS) else sources(value, function)
            if cls is not None and found:
                cls.attr_sources.setdefault(target.attr, []).extend(found)
        elif isinstance(target, ast.Name) and function is not None and (held := _local_registry_values(value)):
            # a local registry (``methods = {"rk4": rk4, "euler": euler}``): kept under ``methods[]``
            kept = [s for s in held if _worth_keeping(summary, s)]
            if kept:
                function.local_sources.setdefault(target.id + REGISTRY_CALL, []).extend(kept)
        elif isinstance(target, ast.Name) and function is not None:
            found = [s for s in sources(value, function) if _worth_keeping(summary, s)]
            if found and not (len(found) == 1 and found[0].startswith(NEW)):  # one class: ``local_types`` has it
                function.local_sources.setdefault(target.id, []).extend(found)
        elif isinstance(target, ast.Name) and not nested and isinstance(value, (ast.Dict, ast.Call)):
            held = _registry_values(value)
            if held is not None:
                summary.registries[target.id] = held
        elif isinstance(target, ast.Subscript) and isinstance(target.value, ast.Name):
            if function is not None and isinstance(value, ast.Name) and _position(function, value.id) is not None:
                function.registers_into.append(target.value.id)
            elif function is None and not nested and target.value.id in summary.registries:
                summary.registries[target.value.id] += sources(value, None)


def _worth_keeping(summary: ModuleSummary, source: str) -> bool:
    """A local's source dispatch can use: a registry item, an instance, a module-level callable, or a
    method or attribute of the same object (``sample_fn = self.p_sample_loop if ... else self.ddim_sample``)."""
    if source.startswith(REF):
        written = source[len(REF):]
        return written.count(".") == 1 and written.startswith("self.") or summary.imports.resolve(
            written.split(".")[0]) is not None
    return not source.startswith(ARGUMENT)


def _local_registry_values(value: ast.expr) -> list[str] | None:
    """What a local bound to ``value`` holds as a registry: a dict literal's values, or, for one registry
    picked from a dict literal of them (xitorch's ``methods = {"minimizer": _OPT_METHODS, ...}[alg_type]``),
    the items of each."""
    if isinstance(value, (ast.Dict, ast.Call)):
        return _registry_values(value)
    if isinstance(value, ast.Subscript) and isinstance(value.value, ast.Dict):
        picked = _registry_values(value.value) or []
        return [ITEM + source[len(REF):] for source in picked if source.startswith(REF)] or None
    return None


def _registry_values(value: ast.Dict | ast.Call) -> list[str] | None:
    """The sources of a dict literal's values (``{"relu": relu}``, ``dict(relu=relu)``); ``None`` otherwise."""
    if isinstance(value, ast.Dict):
        items = [v for v in value.values if v is not None]
    elif dotted_name(value.func) == "dict" and not value.args:
        items = [k.value for k in value.keywords]
    else:
        return None
    return [found for item in items if isinstance(item, (ast.Name, ast.Attribute, ast.Call))
            for found in sources(item, None)]


def _super_method(call: ast.Call) -> str | None:
    """``super().__init__(...)`` -> ``__init__``; ``None`` for any other call."""
    func = call.func
    if (isinstance(func, ast.Attribute) and isinstance(func.value, ast.Call)
            and isinstance(func.value.func, ast.Name) and func.value.func.id == "super"):
        return func.attr
    return None


def record_call(summary: ModuleSummary, function: FunctionSummary | None, call: ast.Call,
                callee: str | None) -> str | None:
    """Record a call's arguments that dispatch can use; the callee to record for a registry call
    (``FUNCS[k](x)``), for a call of a new instance (``Helper(...)(x)``) or of its method (``Helper(...).run(x)``,
    ``super().__init__(...)``), if it is one."""
    handed_up = _super_method(call)
    if handed_up is not None and function is not None and function.class_name is not None:
        # ``super().__init__(compute_fn=...)``: what a subclass hands its base's method, kept under the calling
        # class, so that a base reads only its own subclasses' calls.
        _record_arguments(summary, function, call, f"{summary.qualify(function.class_name)}{SUPER_CALL}{handed_up}",
                          is_method=False, handed_up=True)
    if callee is None:
        looked_up = _looked_up_call(call, function)
        if looked_up is not None:
            return looked_up
        registry = registry_of(call.func)
        if registry:
            return registry + REGISTRY_CALL
        constructed = dotted_name(call.func.func) if isinstance(call.func, ast.Call) else None
        if constructed:
            return constructed + INSTANCE_CALL
        if isinstance(call.func, ast.Attribute) and isinstance(call.func.value, ast.Call):
            made = dotted_name(call.func.value.func)
            return f"{made}{INSTANCE_METHOD}{call.func.attr}" if made else None
        return None
    _record_arguments(summary, function, call, callee.rpartition(".")[2], is_method=isinstance(call.func, ast.Attribute))
    return None


def _looked_up_call(call: ast.Call, function: FunctionSummary | None) -> str | None:
    """The callee to record for ``getattr(receiver, name)(...)``: ``receiver.name`` for a string name, as if the
    method were written; ``receiver.{name}`` for a parameter ``name``, whose strings the callers pass."""
    lookup = call.func
    if not (isinstance(lookup, ast.Call) and isinstance(lookup.func, ast.Name) and lookup.func.id == "getattr"
            and len(lookup.args) >= 2):
        return None
    receiver, name = dotted_name(lookup.args[0]), lookup.args[1]
    if receiver is None:
        return None
    if isinstance(name, ast.Constant) and isinstance(name.value, str) and name.value.isidentifier():
        return f"{receiver}.{name.value}"
    if isinstance(name, ast.Name) and function is not None and _position(function, name.id) is not None:
        return f"{receiver}.{NAMED_BY % name.id}"
    return None


def named_parameter(callee: str) -> tuple[str, str] | None:
    """``callback.{event}`` (``_looked_up_call``) -> the receiver and the parameter, ``("callback", "event")``."""
    receiver, _, last = callee.rpartition(".")
    opening, closing = NAMED_BY.split("%s")
    if not (receiver and len(last) > len(NAMED_BY) - 2 and last.startswith(opening) and last.endswith(closing)):
        return None
    return receiver, last[len(opening):-len(closing)]


def _functions_handed(summary: ModuleSummary, function: FunctionSummary | None, arg: ast.expr,
                      handed_up: bool = False) -> list[str]:
    """A function or a class of the tree, or an import, handed as an argument, not a local value (a class too:
    ``LinearChain(SampledSemiring)`` may keep it and call its static methods, ``trust_region(x, CGSubproblem)``
    build it)."""
    found = [s for s in sources(arg, function) if s.startswith(REF) and _worth_keeping(summary, s)]
    if function is None or function.class_name is None or handed_up:
        return found  # handed up to a base (``super().__init__(fn=self.step)``): the base's ``self`` is the caller's
    # ``complete_fn=self._complete_step``: resolved where the callee calls it, away from the caller's ``self``, so
    # named by the caller's class (a subclass's override of it is not followed)
    return [f"{REF}{function.class_name}.{s[len(REF) + len('self.'):]}" if _is_own_method(s) else s for s in found]


def _is_own_method(source: str) -> bool:
    """``ref:self.step``: a method (or attribute) of the calling object, one name deep."""
    written = source[len(REF):]
    return written.startswith("self.") and written.count(".") == 1


def _record_arguments(summary: ModuleSummary, function: FunctionSummary | None, call: ast.Call, key: str,
                      is_method: bool, handed_up: bool = False) -> None:
    """Keep under ``key`` what each argument of ``call`` may be: instances of classes for a method's arguments,
    functions of the tree or imports for a function's, and the function a lambda's body calls."""
    arguments: list[tuple[int, str | None, ast.expr]] = [(position, None, arg) for position, arg in enumerate(call.args)]
    arguments += [(-1, k.arg, k.value) for k in call.keywords if k.arg]
    constructor = not is_method and _is_class_name(key)  # ``Optimizer(Adaptive())``: what ``__init__`` stores
    for position, keyword, arg in arguments:
        if isinstance(arg, (ast.Call, ast.IfExp, ast.Name)) and (is_method or constructor):
            found = [s for s in sources(arg, function) if s.startswith(INSTANCES) and _is_class_name(s.split(":", 1)[1])]
            if not found and constructor and isinstance(arg, ast.Name):
                found = _functions_handed(summary, function, arg, handed_up)
        elif isinstance(arg, (ast.Name, ast.Attribute)):
            found = _functions_handed(summary, function, arg, handed_up)
        elif isinstance(arg, ast.Constant) and isinstance(arg.value, str) and arg.value.isidentifier():
            found = [NAME + arg.value]  # the name of a method a ``getattr`` in the callee may look up
        elif isinstance(arg, ast.Constant) and arg.value is None and (is_method or constructor):
            found = [NONE]
        elif isinstance(arg, ast.Lambda) and isinstance(arg.body, ast.Call):
            # ``lambda y_pred, y: _score(y_pred, y, weights)`` stands for the function its body calls.
            called = dotted_name(arg.body.func)
            found = [REF + called] if called and _worth_keeping(summary, REF + called) else []
        else:
            continue
        if found:
            summary.call_arguments.setdefault(key, []).append((position, keyword, found))
