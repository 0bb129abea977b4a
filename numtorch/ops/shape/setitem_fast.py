"""The fast call of ``Tensor.__setitem__`` (Note [Setitem fast call]), installed by
numtorch/__init__.py with the other fast calls."""

from __future__ import annotations

import builtins

import numpy as np

from ... import _dtype as D
from ..._device import CPU
from ..._state import STATE
from ..._tensor import Tensor
from .basic_index import basic_view
from .inplace import setitem_scalar

_slice, _Ellipsis = builtins.slice, builtins.Ellipsis


# Note [Setitem fast call]
# ``x[key] = value`` on a plain CPU tensor that nothing records (it and a tensor value need no
# grad), with no dispatch mode or forward-AD level, writes through NumPy when the body's writes
# are provably the same: a basic key (an in-range int or slice, Ellipsis, or a basic index tuple:
# Note [Basic index tuples]) takes the view the body's select/slice chain makes; a bool mask or
# one int64 index tensor takes NumPy's index assignment of a number (shape or bounds errors are
# raised by NumPy before it writes anything, and the body raises PyTorch's). A number is
# converted as the body converts it (setitem_scalar, the body's own conversion); a tensor
# value must have x's dtype, share no memory with x, and broadcast (NumPy's assignment rule is
# copy_'s expand after the leading ones are stripped). The target must be writable and dense
# (so no view of it overlaps itself: copy_'s internal-overlap check), not an inference tensor
# (its version counter is not a list) nor a conjugate view. The version counter moves once, as
# the body's copy_/fill_/index_put_ does. Anything else, and every error, is the body's.
def make_setitem_fast(body):
    def number(v, dt):
        if v.__class__ is float or v.__class__ is bool or v.__class__ is int:
            try:
                return setitem_scalar(v, dt)
            except (RuntimeError, OverflowError, ValueError):  # the body raises it
                return None
        return None

    def fast(self, key, value):
        a = self._data
        f = a.flags
        if (STATE.td_modes or STATE.fw_level >= 0 or self._rg or self._device is not CPU or self._is_conj
                or self._vc.__class__ is not list or not f.writeable or not (f.c_contiguous or f.f_contiguous)):  # fmt: skip
            return body(self, key, value)
        kc = key.__class__
        if value.__class__ is Tensor:
            v = value._data
            if (value._rg or value._dtype is not self._dtype or value._device is not CPU or value._is_conj
                    or kc is Tensor or np.may_share_memory(a, v)):  # fmt: skip
                return body(self, key, value)
        else:
            v = number(value, self._dtype)
            if v is None:
                return body(self, key, value)
        n = a.shape[0] if a.ndim else 0
        if kc is int:
            r = a[key, ...] if -n <= key < n else None
        elif kc is _slice:
            step, start, stop = key.step, key.start, key.stop
            ok = ((step is None or (step.__class__ is int and step > 0))
                  and (start is None or (start.__class__ is int and -n <= start <= n))
                  and (stop is None or (stop.__class__ is int and -n <= stop <= n)))  # fmt: skip
            r = a[key] if ok and a.ndim else None
        elif kc is tuple:
            r = basic_view(a, key) if a.ndim else None
        elif key is _Ellipsis:
            r = a
        elif kc is Tensor and key._device is CPU and (key._dtype is D.bool or key._dtype is D.int64) and key._data.ndim:
            try:
                a[key._data] = v
            except (IndexError, ValueError):
                return body(self, key, value)
            self._vc[0] += 1
            return None
        else:
            r = None
        if r is None:
            return body(self, key, value)
        try:
            r[...] = v
        except ValueError:  # shapes that do not broadcast: nothing was written
            return body(self, key, value)
        self._vc[0] += 1
        return None

    return fast


def install(bindings) -> None:
    for b in bindings:
        if b.module == "Tensor" and b.name == "__setitem__" and b.sig == "self, key, value":
            b.fast = (make_setitem_fast(b.body), ("self", "key", "value"))
