"""numtorch.linalg functions derived from the core ones: vecdot, diagonal, matmul, vander, cond,
matrix_rank, tensorinv, tensorsolve, solve_triangular, matrix_exp and the ``*_ex`` variants
(inv_ex, cholesky_ex, solve_ex) that report failures in an ``info`` tensor instead of raising.

All are composites (Note [Composite bodies are below the Python API]): their gradients come
from the ops they call, so each is exactly as differentiable as PyTorch's.
"""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np

from ... import _dtype as D
from ... import _factory_utils as F
from ... import return_types
from ..._dispatch import dispatch
from ..._tensor import Tensor, _make, _wrap_dim
from .._registry import OPS, body_of, defop, public
from ...kernels import lazy
from .core import LinAlgError, _cj, _mH, broadcast_error
from .solve import _floating, _square, _vector_rhs, lu_route

_INV_EX = return_types.register("linalg_inv_ex", ("inverse", "info"))
_CHOL_EX = return_types.register("linalg_cholesky_ex", ("L", "info"))
_SOLVE_EX = return_types.register("linalg_solve_ex", ("result", "info"))
_K = lazy("numtorch.kernels.cpu.linalg")


def _aten(name):
    return OPS[f"aten::{name}"]


def _info(shape, values=None):
    a = np.zeros(shape, np.int32) if values is None else np.asarray(values, np.int32).reshape(shape)
    return _make(a, D.int32)


# ---- vecdot, diagonal, matmul -------------------------------------------------------------------
def _vecdot(x, y, dim=-1):
    _floating(x, "linalg.vecdot")
    if x._dtype is not y._dtype:
        raise RuntimeError(f"linalg.vecdot: Expected x and y to have the same dtype, but found x of type "
                           f"{F.cname(x._dtype)} and y of type {F.cname(y._dtype)} instead")  # fmt: skip
    return (_cj(x) * y).sum(dim)


_VECDOT = defop("linalg_vecdot(Tensor x, Tensor y, *, int dim=-1) -> Tensor", composite=_vecdot)
_VECDOT_OUT = defop("linalg_vecdot.out(Tensor x, Tensor y, *, int dim=-1, Tensor(a!) out) -> Tensor(a!)",
                    composite=lambda x, y, dim=-1, out=None: body_of("sum")(_cj(x) * y, dim, False, None, out))  # fmt: skip


def _vecdot_fn(x, y, dim, out):
    """The dot product of vectors along ``dim`` (the first conjugated), as ``torch.linalg.vecdot``.

    >>> numtorch.linalg.vecdot(numtorch.tensor([[1.0, 2.0], [3.0, 4.0]]), numtorch.tensor([1.0, 1.0]))
    tensor([3., 7.])
    """
    return dispatch(_VECDOT, [x, y, dim]) if out is None else dispatch(_VECDOT_OUT, [x, y, dim, out])


public("vecdot", "x, y, *, dim=-1, out=None", _vecdot_fn, relevant=("x", "y"), module="torch.linalg", ops=(_VECDOT,))

_DIAGONAL = defop("linalg_diagonal(Tensor(a) A, *, int offset=0, int dim1=-2, int dim2=-1) -> Tensor(a)",
                  composite=lambda A, offset=0, dim1=-2, dim2=-1: dispatch(_aten("diagonal"), [A, offset, dim1, dim2]))  # fmt: skip


def _diagonal_fn(A, offset, dim1, dim2):
    """The diagonals of a batch of matrices (a view), as ``torch.linalg.diagonal``.

    >>> numtorch.linalg.diagonal(numtorch.tensor([[1.0, 2.0], [3.0, 4.0]]))
    tensor([1., 4.])
    """
    return dispatch(_DIAGONAL, [A, offset, dim1, dim2])


public("diagonal", "A, *, offset=0, dim1=-2, dim2=-1", _diagonal_fn, relevant=("A",), module="torch.linalg", ops=(_DIAGONAL,))

