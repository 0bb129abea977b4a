"""numtorch.testing.make_tensor, mirroring torch.testing.make_tensor."""

from __future__ import annotations

import math

from .. import _dtype as D

_FLOATS = ("float16", "float32", "float64")
_COMPLEX = {"complex64": "float32", "complex128": "float64"}


def _bounds(dtype, low, high):
    for v in (low, high):
        if v is not None and isinstance(v, float) and math.isnan(v):
            raise ValueError(f"`low` and `high` cannot be NaN, but got low={low} and high={high}")
    integral = dtype.name not in _FLOATS and dtype.name not in _COMPLEX
    lo_default, hi_default = (-9, 10) if integral else (-9, 9)
    lo = lo_default if low is None else low
    hi = hi_default if high is None else high
    if dtype is D.uint8:
        lo = max(lo, 0)
    if lo >= hi and not (integral and lo == hi):
        raise ValueError(f"`low` must be less than `high`, but got {lo} >= {hi}")
    return lo, hi


def make_tensor(*shape, dtype, device, low=None, high=None, requires_grad=False, noncontiguous=False,
                exclude_zero=False, memory_format=None):  # fmt: skip
    """A tensor of ``shape`` filled with values drawn uniformly from [low, high).

    Defaults: [-9, 9) for floating and complex dtypes, [-9, 10) for integers (from 0 for uint8),
    {False, True} for bool, drawn from numtorch's generator (``manual_seed`` makes it repeatable).

    >>> numtorch.testing.make_tensor(2, 3, dtype=numtorch.float32, device="cpu").shape
    torch.Size([2, 3])
    """
    import numtorch

    if len(shape) == 1 and isinstance(shape[0], (list, tuple)):
        shape = tuple(shape[0])
    if requires_grad and dtype.name not in _FLOATS and dtype.name not in _COMPLEX:
        raise ValueError(
            f"`requires_grad=True` is not supported for boolean and integral dtypes, but got dtype={dtype}"
        )
    numel_shape = list(shape)
    if noncontiguous and numel_shape:
        numel_shape[-1] *= 2
    if dtype is D.bool:
        t = numtorch.randint(0, 2, numel_shape).to(D.bool)
    else:
        lo, hi = _bounds(dtype, low, high)
        if dtype.name in _FLOATS or dtype.name in _COMPLEX:
            real = getattr(D, _COMPLEX.get(dtype.name, dtype.name))
            draw = lambda: numtorch.rand(numel_shape, dtype=real if real is not D.float16 else D.float32) * (hi - lo) + lo
            t = (draw() + 1j * draw()) if dtype.name in _COMPLEX else draw()
            t = t.to(dtype)
        else:
            t = numtorch.randint(math.ceil(lo), max(math.ceil(hi), math.ceil(lo) + 1), numel_shape).to(dtype)
    if exclude_zero:
        eps = 1 if dtype.name not in _FLOATS and dtype.name not in _COMPLEX else numtorch.finfo(dtype).tiny
        t = numtorch.where(t == 0, numtorch.full_like(t, eps), t) if dtype is not D.bool else numtorch.ones_like(t)
    if noncontiguous and t.ndim:
        t = t[..., ::2]
    elif memory_format is not None:
        t = t.contiguous(memory_format=memory_format)
    if requires_grad:
        t.requires_grad_(True)
    return t
