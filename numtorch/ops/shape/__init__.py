"""Shape and view ops: ``core`` (view, reshape, permute, expand, ... and the area's helpers),
``views`` (slicing views, diagonal, real/imag), ``copy`` (clone, flip, repeat, tril, ...),
``inplace`` (copy_, fill_, resize_), ``join`` (cat, stack), ``split``, ``extra`` and
``view_copies`` (the ``*_copy`` and ``*_scatter`` ops), ``fast_copies`` (Note [Shape-copy fast calls]), ``fast_inplace`` (Note [Fill and resize fast calls]), ``setitem_fast`` (Note [Setitem fast call])."""

from . import core, views, copy, inplace, join, split, extra, view_copies, fast_copies, fast_inplace, setitem_fast  # noqa: F401