_LMATMUL = defop("linalg_matmul(Tensor self, Tensor other) -> Tensor", composite=lambda a, b: dispatch(_aten("matmul"), [a, b]))
_LMATMUL_OUT = defop("linalg_matmul.out(Tensor self, Tensor other, *, Tensor(a!) out) -> Tensor(a!)",
                     composite=lambda a, b, out: dispatch(_aten("matmul.out"), [a, b, out]))  # fmt: skip


def _matmul_fn(input, other, out):
    """Alias of ``numtorch.matmul``, as ``torch.linalg.matmul``.

    >>> numtorch.linalg.matmul(numtorch.eye(2), numtorch.tensor([1.0, 2.0]))
    tensor([1., 2.])
    """
    return dispatch(_LMATMUL, [input, other]) if out is None else dispatch(_LMATMUL_OUT, [input, other, out])


public("matmul", "input, other, *, out=None", _matmul_fn, relevant=("input", "other"), module="torch.linalg", ops=(_LMATMUL,))


# ---- vander -------------------------------------------------------------------------------------
def _vander(x, N=None):
    n = x.shape[-1] if x.ndim else 1
    N = n if N is None else N
    if N <= 1 or x.ndim == 0:
        raise RuntimeError("N must be greater than 1.")
    # columns x^0 .. x^(N-1): a cumulative product keeps integer dtypes exact, as PyTorch's
    ones = body_of("ones_like")(x.unsqueeze(-1), None, None, None, False, None)
    powers = x.unsqueeze(-1).expand(*x.shape, N - 1).cumprod(-1)
    return body_of("cat")([ones, powers], -1, None)


_VANDER = defop("linalg_vander(Tensor x, *, SymInt? N=None) -> Tensor", composite=_vander)


def _vander_fn(x, N):
    """The Vandermonde matrix of ``x``: columns ``x**0 .. x**(N-1)``, as ``torch.linalg.vander``.

    >>> numtorch.linalg.vander(numtorch.tensor([1, 2, 3]))
    tensor([[1, 1, 1],
            [1, 2, 4],
            [1, 3, 9]])
    """
    return dispatch(_VANDER, [x, N])


public("vander", "x, *, N=None", _vander_fn, relevant=("x",), module="torch.linalg", ops=(_VANDER,))


# ---- cond, matrix_rank --------------------------------------------------------------------------
def _cond_of_empty(A):
    # PyTorch's _linalg_cond_empty_matrix: an empty matrix is perfectly conditioned, 0 by convention
    real = A._dtype.to_real()
    return _make(np.zeros(A.shape[:-2], real.np), real)


def _cond(A, p=None):
    if p in (None, 2, -2):
        if A.ndim < 2:
            raise RuntimeError("linalg.cond: The input tensor A must have at least 2 dimensions.")
        if not A.numel():
            return _cond_of_empty(A)
        s = dispatch(_aten("linalg_svdvals"), [A, None])
        hi, lo = s.amax(-1), s.amin(-1)
        return hi / lo if p != -2 else lo / hi
    name = f"linalg.cond(ord={p})"
    if A.ndim < 2:
        raise RuntimeError(f"{name}: The input tensor A must have at least 2 dimensions.")
    if not A.numel() and p in (1, -1, math.inf, -math.inf):  # a number's empty check precedes the square one
        return _cond_of_empty(A)
    _square(A, name)
    _floating(A, name)
    if not A.numel() and p in ("fro", "nuc"):
        return _cond_of_empty(A)
    norm = body_of("matrix_norm", "torch.linalg")
    try:
        inv = dispatch(_aten("linalg_inv"), [A])
    except LinAlgError:
        # PyTorch: a singular A has an infinite condition number
        real = A._dtype.to_real()
        return _make(np.full(A.shape[:-2], np.inf, real.np), real)
    return norm(A, p, (-2, -1), False, None, None) * norm(inv, p, (-2, -1), False, None, None)


_COND = defop("linalg_cond(Tensor self, Scalar? p=None) -> Tensor", composite=_cond)
_COND_STR = defop("linalg_cond.p_str(Tensor self, str p) -> Tensor", composite=_cond)


