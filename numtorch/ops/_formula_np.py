"""Backward formulas run in NumPy where nothing can tell them from their ops (the reductions',
maximum/minimum's): the gate and the wrapping of the result."""

from __future__ import annotations

import numpy as np

from .._device import CPU
from .._state import STATE
from .._tensor import Tensor, _make

# Note [Backward formulas in NumPy]
# A backward formula is several pointwise ops on small tensors (amax's ties: eight; std_mean:
# thirteen; maximum's: five per input), each paying the dispatcher's per-op cost. When nothing
# can observe those ops (no graph being built, no dispatch mode, no forward AD) and every tensor
# is a plain CPU float32/float64 one, the formula runs the same arithmetic in NumPy, in the same
# dtype and order (a Python number meets a float32 array as a float32, as a wrapped scalar does
# in PyTorch). Otherwise, or for half/complex dtypes, the formula runs as ops.
_FLOATS = (np.dtype(np.float32), np.dtype(np.float64))


def plain(*tensors) -> bool:
    """Whether a formula may run in NumPy (Note [Backward formulas in NumPy])."""
    st = STATE
    if st.grad_enabled or st.td_modes or st.fw_level >= 0:
        return False
    for t in tensors:
        if t.__class__ is not Tensor or t._device is not CPU or t._data.dtype not in _FLOATS:
            return False
    return True


def wrap(a: np.ndarray, like: Tensor) -> Tensor:
    return _make(np.ascontiguousarray(a, like._data.dtype), like._dtype)
