"""CUDA index ops (gather, index_select, embedding and its backward, scatter, index_add),
argmax/argmin and flip, on the kernels of numtorch/kernels/cuda/index.py.

# Note [CUDA index checks]
# Shapes, dtypes and argument errors come from the op's meta kernel (the CPU kernel's rules,
# one place). Index *values* are checked by the kernels themselves and reported, with the CPU
# kernel's error text, at the next synchronising call (Note [Device-side index checks]); with
# the synchronous switch on, or for advanced indexing (whose offsets are computed on the host),
# the index is copied to the host and checked before any launch.
"""

from __future__ import annotations

import numpy as np

from .. import _dtype as D
from .._meta import contiguous_strides
from .._tensor import Tensor, _make
from ..kernels import lazy
from . import _devcheck as E
from . import _pointwise as P
from . import _storage as S
from ._composed import _check
from ._launch import launch, meta, strides_for

K_IDX = lazy("numtorch.kernels.cuda.index")
_MO: list = []  # (OPS, meta_of), set by install


def _meta(name, vals):
    ops, meta_of = _MO[0]
    return meta_of(ops[name], vals)


def _wrap(dim: int, ndim: int) -> int:
    return dim % max(ndim, 1)


def _a1(a: S.CudaArray) -> S.CudaArray:
    # 0-d operands index as 1-d of one element (the CPU kernels' _atleast1)
    return a if a.ndim else S.CudaArray(a.block, a.root, a.offset, (1,), (1,), a.dtype)


def _first_bad(index: Tensor, lo: int, hi: int):
    """The first index value outside [lo, hi), or None (Note [CUDA index checks])."""
    i = index._data.copy_to_host().reshape(-1)
    bad = i[(i < lo) | (i >= hi)]
    return int(bad[0]) if bad.size else None


def checked(index: Tensor, size: int, code: int, dim: int) -> int:
    """``code`` for the kernels that read ``index`` along ``dim`` (of ``size``): checked there,
    or here first under the synchronous switch (Note [Device-side index checks])."""
    if E.synchronous():
        bad = _first_bad(index, 0, size)
        if bad is not None:
            exc, text = E.MESSAGES[code]
            raise exc(text.format(bad=bad, dim=dim, size=size))
    return code


def _idx(index: Tensor) -> S.CudaArray:
    return _a1(P.cast(index._data, np.dtype(np.int64)))


def gather_into(out: S.CudaArray, x: S.CudaArray, idx: S.CudaArray, ist, dim: int, code: int = 0) -> None:
    """``out`` (contiguous) = ``x`` read at ``idx`` along ``dim`` (idx strides ``ist``); ``code``:
    ``checked``'s (0: unchecked, negative indices wrap)."""
    if out.size:
        shape = out.shape or (1,)
        launch(K_IDX.gather_strided, out.size, meta(shape), out.root, x.root, x.offset, meta(x.estrides),
               idx.root, idx.offset, meta(ist), dim, x.shape[dim], E.flag(code != 0), code)  # fmt: skip


def scatter_into(out: S.CudaArray, src: S.CudaArray, shape, idx: S.CudaArray, ist, dim: int, add: bool,
                 code: int = 0) -> None:  # fmt: skip
    """``out`` at ``idx`` along ``dim`` gets (``add``: plus) ``src``, iterating ``shape``."""
    n = int(np.prod(shape, dtype=np.int64))
    if n:
        kern = K_IDX.scatter_add_strided if add else K_IDX.scatter_strided
        launch(kern, n, meta(shape), out.root, out.offset, meta(out.estrides), src.root, src.offset,
               meta(strides_for(src, shape)), idx.root, idx.offset, meta(ist), dim, out.shape[dim], E.flag(code != 0),
               code)  # fmt: skip


def _along(idx: S.CudaArray, ndim: int, dim: int) -> tuple:
    # a 1-d index read along ``dim`` only (index_select, index_add, embedding)
    st = [0] * ndim
    st[dim] = idx.estrides[0]
    return tuple(st)


