"""Symbolic-shape names (``SymInt``, ``sym_max``, ...) as they behave on plain numbers.

numtorch has no symbolic tracer: shapes are always concrete Python ints, so ``SymInt`` and
friends are never instantiated by the library, and the ``sym_*`` helpers reduce to the
builtins exactly as PyTorch's do for non-symbolic arguments (the branch real eager code takes).
They exist so that code written for ``torch.compile`` runs unchanged.
"""

from __future__ import annotations

import builtins
import math

from . import overrides


class SymInt:
    """An int that a symbolic tracer would track; never created in eager numtorch.

    >>> isinstance(3, numtorch.SymInt)
    False
    """

    def __init__(self, node):
        self.node = node


class SymFloat:
    """A float that a symbolic tracer would track; never created in eager numtorch."""

    def __init__(self, node):
        self.node = node


class SymBool:
    """A bool that a symbolic tracer would track; never created in eager numtorch."""

    def __init__(self, node):
        self.node = node


def sym_not(a):
    """Logical negation (``not a`` for a plain bool).

    >>> numtorch.sym_not(True)
    False
    """
    if overrides.has_torch_function_unary(a):
        return overrides.handle_torch_function(sym_not, (a,), a)
    if hasattr(a, "__sym_not__"):
        return a.__sym_not__()
    return not a


def sym_float(a):
    """``float(a)`` (a SymFloat is returned as is).

    >>> numtorch.sym_float(2)
    2.0
    """
    if overrides.has_torch_function_unary(a):
        return overrides.handle_torch_function(sym_float, (a,), a)
    if isinstance(a, SymFloat):
        return a
    if hasattr(a, "__sym_float__"):
        return a.__sym_float__()
    return builtins.float(a)


def sym_int(a):
    """``int(a)``, truncating toward zero.

    >>> numtorch.sym_int(-2.7)
    -2
    """
    if overrides.has_torch_function_unary(a):
        return overrides.handle_torch_function(sym_int, (a,), a)
    if isinstance(a, SymInt):
        return a
    return builtins.int(a)


_NUMBERS = (builtins.int, builtins.float)


def _check_numbers(a, b) -> bool:
    for v in (a, b):
        if not isinstance(v, _NUMBERS):
            raise AssertionError(f"expected {_NUMBERS}, got {type(v)}")
    return isinstance(a, builtins.float) or isinstance(b, builtins.float)


def sym_max(a, b):
    """``max(a, b)``, promoted to float when either is a float (unlike the builtin).

    >>> numtorch.sym_max(1, 0.5)
    1.0
    """
    if overrides.has_torch_function((a, b)):
        return overrides.handle_torch_function(sym_max, (a, b), a, b)
    return builtins.float(builtins.max(a, b)) if _check_numbers(a, b) else builtins.max(a, b)


def sym_min(a, b):
    """``min(a, b)``, promoted to float when either is a float (unlike the builtin).

    >>> numtorch.sym_min(1, 2)
    1
    """
    if overrides.has_torch_function((a, b)):
        return overrides.handle_torch_function(sym_min, (a, b), a, b)
    return builtins.float(builtins.min(a, b)) if _check_numbers(a, b) else builtins.min(a, b)


def sym_sqrt(a):
    """``math.sqrt(a)``.

    >>> numtorch.sym_sqrt(4)
    2.0
    """
    if overrides.has_torch_function_unary(a):
        return overrides.handle_torch_function(sym_sqrt, (a,), a)
    if hasattr(a, "__sym_sqrt__"):
        return a.__sym_sqrt__()
    return math.sqrt(a)


def sym_ite(b, t, f):
    """``t if b else f``; ``t`` and ``f`` must have one type.

    >>> numtorch.sym_ite(False, 1, 2)
    2
    """
    if overrides.has_torch_function((b, t, f)):
        return overrides.handle_torch_function(sym_ite, (b, t, f), b, t, f)
    if not isinstance(b, (SymBool, builtins.bool)):
        raise AssertionError(f"expected SymBool or bool, got {type(b)}")
    if type(t) is not type(f):
        raise AssertionError(f"type mismatch: {type(t)} vs {type(f)}")
    return t if b else f


def sym_sum(*args):
    """The sum of ``args`` (``sym_sum([a, b])`` or ``sym_sum(a, b)``).

    >>> numtorch.sym_sum([1, 2, 3])
    6
    """
    if len(args) == 1 and isinstance(args[0], (list, tuple)):
        args = args[0]
    if overrides.has_torch_function(args):
        return overrides.handle_torch_function(sym_sum, args, args)
    return builtins.sum(args)


def sym_fresh_size(expr):
    """The value of ``expr`` as a fresh size (its own value when nothing is traced).

    >>> numtorch.sym_fresh_size(3)
    3
    """
    import numtorch

    return numtorch.tensor(expr).item()


_INT64_MAX = 2**63 - 1


def _check_range(size, lo, hi, shown_lo, shown_hi) -> None:
    if not lo <= size <= hi:
        raise RuntimeError(f"Invalid value range for {size} between [{shown_lo}, {shown_hi}].")


def sym_constrain_range(size, *, min=None, max=None) -> None:  # noqa: A002 - torch's names
    """Assert ``min <= size <= max`` (a tracer would record it as a fact about ``size``).

    >>> numtorch.sym_constrain_range(3, min=0, max=5)
    """
    lo, hi = -math.inf if min is None else min, math.inf if max is None else max
    _check_range(size, lo, hi, -_INT64_MAX - 1 if min is None else min, _INT64_MAX if max is None else max)


def sym_constrain_range_for_size(size, *, min=None, max=None) -> None:  # noqa: A002
    """As ``sym_constrain_range`` for a value used as a size: ``min`` defaults to 0.

    >>> numtorch.sym_constrain_range_for_size(3)
    """
    lo, hi = 0 if min is None else min, _INT64_MAX if max is None else max
    _check_range(size, lo, hi, lo, hi)