def _cond_fn(A, p, out):
    """The condition number of ``A`` in the norm ``p`` (2 by default: the ratio of the extreme
    singular values), as ``torch.linalg.cond``.

    >>> numtorch.linalg.cond(numtorch.tensor([[2.0, 0.0], [0.0, 0.5]]))
    tensor(4.)
    """
    r = dispatch(_COND_STR if isinstance(p, str) else _COND, [A, p])
    return r if out is None else out.resize_(r.shape).copy_(r)


public("cond", "A, p=None, *, out=None", _cond_fn, relevant=("A",), module="torch.linalg", ops=(_COND,))


def _matrix_rank(A, atol=None, rtol=None, hermitian=False):
    if A.ndim < 2:
        raise RuntimeError("torch.linalg.matrix_rank: The input tensor input must have at least 2 dimensions.")
    if A._dtype is D.float16:  # its tolerance's finfo lookup
        raise RuntimeError("This function doesn't handle types other than float and double")
    if hermitian:
        s = dispatch(_aten("linalg_eigvalsh"), [A, "L"]).abs()
    else:
        s = dispatch(_aten("linalg_svdvals"), [A, None])
    real = A._dtype.to_real()
    if atol is None and rtol is None:
        rtol = D.finfo(real).eps * max(A.shape[-2], A.shape[-1])
    elif rtol is None:
        rtol = 0.0
    smax = s.amax(-1, keepdim=True) if s.shape[-1] else s.sum(-1, keepdim=True)
    tol = smax * rtol
    if atol is not None:
        tol = body_of("maximum")(tol, atol if isinstance(atol, Tensor) else _make(np.array(atol, real.np), real), None)
    return (s > tol).sum(-1)


_RANK = defop("linalg_matrix_rank.atol_rtol_float(Tensor self, *, float? atol=None, float? rtol=None, bool hermitian=False) "
              "-> Tensor", composite=_matrix_rank)  # fmt: skip
_RANK_T = defop("linalg_matrix_rank.atol_rtol_tensor(Tensor input, *, Tensor? atol=None, Tensor? rtol=None, bool hermitian=False)"
                " -> Tensor", composite=_matrix_rank)  # fmt: skip


def _matrix_rank_fn(A, tol, hermitian, atol, rtol, out):
    """The numerical rank: how many singular values exceed ``max(atol, rtol * largest)``, as
    ``torch.linalg.matrix_rank`` (``tol`` is the older name of ``atol``).

    >>> numtorch.linalg.matrix_rank(numtorch.tensor([[1.0, 2.0], [2.0, 4.0]]))
    tensor(1)
    """
    atol = tol if atol is None else atol
    tensors = isinstance(atol, Tensor) or isinstance(rtol, Tensor)
    r = dispatch(_RANK_T if tensors else _RANK, [A, atol, rtol, hermitian])
    return r if out is None else out.resize_(r.shape).copy_(r)


public("matrix_rank", "A, tol=None, hermitian=False, *, atol=None, rtol=None, out=None", _matrix_rank_fn, relevant=("A",),
       module="torch.linalg", ops=(_RANK,))  # fmt: skip


# ---- tensorinv, tensorsolve ---------------------------------------------------------------------
def _tensorinv(A, ind=2):
    if ind <= 0:
        raise RuntimeError(f"Expected a strictly positive integer for 'ind', but got {ind}")
    head, tail = tuple(A.shape[:ind]), tuple(A.shape[ind:])
    rows, cols = math.prod(head), math.prod(tail)
    if rows != cols:
        raise RuntimeError("Expected self to satisfy the requirement prod(self.shape[ind:]) == prod(self.shape[:ind]), "
                           f"but got {cols} != {rows}")  # fmt: skip
    inv = dispatch(_aten("linalg_inv"), [A.reshape(rows, cols)])
    return inv.reshape(*tail, *head)


