"""DYN102 ``data-dependent-branch``: Python asks a tensor for its truth. Page: ``rules/DYN102-data-dependent-branch.md``.

Python asks a value for its truth in more places than ``if``: the test of ``if``, ``while``, a
conditional expression and a comprehension's ``if``; the operand of ``not``; and every
operand of ``and`` / ``or`` but the last, wherever the operation stands (``keep = t.any() or force``
asks ``t.any()``; ``keep = force or t.any()`` only returns it). This rule follows those truth tests
down to the values they ask (``_tested``), and the value analysis says which of them are tensors.
A container of tensors is a Python object whose truth is its length (``if outs:``), never data. The
test of ``assert`` is the exception: Dynamo turns ``assert t.all()`` into a check in the graph, with no
break (measured on torch 2.13; DYN108's page proves it), so only the truth tests inside it count
(``assert t.all() or strict`` asks ``t.all()`` in its ``or``, and breaks). Dynamo rewrites the assert only
when its message, if any, is a string literal: with a computed one (``'bad {}'.format(t)``, an f-string,
a name) the test is an ordinary jump on a tensor, and breaks.
An operand Dynamo never evaluates is skipped: the right side of ``is_compiling() or X`` and of
``not is_compiling() and X``, with the guard spelled through a helper or a name bound to a
combination holding it (``under_trace = torch.jit.is_scripting() or is_compiling()``). A data test that
runs only under a static test on metadata (``x.dtype == torch.float16 and torch.isinf(x).any()``) is
reported at ``likely``, the message naming the test.

Two builtins ask for truth out of sight: ``any()`` / ``all()`` of a generator or list whose elements are
tensors (``any(p.sum() > 0 for p in parts)``) ask each element's, and ``t in [a, b]`` / ``t not in (a, b)``
compares ``t`` with each item and asks the result's truth, wherever it stands (GB0170 under an ``if``, GB0033
elsewhere; measured on torch 2.13). A set or dict on the right hashes instead, and traces.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

import libcst as cst

from dynalint.analysis.torch_facts import PYTHON_TYPES, TENSOR_TYPES
from dynalint.analysis.values.flow import and_operands, isinstance_narrowed, or_operands
from dynalint.analysis.values.lattice import Kind
from dynalint.lint.rewrites import Replace, Rewrite, is_pure, module_name, where_call
from dynalint.lint.rule import Rule
from dynalint.model.finding import Applicability, Confidence

if TYPE_CHECKING:
    from dynalint.analysis.regions import LintContext

_SHOWN_CONDITION = 60  # characters of a static guard quoted in the message
# Builtins that ask a value for its truth: ``bool(t)``, and ``any`` / ``all`` of a tensor, which ask each element's.
_TRUTH_BUILTINS = {"builtins.bool": "`bool()`", "builtins.any": "`any()`", "builtins.all": "`all()`"}


class DataDependentBranch(Rule):
    code = "DYN102"
    name = "data-dependent-branch"
    message = "{construct} on a tensor's value in compiled code breaks the graph"
    help = "Compute both sides and select with `torch.where`, or use `torch.cond`"
    gb_ids = ("GB0170", "GB0124")
    fix = Applicability.UNSAFE

    def __init__(self, context: LintContext) -> None:
        super().__init__(context)
        self._judged: set[int] = set()  # ``and``/``or``/``not`` nodes already followed from an enclosing test
        self._asked: set[int] = set()  # expressions whose truth Python asks (a test, an operand of ``not``, ...)

    def visit_If(self, node: cst.If) -> None:
        self._ask(node.test)
        self._truth_test(node.test, "`if`", lambda: branch_rewrite(self.context, node), statement=node)

    def visit_While(self, node: cst.While) -> None:
        self._ask(node.test)
        self._truth_test(node.test, "`while`", statement=node)

    def visit_IfExp(self, node: cst.IfExp) -> None:
        self._ask(node.test)
        self._truth_test(node.test, "A conditional expression", lambda: selection_rewrite(self.context, node))

    def visit_CompIf(self, node: cst.CompIf) -> None:
        self._ask(node.test)
        self._truth_test(node.test, "A comprehension's `if`")

    def visit_Assert(self, node: cst.Assert) -> None:
        self._ask(node.test)
        if node.msg is not None and not _is_string_literal(node.msg):
            self._truth_test(node.test, "`assert` with a computed message", gb_ids=("GB0170",), pattern="assert")

    def visit_UnaryOperation(self, node: cst.UnaryOperation) -> None:
        if isinstance(node.operator, cst.Not):
            self._ask(node.expression)
        if isinstance(node.operator, cst.Not) and id(node) not in self._judged:
            self._truth_test(node, "`not`")

    def visit_BooleanOperation(self, node: cst.BooleanOperation) -> None:
        # Evaluated, not tested: only the operands before the last are asked for their truth.
        self._ask(node.left)
        if id(node) not in self._judged:
            self._judged.add(id(node))
            construct = "`and`" if isinstance(node.operator, cst.And) else "`or`"
            self._report_first(self._tested(node.left), node, construct, self._static_guard(node))

    def visit_Call(self, node: cst.Call) -> None:
        resolved = self.context.resolve(node.func)
        if resolved in _TRUTH_BUILTINS and len(node.args) == 1 and not node.args[0].star:
            argument = node.args[0].value
            if resolved == "builtins.bool":
                self._ask(argument)
            kind = self.context.kind(argument)
            if not kind.is_tensor_like and resolved != "builtins.bool":
                written = self.context.values.written_elements(argument)  # ``any(p.sum() > 0 for p in parts)``
                kind = written if written is not None else Kind.UNKNOWN
            if kind.is_tensor_like:
                # ``any(x > 0.5)`` steps through the tensor and asks each element for its truth (GB0170)
                self.report(node, confidence=kind.confidence, construct=_TRUTH_BUILTINS[resolved],
                            gb_ids=None if resolved == "builtins.bool" else ("GB0170",))

    def visit_Comparison(self, node: cst.Comparison) -> None:
        """``if t in [0, 1]:``: the list compares ``t`` with each item, and asking the truth of the result reads the
        data. Only where the truth is asked: as a value (``x * (t in [0, 1])``) it traces (measured on torch 2.13).
        Only lists that hold a number: ``t in (None, other)`` may be decided by identity, which reads no data."""
        if id(node) not in self._asked:
            return
        left = node.left
        for target in node.comparisons:
            if (isinstance(target.operator, (cst.In, cst.NotIn)) and isinstance(target.comparator, (cst.List, cst.Tuple))
                    and any(_is_number(e.value) for e in target.comparator.elements)):
                kind = self.context.kind(left)
                if kind.is_tensor_like:
                    self.report(node, confidence=kind.confidence, construct="`in` of a list or tuple",
                                gb_ids=("GB0170", "GB0033"))
                    return
            left = target.comparator

    def _ask(self, expression: cst.BaseExpression) -> None:
        """Note that Python asks ``expression``'s truth: in a test, so are both operands of ``and`` / ``or``."""
        self._asked.add(id(expression))
        if isinstance(expression, cst.BooleanOperation):
            self._ask(expression.left)
            self._ask(expression.right)

    def _truth_test(self, test: cst.BaseExpression, construct: str,
                    rewrite: Callable[[], Rewrite | None] | None = None, gb_ids: tuple[str, ...] | None = None,
                    pattern: str = "", statement: cst.CSTNode | None = None) -> None:
        tested = self._tested(test)
        whole = len(tested) == 1 and tested[0][0] is test  # the test is one tensor value: fixable
        self._report_first(tested, test, construct, self._static_guard(test), rewrite if whole else None, gb_ids,
                           pattern, statement)

    def _tested(self, expression: cst.BaseExpression,
                condition: str | None = None) -> list[tuple[cst.BaseExpression, str | None]]:
        """The values whose truth Python asks when it asks ``expression``'s, in evaluation order, each
        with the Python test under which it is asked at all (``(flag or t.any()) and n``: ``t.any()``
        only when ``not (flag)``), without the operands Dynamo never evaluates; the ``and``/``or``/``not``
        on the way count as judged (the walk reaches them later, standalone)."""
        if isinstance(expression, cst.BooleanOperation):
            self._judged.add(id(expression))
            tested = self._tested(expression.left, condition)
            known = self.context.values.static_truth(expression.left)
            short_circuits = known is (not isinstance(expression.operator, cst.And)) if known is not None else False
            if not self.context.never_evaluated(expression) and not short_circuits:
                reached = self.context.values.condition_of(expression)
                if reached is not None and condition is not None:
                    reached = f"{condition} and {reached}"
                asked = self._tested(expression.right, reached or condition)
                narrowed = _python_narrowed(expression, self.context)
                tested += [item for item in asked if not narrowed or self._data_under(item[0], narrowed)]
            return tested
        if isinstance(expression, cst.UnaryOperation) and isinstance(expression.operator, cst.Not):
            self._judged.add(id(expression))
            return self._tested(expression.expression, condition)
        if isinstance(expression, cst.Call) and self.context.resolve(expression.func) in _TRUTH_BUILTINS:
            return []  # reported once, at the ``bool()`` call (``any()`` gives a Python bool)
        return [(expression, condition)]

    def _data_under(self, value: cst.BaseExpression, narrowed: set[str]) -> bool:
        """Whether ``value`` is still tensor data with ``narrowed`` known to be Python values."""
        env = self.context.values.env
        saved = {name: env.get(name) for name in narrowed}
        env.update(dict.fromkeys(narrowed, Kind.CONST))
        try:
            return self.context.values.truth_kind(value).is_data_dependent
        finally:
            for name, kind in saved.items():
                if kind is None:
                    env.pop(name, None)
                else:
                    env[name] = kind

    def _report_first(self, tested: list[tuple[cst.BaseExpression, str | None]], node: cst.CSTNode,
                      construct: str, static: str | None, rewrite: Callable[[], Rewrite | None] | None = None,
                      gb_ids: tuple[str, ...] | None = None, pattern: str = "",
                      statement: cst.CSTNode | None = None) -> None:
        """One finding for the first tested value that is a tensor (Python stops at the first break)."""
        for value, reached_when in tested:
            # A statement's jump on a comparison keeps the comparison's line; on anything else, the statement's.
            at = None if isinstance(value, cst.Comparison) else statement
            if self.context.guard(value) is not None:
                continue  # its truth is known whenever Dynamo traces (``under = is_compiling() or t.any()``)
            kind = self.context.values.truth_kind(value)
            if kind is Kind.DATA and not self.context.settings.capture_scalar_outputs:
                continue  # the ``.item()`` / ``int()`` that produced the value breaks first, and is reported there
            if not kind.is_data_dependent:
                continue
            condition = static or reached_when or self.context.values.condition_of(value)
            if condition is not None:
                shown = condition if len(condition) <= _SHOWN_CONDITION else condition[: _SHOWN_CONDITION - 3] + "..."
                # On the operand asked only under the condition (``flag and t.any()``: ``t.any()``), not the whole test.
                self.report(value, confidence=Confidence.LIKELY, gb_ids=gb_ids, pattern=pattern, statement=at or node,
                            construct=f"{construct} (only when `{shown}`)")
            else:
                self.report(node, confidence=kind.confidence, gb_ids=gb_ids, pattern=pattern, statement=at,
                            construct=construct,
                            rewrite=rewrite() if rewrite is not None and kind.is_tensor_like else None)
            return

    def _static_guard(self, test: cst.BaseExpression) -> str | None:
        """In ``A and B`` (or ``A or B``) with ``A`` a static test (dtype, shape, flag) and ``B`` on data:
        the test under which ``B`` is asked (``A``, or ``not (A)``)."""
        return self.context.values.condition_of(test) if isinstance(test, cst.BooleanOperation) else None


