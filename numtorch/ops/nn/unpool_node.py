"""max_unpool2d/3d's kernel on arrays and their backward (Note [max_unpool's own node])."""

from __future__ import annotations

import math

import numpy as np

from ... import _dtype as D
from ..._device import CPU
from ..._tensor import Tensor, _make
from ...kernels import lazy
from .. import _formula_np as _fnp
from ..reduction._entries import call

_KR = lazy("numtorch.kernels.cpu.reduction.core")
_KU = lazy("numtorch.kernels.cpu.nn.unpool")
_FLOATS = (D.float32, D.float64)

# Note [max_unpool's own node]
# PyTorch's max_unpool2d/3d are CPU kernels with derivatives.yaml's formula
# ``max_pool_double_backward(grad, indices, n)``: the gradient read at the indices (a gather
# along the flattened planes). numtorch recorded the composite (min, max, new_zeros, scatter,
# two reshapes), so a small fwd+bwd built four nodes and ran scatter's, the views' and
# new_zeros' backwards: ~100 us where PyTorch takes ~30. Now the ops have MaxUnpool2DBackward0 /
# MaxUnpool3DBackward0 with that gather, and the composite is the kernel below autograd (a
# mode sees aten.max_unpool2d, as in PyTorch). For a plain-class CPU float32/float64 input
# with int64 indices of its shape, the kernel is the fast call's array route (one minmax_all
# pass, then unpool_place writes each plane's values at their indices into zeros, in order:
# a repeated index keeps the last value, as the composite's scatter and PyTorch's kernel),
# and an empty input gives zeros of the output size, as PyTorch (the composite's reshape
# refused it); an index out of range, or anything else (meta, other dtypes, subclasses),
# runs the composite, which raises PyTorch's errors. The result is a new tensor, not the
# composite's view of its (N, C, volume) scatter result, as PyTorch's. Under Note [Backward
# formulas in NumPy]'s gate the gather is one NumPy fancy index (a copy: the gather op's
# bits); otherwise it is contiguous / reshape / gather / reshape ops, as PyTorch's formula
# (reshape where PyTorch's view would refuse non-contiguous indices).


def place(a: np.ndarray, ii: np.ndarray, planes: int, volume: int) -> np.ndarray:
    """(planes * volume,) zeros with ``a``'s values at ``ii``'s offsets within each plane
    (``ii``: the indices flattened, each in [0, volume)), in one pass (the offsets array and
    NumPy's fancy assignment took 1.7x PyTorch's time on 65k planes of two)."""
    res = np.zeros(planes * volume, a.dtype)
    flat = np.ascontiguousarray(a).reshape(-1)
    # Note [Compiled kernel entry]
    call(_KU, "unpool_place", (flat, ii, ii.size // planes, volume, res))
    return res


def kernel(self, indices, output_size, n, composite):
    """max_unpool{n}d below autograd: the array route where it applies, else ``composite``."""
    if (self.__class__ is Tensor and indices.__class__ is Tensor and self._device is CPU and indices._device is CPU
            and self._dtype in _FLOATS and indices._dtype is D.int64):  # fmt: skip
        a, i = self._data, indices._data
        size = tuple(output_size)
        if a.shape == i.shape and (a.ndim == n + 1 or a.ndim == n + 2) and len(size) == n:
            volume = math.prod(size)
            if not a.size:  # nothing placed (the composite's reshape(nb, c, -1) refuses 0 elements)
                return _make(np.zeros(a.shape[:-n] + size, a.dtype), self._dtype)
            ii = i.ravel()
            mm = np.empty(2, np.int64)
            _KR.minmax_all(ii, mm)
            if 0 <= mm[0] and mm[1] < volume:
                planes = math.prod(a.shape[:-n])
                return _make(place(a, ii, planes, volume).reshape(a.shape[:-n] + size), self._dtype)
    return composite(self, indices, output_size, n)


def grad(grad, indices, n):
    """max_pool_double_backward(grad, indices, n): ``grad`` read at ``indices`` in each plane."""
    if not indices.numel():
        return grad.new_zeros(indices.shape)
    lead = list(indices.shape[: indices.ndim - n])
    if _fnp.plain(grad) and indices.__class__ is Tensor and indices._device is CPU:
        i = indices._data
        planes = math.prod(lead)
        g = grad._data.reshape(planes, -1)  # a view where it can be (sum()'s expanded gradient)
        r = g[np.arange(planes)[:, None], i.reshape(planes, -1)]
        return _make(r.reshape(i.shape), grad._dtype)
    size = lead + [-1]
    return grad.contiguous().reshape(size).gather(-1, indices.reshape(size)).reshape(indices.shape)
