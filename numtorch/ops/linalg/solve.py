"""numtorch.linalg: inv (torch.inverse), det (torch.det), solve, svdvals and the norms.

LAPACK runs through NumPy; PyTorch's checks and messages come first, and NumPy's singular-matrix
errors become ``numtorch.linalg.LinAlgError`` with PyTorch's text (batch element and pivot).
"""

from __future__ import annotations

import math

import numpy as np

from ... import _dtype as D
from ... import _factory_utils as F
from ... import return_types
from ..._dispatch import dispatch
from ..._tensor import Tensor, _make, _wrap_dim
from ...kernels import lazy
from .._formula_np import plain, wrap
from .._quiet import IGNORE as _IGNORE
from .._quiet import quiet as _quiet
from .._quiet import restore as _restore
from .._registry import defop, public
from . import _det_grad
from . import _fast_products as _fp
from . import _np_lapack as _lapack
from ._contract import product
from .core import LinAlgError, _bind, _cj, _mH, _op, broadcast_error, np_svd

_K = lazy("numtorch.kernels.cpu.linalg")
_KD = lazy("numtorch.kernels.cpu.linalg_det")


def _square(A: Tensor, fname: str) -> None:
    s = A._data.shape
    if len(s) < 2:
        raise RuntimeError(f"{fname}: The input tensor A must have at least 2 dimensions.")
    if s[-1] != s[-2]:
        raise RuntimeError(
            f"{fname}: A must be batches of square matrices, but they are {s[-2]} by {s[-1]} matrices"
        )


def _floating(A: Tensor, fname: str, low_precision: bool = True, kernel=None, half_kernel=None) -> None:
    """checkFloatingOrComplex; ``kernel``: the op skips it and its kernel's dispatch refuses integers
    and half instead, ``half_kernel``: that refuses half (AT_DISPATCH_FLOATING_AND_COMPLEX_TYPES)."""
    low = A._dtype is D.float16 or A._dtype is D.bfloat16
    if low and (kernel or half_kernel) or kernel and A._dtype.category < D._FLOAT:
        raise NotImplementedError(f"\"{kernel or half_kernel}\" not implemented for '{F.cname(A._dtype)}'")
    if A._dtype.category < D._FLOAT:
        raise RuntimeError(
            f"{fname}: Expected a floating point or complex tensor as input. Got {F.cname(A._dtype)}"
        )
    if not low_precision and low:
        raise RuntimeError(f"{fname}: Low precision dtypes not supported. Got {F.cname(A._dtype)}")


def _zero_pivot(a: np.ndarray) -> int:
    """1-based index of the first zero pivot of LU with partial pivoting (LAPACK getrf's info)."""
    a = np.array(a, dtype=np.complex128 if a.dtype.kind == "c" else np.float64)
    n = a.shape[0]
    for j in range(n):
        p = j + int(np.argmax(np.abs(a[j:, j])))
        if a[p, j] == 0:
            return j + 1
        a[[j, p]] = a[[p, j]]
        a[j + 1 :, j:] -= np.outer(a[j + 1 :, j] / a[j, j], a[j, j:])
    return 0


def _singular(A: np.ndarray, prefix: str, msg) -> LinAlgError:
    mats = A.reshape(-1, *A.shape[-2:])
    for b, m in enumerate(mats):
        info = _zero_pivot(m)
        if info:
            where = f"(Batch element {b}): " if A.ndim > 2 else ""
            return LinAlgError(f"{prefix}: {where}{msg(info)}")
    return LinAlgError(f"{prefix}: {msg(1)}")


# ---- inv / det ---------------------------------------------------------------------------------------
def _inv_cpu(A):
    _square(A, "linalg.inv")
    _floating(A, "linalg.inv", low_precision=False)
    if not np.isfinite(A._data).all():
        return _inv_nonfinite(A)
    arr = _inv_small(A._data)
    try:
        if arr is None:
            arr = np.linalg.inv(A._data) if A._data.size else np.empty(A._data.shape, A._dtype.np)
    except np.linalg.LinAlgError:
        raise _singular(
            A._data,
            "linalg.inv",
            lambda i: (
                f"The diagonal element {i} is zero, the inversion could not be completed because the input matrix is singular."
            ),
        ) from None
    return _make(arr.astype(A._dtype.np, copy=False), A._dtype)


# Note [Small batched inverse]
# np.linalg.inv and solve run LAPACK's gesv in float64 per matrix through their gufuncs: ~340 ns
# a 3x3 matrix (a (14564, 3, 3) float32 inv 5 ms, PyTorch's 1.3 ms). For finite real matrices
# of n <= 4 (sizes where Gauss-Jordan's operation count is no worse than gesv's) and finite
# right-hand sides, one Numba pass (kernels/cpu/linalg.py gj_small) solves the batch with the
# same partial pivoting, in float64 too: the same values up to rounding
# (tests/ops/linalg/test_inv_small.py). A batch with an exactly zero pivot column takes
# NumPy's route, which raises the singular error.
def _inv_small(a: np.ndarray):
    """The inverse of a finite real float32/float64 batch of n <= 4 matrices, or None."""
    return _solve_small(a, None)


