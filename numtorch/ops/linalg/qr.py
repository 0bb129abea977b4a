"""numtorch.linalg.qr: LAPACK's Householder QR through NumPy, with PyTorch's checks and derivative."""

from __future__ import annotations

import numpy as np

from ... import return_types
from ..._dispatch import dispatch
from ..._tensor import Tensor, _make
from . import _np_lapack as _lapack
from .solve import _SOLVE, _floating
from .._registry import defop, public
from .core import _mH
from ..shape.join import cat

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
    else:
        q, r = _lapack.qr(a, mode == "complete")  # Note [np.linalg without its wrappers]
    if mode == "r":
        q = np.empty((0,), a.dtype)
    dt = A._dtype
    return _QR(_make(np.ascontiguousarray(q, dt.np), dt), _make(np.ascontiguousarray(r, dt.np), dt))


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
