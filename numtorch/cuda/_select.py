"""CUDA median, nanmedian, kthvalue and mode (a stable sort, then one thread per row picks its
element, Note [CUDA merge sort by ranks]); the scans are in _scan.py.

The picks are the CPU's (numtorch/ops/reduction/sorting.py): after a stable sort with NaN last,
median takes the lower median or a row's first NaN, nanmedian the lower median of the non-NaN
elements, kthvalue position k - 1; so values and indices (ties included) equal the CPU's.
Gradients are the ops' own backward formulas, which run on the device.
"""

from __future__ import annotations

import math

import numpy as np

from .. import _dtype as D
from .._tensor import Tensor, _make
from ..kernels import lazy
from . import _pointwise as P
from . import _storage as S
from ._composed import _check
from ._indexing import _wrap
from ._launch import launch
from ._sort import _meta, sorted_rows

K_SORT = lazy("numtorch.kernels.cuda.sort")
K_SCAN = lazy("numtorch.kernels.cuda.scan")
_HOW = {"median": 0, "nanmedian": 1, "kthvalue": 2}


def _not_implemented(name, dt):
    # AT_DISPATCH's refusal: NotImplementedError since PyTorch 2.1, as the CPU ops raise here
    return NotImplementedError(str(P.not_implemented(name, dt)))


def _refuse(self, name):
    if self._dtype is D.bool or self._dtype.is_complex:  # PyTorch's CUDA kernels take neither
        raise _not_implemented(name, self._dtype)


def _pick(self, dim, keepdim, name, k=0):
    """(values, indices) of ``name`` along ``dim``, as the CPU kernel's pick of a stable sort."""
    from ..ops.reduction import sorting as so

    a = self._data
    d = _wrap(dim, a.ndim)
    cls = {"median": so.Median, "nanmedian": so.NanMedian, "kthvalue": so.KthValue, "mode": so.Mode}[name]
    shape = [s for i, s in enumerate(a.shape) if i != d]
    if keepdim and a.ndim:
        shape.insert(d, 1)
    rows = math.prod(shape)
    vals, idx = S.empty(tuple(shape), self._dtype.np), S.empty(tuple(shape), np.int64)
    if rows:
        keys, order, _ = sorted_rows(self, d, False)
        n = a.shape[d] if a.ndim else 1
        v = S.empty(tuple(shape), keys.dtype)  # the work dtype (float16 picks in float32)
        if name == "mode":
            launch(K_SORT.mode_sorted, rows, n, keys.root, order.root, v.root, idx.root)
        else:
            launch(K_SORT.pick_sorted, rows, n, keys.root, order.root, v.root, idx.root, _HOW[name], k)
        vals = P.cast(v, self._dtype.np)
    dev = self._device
    return cls(_make(vals, self._dtype, Tensor, dev), _make(idx, D.int64, Tensor, dev))


def mode(self, dim=-1, keepdim=False):
    from ..ops.reduction.sorting import Mode

    _check(self)
    a = self._data
    dev = self._device
    d = _wrap_checked(dim, a.ndim)
    if a.ndim == 0:  # PyTorch returns a 0-d input before any dtype check
        return Mode(_make(P.cast(a, a.dtype).copy(), self._dtype, Tensor, dev), _make(S.from_host(np.zeros((), np.int64)),
                                                                                     D.int64, Tensor, dev))  # fmt: skip
    if a.shape[d] == 0:
        raise IndexError(f"mode(): Expected reduction dim {d} to have non-zero size.")
    if self._dtype.is_complex:
        raise _not_implemented("mode", self._dtype)
    return _pick(self, d, keepdim, "mode")


def _median_dim(name):
    def impl(self, dim, keepdim=False):
        from ..ops.reduction.sorting import _median_dim_checks

        _check(self)
        _median_dim_checks(self, dim, keepdim)
        _refuse(self, name)
        return _pick(self, dim, keepdim, name)

    return impl


def _median_all(name):
    def impl(self):
        _check(self)
        if self._data.size == 0:  # PyTorch's NaN in the input's dtype, before the dtype check
            with np.errstate(invalid="ignore"):
                nan = np.array(np.nan).astype(self._dtype.np)
            return _make(S.from_host(nan), self._dtype, Tensor, self._device)
        _refuse(self, name)
        return _pick(self.reshape(-1), 0, False, name).values.reshape(())

    return impl


def kthvalue(self, k, dim=-1, keepdim=False):
    _check(self)
    a = self._data
    d = _wrap(dim, a.ndim)
    n = a.shape[d] if a.ndim else 1
    _meta("aten::kthvalue", [self, k, dim, keepdim])  # the dim's range and PyTorch's errors
    if n == 0:
        raise IndexError(f"kthvalue(): Expected reduction dim {d} to have non-zero size.")
    if not 1 <= k <= n:
        raise RuntimeError(f"kthvalue(): selected number k out of range for dimension {d}")
    if a.ndim:
        _refuse(self, "kthvalue")
    return _pick(self, dim, keepdim, "kthvalue", k - 1)


def _wrap_checked(dim, ndim):
    from ..ops.reduction import _reduce as E

    return E.wrap_dim(dim, ndim)  # PyTorch's IndexError for a dim out of range


def install(ops: dict) -> dict:
    out = {"aten::kthvalue": kthvalue, "aten::mode": mode}
    for name in ("median", "nanmedian"):
        out[f"aten::{name}"] = _median_all(name)
        out[f"aten::{name}.dim"] = _median_dim(name)
    return {k: v for k, v in out.items() if k in ops}
