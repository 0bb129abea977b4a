"""Factories (``core``: tensor, zeros, arange, ...), random sampling (``random``) and dtype /
device / memory-format conversions (``conversion``: to, type, float, ...)."""

from . import core, random, conversion, windows, tensor_extra  # noqa: F401
