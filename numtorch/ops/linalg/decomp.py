"""numtorch.linalg: cholesky, eigh/eigvalsh, svd, pinv, lstsq; torch.cdist and torch.block_diag.

Factorizations run in LAPACK through NumPy after PyTorch's checks; derivatives are PyTorch's
(FunctionsManual.cpp) written with numtorch ops, so they differentiate again.
"""

from __future__ import annotations

import math

import numpy as np
from numpy.linalg import _umath_linalg

from ... import _dtype as D
from ... import _factory_utils as F
from ... import return_types
from ..._api import _OVERRIDES
from ..._dispatch import dispatch
from ..._tensor import Tensor, _make
from . import _block_diag as _bd
from . import _decomp_grad as _dg
from . import _fast_small as _fs
from ._cdist_grad import cdist_backward
from ._fast_cdist import arrays as _cdist_arrays
from ._fast_cdist import cdist as _cdist_fast
from .solve import _SOLVE, _floating, _norm_op, _square
from .._registry import defop, public
from ._contract import product
from . import _np_lapack as _lapack
from .core import LinAlgError, _mH, _out_check, broadcast_error, np_svd, write_result
from ..shape.join import cat
from ...kernels import lazy

_K = lazy("numtorch.kernels.cpu.linalg")
# ndarray.all()'s reduction without np's Python wrapper (~0.3 us of a small cholesky)
_isfinite, _all_true = np.isfinite, np.logical_and.reduce
_isfinite_f = math.isfinite
_FLOATS_CDIST = (D.float32, D.float64)

_EIGH = return_types.register("linalg_eigh", ("eigenvalues", "eigenvectors"))
_LSVD = return_types.register("linalg_svd", ("U", "S", "Vh"))
_TSVD = return_types.register("svd", ("U", "S", "V"))
_LSTSQ = return_types.register("linalg_lstsq", ("solution", "residuals", "rank", "singular_values"))


def _t(arr, dt: D.dtype) -> Tensor:
    a = np.asarray(arr, dt.np)
    return _make(a if a.flags.c_contiguous else a.copy(), dt)


def _write_out(out, res, nt):
    for o, v in zip(out, res, strict=True):
        o.resize_(v.shape).copy_(v)
    return nt(*out)


def _no_half(A: Tensor, kernel: str) -> None:
    if A._dtype is D.float16:
        raise NotImplementedError(f"\"{kernel}\" not implemented for 'Half'")


# ---- cholesky --------------------------------------------------------------------------------------
def _not_pd_order(a: np.ndarray) -> int:
    """1-based order of the first leading minor that is not positive-definite (potrf's info)."""
    for k in range(1, a.shape[-1] + 1):
        try:
            np.linalg.cholesky(a[:k, :k])
        except np.linalg.LinAlgError:
            return k
    return a.shape[-1]


def _check_pd(a: np.ndarray, fname: str, numpy_failed: bool) -> None:
    """Raise torch's error for the first batch element whose factorization fails."""
    n = a.shape[-1]
    mats = np.ascontiguousarray(a.reshape(-1, n, n))
    info = _K.cholesky_left_looking(mats, np.empty_like(mats))  # potf2: fails at a NaN pivot
    for b, m in enumerate(mats):
        order = int(info[b])
        if not order and numpy_failed:  # rounding at the positive-definite boundary: NumPy's word
            try:
                np.linalg.cholesky(m)
            except np.linalg.LinAlgError:
                order = _not_pd_order(m)
        if order:
            where = f"(Batch element {b}): " if a.ndim > 2 else ""
            raise LinAlgError(
                f"{fname}: {where}The factorization could not be completed because the input is not "
                f"positive-definite (the leading minor of order {order} is not positive-definite)."
            ) from None


def _finite_diagonal(low: np.ndarray) -> bool:
    """Whether every factor's diagonal is finite. A few real values: their Python sum, finite
    only where all are (np.isfinite and its reduction over the strided diagonal cost ~1.6 us of a
    6 us cholesky); a sum that overflows reads as not finite, which _check_pd re-checks."""
    d = low.diagonal(0, -2, -1)
    if d.ndim <= 2 and d.size <= 64 and low.dtype.kind == "f":
        v = d.tolist()
        return _isfinite_f(sum(map(sum, v)) if d.ndim == 2 else sum(v))
    return bool(_all_true(_isfinite(d), axis=None))


def _cholesky_cpu(A, upper=False, fname="linalg.cholesky"):
    _square(A, fname)
    _floating(A, fname)
    _no_half(A, "cholesky_cpu")
    a = A._data
    if upper:  # potrf with uplo='U' reads the upper triangle: L of A^H, then U = L^H
        a = np.swapaxes(a.conj() if a.dtype.kind == "c" else a, -1, -2)
    if a.size == 0:
        return _t(a, A._dtype)
    try:
        low = _lapack.cholesky(a)  # Note [np.linalg without its wrappers]
    except np.linalg.LinAlgError:
        low = None
    # OpenBLAS's potrf (NumPy's) goes on past a NaN pivot, and scales by 1/inf = 0 where LAPACK
    # divides (inf/inf = NaN): a non-finite diagonal is re-checked in LAPACK's order, as torch fails
    if low is None or not _finite_diagonal(low):
        _check_pd(a, fname, low is None)
    if upper:
        low = np.swapaxes(low.conj() if low.dtype.kind == "c" else low, -1, -2)
    return _t(low, A._dtype)


