"""Tensor predicates: numel, is_floating_point, is_complex, is_nonzero."""

from __future__ import annotations

import builtins

from ... import _dtype as D
from .._registry import public


def _numel(input):
    """The number of elements of ``input``.

    >>> numtorch.numel(numtorch.zeros(2, 3))
    6
    """
    return input._data.size


def _is_floating_point(input):
    """Whether ``input`` has a floating dtype.

    >>> numtorch.is_floating_point(numtorch.zeros(1))
    True
    """
    return input._dtype.category == D._FLOAT


def _is_complex(input):
    """Whether ``input`` has a complex dtype.

    >>> numtorch.is_complex(numtorch.zeros(1, dtype=numtorch.complex64))
    True
    """
    return input._dtype.category == D._COMPLEX


def _is_nonzero(input):
    """Whether the single value of a one-element tensor is nonzero.

    >>> numtorch.is_nonzero(numtorch.tensor([0.0]))
    False
    """
    n = input._data.size
    if n != 1:
        what = "no values" if n == 0 else "more than one value"
        raise RuntimeError(f"Boolean value of Tensor with {what} is ambiguous")
    return builtins.bool(input._host().reshape(()))


public("numel", "input", _numel)
public("is_floating_point", "input", _is_floating_point)
public("is_complex", "input", _is_complex)
public("is_nonzero", "input", _is_nonzero)
public("is_nonzero", "self", _is_nonzero, relevant=("self",), module="Tensor")
