"""The kinds of value the value analysis tells apart, and the value types annotations give.

Bottom of the value analysis: ``scope.py`` computes kinds over LibCST expressions; ``type_hints.py``
turns the annotations the summarize stage read into ``ValueType``s for the program stage to hand the
lint stage (parameter and return types). Nothing here reads a tree.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass

from dynalint.model.finding import Confidence


class Kind(enum.IntEnum):
    CONST = 0  # a Python constant or a value known not to depend on tensors
    META = 1  # shape, dtype, device, dim, numel, len, requires_grad, self.training
    UNKNOWN = 2
    # An un-annotated ``forward`` input: a tensor as soon as a tensor method is called on it, but used
    # bare (``if flag:``, ``x[:, a:b]``) it may as well be a Python flag or int, so it is never data.
    INPUT = 3
    # Probably a tensor: the result of a reduction such as ``.sum()`` / ``.any()`` on a receiver of
    # unknown type. Rules report it at ``likely`` confidence; it never becomes ``TENSOR``.
    LIKELY_TENSOR = 4
    DATA = 5  # a Python value read from tensor contents: ``.item()``, ``int(t)``, ``bool(t)``
    TENSOR = 6

    @property
    def is_tensor_like(self) -> bool:
        return self in (Kind.TENSOR, Kind.LIKELY_TENSOR)

    @property
    def confidence(self) -> Confidence:
        """How sure a finding resting on a value of this kind can be."""
        return Confidence.CERTAIN if self in (Kind.TENSOR, Kind.DATA) else Confidence.LIKELY

    @property
    def may_be_tensor(self) -> bool:
        """A receiver that a tensor-only method may be called on: a tensor, probably one, or not known."""
        return self in (Kind.TENSOR, Kind.LIKELY_TENSOR, Kind.INPUT, Kind.UNKNOWN)

    @property
    def is_data_dependent(self) -> bool:
        """A tensor, a probable tensor or a value read out of one: what branches and slices must not use."""
        return self in (Kind.TENSOR, Kind.LIKELY_TENSOR, Kind.DATA)


def combined(*kinds: Kind) -> Kind:
    """The kind of arithmetic on, or a comparison of, values of ``kinds``: a tensor as soon as one operand
    is one (``reg_m < -nx.max(M)`` with ``reg_m = float(...)`` compares a Python number with a probable
    tensor, and gives a probable tensor, not a Python value), else the strongest of them."""
    tensors = [kind for kind in kinds if kind.is_tensor_like]
    return max(tensors or kinds, default=Kind.CONST)


@dataclass(frozen=True)
class ValueType:
    """What an annotation says a value is: its kind, what indexing or iterating it gives (``List[Tensor]``,
    ``Dict[str, Tensor]``, ``Tuple[Tensor, ...]``), and a fixed tuple's elements (``Tuple[Tensor, int]``)."""

    kind: Kind = Kind.UNKNOWN
    item: Kind = Kind.UNKNOWN
    elements: tuple[Kind, ...] | None = None

    def element(self, index: int | None) -> Kind:
        """The kind of ``value[index]`` (``None``: an index not known statically)."""
        if self.elements is not None:
            if index is not None and -len(self.elements) <= index < len(self.elements):
                return self.elements[index]
            if index is None and len(set(self.elements)) == 1:
                return self.elements[0]
            return Kind.UNKNOWN
        return self.item


UNKNOWN_TYPE = ValueType()