def _cholesky_backward(grad, upper, result):
    # Note [Cholesky derivative]: PyTorch's cholesky_backward. With phi = L^H gL, gA is
    # L^{-H} sym(phi) L^{-1}, sym() keeping the lower triangle with the diagonal halved and
    # mirroring it: a Hermitian gradient (the input is taken as Hermitian, only one triangle read).
    fast = _dg.cholesky(grad, upper, result)  # Note [Decomposition derivatives in NumPy]
    if fast is not None:
        return fast
    low, gl = (_mH(result), _mH(grad)) if upper else (result, grad)
    phi = _mH(low).matmul(gl).tril()
    phi = 0.5 * (phi + _mH(phi.tril(-1)))
    ga = dispatch(_SOLVE[0], [_mH(low), phi, True])
    return dispatch(_SOLVE[0], [low, ga, False])


linalg_cholesky = defop("linalg_cholesky(Tensor self, *, bool upper=False) -> Tensor",
                        cpu=_cholesky_cpu, backward={"self": _cholesky_backward})  # fmt: skip
cholesky = defop("cholesky(Tensor self, bool upper=False) -> Tensor",
                 cpu=lambda self, upper=False: _cholesky_cpu(self, upper, "cholesky"),
                 backward={"self": _cholesky_backward})  # fmt: skip


def _linalg_cholesky(A, upper, out):
    """Lower-triangular ``L`` with ``A = L L^H`` for a Hermitian positive-definite ``A`` (or batch);
    ``upper=True`` returns ``L^H``. Raises ``numtorch.linalg.LinAlgError`` otherwise.

    >>> numtorch.linalg.cholesky(numtorch.tensor([[4.0, 2.0], [2.0, 2.0]]))
    tensor([[2., 0.],
            [1., 1.]])
    """
    if out is not None and A._dtype.category >= D._FLOAT and A._dtype.itemsize > 2:
        _out_check(out, A._dtype, "same")  # linalg_cholesky_ex.L: checkSameType, before the factorization
    res = dispatch(linalg_cholesky, [A, upper])
    if out is not None:
        _out_check(out, res._dtype, "same")
    return res if out is None else out.resize_(res.shape).copy_(res)


def _cholesky(input, upper=False, out=None):
    """Deprecated alias of ``numtorch.linalg.cholesky`` (``upper`` positional).

    >>> numtorch.cholesky(numtorch.tensor([[4.0]]))
    tensor([[2.]])
    """
    if out is None:
        return dispatch(cholesky, [input, upper])
    # cholesky_out's checkLinalgCompatibleDtype: before the factorization, a cast is allowed
    if isinstance(input, Tensor) and isinstance(out, Tensor) and not D.can_cast(input._dtype, out._dtype):
        raise RuntimeError(
            f"cholesky: Expected result to be safely castable from {F.cname(input._dtype)} dtype, "
            f"but got result with dtype {F.cname(out._dtype)}"
        )
    res = dispatch(cholesky, [input, upper])
    return write_result(out, res._data, res._dtype, "cast")


public("cholesky", "A, *, upper=False, out=None", _linalg_cholesky, relevant=("A",), module="torch.linalg",
       ops=(linalg_cholesky,))  # fmt: skip
public("cholesky", "input, upper=False, *, out=None", _cholesky, ops=(cholesky,))
public("cholesky", "self, upper=False", _cholesky, relevant=("self",), module="Tensor", ops=(cholesky,))


# ---- eigh / eigvalsh ---------------------------------------------------------------------------------
def _eigh_cpu(A, UPLO="L"):
    _square(A, "linalg.eigh")
    if A._data.size:  # an empty input returns before the kernel's dtype dispatch
        _floating(A, "linalg.eigh", kernel="linalg_eigh_cpu")
    if UPLO not in ("L", "U", "l", "u"):
        raise RuntimeError(f"Expected UPLO argument to be 'L' or 'U', but got {UPLO}")
    a = A._data
    if a.size == 0:
        w, v = np.zeros(a.shape[:-1], a.dtype), np.zeros(a.shape, a.dtype)
    else:
        try:
            w, v = _lapack.eigh(a, UPLO.upper())
        except np.linalg.LinAlgError:  # LAPACK's syevd did not converge (inf/NaN input)
            raise LinAlgError("linalg.eigh: The algorithm failed to converge because the input matrix is "
                              "ill-conditioned or has too many repeated eigenvalues (error code: 1).") from None  # fmt: skip
    real = A._dtype.to_real()
    return _EIGH(_t(w, real), _t(v, A._dtype))


