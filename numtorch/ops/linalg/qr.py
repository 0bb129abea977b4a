"""numtorch.linalg.qr: LAPACK's Householder QR through NumPy, with PyTorch's checks and derivative."""

from __future__ import annotations

import numpy as np

from ... import return_types
from ..._dispatch import dispatch
from ..._tensor import Tensor, _make
from ...kernels import lazy
from .._quiet import quiet as _quiet
from .._quiet import restore as _restore
from .._registry import defop, public
from ..shape.join import cat
from . import _decomp_grad as _dg
from . import _np_lapack as _lapack
from .core import _mH
from .solve import _SOLVE, _floating

_QR = return_types.register("linalg_qr", ("Q", "R"))
_MODES = ("reduced", "r", "complete")


def _qr_cpu(A, mode="reduced"):
    if A._data.ndim < 2:
        raise RuntimeError("linalg.qr: The input tensor A must have at least 2 dimensions.")
    _floating(A, "linalg.qr", half_kernel="geqrf_cpu")
    if mode not in _MODES:
        raise RuntimeError(
            f"qr received unrecognized mode '{mode}' but expected one of 'reduced' (default), "
            "'r', or 'complete'"
        )
    a = A._data
    m, n = a.shape[-2:]
    k = m if mode == "complete" else min(m, n)
    if a.size == 0:
        q = np.zeros(a.shape[:-2] + (m, k), a.dtype)
        q[..., range(min(m, k)), range(min(m, k))] = 1
        r = np.zeros(a.shape[:-2] + (k, n), a.dtype)
    elif a.dtype in _REAL and _lapack._U is not None:
        q, r = _qr_real(a, mode)
        dt = A._dtype
        return _QR(_make(q, dt), _make(r, dt))
    else:
        q, r = _lapack.qr(a, mode == "complete")  # Note [np.linalg without its wrappers]
    if mode == "r":
        q = np.empty((0,), a.dtype)
    dt = A._dtype
    return _QR(_make(np.ascontiguousarray(q, dt.np), dt), _make(np.ascontiguousarray(r, dt.np), dt))


# Note [QR's arrays in one pass]
# A small float32 linalg.qr spent ~3.5 of its 6.9 us (PyTorch 4.3) after LAPACK: np.triu's where
# over the factored matrix, two casts back from float64 and two C-order copies, and an error
# state set around each of the two gufunc calls. A real float32/float64 input now makes the same
# two gufunc calls (np.linalg.qr's, in float64, under its error state: set once) and one kernel
# (kernels/cpu/qr_finish.py) writes R (the upper triangle, +0 below) and Q cast to the dtype,
# C-ordered: the arrays the old route gave bit for bit (a cast rounds once either way). Mode "r"
# skips Q's gufunc (R is the factored matrix's triangle alone). Complex and empty inputs keep
# the old route (tests/ops/linalg/test_qr_perf18c.py).
_REAL = (np.dtype(np.float32), np.dtype(np.float64))
_F64 = np.float64
_K = lazy("numtorch.kernels.cpu.qr_finish")


def _qr_real(a, mode):
    m, n = a.shape[-2:]
    batch = a.shape[:-2]
    full = mode == "complete" and m > n
    mc = m if full else min(m, n)
    w = a.astype(_F64)  # a copy: the gufunc factors it in place
    tok = _quiet(_lapack._QR)
    try:
        tau = _lapack._U.qr_r_raw(w, signature="d->d")
        if mode == "r":
            q = _empty((0,), a.dtype)
        else:
            q = (_lapack._U.qr_complete if full else _lapack._U.qr_reduced)(
                w, tau, signature="dd->d"
            )
    finally:
        _restore(tok)
    r = _empty(batch + (mc, n), a.dtype)
    if mode == "r":
        _K.qr_finish(w.reshape(-1, m, n), _NOQ, r.reshape(-1, mc, n), _NOQ)
        return q, r
    qo = _empty(q.shape, a.dtype)
    _K.qr_finish(w.reshape(-1, m, n), q.reshape(-1), r.reshape(-1, mc, n), qo.reshape(-1))
    return qo, r


_NOQ = np.empty(0)  # mode "r": no Q to cast
_empty = np.empty


def _tri_solve(x: Tensor, r: Tensor) -> Tensor:
    """x @ R^{-H} for upper-triangular R."""
    return dispatch(_SOLVE[0], [_mH(r), x, False])


def _qr_square_or_tall(q, r, gq, gr):
    # Note [QR derivative]: TensorFlow's _QrGrad (m >= n, reduced); the wide case reuses it on
    # the leading square block A = Q [U | V].
    qgq = _mH(q).matmul(gq)
    rgr = r.matmul(_mH(gr))
    tril = (qgq - _mH(qgq) + rgr - _mH(rgr)).tril()
    if tril._dtype.is_complex:  # the skew-Hermitian diagonal is imaginary: PyTorch halves it
        tril = tril - 0.5 * tril.diagonal(0, -2, -1).diag_embed()
    return q.matmul(gr + _tri_solve(tril, r)) + _tri_solve(gq - q.matmul(qgq), r)


def _qr_backward(grads, A, mode, results):
    if mode == "r":
        raise RuntimeError(
            "The derivative of linalg.qr depends on Q, which is not computed when mode='r'. "
            "Please use linalg.qr(A, mode='reduced') if you are going to differentiate through "
            "linalg.qr."
        )
    q, r = results
    m, n = A.shape[-2], A.shape[-1]
    if mode == "complete" and m > n:
        raise RuntimeError(
            "The QR decomposition is not differentiable when mode='complete' and nrows > ncols."
        )
    fast = _dg.qr(grads, A, results)  # Note [Decomposition derivatives in NumPy]
    if fast is not None:
        return fast
    gq = grads[0] if grads[0] is not None else q.new_zeros(q.shape)
    gr = grads[1] if grads[1] is not None else r.new_zeros(r.shape)
    if m >= n:
        return _qr_square_or_tall(q, r, gq, gr)
    y, u = A[..., :, m:], r[..., :, :m]
    gu, gv = gr[..., :, :m], gr[..., :, m:]
    dx = _qr_square_or_tall(q, u, gq + y.matmul(_mH(gv)), gu)
    return dispatch(cat, [[dx, q.matmul(gv)], -1])


linalg_qr = defop(
    "linalg_qr(Tensor A, str mode='reduced') -> (Tensor Q, Tensor R)",
    cpu=_qr_cpu,
    backward={"A": _qr_backward},
)


def _qr(A, mode, out):
    """QR decomposition ``A = Q R`` of a matrix (or batch): ``mode`` is ``'reduced'``
    (default), ``'complete'`` or ``'r'`` (``Q`` empty).

    >>> Q, R = numtorch.linalg.qr(numtorch.tensor([[3.0, 1.0], [4.0, 2.0]]))
    >>> bool(((Q @ R) - numtorch.tensor([[3.0, 1.0], [4.0, 2.0]])).abs().max() < 1e-5)
    True
    """
    res = dispatch(linalg_qr, [A, mode])
    if out is None:
        return res
    for o, v in zip(out, res, strict=True):
        o.resize_(v.shape).copy_(v)
    return _QR(*out)


public("qr", "A, mode='reduced', *, out=None", _qr, relevant=("A",), module="torch.linalg",
       ops=(linalg_qr,))  # fmt: skip
