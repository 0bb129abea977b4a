"""CUDA matrix products (mm, bmm, matmul, mv, dot, addmm, baddbmm, addbmm): cuBLAS when it is
selected (Note [cuBLAS GEMM]), the Numba GEMM kernels otherwise. conv's im2col products and
F.linear reach these through matmul/addmm. Shapes, dtypes and errors come from each op's meta
kernel."""

from __future__ import annotations

import math

from .. import _dtype as D
from .._tensor import Tensor, _make
from ..kernels import lazy
from . import _cublas
from . import _pointwise as P
from . import _storage as S
from ._launch import device_error, run, strides_for

K_MM = lazy("numtorch.kernels.cuda.linalg")
_BLAS_DTYPES = (D.float16, D.float32, D.float64)
_MO: list = []  # (OPS, meta_of), set by install


def _view(t: Tensor, batch: tuple, rows: int, cols: int) -> S.CudaArray:
    # t's storage read as (*batch, rows, cols): a vector is a row (rows == 1) or a column
    a = t._data
    full = (*batch, rows, cols)
    if a.shape == full:  # nothing to broadcast (the common case): t's own metadata, no copy of it
        return a
    shape = (*a.shape[:-2], rows, cols) if a.ndim >= 2 else ((1, cols) if rows == 1 else (rows, 1))
    st = a.estrides if a.ndim >= 2 else ((0, a.estrides[0]) if rows == 1 else (a.estrides[0], 0))
    v = S.CudaArray(a.block, a.root, a.offset, shape, st, a.dtype)
    return S.CudaArray(v.block, v.root, v.offset, full, strides_for(v, full), v.dtype)


def _batched(t: Tensor, batch: tuple, rows: int, cols: int, npdt) -> S.CudaArray:
    # the Numba kernels read contiguous operands from element 0
    from ._install import contiguous_copy

    b = _view(t, batch, rows, cols)
    if b.offset == 0 and b.dtype == npdt and b.contiguous:
        return b
    return contiguous_copy(b, npdt)


def _blas_operand(t: Tensor, batch: tuple, rows: int, cols: int, npdt) -> tuple:
    """((device pointer, op, leading dimension, batch stride), the array read) of ``t`` as the
    row-major (*batch, rows, cols) operand of a cuBLAS product, read in place when its last two
    dims are row- or column-major with one stride over the batch, else from a contiguous copy.
    The caller holds the array until the product is queued: a copy's block, once dropped, goes
    back to the caching allocator, and the other operand's copy would be written into it."""
    v = _view(t, batch, rows, cols)
    layout = _layout(v, rows, cols) if v.dtype == npdt else None
    if layout is None:
        from ._install import contiguous_copy

        v = contiguous_copy(v, npdt)
        layout = (_cublas.OP_N, max(cols, 1), rows * cols)
    return (S._pointer(v.root) + v.offset * v.itemsize, *layout), v


def _layout(v: S.CudaArray, rows: int, cols: int):
    *bst, s0, s1 = v.estrides
    s0 = max(cols, 1) if rows == 1 else s0  # a size-1 dim's stride is never stepped
    s1 = 1 if cols == 1 else s1
    if s1 == 1 and s0 >= max(cols, 1):
        op, ld = _cublas.OP_N, s0
    elif s0 == 1 and s1 >= max(rows, 1):
        op, ld = _cublas.OP_T, s1
    else:
        return None
    if ld > _cublas.INT_MAX:
        return None
    # a batch broadcast over every batch dim (a matrix times a batch): batch stride 0, each
    # product reads the one matrix (cuBLAS only steps the pointer; the output never has stride 0)
    if any(n != 1 for n in v.shape[:-2]) and not any(s for n, s in zip(v.shape[:-2], bst) if n != 1):
        return op, ld, 0
    # else the batch dims as one stride: each steps over the next (size-1 dims skipped); a
    # partly broadcast batch is copied out
    bstride, span = None, None
    for n, s in reversed(list(zip(v.shape[:-2], bst))):
        if n == 1:
            continue
        if s <= 0 or (span is not None and s != span):
            return None
        bstride = s if bstride is None else bstride
        span = s * n
    return op, ld, bstride or rows * cols


