"""Indexing: ``core`` (getitem/setitem, index, index_put and the area's helpers), ``scatter``
(gather/scatter, index_*), ``masked`` (masked_*, where, nonzero, take, put, ...), ``fast_index``
(Note [Indexing fast calls]), ``fast_fill`` (Note [Number fill fast routes])."""

from . import core, scatter, masked, fast_index, fast_fill  # noqa: F401