_TINV = defop("linalg_tensorinv(Tensor self, int ind=2) -> Tensor", composite=_tensorinv)


def _tensorinv_fn(A, ind, out):
    """The inverse of ``A`` for ``tensordot`` with ``ind`` leading dimensions, as
    ``torch.linalg.tensorinv``.

    >>> numtorch.linalg.tensorinv(numtorch.eye(4).reshape(4, 2, 2), ind=1).shape
    torch.Size([2, 2, 4])
    """
    r = dispatch(_TINV, [A, ind])
    return r if out is None else out.resize_(r.shape).copy_(r)


public("tensorinv", "A, ind=2, *, out=None", _tensorinv_fn, relevant=("A",), module="torch.linalg", ops=(_TINV,))


def _tensorsolve(A, B, dims=None):
    if dims is not None:
        nd = A.ndim
        src = [_wrap_dim(d, nd) for d in dims]
        A = A.movedim(src, list(range(nd - len(src), nd)))
    rest = tuple(A.shape[B.ndim :])
    rows, cols = B.numel(), math.prod(rest)
    if rows != cols or math.prod(A.shape) != rows * cols:
        raise RuntimeError("Expected self to satisfy the requirement prod(self.shape[other.ndim:]) == prod(self.shape[:other.ndim]), "
                           f"but got {cols} != {math.prod(A.shape[: B.ndim])}")  # fmt: skip
    x = dispatch(_aten("linalg_solve"), [A.reshape(rows, cols), B.reshape(rows), True])
    return x.reshape(rest)


_TSOLVE = defop("linalg_tensorsolve(Tensor self, Tensor other, int[]? dims=None) -> Tensor", composite=_tensorsolve)


def _tensorsolve_fn(A, B, dims, out):
    """The X with ``tensordot(A, X, X.ndim) == B``, as ``torch.linalg.tensorsolve``.

    >>> numtorch.linalg.tensorsolve(numtorch.eye(6).reshape(2, 3, 6), numtorch.ones(2, 3)).shape
    torch.Size([6])
    """
    r = dispatch(_TSOLVE, [A, B, dims])
    return r if out is None else out.resize_(r.shape).copy_(r)


public("tensorsolve", "A, B, dims=None, *, out=None", _tensorsolve_fn, relevant=("A", "B"), module="torch.linalg", ops=(_TSOLVE,))


# ---- solve_triangular: substitution (Note [Substitution, not LU, for triangular systems]) ------
def _solve_triangular_cpu(A, B, upper, left=True, unitriangular=False):
    name = "linalg.solve_triangular"
    if A.ndim < 2 or B.ndim < 2:
        raise RuntimeError(f"{name}: The input tensor {'A' if A.ndim < 2 else 'B'} must have at least 2 dimensions.")
    _square(A, name)
    _floating(A, name, kernel="triangular_solve_cpu")
    if A._dtype is not B._dtype:
        raise RuntimeError(f"{name}: Expected A and B to have the same dtype, but found A of type {F.cname(A._dtype)} "
                           f"and B of type {F.cname(B._dtype)} instead")  # fmt: skip
    k = B.shape[-2] if left else B.shape[-1]
    if A.shape[-1] != k:
        eq, (r, c) = ("AX = B", B.shape[-2:]) if left else ("XA = B", B.shape[-2:])
        raise RuntimeError(f"{name}: Incompatible shapes of A and B for the equation {eq} ({A.shape[-2]}x{A.shape[-1]} and {r}x{c})")
    a, b = A._data, B._data
    if not left:  # X A = B  <=>  A^T X^T = B^T, and A^T has the other triangle
        a, b, upper = np.swapaxes(a, -1, -2), np.swapaxes(b, -1, -2), not upper
    batch = broadcast_error(a.shape[:-2], b.shape[:-2])
    n, m = b.shape[-2:]
    out = np.empty((int(np.prod(batch, dtype=np.int64)), n, m), A._dtype.np)
    if out.size:
        ia = np.broadcast_to(np.arange(int(np.prod(a.shape[:-2], dtype=np.int64))).reshape(a.shape[:-2]), batch)
        ib = np.broadcast_to(np.arange(int(np.prod(b.shape[:-2], dtype=np.int64))).reshape(b.shape[:-2]), batch)
        a3 = np.ascontiguousarray(a.reshape(-1, n, n))
        b3 = np.ascontiguousarray(b.reshape(-1, n, m))
        _K.trsm_left(a3, ia.ravel().astype(np.int64), b3, ib.ravel().astype(np.int64), bool(upper), bool(unitriangular),
                     A._dtype.category == D._COMPLEX, out)  # fmt: skip
    x = out.reshape(batch + (n, m))
    if not left:
        x = np.ascontiguousarray(np.swapaxes(x, -1, -2))
    return _make(x, A._dtype)