def _eigh_backward(grads, results):
    # Note [eigh derivative]: PyTorch's linalg_eig_backward (Hermitian case):
    # gA = V (diag(gL) + skew(V^H gV) / E) V^H, E_ij = L_j - L_i (diagonal set to 1). Eigenvectors
    # are defined up to a phase (a sign when real): the loss must not depend on it, and the
    # formula is valid for distinct eigenvalues only (E has zeros otherwise).
    fast = _dg.eigh(grads, results)  # Note [Decomposition derivatives in NumPy]
    if fast is not None:
        return fast
    gl, gv = grads
    lam, v = results
    if gv is None:  # eigvalsh: PyTorch's V diag(gL) V^H, as (V * gL) @ V^H
        return (v * gl.unsqueeze(-2)).matmul(_mH(v)) if gl is not None else None
    vhgv = _mH(v).matmul(gv)
    vhgv = 0.5 * (vhgv - _mH(vhgv))
    e = lam.unsqueeze(-2) - lam.unsqueeze(-1)
    n = lam.shape[-1]
    eye = _t(np.eye(n), lam._dtype)
    e = e * (1 - eye) + eye
    inner = vhgv / e
    if gl is not None:
        inner = inner + gl.diag_embed()
    return v.matmul(inner.matmul(_mH(v)))


linalg_eigh = defop("linalg_eigh(Tensor self, str UPLO=\"L\") -> (Tensor eigenvalues, Tensor eigenvectors)",
                    cpu=_eigh_cpu, backward={"self": _eigh_backward})  # fmt: skip
linalg_eigh.autograd.undefined_grads = True
linalg_eigvalsh = defop("linalg_eigvalsh(Tensor self, str UPLO=\"L\") -> Tensor",
                        composite=lambda self, UPLO="L": dispatch(linalg_eigh, [self, UPLO])[0])  # fmt: skip


def _linalg_eigh(A, UPLO, out):
    """Eigenvalues (ascending) and orthonormal eigenvectors of a Hermitian matrix (or batch),
    reading the ``UPLO`` (``'L'`` or ``'U'``) triangle.

    >>> numtorch.linalg.eigh(numtorch.tensor([[2.0, 0.0], [0.0, 1.0]])).eigenvalues
    tensor([1., 2.])
    """
    res = dispatch(linalg_eigh, [A, UPLO])
    return res if out is None else _write_out(out, res, _EIGH)


def _linalg_eigvalsh(A, UPLO, out):
    """Eigenvalues (ascending) of a Hermitian matrix (or batch).

    >>> numtorch.linalg.eigvalsh(numtorch.tensor([[2.0, 1.0], [1.0, 2.0]]))
    tensor([1., 3.])
    """
    res = dispatch(linalg_eigvalsh, [A, UPLO])
    return res if out is None else out.resize_(res.shape).copy_(res)


public("eigh", "A, UPLO='L', *, out=None", _linalg_eigh, relevant=("A",), module="torch.linalg", ops=(linalg_eigh,))
public("eigvalsh", "A, UPLO='L', *, out=None", _linalg_eigvalsh, relevant=("A",), module="torch.linalg",
       ops=(linalg_eigvalsh,), fast=(_fs.eigvalsh(_linalg_eigvalsh, linalg_eigh, linalg_eigvalsh, _lapack.eigvalsh),
                                     ("A", "UPLO"), "out is None"))  # fmt: skip


# ---- svd -------------------------------------------------------------------------------------------------
def _svd_cpu(A, full_matrices=True, driver=None):
    if A._data.ndim < 2:
        raise RuntimeError("linalg.svd: The input tensor A must have at least 2 dimensions.")
    _floating(A, "linalg.svd")
    _no_half(A, "linalg_svd_cpu")
    if driver is not None:
        raise RuntimeError(
            "torch.linalg.svd: keyword argument `driver=` is only supported on CUDA inputs with cuSOLVER backend."
        )
    a = A._data
    m, n = a.shape[-2:]
    k = min(m, n)
    if a.size == 0:
        ku, kv = (m, n) if full_matrices else (k, k)
        u = np.broadcast_to(np.eye(m, ku, dtype=a.dtype), a.shape[:-2] + (m, ku))
        vh = np.broadcast_to(np.eye(kv, n, dtype=a.dtype), a.shape[:-2] + (kv, n))
        s = np.zeros(a.shape[:-2] + (k,), a.dtype)
    else:
        u, s, vh = np_svd(a, full_matrices=full_matrices)
    real = A._dtype.to_real()
    return _LSVD(_t(u, A._dtype), _t(s, real), _t(vh, A._dtype))