def gather(self, dim, index, sparse_grad=False):
    _check(self, index)
    res = _meta("aten::gather", [self, dim, index, sparse_grad])
    x = _a1(self._data)
    d = _wrap(dim, x.ndim)
    code = checked(index, x.shape[d], E.BOUNDS, d)
    out = S.empty(res._data.shape, self._dtype.np)
    idx = _idx(index)
    gather_into(_a1(out), x, idx, idx.estrides, d, code)
    return _make(out, self._dtype, Tensor, self._device)


def index_select(self, dim, index):
    _check(self, index)
    res = _meta("aten::index_select", [self, dim, index])
    x = _a1(self._data)
    d = _wrap(dim, x.ndim)
    code = checked(index, x.shape[d], E.DATA if d == 1 else E.RANGE, d)  # dim 1: the CPU kernel's own message
    out = S.empty(res._data.shape, self._dtype.np)
    idx = _idx(index)
    shape = x.shape[:d] + (idx.size,) + x.shape[d + 1 :]  # out is 0-d for a 0-d self
    o = S.CudaArray(out.block, out.root, out.offset, shape, contiguous_strides(shape), out.dtype)
    gather_into(o, x, idx, _along(idx, x.ndim, d), d, code)
    return _make(out, self._dtype, Tensor, self._device)


def embedding(weight, indices, padding_idx=-1, scale_grad_by_freq=False, sparse=False):
    _check(weight, indices)
    res = _meta("aten::embedding", [weight, indices, padding_idx, scale_grad_by_freq, sparse])
    code = checked(indices, weight._data.shape[0], E.RANGE, 0)
    out = S.empty(res._data.shape, weight._dtype.np)
    idx = P.cast(indices._data, np.dtype(np.int64))
    flat = S.CudaArray(idx.block, idx.root, idx.offset, (idx.size,), (1,), idx.dtype)
    rows = (idx.size, weight._data.shape[1])
    o = S.CudaArray(out.block, out.root, out.offset, rows, contiguous_strides(rows), out.dtype)
    gather_into(o, weight._data, flat, (1, 0), 0, code)
    return _make(out, weight._dtype, Tensor, weight._device)


def embedding_dense_backward(grad_output, indices, num_weights, padding_idx, scale_grad_by_freq):
    _check(grad_output, indices)
    dt = grad_output._dtype
    dim = grad_output._data.shape[-1]
    out = S.empty((num_weights, dim), dt.np)
    from ._install import fill

    fill(out, dt.np.type(0))
    idx = P.cast(indices._data, np.dtype(np.int64))
    n = idx.size
    flat = S.CudaArray(idx.block, idx.root, idx.offset, (n,), (1,), idx.dtype)
    g = P.cast(grad_output._data, dt.np)
    g2 = S.CudaArray(g.block, g.root, g.offset, (n, dim), (dim, 1), g.dtype)
    scatter_into(out, g2, (n, dim), flat, (1, 0), 0, True)
    t = _make(out, dt, Tensor, grad_output._device)
    if scale_grad_by_freq:  # each row divided by how often its index occurs
        cnt = S.empty((num_weights, 1), dt.np)
        fill(cnt, dt.np.type(0))
        ones = S.empty((n, 1), dt.np)
        fill(ones, dt.np.type(1))
        scatter_into(cnt, ones, (n, 1), flat, (1, 0), 0, True)
        c = _make(cnt, dt, Tensor, grad_output._device)
        t = t / c.clamp(min=1)
    if padding_idx >= 0:
        t[padding_idx] = 0
    return t


def _scatter(inplace, add, name, self, dim, index, src, reduce=None):
    _check(self, index, src)
    if reduce is not None:
        raise NotImplementedError(f"numtorch.cuda: {name} with reduce= is not implemented on CUDA yet")
    _meta(name, [self, dim, index, src])
    x = _a1(self._data)
    d = _wrap(dim, x.ndim)
    code = checked(index, x.shape[d], E.BOUNDS, d)
    if isinstance(src, Tensor):
        s = _a1(P.cast(src._data, self._dtype.np))
    else:
        from ..ops.shape.inplace import checked_scalar

        s = S.empty((1,), self._dtype.np)
        from ._install import fill

        fill(s, self._dtype.np.type(checked_scalar(src, self._dtype)))
    target = self if inplace else _make(self._data.copy(), self._dtype, Tensor, self._device)
    idx = _idx(index)
    scatter_into(_a1(target._data), s, idx.shape, idx, idx.estrides, d, add, code)
    if inplace:
        self._vc[0] += 1
    return target


