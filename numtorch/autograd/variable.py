"""``autograd.Variable``: the pre-0.4 wrapper, now an alias that makes plain tensors."""

from __future__ import annotations

from .._tensor import Tensor


class VariableMeta(type):
    def __instancecheck__(cls, other) -> bool:
        return isinstance(other, Tensor)


class Variable(metaclass=VariableMeta):
    """``Variable(t, requires_grad=False)``: a detached alias of ``t`` with ``requires_grad`` set;
    every tensor is an instance of ``Variable``.

    >>> v = numtorch.autograd.Variable(numtorch.ones(2), requires_grad=True)
    >>> v.requires_grad, isinstance(v, numtorch.autograd.Variable)
    (True, True)
    """

    def __new__(cls, data=None, requires_grad: bool = False, volatile: bool = False):
        if data is None:
            from .. import empty

            data = empty(0)
        if not isinstance(data, Tensor):
            raise TypeError(f"Variable data has to be a tensor, but got {type(data).__name__}")
        out = data.detach()
        if requires_grad:
            out.requires_grad_(True)
        return out