def _svd_backward(grads, full_matrices, results):
    # Note [SVD derivative]: PyTorch's svd_backward for the reduced SVD (full_matrices=True uses the
    # first k = min(m, n) columns of U and rows of Vh, as derivatives.yaml does). Valid for
    # distinct nonzero singular values; singular vectors are defined up to a sign (a phase when
    # complex), so the loss must be invariant to (u_i, v_i) -> (-u_i, -v_i).
    fast = _dg.svd(grads, full_matrices, results)  # Note [Decomposition derivatives in NumPy]
    if fast is not None:
        return fast
    gu, gs, gvh = grads
    u, s, vh = results
    k = s.shape[-1]
    if full_matrices:
        u, vh = u[..., :, :k], vh[..., :k, :]
        gu = gu[..., :, :k] if gu is not None else None
        gvh = gvh[..., :k, :] if gvh is not None else None
    m, n = u.shape[-2], vh.shape[-1]
    if gu is None and gvh is None:
        if gs is None:
            return None
        return (u * gs.unsqueeze(-2)).matmul(vh)
    s2 = s * s
    eye = _t(np.eye(k), s._dtype)
    e = (s2.unsqueeze(-2) - s2.unsqueeze(-1)) * (1 - eye) + eye
    uhgu = _mH(u).matmul(gu) if gu is not None else None
    vhgv = vh.matmul(_mH(gvh)) if gvh is not None else None
    uhgu = uhgu - _mH(uhgu) if uhgu is not None else None
    vhgv = vhgv - _mH(vhgv) if vhgv is not None else None
    if uhgu is not None and vhgv is not None:
        ga = (uhgu * s.unsqueeze(-2) + s.unsqueeze(-1) * vhgv) / e
    elif vhgv is None:
        ga = (uhgu / e) * s.unsqueeze(-2)
    else:
        ga = s.unsqueeze(-1) * (vhgv / e)
    if gs is not None:
        ga = ga + gs.diag_embed()
    if u._dtype.is_complex and gu is not None:
        # the skewed diagonals are imaginary: PyTorch replaces their (gauge-cancelling) sum by
        # i Im(diag(U^H gU)) / S
        d = uhgu.diagonal(0, -2, -1)  # 2i Im(diag(U^H gU))
        dv = vhgv.diagonal(0, -2, -1) if vhgv is not None else 0.0
        ga = ga - ((d + dv) * s.to(d.dtype)).diag_embed() + (0.5 * d / s.to(d.dtype)).diag_embed()
    if m > n and gu is not None:
        gus = gu / s.unsqueeze(-2)
        ga = u.matmul(ga) + gus - u.matmul(_mH(u).matmul(gus))
        return ga.matmul(vh)
    if m < n and gvh is not None:
        sgv = gvh / s.unsqueeze(-1)
        ga = ga.matmul(vh) + sgv - sgv.matmul(_mH(vh)).matmul(vh)
        return u.matmul(ga)
    return u.matmul(ga.matmul(vh))


linalg_svd = defop("linalg_svd(Tensor A, bool full_matrices=True, *, str? driver=None) -> (Tensor U, Tensor S, Tensor Vh)",
                   cpu=_svd_cpu, backward={"A": _svd_backward})  # fmt: skip
linalg_svd.autograd.undefined_grads = True  # svd_backward tests gU / gS / gVh for None


def _svd_composite(self, some=True, compute_uv=True):
    if not compute_uv:
        from .solve import _SVDVALS

        s = dispatch(_SVDVALS[0], [self, None])
        m, n = self.shape[-2], self.shape[-1]
        b = tuple(self.shape[:-2])
        return _TSVD(self.new_zeros(b + (m, m)), s, self.new_zeros(b + (n, n)))
    u, s, vh = dispatch(linalg_svd, [self, not some, None])
    return _TSVD(u, s, _mH(vh))


svd = defop("svd(Tensor self, bool some=True, bool compute_uv=True) -> (Tensor U, Tensor S, Tensor V)",
            composite=_svd_composite)  # fmt: skip


def _linalg_svd(A, full_matrices, driver, out):
    """``A = U diag(S) Vh`` for a matrix (or batch); singular values descending.
    ``full_matrices=False`` gives the reduced factors.

    >>> numtorch.linalg.svd(numtorch.tensor([[3.0, 0.0], [0.0, 4.0]])).S
    tensor([4., 3.])
    """
    res = dispatch(linalg_svd, [A, full_matrices, driver])
    return res if out is None else _write_out(out, res, _LSVD)


def _svd(input, some=True, compute_uv=True):
    """``(U, S, V)`` with ``input = U diag(S) V^H`` (V, not Vh); ``some=False`` gives full U and V,
    ``compute_uv=False`` zero-filled U and V.

    >>> numtorch.svd(numtorch.tensor([[0.0, 2.0], [1.0, 0.0]])).V.abs()
    tensor([[0., 1.],
            [1., 0.]])
    """
    return dispatch(svd, [input, some, compute_uv])


public("svd", "A, full_matrices=True, *, driver=None, out=None", _linalg_svd, relevant=("A",),
       module="torch.linalg", ops=(linalg_svd,))  # fmt: skip
public("svd", "input, some=True, compute_uv=True", _svd, ops=(svd,))
public("svd", "self, some=True, compute_uv=True", _svd, relevant=("self",), module="Tensor", ops=(svd,))


# ---- pinv ------------------------------------------------------------------------------------------------
def _tol(v):
    if v is None:
        return None
    return float(v.item() if isinstance(v, Tensor) else v)


