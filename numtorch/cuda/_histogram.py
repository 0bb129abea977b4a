"""CUDA bincount and histc on the kernels of numtorch/kernels/cuda/histogram.py (privatised
shared-memory histograms for few bins, global atomics for many), with the CPU ops' checks and texts (numtorch/ops/indexing/masked.py, numtorch/ops/pointwise/special.py).
Both result sizes or ranges depend on the data: its min and max come to the host first, as in
PyTorch (one synchronisation)."""

from __future__ import annotations

import numpy as np

from .. import _dtype as D
from .._tensor import Tensor, _make
from ..kernels import lazy
from . import _pointwise as P
from . import _storage as S
from ._composed import _check
from ._launch import launch, run

K = lazy("numtorch.kernels.cuda.histogram")


def _private(bins: int) -> bool:
    from ..kernels.cuda.histogram import HIST_BINS

    return bins <= HIST_BINS


def _launch_private(kernel, total: int, *args) -> None:
    """A privatised histogram kernel on ``total`` elements: a quarter of the elementwise grid
    cap at most (4 blocks of THREADS per SM), each block flushing its bins into the result
    once; under the simulator 2 blocks, so the tests see the grid-stride loop and two flushes."""
    from ._launch import _EW, _ew_setup

    cap, threads = _EW or _ew_setup()
    run(kernel, max(1, min(-(-total // threads), max(2, cap // 4))), threads, (total, *args))


def _zeros(n, npdt) -> S.CudaArray:
    from ._install import fill

    out = S.empty((n,), npdt)
    fill(out, npdt.type(0))
    return out


def _data_range(t: Tensor) -> list:
    """[min, max] of ``t``'s elements on the host: two reductions, one transfer (one wait)."""
    import numtorch

    return numtorch.stack((t.amin(), t.amax())).tolist()


def bincount(self, weights=None, minlength=0):
    from ._select import _not_implemented

    _check(self, *([weights] if weights is not None else []))
    if self._dtype.category != D._INT:
        raise _not_implemented("bincount", self._dtype)
    if minlength < 0:
        raise RuntimeError("minlength should be >= 0")
    a = self._data
    dev = self._device
    if a.ndim == 1 and a.size == 0:
        return _make(_zeros(minlength, np.dtype(np.int64)), D.int64, Tensor, dev)
    lo, hi = _data_range(self) if a.ndim == 1 else (-1, -1)
    if lo < 0:
        raise RuntimeError("bincount only supports 1-d non-negative integral inputs.")
    if weights is not None and (weights._data.ndim != 1 or weights._data.size != a.size):
        raise RuntimeError("weights should be 1-d and have the same length as input")
    n = max(int(hi) + 1, minlength)
    idx = P.cast(a, a.dtype)  # contiguous; the kernels compile for its own integer dtype
    if weights is None:
        counts = _zeros(n, np.dtype(np.int64))
        if _private(n):
            _launch_private(K.count_shared, a.size, idx.root, idx.offset, counts.root, n)
        else:
            launch(K.count_at, a.size, idx.root, idx.offset, counts.root)
        return _make(counts, D.int64, Tensor, dev)
    dt = D.float32 if weights._dtype is D.float32 else D.float64
    w = P.cast(weights._data, dt.np)
    out = _zeros(n, dt.np)
    if _private(n):
        kernel = K.add_shared_f32 if dt is D.float32 else K.add_shared_f64
        _launch_private(kernel, a.size, idx.root, idx.offset, w.root, w.offset, out.root, n)
    else:
        launch(K.add_at, a.size, idx.root, idx.offset, w.root, w.offset, out.root)
    return _make(out, dt, Tensor, dev)


def histc(self, bins=100, min=0, max=0):  # noqa: A002 - the schema's names
    from ..ops._pointwise import _cname
    from ..ops.pointwise.special import histc_range

    _check(self)
    if self._dtype.category != D._FLOAT:
        kname = "linspace_cuda" if self._dtype is D.bool else "histogram_cuda"
        raise NotImplementedError(f'"{kname}" not implemented for \'{_cname(self._dtype)}\'')
    a = self._data
    lo, hi = histc_range(bins, min, max, a.size, lambda: tuple(map(float, _data_range(self))))
    counts = _zeros(bins, np.dtype(np.int64))
    if a.size:
        x = P.cast(a, np.dtype(np.float32) if a.dtype == np.float16 else a.dtype)  # half: read as float32
        if _private(int(bins)):
            _launch_private(K.histc_shared, a.size, x.root, x.offset, counts.root, lo, hi, int(bins))
        else:
            launch(K.histc_counts, a.size, x.root, x.offset, counts.root, lo, hi, int(bins))
    return _make(P.cast(counts, self._dtype.np), self._dtype, Tensor, self._device)


IMPLS = {"aten::bincount": bincount, "aten::histc": histc}