def _product(op):
    def impl(self, other, *rest):
        for t in (self, other):
            if t._device.type != "cuda":
                raise device_error()
        res = _MO[1](op, [self, other, *rest])
        dt = res._dtype
        if dt.is_complex:
            return _complex_product(impl, self, other, rest, dt)
        if dt not in _BLAS_DTYPES:
            raise P.not_implemented("addmm", dt)
        a_nd, b_nd = self._data.ndim, other._data.ndim
        m = self._data.shape[-2] if a_nd >= 2 else 1
        k = self._data.shape[-1]
        n = other._data.shape[-1] if b_nd >= 2 else 1
        batch = tuple(res._data.shape[: max(len(res._data.shape) - 2, 0)]) if max(a_nd, b_nd) > 2 else ()
        out = _gemm(self, other, batch, m, k, n, dt, res._data.shape)
        return _make(out, dt, Tensor, self._device)

    return impl


def matmul_plan(self: Tensor, other: Tensor):
    """(batch, m, k, n, result shape) of ``self @ other`` when the GEMM takes it as it is (one
    real BLAS dtype, matching inner sizes, broadcastable batches), else None: the decomposition's
    pieces then run and raise PyTorch's errors (Note [matmul fast path])."""
    s1, s2 = self._data.shape, other._data.shape
    d1, d2 = len(s1), len(s2)
    if not d1 or not d2 or self._dtype is not other._dtype or self._dtype not in _BLAS_DTYPES:
        return None
    m, k = (s1[-2] if d1 > 1 else 1), s1[-1]
    k2, n = (s2[-2], s2[-1]) if d2 > 1 else (s2[0], 1)
    b1, b2 = s1[:-2], s2[:-2]
    batch = []
    for i in range(max(len(b1), len(b2)), 0, -1):
        p = b1[-i] if i <= len(b1) else 1
        q = b2[-i] if i <= len(b2) else 1
        if p != q and 1 not in (p, q):
            return None
        batch.append(q if p == 1 else p)
    if k2 != k:
        return None
    batch = tuple(batch)
    return batch, m, k, n, batch + ((m,) if d1 > 1 else ()) + ((n,) if d2 > 1 else ())


def matmul(self, other):
    batch, m, k, n, shape = matmul_plan(self, other)
    for t in (self, other):
        if t._device.type != "cuda":
            raise device_error()
    return _make(_gemm(self, other, batch, m, k, n, self._dtype, shape), self._dtype, Tensor, self._device)


