"""Bunch-Kaufman LDL^T: ``linalg.ldl_factor_ex``, ``ldl_factor`` and ``ldl_solve`` (Numba kernels
in the layout of LAPACK's sytrf / sytrs, Note [Bunch-Kaufman as LAPACK's sytf2]). PyTorch defines
no derivative for either op; numtorch raises its error on backward."""

from __future__ import annotations

import numpy as np

from ... import _dtype as D
from ... import _factory_utils as F
from ... import return_types
from ..._dispatch import dispatch
from ..._tensor import _make
from ...kernels import lazy
from .._pointwise import broadcast_shapes
from .._registry import defop, public
from .lu import _pair_out

_K = lazy("numtorch.kernels.cpu.linalg")
_LDL = return_types.register("linalg_ldl_factor", ("LD", "pivots"))
_LDLX = return_types.register("linalg_ldl_factor_ex", ("LD", "pivots", "info"))
_LA = "torch.linalg"


def _check_square(A, fname: str) -> None:
    if A.ndim < 2:
        raise RuntimeError(f"torch.linalg.{fname}: The input tensor A must have at least 2 dimensions.")
    if A.shape[-1] != A.shape[-2]:
        raise RuntimeError(f"torch.linalg.{fname}: A must be batches of square matrices, but they are "
                           f"{A.shape[-2]} by {A.shape[-1]} matrices")  # fmt: skip
    if A._dtype.category < D._FLOAT:
        raise RuntimeError(f"torch.linalg.{fname}: Expected a floating point or complex tensor as input. "
                           f"Got {F.cname(A._dtype)}")  # fmt: skip


def _check_hermitian(A, hermitian: bool) -> None:
    # Hermitian complex input needs LAPACK's ?hetrf (conjugating swaps, real diagonal): not here yet
    if hermitian and A._dtype.category == D._COMPLEX:
        raise NotImplementedError("numtorch.linalg.ldl_factor/ldl_solve: hermitian=True for complex inputs "
                                  "is not implemented; use hermitian=False for complex symmetric matrices")  # fmt: skip


def _ldl_factor_ex_cpu(A, hermitian=False, check_errors=False):
    _check_square(A, "ldl_factor_ex")
    if A._dtype is D.float16:
        raise NotImplementedError("\"ldl_factor_kernel_cpu\" not implemented for 'Half'")
    _check_hermitian(A, hermitian)
    n, batch = A.shape[-1], tuple(A.shape[:-2])
    nb = int(np.prod(batch, dtype=np.int64))  # not reshape(-1, ...): ambiguous for empty matrices
    ld = np.array(A._data, dtype=A._dtype.np, order="C", copy=True).reshape(nb, n, n)
    piv = np.zeros((nb, n), np.int32)
    info = np.zeros(nb, np.int32)
    if ld.size:
        _K.ldl_factor_lower(ld, piv, info)
    ld = np.tril(ld)  # sytrf leaves the upper triangle as it was; PyTorch returns zeros there
    if check_errors and info.any():
        raise RuntimeError(f"torch.linalg.ldl_factor_ex: Unknown error code: {int(info[np.flatnonzero(info)[0]])}.")
    return (_make(ld.reshape(batch + (n, n)), A._dtype), _make(piv.reshape(batch + (n,)), D.int32),
            _make(info.reshape(batch), D.int32))  # fmt: skip


def _no_factor_derivative(grads):
    raise RuntimeError("derivative for aten::linalg_ldl_factor_ex is not implemented")


def _no_solve_derivative(grad):
    raise RuntimeError("derivative for aten::linalg_ldl_solve is not implemented")


_LDLX_OP = defop("linalg_ldl_factor_ex(Tensor self, *, bool hermitian=False, bool check_errors=False) -> "
                 "(Tensor LD, Tensor pivots, Tensor info)", cpu=_ldl_factor_ex_cpu,
                 backward={"self": _no_factor_derivative})  # fmt: skip


