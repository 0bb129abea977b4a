"""The fast call of Tensor.expand (Note [Binding fast call]), which broadcast_to and expand_as
share (fast_views.py): moved out of views.py, which is at its line cap."""

from __future__ import annotations

from numpy import ndarray as _ndarray

from ..._device import CPU as _CPU
from ..._state import STATE as _STATE
from ..._tensor import _view


def make_expand_fast(body):
    # x.expand(sizes) on a plain C-contiguous CPU tensor with nothing to record: the strides
    # _expand_cpu computes (PyTorch's inferExpandGeometry), in bytes, as an ndarray over x's
    # buffer; anything else (errors included) takes the body. SumBackward0's grad.expand(sizes):
    # 7.4 us -> 2 us. Sizes of x's rank without -1 take a short loop that keeps x's strides
    # and zeroes those of the dims it expands (1.6 -> 1.3 us).
    def fast(self, size):
        S, a = _STATE, self._data
        if S.td_modes or S.fw_level >= 0 or self._device is not _CPU or self._rg and S.grad_enabled:
            return body(self, size)
        sz = size[0] if len(size) == 1 and size[0].__class__ is not int else size
        n, nd = len(sz), a.ndim
        if not n or n < nd or not a.size or not a.flags.c_contiguous:
            return body(self, size)
        shp, bst = a.shape, a.strides
        if n == nd:
            st, i = list(bst), 0
            for t in sz:
                if t.__class__ is not int:
                    return body(self, size)
                if t != shp[i]:
                    if shp[i] != 1 or t <= 0:
                        break  # -1 (the general loop below) or an error (the body)
                    st[i] = 0
                i += 1
            else:
                return _view(
                    self,
                    _ndarray(sz if sz.__class__ is tuple else tuple(sz), a.dtype, a, 0, tuple(st)),
                )
        out_sh, out_st = [0] * n, [0] * n
        nxt = a.itemsize  # the stride a new leading dim of size 1 gets: size * stride of the next
        for i in range(n - 1, -1, -1):
            t = sz[i]
            if t.__class__ is not int:
                return body(self, size)
            d = i - n + nd
            if d >= 0:
                k = shp[d]
                if t == -1 or t == k:
                    t, s = k, (bst[d] if nd else 0)
                elif k == 1 and t > 0:
                    s = 0
                else:
                    return body(self, size)
            elif t == 1:
                s = 0 if not nd else nxt
            elif t > 0:
                s = 0
            else:
                return body(self, size)
            out_sh[i], out_st[i] = t, s
            nxt = t * s
        return _view(self, _ndarray(tuple(out_sh), a.dtype, a, 0, tuple(out_st)))

    return fast
