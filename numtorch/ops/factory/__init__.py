"""Factories (``core``: tensor, zeros, arange, ...), random sampling (``random``, ``sampling``) and dtype /
device / memory-format conversions (``conversion``: to, type, float, ...)."""

from . import core, predicates, random, random_inplace, conversion, windows, tensor_extra, sampling  # noqa: F401