def branch_rewrite(context: LintContext, branch: cst.If) -> Replace | None:
    """The two fixes of an ``if`` on a tensor, both unsafe:

    - ``if cond: raise E(msg)`` -> ``torch._assert_async(torch.logical_not(cond), msg)``: the check stays
      in the graph, and a failing one raises ``RuntimeError`` instead of ``E``;
    - ``if cond: y = a`` / ``else: y = b`` -> ``y = torch.where(cond, a, b)``, when both arms only assign
      the same names, in the same order, from expressions that change nothing: both are computed, and
      ``a`` and ``b`` must broadcast (which the code does not show).
    """
    if not is_pure(context, branch.test) or "#" in _inner_code(branch):
        return None  # comments inside the statement would be lost; those above it stay where they are
    torch = module_name(context.imports.aliases, "torch")
    raised = _only_raise(branch)
    if raised is not None and branch.orelse is None:
        message = _message(context, raised)
        check = cst.parse_expression(f"{torch}._assert_async({torch}.logical_not(_c), {message})")
        assert isinstance(check, cst.Call)
        check = check.with_deep_changes(check.args[0].value, args=[cst.Arg(branch.test)])
        line = cst.SimpleStatementLine([cst.Expr(check)])
        return Replace(branch, line, "check the condition in the graph with `torch._assert_async`",
                       Applicability.UNSAFE, imports=("torch",))
    if not isinstance(branch.orelse, cst.Else):
        return None
    when_true, when_false = _only_return(branch.body), _only_return(branch.orelse.body)
    if when_true is not None and when_false is not None and is_pure(context, when_true) and is_pure(context, when_false):
        select = where_call(torch, branch.test, when_true, when_false)
        return Replace(branch, cst.SimpleStatementLine([cst.Return(select)]),
                       "return a `torch.where` selection (both sides are computed)", Applicability.UNSAFE,
                       imports=("torch",))
    then, otherwise = _assignments(branch.body), _assignments(branch.orelse.body)
    if not then or then is None or otherwise is None or [n for n, _ in then] != [n for n, _ in otherwise]:
        return None
    if not all(is_pure(context, value) for _, value in (*then, *otherwise)):
        return None
    lines = []
    for (name, when_true), (_, when_false) in zip(then, otherwise):
        select = where_call(torch, branch.test, when_true, when_false)
        lines.append(cst.SimpleStatementLine([cst.Assign([cst.AssignTarget(cst.Name(name))], select)]))
    return Replace(branch, cst.Module(lines), "select with `torch.where` (both sides are computed)",
                   Applicability.UNSAFE, imports=("torch",))


