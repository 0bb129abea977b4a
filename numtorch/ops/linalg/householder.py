"""Householder QR in LAPACK's compact form: ``torch.geqrf`` (NumPy's ``qr(mode='raw')``, which is
geqrf), ``linalg.householder_product`` / ``torch.orgqr`` and ``torch.ormqr``. The products are
composites (one reflector ``I - tau v v^H`` per column), so their gradients come from matmul."""

from __future__ import annotations

import numpy as np

from ... import _dtype as D
from ... import return_types
from ..._dispatch import dispatch
from ..._tensor import _make
from .._registry import defop, public
from .solve import _floating

_GEQRF = return_types.register("geqrf", ("a", "tau"))


def _geqrf_cpu(self):
    if self.ndim < 2:
        raise RuntimeError("torch.geqrf: input must have at least 2 dimensions.")
    if self._dtype.category < D._FLOAT or self._dtype is D.float16:
        raise RuntimeError(f'"geqrf_cpu" not implemented for \'{self.dtype}\'')
    a = self._data
    m, n = a.shape[-2:]
    flat = a.reshape(-1, m, n)
    hs = np.empty(flat.shape, a.dtype)
    taus = np.empty((flat.shape[0], min(m, n)), a.dtype)
    for b in range(flat.shape[0]):  # one LAPACK call per matrix (NumPy's raw mode is not batched)
        h, tau = np.linalg.qr(flat[b], mode="raw")
        hs[b], taus[b] = h.T, tau
    batch = a.shape[:-2]
    return _make(hs.reshape(batch + (m, n)), self._dtype), _make(taus.reshape(batch + (min(m, n),)), self._dtype)


_GEQRF_OP = defop("geqrf(Tensor self) -> (Tensor a, Tensor tau)", cpu=_geqrf_cpu)


def _full_q(A, tau):
    """Q = H_1 ... H_k (m x m), H_i = I - tau_i v_i v_i^H with v_i = e_i + A[i+1:, i]."""
    m = A.shape[-2]
    eye = _make(np.eye(m, dtype=A._dtype.np), A._dtype)
    Q = eye.expand(*A.shape[:-2], m, m)
    below = A.tril(-1)
    for i in range(tau.shape[-1]):
        v = below[..., :, i] + eye[i]
        Qv = Q.matmul(v.unsqueeze(-1))
        Q = Q - (tau[..., i, None, None] * Qv).matmul(v.conj().unsqueeze(-2))
    return Q


def _householder_product(input, tau):
    name = "torch.linalg.householder_product"
    if input.ndim < 2:
        raise RuntimeError(f"{name}: input must have at least 2 dimensions.")
    if input.shape[-2] < input.shape[-1]:
        raise RuntimeError(f"{name}: input.shape[-2] must be greater than or equal to input.shape[-1]")
    if input.shape[-1] < tau.shape[-1]:
        raise RuntimeError(f"{name}: input.shape[-1] must be greater than or equal to tau.shape[-1]")
    _floating(input, name, kernel="orgqr_cpu")
    if input._dtype is not tau._dtype:
        raise RuntimeError(f"{name}: tau dtype {tau.dtype} does not match input dtype {input.dtype}")
    return _full_q(input, tau)[..., :, : input.shape[-1]]


_HP_OP = defop("linalg_householder_product(Tensor input, Tensor tau) -> Tensor", composite=_householder_product)


def _ormqr(input, input2, input3, left=True, transpose=False):
    if input._dtype is not input3._dtype or input._dtype is not input2._dtype:
        raise RuntimeError(f"torch.ormqr: Expected input and other to have the same dtype, but other has dtype "
                           f"{input3.dtype} and input has dtype {input.dtype}")  # fmt: skip
    Q = _full_q(input, input2)
    if transpose:
        Q = Q.mH
    return Q.matmul(input3) if left else input3.matmul(Q)


_ORMQR_OP = defop("ormqr(Tensor self, Tensor input2, Tensor input3, bool left=True, bool transpose=False) -> Tensor",
                  composite=_ormqr)  # fmt: skip


def _out(r, out):
    return r if out is None else out.resize_(r.shape).copy_(r)


def _geqrf(input, out):
    """QR in LAPACK's compact form: R on and above the diagonal, the Householder vectors below
    it, and their scales ``tau``, as ``torch.geqrf``.

    >>> numtorch.geqrf(numtorch.tensor([[3.0], [4.0]])).a[0]
    tensor([-5.])
    """
    res = dispatch(_GEQRF_OP, [input])
    if out is None:
        return _GEQRF(*res)
    for o, r in zip(out, res):
        o.resize_(r.shape).copy_(r)
    return _GEQRF(*out)


def _geqrf_method(self):
    return _geqrf(self, None)


def _hp(A, tau, out):
    """The first n columns of ``H_1 ... H_k`` from Householder vectors (``geqrf``'s output), as
    ``torch.linalg.householder_product``.

    >>> h, tau = numtorch.geqrf(numtorch.tensor([[3.0], [4.0]]))
    >>> numtorch.linalg.householder_product(h, tau)
    tensor([[-0.6000],
            [-0.8000]])
    """
    return _out(dispatch(_HP_OP, [A, tau]), out)


def _orgqr(input, tau, out):
    """``torch.orgqr``: ``linalg.householder_product``."""
    return _out(dispatch(_HP_OP, [input, tau]), out)


def _orgqr_method(self, input2):
    return dispatch(_HP_OP, [self, input2])


def _ormqr_fn(input, input2, input3, left, transpose, out):
    """``Q @ other`` (``other @ Q`` with ``left=False``; ``Q^H`` with ``transpose``) for the Q of
    ``geqrf``'s output, as ``torch.ormqr``.

    >>> h, tau = numtorch.geqrf(numtorch.eye(2))
    >>> numtorch.ormqr(h, tau, numtorch.eye(2)).abs()
    tensor([[1., 0.],
            [0., 1.]])
    """
    return _out(dispatch(_ORMQR_OP, [input, input2, input3, left, transpose]), out)


def _ormqr_method(self, input2, input3, left, transpose):
    return dispatch(_ORMQR_OP, [self, input2, input3, left, transpose])


public("geqrf", "input, *, out=None", _geqrf, ops=(_GEQRF_OP,))
public("geqrf", "self", _geqrf_method, relevant=("self",), module="Tensor", ops=(_GEQRF_OP,))
public("householder_product", "A, tau, *, out=None", _hp, relevant=("A", "tau"), module="torch.linalg", ops=(_HP_OP,))
public("orgqr", "input, tau, *, out=None", _orgqr, relevant=("input", "tau"), ops=(_HP_OP,))
public("orgqr", "self, input2", _orgqr_method, relevant=("self", "input2"), module="Tensor", ops=(_HP_OP,))
public("ormqr", "input, input2, input3, left=True, transpose=False, *, out=None", _ormqr_fn,
       relevant=("input", "input2", "input3"), ops=(_ORMQR_OP,))  # fmt: skip
public("ormqr", "self, input2, input3, left=True, transpose=False", _ormqr_method, relevant=("self", "input2", "input3"),
       module="Tensor", ops=(_ORMQR_OP,))  # fmt: skip
