"""The derivatives of cholesky, qr, eigh and svd run on the arrays where nothing observes their
ops (Note [Decomposition derivatives in NumPy])."""

from __future__ import annotations

import numpy as np

from ..._tensor import Tensor
from .._formula_np import plain, wrap
from ._contract import product
from .solve import solve_arrays as _solve

# Note [Decomposition derivatives in NumPy]
# The derivatives of cholesky, qr, eigh and svd (Notes [Cholesky derivative], [QR derivative],
# [eigh derivative], [SVD derivative]) are chains of 10-30 ops on matrices of a few elements:
# a small linalg.qr fwd+bwd spent ~90 of its ~130 us in its formula's ops (PyTorch's whole step
# ~45 us), several of them strided elementwise kernels over transposed views. Where the shared
# gate lets a formula run in NumPy (Note [Backward formulas in NumPy]: no graph, mode, forward
# AD or registered aten kernel; plain real float32/float64 CPU tensors of at most SMALL
# elements), the same formula runs on the arrays: its products through product() (the
# arrays and BLAS calls matmul's kernel gets), its solves through linalg_solve's own kernel,
# its elementwise steps as NumPy ufuncs in the same dtype and order (a zero gradient is still
# added as zeros, and a diag_embed is a full matrix: -0.0 + 0.0 keeps the ops' sign), so the
# gradient is the ops' bit for bit (tests/ops/linalg/test_decomp_grad.py). Otherwise (complex,
# half, a graph for double backward, a mode) the formula runs as ops. linalg.solve's and
# svdvals' formulas do the same beside their ops (solve.py: solve_arrays, _solve_backward_np);
# np.tril is a where over a kept mask (the per-call np.tri was 2 of its 3 us).


_c = np.ascontiguousarray  # an op's result is C-ordered: the layout its products and solves get


def _sw(a: np.ndarray) -> np.ndarray:
    return a.swapaxes(-1, -2)


_where = np.where


_TRI: dict = {}


def _tril(a: np.ndarray, k: int = 0) -> np.ndarray:
    # np.tril's where with its mask kept (np.tri per call was ~2 of np.tril's 3 us)
    key = (a.shape[-2], a.shape[-1], k)
    mask = _TRI.get(key)
    if mask is None:
        mask = _TRI[key] = np.tri(*key, dtype=bool)
    return _where(mask, a, a.dtype.type(0))


def _diag_embed(d: np.ndarray) -> np.ndarray:
    k = d.shape[-1]
    out = np.zeros(d.shape + (k,), d.dtype)
    i = np.arange(k)
    out[..., i, i] = d
    return out


def _eye(k: int, like: np.ndarray) -> np.ndarray:
    return np.eye(k, dtype=like.dtype)


def cholesky(grad: Tensor, upper: bool, result: Tensor) -> Tensor | None:
    """_cholesky_backward on the arrays, or None where the ops must run."""
    if not plain(grad, result) or grad._dtype is not result._dtype:
        return None
    low, gl = result._data, grad._data
    if upper:
        low, gl = _sw(low), _sw(gl)
    phi = _tril(product(_sw(low), gl))
    phi = _c(0.5 * (phi + _sw(_tril(phi, -1))))
    ga = _solve(_sw(low), phi, True, result)
    return wrap(_solve(low, ga, False, result), result)


def _qr_square_or_tall(q, r, gq, gr, like):
    qgq = product(_sw(q), gq)
    rgr = product(r, _sw(gr))
    tril = _tril(_c(qgq - _sw(qgq) + rgr - _sw(rgr)))
    rhs = _sw(r)
    inner = _c(gr + _solve(rhs, _c(tril), False, like))
    return product(q, inner) + _solve(rhs, _c(gq - product(q, qgq)), False, like)


def qr(grads, A: Tensor, results) -> Tensor | None:
    """_qr_backward's formula (reduced or square complete mode) on the arrays, or None."""
    q, r = results
    gq, gr = grads
    ts = [t for t in (A, q, r, gq, gr) if t is not None]
    if not plain(*ts) or any(t._dtype is not A._dtype for t in ts):
        return None
    qa, ra = q._data, r._data
    gqa = gq._data if gq is not None else np.zeros(qa.shape, qa.dtype)
    gra = gr._data if gr is not None else np.zeros(ra.shape, ra.dtype)
    m, n = A._data.shape[-2:]
    if m >= n:
        return wrap(_qr_square_or_tall(qa, ra, gqa, gra, A), A)
    y, u = A._data[..., :, m:], ra[..., :, :m]
    gu, gv = gra[..., :, :m], gra[..., :, m:]
    dx = _qr_square_or_tall(qa, u, _c(gqa + product(y, _sw(gv))), gu, A)
    return wrap(np.concatenate([dx, product(qa, gv)], -1), A)