def _gemm(x: Tensor, y: Tensor, batch, m, k, n, dt, shape) -> S.CudaArray:
    """The (*batch, m, n) product of ``x`` read as (*batch, m, k) and ``y`` as (*batch, k, n),
    as a contiguous array of ``shape`` (as many elements: mv's and dot's drop the unit dims)."""
    nb = math.prod(batch)
    blas = _cublas.blas()
    if blas is not None and max(m, n, k, nb) <= _cublas.INT_MAX:
        out = S.empty(shape, dt.np)
        if out.size and k == 0:
            from ._install import fill

            fill(out, dt.np.type(0))
        elif out.size:
            a, held_a = _blas_operand(x, batch, m, k, dt.np)
            b, held_b = _blas_operand(y, batch, k, n, dt.np)
            blas.matmul(dt.np, m, n, k, a, b, (S._pointer(out.root), m * n), batch=nb, tf32=_tf32(dt))
            del held_a, held_b  # queued: the blocks may go back now (stream order protects them)
        return out
    # float16: float32 operands and accumulation, rounded once at the end (as cuBLAS's half
    # GEMM with float compute, PyTorch's default)
    kdt = D.float32 if dt is D.float16 else dt
    a = _batched(x, batch, m, k, kdt.np)
    b = _batched(y, batch, k, n, kdt.np)
    out = S.empty(shape, kdt.np)
    if out.size:
        from ..kernels.cuda import TILE

        if kdt is D.float32:
            kern, bm, bn, threads = K_MM.gemm_f32(_gemm_tile(m, n, nb))
            grid = ((n + bn - 1) // bn, (m + bm - 1) // bm, nb)
            run(kern, grid, threads, (a.root, b.root, out.root, m, k, n))
        else:
            grid = ((n + TILE - 1) // TILE, (m + TILE - 1) // TILE, nb)
            run(K_MM.bmm_f64, grid, (TILE, TILE), (a.root, b.root, out.root, m, k, n))
    if kdt is not dt:
        from ._install import contiguous_copy

        out = contiguous_copy(out, dt.np)
    return out


def _tf32(dt) -> bool:
    # float32 on TF32 tensor cores when the user allows it, as PyTorch (off by default)
    if dt is not D.float32:
        return False
    from .._config import get_float32_matmul_precision
    from ..backends.cuda import matmul

    return matmul.allow_tf32 or get_float32_matmul_precision() != "highest"


def _complex_product(impl, a, b, rest, dt):
    # Note [Complex on CUDA]: (ar + i ai)(br + i bi) from four real products of the parts,
    # which are strided views of view_as_real (each product reads them through its own copy)
    import numtorch

    ar, br = (numtorch.view_as_real(t.to(dt).resolve_conj()) for t in (a, b))
    a0, a1, b0, b1 = ar[..., 0], ar[..., 1], br[..., 0], br[..., 1]
    re = impl(a0, b0, *rest) - impl(a1, b1, *rest)
    im = impl(a0, b1, *rest) + impl(a1, b0, *rest)
    return numtorch.view_as_complex(numtorch.stack([re, im], -1))


def _gemm_tile(m: int, n: int, nb: int) -> str:
    # the big tiles when they still give every SM two blocks (Note [Register-tiled GEMM])
    from ..kernels.cuda import GEMM_TILES

    bm, bn = GEMM_TILES["big"][:2]
    return "big" if -(-m // bm) * -(-n // bn) * nb >= 2 * _sm_count() else "small"


def _sm_count() -> int:
    if not _SMS:
        from ._runtime import driver

        try:
            _SMS.append(int(driver().get_current_device().MULTIPROCESSOR_COUNT))
        except AttributeError:  # the simulator: one "SM", so tests exercise both tile shapes
            _SMS.append(1)
    return _SMS[0]


_SMS: list = []


def _fused(name, op):
    """addmm/baddbmm: with cuBLAS, self broadcast into the output, then one GEMM with alpha and
    beta (F.linear's bias rides in the product instead of a second pass over the result);
    otherwise, and for what cuBLAS does not take, composed from CUDA ops (mm/bmm, mul, add),
    each of which checks devices and dtypes."""
    prod = "mm" if name == "addmm" else "bmm"

    def impl(self, m1, m2, beta=1, alpha=1):
        ts = (self, m1, m2)
        blas = _cublas.blas()
        if blas is None or any(t._device.type != "cuda" for t in ts) or not _real_scalars(alpha, beta):
            return _scaled_sum(self, _PRODUCTS[prod](m1, m2), beta, alpha)
        res = _MO[1](op, [self, m1, m2, beta, alpha])
        dt = res._dtype
        *batch, m, n = res._data.shape
        k = m1._data.shape[-1]
        if dt not in _BLAS_DTYPES or any(t._dtype is not dt for t in ts) or not k or not res._data.size:
            return _scaled_sum(self, _PRODUCTS[prod](m1, m2), beta, alpha)
        out = S.empty(res._data.shape, dt.np)
        if beta != 0:  # PyTorch ignores self then, NaNs included (cuBLAS reads no C at beta 0)
            from ._install import copy_into

            copy_into(out, self._data)
        a, held_a = _blas_operand(m1, tuple(batch), m, k, dt.np)
        b, held_b = _blas_operand(m2, tuple(batch), k, n, dt.np)
        nb = math.prod(batch)
        blas.matmul(dt.np, m, n, k, a, b, (S._pointer(out.root), m * n), batch=nb, alpha=alpha, beta=beta,
                    tf32=_tf32(dt))
        del held_a, held_b  # queued: the blocks may go back now (stream order protects them)
        return _make(out, dt, Tensor, self._device)

    return impl


def _real_scalars(*vals) -> bool:
    return all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in vals)


def _addbmm(self, batch1, batch2, beta=1, alpha=1):
    return _scaled_sum(self, _PRODUCTS["bmm"](batch1, batch2).sum(0), beta, alpha)


def _scaled_sum(self, prod, beta, alpha):
    prod = prod if alpha == 1 else prod * alpha
    if beta == 0:  # PyTorch ignores self then, NaNs included
        return prod
    return prod + (self if beta == 1 else self * beta)


_PRODUCTS: dict = {}


def install(OPS, meta_of) -> dict:
    _MO[:] = [OPS, meta_of]
    impls = {name: _product(OPS[f"aten::{name}"]) for name in ("mm", "bmm", "matmul", "mv", "dot")}
    _PRODUCTS.update(impls)
    # matmul's decomposition (numtorch/ops/linalg/_matmul.py) reaches mv/dot on CUDA tensors
    return {
        **{f"aten::{name}": fn for name, fn in impls.items()},
        "aten::matmul": matmul,  # the composite's CUDA fast path (numtorch/ops/linalg/_matmul.py)
        "aten::addmm": _fused("addmm", OPS["aten::addmm"]),
        "aten::baddbmm": _fused("baddbmm", OPS["aten::baddbmm"]),
        "aten::addbmm": _addbmm,
    }
