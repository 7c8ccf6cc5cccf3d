"""Program stage, dynamic dispatch's last resort: the classes of the tree that a value's name names.

A framework stores what its user hands it and calls it later: gpytorch's ``ApproximateGP`` keeps
``self.variational_strategy = variational_strategy`` and calls ``self.variational_strategy(x)``;
pytorch-metric-learning's losses keep a ``reducer``. When no call in the tree passes the value, the dispatch
sources (``dispatch.py``) say nothing of its class, and neither does an annotation. Its name still does, by the
convention that a value is named for its class in snake case: ``variational_strategy`` holds a
``VariationalStrategy`` or a class whose name ends so (``IndependentMultitaskVariationalStrategy``), and
``reducer`` one of the ``*Reducer`` classes. ``Program`` asks here only after every other way has found nothing.

Nothing here looks at a syntax tree: it reads the qualified names of the tree's classes.
"""

from __future__ import annotations

from collections.abc import Iterable

# A name naming more classes than this says too little (``model`` in a library of models): only the classes of
# exactly that name are taken.
MAX_NAMED_CLASSES = 12
# A class name spelled shorter than this is an abbreviation or a variable's (``fn``, ``op``, ``attn``: diffusers'
# ``self.attn`` is an attention, not one of its ``*CrossAttn`` blocks).
_MIN_NAME_LENGTH = 5


def class_name_for(value_name: str) -> str:
    """The class name a value's snake-case name spells: ``variational_strategy`` -> ``VariationalStrategy``
    (leading and trailing underscores dropped: ``_reducer`` -> ``Reducer``)."""
    return "".join(word[:1].upper() + word[1:] for word in value_name.strip("_").split("_") if word)


class NamedClasses:
    """The classes of one tree, looked up by the names of the values that may hold them (memoized per name)."""

    def __init__(self, qualified_classes: Iterable[str]) -> None:
        # a class's own name, leading underscores dropped (``_VariationalStrategy`` is a ``VariationalStrategy``)
        self._bare = [(qualified.rpartition(".")[2].lstrip("_"), qualified) for qualified in qualified_classes]
        self._memo: dict[str, list[str]] = {}

    def named(self, value_name: str) -> list[str]:
        """The classes whose name is, or ends with, the class name ``value_name`` spells. Where that is more than
        ``MAX_NAMED_CLASSES``, only those whose name is the one spelled (gpytorch's fifteen ``*VariationalStrategy``
        classes: ``VariationalStrategy`` and its base ``_VariationalStrategy``); none when the name is too short
        to be a class's."""
        if value_name not in self._memo:
            wanted = class_name_for(value_name)
            found = [(bare, qualified) for bare, qualified in self._bare if bare.endswith(wanted)] if (
                len(wanted) >= _MIN_NAME_LENGTH and wanted[:1].isupper()) else []
            if len(found) > MAX_NAMED_CLASSES:
                found = [(bare, qualified) for bare, qualified in found if bare == wanted]
            self._memo[value_name] = [qualified for _, qualified in found[:MAX_NAMED_CLASSES]]
        return self._memo[value_name]