def _ldl_solve_cpu(LD, pivots, B, hermitian=False):
    _check_square(LD, "ldl_solve")
    if B.ndim < 2:
        raise IndexError(f"Dimension out of range (expected to be in range of [-{max(B.ndim, 1)}, "
                         f"{max(B.ndim, 1) - 1}], but got -2)")  # fmt: skip
    if tuple(pivots.shape) != tuple(LD.shape[:-1]):
        raise RuntimeError("torch.linalg.ldl_solve: Expected LD.shape[:-1] and pivots.shape to be the same, but got "
                           f"pivots with shape {list(pivots.shape)} instead")  # fmt: skip
    if pivots._dtype.category != D._INT:
        raise RuntimeError(f"torch.linalg.ldl_solve: Expected pivots to be integers. Got {F.cname(pivots._dtype)}")
    if B._dtype is not LD._dtype:
        raise RuntimeError(f"Expected b and A to have the same dtype, but found b of type {F.cname(B._dtype)} and A "
                           f"of type {F.cname(LD._dtype)} instead.")  # fmt: skip
    n = LD.shape[-1]
    if B.shape[-2] != n:
        raise RuntimeError(f"Incompatible matrix sizes for torch.linalg.ldl_solve: each A matrix is {n} by {n} but "
                           f"each b matrix is {B.shape[-2]} by {B.shape[-1]}")  # fmt: skip
    _check_hermitian(LD, hermitian)
    lb, bb = tuple(LD.shape[:-2]), tuple(B.shape[:-2])
    batch = tuple(broadcast_shapes(lb, bb))
    k = B.shape[-1]
    nl = int(np.prod(lb, dtype=np.int64))
    x = np.array(np.broadcast_to(B._data, batch + (n, k)), dtype=B._dtype.np, order="C")
    x = x.reshape(int(np.prod(batch, dtype=np.int64)), n, k)
    ia = np.broadcast_to(np.arange(nl).reshape(lb), batch).reshape(-1)
    if x.size:
        a = np.ascontiguousarray(LD._data).reshape(nl, n, n)
        p = np.ascontiguousarray(pivots._data, dtype=np.int64).reshape(nl, n)
        _K.ldl_solve_lower(a, np.ascontiguousarray(ia, np.int64), p, np.ascontiguousarray(ia, np.int64), x)
    return _make(x.reshape(batch + (n, k)), B._dtype)


_SOLVE_OP = defop("linalg_ldl_solve(Tensor LD, Tensor pivots, Tensor B, *, bool hermitian=False) -> Tensor",
                  cpu=_ldl_solve_cpu, backward={"LD": _no_solve_derivative, "B": _no_solve_derivative})  # fmt: skip


def _ldl_factor_ex(A, hermitian, check_errors, out):
    """Bunch-Kaufman ``A = P L D L^T P^T`` of symmetric ``A`` (lower triangle read) in LAPACK
    sytrf's compact form, with the 1-based index of a zero pivot in ``info``.

    >>> numtorch.linalg.ldl_factor_ex(numtorch.tensor([[4.0, 2.0], [2.0, 3.0]])).LD
    tensor([[4.0000, 0.0000],
            [0.5000, 2.0000]])
    """
    return _pair_out(dispatch(_LDLX_OP, [A, hermitian, check_errors]), out, _LDLX)


def _ldl_factor(A, hermitian, out):
    """``(LD, pivots)`` of ``ldl_factor_ex``, raising for a singular ``A`` as PyTorch does.

    >>> numtorch.linalg.ldl_factor(numtorch.tensor([[0.0, 1.0], [1.0, 0.0]])).pivots
    tensor([-2, -2], dtype=torch.int32)
    """
    LD, piv, info = dispatch(_LDLX_OP, [A, hermitian, False])
    if info.numel() and bool(info.any()):
        flat = info.reshape(-1)
        raise RuntimeError(f"torch.linalg.ldl_factor: Unknown error code: {int(flat[flat.nonzero()[0, 0]])}.")
    return _pair_out((LD, piv), out, _LDL)


def _ldl_solve(LD, pivots, B, hermitian, out):
    """Solve ``A X = B`` from ``ldl_factor``'s ``(LD, pivots)``; batch dimensions broadcast.

    >>> LD, piv = numtorch.linalg.ldl_factor(numtorch.tensor([[4.0, 2.0], [2.0, 3.0]]))
    >>> numtorch.linalg.ldl_solve(LD, piv, numtorch.tensor([[6.0], [5.0]])).flatten()
    tensor([1., 1.])
    """
    r = dispatch(_SOLVE_OP, [LD, pivots, B, hermitian])
    if out is None:
        return r
    return out.resize_(r.shape).copy_(r)


public("ldl_factor_ex", "A, *, hermitian=False, check_errors=False, out=None", _ldl_factor_ex, relevant=("A",),
       module=_LA, ops=(_LDLX_OP,))  # fmt: skip
public("ldl_factor", "A, *, hermitian=False, out=None", _ldl_factor, relevant=("A",), module=_LA, ops=(_LDLX_OP,))
public("ldl_solve", "LD, pivots, B, *, hermitian=False, out=None", _ldl_solve, relevant=("LD", "pivots", "B"),
       module=_LA, ops=(_SOLVE_OP,))  # fmt: skip