def _mH_physical(x):
    # The kernel's conjugate transposes are copies, not conjugate views: it runs below
    # autograd, inside _ConjMode's handling of the op when a conjugate view is alive
    # elsewhere (Note [Conjugate views]), and there a view made here would reach kernels as
    # its raw memory. The values are those the mode's resolved copies give.
    return x.mT.conj_physical() if x._dtype.is_complex else x.mT


def _pinv_composite(self, atol=None, rtol=None, hermitian=False):
    # at::linalg_pinv: singular values below max(atol, rtol * sigma_max) count as zero
    if self._data.ndim < 2 or self._dtype.category < D._FLOAT or self._dtype in (D.float16, D.bfloat16):
        raise RuntimeError(
            f"linalg.pinv({F.cname(self._dtype)}{{[{', '.join(map(str, self.shape))}]}}): expected a tensor with 2 or more "
            "dimensions of float, double, cfloat or cdouble types"
        )
    m, n = self.shape[-2], self.shape[-1]
    if rtol is None:
        eps = float(np.finfo(self._dtype.to_real().np).eps)
        rtol = 0.0 if atol is not None and atol > 0 else eps * max(m, n)
    atol = 0.0 if atol is None else atol
    if self.numel() == 0:
        return self.new_zeros(tuple(self.shape[:-2]) + (n, m))
    if hermitian:
        lam, v = dispatch(linalg_eigh, [self, "L"])
        big = lam.abs()
        tol = (big.amax(-1, keepdim=True) * rtol).clamp_min(atol)
        inv = (big > tol).to(lam.dtype) / lam.masked_fill(big <= tol, 1.0)
        return v.matmul(inv.unsqueeze(-1).to(self.dtype) * _mH_physical(v))
    u, s, vh = dispatch(linalg_svd, [self, False, None])
    tol = (s[..., :1] * rtol).clamp_min(atol)
    inv = (s > tol).to(s.dtype) / s.masked_fill(s <= tol, 1.0)
    return (_mH_physical(vh) * inv.unsqueeze(-2).to(self.dtype)).matmul(_mH_physical(u))


def _pinv_cpu(self, atol, rtol, hermitian):
    # the fast call's NumPy arithmetic (the composite's bits) wherever it applies: the
    # recorded forward and lstsq's backward take it too
    if (self.__class__ is Tensor and self._dtype in _fs._FLOATS and hermitian is False and self._data.ndim >= 2
            and self._data.size):  # fmt: skip
        return _fs.pinv_arrays(self, atol, rtol, np_svd, product)
    return _pinv_composite(self, atol, rtol, hermitian)


# PyTorch's linalg_pinv is CompositeExplicitAutograd with its own formula (pinv_backward): one
# node of a dozen products instead of the decomposition's svd, masks and broadcast product (30
# recorded ops and svd's backward); the decomposition is its kernel, run below autograd.
linalg_pinv = defop("linalg_pinv(Tensor self, *, float? atol=None, float? rtol=None, bool hermitian=False) -> Tensor",
                    cpu=lambda self, atol, rtol, hermitian: _pinv_cpu(self, atol, rtol, hermitian), any_device=_pinv_composite,
                    backward={"self": lambda grad, result, self: _pinv_backward(grad, result, self)})  # fmt: skip


def _linalg_pinv(A, rcond, hermitian, atol, rtol, out):
    """Moore-Penrose pseudoinverse via the SVD (the eigendecomposition when ``hermitian``);
    ``rcond`` is the deprecated name of ``rtol``.

    >>> numtorch.linalg.pinv(numtorch.tensor([[2.0, 0.0], [0.0, 0.0]]))
    tensor([[0.5000, 0.0000],
            [0.0000, 0.0000]])
    """
    if rcond is not None:
        if rtol is not None:
            raise RuntimeError("linalg.pinv: rcond and rtol cannot be passed together")
        rtol = rcond
    res = dispatch(linalg_pinv, [A, _tol(atol), _tol(rtol), hermitian])
    return res if out is None else out.resize_(res.shape).copy_(res)


def _pinverse(input, rcond=1e-15):
    """Alias of ``numtorch.linalg.pinv(input, rtol=rcond)``.

    >>> numtorch.pinverse(numtorch.tensor([[4.0]]))
    tensor([[0.2500]])
    """
    return dispatch(linalg_pinv, [input, None, float(rcond), False])


public("pinv", "A, rcond=None, hermitian=False, *, atol=None, rtol=None, out=None", _linalg_pinv, relevant=("A",),
       module="torch.linalg", ops=(linalg_pinv,),
       fast=(_fs.pinv(_linalg_pinv, np_svd, product), ("A", "rcond", "hermitian", "atol", "rtol"), "out is None"))  # fmt: skip
public("pinverse", "input, rcond=1e-15", _pinverse, ops=(linalg_pinv,))
public("pinverse", "self, rcond=1e-15", _pinverse, relevant=("self",), module="Tensor", ops=(linalg_pinv,))


# ---- lstsq -----------------------------------------------------------------------------------------------
_DRIVERS = ("gels", "gelsy", "gelsd", "gelss")
_LSTSQ_ILLEGAL = ("torch.linalg.lstsq: Argument 4 has illegal value. Most certainly there is a bug in the "
                  "implementation calling the backend library.")  # fmt: skip


