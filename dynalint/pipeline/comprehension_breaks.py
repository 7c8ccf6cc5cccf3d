"""Lint stage, the program post-pass: DYN111 where the break inside a comprehension is in a function it calls.

Called by ``pipeline/callee_breaks.py`` (``findings``), after every file of the run has been linted. The rule
itself (``checks/comprehension_resume.py``) sees the breaks of one function: a comprehension whose body
breaks on its own lines. Here the break is in a callee, known from the run's findings
(``CalleeBreaks.may_break``). Measured on torch 2.13 (Python 3.11), a comprehension whose body calls a function
that breaks breaks again on its own line when Dynamo cannot rebuild what it iterates, as when the break is
written inside it:

- over a dict view, ``d.items()`` / ``d.values()`` / ``d.keys()``, list, dict and set comprehensions:
  "Reconstruction failure" (GB0092), and GB4347 too for ``values()`` and ``keys()``;
- over what an ``nn.Module`` method yields (``self.parameters()``, ``named_modules()``...): "Generator
  reconstruction with mutations" (GB8335), and the function is given up;
- over ``enumerate(xs)``, a list comprehension: GB8335 (over ``enumerate(d.values())``, nothing more);
- over an ``nn.ModuleList`` / ``Sequential`` the module holds, calling its layers: GB0092 and GB4347;
- a generator expression that ``sum``, ``any``, ``all`` or ``set`` consumes, over anything, whose body breaks in a
  callee or on its own lines: "Generator reconstruction with mutations" (GB8335); a size read from tensor values on
  its own lines (``v[v > 0]``, GB0036) is the exception, and breaks only there. Handed to ``tuple``, ``list``,
  ``sorted`` or ``max``, or looped over by a ``for``, it gives nothing more.

Over ``zip(...)``, ``map(...)`` or a plain list, a break in a callee gives nothing more (measured), and no
finding is made. Where the lint stage already reported the comprehension, nothing is added.
"""

from __future__ import annotations

import ast
from typing import TYPE_CHECKING, Protocol

from dynalint.analysis.qualified_names import dotted_name
from dynalint.analysis.torch_facts import DICT_VIEWS, MODULE_GENERATORS
from dynalint.model.finding import Confidence, Finding, Position, Region

if TYPE_CHECKING:
    from collections.abc import Collection, Sequence

    from dynalint.analysis.program import Program
    from dynalint.analysis.summary import FunctionSummary, ModuleSummary

class CalleeBreaks(Protocol):
    """What the post-pass knows of the run's breaks (``callee_breaks.CalleeBreaks``, which calls this module)."""

    def may_break(self, qualified: str) -> Confidence | None: ...


class Definitions(Protocol):
    """A file's function definitions, parsed on demand (``callee_breaks.Definitions``)."""

    def located(self, function: FunctionSummary) -> tuple[ast.FunctionDef | ast.AsyncFunctionDef, int, int] | None: ...


COMPREHENSIONS = (ast.ListComp, ast.DictComp, ast.SetComp)
GENERATOR_CONSUMERS = frozenset({"sum", "any", "all", "set"})
# A size read from tensor values, written in the generator expression itself (``sum(v[v > 0].sum() for v in ...)``),
# breaks there without breaking again at the expression (measured on torch 2.13); in a function it calls, it does.
DYNAMIC_SHAPES = frozenset({"GB0036", "GB0033", "GB0246"})


def findings(program: Program, breaks: CalleeBreaks, module: ModuleSummary, function: FunctionSummary,
             region: Region, definitions: Definitions, display: str, reported_lines: Collection[int],
             file_breaks: Sequence[Finding] = ()) -> list[Finding]:
    """DYN111 at each comprehension of ``function`` whose body calls a function certain to break, over an iterator
    Dynamo cannot rebuild, and at each generator expression that ``sum`` / ``any`` / ``all`` / ``set`` consume
    whose body breaks, in such a callee or on its own lines (``file_breaks``: the break findings of the file);
    ``reported_lines``: the lines the rule already reported in the file. A callee that only may break (a
    ``likely`` finding somewhere inside) is left out: on the ground truth's development half it often ran clean
    (skorch's ``to_tensor``, tensordict's ``_clone_value``)."""
    breaking = {(site.line, site.callee) for site, callee in program.callees(module.qualify(function.qualname))
                if not callee.disabled and not callee.via and program.is_traced(callee.function)
                and breaks.may_break(callee.function) is Confidence.CERTAIN}
    certain_inside = [f for f in file_breaks if function.start_line <= f.start.line <= function.end_line
                      and f.confidence is Confidence.CERTAIN and not set(f.gb_ids) <= DYNAMIC_SHAPES]
    if not breaking and not certain_inside:
        return []
    located = definitions.located(function)
    if located is None:
        return []
    definition, line_shift, column_shift = located
    owner = module.qualify(function.class_name) if function.class_name else None
    out: list[Finding] = []
    for node in ast.walk(definition):
        consumed = _consumed_generator(node)
        if consumed is not None:
            body = (consumed.elt, *consumed.generators[0].ifs)
            if consumed.lineno + line_shift not in reported_lines and (
                    breaking.intersection(_body_calls(consumed, line_shift))
                    or any(_spans(part, line_shift, column_shift, f) for f in certain_inside for part in body)):
                iterated = ast.unparse(consumed.generators[0].iter)
                out.append(_finding(consumed, line_shift, column_shift, display,
                                    iterated if len(iterated) <= 40 else iterated[:37] + "...", region, generator=True))
        elif isinstance(node, COMPREHENSIONS) and node.lineno + line_shift not in reported_lines:
            iterator = _unrebuildable(program, owner, node)
            if iterator is not None and breaking.intersection(_body_calls(node, line_shift)):
                out.append(_finding(node, line_shift, column_shift, display, iterator, region))
    return out


