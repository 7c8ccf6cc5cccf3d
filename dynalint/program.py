"""Program stage: link module summaries into a call graph and compute the compiled regions.

Input: the ``ModuleSummary`` of every file (``summary.py``). Output: a ``Program`` that answers, for a
module-qualified function name, the ``Region`` it belongs to (why it is compiled, how sure we are) and
what a call written inside a function resolves to, across files: imports (absolute, relative,
``from pkg import mod``), re-exports through ``__init__``, methods and inherited methods, sub-modules
(``self.block(x)`` runs ``Block.forward``; iterating ``self.layers`` runs each item's ``forward``),
factories that return a model. Entry points are ``torch.compile`` sites; regions are everything
reachable from them, breadth first so that each why-chain is a shortest one. ``forward`` methods that
no entry point reaches become ``likely`` regions. Functions Dynamo never traces (``disable``d ones,
custom ops, leaf functions) are never regions. Nothing here looks at LibCST.
"""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass, field, replace

from dynalint.finding import ChainLink, Confidence, Region
from dynalint.settings import DynamoSettings
from dynalint.summary import ClassSummary, CompileSite, FunctionSummary, ModuleSummary
from dynalint.torchapi import MODULE_BASES

_MAX_ALIAS_HOPS = 16


@dataclass(frozen=True)
class Callee:
    """What a call written in the source resolves to."""

    function: str  # module-qualified name
    disabled: bool