def _solve_small(a: np.ndarray, b):
    """a^-1 b (b None: the identity) for finite real float32/float64 operands of one dtype with
    the batch shape already broadcast, n <= 4, or None (NumPy's route decides)."""
    n = a.shape[-1]
    if n > 4 or not a.size or a.dtype not in _INV_SMALL:
        return None
    if b is not None and (b.dtype != a.dtype or not b.size or not np.isfinite(b).all()):
        return None
    mats = np.ascontiguousarray(a).reshape(-1, n, n)
    if b is None:
        rhs = _EYES[n - 1, a.dtype.char]  # one identity for every matrix
        out = np.empty(a.shape, a.dtype)
    else:
        rhs = np.ascontiguousarray(b).reshape(-1, n, b.shape[-1])
        out = np.empty(b.shape, a.dtype)
    info = np.empty(mats.shape[0], np.int32)
    _K.gj_small(mats, rhs, out.reshape(mats.shape[0], n, rhs.shape[-1]), info)
    return None if info.any() else out


_EYES = {(k - 1, c): np.eye(k, dtype=c).reshape(1, k, k) for k in range(1, 5) for c in "fd"}


_INV_SMALL = (np.dtype(np.float32), np.dtype(np.float64))


def _inv_nonfinite(A):
    # PyTorch's inv is solve_ex(A, I): NumPy's LAPACK spreads inf/NaN differently (finite input
    # takes NumPy's fast path above; both are getrf + getrs there, up to rounding)
    eye = np.broadcast_to(np.eye(A.shape[-1], dtype=A._dtype.np), A.shape)
    X, info = lu_route(A, _make(np.array(eye), A._dtype), True)
    bad = np.flatnonzero(info._data)
    if bad.size:
        where = f"(Batch element {bad[0]}): " if A.ndim > 2 else ""
        raise LinAlgError(f"linalg.inv: {where}The diagonal element {info._data.reshape(-1)[bad[0]]} is zero, the "
                          "inversion could not be completed because the input matrix is singular.")  # fmt: skip
    return X


def lu_route(A, B, left):
    """(X, info) as PyTorch's linalg_solve_ex computes them, for any pivots: getrf of A, then
    getrs (lu_solve, left or right): laswp's row swaps and two trsm, so a zero pivot divides to
    inf/NaN (inv_ex of [[0.]] is inf) and an inf is never multiplied by a permutation's zeros. No
    gradient: the *_ex functions take this route for the failed matrices only."""
    a, b = A._data, B._data if left else np.swapaxes(B._data, -1, -2)
    n, m = b.shape[-2:]
    abatch, batch = a.shape[:-2], broadcast_error(a.shape[:-2], b.shape[:-2])
    lu = np.array(a, A._dtype.np, order="C").reshape(-1, n, n)
    piv, info = np.zeros((lu.shape[0], n), np.int32), np.zeros(lu.shape[0], np.int32)
    x = np.array(np.broadcast_to(b, batch + (n, m)), A._dtype.np, order="C").reshape(-1, n, m)
    cplx = A._dtype.category == D._COMPLEX
    if lu.size:
        _K.lu_partial_pivot(lu, piv, info, cplx)
    if lu.size and x.size:
        ia = np.broadcast_to(np.arange(lu.shape[0]).reshape(abatch), batch).reshape(-1).astype(np.int64)
        ib, rows, p = np.arange(x.shape[0], dtype=np.int64), np.arange(x.shape[0]), piv[ia] - 1
        y, z = np.empty_like(x), np.empty_like(x)
        if left:  # A = P L U: X = U^-1 L^-1 P^T B
            _laswp(x, p, rows, range(n))
            _K.trsm_left(lu, ia, x, ib, False, True, cplx, y)
            _K.trsm_left(lu, ia, y, ib, True, False, cplx, z)
        else:  # X P L U = B: X^T = P L^-T U^-T B^T (real transposes: X A = B is not adjoint)
            lt = np.ascontiguousarray(np.swapaxes(lu, -1, -2))
            _K.trsm_left(lt, ia, x, ib, False, False, cplx, y)
            _K.trsm_left(lt, ia, y, ib, True, True, cplx, z)
            _laswp(z, p, rows, range(n - 1, -1, -1))
        x = z
    X = x.reshape(batch + (n, m))
    return _make(np.ascontiguousarray(X if left else np.swapaxes(X, -1, -2)), A._dtype), _make(info.reshape(abatch), D.int32)


def _laswp(x, p, rows, order):
    for j in order:
        held = x[rows, j].copy()
        x[rows, j] = x[rows, p[:, j]]
        x[rows, p[:, j]] = held


