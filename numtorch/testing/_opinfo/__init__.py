"""The OpInfo table: ``op_db`` gathers every area's entries."""

from __future__ import annotations

from .core import OpInfo, SampleInput, make_arg  # noqa: F401

op_db: list[OpInfo] = []

from . import factory, fft, indexing, linalg, nn, pointwise, random, reduction, shape, special  # noqa: E402

for _m in (pointwise, reduction, shape, indexing, factory, random, linalg, nn, special, fft):
    op_db.extend(_m.OPINFOS)