@dataclass
class Program:
    modules: dict[str, ModuleSummary]  # module name -> summary
    functions: dict[str, tuple[ModuleSummary, FunctionSummary]] = field(default_factory=dict)
    classes: dict[str, tuple[ModuleSummary, ClassSummary]] = field(default_factory=dict)
    regions: dict[str, Region] = field(default_factory=dict)
    settings: DynamoSettings = field(default_factory=DynamoSettings)  # config + tree assignments
    _collectives_memo: dict[str, bool] = field(default_factory=dict, repr=False)

    # -- names ----------------------------------------------------------------------------------
    def canonical(self, qualified: str | None) -> str | None:
        """Follow re-exports: ``pkg.Model`` -> ``pkg.model.Model`` when ``pkg/__init__`` imports it."""
        for _ in range(_MAX_ALIAS_HOPS):
            if qualified is None or qualified in self.functions or qualified in self.classes:
                return qualified
            parts = qualified.split(".")
            for cut in range(len(parts) - 1, 0, -1):
                module = self.modules.get(".".join(parts[:cut]))
                if module is not None:
                    target = module.imports.aliases.get(parts[cut])
                    if target is None:
                        return qualified
                    qualified = ".".join([target, *parts[cut + 1:]])
                    break
            else:
                return qualified
        return qualified

    def resolve_name(self, module: ModuleSummary, written: str) -> str | None:
        """Qualified, re-export-free name of ``written`` as seen from ``module``."""
        if written in self.functions or written in self.classes:
            return written
        return self.canonical(module.imports.resolve(written))

    def resolve_class(self, module: ModuleSummary, written: str) -> str | None:
        """Qualified name of a class written as ``written`` in ``module``, if it is in the tree.

        ``written`` may already be qualified (summaries store bases and attribute types resolved).
        """
        qualified = self.resolve_name(module, written)
        if qualified in self.classes:
            return qualified
        local = module.qualify(written)
        return local if local in self.classes else None

    def instance_class(self, module: ModuleSummary, written: str) -> str | None:
        """The class of ``written(...)``: a class itself, or a factory function that returns one."""
        cls = self.resolve_class(module, written)
        if cls is not None:
            return cls
        factory = self.resolve_name(module, written)
        if factory in self.functions:
            factory_module, function = self.functions[factory]
            if function.returns_class:
                return self.resolve_class(factory_module, function.returns_class)
        return None

    # -- classes --------------------------------------------------------------------------------
    def _bases(self, class_qualified: str) -> list[str]:
        module, cls = self.classes[class_qualified]
        return [b for b in (self.resolve_class(module, base) for base in cls.bases) if b]

    def is_module_class(self, qualified: str, seen: frozenset[str] = frozenset()) -> bool:
        entry = self.classes.get(qualified)
        if entry is None or qualified in seen:
            return False
        if any(self.canonical(base) in MODULE_BASES for base in entry[1].bases):
            return True
        return any(self.is_module_class(base, seen | {qualified}) for base in self._bases(qualified))

    def method(self, class_qualified: str, name: str, seen: frozenset[str] = frozenset()) -> str | None:
        """Module-qualified name of ``name`` on the class or the first base in the tree that has it."""
        entry = self.classes.get(class_qualified)
        if entry is None or class_qualified in seen:
            return None
        module, cls = entry
        own = module.qualify(f"{cls.qualname}.{name}")
        if own in self.functions:
            return own
        for base in self._bases(class_qualified):
            found = self.method(base, name, seen | {class_qualified})
            if found:
                return found
        return None

    def forward(self, class_qualified: str | None) -> str | None:
        if class_qualified is None or not self.is_module_class(class_qualified):
            return None
        return self.method(class_qualified, "forward")

    def _class_attribute(self, class_qualified: str, attr: str) -> tuple[ModuleSummary, ClassSummary] | None:
        """The class (itself or a base) whose ``__init__`` assigns ``self.attr``."""
        seen: set[str] = set()
        pending = [class_qualified]
        while pending:
            current = pending.pop(0)
            if current in seen or current not in self.classes:
                continue
            seen.add(current)
            module, cls = self.classes[current]
            if attr in cls.attr_types or attr in cls.container_items:
                return module, cls
            pending += self._bases(current)
        return None

    def attribute_classes(self, class_qualified: str, attr: str) -> list[str]:
        """Classes held by ``self.attr``: one for ``Block()``, each item for a ``ModuleList``/``Sequential``."""
        found = self._class_attribute(class_qualified, attr)
        if found is None:
            return []
        module, cls = found
        if attr in cls.container_items:
            items = (self.instance_class(module, written) for written in cls.container_items[attr])
            return list(dict.fromkeys(c for c in items if c))
        cls_name = self.instance_class(module, cls.attr_types[attr])
        return [cls_name] if cls_name else []

    # -- calls ----------------------------------------------------------------------------------
    def is_disabled(self, qualified: str) -> bool:
        entry = self.functions.get(qualified)
        return bool(entry and entry[1].disabled)

    def is_traced(self, qualified: str) -> bool:
        entry = self.functions.get(qualified)
        return bool(entry) and not entry[1].disabled and not entry[1].not_traced  # type: ignore[index]

    def resolve_calls(self, caller: str, callee: str) -> list[Callee]:
        """Every function in the tree that ``callee``, written inside ``caller``, may run."""
        entry = self.functions.get(caller)
        if entry is None:
            return []
        module, function = entry
        alias = self._disabled_alias(module, callee)
        if alias is not None:
            return [Callee(alias, True)] if alias in self.functions else []
        return [Callee(t, self.is_disabled(t)) for t in self._targets(module, function, callee)]

    def _disabled_alias(self, module: ModuleSummary, callee: str) -> str | None:
        """``fast = torch.compiler.disable(f)`` at module level, here or imported from another module."""
        if "." not in callee and callee in module.disabled_aliases:
            return self.resolve_name(module, module.disabled_aliases[callee]) or ""
        qualified = self.canonical(module.imports.resolve(callee))
        if qualified and "." in qualified:
            owner, _, name = qualified.rpartition(".")
            defining = self.modules.get(owner)
            if defining is not None and name in defining.disabled_aliases:
                return self.resolve_name(defining, defining.disabled_aliases[name]) or ""
        return None

    def resolve_call(self, caller: str, callee: str) -> Callee | None:
        found = self.resolve_calls(caller, callee)
        return found[0] if found else None

    def _targets(self, module: ModuleSummary, function: FunctionSummary, callee: str) -> list[str]:
        parts = callee.split(".")
        own_class = module.qualify(function.class_name) if function.class_name else None
        if parts[0] in ("self", "cls") and own_class and len(parts) in (2, 3):
            held = self.attribute_classes(own_class, parts[1])
            if len(parts) == 2:
                if held:
                    return [f for f in map(self.forward, held) if f]
                found = self.method(own_class, parts[1])
                return [found] if found else []
            return [f for f in (self.method(c, parts[2]) for c in held) if f]
        if len(parts) == 1:
            nested = module.qualify(f"{function.qualname}.{callee}")
            if nested in self.functions:
                return [nested]
            if callee in function.loop_containers and own_class:
                held = self.attribute_classes(own_class, function.loop_containers[callee])
                return [f for f in map(self.forward, held) if f]
            local_type = function.local_types.get(callee) or module.module_types.get(callee)
            if local_type:
                forward = self.forward(self.instance_class(module, local_type))
                if forward:
                    return [forward]
        if len(parts) == 2 and (function.local_types.get(parts[0]) or module.module_types.get(parts[0])):
            written = function.local_types.get(parts[0]) or module.module_types[parts[0]]
            cls = self.instance_class(module, written)
            found = self.method(cls, parts[1]) if cls else None
            if found:
                return [found]
        # Calling a class constructs it (``__init__`` is not compiled code we lint); only functions count.
        qualified = self.resolve_name(module, callee)
        return [qualified] if qualified in self.functions else []

    def issues_collectives(self, qualified: str) -> bool:
        """Whether the function, or anything it calls in the tree, issues ``torch.distributed`` collectives."""
        if qualified not in self._collectives_memo:
            self._collectives_memo[qualified] = False  # cycles: assume no until shown otherwise
            entry = self.functions.get(qualified)
            found = bool(entry and entry[1].collectives) or any(
                self.issues_collectives(callee.function)
                for call in (entry[1].calls if entry else ())
                for callee in self.resolve_calls(qualified, call.callee)
            )
            self._collectives_memo[qualified] = found
        return self._collectives_memo[qualified]

    def returns_tensor(self, caller: str, callee: str) -> bool | None:
        """Whether every function ``callee`` may run returns tensors; ``None`` when none is in the tree."""
        found = self.resolve_calls(caller, callee)
        if not found:
            return None
        return all(self.functions[c.function][1].returns_tensor for c in found)

    def region_of(self, qualified: str) -> Region | None:
        """The region of a function, inheriting the enclosing function's for nested definitions."""
        region = self.regions.get(qualified)
        if region is not None or qualified not in self.functions:
            return region
        if not self.is_traced(qualified):
            return None
        parent = qualified.rsplit(".", 1)[0]
        return self.region_of(parent) if parent in self.functions else None

    # -- entry points ---------------------------------------------------------------------------
    def site_targets(self, summary: ModuleSummary, site: CompileSite) -> list[str]:
        if site.target_kind == "function":
            return [site.target]
        if site.target_kind == "class":
            forward = self.forward(self.instance_class(summary, site.target))
            return [forward] if forward else []
        if site.target_kind == "method":
            written, _, name = site.target.partition(":")
            cls = self.instance_class(summary, written)
            found = self.method(cls, name) if cls else None
            return [found] if found else []
        qualified = self.resolve_name(summary, site.target)
        if qualified in self.functions:
            return [qualified]
        forward = self.forward(qualified) if qualified in self.classes else None
        return [forward] if forward else []