_EPS: dict = {}  # real dtype -> its finfo's eps (a finfo is built per call otherwise)


def _lstsq_cpu(A, B, rcond=None, driver=None):
    if A._data.ndim < 2:
        raise RuntimeError("torch.linalg.lstsq: input must have at least 2 dimensions.")
    if A._dtype is not B._dtype:
        raise RuntimeError(
            f"torch.linalg.lstsq: Expected input and other to have the same dtype, but got input's dtype "
            f"{F.cname(A._dtype)} and other's dtype {F.cname(B._dtype)}"
        )
    if A._dtype.category < D._FLOAT or A._dtype is D.float16:
        raise RuntimeError("This function doesn't handle types other than float and double")
    driver = "gelsy" if driver is None else driver
    if driver not in _DRIVERS:
        raise RuntimeError(
            f"torch.linalg.lstsq: parameter `driver` should be one of (gels, gelsy, gelsd, gelss), but got {driver}"
        )
    a, b = A._data, B._data
    if not (a.ndim >= b.ndim and a.ndim - b.ndim <= 1):
        raise RuntimeError(
            "torch.linalg.lstsq: input.dim() must be greater or equal to other.dim() and "
            "(input.dim() - other.dim()) <= 1"
        )
    vec = a.ndim == b.ndim + 1  # PyTorch's lstsq: one dimension fewer means vectors
    if vec:
        b = b[..., None]
    m, n = a.shape[-2:]
    batch = broadcast_error(a.shape[:-2], b.shape[:-2])
    if b.shape[-2] != m:
        raise RuntimeError(
            "torch.linalg.lstsq: input.size(-2) should match other.size(-2)"
            if not vec else "torch.linalg.lstsq: input.size(-2) should match other.size(-1)"
        )
    nb = math.prod(batch)  # not -1: an empty matrix leaves the batch size ambiguous
    a = (a if a.shape[:-2] == batch else _broadcast_copy(a, batch)).reshape(nb, m, n)
    b = (b if b.shape[:-2] == batch else _broadcast_copy(b, batch)).reshape(nb, m, b.shape[-1])
    real = A._dtype.to_real()
    eps = _EPS.get(real) or _EPS.setdefault(real, D.finfo(real).eps)
    rc = eps * max(m, n) if rcond is None or rcond < 0 else rcond
    k = b.shape[-1]
    mn = min(m, n)
    wants_res = driver != "gelsy" and m > n
    if a.size and k:
        if not (_all_true(_isfinite(a), axis=None) and _all_true(_isfinite(b), axis=None)):
            # LAPACK's scaling step refuses NaN/inf (an illegal argument), as PyTorch reports
            raise RuntimeError(_LSTSQ_ILLEGAL)
        # the gufunc's fresh float64 (complex128) arrays cast into the results' dtypes, as
        # assignments into zeros did; residuals and singular values only where returned
        x, r, rank, sv = _lstsq_batch(a, b, rc)
        rank = rank.astype(np.int64)
        if wants_res:  # np.linalg.lstsq's residuals: only of a full-rank tall matrix
            res = np.zeros((a.shape[0], k), real.np)
            full = rank == n
            res[full] = r[full]
    else:
        x = np.zeros((a.shape[0], n, k), a.dtype)
        rank = np.zeros(a.shape[0], np.int64)
        sv = np.zeros((a.shape[0], mn), real.np)
        res = np.zeros((a.shape[0], k), real.np)
    x = x.reshape(batch + (n, k))
    if vec:
        x = x[..., 0]
    empty = _t(np.zeros((0,), real.np), real)
    resid = empty
    if wants_res and _all_true(rank == mn, axis=None):
        resid = _t(res.reshape(batch + (k,))[..., 0] if vec else res.reshape(batch + (k,)), real)
    rank_t = _t(rank.reshape(batch), D.int64) if driver != "gels" else _t(np.zeros((0,)), D.int64)
    sv_t = _t(sv.reshape(batch + (mn,)), real) if driver in ("gelsd", "gelss") else empty
    return _LSTSQ(_t(x, A._dtype), resid, rank_t, sv_t)


def _broadcast_copy(x: np.ndarray, batch: tuple) -> np.ndarray:
    # the copy reshape made of np.broadcast_to's view (the same values, C-ordered) without
    # broadcast_to's Python wrapper and nditer (~1.5 of a small lstsq's 17 us)
    out = np.empty(batch + x.shape[-2:], x.dtype)
    out[...] = x
    return out