def _unrebuildable(program: Program, owner: str | None,
                   node: ast.ListComp | ast.DictComp | ast.SetComp) -> str | None:
    """What the comprehension iterates, as its message shows it, when it is one Dynamo cannot rebuild after a
    break inside; else ``None``."""
    if len(node.generators) != 1:
        return None  # nested loops were measured not to break again
    iterated = node.generators[0].iter
    if isinstance(iterated, ast.Call):
        func = iterated.func
        name = func.attr if isinstance(func, ast.Attribute) else None
        if name in MODULE_GENERATORS or (name in DICT_VIEWS and not iterated.args and not iterated.keywords):
            return f"{dotted_name(func) or name}()"
        if (dotted_name(func) == "enumerate" and isinstance(node, ast.ListComp) and iterated.args
                and not isinstance(iterated.args[0], ast.Call)):
            return "enumerate()"  # of a list, measured; of a dict view, nothing more
        return None
    if (isinstance(iterated, ast.Attribute) and isinstance(iterated.value, ast.Name) and iterated.value.id == "self"
            and owner is not None):
        held = program.attribute_types(owner).get(iterated.attr)
        if held is not None and held.is_container:
            return f"iter(self.{iterated.attr})"
    return None


def _consumed_generator(node: ast.AST) -> ast.GeneratorExp | None:
    """The generator expression ``node`` hands to ``sum`` / ``any`` / ``all`` / ``set``, with one loop. Measured on
    torch 2.13: a break inside it breaks again at the expression ("Generator reconstruction with mutations",
    GB8335); handed to ``tuple``, ``list``, ``sorted`` or ``max``, or looped over by a ``for``, it does not."""
    if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in GENERATOR_CONSUMERS
            and len(node.args) == 1 and isinstance(node.args[0], ast.GeneratorExp)):
        return None
    generator = node.args[0]
    return generator if len(generator.generators) == 1 else None


def _spans(part: ast.expr, line_shift: int, column_shift: int, finding: Finding) -> bool:
    """Whether ``finding`` lies inside ``part`` of a definition parsed with those shifts."""
    start = (part.lineno + line_shift, part.col_offset + column_shift + 1)
    end = ((part.end_lineno or part.lineno) + line_shift, (part.end_col_offset or part.col_offset) + column_shift + 1)
    return start <= (finding.start.line, finding.start.column) and (finding.end.line, finding.end.column) <= end


def _body_calls(node: ast.ListComp | ast.DictComp | ast.SetComp | ast.GeneratorExp,
                line_shift: int) -> list[tuple[int, str]]:
    """The calls the comprehension makes for each item (in its element, key, value and conditions), as the
    summary records them: (line, callee as written)."""
    made = [node.key, node.value] if isinstance(node, ast.DictComp) else [node.elt]
    parts = [*made, *node.generators[0].ifs]
    return [(call.lineno + line_shift, written) for part in parts for call in ast.walk(part)
            if isinstance(call, ast.Call) and (written := dotted_name(call.func))]


def _finding(node: ast.ListComp | ast.DictComp | ast.SetComp | ast.GeneratorExp, line_shift: int, column_shift: int,
             display: str, iterator: str, region: Region, generator: bool = False) -> Finding:
    """The finding at ``node``, as sure as its region is (the break inside is certain)."""
    from dynalint.checks.comprehension_resume import ComprehensionResume

    gives_up = not generator and iterator.rsplit(".", 1)[-1].removesuffix("()") in MODULE_GENERATORS
    unbuilt_generator = gives_up or generator or iterator == "enumerate()"
    line, end_line = node.lineno + line_shift, (node.end_lineno or node.lineno) + line_shift
    start = node.col_offset + column_shift + 1
    end = (node.end_col_offset or node.col_offset) + column_shift + 1
    return Finding(
        code=ComprehensionResume.code, name=ComprehensionResume.name,
        message=ComprehensionResume.message.format(iterator=iterator), filename=display,
        start=Position(line, start), end=Position(end_line, end), help=ComprehensionResume.help,
        confidence=region.confidence, gb_ids=("GB8335",) if unbuilt_generator else ComprehensionResume.gb_ids,
        region=region, gives_up_frame=gives_up,
    )
