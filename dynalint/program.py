"""Program stage: link module summaries into a call graph and compute the compiled regions.

Input: the ``ModuleSummary`` of every file (``summary.py``). Output: a ``Program`` that answers, for a
module-qualified function name, the ``Region`` it belongs to (why it is compiled, how sure we are) and
how a call written inside a function resolves. Entry points are ``torch.compile`` sites; regions are
everything reachable from them, breadth first so that each why-chain is a shortest one. ``forward``
methods of ``nn.Module`` subclasses that no entry point reaches become ``likely`` regions. Functions
Dynamo never traces (``torch.compiler.disable``) are never regions. The region provider
(``regions.py``) hands this to rules; nothing here looks at LibCST.
"""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass, field, replace

from dynalint.finding import ChainLink, Confidence, Region
from dynalint.settings import DynamoSettings
from dynalint.summary import MODULE_BASES, ClassSummary, FunctionSummary, ModuleSummary


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

    # -- lookups --------------------------------------------------------------------------------
    def resolve_class(self, module: ModuleSummary, written: str) -> str | None:
        """Qualified name of a class written as ``written`` in ``module``, if it is in the tree.

        ``written`` may already be qualified (summaries store bases and attribute types resolved).
        """
        if written in self.classes:
            return written
        qualified = module.imports.resolve(written)
        if qualified in self.classes:
            return qualified
        local = module.qualify(written)
        return local if local in self.classes else None

    def is_module_class(self, qualified: str, seen: frozenset[str] = frozenset()) -> bool:
        entry = self.classes.get(qualified)
        if entry is None or qualified in seen:
            return False
        module, cls = entry
        for base in cls.bases:
            if base in MODULE_BASES:
                return True
            resolved = self.resolve_class(module, base)
            if resolved and self.is_module_class(resolved, seen | {qualified}):
                return True
        return False

    def method(self, class_qualified: str, name: str, seen: frozenset[str] = frozenset()) -> str | None:
        """Module-qualified name of ``name`` on the class or its first base in the tree that has it."""
        entry = self.classes.get(class_qualified)
        if entry is None or class_qualified in seen:
            return None
        module, cls = entry
        own = module.qualify(f"{cls.qualname}.{name}")
        if own in self.functions:
            return own
        for base in cls.bases:
            resolved = self.resolve_class(module, base)
            found = self.method(resolved, name, seen | {class_qualified}) if resolved else None
            if found:
                return found
        return None

    def attribute_class(self, class_qualified: str, attr: str) -> str | None:
        entry = self.classes.get(class_qualified)
        if entry is None:
            return None
        module, cls = entry
        written = cls.attr_types.get(attr)
        if written is None:
            for base in cls.bases:
                resolved = self.resolve_class(module, base)
                if resolved:
                    found = self.attribute_class(resolved, attr)
                    if found:
                        return found
            return None
        return self.resolve_class(module, written)

    def is_disabled(self, qualified: str) -> bool:
        entry = self.functions.get(qualified)
        return bool(entry and entry[1].disabled)

    def resolve_call(self, caller: str, callee: str) -> Callee | None:
        """Resolve ``callee`` as written inside the function ``caller`` (both module-qualified)."""
        entry = self.functions.get(caller)
        if entry is None:
            return None
        module, function = entry
        if len(callee.split(".")) == 1 and callee in module.disabled_aliases:
            wrapped = module.imports.resolve(module.disabled_aliases[callee])
            return Callee(wrapped, True) if wrapped in self.functions else None
        target = self._target(module, function, callee)
        if target is None:
            return None
        return Callee(target, self.is_disabled(target))

    def _target(self, module: ModuleSummary, function: FunctionSummary, callee: str) -> str | None:
        parts = callee.split(".")
        own_class = module.qualify(function.class_name) if function.class_name else None
        if parts[0] == "self" and own_class and len(parts) >= 2:
            if len(parts) == 2:
                attr_class = self.attribute_class(own_class, parts[1])
                if attr_class is not None:
                    return self._forward(attr_class)
                return self.method(own_class, parts[1])
            if len(parts) == 3:
                attr_class = self.attribute_class(own_class, parts[1])
                return self.method(attr_class, parts[2]) if attr_class else None
            return None
        if len(parts) == 1:
            nested = module.qualify(f"{function.qualname}.{callee}")
            if nested in self.functions:
                return nested
            local_type = function.local_types.get(callee) or module.module_types.get(callee)
            if local_type:
                cls = self.resolve_class(module, local_type)
                return self._forward(cls) if cls else None
        qualified = module.imports.resolve(callee)
        if qualified in self.functions:
            return qualified
        return None

    def _forward(self, class_qualified: str) -> str | None:
        return self.method(class_qualified, "forward") if self.is_module_class(class_qualified) else None

    def region_of(self, qualified: str) -> Region | None:
        """The region of a function, inheriting the enclosing function's for nested definitions."""
        region = self.regions.get(qualified)
        if region is not None or qualified not in self.functions:
            return region
        if self.is_disabled(qualified):
            return None
        parent = qualified.rsplit(".", 1)[0]
        return self.region_of(parent) if parent in self.functions else None


def link(summaries: list[ModuleSummary], settings: DynamoSettings | None = None) -> Program:
    """Build the call graph over ``summaries`` and compute every compiled region."""
    program = Program(modules={s.module: s for s in summaries})
    program.settings = settings or DynamoSettings()
    for summary in summaries:
        program.settings = program.settings.updated(summary.dynamo_config)
    for summary in summaries:
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
            target: str | None = None
            if site.target_kind == "function":
                target = site.target
            elif site.target_kind == "class":
                cls = program.resolve_class(summary, site.target)
                target = program._forward(cls) if cls else None
            else:
                qualified = summary.imports.resolve(site.target)
                if qualified in program.functions:
                    target = qualified
            if target is None or program.is_disabled(target):
                continue
            name = program.functions[target][1].qualname
            chain = (ChainLink(summary.path, site.line, name, site.how),)
            entries.append((target, Region(name, Confidence.CERTAIN, chain, site.settings.fullgraph)))
    return entries


def _uncompiled_forwards(program: Program) -> list[tuple[str, Region]]:
    entries = []
    for qualified, (summary, cls) in program.classes.items():
        forward = f"{qualified}.forward"
        if forward in program.functions and forward not in program.regions and program.is_module_class(qualified):
            function = program.functions[forward][1]
            how = f"forward of nn.Module subclass {cls.qualname} (no compile site in the tree)"
            chain = (ChainLink(summary.path, function.lineno, function.qualname, how),)
            entries.append((forward, Region(function.qualname, Confidence.LIKELY, chain)))
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
            callee = program.resolve_call(qualified, call.callee)
            if callee is None or callee.disabled or callee.function in program.regions:
                continue
            callee_function = program.functions[callee.function][1]
            link_ = ChainLink(summary.path, call.line, callee_function.qualname, "called")
            queue.append(
                (callee.function, replace(region, function=callee_function.qualname, chain=region.chain + (link_,)))
            )
