"""np.linalg's LAPACK gufuncs called as np.linalg.cholesky / qr / svd / eigh / solve call them, without
their Python layers.

# Note [np.linalg without its wrappers]
# np.linalg.qr on a (2, 3, 2) float32 batch spent ~10 us of numtorch's 19 in Python
# (_makearray, _commonType, two errstate context managers, triu's tri and where), cholesky ~2.5
# of 9, svd and eigh ~2 of 11-15. These functions make the same gufunc calls with the same
# signatures (double or complex double inside, as _commonType picks for every float dtype)
# under the same error state (its LinAlgError callback for invalid values; over/under/divide
# ignored), set once as NumPy's error-state context variable (Note [Quiet floating-point
# flags]), and cast back as np.linalg does: the same arrays bit for bit
# (tests/ops/linalg/test_np_lapack.py). Other dtypes, and NumPy builds without these private
# names, call np.linalg itself.
"""

from __future__ import annotations

import numpy as np

from .._quiet import quiet as _quiet
from .._quiet import restore as _restore

try:
    from numpy._core.umath import _make_extobj
    from numpy.linalg import _linalg as _L
    from numpy.linalg import _umath_linalg as _U

    def _state(callback):
        return _make_extobj(
            call=callback, invalid="call", over="ignore", divide="ignore", under="ignore"
        )

    _CHOL = _state(_L._raise_linalgerror_nonposdef)
    _QR = _state(_L._raise_linalgerror_qr)
    _SVD = _state(_L._raise_linalgerror_svd_nonconvergence)
    _EIG = _state(_L._raise_linalgerror_eigenvalues_nonconvergence)
    _SOLVE = _state(_L._raise_linalgerror_singular)
except (ImportError, AttributeError, TypeError):  # pragma: no cover - another NumPy
    _U = None

_FLOAT_CHARS = "fdFD"
_REAL = {"f": np.float32, "d": np.float64, "F": np.float32, "D": np.float64}
_TRIU: dict = {}
_ZERO = (np.zeros(1), np.zeros(1, np.complex128))  # np.triu's zero (read only), by complexity


def _direct(a: np.ndarray) -> bool:
    return _U is not None and a.dtype.char in _FLOAT_CHARS


def _call(state, gufunc, *args, signature: str):
    tok = _quiet(state)
    try:
        return gufunc(*args, signature=signature)
    finally:
        _restore(tok)


def cholesky(a: np.ndarray) -> np.ndarray:
    """np.linalg.cholesky(a) (lower)."""
    if not _direct(a):
        return np.linalg.cholesky(a)
    r = _call(_CHOL, _U.cholesky_lo, a, signature="D->D" if a.dtype.kind == "c" else "d->d")
    return r.astype(a.dtype, copy=False)


def qr(a: np.ndarray, complete: bool):
    """np.linalg.qr(a, mode="complete" or "reduced"): (Q, R)."""
    if not _direct(a):
        return np.linalg.qr(a, mode="complete" if complete else "reduced")
    m, n = a.shape[-2:]
    cplx = a.dtype.kind == "c"
    w = a.astype(np.complex128 if cplx else np.float64, copy=True)
    full = complete and m > n
    mc = m if full else min(m, n)
    tau = _call(_QR, _U.qr_r_raw, w, signature="D->D" if cplx else "d->d")
    q = _call(
        _QR,
        _U.qr_complete if full else _U.qr_reduced,
        w,
        tau,
        signature="DD->D" if cplx else "dd->d",
    )
    mask = _TRIU.get((mc, n))
    if mask is None:  # np.triu's mask
        if len(_TRIU) > 256:
            _TRIU.clear()
        mask = _TRIU[(mc, n)] = np.tri(mc, n, -1, dtype=bool)
    r = np.where(mask, _ZERO[cplx], w[..., :mc, :])
    return q.astype(a.dtype, copy=False), r.astype(a.dtype, copy=False)


def svd(
    a: np.ndarray, full_matrices: bool = True, compute_uv: bool = True, hermitian: bool = False
):
    """np.linalg.svd(a, full_matrices, compute_uv, hermitian): (U, S, Vh) or S."""
    if hermitian or not _direct(a):
        return np.linalg.svd(
            a, full_matrices=full_matrices, compute_uv=compute_uv, hermitian=hermitian
        )
    cplx = a.dtype.kind == "c"
    real = _REAL[a.dtype.char]
    if not compute_uv:
        return _call(_SVD, _U.svd, a, signature="D->d" if cplx else "d->d").astype(real, copy=False)
    u, s, vh = _call(
        _SVD, _U.svd_f if full_matrices else _U.svd_s, a, signature="D->DdD" if cplx else "d->ddd"
    )
    return u.astype(a.dtype, copy=False), s.astype(real, copy=False), vh.astype(a.dtype, copy=False)


def eigh(a: np.ndarray, UPLO: str):
    """np.linalg.eigh(a, UPLO) with UPLO "L" or "U": (eigenvalues, eigenvectors)."""
    if not _direct(a):
        return np.linalg.eigh(a, UPLO=UPLO)
    cplx = a.dtype.kind == "c"
    w, v = _call(
        _EIG, _U.eigh_lo if UPLO == "L" else _U.eigh_up, a, signature="D->dD" if cplx else "d->dd"
    )
    return w.astype(_REAL[a.dtype.char], copy=False), v.astype(a.dtype, copy=False)


def eigvalsh(a: np.ndarray, UPLO: str) -> np.ndarray:
    """np.linalg.eigvalsh(a, UPLO) of a real array with UPLO "L" or "U", in float64 (the cast to
    a's dtype is the caller's)."""
    if not _direct(a) or a.dtype.kind == "c":
        return np.linalg.eigvalsh(a, UPLO=UPLO).astype(np.float64, copy=False)
    return _call(_EIG, _U.eigvalsh_lo if UPLO == "L" else _U.eigvalsh_up, a, signature="d->d")


def solve(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """np.linalg.solve(a, b) for a and b (..., n, k) of one dtype."""
    if not _direct(a) or b.dtype != a.dtype or b.ndim < 2:
        return np.linalg.solve(a, b)
    sig = "DD->D" if a.dtype.kind == "c" else "dd->d"
    return _call(_SOLVE, _U.solve, a, b, signature=sig).astype(a.dtype, copy=False)


def lstsq_error(err, flag):
    raise np.linalg.LinAlgError("SVD did not converge in Linear Least Squares")


_LSTSQ = _state(lstsq_error) if _U is not None else None


def lstsq_batch(gufunc, a, b, rcond, signature: str):
    """np.linalg.lstsq's gufunc call on a batch (decomp._lstsq_batch) under its error state."""
    return _call(_LSTSQ, gufunc, a, b, rcond, signature=signature)
