"""Gradient clipping, mirroring ``torch.nn.utils.clip_grad`` (built from tensor ops)."""

from __future__ import annotations

import functools
import types
import warnings
from collections.abc import Iterable

from ..._state import STATE
from ..._tensor import Tensor

__all__ = ["clip_grad_norm", "clip_grad_norm_", "clip_grad_value_"]

_tensor_or_tensors = Tensor | Iterable[Tensor]


def _no_grad(func):
    @functools.wraps(func)
    def _no_grad_wrapper(*args, **kwargs):
        prev = STATE.grad_enabled
        STATE.grad_enabled = False
        try:
            return func(*args, **kwargs)
        finally:
            STATE.grad_enabled = prev

    return _no_grad_wrapper


def _check_foreach(foreach, tensors) -> None:
    if foreach and any(t.device.type not in ("cpu", "cuda") for t in tensors):
        dev = next(t.device.type for t in tensors if t.device.type not in ("cpu", "cuda"))
        raise RuntimeError(
            f"foreach=True was passed, but can't use the foreach API on {dev} tensors"
        )


@_no_grad
def get_total_norm(tensors, norm_type: float = 2.0, error_if_nonfinite: bool = False, foreach=None):
    """The norm of the norms of ``tensors`` (as if they were concatenated into one vector).

    >>> numtorch.nn.utils.get_total_norm([numtorch.tensor([3.0]), numtorch.tensor([4.0])])
    tensor(5.)
    """
    import numtorch

    tensors = [tensors] if isinstance(tensors, Tensor) else list(tensors)
    norm_type = float(norm_type)
    if len(tensors) == 0:
        return numtorch.tensor(0.0)
    _check_foreach(foreach, tensors)
    first_device = tensors[0].device
    norms = [numtorch.linalg.vector_norm(g, norm_type) for g in tensors]
    total_norm = numtorch.linalg.vector_norm(
        numtorch.stack([n if n.device == first_device else n.to(first_device) for n in norms]),
        norm_type,
    )
    if error_if_nonfinite and bool(numtorch.logical_or(total_norm.isnan(), total_norm.isinf())):
        raise RuntimeError(
            f"The total norm of order {norm_type} for gradients from `parameters` is non-finite, so "
            "it cannot be clipped. To disable this error and scale the gradients by the non-finite "
            "norm anyway, set `error_if_nonfinite=False`"
        )
    return total_norm


@_no_grad
def clip_grads_with_norm_(parameters, max_norm: float, total_norm: Tensor, foreach=None) -> None:
    """Scale the gradients by ``max_norm / (total_norm + 1e-6)`` when that is below 1.

    >>> p = numtorch.nn.Parameter(numtorch.ones(1)); p.grad = numtorch.tensor([4.0])
    >>> numtorch.nn.utils.clip_grads_with_norm_([p], 2.0, numtorch.tensor(4.0)); p.grad
    tensor([2.0000])
    """
    import numtorch

    if isinstance(parameters, Tensor):
        parameters = [parameters]
    grads = [p.grad for p in parameters if p.grad is not None]
    max_norm = float(max_norm)
    if len(grads) == 0:
        return
    _check_foreach(foreach, grads)
    clip_coef = max_norm / (total_norm + 1e-6)
    clip_coef_clamped = numtorch.clamp(clip_coef, max=1.0)
    for g in grads:
        c = clip_coef_clamped
        if g.device != c.device:
            c = c.to(g.device)
        g.mul_(c)


@_no_grad
def clip_grad_norm_(
    parameters: _tensor_or_tensors, max_norm: float, norm_type: float = 2.0,
    error_if_nonfinite: bool = False, foreach: bool | None = None,
) -> Tensor:  # fmt: skip
    """Rescale gradients in place so that their total ``norm_type``-norm is at most ``max_norm``;
    returns the total norm before clipping.

    >>> p = numtorch.nn.Parameter(numtorch.zeros(2)); p.grad = numtorch.tensor([3.0, 4.0])
    >>> numtorch.nn.utils.clip_grad_norm_([p], max_norm=1.0)
    tensor(5.)
    """
    if isinstance(parameters, Tensor):
        parameters = [parameters]
    else:
        is_generator = isinstance(parameters, types.GeneratorType)
        parameters = list(parameters)
        if is_generator and len(parameters) == 0:
            warnings.warn(
                "`parameters` is an empty generator, no gradient clipping will occur.", stacklevel=3
            )
    grads = [p.grad for p in parameters if p.grad is not None]
    total_norm = get_total_norm(grads, norm_type, error_if_nonfinite, foreach)
    clip_grads_with_norm_(parameters, max_norm, total_norm, foreach)
    return total_norm


def clip_grad_norm(parameters, max_norm, norm_type=2.0, error_if_nonfinite=False, foreach=None):
    """Deprecated alias of :func:`clip_grad_norm_`."""
    warnings.warn(
        "`torch.nn.utils.clip_grad_norm` is now deprecated in favor of "
        "`torch.nn.utils.clip_grad_norm_`.",
        FutureWarning,
        stacklevel=2,
    )
    return clip_grad_norm_(parameters, max_norm, norm_type, error_if_nonfinite, foreach)


@_no_grad
def clip_grad_value_(parameters: _tensor_or_tensors, clip_value: float, foreach=None) -> None:
    """Clamp every gradient element into ``[-clip_value, clip_value]`` in place.

    >>> p = numtorch.nn.Parameter(numtorch.zeros(2)); p.grad = numtorch.tensor([-3.0, 0.5])
    >>> numtorch.nn.utils.clip_grad_value_([p], 1.0); p.grad
    tensor([-1.0000,  0.5000])
    """
    if isinstance(parameters, Tensor):
        parameters = [parameters]
    clip_value = float(clip_value)
    grads = [p.grad for p in parameters if p.grad is not None]
    _check_foreach(foreach, grads)
    for grad in grads:
        grad.clamp_(min=-clip_value, max=clip_value)