def _inv_backward(grad, result):
    r = _mH(result)
    return -(r.matmul(grad).matmul(r))


_INV = _op("linalg_inv(Tensor A) -> Tensor", _inv_cpu, backward={"A": _inv_backward})
_INVERSE = _op("inverse(Tensor self) -> Tensor", _inv_cpu, backward={"self": _inv_backward})
_bind("inv", "A", _INV, method=False, module="torch.linalg", relevant=("A",), doc="""Inverse of a square
    matrix (or batch); raises ``numtorch.linalg.LinAlgError`` for singular input.

    >>> numtorch.linalg.inv(numtorch.tensor([[2.0, 0.0], [0.0, 4.0]]))
    tensor([[0.5000, 0.0000],
            [0.0000, 0.2500]])
    """)  # fmt: skip
_bind("inverse", "input", _INVERSE, doc="""Alias of ``numtorch.linalg.inv``.

    >>> numtorch.inverse(numtorch.eye(2))
    tensor([[1., 0.],
            [0., 1.]])
    """)  # fmt: skip


def _det_cpu(A):
    _square(A, "linalg.det")
    _floating(A, "linalg.det")
    if A._dtype is D.float16:
        raise NotImplementedError("\"lu_cpu\" not implemented for 'Half'")
    diag, perm, batch = _det_lu(A)
    tok = _quiet(_IGNORE)  # a product past the range is inf, as PyTorch's, without NumPy's warning
    try:
        det = perm.astype(A._dtype.np) * _prod_last(diag)
    finally:
        _restore(tok)
    return _make(np.asarray(det.reshape(batch), dtype=A._dtype.np), A._dtype)


def _det_lu(A):
    """(diag(U), det(P), batch) of getrf as PyTorch's _linalg_det and _linalg_slogdet take it: of
    A^T when A is contiguous and real (det(A^T) = det(A), and getrf reads column-major). NumPy's
    det (exp of slogdet) and the LU of A itself give other answers once the matrix holds inf or
    NaN (inf against NaN)."""
    M = A._data
    if A.is_contiguous() and A._dtype.category != D._COMPLEX:
        M = M.swapaxes(-1, -2)
    n = M.shape[-1]
    lu = np.array(M, dtype=A._dtype.np, order="C", copy=True).reshape(math.prod(M.shape[:-2]), n, n)  # -1: 0x0
    perm = np.ones(lu.shape[0], np.int64)
    if lu.size:  # the LU and the parity of its interchanges (perm) in one kernel call
        piv = np.empty((lu.shape[0], n), np.int32)
        _KD.lu_sign(lu, piv, np.zeros(lu.shape[0], np.int32), lu.dtype.kind == "c", perm)
    return lu.diagonal(0, -2, -1), perm, M.shape[:-2]


def _prod_last(d: np.ndarray) -> np.ndarray:
    """np.prod(d, axis=-1), bit for bit (a real product reduces in index order: ((d0 d1) d2) ...),
    one multiply per column for short rows instead of the reduction's per-row inner loops."""
    n = d.shape[-1]
    if n > 16 or n < 2 or d.dtype.kind != "f":  # complex products of inf/NaN: the reduction's own
        return np.prod(d, axis=-1)
    p = d[..., 0] * d[..., 1]
    for j in range(2, n):
        p *= d[..., j]
    return p


def _det_backward(grad, A, result):
    # d det / dA = det * inv(A)^H; singular A raises LinAlgError here (no SVD fallback yet)
    return _det_grad.times_inv_h(grad * _cj(result), dispatch(_INV[0], [A]))


_DET = _op("linalg_det(Tensor A) -> Tensor", _det_cpu, backward={"A": _det_backward})
det = defop("det(Tensor self) -> Tensor", composite=lambda self: dispatch(_DET[0], [self]))
_bind("det", "A", _DET, method=False, module="torch.linalg", relevant=("A",), doc="""Determinant of a
    square matrix (or batch).

    >>> numtorch.linalg.det(numtorch.tensor([[1.0, 2.0], [3.0, 4.0]]))
    tensor(-2.)
    """)  # fmt: skip


def _det(input):
    """Alias of ``numtorch.linalg.det``.

    >>> numtorch.det(numtorch.eye(2))
    tensor(1.)
    """
    return dispatch(det, [input])


public("det", "input", _det, ops=(det,))
public("det", "self", _det, relevant=("self",), module="Tensor", ops=(det,))


# ---- solve -----------------------------------------------------------------------------------------------
def _vector_rhs(A: Tensor, B: Tensor) -> bool:
    a, b = A._data.shape, B._data.shape
    return len(b) == 1 or (len(a) - 1 == len(b) and b == a[:-1])


