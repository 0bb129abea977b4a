"""Fast calls (Note [Binding fast call]) of torch.tensor, torch.as_tensor and Tensor.new_tensor
for flat or nested lists of Python numbers.

# Note [Tensor data fast call]
# ``torch.tensor([[1.5, 2.0], [3.0, 4.0]], dtype=torch.float32)`` went binding -> body -> dtype_arg
# -> data_to_array (_scan's recursive dtype inference, about a microsecond for six values) ->
# _convert's np.array under the quiet flags -> _cast -> infer -> dispatch(lift_fresh) -> finish:
# 4.5 us where PyTorch takes 3. A plain call (no mode, forward-AD level or autocast region:
# _fast_guard.free; device None or the CPU tensor's own, no requires_grad, pin_memory or layout)
# whose data is a list or tuple of Python floats and ints, or of such lists or tuples (two
# levels), and whose dtype is float32, float64 or None (then floats give the default dtype when
# it is float32 or float64, ints alone int64) makes the one array the body makes:
# ``np.array(data, dtype)`` under the quiet flags (_convert reads ints into a float dtype, and
# ints alone into int64, by that same call; _cast then has nothing to do), wrapped as a fresh
# leaf. bool, complex, NumPy or tensor elements, deeper nesting, and any NumPy error (ragged
# rows, an int too big) take the body, with its errors and warnings.
# tests/ops/factory/test_data_fast.py compares both routes.
"""

from __future__ import annotations

import numpy as np

from ... import _dtype as D
from ..._device import CPU as _CPU
from ..._tensor import _make
from .._fast_guard import free
from .._quiet import IGNORE, quiet, restore
from .fast import ON_CPU

_SEQ = (list, tuple)
_NP = {D.float32: np.float32, D.float64: np.float64, D.int64: np.int64}
COND = f"{ON_CPU} and requires_grad is False and pin_memory is False"


def _kinds(data):
    """(has a float, has an int) of ``data``'s numbers when it is one or two levels of lists or
    tuples of Python floats and ints only, else None."""
    flt = itg = False
    for x in data:
        c = x.__class__
        if c is float:
            flt = True
        elif c is int:
            itg = True
        elif c is list or c is tuple:
            for v in x:
                c = v.__class__
                if c is float:
                    flt = True
                elif c is not int:
                    return None
                else:
                    itg = True
        else:
            return None
    return flt, itg


def array(data, dt):
    """(the body's array of ``data``, its dtype), or None (Note [Tensor data fast call])."""
    if data.__class__ not in _SEQ or not free():
        return None
    k = _kinds(data)
    if k is None:
        return None
    if dt is None:
        if k[0]:
            dt = D.get_default_dtype()
        elif k[1]:
            dt = D.int64
        else:  # no numbers: the body's empty default-dtype tensor
            return None
    elif dt.__class__ is not D.dtype or dt is D.int64:  # (int64: floats go through float64 and a check)
        return None
    npdt = _NP.get(dt)
    if npdt is None:
        return None
    tok = quiet(IGNORE)  # _convert's quiet flags
    try:
        a = np.array(data, dtype=npdt)
    except (ValueError, TypeError, OverflowError):  # ragged, too big: the body's error
        return None
    finally:
        restore(tok)
    return a, dt


def tensor(data, dtype):
    r = array(data, dtype)
    return None if r is None else _make(*r)


def new_tensor(self, data, dtype, device, requires_grad, layout, pin_memory):
    if (device is not None or requires_grad is not False or layout is not None or pin_memory is not False
            or self._device is not _CPU):  # fmt: skip
        return None
    r = array(data, self._dtype if dtype is None else dtype)
    return None if r is None else _make(*r)
