"""CUDA sort, argsort and topk (stable merge sort, Note [CUDA merge sort by ranks]), cumprod's
zero-safe gradient, prod and count_nonzero (the scans: _scan.py).

Shapes, dtypes and argument errors come from each op's meta kernel (Note [CUDA index checks]);
the sorted or scanned dim is moved last in a contiguous copy, and results are read back through
the inverse permutation. Gradients are the ops' own backward formulas (scatter, gather, cumsum,
cat ...), each of which runs on the device.
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
from ._indexing import _a1, _rows_last, _wrap
from ._launch import launch, run

K_SORT = lazy("numtorch.kernels.cuda.sort")
K_SCAN = lazy("numtorch.kernels.cuda.scan")
_MO: list = []  # (OPS, meta_of), set by install


def _meta(name, vals):
    ops, meta_of = _MO[0]
    return meta_of(ops[name], vals)


def _back(x: S.CudaArray, perm, shape, npdt) -> S.CudaArray:
    """Rows-last ``x`` (its last dim cut to ``shape``'s) read back in the original dim order."""
    from ._install import contiguous_copy

    inv = np.argsort(perm)
    v = S.CudaArray(x.block, x.root, x.offset, [x.shape[p] for p in inv], [x.estrides[p] for p in inv], x.dtype)
    v = S.CudaArray(v.block, v.root, v.offset, shape, v.estrides, v.dtype)
    return contiguous_copy(v, npdt)


def _work(dt: D.dtype, name: str = "sort"):
    """The dtype the kernels run in: bool as int64, half as float32 (rounded once at the end)."""
    if dt in P._UNSUPPORTED:
        raise P.not_implemented(name, dt)
    return np.dtype(np.int64) if dt is D.bool else np.dtype(np.float32) if dt is D.float16 else dt.np


# ---- sort, argsort, topk -----------------------------------------------------------------------
def sorted_rows(self: Tensor, dim: int, descending: bool):
    """(keys, int64 indices) of ``self`` sorted along ``dim``, both rows-last; the permutation."""
    a = _a1(self._data)
    d = _wrap(dim, a.ndim)
    keys, perm = _rows_last(a, d, _work(self._dtype))
    n = a.shape[d]
    total = keys.size
    from ..kernels.cuda import SORT_TILE

    # Note [CUDA merge sort by ranks]: runs of SORT_TILE in one launch, a block per tile sorting
    # it in shared memory (Note [CUDA bitonic tile sort]: a thread per compare-exchange of a
    # step, at least a warp, at most SORT_TILE / 4)
    k2, i2 = S.empty(keys.shape, keys.dtype), S.empty(keys.shape, np.int64)
    tiles = -(-n // SORT_TILE)
    block = min(SORT_TILE // 4, max(32, 1 << max(0, (min(n, SORT_TILE) - 1).bit_length() - 1)))
    kern = K_SORT.tile_sort_float if keys.dtype.kind == "f" else K_SORT.tile_sort_int
    run(kern, (total // n) * tiles, block, (n, keys.root, k2.root, i2.root, bool(descending)))
    keys, idx, k2 = k2, i2, keys
    i2 = S.empty(keys.shape, np.int64) if n > SORT_TILE else None
    w = SORT_TILE
    while w < n:
        launch(K_SORT.merge_pass, total, n, w, keys.root, idx.root, k2.root, i2.root, bool(descending))
        keys, idx, k2, i2 = k2, i2, keys, idx
        w *= 2
    return keys, idx, perm


def _pair(self, keys, idx, perm, shape, cls):
    vals = _0d(_back(keys, perm, shape or (1,), self._dtype.np), shape)
    ind = _0d(_back(idx, perm, shape or (1,), np.int64), shape)
    return cls(_make(vals, self._dtype, Tensor, self._device), _make(ind, D.int64, Tensor, self._device))


def sort(self, stable, dim=-1, descending=False):
    from ..ops.reduction.sorting import Sort

    _check(self)
    _meta("aten::sort.stable", [self, stable, dim, descending])
    if self._data.size == 0:
        return Sort(_make(S.empty(self._data.shape, self._dtype.np), self._dtype, Tensor, self._device),
                    _make(S.empty(self._data.shape, np.int64), D.int64, Tensor, self._device))  # fmt: skip
    keys, idx, perm = sorted_rows(self, dim, descending)
    return _pair(self, keys, idx, perm, self._data.shape, Sort)


def argsort(self, stable, dim=-1, descending=False):
    return sort(self, stable, dim, descending).indices


def topk(self, k, dim=-1, largest=True, sorted=True):
    from ..ops.reduction.sorting import TopK

    _check(self)
    res = _meta("aten::topk", [self, k, dim, largest, sorted])
    a = _a1(self._data)
    if not 0 <= k <= a.shape[_wrap(dim, a.ndim)]:
        raise RuntimeError("selected index k out of range")
    shape = res[0]._data.shape
    if res[0]._data.size == 0:
        return TopK(_make(S.empty(shape, self._dtype.np), self._dtype, Tensor, self._device),
                    _make(S.empty(shape, np.int64), D.int64, Tensor, self._device))  # fmt: skip
    if k <= _topk_max():
        return _pair(self, *_select_rows(self, dim, k, largest), tuple(shape), TopK)
    keys, idx, perm = sorted_rows(self, dim, largest)
    cut = (*keys.shape[:-1], k)
    keys = S.CudaArray(keys.block, keys.root, keys.offset, cut, keys.estrides, keys.dtype)
    idx = S.CudaArray(idx.block, idx.root, idx.offset, cut, idx.estrides, idx.dtype)
    return _pair(self, keys, idx, perm, tuple(shape), TopK)


def _topk_max() -> int:
    from ..kernels.cuda.sort import TOPK_MAX

    return TOPK_MAX


def _select_rows(self: Tensor, dim: int, k: int, largest: bool):
    """(values, int64 indices) of the k first of each row in the stable sort's order, rows-last,
    and the permutation: Note [CUDA topk by selection] (1 <= k <= TOPK_MAX)."""
    from ..kernels.cuda import RED_BLOCKS
    from ..kernels.cuda.sort import TOPK_THREADS

    a = _a1(self._data)
    d = _wrap(dim, a.ndim)
    keys, perm = _rows_last(a, d, _work(self._dtype))
    n = a.shape[d]
    rows = keys.size // n
    cut = (*keys.shape[:-1], k)
    vals, idx = S.empty(cut, keys.dtype), S.empty(cut, np.int64)
    # about 8 elements a thread or more: fewer threads on short rows, fewer merge rounds
    T = min(TOPK_THREADS, 1 << max(0, (-(-n // 8) - 1).bit_length()))
    kern = K_SORT.topk_rows_float if keys.dtype.kind == "f" else K_SORT.topk_rows_int
    run(kern, min(rows, RED_BLOCKS), T, (rows, n, k, keys.root, vals.root, idx.root, bool(largest)))
    return vals, idx, perm


def _0d(a: S.CudaArray, shape) -> S.CudaArray:
    # a 0-d input sorts as one element; its results are 0-d again
    return a if shape else S.CudaArray(a.block, a.root, a.offset, (), (), a.dtype)


# ---- cumprod, its gradient, prod, count_nonzero -----------------------------------------------
def cumprod_grad(grad, self, dim):
    _check(grad, self)
    a = self._data
    if a.size == 0 or a.ndim == 0:
        return _make(P.cast(grad._data, self._dtype.np).copy(), self._dtype, Tensor, self._device)
    d = _wrap(dim, a.ndim)
    x, perm = _dim_first(a, d, np.float64)
    g, _ = _dim_first(grad._data, d, np.float64)
    out = S.empty(x.shape, np.float64)
    n = a.shape[d]
    launch(K_SCAN.cumprod_grad_cols, a.size // n, x.root, g.root, out.root, n)
    return _make(_back(out, perm, a.shape, self._dtype.np), self._dtype, Tensor, self._device)


def _dim_first(a: S.CudaArray, dim: int, npdt):
    """``a`` with ``dim`` moved first, as a contiguous ``npdt`` copy (the scans' coalesced
    layout, numtorch/kernels/cuda/scan.py): (copy, permutation)."""
    from ._install import contiguous_copy

    perm = [dim] + [k for k in range(a.ndim) if k != dim]
    v = S.CudaArray(a.block, a.root, a.offset, [a.shape[p] for p in perm], [a.estrides[p] for p in perm], a.dtype)
    return contiguous_copy(v, npdt), perm


def _prod(self, dim, keepdim, dtype, name, vals):
    _check(self)
    res = _meta(name, vals)
    out_dt = res._dtype
    # prod's result is never bool (int64 for integers); complex multiplies in complex128
    work = np.dtype(np.complex128) if out_dt.is_complex else _work(out_dt, "prod")
    a = self._data
    if dim is None or a.ndim == 0:
        x = P.cast(a, work).copy()
        rows, n = 1, a.size
    else:
        d = _wrap(dim, a.ndim)
        x, _ = _rows_last(a, d, work)
        n = a.shape[d]
        rows = a.size // n if n else math.prod(s for i, s in enumerate(a.shape) if i != d)
    out = S.empty(res._data.shape, work)
    if rows:
        _prod_rows(x, rows, n, out)
    return _make(P.cast(out, out_dt.np), out_dt, Tensor, self._device)


def _prod_rows(x, rows, n, out):
    from ..kernels.cuda import RED_BLOCKS, RED_THREADS

    from ._install import fill

    if n == 0:
        fill(out, out.dtype.type(1))
        return
    kind = x.dtype.kind
    kern = K_SCAN.prod_rows_float if kind == "f" else K_SCAN.prod_rows_complex if kind == "c" else K_SCAN.prod_rows_int
    # few long rows (a full product): chunks per row, one block each, then the partials
    k = max(1, min(-(-n // (RED_THREADS * 16)), 1024 // rows)) if rows < 1024 else 1
    if k > 1:
        part = S.empty((rows * k,), {"f": np.float64, "c": np.complex128}.get(kind, np.int64))
        run(kern, min(rows * k, RED_BLOCKS), RED_THREADS, (x.root, rows, n, k, part.root))
        x, n = part, k
    run(kern, min(rows, RED_BLOCKS), RED_THREADS, (x.root, rows, n, 1, out.root))


def count_nonzero(self, dim):
    _check(self)
    res = _meta("aten::count_nonzero.dim_IntList", [self, dim])
    dims = [dim] if isinstance(dim, int) else list(dim) if dim else list(range(self._data.ndim))
    hits = self != 0
    r = hits.sum(dims) if dims else hits.long()
    return r.reshape(res._data.shape)


def install(ops: dict, meta_of) -> dict:
    from . import _histogram, _memcpy, _scan

    _MO[:] = [(ops, meta_of)]
    return _scan.install(ops, meta_of) | _histogram.IMPLS | {
        "aten::resize_": _memcpy.resize_,
        "aten::sort.stable": sort,
        "aten::sort": lambda self, dim=-1, descending=False: sort(self, None, dim, descending),
        "aten::argsort.stable": argsort,
        "aten::topk": topk,
        "aten::_cumprod_grad": cumprod_grad,
        "aten::prod": lambda self, dtype=None: _prod(self, None, False, dtype, "aten::prod", [self, dtype]),
        "aten::prod.dim_int": lambda self, dim, keepdim=False, dtype=None: _prod(
            self, dim, keepdim, dtype, "aten::prod.dim_int", [self, dim, keepdim, dtype]),
        "aten::count_nonzero.dim_IntList": count_nonzero,
    }