def _lstsq_batch(a: np.ndarray, b: np.ndarray, rcond: float) -> tuple:
    """np.linalg.lstsq of every (m, n) matrix of ``a`` with ``b``'s (m, k) (k > 0, m n > 0) in one
    call of its gufunc, as np.linalg.lstsq makes it per matrix (float64/complex128 LAPACK gelsd,
    the same error state): the per-matrix calls' results bit for bit, without a Python loop over
    the batch (a batch of 65536 small systems: 227 ms where PyTorch takes 18)."""
    sig = "DDd->Ddid" if a.dtype.kind == "c" else "ddd->ddid"
    gufunc = getattr(_umath_linalg, "lstsq", None)
    if gufunc is not None:  # Note [np.linalg without its wrappers]: its state, set once
        return _lapack.lstsq_batch(gufunc, a, b, rcond, sig)
    with np.errstate(call=_lapack.lstsq_error, invalid="call", over="ignore", divide="ignore", under="ignore"):
        m, n = a.shape[-2:]  # NumPy 1.x names the gufunc by the matrices' shape
        gufunc = _umath_linalg.lstsq_m if m <= n else _umath_linalg.lstsq_n
        return gufunc(a, b, rcond, signature=sig)


def _pinv_backward(grad, pinva, a):
    # PyTorch's pinv_backward (the products arranged for the smaller dimension)
    fast = _dg.pinv(grad, pinva, a)  # Note [Decomposition derivatives in NumPy]
    if fast is not None:
        return fast
    m, n = a.shape[-2], a.shape[-1]
    pinvah, gradh = _mH(pinva), _mH(grad)
    if m <= n:
        kk = gradh.matmul(pinva)
        kp = kk.matmul(pinvah)
        return (-_mH(pinva.matmul(kk)) + kp - a.matmul(pinva).matmul(kp)
                + pinvah.matmul(pinva).matmul(gradh - kk.matmul(a)))  # fmt: skip
    kk = pinva.matmul(gradh)
    pk = pinvah.matmul(kk)
    return (-_mH(kk.matmul(pinva)) + (gradh - a.matmul(kk)).matmul(pinva).matmul(pinvah) + pk
            - pk.matmul(pinva).matmul(a))  # fmt: skip


def _lstsq_backward(grads, self, b):
    # Note [lstsq derivative]: as PyTorch, through X = pinv(A) B: exact where A has full rank;
    # only the solution is differentiable.
    gx = grads[0]
    if gx is None:
        return None, None
    vec = self.ndim == b.ndim + 1
    bm, gm = (b.unsqueeze(-1), gx.unsqueeze(-1)) if vec else (b, gx)
    pinva = dispatch(linalg_pinv, [self, None, None, False])
    ga = _pinv_backward(gm.matmul(_mH(bm)), pinva, self)
    gb = _mH(pinva).matmul(gm)
    ga = ga.sum_to_size(self.shape) if tuple(ga.shape) != tuple(self.shape) else ga
    gb = gb.squeeze(-1) if vec else gb
    gb = gb.sum_to_size(b.shape) if tuple(gb.shape) != tuple(b.shape) else gb
    return ga, gb


linalg_lstsq = defop("linalg_lstsq(Tensor self, Tensor b, float? rcond=None, *, str? driver=None) -> "
                     "(Tensor solution, Tensor residuals, Tensor rank, Tensor singular_values)",
                     cpu=_lstsq_cpu, backward={("self", "b"): _lstsq_backward})  # fmt: skip


def _linalg_lstsq(A, B, rcond, driver):
    """Least-squares solution of ``A X = B`` (batches broadcast); ``driver`` as PyTorch's CPU
    drivers (``'gelsy'`` default: residuals and singular values come back empty).

    >>> numtorch.linalg.lstsq(numtorch.tensor([[1.0], [1.0]]), numtorch.tensor([[1.0], [3.0]])).solution
    tensor([[2.]])
    """
    return dispatch(linalg_lstsq, [A, B, rcond, driver])


public("lstsq", "A, B, rcond=None, *, driver=None", _linalg_lstsq, relevant=("A", "B"), module="torch.linalg",
       ops=(linalg_lstsq,))  # fmt: skip


# ---- cdist / block_diag ----------------------------------------------------------------------------------
def _cdist_composite(x1, x2, p=2.0, compute_mode=None):
    # Composite over linalg.vector_norm of the pairwise differences: its derivative is
    # PyTorch's _cdist_backward (zero where a distance is zero), and it differentiates again.
    # torch's order: shapes, floating dtypes, p and mode (cdist_impl), then an empty result
    # needs no kernel; only the kernel refuses float16 and mixed dtypes
    for name, x in (("X1", x1), ("X2", x2)):
        if x.ndim < 2:
            raise RuntimeError(f"cdist only supports at least 2D tensors, {name} got: {x.ndim}D")
    if x1.shape[-1] != x2.shape[-1]:
        raise RuntimeError(
            f"X1 and X2 must have the same number of columns. X1: {x1.shape[-1]} X2: {x2.shape[-1]}"
        )
    for name, x in (("X1", x1), ("X2", x2)):
        if x._dtype.category != D._FLOAT:
            raise RuntimeError(f"cdist only supports floating-point dtypes, {name} got: {F.cname(x._dtype)}")
    if p < 0:
        raise RuntimeError("cdist only supports non-negative p values")
    if compute_mode not in (None, 0, 1, 2):
        raise RuntimeError(f"{compute_mode} is not a valid value for compute_mode")
    if x1.numel() == 0 or x2.numel() == 0:  # an empty or all-zero result in x1's dtype
        x2 = x2.to(x1._dtype)
    elif x1._dtype is D.float16 or x1._dtype is D.bfloat16:  # the kernel dispatches on x1, then compares x2
        raise NotImplementedError(f"\"cdist\" not implemented for '{F.cname(x1._dtype)}'")
    elif x1._dtype is not x2._dtype:
        raise RuntimeError(f"expected scalar type {F.cname(x1._dtype)} but found {F.cname(x2._dtype)}")
    diff = x1.unsqueeze(-2) - x2.unsqueeze(-3)
    from .solve import _VNORM

    return dispatch(_VNORM[0], [diff, p, [-1], False, None])