def eigh(grads, results) -> Tensor | None:
    """_eigh_backward (real) on the arrays, or None."""
    gl, gv = grads
    lam, v = results
    ts = [t for t in (lam, v, gl, gv) if t is not None]
    if len(ts) == 2 or not plain(*ts) or any(t._dtype is not v._dtype for t in ts):
        return None
    va = v._data
    if gv is None:
        return wrap(product(_c(va * gl._data[..., None, :]), _sw(va)), v)
    la = lam._data
    vhgv = product(_sw(va), gv._data)
    vhgv = 0.5 * (vhgv - _sw(vhgv))
    e = la[..., None, :] - la[..., :, None]
    eye = _eye(la.shape[-1], la)
    e = e * (1 - eye) + eye
    inner = vhgv / e
    if gl is not None:
        inner = inner + _diag_embed(gl._data)
    return wrap(product(va, product(_c(inner), _sw(va))), v)


def svd(grads, full_matrices: bool, results) -> Tensor | None:
    """_svd_backward (real, some gradient defined) on the arrays, or None."""
    gu, gs, gvh = grads
    u, s, vh = results
    ts = [t for t in (u, s, vh, gu, gs, gvh) if t is not None]
    if len(ts) == 3 or not plain(*ts) or any(t._dtype is not u._dtype for t in ts):
        return None
    ua, sa, va = u._data, s._data, vh._data
    gua = gu._data if gu is not None else None
    gva = gvh._data if gvh is not None else None
    k = sa.shape[-1]
    if full_matrices:
        ua, va = ua[..., :, :k], va[..., :k, :]
        gua = gua[..., :, :k] if gua is not None else None
        gva = gva[..., :k, :] if gva is not None else None
    m, n = ua.shape[-2], va.shape[-1]
    if gua is None and gva is None:
        return wrap(product(_c(ua * gs._data[..., None, :]), va), u)
    s2 = sa * sa
    eye = _eye(k, sa)
    e = (s2[..., None, :] - s2[..., :, None]) * (1 - eye) + eye
    uhgu = product(_sw(ua), gua) if gua is not None else None
    vhgv = product(va, _sw(gva)) if gva is not None else None
    uhgu = uhgu - _sw(uhgu) if uhgu is not None else None
    vhgv = vhgv - _sw(vhgv) if vhgv is not None else None
    if uhgu is not None and vhgv is not None:
        ga = (uhgu * sa[..., None, :] + sa[..., :, None] * vhgv) / e
    elif vhgv is None:
        ga = (uhgu / e) * sa[..., None, :]
    else:
        ga = sa[..., :, None] * (vhgv / e)
    if gs is not None:
        ga = ga + _diag_embed(gs._data)
    if m > n and gua is not None:
        gus = _c(gua / sa[..., None, :])
        ga = product(ua, _c(ga)) + gus - product(ua, product(_sw(ua), gus))
        return wrap(product(_c(ga), va), u)
    if m < n and gva is not None:
        sgv = _c(gva / sa[..., :, None])
        ga = product(_c(ga), va) + sgv - product(product(sgv, _sw(va)), va)
        return wrap(product(ua, _c(ga)), u)
    return wrap(product(ua, product(_c(ga), va)), u)


def pinv(grad: Tensor, pinva: Tensor, a: Tensor) -> Tensor | None:
    """_pinv_backward (real) on the arrays, or None."""
    if not plain(grad, pinva, a) or grad._dtype is not a._dtype or pinva._dtype is not a._dtype:
        return None
    p, x = pinva._data, a._data
    m, n = x.shape[-2], x.shape[-1]
    ph, gh = _sw(p), _sw(grad._data)
    if m <= n:
        kk = product(gh, p)
        kp = product(kk, ph)
        r = -_sw(product(p, kk)) + kp - product(product(x, p), kp)
        return wrap(r + product(product(ph, p), _c(gh - product(kk, x))), a)
    kk = product(p, gh)
    pk = product(ph, kk)
    r = -_sw(product(kk, p)) + product(product(_c(gh - product(x, kk)), p), ph) + pk
    return wrap(r - product(product(pk, p), x), a)
