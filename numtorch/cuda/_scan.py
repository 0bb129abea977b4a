"""CUDA cumsum, cumprod, logcumsumexp (complex too), cummax and cummin on the scan kernels of
numtorch/kernels/cuda/scan.py (Note [CUDA scans]), their in-place forms, and the ``out=``
overloads of the reductions, scans, sorts and picks (their declaration's own out body, which
computes with the functional op on the input's device: _reduce.functional).

Shapes, dtypes and argument errors come from each op's meta kernel (Note [CUDA index checks]);
gradients are the ops' own backward formulas, which run on the device.
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
from ._launch import launch, run

K_SCAN = lazy("numtorch.kernels.cuda.scan")
_MO: list = []  # (OPS, meta_of), set by install
_ROWS_MIN = 16  # dim-last rows at least this long take the block scan; shorter, a thread per row
# Fewer lines than _FEW_LINES, each at least _LONG long, along a non-last dim: scan a rows-last
# copy. A line thread's steps wait on each other (its store may alias the next load: in place),
# ~600 cycles of memory latency each, so only ~10^5 threads or more keep the memory busy: 2048
# lines of 2048 (cumprod along dim 0 of 2048x2048) took 400 us that way on an H200, where two
# transposing copies and the block scan move the same bytes about 4 times over at near the
# copy rate.
_FEW_LINES = 1 << 17
_LONG = 64
_FEW_ROWS = 264  # two blocks per SM of an H100 / H200: fewer rows than this are cut into chunks
_DUMMY: list = []


def _meta(name, vals):
    ops, meta_of = _MO[0]
    return meta_of(ops[name], vals)


def _layout(shape, d):
    return math.prod(shape[:d]), shape[d], math.prod(shape[d + 1:])


def _input(a: S.CudaArray, work):
    """(x, out): ``a`` contiguous from element 0 in ``work`` (the kernels index the root), and
    where the scan writes: ``a`` itself is only read; a copy is scanned in place."""
    if a.offset == 0 and a.contiguous and a.dtype == work:
        return a, S.empty(a.shape, work)
    from ._install import contiguous_copy

    x = contiguous_copy(a, work)
    return x, x


def _rows_last(a: S.CudaArray, d: int):
    perm = [k for k in range(a.ndim) if k != d] + [d]
    return S.permuted(a, perm), perm


def _few_long_lines(a: S.CudaArray, d: int) -> bool:
    # too few threads walking long lines leave the GPU waiting: two transposing copies
    # (Note [Tiled transposing copy]) and the block scan are faster there
    outer, n, inner = _layout(a.shape, d)
    return inner > 1 and outer * inner < _FEW_LINES and n >= _LONG


def _threads(n: int) -> int:
    from ..kernels.cuda.scan import SCAN_THREADS

    return min(SCAN_THREADS, max(min(32, SCAN_THREADS), 1 << max(0, n - 1).bit_length()))


def _dummy(npdt):
    """A one-element ``npdt`` array for a kernel's unused chunk totals (its type is the kernel's)."""
    for d in _DUMMY:
        if d.dtype == npdt:
            return d.root
    _DUMMY.append(S.empty((1,), npdt))
    return _DUMMY[-1].root


def _block_rows(x, out, rows, n, op):
    """The block scan of contiguous float rows (op 0 sum, 1 prod, 2 logaddexp) or integer rows
    (sum, prod)."""
    from ..kernels.cuda import RED_BLOCKS
    from ..kernels.cuda.scan import SCAN_ITEMS

    if x.dtype.kind == "f":
        kern = (K_SCAN.cum_rows_sum, K_SCAN.cum_rows_prod, K_SCAN.cum_rows_lse)[op]
    else:  # int64 accumulators, chunk totals and dummy: exact
        kern = (K_SCAN.cum_rows_int_sum, K_SCAN.cum_rows_int_prod)[op]
    acc = np.dtype(np.float64 if x.dtype.kind == "f" else np.int64)
    T = _threads(-(-n // SCAN_ITEMS))
    # a few long rows: k chunks per row, each at least 4 passes of the block, about 1024 blocks
    k = max(1, min(-(-n // (4 * T * SCAN_ITEMS)), -(-1024 // rows))) if rows < _FEW_ROWS else 1
    if k == 1:
        run(kern, min(rows, RED_BLOCKS), T, (x.root, out.root, rows, n, 1, _dummy(acc), 0))
        return
    part = S.empty((rows * k,), acc)
    run(kern, min(rows * k, RED_BLOCKS), T, (x.root, out.root, rows, n, k, part.root, 1))
    run(kern, min(rows, RED_BLOCKS), _threads(-(-k // SCAN_ITEMS)), (part.root, part.root, rows, k, 1, _dummy(acc), 0))
    run(kern, min(rows * k, RED_BLOCKS), T, (x.root, out.root, rows, n, k, part.root, 2))


def _scan(a: S.CudaArray, d: int, work, op) -> S.CudaArray:
    """``a`` (ndim >= 1, not empty) scanned along ``d`` in ``work``: op 0 sum, 1 prod, 2
    logaddexp; a contiguous array of ``a``'s shape."""
    from ._sort import _back

    rows = work.kind == "f" or (work.kind in "iu" and op != 2)  # the block scan's kinds
    if rows and _few_long_lines(a, d):
        v, perm = _rows_last(a, d)
        return _back(_scan(v, v.ndim - 1, work, op), perm, a.shape, work)
    outer, n, inner = _layout(a.shape, d)
    x, out = _input(a, work)
    if rows and inner == 1 and n >= _ROWS_MIN:
        _block_rows(x, out, outer, n, op)
    elif op == 2 and work.kind == "c":
        launch(K_SCAN.lse_lines_complex, outer * inner, x.root, out.root, outer, n, inner)
    elif op == 2:
        launch(K_SCAN.lse_lines, outer * inner, x.root, out.root, outer, n, inner)
    else:
        zero = {"f": np.float64(-0.0), "c": np.complex128(complex(-0.0, -0.0))}.get(work.kind, np.int64(0))
        launch(K_SCAN.cum_lines, outer * inner, x.root, out.root, outer, n, inner, op == 1, zero)
    return out