def link(summaries: list[ModuleSummary], settings: DynamoSettings | None = None) -> Program:
    """Build the call graph over ``summaries`` and compute every compiled region."""
    program = Program(modules={s.module: s for s in summaries})
    program.settings = settings or DynamoSettings()
    for summary in summaries:
        program.settings = program.settings.updated(summary.dynamo_config)
        for qualname, function in summary.functions.items():
            program.functions[summary.qualify(qualname)] = (summary, function)
        for qualname, cls in summary.classes.items():
            program.classes[summary.qualify(qualname)] = (summary, cls)
    _propagate(program, _entry_points(program))
    _propagate(program, _uncompiled_forwards(program))
    return program


def _entry_points(program: Program) -> list[tuple[str, Region]]:
    entries = []
    for summary in program.modules.values():
        for site in summary.compile_sites:
            for target in program.site_targets(summary, site):
                if not program.is_traced(target):
                    continue
                name = program.functions[target][1].qualname
                chain = (ChainLink(summary.path, site.line, name, site.how),)
                entries.append((target, Region(name, Confidence.CERTAIN, chain, site.settings.fullgraph, target)))
    return entries


def _uncompiled_forwards(program: Program) -> list[tuple[str, Region]]:
    entries = []
    for qualified, (summary, cls) in program.classes.items():
        forward = f"{qualified}.forward"
        if forward in program.functions and forward not in program.regions and program.is_module_class(qualified):
            function = program.functions[forward][1]
            how = f"forward of nn.Module subclass {cls.qualname} (no compile site in the tree)"
            chain = (ChainLink(summary.path, function.lineno, function.qualname, how),)
            entries.append((forward, Region(function.qualname, Confidence.LIKELY, chain, entry=forward)))
    return entries


def _propagate(program: Program, entries: list[tuple[str, Region]]) -> None:
    queue: deque[tuple[str, Region]] = deque(entries)
    while queue:
        qualified, region = queue.popleft()
        if qualified in program.regions:
            continue
        program.regions[qualified] = region
        summary, function = program.functions[qualified]
        for call in function.calls:
            for callee in program.resolve_calls(qualified, call.callee):
                if callee.function in program.regions or not program.is_traced(callee.function):
                    continue
                callee_function = program.functions[callee.function][1]
                link_ = ChainLink(summary.path, call.line, callee_function.qualname, "called")
                queue.append(
                    (callee.function, replace(region, function=callee_function.qualname, chain=region.chain + (link_,)))
                )