def _solve_cpu(A, B, left=True):
    _square(A, "linalg.solve")
    _floating(A, "linalg.solve", half_kernel="lu_cpu")
    if A._dtype is not B._dtype:
        raise RuntimeError(
            f"linalg.solve: Expected A and B to have the same dtype, but found A of type {F.cname(A._dtype)} and B of type {F.cname(B._dtype)} instead"
        )
    vec = _vector_rhs(A, B)
    b = B._data[..., None] if vec else B._data  # a column for left=False too: torch then refuses n > 1
    a = A._data
    if not left:  # XA = B  <=>  A^T X^T = B^T
        a, b = np.swapaxes(a, -1, -2), np.swapaxes(b, -1, -2)
    if a.shape[-1] != b.shape[-2]:
        s, t = A._data.shape, (b.shape if left else np.swapaxes(b, -1, -2).shape)
        raise RuntimeError(
            f"linalg.solve: Incompatible shapes of A and B for the equation {'AX = B' if left else 'XA = B'} ({s[-2]}x{s[-1]} and {t[-2]}x{t[-1]})"
        )
    batch = broadcast_error(a.shape[:-2], b.shape[:-2])
    if not np.isfinite(A._data).all():  # PyTorch's getrf + getrs spread inf/NaN as NumPy's LAPACK does not
        x, info = lu_route(A, _make(B._data[..., None] if vec else B._data, B._dtype), left)
        bad = np.flatnonzero(info._data)
        if bad.size:
            where = f"(Batch element {bad[0]}): " if A.ndim > 2 else ""
            raise LinAlgError(f"torch.linalg.solve: {where}The solver failed because the input matrix is singular.")
        return x.squeeze(-1) if vec else x
    if a.shape[:-2] != batch:
        a = np.broadcast_to(a, batch + a.shape[-2:])
    if b.shape[:-2] != batch:
        b = np.broadcast_to(b, batch + b.shape[-2:])
    work = np.float32 if A._dtype is D.float16 else A._dtype.np
    x = _solve_small(a, b) if a.shape[:-2] == b.shape[:-2] else None  # Note [Small batched inverse]
    try:
        x = x if x is not None else (
            _lapack.solve(a.astype(work), b.astype(work))  # Note [np.linalg without its wrappers]
            if a.size and b.size
            else np.zeros(b.shape, work)
        )
    except np.linalg.LinAlgError:
        raise _singular(
            a,
            "torch.linalg.solve",
            lambda i: "The solver failed because the input matrix is singular.",
        ) from None
    if not left:
        x = np.swapaxes(x, -1, -2)
    if vec:
        x = x[..., 0] if left else x[..., 0, :]
    return _make(np.ascontiguousarray(x, dtype=A._dtype.np), A._dtype)


def solve_arrays(a: np.ndarray, b: np.ndarray, left: bool, like: Tensor) -> np.ndarray:
    """linalg_solve's kernel on arrays of ``like``'s dtype whose checks a derivative's operands
    pass (Note [Decomposition derivatives in NumPy]): the small finite route called as
    _solve_cpu calls it (~4 of its ~9 us on a 3x3 batch), anything else _solve_cpu itself."""
    if a.shape[:-2] == b.shape[:-2] and a.shape[-1] <= 4 and _all_finite(_isfinite(a), axis=None):
        x = _solve_small(a, b) if left else _solve_small(_swap(a), _swap(b))
        if x is not None:
            return np.ascontiguousarray(x if left else _swap(x))
    dt = like._dtype
    return _solve_cpu(_make(a, dt), _make(b, dt), left)._data


_isfinite, _all_finite = np.isfinite, np.logical_and.reduce


def _swap(a: np.ndarray) -> np.ndarray:
    return a.swapaxes(-1, -2)


def _solve_backward_np(grad, A, left, vec, result):
    # the formula below on the arrays (Note [Decomposition derivatives in NumPy])
    if not plain(grad, A, result) or grad._dtype is not A._dtype or result._dtype is not A._dtype:
        return None
    g, x = grad._data, result._data
    if vec:
        g, x = (g[..., None], x[..., None]) if left else (g[..., None, :], x[..., None, :])
    gb = solve_arrays(_swap(A._data), g, left, A)
    ga = -(product(gb, _swap(x)) if left else product(_swap(x), gb))
    if vec:
        gb = gb[..., 0] if left else gb[..., 0, :]
    return wrap(ga, A), wrap(gb, A)


def _solve_backward(grad, A, B, left, result):
    vec = _vector_rhs(A, B)
    fast = _solve_backward_np(grad, A, left, vec, result)
    if fast is not None:
        return fast
    d = -1 if left else -2
    g, x = (grad.unsqueeze(d), result.unsqueeze(d)) if vec else (grad, result)
    gb = dispatch(_SOLVE[0], [_mH(A), g, left])
    ga = -(gb.matmul(_mH(x)) if left else _mH(x).matmul(gb))
    return ga, (gb.squeeze(d) if vec else gb)


_SOLVE = _op("linalg_solve(Tensor A, Tensor B, *, bool left=True) -> Tensor", _solve_cpu,
             backward={("A", "B"): _solve_backward})  # fmt: skip