def _result(self: Tensor, arr: S.CudaArray, dt: D.dtype) -> Tensor:
    return _make(arr if arr.dtype == dt.np else P.cast(arr, dt.np), dt, Tensor, self._device)


def _trivial(self: Tensor, dt: D.dtype) -> Tensor | None:
    # a 0-d or empty input: the input itself, cast
    a = self._data
    if a.size == 0 or a.ndim == 0:
        return _make(P.cast(a, dt.np).copy() if a.size else S.empty(a.shape, dt.np), dt, Tensor, self._device)
    return None


def cumsum(self, dim, dtype=None):
    from ._sort import _work

    _check(self)
    dt = _meta("aten::cumsum", [self, dim, dtype])._dtype
    if self._data.ndim and dt.is_complex:
        import numtorch

        # Note [Complex on CUDA]: the parts' running sums, side by side in view_as_real
        r = cumsum(numtorch.view_as_real(self.to(dt).resolve_conj()), _wrap(dim, self._data.ndim))
        return numtorch.view_as_complex(r)
    triv = _trivial(self, dt)
    if triv is not None:
        return triv
    # half: a float32 running sum (PyTorch's opmath), rounded once; bool: int64
    return _result(self, _scan(self._data, _wrap(dim, self._data.ndim), _work(dt, "cumsum"), 0), dt)


def cumprod(self, dim, dtype=None):
    from ._sort import _work

    _check(self)
    dt = _meta("aten::cumprod", [self, dim, dtype])._dtype
    work = _work(dt, "cumprod")
    triv = _trivial(self, dt)
    if triv is not None:
        return triv
    return _result(self, _scan(self._data, _wrap(dim, self._data.ndim), work, 1), dt)


def logcumsumexp(self, dim):
    from ._select import _not_implemented

    _check(self)
    a = self._data
    d = _wrap(dim, a.ndim)
    if self._dtype.category not in (D._FLOAT, D._COMPLEX):
        raise _not_implemented("logcumsumexp", self._dtype)
    triv = _trivial(self, self._dtype)
    if triv is not None:
        return triv
    work = np.dtype(np.float32) if a.dtype == np.float16 else a.dtype
    return _result(self, _scan(a, d, work, 2), self._dtype)