def _solve_triangular_backward(grad, self, upper, left, unitriangular, result):
    # the solution's gradient is a solve with A^H (the other triangle); only the read triangle
    # of A receives one (the diagonal too unless unitriangular)
    gb = dispatch(_STRI, [_mH(self), grad, not upper, left, unitriangular])
    ga = -(gb.matmul(_mH(result)) if left else _mH(result).matmul(gb))
    off = (1 if unitriangular else 0) if upper else (-1 if unitriangular else 0)
    return (ga.triu(off) if upper else ga.tril(off)), gb


_STRI = defop("linalg_solve_triangular(Tensor self, Tensor B, *, bool upper, bool left=True, bool unitriangular=False) -> Tensor",
              cpu=_solve_triangular_cpu, backward={("self", "B"): _solve_triangular_backward})  # fmt: skip


def _solve_triangular_fn(A, B, upper, left, unitriangular, out):
    """The solution of a triangular system ``A X = B`` (``X A = B`` with ``left=False``),
    reading only the ``upper`` or lower triangle of ``A``, as ``torch.linalg.solve_triangular``.

    >>> A = numtorch.tensor([[2.0, 1.0], [0.0, 4.0]])
    >>> numtorch.linalg.solve_triangular(A, numtorch.tensor([[3.0], [4.0]]), upper=True)
    tensor([[1.],
            [1.]])
    """
    r = dispatch(_STRI, [A, B, upper, left, unitriangular])
    return r if out is None else out.resize_(r.shape).copy_(r)


public("solve_triangular", "A, B, *, upper, left=True, unitriangular=False, out=None", _solve_triangular_fn,
       relevant=("A", "B"), module="torch.linalg", ops=(_STRI,))  # fmt: skip


# ---- matrix_exp: scaling and squaring with the [13/13] Pade approximant (Higham 2005) ------------
def _pade13():
    m = 13
    f = math.factorial
    return [float(Fraction(f(2 * m - j) * f(m), f(2 * m) * f(j) * f(m - j))) for j in range(m + 1)]


_B13 = _pade13()
_THETA13 = 5.371920351148152  # Higham's bound on ||A||_1 for the [13/13] approximant in double