_bind("solve", "A, B, *, left=True", _SOLVE, method=False, module="torch.linalg", relevant=("A", "B"), doc="""The
    solution X of ``A X = B`` (``X A = B`` with ``left=False``); batches broadcast.

    >>> numtorch.linalg.solve(numtorch.tensor([[2.0, 0.0], [0.0, 4.0]]), numtorch.tensor([2.0, 2.0]))
    tensor([1.0000, 0.5000])
    """)  # fmt: skip


# ---- svdvals and norms --------------------------------------------------------------------------------
def _svd_cpu(A, full_matrices=False, compute_uv=True, driver=None):
    work = np.float32 if A._dtype is D.float16 else A._dtype.np
    u, s, vh = np_svd(A._data.astype(work), full_matrices=full_matrices)
    real = A._dtype.to_real()
    return _make(u, A._dtype), _make(s.astype(real.np), real), _make(vh, A._dtype)


_svd = defop("_linalg_svd(Tensor A, bool full_matrices=False, bool compute_uv=True, *, str? driver=None) -> "
             "(Tensor U, Tensor S, Tensor Vh)", cpu=_svd_cpu)  # fmt: skip


def _svdvals_cpu(A, driver=None):
    if A._data.ndim < 2:
        raise RuntimeError("linalg.svd: The input tensor A must have at least 2 dimensions.")
    _floating(A, "linalg.svd", half_kernel="linalg_svd_cpu")
    real = A._dtype.to_real()
    s = np_svd(
        A._data.astype(np.float32 if A._dtype is D.float16 else A._dtype.np), compute_uv=False
    )
    return _make(s.astype(real.np), real)


def _svdvals_backward(grad, A):
    # dS = U^H dA V, so dA = U diag(g) V^H (U and V are constants here: first order only)
    if plain(grad, A) and grad._dtype is A._dtype:  # Note [Decomposition derivatives in NumPy]
        u, _, vh = np_svd(A._data.astype(A._dtype.np), full_matrices=False)  # _svd's kernel
        return wrap(product(np.ascontiguousarray(u * grad._data[..., None, :]), vh), A)
    u, _, vh = dispatch(_svd, [A.detach(), False, True, None])
    return (u * grad.unsqueeze(-2)).matmul(vh)


_SVDVALS = _op("linalg_svdvals(Tensor A, *, str? driver=None) -> Tensor", _svdvals_cpu,
               backward={"A": _svdvals_backward})  # fmt: skip
_bind("svdvals", "A, *, driver=None", _SVDVALS, method=False, module="torch.linalg", relevant=("A",), doc="""
    Singular values of a matrix (or batch), in descending order.

    >>> numtorch.linalg.svdvals(numtorch.tensor([[3.0, 0.0], [0.0, 4.0]]))
    tensor([4., 3.])
    """)  # fmt: skip


_NORM_OP: list = []  # aten.norm.ScalarOpt_dim, once found (its lookup was ~1.5 us a norm)


def _norm_op():
    if _NORM_OP:
        return _NORM_OP[0]
    from ..._ops import ops

    try:
        _NORM_OP.append(ops.aten.norm.ScalarOpt_dim)
        return _NORM_OP[0]
    except AttributeError:
        raise NotImplementedError(
            "numtorch.linalg.vector_norm needs aten.norm.ScalarOpt_dim"
        ) from None


def _norm_dtype(self: Tensor, dtype, fname: str) -> Tensor:
    _floating(self, fname)
    if dtype is None:
        return self
    dt = F.resolve_dtype(dtype)
    if dt.category < D._FLOAT:
        raise RuntimeError(
            f"{fname}: dtype should be floating point or complex, but got {F.cname(dt)}"
        )
    if dt.to_real()._rank < self._dtype.to_real()._rank:
        raise RuntimeError(
            f"{fname}: the dtype of the input ({F.cname(self._dtype)}) should be convertible without narrowing to the specified dtype ({F.cname(dt)})"
        )
    return self if dt is self._dtype else self.to(dt)


def _vector_norm_composite(self, ord=2, dim=None, keepdim=False, dtype=None):
    x = _norm_dtype(self, dtype, "linalg.vector_norm")
    if x._dtype.category == D._COMPLEX:
        x = x.abs()
    return dispatch(_norm_op(), [x, ord, [] if dim is None else list(dim), keepdim])


_VNORM = _op("linalg_vector_norm(Tensor self, Scalar ord=2, int[1]? dim=None, bool keepdim=False, *, "
             "ScalarType? dtype=None) -> Tensor", _vector_norm_composite, composite=True, rule="cast")  # fmt: skip


def _dims(dim):
    return None if dim is None else ([dim] if isinstance(dim, int) else list(dim))