def _cumext(name):
    largest = name == "cummax"

    def impl(self, dim):
        from ..ops.reduction import scan as sc
        from ._select import _not_implemented, _wrap_checked
        from ._sort import _back, _work

        _check(self)
        cls = sc.CumMax if largest else sc.CumMin
        a = self._data
        dev = self._device
        if a.size == 0 or a.ndim == 0:  # the CPU op's early returns: no dim check for empty input
            if a.ndim == 0 and dim not in (-1, 0):
                raise IndexError(f"{name}(): Expected reduction dim -1 or 0 for scalar but got {dim}")
            vals = P.cast(a, a.dtype).copy() if a.size else S.empty(a.shape, a.dtype)
            idx = S.empty(a.shape, np.int64)
            if a.size:
                from ._install import fill

                fill(idx, np.int64(0))
            return cls(_make(vals, self._dtype, Tensor, dev), _make(idx, D.int64, Tensor, dev))
        d = _wrap_checked(dim, a.ndim)
        if self._dtype.is_complex:
            raise _not_implemented(name, self._dtype)
        work = _work(self._dtype, name)
        perm = None
        if _few_long_lines(a, d):
            a, perm = _rows_last(a, d)
            d = a.ndim - 1
        outer, n, inner = _layout(a.shape, d)
        x, vo = _input(a, work)
        io = S.empty(x.shape, np.int64)
        if inner == 1 and n >= _ROWS_MIN:
            from ..kernels.cuda import RED_BLOCKS

            grid = (min(outer, RED_BLOCKS), _threads(n))
            if work.kind == "f":
                run(K_SCAN.cumext_rows_float, *grid, (x.root, vo.root, io.root, outer, n, largest))
            else:
                info = np.iinfo(np.int64)
                run(K_SCAN.cumext_rows_int, *grid, (x.root, vo.root, io.root, outer, n, largest,
                                                    info.min if largest else info.max))  # fmt: skip
        else:
            launch(K_SCAN.cumext_lines, outer * inner, x.root, vo.root, io.root, outer, n, inner, largest)
        if perm is not None:
            vo, io = _back(vo, perm, self._data.shape, work), _back(io, perm, self._data.shape, np.int64)
        return cls(_result(self, vo, self._dtype), _make(io, D.int64, Tensor, dev))

    return impl


# ---- in-place scans (the out= overloads: install) -----------------------------------------------
def _inplace(name):
    def impl(self, dim, dtype=None):
        from ..ops.reduction import _reduce as E
        from ._install import copy_into

        ops, _ = _MO[0]
        _check(self)
        dt = self._dtype if dtype is None else D.to_dtype(dtype)
        if dt is not self._dtype:  # the CPU op's check (numtorch/ops/reduction/scan.py), first
            raise RuntimeError(f"Bad in-place call: input tensor dtype {E._CTYPES[self._dtype.name]} and output "
                               f"tensor dtype {E._CTYPES[dt.name]} should match")  # fmt: skip
        copy_into(self._data, ops[f"aten::{name}"].impls["cuda"](self, dim, dtype)._data)
        self._vc[0] += 1
        return self

    return impl


def install(ops: dict, meta_of) -> dict:
    _MO[:] = [(ops, meta_of)]
    out = {"aten::cumsum": cumsum, "aten::cumprod": cumprod, "aten::logcumsumexp": logcumsumexp,
           "aten::cummax": _cumext("cummax"), "aten::cummin": _cumext("cummin"),
           "aten::cumsum_": _inplace("cumsum"), "aten::cumprod_": _inplace("cumprod")}  # fmt: skip
    for name, op in ops.items():  # the reductions' out= overloads: one body for every device
        impl = op.impls.get("cpu")
        if getattr(getattr(impl, "__wrapped__", impl), "functional", None) is not None and "cuda" not in op.impls:
            out[name] = impl
    return {k: v for k, v in out.items() if k in ops}