def selection_rewrite(context: LintContext, choice: cst.IfExp) -> Replace | None:
    """``a if cond else b`` -> ``torch.where(cond, a, b)`` when all three change nothing (unsafe, as for
    ``if``/``else``: both sides are computed and must broadcast)."""
    if not all(is_pure(context, part) for part in (choice.test, choice.body, choice.orelse)):
        return None
    torch = module_name(context.imports.aliases, "torch")
    select = where_call(torch, choice.test, choice.body, choice.orelse)
    if choice.lpar:
        select = select.with_changes(lpar=choice.lpar, rpar=choice.rpar)
    return Replace(choice, select, "select with `torch.where` (both sides are computed)", Applicability.UNSAFE,
                   imports=("torch",))


def _only_return(block: cst.BaseSuite) -> cst.BaseExpression | None:
    if isinstance(block, cst.IndentedBlock) and len(block.body) == 1:
        line = block.body[0]
        if isinstance(line, cst.SimpleStatementLine) and len(line.body) == 1 and isinstance(line.body[0], cst.Return):
            return line.body[0].value
    return None


def _inner_code(branch: cst.If) -> str:
    return cst.Module([branch.with_changes(leading_lines=())]).code


def _only_raise(branch: cst.If) -> cst.Raise | None:
    body = branch.body
    if isinstance(body, cst.IndentedBlock) and len(body.body) == 1:
        line = body.body[0]
        if isinstance(line, cst.SimpleStatementLine) and len(line.body) == 1 and isinstance(line.body[0], cst.Raise):
            return line.body[0]
    return None