def _vector_norm(x, ord, dim, keepdim, dtype, out):
    """``sum(|x|**ord) ** (1/ord)`` over ``dim`` (all elements by default); ``ord`` may be inf,
    -inf or 0.

    >>> numtorch.linalg.vector_norm(numtorch.tensor([3.0, -4.0]))
    tensor(5.)
    """
    if isinstance(ord, str) or not isinstance(ord, (int, float)):
        raise TypeError(
            f"linalg_vector_norm(): argument 'ord' must be Number, not {type(ord).__name__}"
        )
    vals = [x, ord, _dims(dim), keepdim, dtype]
    return dispatch(_VNORM[0], vals) if out is None else dispatch(_VNORM[1], [*vals, out])


public("vector_norm", "x, ord=2, dim=None, keepdim=False, *, dtype=None, out=None", _vector_norm, relevant=("x",),
       module="torch.linalg", ops=_VNORM)  # fmt: skip

_MATRIX_ORDS = ("fro", "nuc", 1, -1, 2, -2, math.inf, -math.inf)


def _matrix_norm_composite(self, ord="fro", dim=(-2, -1), keepdim=False, dtype=None):
    if self._data.ndim < 2:
        raise RuntimeError(
            "linalg.matrix_norm: The input tensor A must have at least 2 dimensions."
        )
    x = _norm_dtype(self, dtype, "linalg.matrix_norm")
    if ord not in _MATRIX_ORDS:
        raise RuntimeError(f"linalg.matrix_norm: Order {ord} not supported.")
    if len(dim) != 2:
        raise RuntimeError(
            f"linalg.matrix_norm: dim must be a 2-tuple. Got {' '.join(map(str, dim))}"
        )
    d0, d1 = (_wrap_dim(d, x._data.ndim) for d in dim)
    if ord in (1, 2, math.inf) and not (x.shape[d0] and x.shape[d1]):
        # PyTorch gives 0 for a positive order of an empty matrix (the max over nothing of sums of
        # nothing); a negative order's amin still refuses, below
        return x.abs().sum((d0, d1), keepdim=keepdim)
    if ord == "fro":
        return _vector_norm_composite(x, 2, [d0, d1], keepdim)
    a = x.abs()
    if ord in ("nuc", 2, -2):
        _floating(x, "linalg.matrix_norm", low_precision=False)  # svdvals has no half kernel
        s = dispatch(_SVDVALS[0], [x.movedim((d0, d1), (-2, -1)), None])
        r = s.sum(-1) if ord == "nuc" else (s.amax(-1) if ord == 2 else s.amin(-1))
        if keepdim:
            r = r.unsqueeze(min(d0, d1)).unsqueeze(max(d0, d1))
        return r
    inner, outer = (d0, d1) if abs(ord) == 1 else (d1, d0)
    r = a.sum(inner, keepdim=True)
    r = r.amax(outer, keepdim=True) if ord > 0 else r.amin(outer, keepdim=True)
    return r if keepdim else r.squeeze((d0, d1))


_MNORM = _op("linalg_matrix_norm.str_ord(Tensor self, str ord=\"fro\", int[] dim=[-2,-1], bool keepdim=False, *, "
             "ScalarType? dtype=None) -> Tensor", _matrix_norm_composite, composite=True, rule="cast")  # fmt: skip
_MNORM_NUM = _op("linalg_matrix_norm(Tensor self, Scalar ord, int[] dim=[-2,-1], bool keepdim=False, *, "
                 "ScalarType? dtype=None) -> Tensor", _matrix_norm_composite, composite=True, rule="cast")  # fmt: skip


def _matrix_norm(A, ord, dim, keepdim, dtype, out):
    """Matrix norm over the two ``dim``s: ``"fro"``, ``"nuc"``, 1, -1, 2, -2, inf or -inf.

    >>> numtorch.linalg.matrix_norm(numtorch.tensor([[1.0, 2.0], [3.0, 4.0]]), 1)
    tensor(6.)
    """
    ops = _MNORM if isinstance(ord, str) else _MNORM_NUM
    vals = [A, ord, [-2, -1] if dim is None else list(dim), keepdim, dtype]
    return dispatch(ops[0], vals) if out is None else dispatch(ops[1], [*vals, out])


public("matrix_norm", "A, ord='fro', dim=None, keepdim=False, *, dtype=None, out=None", _matrix_norm,
       relevant=("A",), module="torch.linalg", ops=_MNORM + _MNORM_NUM)  # fmt: skip


