"""square's composite with its plain route (Note [Plain square])."""

from __future__ import annotations

import numpy as np

from ..._device import CPU
from ..._dispatch import dispatch
from ..._state import STATE
from ..._tensor import Tensor, _make
from .._quiet import IGNORE, quiet, restore

_F32, _F64 = np.dtype(np.float32), np.dtype(np.float64)


# Note [Plain square]
# square(x) is pow(x, 2) (ATen's composite), whose router picks the ``self * self`` kernel after
# pow's checks: 3.3 us where PyTorch takes 1.3. For a plain call (a C-contiguous float32/float64
# CPU Tensor with dims that records nothing, no dispatch mode, no forward AD) that product is
# NumPy's multiply, one correctly rounded IEEE product per element as the kernel's, under
# Note [Quiet floating-point flags] (an overflow is inf, silently, as in the kernel); its
# result is C-contiguous like the kernel's. Everything else dispatches pow.Tensor_Scalar.
def square_composite(pow_scalar):
    def square(self):
        d = self._data
        if (self.__class__ is Tensor and d.__class__ is np.ndarray and (d.dtype is _F32 or d.dtype is _F64)
                and d.ndim and d.flags.c_contiguous and self._device is CPU and not STATE.td_modes
                and STATE.fw_level < 0 and not (self._rg and STATE.grad_enabled)):  # fmt: skip
            tok = quiet(IGNORE)
            try:
                r = np.multiply(d, d)
            finally:
                restore(tok)
            return _make(r, self._dtype)
        return dispatch(pow_scalar, [self, 2])

    return square