def _message(context: LintContext, raised: cst.Raise) -> str:
    """The error's message: its first argument when that is a string literal, or an f-string that reads no
    tensor data (Dynamo formats it while tracing); else the error's name."""
    error = raised.exc
    first = error.args[0] if isinstance(error, cst.Call) and error.args else None
    if first is not None and first.keyword is None and (
            isinstance(first.value, cst.SimpleString)
            or (isinstance(first.value, cst.FormattedString) and is_pure(context, first.value))):
        return cst.Module([]).code_for_node(first.value)
    name = cst.Module([]).code_for_node(error.func if isinstance(error, cst.Call) else error) if error else "assertion"
    return repr(name)


def _assignments(block: cst.BaseSuite) -> list[tuple[str, cst.BaseExpression]] | None:
    """``[(name, value)]`` when every statement of the block is ``name = value``, else ``None``."""
    if not isinstance(block, cst.IndentedBlock):
        return None
    found = []
    for line in block.body:
        if not (isinstance(line, cst.SimpleStatementLine) and len(line.body) == 1):
            return None
        statement = line.body[0]
        if not (isinstance(statement, cst.Assign) and len(statement.targets) == 1
                and isinstance(statement.targets[0].target, cst.Name)):
            return None
        found.append((statement.targets[0].target.value, statement.value))
    return found


def _is_string_literal(node: cst.BaseExpression) -> bool:
    """A message Dynamo's assert rewrite takes as it is: plain string literals, adjacent ones included."""
    if isinstance(node, cst.SimpleString):
        return True
    if isinstance(node, cst.ConcatenatedString):
        return _is_string_literal(node.left) and _is_string_literal(node.right)
    return False


def _python_narrowed(operation: cst.BooleanOperation, context: LintContext) -> set[str]:
    """``isinstance(n, int) and n < 2`` (and ``isinstance(n, int) and n > 0 and n < 2``): the names the
    operands before an ``and``'s right side prove Python values there; ``isinstance(c, torch.Tensor) or c != 1.0``
    (pytorch-optimizer's Adan): the names the operands before an ``or``'s right side, all false there, prove no
    tensors."""
    if isinstance(operation.operator, cst.And):
        return isinstance_narrowed(and_operands(operation.left), context.values, lambda types: types <= PYTHON_TYPES)
    return isinstance_narrowed(or_operands(operation.left), context.values, lambda types: types <= TENSOR_TYPES)


def _is_number(node: cst.BaseExpression) -> bool:
    """A number written out: ``1``, ``0.5``, ``-1``."""
    if isinstance(node, cst.UnaryOperation) and isinstance(node.operator, cst.Minus):
        node = node.expression
    return isinstance(node, (cst.Integer, cst.Float))