def _norm(A, ord, dim, keepdim, out, dtype):
    """Vector or matrix norm: a matrix norm when ``ord`` is a string or ``dim`` has two entries (or
    ``A`` is 2-D with ``ord`` given), else a vector norm (2-norm of all elements by default).

    >>> numtorch.linalg.norm(numtorch.tensor([[3.0, 4.0]]))
    tensor(5.)
    """
    dim = _dims(dim)
    # PyTorch's linalg_norm checks the dims before choosing the vector or the matrix norm
    if dim is not None and len(dim) not in (1, 2):
        raise RuntimeError(f"linalg.norm: If dim is specified, it must be of length 1 or 2. Got {list(dim)}")
    if ord is not None and dim is None and A.ndim not in (1, 2):
        raise RuntimeError(
            f"linalg.norm: If dim is not specified but ord is, the input must be 1D or 2D. Got {A.ndim}D."
        )
    if (
        dim is not None
        and len(dim) == 2
        or dim is None
        and (isinstance(ord, str) or ord is not None and A.ndim == 2)
    ):
        return _matrix_norm(A, "fro" if ord is None else ord, dim or [-2, -1], keepdim, dtype, out)
    return _vector_norm(A, 2 if ord is None else ord, dim, keepdim, dtype, out)


public("norm", "A, ord=None, dim=None, keepdim=False, *, out=None, dtype=None", _norm, relevant=("A",),
       module="torch.linalg", ops=_VNORM + _MNORM + _MNORM_NUM)  # fmt: skip


# ---- matrix_power: repeated squaring with matmul (and inv for n < 0), as at::linalg_matrix_power ----
def _matrix_power_composite(A, n):
    s = A._data.shape
    if len(s) < 2:
        raise RuntimeError("linalg.matrix_power: The input tensor A must have at least 2 dimensions.")
    if s[-1] != s[-2]:
        raise RuntimeError(
            f"linalg.matrix_power: A must be batches of square matrices, but they are {s[-2]} by {s[-1]} matrices"
        )
    if n == 0:  # PyTorch: a.clone().copy_(eye): a zero gradient still reaches A
        eye = np.broadcast_to(np.eye(s[-1], dtype=A._dtype.np), s)
        dst = A.clone() if A.is_contiguous() else A.contiguous()
        return dst.copy_(_make(eye, A._dtype))
    if n < 0:
        A, n = dispatch(_INV[0], [A]), -n
    result, z = None, A
    while True:  # binary decomposition of n: the products PyTorch's implementation makes
        if n % 2:
            result = z if result is None else result.matmul(z)
        n //= 2
        if not n:
            return result if result is not A else A.clone()
        z = z.matmul(z)


_MATRIX_POWER = _op("linalg_matrix_power(Tensor self, int n) -> Tensor", _matrix_power_composite, composite=True)
_MATRIX_POWER_T = _op("matrix_power(Tensor self, int n) -> Tensor", _matrix_power_composite, composite=True)
_bind("matrix_power", "A, n", _MATRIX_POWER, method=False, module="torch.linalg", relevant=("A",),
      fast=_fp.matrix_power(_MATRIX_POWER[0]), doc="""``A``
    multiplied by itself ``n`` times (``n < 0``: the inverse's power; ``n == 0``: the identity).

    >>> numtorch.linalg.matrix_power(numtorch.tensor([[1, 1], [0, 1]]), 3)
    tensor([[1, 3],
            [0, 1]])
    """)  # fmt: skip
_bind("matrix_power", "input, n", _MATRIX_POWER_T, fast=_fp.matrix_power(_MATRIX_POWER_T[0]), doc="""Alias of ``numtorch.linalg.matrix_power``.

    >>> numtorch.matrix_power(numtorch.tensor([[2.0, 0.0], [0.0, 3.0]]), -1)
    tensor([[0.5000, 0.0000],
            [0.0000, 0.3333]])
    """)  # fmt: skip


# ---- slogdet / logdet ------------------------------------------------------------------------------------
_SLOGDET_NT = return_types.register("linalg_slogdet", ("sign", "logabsdet"))
_SLOGDET_NT_T = return_types.register("slogdet", ("sign", "logabsdet"))


def _slogdet_cpu(A):
    _square(A, "linalg.slogdet")
    _floating(A, "linalg.slogdet", low_precision=False)
    real = A._dtype.to_real()
    if not np.isfinite(A._data).all():
        return _slogdet_nonfinite(A, real)
    if A._data.size and A._dtype is real:  # Note [Batched LU for det and slogdet]
        return _slogdet_lu(A)
    sign, logabs = np.linalg.slogdet(A._data)  # LU through LAPACK; empty matrices: (1, 0)
    return _SLOGDET_NT(_make(np.asarray(sign).astype(A._dtype.np), A._dtype),
                       _make(np.asarray(logabs).astype(real.np), real))  # fmt: skip


