"""The value analysis: what Dynamo knows about an expression while it traces one compiled function.

One abstract interpreter, in three modules read bottom to top:

- ``lattice.py``: the kinds of value (``Kind``: unknown < constant < metadata < tensor < data, joined by
  ``max``) and the value types annotations and summaries give (``ValueType``: a kind, with the kinds of
  a tuple's elements);
- ``scope.py``: ``ValueScope``, one per function: the kind of any expression from the bindings made
  before it (assignments, unpacking, containers, calls through the program's return types);
- ``flow.py``: ``ValueFlow``, how control flow changes those bindings as the engine walks a function:
  ``isinstance`` narrowing (and its reverse after an early exit), the join of an ``if``'s branches,
  loop targets, and comprehension scopes.

The region provider (``regions.py``) owns a ``ValueFlow`` and hands rules the current ``ValueScope``.
Importing this package imports nothing: ``lattice.py`` is read on the static path without LibCST.
"""