def _matrix_exp(A):
    name = "linalg.matrix_exp"
    if A.ndim < 2:
        raise RuntimeError(f"{name}: The input tensor A must have at least 2 dimensions.")
    _square(A, name)
    _floating(A, name)
    if A.numel() == 0:
        return A.clone()
    if A.shape[-1] == 1:
        # PyTorch's trivial case: exp(1e30-2.6j) is -inf-infj, where scaling and squaring
        # overflows into NaN (inf - inf) on the way
        return A.exp()
    if A._dtype is D.float16:  # PyTorch's half matrix_exp; the solve below has no half kernel
        return _matrix_exp(A.float()).half()
    bad = ~np.isfinite(A._data).all(axis=(-2, -1))
    if bad.any():  # a matrix holding inf/NaN: all NaN, as torch's scaling gives; the others as usual
        m = _make(np.ascontiguousarray(bad[..., None, None]), D.bool)
        nan = complex(math.nan, math.nan) if A._dtype.is_complex else math.nan
        return _matrix_exp(A.masked_fill(m, 0.0)).masked_fill(m, nan)
    norms = np.abs(A._data).sum(-2).max(-1).reshape(-1)
    steps = np.where(norms > _THETA13, np.ceil(np.log2(np.maximum(norms, _THETA13) / _THETA13)), 0)
    if steps.min() != steps.max():
        # each matrix its own scaling, as PyTorch's: one batch-wide s (set by the largest norm)
        # squares a small matrix's rounding error 2**s times over (fuzz seed 38: garbage)
        flat = A.reshape(-1, *A.shape[-2:])
        parts, order = [], []
        for v in np.unique(steps):
            idx = _make(np.nonzero(steps == v)[0].astype(np.int64), D.int64)
            parts.append(_matrix_exp(flat.index_select(0, idx)))
            order.append(idx._data)
        inv = _make(np.argsort(np.concatenate(order)).astype(np.int64), D.int64)
        return dispatch(_aten("cat"), [parts, 0]).index_select(0, inv).reshape(A.shape)
    s = int(steps[0])
    X = A / (2.0**s) if s else A
    eye = body_of("eye")(A.shape[-1], None, None, A._dtype, None, None, False, False)
    b = _B13
    X2 = X.matmul(X)
    X4 = X2.matmul(X2)
    X6 = X4.matmul(X2)
    U = X.matmul(X6.matmul(X6 * b[13] + X4 * b[11] + X2 * b[9]) + X6 * b[7] + X4 * b[5] + X2 * b[3] + eye * b[1])
    V = X6.matmul(X6 * b[12] + X4 * b[10] + X2 * b[8]) + X6 * b[6] + X4 * b[4] + X2 * b[2] + eye * b[0]
    R = dispatch(_aten("linalg_solve"), [V - U, V + U, True])
    for _ in range(s):
        R = R.matmul(R)
    return R


_MEXP = defop("linalg_matrix_exp(Tensor self) -> Tensor", composite=_matrix_exp)
_MEXP_T = defop("matrix_exp(Tensor self) -> Tensor", composite=_matrix_exp)


def _matrix_exp_fn(A, out):
    """The matrix exponential of a square matrix (or batch), as ``torch.linalg.matrix_exp``.

    >>> numtorch.linalg.matrix_exp(numtorch.zeros(2, 2))
    tensor([[1., 0.],
            [0., 1.]])
    """
    r = dispatch(_MEXP, [A])
    return r if out is None else out.resize_(r.shape).copy_(r)


def _matrix_exp_torch(input):
    """The matrix exponential, as ``torch.matrix_exp``.

    >>> numtorch.matrix_exp(numtorch.zeros(1, 1))
    tensor([[1.]])
    """
    return dispatch(_MEXP_T, [input])


public("matrix_exp", "A, *, out=None", _matrix_exp_fn, relevant=("A",), module="torch.linalg", ops=(_MEXP,))
public("matrix_exp", "input", _matrix_exp_torch, ops=(_MEXP_T,))
public("matrix_exp", "self", _matrix_exp_torch, relevant=("self",), module="Tensor", ops=(_MEXP_T,))


# ---- the *_ex variants: info instead of an exception --------------------------------------------
def _inv_ex(A, check_errors=False):
    try:
        return dispatch(_aten("linalg_inv"), [A]), _info(tuple(A.shape[:-2]))
    except LinAlgError as e:
        if check_errors:
            raise LinAlgError(str(e).replace("linalg.inv:", "linalg.inv_ex:", 1)) from None
    eye = np.broadcast_to(np.eye(A.shape[-1], dtype=A._dtype.np), A.shape)
    return lu_route(A, _make(np.array(eye), A._dtype), True)