# Note [Batched LU for det and slogdet]
# np.linalg.slogdet runs LAPACK's getrf per matrix behind its Python wrapper: a batch of 43690
# 3x3 float32 matrices took 1.5 ms where PyTorch takes 0.8. A real finite batch is factored by
# one Numba getf2 pass (kernels/cpu/linalg_det.py lu_slogdet) over the matrices as _det_lu
# lays them out (PyTorch's: A^T where A is contiguous), in float64 as NumPy computes a float32
# slogdet, the sign and the sum of log |pivot| taken in the same pass as NumPy's slogdet takes
# them (a zero pivot: (0, -inf)). det's _det_lu takes the interchanges' parity in its LU call too
# (lu_sign). Values within rounding of NumPy's LAPACK (tests/ops/linalg/test_linalg_perf17c.py).
def _slogdet_lu(A):
    M = A._data
    if A.is_contiguous():
        M = M.swapaxes(-1, -2)
    n, batch = M.shape[-1], M.shape[:-2]
    nb = math.prod(batch)
    lu = np.array(M, dtype=np.float64, order="C", copy=True).reshape(nb, n, n)
    sign, logabs = np.empty(nb), np.empty(nb)
    _KD.lu_slogdet(lu, np.empty((nb, n), np.int32), np.zeros(nb, np.int32), sign, logabs)
    dt = A._dtype.np
    return _SLOGDET_NT(_make(sign.astype(dt).reshape(batch), A._dtype),
                       _make(logabs.astype(dt).reshape(batch), A._dtype))  # fmt: skip


def _slogdet_nonfinite(A, real):
    # PyTorch's formulas over its own LU (_det_lu): sgn of each pivot (a real NaN's sign is 0, as
    # torch.sign's) and the sum of log |pivot|; NumPy's LAPACK pivots NaN rows otherwise
    d, perm, batch = _det_lu(A)
    with np.errstate(all="ignore"):
        if A._dtype.category == D._COMPLEX:
            s = np.where(d == 0, 0, d / np.abs(d))
        else:
            s = np.where(np.isnan(d), 0, np.sign(d))
        sign = (perm * np.prod(s, axis=-1)).reshape(batch)
        logabs = np.sum(np.log(np.abs(d)), axis=-1).reshape(batch)
    return _SLOGDET_NT(_make(np.asarray(sign, A._dtype.np), A._dtype), _make(np.asarray(logabs, real.np), real))


def _slogdet_backward(grads, A, results):
    # d logabsdet / dA = A^{-H}; the sign is piecewise constant for real A. For complex A the
    # phase moves too: d log det = tr(A^{-1} dA) = d logabsdet + i d arg, so the sign's gradient
    # enters as -i Im(conj(g_sign) sign) (PyTorch's slogdet_backward)
    gsign, g = grads
    if A._dtype.is_complex and gsign is not None:
        phase = (_cj(gsign) * results[0]).imag * -1j
        g = phase if g is None else g + phase
    if g is None:
        return None
    return _det_grad.times_inv_h(g, dispatch(_INV[0], [A]))


linalg_slogdet = defop("linalg_slogdet(Tensor A) -> (Tensor sign, Tensor logabsdet)", cpu=_slogdet_cpu,
                       backward={"A": _slogdet_backward})  # fmt: skip
slogdet = defop("slogdet(Tensor self) -> (Tensor sign, Tensor logabsdet)",
                composite=lambda self: _SLOGDET_NT_T(*dispatch(linalg_slogdet, [self])))  # fmt: skip


def _logdet_composite(self):
    _square(self, "logdet")
    _floating(self, "logdet", low_precision=False)
    sign, logabs = dispatch(linalg_slogdet, [self])
    if self._dtype.category == D._COMPLEX:
        return sign.log() + logabs
    return logabs.masked_fill(sign == -1, math.nan)


logdet = defop("logdet(Tensor self) -> Tensor", composite=_logdet_composite)


def _linalg_slogdet(A, out):
    """``(sign, log|det|)`` of a square matrix (or batch); stable where ``det`` over- or underflows.

    >>> numtorch.linalg.slogdet(numtorch.tensor([[1.0, 2.0], [3.0, 4.0]]))
    torch.return_types.linalg_slogdet(
    sign=tensor(-1.),
    logabsdet=tensor(0.6931))
    """
    res = dispatch(linalg_slogdet, [A])
    if out is None:
        return res
    for o, v in zip(out, res, strict=True):
        o.resize_(v.shape).copy_(v)
    return _SLOGDET_NT(*out)


def _slogdet(input):
    """Alias of ``numtorch.linalg.slogdet`` (a ``torch.return_types.slogdet``).

    >>> numtorch.slogdet(numtorch.eye(2)).logabsdet
    tensor(0.)
    """
    return dispatch(slogdet, [input])


def _logdet(input):
    """``log(det(input))``: NaN for a negative determinant, -inf for a singular matrix.

    >>> numtorch.logdet(numtorch.tensor([[2.0, 0.0], [0.0, 3.0]]))
    tensor(1.7918)
    """
    return dispatch(logdet, [input])


public("slogdet", "A, *, out=None", _linalg_slogdet, relevant=("A",), module="torch.linalg", ops=(linalg_slogdet,))
for _n, _body, _op_ in (("slogdet", _slogdet, slogdet), ("logdet", _logdet, logdet)):
    public(_n, "input", _body, ops=(_op_,))
    public(_n, "self", _body, relevant=("self",), module="Tensor", ops=(_op_,))
