"""Indexing: ``core`` (getitem/setitem, index, index_put and the area's helpers), ``scatter``
(gather/scatter, index_*), ``masked`` (masked_*, where, nonzero, take, put, ...), ``fast_index``
(Note [Indexing fast calls]), ``fast_fill`` (Note [Number fill fast routes]), ``fast_count``
(Note [Counting fast calls]), ``kernel_first`` (Note [Kernels try the fast cores])."""

from . import core, scatter, masked, fast_index, fast_fill, fast_count, kernel_first  # noqa: F401

kernel_first.install()
