"""``numtorch.Tag``: operator tags with torch 2.13's members and values (a leaf module, so
that the op registry, ``numtorch.library`` and the schema inference share the one enum)."""

from __future__ import annotations

import enum


class Tag(enum.Enum):
    """Operator tags, as ``torch.Tag``: ``numtorch.ops.aten.add.Tensor.tags`` holds
    ``Tag.core``, ``Tag.pointwise`` and ``Tag.pt2_compliant_tag`` as PyTorch's does.

    >>> numtorch.Tag.pointwise in numtorch.ops.aten.exp.default.tags
    True
    """

    core = 0
    cudagraph_unsafe = 1
    data_dependent_output = 2
    dynamic_output_shape = 3
    flexible_layout = 4
    generated = 5
    inplace = 6
    inplace_view = 7
    maybe_aliasing_or_mutating = 8
    needs_contiguous_strides = 9
    needs_exact_strides = 10
    needs_fixed_stride_order = 11
    nondeterministic_bitwise = 12
    nondeterministic_seeded = 13
    out = 14
    out_variant = 15
    pointwise = 16
    pt2_compliant_tag = 17
    reduction = 18
    view_copy = 19

    def __repr__(self) -> str:
        return f"<Tag.{self.name}: {self.value}>"


__all__ = ["Tag"]