def _cdist_cpu(x1, x2, p, compute_mode):
    # the fast call's arrays where they apply (the composite's bits), else the composite below
    # autograd; its checks raise the errors. While a kernel is registered over an aten op the
    # composite runs, so one over linalg_vector_norm is still called (Note [Fast calls under
    # kernel overrides])
    dt = x1._dtype
    a, b = x1._data, x2._data
    if (x2._dtype is dt and dt in _FLOATS_CDIST and a.ndim >= 2 and b.ndim >= 2 and a.shape[-1] == b.shape[-1]
            and a.size and b.size and p >= 0 and compute_mode in (None, 0, 1, 2) and not _OVERRIDES[0]):  # fmt: skip
        r = _cdist_arrays(a, b, dt, p)
        if r.__class__ is np.ndarray:
            return _make(r, dt)
    return _cdist_composite(x1, x2, p, compute_mode)


# Note [cdist's own node]: one CdistBackward0 with PyTorch's _cdist_backward formula
_cdist = defop("cdist(Tensor x1, Tensor x2, float p=2, int? compute_mode=None) -> Tensor",
               cpu=_cdist_cpu, any_device=_cdist_composite, backward={("x1", "x2"): cdist_backward})  # fmt: skip
_MODES = {None: None, "use_mm_for_euclid_dist_if_necessary": None, "use_mm_for_euclid_dist": 1,
          "donot_use_mm_for_euclid_dist": 2}  # fmt: skip


def _cdist_body(x1, x2, p=2.0, compute_mode="use_mm_for_euclid_dist_if_necessary"):
    """p-norm distances between each row of ``x1`` (``*, P, M``) and each row of ``x2``
    (``*, R, M``): a ``*, P, R`` tensor.

    >>> numtorch.cdist(numtorch.tensor([[0.0, 0.0]]), numtorch.tensor([[3.0, 4.0]]))
    tensor([[5.]])
    """
    if compute_mode not in _MODES:
        raise ValueError(f"{compute_mode} is not a valid value for compute_mode")
    return dispatch(_cdist, [x1, x2, float(p), _MODES[compute_mode]])


public("cdist", "x1, x2, p=2.0, compute_mode='use_mm_for_euclid_dist_if_necessary'", _cdist_body,
       relevant=("x1", "x2"), ops=(_cdist,), fast=(_cdist_fast(_cdist_body, _norm_op), ("x1", "x2", "p", "compute_mode")))  # fmt: skip


def _block_diag_composite(tensors):
    mats = []
    for i, t in enumerate(tensors):
        if t.ndim > 2:
            raise RuntimeError(
                f"torch.block_diag: Input tensors must have 2 or fewer dimensions. Input {i} has {t.ndim} dimensions"
            )
        mats.append(t.reshape(1, -1) if t.ndim < 2 else t)
    if not mats:
        return _t(np.zeros((1, 0)), D.get_default_dtype())
    # at::result_type over the inputs: a 0-d tensor ranks below those with dims.
    dt = D.result_type_of([t._dtype for t in tensors if t.ndim], [t._dtype for t in tensors if not t.ndim], ())
    cols = sum(t.shape[1] for t in mats)
    rows, left = [], 0
    for t in mats:
        r, c = t.shape
        t = t.to(dt) if t._dtype is not dt else t
        parts = [t.new_zeros((r, left)), t, t.new_zeros((r, cols - left - c))]
        rows.append(dispatch(cat, [parts, 1]))
        left += c
    return dispatch(cat, [rows, 0])


block_diag = defop("block_diag(Tensor[] tensors) -> Tensor", cpu=lambda tensors: _bd.cpu(tensors, _block_diag_composite),
                   any_device=_block_diag_composite, backward={"tensors": _bd.backward})  # fmt: skip


def _block_diag(tensors):
    """Block-diagonal matrix from 0-, 1- or 2-D tensors (a 0-/1-D one is one row).

    >>> numtorch.block_diag(numtorch.tensor([[1, 2]]), numtorch.tensor(3))
    tensor([[1, 2, 0],
            [0, 0, 3]])
    """
    return dispatch(block_diag, [list(tensors)])


public("block_diag", "*tensors", _block_diag, relevant=(), lists=("tensors",), ops=(block_diag,),
       fast=(_fs.block_diag, ("tensors",)))  # fmt: skip