def index_add(inplace, self, dim, index, source, alpha=1):
    _check(self, index, source)
    _meta("aten::index_add", [self, dim, index, source, alpha])
    x = _a1(self._data)
    d = _wrap(dim, x.ndim)
    code = checked(index, x.shape[d], E.RANGE if self._data.ndim <= 1 else E.BOUNDS, d)
    src = source if alpha == 1 else source * alpha
    target = self if inplace else _make(self._data.copy(), self._dtype, Tensor, self._device)
    idx = _idx(index)
    shape = x.shape[:d] + (idx.size,) + x.shape[d + 1 :]
    s = src._data
    if not s.ndim:  # a 0-d source fills the whole selected slice
        s = S.CudaArray(s.block, s.root, s.offset, (1,) * len(shape), (0,) * len(shape), s.dtype)
    s = s if s.dtype == self._dtype.np else P.cast(s, self._dtype.np)
    scatter_into(_a1(target._data), s, shape, idx, _along(idx, len(shape), d), d, True, code)
    if inplace:
        self._vc[0] += 1
    return target


# ---- row kernels: argmax/argmin (cumsum: _scan.py) ----------------------------------------------
def _rows_last(a: S.CudaArray, dim: int, npdt):
    """``a`` with ``dim`` moved last, as a contiguous ``npdt`` copy: (copy, permutation)."""
    perm = [k for k in range(a.ndim) if k != dim] + [dim]
    from ._install import contiguous_copy

    return contiguous_copy(S.permuted(a, perm), npdt), perm


def argext(want_max: bool, name: str):
    def impl(self, dim=None, keepdim=False):
        _check(self)
        res = _meta(name, [self, dim, keepdim])
        a = self._data
        if a.size == 0:
            return _make(S.empty(res._data.shape, np.int64), D.int64, Tensor, self._device)
        # half compares as float32 (exact): kernels comparing halves need a linked library that
        # numba-cuda's disk cache cannot store (as the reductions in _install.py)
        npdt = np.dtype(np.int64) if a.dtype == np.bool_ else np.dtype(np.float32) if a.dtype == np.float16 else a.dtype
        if dim is None or a.ndim == 0:
            flat = P.cast(a, npdt)
            x, rows, n = flat, 1, a.size
        else:
            d = _wrap(dim, a.ndim)
            x, _ = _rows_last(a, d, npdt)
            n = a.shape[d]
            rows = a.size // n
        out = S.empty(res._data.shape, np.int64)
        launch(K_IDX.argext_rows, rows, x.root, n, out.root, want_max)
        return _make(out, D.int64, Tensor, self._device)

    return impl


def max_min_dim(want_max: bool, name: str):
    # (values, indices): the first extreme's index (the first NaN's), its value gathered there
    arg = argext(want_max, "aten::argmax" if want_max else "aten::argmin")

    def impl(self, dim, keepdim=False):
        _check(self)
        _meta(name, [self, dim, keepdim])
        from ..ops.reduction.core import Min, MinMax

        idx = arg(self, dim, True)
        vals = gather(self, dim, idx)
        if not keepdim and self._data.ndim:
            d = _wrap(dim, self._data.ndim)
            vals, idx = vals.squeeze(d), idx.squeeze(d)
        return (MinMax if want_max else Min)(vals, idx)

    return impl


def flip(self, dims):
    _check(self)
    res = _meta("aten::flip", [self, dims])
    a = self._data
    st, off = list(a.estrides), a.offset
    for d in {_wrap(k, a.ndim) for k in dims} if a.ndim else ():
        if a.shape[d]:
            off += (a.shape[d] - 1) * st[d]
        st[d] = -st[d]
    from ._install import contiguous_copy

    v = S.CudaArray(a.block, a.root, off, a.shape, st, a.dtype)
    return _make(contiguous_copy(v, a.dtype), res._dtype, Tensor, self._device)


# ---- advanced indexing: x[idx], x[mask], index_put_ -------------------------------------------------
def _flat(a: S.CudaArray) -> S.CudaArray:
    return S.CudaArray(a.block, a.root, a.offset, (a.size,), (1,), a.dtype)


