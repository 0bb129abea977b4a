"""``linalg.eig`` and ``linalg.eigvals`` of general square matrices: LAPACK's geev through NumPy
(complex results, unit-norm eigenvectors), with PyTorch's derivative (linalg_eig_backward)."""

from __future__ import annotations

import numpy as np

from ... import _dtype as D
from ... import _factory_utils as F
from ... import return_types
from ..._dispatch import dispatch
from ..._tensor import _make
from .._registry import OPS, body_of, defop, public
from .solve import _square

_EIG = return_types.register("linalg_eig", ("eigenvalues", "eigenvectors"))
_COMPLEX = {D.float32: D.complex64, D.float64: D.complex128, D.complex64: D.complex64, D.complex128: D.complex128}


def _eig_cpu(A):
    _square(A, "linalg.eig")
    ct = _COMPLEX.get(A._dtype)
    if A._dtype is D.float16:
        raise NotImplementedError("\"linalg_eig_out_cpu\" not implemented for 'Half'")
    if ct is None:
        raise RuntimeError(f"Unknown Complex ScalarType for {F.cname(A._dtype)}")
    a = A._data
    if a.size and not np.isfinite(a).all():
        raise RuntimeError("torch.linalg.eig: input tensor should not contain infs or NaNs.")
    n = a.shape[-1]
    if a.size:
        w, v = np.linalg.eig(a)
    else:
        w, v = np.zeros(a.shape[:-1], ct.np), np.zeros(a.shape, ct.np)
    return _make(np.ascontiguousarray(w, ct.np), ct), _make(np.ascontiguousarray(v.reshape(a.shape[:-2] + (n, n)), ct.np), ct)


def _diag_embed(d):
    return body_of("diag_embed")(d, 0, -2, -1)


def _eig_backward(grads, self, results):
    # gA = V^-H (diag(gL) + (V^H gV - V^H V diag(Re diag(V^H gV))) / E^*) V^H, E_ij = L_j - L_i
    # (off the diagonal; the diagonal is gL)
    gL, gV = grads
    L, V = results
    Vh = V.mH
    if gV is None:
        inner = _diag_embed(gL)
    else:
        VhgV = Vh.matmul(gV)
        n = L.shape[-1]
        Lc = L.conj()
        E = Lc.unsqueeze(-2) - Lc.unsqueeze(-1) + _make(np.eye(n, dtype=L._dtype.np), L._dtype)
        inner = (VhgV - Vh.matmul(V * VhgV.diagonal(0, -2, -1).real.unsqueeze(-2))) / E
        if gL is not None:
            inner = inner - _diag_embed(inner.diagonal(0, -2, -1)) + _diag_embed(gL)
    gA = dispatch(OPS["aten::linalg_solve"], [Vh, inner.matmul(Vh), True])
    return gA if self.is_complex() else gA.real


_EIG_OP = defop("linalg_eig(Tensor self) -> (Tensor eigenvalues, Tensor eigenvectors)", cpu=_eig_cpu,
                backward={"self": _eig_backward})  # fmt: skip


def _linalg_eig(A, out):
    """Eigenvalues and unit-norm eigenvectors of a square matrix (complex), as ``torch.linalg.eig``.

    >>> numtorch.linalg.eig(numtorch.tensor([[2.0, 0.0], [0.0, 3.0]])).eigenvalues
    tensor([2.+0.j, 3.+0.j])
    """
    res = dispatch(_EIG_OP, [A])
    if out is None:
        return _EIG(*res)
    for o, r in zip(out, res):
        o.resize_(r.shape).copy_(r)
    return _EIG(*out)


def _linalg_eigvals(A, out):
    """The eigenvalues of a square matrix (complex), as ``torch.linalg.eigvals``.

    >>> numtorch.linalg.eigvals(numtorch.tensor([[0.0, -1.0], [1.0, 0.0]]))
    tensor([0.+1.j, 0.-1.j])
    """
    r = dispatch(_EIG_OP, [A])[0]
    return r if out is None else out.resize_(r.shape).copy_(r)


public("eig", "A, *, out=None", _linalg_eig, relevant=("A",), module="torch.linalg", ops=(_EIG_OP,))
public("eigvals", "A, *, out=None", _linalg_eigvals, relevant=("A",), module="torch.linalg", ops=(_EIG_OP,))
