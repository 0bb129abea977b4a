"""Helpers shared by the distributions, as ``torch.distributions.utils``."""

from __future__ import annotations

import numbers
from functools import update_wrapper

__all__ = ["broadcast_all", "clamp_probs", "lazy_property", "logits_to_probs", "probs_to_logits"]


def _nt():
    import numtorch

    return numtorch


def broadcast_all(*values):
    """Broadcast tensors and numbers to one shape; numbers become tensors of the tensors' dtype
    (or the default dtype).

    >>> [t.shape for t in broadcast_all(numtorch.zeros(2), 1.0)]
    [torch.Size([2]), torch.Size([2])]
    """
    nt = _nt()
    if not all(isinstance(v, (nt.Tensor, numbers.Number)) for v in values):
        raise ValueError("Input arguments must all be instances of numbers.Number, torch.Tensor or objects implementing __torch_function__.")
    if not all(isinstance(v, nt.Tensor) for v in values):
        dtype = next((v.dtype for v in values if isinstance(v, nt.Tensor)), nt.get_default_dtype())
        values = [v if isinstance(v, nt.Tensor) else nt.tensor(v, dtype=dtype) for v in values]
    return nt.broadcast_tensors(*values)


def clamp_probs(probs):
    """Clamp probabilities into the open interval (eps, 1 - eps) of their dtype."""
    eps = _nt().finfo(probs.dtype).eps
    return probs.clamp(min=eps, max=1 - eps)


def logits_to_probs(logits, is_binary: bool = False):
    """Sigmoid of binary logits, else softmax over the last dimension."""
    nt = _nt()
    if is_binary:
        return nt.sigmoid(logits)
    return nt.nn.functional.softmax(logits, dim=-1)


def probs_to_logits(probs, is_binary: bool = False):
    """Logits of probabilities (clamped away from 0 and 1 first)."""
    nt = _nt()
    ps = clamp_probs(probs)
    if is_binary:
        return nt.log(ps) - nt.log1p(-ps)
    return nt.log(ps)


class lazy_property:  # noqa: N801 - torch's name
    """A property computed once per instance, then stored as a plain attribute."""

    def __init__(self, wrapped):
        self.wrapped = wrapped
        update_wrapper(self, wrapped)

    def __get__(self, instance, obj_type=None):
        if instance is None:
            return self
        nt = _nt()
        with nt.enable_grad():
            value = self.wrapped(instance)
        setattr(instance, self.wrapped.__name__, value)
        return value