def _offsets(self, indices):
    """The CPU kernel's index expansion and layout on host copies of the indices (its checks and
    messages; Note [CUDA index checks]): (flat C-order offsets into ``self`` on the device,
    result shape), or (None, None) when no index is defined."""
    from ..ops.indexing import core

    host = [None if t is None else _make(t._data.copy_to_host(), t._dtype) if t.is_cuda else t for t in indices]
    shape = self._data.shape
    out, bshape = core._expand_indices(_make(S.standin(self._data), self._dtype), host)
    if bshape is None:
        return None, None
    full, adv, rest, pos, rshape = core._layout(shape, out, bshape)
    off = core._index_offsets(shape, full, adv, rest, pos, bshape, rshape)
    return S.from_host(np.ascontiguousarray(off, np.int64)), rshape


def index(self, indices):
    _check(self)
    if not indices:
        raise IndexError("at least one index must be provided")
    off, rshape = _offsets(self, indices)
    if off is None:
        return _make(self._data.copy(), self._dtype, Tensor, self._device)
    out = S.empty(rshape, self._dtype.np)
    gather_into(_flat(out), _flat(P.cast(self._data, self._dtype.np)), off, (1,), 0)
    return _make(out, self._dtype, Tensor, self._device)


def index_put(inplace: bool):
    def impl(self, indices, values, accumulate=False):
        _check(self, values)
        if values._dtype is not self._dtype:
            raise RuntimeError(f"Index put requires the source and destination dtypes match, got "
                               f"{P._cname(self._dtype)} for the destination and {P._cname(values._dtype)} for the "
                               "source.")  # fmt: skip
        vals = values if values.is_cuda else values.to(self.device)
        off, rshape = _offsets(self, indices)
        rshape = self._data.shape if off is None else rshape
        from ..ops.indexing import core

        core._broadcast_values(_make(S.standin(vals._data), vals._dtype), rshape)  # PyTorch's shape error
        target = self if inplace else _make(self._data.copy(), self._dtype, Tensor, self._device)
        from ._install import contiguous_copy, copy_into

        v = S.CudaArray(vals._data.block, vals._data.root, vals._data.offset, rshape,
                        strides_for(vals._data, rshape), vals._data.dtype)  # fmt: skip
        v = contiguous_copy(v, self._dtype.np)
        if off is None:
            r = (target + _make(v, self._dtype, Tensor, self._device)) if accumulate else None
            copy_into(target._data, r._data if accumulate else v)
        else:
            work = target._data if target._data.contiguous else contiguous_copy(target._data, self._dtype.np)
            scatter_into(_flat(work), _flat(v), (v.size,), off, (1,), 0, accumulate)
            if work is not target._data:
                copy_into(target._data, work)
        if inplace:
            self._vc[0] += 1
        return target

    return impl


def install(ops: dict, meta_of) -> dict:
    _MO[:] = [(ops, meta_of)]
    return {
        "aten::gather": gather,
        "aten::index_select": index_select,
        "aten::embedding": embedding,
        "aten::embedding_dense_backward": embedding_dense_backward,
        "aten::scatter.src": lambda *v: _scatter(False, False, "aten::scatter.src", *v),
        "aten::scatter_.src": lambda *v: _scatter(True, False, "aten::scatter_.src", *v),
        "aten::scatter.value": lambda *v: _scatter(False, False, "aten::scatter.value", *v),
        "aten::scatter_.value": lambda *v: _scatter(True, False, "aten::scatter_.value", *v),
        "aten::scatter_add": lambda *v: _scatter(False, True, "aten::scatter_add", *v),
        "aten::scatter_add_": lambda *v: _scatter(True, True, "aten::scatter_add_", *v),
        "aten::index_add": lambda *v: index_add(False, *v),
        "aten::index_add_": lambda *v: index_add(True, *v),
        "aten::argmax": argext(True, "aten::argmax"),
        "aten::argmin": argext(False, "aten::argmin"),
        "aten::max.dim": max_min_dim(True, "aten::max.dim"),
        "aten::min.dim": max_min_dim(False, "aten::min.dim"),
        "aten::flip": flip,
        "aten::index.Tensor": index,
        "aten::index_put_": index_put(True),
        "aten::index_put": index_put(False),
    }
