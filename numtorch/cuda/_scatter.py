"""CUDA scatter with a reduction: ``scatter(reduce="add"|"multiply")`` (tensor or value source)
and ``scatter_reduce`` (sum, prod, mean, amax, amin; ``include_self``), one thread per index
line (Note [Scatter along lines]). Shape and dtype errors come from the op's meta kernel,
index values are checked on the host first (Note [CUDA index checks]); nothing is written
before the checks pass. bool reduces as int64 (sum is any, prod is all) and half as float32, each
cast back.
"""

from __future__ import annotations

import warnings

import numpy as np

from .. import _dtype as D
from .._tensor import Tensor, _make
from ..kernels import lazy
from . import _pointwise as P
from . import _storage as S
from ._composed import _check
from ._indexing import _a1, _first_bad, _idx, _wrap
from ._launch import launch, meta
from ._sort import _work

K_SC = lazy("numtorch.kernels.cuda.scatter")
_MO: list = []  # (OPS, meta_of), set by install
_OPS = {"sum": 0, "mean": 1, "prod": 2, "amax": 3, "amin": 4}  # kernels/cuda/scatter.py's codes
_LEGACY = {"add": "sum", "multiply": "prod"}
_LEGACY_WARN = (
    "The reduce argument of torch.scatter with Tensor src is deprecated and will be removed in a "
    "future PyTorch release. Use torch.scatter_reduce instead for more reduction options."
)


def _meta(name, vals):
    ops, meta_of = _MO[0]
    return meta_of(ops[name], vals)


def _identity(reduce: str, dt: np.dtype):
    if reduce in ("sum", "mean"):
        return dt.type(0)
    if reduce == "prod":
        return dt.type(1)
    if dt.kind == "f":
        return dt.type(-np.inf if reduce == "amax" else np.inf)
    info = np.iinfo(dt)
    return dt.type(info.min if reduce == "amax" else info.max)


def reduce_into(inplace, self, dim, index, src, reduce, include_self=True):
    """``self`` (``inplace``) or a copy with ``src`` (a tensor or a scalar) reduced in at ``index``."""
    x = _a1(self._data)
    d = _wrap(dim, x.ndim)
    size = x.shape[d]
    bad = _first_bad(index, 0, size)
    if bad is not None:
        raise RuntimeError(f"index {bad} is out of bounds for dimension {d} with size {size}")
    from ._install import contiguous_copy, copy_into, fill

    wdt = _work(self._dtype, "scatter_gather_elements")
    work = contiguous_copy(x, wdt)
    idx = _idx(index)
    shape = idx.shape
    if isinstance(src, Tensor):
        s = _a1(P.cast(src._data, wdt))
        sst = s.estrides
    else:
        from ..ops.shape.inplace import checked_scalar

        s = S.empty((1,), wdt)
        fill(s, wdt.type(checked_scalar(src, self._dtype)))
        sst = (0,) * len(shape)
    op = _OPS[reduce]
    cnt = S.empty(work.shape if reduce == "mean" else (1,), np.int64)
    if reduce == "mean":
        fill(cnt, np.int64(0))
    lines = idx.size // shape[d] if shape[d] else 0
    launch(K_SC.scatter_reduce_lines, lines, meta(shape), d, size, work.root, meta(work.estrides), s.root,
           s.offset, meta(sst), idx.root, idx.offset, meta(idx.estrides), cnt.root, op, bool(include_self),
           _identity(reduce, wdt))  # fmt: skip
    if reduce == "mean":
        launch(K_SC.divide_counts, work.size, work.root, cnt.root, 1 if include_self else 0, wdt.kind != "f")
    res = work if wdt == self._dtype.np else P.cast(work, self._dtype.np)
    if inplace:
        copy_into(self._data, S.CudaArray(res.block, res.root, res.offset, self._data.shape,
                                          res.estrides[: self._data.ndim], res.dtype))  # fmt: skip
        self._vc[0] += 1
        return self
    out = res if self._data.ndim else S.CudaArray(res.block, res.root, res.offset, (), (), res.dtype)
    return _make(out, self._dtype, Tensor, self._device)


def scatter_legacy(inplace: bool, name: str):
    def impl(self, dim, index, src, reduce):
        _check(self, index, src)
        _meta(name, [self, dim, index, src, reduce])
        if isinstance(src, Tensor):
            warnings.warn(_LEGACY_WARN, UserWarning, stacklevel=4)
        if reduce not in _LEGACY:
            raise RuntimeError("reduce argument must be either add or multiply.")
        return reduce_into(inplace, self, dim, index, src, _LEGACY[reduce])

    return impl


def scatter_reduce(inplace: bool, name: str):
    def impl(self, dim, index, src, reduce, include_self=True):
        _check(self, index, src)
        if reduce not in _OPS:
            raise RuntimeError(f"reduce argument must be either sum, prod, mean, amax or amin, got {reduce}")
        _meta(name, [self, dim, index, src, reduce, include_self])
        if reduce == "mean" and self._dtype is D.bool:
            raise NotImplementedError("\"scatter_gather_tensor_cpu_reduce_mean\" not implemented for 'Bool'")
        return reduce_into(inplace, self, dim, index, src, reduce, include_self)

    return impl


def install(ops: dict, meta_of) -> dict:
    _MO[:] = [(ops, meta_of)]
    return {
        "aten::scatter.reduce": scatter_legacy(False, "aten::scatter.reduce"),
        "aten::scatter_.reduce": scatter_legacy(True, "aten::scatter_.reduce"),
        "aten::scatter.value_reduce": scatter_legacy(False, "aten::scatter.value_reduce"),
        "aten::scatter_.value_reduce": scatter_legacy(True, "aten::scatter_.value_reduce"),
        "aten::scatter_reduce.two": scatter_reduce(False, "aten::scatter_reduce.two"),
        "aten::scatter_reduce_.two": scatter_reduce(True, "aten::scatter_reduce_.two"),
    }
