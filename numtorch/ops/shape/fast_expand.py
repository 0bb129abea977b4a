"""The fast call of Tensor.expand (Note [Binding fast call]), which broadcast_to and expand_as
share (fast_views.py): moved out of views.py, which is at its line cap.

# Note [Expand geometry cache]
# Expanding to more dims than the input has (``bias.expand_as(x)``, ``broadcast_to``) walks
# every output dim in Python to find its size and stride (_expand_geometry: ~0.4-0.6 us of a
# ~1.4 us call for three dims, where PyTorch's whole call is ~0.8 us). The walk depends only on
# the input array's shape, strides and itemsize and the target sizes, so its answer (the output
# shape and byte strides, or False where the body must run: an error or an unsupported size) is
# kept in _GEOMETRY under (shape, strides, itemsize, sizes). Every size is checked to be an int
# first (True and 2.0 hash and compare equal to 1 and 2, and are not the body's ints), so a key
# holds ints only and the cached answer is the walk's for those very values. expand and
# broadcast_to check their sizes; expand_as's are an ndarray's shape. The table is cleared when
# it reaches _GEOMETRY_MAX keys, so it stays bounded whatever shapes a program uses.
"""

from __future__ import annotations

from numpy import ndarray as _ndarray

from ..._device import CPU as _CPU
from ..._state import STATE as _STATE
from ..._tensor import Tensor as _Tensor
from ..._tensor import _view

_GEOMETRY: dict = {}
_GEOMETRY_MAX = 512


def _expand_geometry(sz, shp, bst, isz):
    """(shape, byte strides) of an array of shape ``shp`` and byte strides ``bst`` expanded to
    the int sizes ``sz`` (PyTorch's inferExpandGeometry), or False where the body must run."""
    n, nd = len(sz), len(shp)
    out_sh, out_st = [0] * n, [0] * n
    nxt = isz  # the stride a new leading dim of size 1 gets: size * stride of the next
    for i in range(n - 1, -1, -1):
        t = sz[i]
        d = i - n + nd
        if d >= 0:
            k = shp[d]
            if t == -1 or t == k:
                t, s = k, (bst[d] if nd else 0)
            elif k == 1 and t > 0:
                s = 0
            else:
                return False
        elif t == 1:
            s = 0 if not nd else nxt
        elif t > 0:
            s = 0
        else:
            return False
        out_sh[i], out_st[i] = t, s
        nxt = t * s
    return tuple(out_sh), tuple(out_st)


def make_expand_fast(body):
    # x.expand(sizes) on a plain C-contiguous CPU tensor with nothing to record: the strides
    # _expand_cpu computes (PyTorch's inferExpandGeometry), in bytes, as an ndarray over x's
    # buffer; anything else (errors included) takes the body. SumBackward0's grad.expand(sizes):
    # 7.4 us -> 2 us. Sizes of x's rank without -1 take a short loop that keeps x's strides
    # and zeroes those of the dims it expands (1.6 -> 1.3 us); others take the cached walk
    # (Note [Expand geometry cache]).
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
                        break  # -1 (the cached walk below) or an error (the body)
                    st[i] = 0
                i += 1
            else:
                return _view(
                    self,
                    _ndarray(sz if sz.__class__ is tuple else tuple(sz), a.dtype, a, 0, tuple(st)),
                )
        for t in sz:  # ints only in a key (Note [Expand geometry cache])
            if t.__class__ is not int:
                return body(self, size)
        isz = a.itemsize
        key = (shp, bst, isz, sz if sz.__class__ is tuple else tuple(sz))
        g = _GEOMETRY.get(key)
        if g is None:
            g = _expand_geometry(key[3], shp, bst, isz)
            if len(_GEOMETRY) >= _GEOMETRY_MAX:
                _GEOMETRY.clear()
            _GEOMETRY[key] = g
        if not g:
            return body(self, size)
        return _view(self, _ndarray(g[0], a.dtype, a, 0, g[1]))

    return fast


def make_expand_as_fast(body):
    # x.expand_as(other) is x.expand(other's shape): an ndarray's shape holds ints only, so it
    # goes straight to the cached walk (Note [Expand geometry cache]) without expand's size
    # checks and frame (the walk of sizes of x's rank gives the strides expand's short loop gives)
    def fast(self, other):
        S, a = _STATE, self._data
        if (
            other.__class__ is not _Tensor
            or S.td_modes
            or S.fw_level >= 0
            or self._device is not _CPU
            or self._rg
            and S.grad_enabled
        ):
            return body(self, other)
        sz = other._data.shape
        if not sz or len(sz) < a.ndim or not a.size or not a.flags.c_contiguous:
            return body(self, other)
        shp, bst, isz = a.shape, a.strides, a.itemsize
        key = (shp, bst, isz, sz)
        g = _GEOMETRY.get(key)
        if g is None:
            g = _expand_geometry(sz, shp, bst, isz)
            if len(_GEOMETRY) >= _GEOMETRY_MAX:
                _GEOMETRY.clear()
            _GEOMETRY[key] = g
        if not g:
            return body(self, other)
        return _view(self, _ndarray(g[0], a.dtype, a, 0, g[1]))

    return fast
