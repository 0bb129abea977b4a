"""Backward formulas run in NumPy where nothing can tell them from their ops (the reductions',
maximum/minimum's): the gate and the wrapping of the result."""

from __future__ import annotations

import numpy as np

from .._api import _OVERRIDES
from .._device import CPU
from .._state import STATE
from .._tensor import Tensor, _make

# Note [Backward formulas in NumPy]
# A backward formula is several pointwise ops on small tensors (amax's ties: eight; std_mean:
# thirteen; maximum's: five per input), each paying the dispatcher's per-op cost. When nothing
# can observe those ops (no graph being built, no dispatch mode, no forward AD, no kernel
# registered over an aten op: Note [Fast calls under kernel overrides]) and every tensor
# is a plain CPU float32/float64 one, the formula runs the same arithmetic in NumPy, in the same
# dtype and order (a Python number meets a float32 array as a float32, as a wrapped scalar does
# in PyTorch). Otherwise, or for half/complex dtypes, the formula runs as ops.
# The NumPy body is for the per-op cost of small tensors: above SMALL elements the kernels are as
# fast or faster (NumPy's cumsum along a flipped axis, put_along_axis and nested where were 1.5-2.6x
# slower than the ops at 131k elements), so only formulas measured faster there too (var/std and
# the 2-norm: fewer passes over memory) ask for any size.
_FLOATS = (np.dtype(np.float32), np.dtype(np.float64))
SMALL = 8192


def plain(*tensors, any_size: bool = False) -> bool:
    """Whether a formula may run in NumPy (Note [Backward formulas in NumPy])."""
    st = STATE
    if st.grad_enabled or st.td_modes or st.fw_level >= 0 or _OVERRIDES[0]:
        return False  # a kernel registered over an aten op must see the formula's ops
    for t in tensors:
        if t.__class__ is not Tensor or t._device is not CPU or t._data.dtype not in _FLOATS:
            return False
        if t._data.size > SMALL and not any_size:
            return False
    return True


def wrap(a: np.ndarray, like: Tensor) -> Tensor:
    return _make(np.ascontiguousarray(a, like._data.dtype), like._dtype)
