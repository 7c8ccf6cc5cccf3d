"""DYN508 ``built-object-method``: a method that breaks, called on an object built in the compiled code.

Page: ``rules/DYN508-built-object-method.md``. Measured on torch 2.13: when compiled code builds an
object (``solver = Solver(y0)``, a factory's result, ``SOLVERS[name](...)``, or ``Solver(y0).integrate(t)``
at once; a plain class, a dataclass or an ``nn.Module``) and calls a method of it that breaks anywhere
inside, Dynamo cannot rebuild the new object to resume inside the method ("Reconstruction failure",
GB0092). It breaks at the call as well, runs the method as a frame of its own (where the method's own
break follows) and the rest of the caller eagerly. Not for an object that came in from outside (an
argument, ``self.solver`` built in ``__init__``), a property's getter, a breaking ``__init__``, a
function the new object is passed to, nor an object whose ``__init__`` surely breaks (it is built
eagerly, and its methods resume).

The same holds for any method of a ``torch.Tensor`` subclass of the tree (pypose's ``LieTensor``), on an
input too: measured, ``x.tensor()`` whose ``Tensor.as_subclass(self, Tensor)`` breaks (DYN512) breaks again
at the call ("Reconstruction failure"), and Dynamo runs the rest of the caller eagerly (a second call
and a ``print`` after it did not break).

The pattern needs the callee's breaks, which other rules find in other functions and files, so this
rule has no visitor: the lint stage's program post-pass (``pipeline/callee_breaks.py``) reports it at the
call, after every file of the run is linted, when the method (or a function it calls) holds a finding
of a break rule. It is ``likely`` when that finding is, or when the call reaches the method by
dynamic dispatch.
"""

from __future__ import annotations

from dynalint.lint.rule import Rule


class BuiltObjectMethod(Rule):
    code = "DYN508"
    name = "built-object-method"
    message = ("`{call}` runs `{method}`, which breaks the graph, on {receiver}: "
               "Dynamo cannot rebuild the object to resume inside it and breaks at this call too")
    BUILT_RECEIVER = "an object built in compiled code"
    SUBCLASS_RECEIVER = "a tensor subclass instance"
    help = ("Build the object once outside the compiled code (in `__init__`) and reuse it, "
            "or remove the break inside the method")
    gb_ids = ("GB0092",)

    # A post-pass, though not the engine's: it has no visitor and its ``after`` reads nothing. The flag makes
    # the engine run every break rule when DYN508 is selected alone, whose findings the program post-pass reads.
    reads_reports = True
