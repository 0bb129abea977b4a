"""Indexing: ``core`` (getitem/setitem, index, index_put and the area's helpers), ``scatter``
(gather/scatter, index_*), ``masked`` (masked_*, where, nonzero, take, put, ...)."""

from . import core, scatter, masked  # noqa: F401