def _cholesky_ex(A, upper=False, check_errors=False):
    try:
        return dispatch(_aten("linalg_cholesky"), [A, upper]), _info(tuple(A.shape[:-2]))
    except LinAlgError as e:
        if check_errors:
            raise LinAlgError(str(e).replace("linalg.cholesky:", "linalg.cholesky_ex:", 1)) from None
    # LAPACK's partial factor and info, as PyTorch returns them (no gradient: the factor of a
    # matrix that is not positive-definite is not a differentiable function of it)
    a = A._data if not upper else np.conj(np.swapaxes(A._data, -1, -2))
    n = a.shape[-1]
    low = np.empty(a.shape, a.dtype)
    info = _K.cholesky_left_looking(np.ascontiguousarray(a.reshape(-1, n, n)), low.reshape(-1, n, n))
    if upper:
        low = np.ascontiguousarray(np.conj(np.swapaxes(low, -1, -2)))
    return _make(low, A._dtype), _info(tuple(A.shape[:-2]), info)


def _solve_ex(A, B, left=True, check_errors=False):
    try:
        return dispatch(_aten("linalg_solve"), [A, B, left]), _info(tuple(A.shape[:-2]))
    except LinAlgError as e:
        if check_errors:
            raise LinAlgError(str(e).replace("torch.linalg.solve:", "torch.linalg.solve_ex:", 1)) from None
    vec = _vector_rhs(A, B)  # linalg_solve took every shape check; info has A's own batch
    x, info = lu_route(A, B.unsqueeze(-1) if vec else B, left)
    return (x.squeeze(-1) if vec else x), info


_INVX = defop("linalg_inv_ex(Tensor A, *, bool check_errors=False) -> (Tensor inverse, Tensor info)", composite=_inv_ex)
_CHOLX = defop("linalg_cholesky_ex(Tensor self, *, bool upper=False, bool check_errors=False) -> (Tensor L, Tensor info)",
               composite=_cholesky_ex)  # fmt: skip
_SOLVEX = defop("linalg_solve_ex(Tensor A, Tensor B, *, bool left=True, bool check_errors=False) -> (Tensor result, Tensor info)",
                composite=_solve_ex)  # fmt: skip


def _write_pair(res, out, kind):
    if out is None:
        return kind(*res)
    for o, r in zip(out, res):
        o.resize_(r.shape).copy_(r)
    return kind(*out)


def _inv_ex_fn(A, check_errors, out):
    """``linalg.inv`` that reports a singular matrix in ``info`` (the first zero pivot, 1-based;
    0 when it succeeded) instead of raising, unless ``check_errors``.

    >>> numtorch.linalg.inv_ex(numtorch.eye(2)).info
    tensor(0, dtype=torch.int32)
    """
    return _write_pair(dispatch(_INVX, [A, check_errors]), out, _INV_EX)


def _cholesky_ex_fn(A, upper, check_errors, out):
    """``linalg.cholesky`` that reports a matrix that is not positive-definite in ``info`` (the
    order of the first failing leading minor) instead of raising, unless ``check_errors``.

    >>> numtorch.linalg.cholesky_ex(-numtorch.eye(2)).info
    tensor(1, dtype=torch.int32)
    """
    return _write_pair(dispatch(_CHOLX, [A, upper, check_errors]), out, _CHOL_EX)


def _solve_ex_fn(A, B, left, check_errors, out):
    """``linalg.solve`` that reports a singular ``A`` in ``info`` instead of raising, unless
    ``check_errors``.

    >>> numtorch.linalg.solve_ex(numtorch.eye(2), numtorch.ones(2)).result
    tensor([1., 1.])
    """
    return _write_pair(dispatch(_SOLVEX, [A, B, left, check_errors]), out, _SOLVE_EX)


public("inv_ex", "A, *, check_errors=False, out=None", _inv_ex_fn, relevant=("A",), module="torch.linalg", ops=(_INVX,))
public("cholesky_ex", "A, *, upper=False, check_errors=False, out=None", _cholesky_ex_fn, relevant=("A",),
       module="torch.linalg", ops=(_CHOLX,))  # fmt: skip
public("solve_ex", "A, B, *, left=True, check_errors=False, out=None", _solve_ex_fn, relevant=("A", "B"),
       module="torch.linalg", ops=(_SOLVEX,))  # fmt: skip
