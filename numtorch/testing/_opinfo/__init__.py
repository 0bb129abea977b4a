"""The OpInfo table: ``op_db`` gathers every area's entries (one module or package per area of
``numtorch/ops/``)."""

from __future__ import annotations

from .core import OpInfo, SampleInput, make_arg  # noqa: F401

op_db: list[OpInfo] = []

from . import factory, fft, indexing, linalg, nn, pointwise, reduction, shape  # noqa: E402

for _m in (pointwise.core, reduction, shape, indexing, factory.core, factory.random, linalg, nn.core, pointwise.special, fft):
    op_db.extend(_m.OPINFOS)
