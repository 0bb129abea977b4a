"""LU with partial pivoting: ``linalg.lu_factor_ex`` (a Numba getf2 kernel, PyTorch's derivative),
``lu_factor``, ``lu``, ``lu_solve``, ``torch.lu_unpack`` and the legacy ``torch.lu`` /
``torch.lu_solve``. Everything but the factorisation is a composite over ``lu_unpack``,
``solve_triangular`` and products, so its gradients come from those ops."""

from __future__ import annotations

import math

import numpy as np

from ... import _dtype as D
from ... import _factory_utils as F
from ... import return_types
from ..._dispatch import dispatch
from ..._tensor import _make
from ...kernels import lazy
from .._registry import OPS, body_of, defop, public

_K = lazy("numtorch.kernels.cpu.linalg")
_LUF = return_types.register("linalg_lu_factor", ("LU", "pivots"))
_LUFX = return_types.register("linalg_lu_factor_ex", ("LU", "pivots", "info"))
_LU = return_types.register("linalg_lu", ("P", "L", "U"))
_LUUNPACK = return_types.register("lu_unpack", ("P", "L", "U"))
_LUINFO = return_types.register("_lu_with_info", ("LU", "pivots", "info"))


def _stri(A, B, upper, left=True, unit=False):
    return dispatch(OPS["aten::linalg_solve_triangular"], [A, B, upper, left, unit])


def _check(A, name):
    if A.ndim < 2:
        raise RuntimeError(f"torch.lu_factor: Expected tensor with 2 or more dimensions. Got size: {list(A.shape)} instead")
    # the kernel's dtype dispatch: an empty input returns before it (any dtype factors)
    if A._data.size and (A._dtype.category < D._FLOAT or A._dtype is D.float16):
        raise NotImplementedError(f'"lu_cpu" not implemented for \'{F.cname(A._dtype)}\'')


def _lu_factor_ex_cpu(A, pivot=True, check_errors=False):
    _check(A, "linalg.lu_factor_ex")
    if not pivot:
        raise RuntimeError("linalg.lu_factor: LU without pivoting is not implemented on the CPU")
    m, n = A.shape[-2:]
    batch = tuple(A.shape[:-2])
    lu = np.array(A._data, dtype=A._dtype.np, order="C", copy=True).reshape(math.prod(batch), m, n)  # -1: 0x0
    piv = np.zeros((lu.shape[0], min(m, n)), np.int32)
    info = np.zeros(lu.shape[0], np.int32)
    if lu.size:
        _K.lu_partial_pivot(lu, piv, info, lu.dtype.kind == "c")
    if check_errors and info.any():
        b = int(np.flatnonzero(info)[0])
        where = f"(Batch element {b}): " if batch else ""
        raise RuntimeError(f"torch.linalg.lu_factor_ex: {where}U[{info[b]},{info[b]}] is zero and using it on lu_solve "
                           "would result in a division by zero. If you still want to perform the factorization, "
                           "consider calling linalg.lu(A, pivot) or linalg.lu_factor_ex(A, pivot)")  # fmt: skip
    return (_make(lu.reshape(batch + (m, n)), A._dtype), _make(piv.reshape(batch + (min(m, n),)), D.int32),
            _make(info.reshape(batch), D.int32))  # fmt: skip


def _lu_backward(gL, gU, P, L, U, m, n):
    """PyTorch's linalg_lu_backward: Note [Square, wide and tall LU derivatives] in its
    FunctionsManual.cpp (the three cases differ in which factor has the extra rows/columns)."""
    k = min(m, n)
    if m == n:
        g = L.mH.matmul(gL).tril(-1) + gU.matmul(U.mH).triu()
        g = _stri(U.mH, g, False, left=False)
        g = _stri(L.mH, g, True, left=True, unit=True)
    elif m < n:
        U1, gU1, gU2 = U[..., :, :k], gU[..., :, :k], gU[..., :, k:]
        g = L.mH.matmul(gL) - gU.triu().matmul(U.mH)
        g = _stri(U1.mH, g.tril(-1), False, left=False)
        g = _cat([g + gU1.triu(), gU2], -1)
        g = _stri(L.mH, g, True, left=True, unit=True)
    else:
        L1, gL1, gL2 = L[..., :k, :], gL[..., :k, :], gL[..., k:, :]
        g = gU.matmul(U.mH) - L.mH.matmul(gL.tril(-1))
        g = _stri(L1.mH, g.triu(), True, left=True, unit=True)
        g = _cat([g + gL1.tril(-1), gL2], -2)
        g = _stri(U.mH, g, False, left=False)
    return P.matmul(g)


def _lu_factor_ex_backward(grads, A, results):
    gLU = grads[0]
    if gLU is None:
        return None
    LU, piv = results[0], results[1]
    m, n = A.shape[-2:]
    P, L, U = _unpack(LU, piv, True, True)
    return _lu_backward(gLU.tril(-1)[..., :, : min(m, n)], gLU.triu()[..., : min(m, n), :], P, L, U, m, n)


_LUFX_OP = defop("linalg_lu_factor_ex(Tensor A, *, bool pivot=True, bool check_errors=False) -> "
                 "(Tensor LU, Tensor pivots, Tensor info)", cpu=_lu_factor_ex_cpu,
                 backward={"A": _lu_factor_ex_backward})  # fmt: skip


def _eye(m, k, dt):
    return _make(np.eye(m, k, dtype=dt.np), dt)


def _cat(ts, dim):
    return body_of("cat")(ts, dim, None)


def _perm_matrix(piv, m, dtype):
    """P with A = P L U: the row interchanges of ``piv`` (1-based) applied to the identity."""
    p = piv._data.astype(np.int64) - 1
    batch = p.shape[:-1]
    flat = p.reshape(math.prod(batch), p.shape[-1])  # -1 fails for no pivots
    perms = np.tile(np.arange(m), (flat.shape[0], 1))
    rows = np.arange(flat.shape[0])
    for j in range(flat.shape[1]):  # the interchanges in order, each one for the whole batch
        q = flat[:, j]
        held = perms[rows, j].copy()
        perms[rows, j] = perms[rows, q]
        perms[rows, q] = held
    eye = np.zeros((flat.shape[0], m, m), dtype.np)
    eye[np.arange(flat.shape[0])[:, None], perms, np.arange(m)[None, :]] = 1
    return _make(eye.reshape(batch + (m, m)), dtype)


def _unpack(LU, pivots, unpack_data=True, unpack_pivots=True):
    m, n = LU.shape[-2:]
    k = min(m, n)
    if unpack_data:
        L = LU[..., :, :k].tril(-1) + _eye(m, k, LU._dtype)
        U = LU[..., :k, :].triu()
    else:
        L = U = _make(np.empty(0, LU._dtype.np), LU._dtype)
    P = _perm_matrix(pivots, m, LU._dtype) if unpack_pivots else _make(np.empty(0, LU._dtype.np), LU._dtype)
    return P, L, U


def _lu_unpack_composite(LU_data, LU_pivots, unpack_data=True, unpack_pivots=True):
    if LU_pivots._dtype is not D.int32:
        raise RuntimeError("torch.lu_unpack: LU_pivots is expected to be a contiguous tensor of torch.int32 dtype.\n"
                           "Note: this function is intended to be used with the output produced by torch.linalg.lu_factor")  # fmt: skip
    if LU_data.ndim < 2:
        raise RuntimeError(f"torch.lu_unpack: Expected tensor with 2 or more dimensions. Got size: {list(LU_data.shape)} instead")
    return _unpack(LU_data, LU_pivots, unpack_data, unpack_pivots)


_UNPACK_OP = defop("lu_unpack(Tensor LU_data, Tensor LU_pivots, bool unpack_data=True, bool unpack_pivots=True) -> "
                   "(Tensor P, Tensor L, Tensor U)", composite=_lu_unpack_composite)  # fmt: skip


def _lu_solve_composite(LU, pivots, B, left=True, adjoint=False):
    if LU.ndim < 2 or LU.shape[-1] != LU.shape[-2]:
        raise RuntimeError(f"linalg.lu_solve: A must be batches of square matrices, but they are "
                           f"{LU.shape[-2]} by {LU.shape[-1]} matrices")  # fmt: skip
    n = LU.shape[-1]
    if (B.shape[-2] if left else B.shape[-1]) != n:
        eq = "AX = B" if left else "XA = B"
        raise RuntimeError(f"linalg.lu_solve: Incompatible shapes of A and B for the equation {eq} "
                           f"({n}x{n} and {B.shape[-2]}x{B.shape[-1]})")  # fmt: skip
    P, L, U = _unpack(LU, pivots)
    if left and not adjoint:  # A X = B with A = P L U
        return _stri(U, _stri(L, P.mT.matmul(B), False, unit=True), True)
    if left:  # A^H X = B: U^H L^H P^T X = B
        return P.matmul(_stri(L.mH, _stri(U.mH, B, False), True, unit=True))
    if not adjoint:  # X P L U = B
        return _stri(L, _stri(U, B, True, left=False), False, left=False, unit=True).matmul(P.mT)
    # X A^H = B: X U^H L^H P^T = B
    return _stri(U.mH, _stri(L.mH, B.matmul(P), True, left=False, unit=True), False, left=False)


_SOLVE_OP = defop("linalg_lu_solve(Tensor LU, Tensor pivots, Tensor B, *, bool left=True, bool adjoint=False) -> Tensor",
                  composite=_lu_solve_composite)  # fmt: skip


def _pair_out(res, out, kind):
    if out is None:
        return kind(*res)
    for o, r in zip(out, res):
        o.resize_(r.shape).copy_(r)
    return kind(*out)


def _lu_factor_ex(A, pivot, check_errors, out):
    """LU factorisation with partial pivoting, reporting an exactly-zero pivot in ``info``
    (1-based; 0 when none) instead of raising, as ``torch.linalg.lu_factor_ex``.

    >>> numtorch.linalg.lu_factor_ex(numtorch.tensor([[0.0, 1.0], [2.0, 3.0]])).pivots
    tensor([2, 2], dtype=torch.int32)
    """
    return _pair_out(dispatch(_LUFX_OP, [A, pivot, check_errors]), out, _LUFX)


def _lu_factor(A, pivot, out):
    """The compact LU factorisation ``(LU, pivots)`` of ``A = P L U``, as ``torch.linalg.lu_factor``.

    >>> numtorch.linalg.lu_factor(numtorch.tensor([[0.0, 1.0], [2.0, 3.0]])).LU
    tensor([[2., 3.],
            [0., 1.]])
    """
    LU, piv, info = dispatch(_LUFX_OP, [A, pivot, False])
    if info.numel() and bool(info.any()):
        flat = info.reshape(-1)
        b = int(flat.nonzero()[0, 0])
        where = f"(Batch element {b}): " if info.ndim else ""
        i = int(flat[b])
        # a plain RuntimeError in torch 2.13, not its LinAlgError (seed 201)
        raise RuntimeError(f"torch.linalg.lu_factor: {where}U[{i},{i}] is zero and using it on lu_solve would result in a "
                           "division by zero. If you still want to perform the factorization, consider calling "
                           "linalg.lu(A, pivot) or linalg.lu_factor_ex(A, pivot)")  # fmt: skip
    return _pair_out((LU, piv), out, _LUF)


def _lu(A, pivot, out):
    """``A = P L U`` with unit-lower ``L`` and upper ``U``, as ``torch.linalg.lu``.

    >>> P, L, U = numtorch.linalg.lu(numtorch.tensor([[0.0, 1.0], [2.0, 3.0]]))
    >>> P
    tensor([[0., 1.],
            [1., 0.]])
    """
    LU, piv, _ = dispatch(_LUFX_OP, [A, pivot, False])
    return _pair_out(dispatch(_UNPACK_OP, [LU, piv, True, True]), out, _LU)


def _lu_solve(LU, pivots, B, left, adjoint, out):
    """The solution of ``A X = B`` (``X A = B`` with ``left=False``; ``A^H`` with ``adjoint``)
    from ``lu_factor``'s output, as ``torch.linalg.lu_solve``.

    >>> LU, piv = numtorch.linalg.lu_factor(numtorch.tensor([[2.0, 0.0], [0.0, 4.0]]))
    >>> numtorch.linalg.lu_solve(LU, piv, numtorch.tensor([[2.0], [2.0]]))
    tensor([[1.0000],
            [0.5000]])
    """
    r = dispatch(_SOLVE_OP, [LU, pivots, B, left, adjoint])
    return r if out is None else out.resize_(r.shape).copy_(r)


def _lu_unpack(LU_data, LU_pivots, unpack_data, unpack_pivots, out):
    """``(P, L, U)`` from ``lu_factor``'s compact output, as ``torch.lu_unpack``.

    >>> numtorch.lu_unpack(*numtorch.linalg.lu_factor(numtorch.eye(2))).L
    tensor([[1., 0.],
            [0., 1.]])
    """
    return _pair_out(dispatch(_UNPACK_OP, [LU_data, LU_pivots, unpack_data, unpack_pivots]), out, _LUUNPACK)


def _torch_lu(A, pivot, get_infos, out):
    """Legacy ``torch.lu``: ``(LU, pivots)``, plus ``infos`` with ``get_infos=True``.

    >>> numtorch.lu(numtorch.eye(2))[1]
    tensor([1, 2], dtype=torch.int32)
    """
    res = dispatch(_LUFX_OP, [A, pivot, not get_infos])
    if get_infos:
        return _pair_out(res, out, _LUINFO)
    return _pair_out(res[:2], out, tuple) if out is not None else (res[0], res[1])


def _torch_lu_method(self, pivot, get_infos):
    return _torch_lu(self, pivot, get_infos, None)


def _torch_lu_solve(input, LU_data, LU_pivots, out):
    """Legacy ``torch.lu_solve(b, LU_data, LU_pivots)``: ``linalg.lu_solve(LU_data, LU_pivots, b)``.

    >>> LU, piv = numtorch.linalg.lu_factor(numtorch.eye(2) * 2)
    >>> numtorch.lu_solve(numtorch.ones(2, 1), LU, piv).flatten()
    tensor([0.5000, 0.5000])
    """
    return _lu_solve(LU_data, LU_pivots, input, True, False, out)


def _torch_lu_solve_method(self, LU_data, LU_pivots):
    return _lu_solve(LU_data, LU_pivots, self, True, False, None)


_LA = "torch.linalg"
public("lu_factor_ex", "A, *, pivot=True, check_errors=False, out=None", _lu_factor_ex, relevant=("A",), module=_LA, ops=(_LUFX_OP,))
public("lu_factor", "A, *, pivot=True, out=None", _lu_factor, relevant=("A",), module=_LA, ops=(_LUFX_OP,))
public("lu", "A, *, pivot=True, out=None", _lu, relevant=("A",), module=_LA, ops=(_LUFX_OP, _UNPACK_OP))
public("lu_solve", "LU, pivots, B, *, left=True, adjoint=False, out=None", _lu_solve, relevant=("LU", "pivots", "B"),
       module=_LA, ops=(_SOLVE_OP,))  # fmt: skip
public("lu_unpack", "LU_data, LU_pivots, unpack_data=True, unpack_pivots=True, *, out=None", _lu_unpack,
       relevant=("LU_data", "LU_pivots"), ops=(_UNPACK_OP,))  # fmt: skip
public("lu", "A, pivot=True, get_infos=False, out=None", _torch_lu, relevant=("A",), ops=(_LUFX_OP,))
public("lu", "self, pivot=True, get_infos=False", _torch_lu_method, relevant=("self",), module="Tensor", ops=(_LUFX_OP,))
public("lu_solve", "input, LU_data, LU_pivots, *, out=None", _torch_lu_solve, relevant=("input", "LU_data", "LU_pivots"),
       ops=(_SOLVE_OP,))  # fmt: skip
public("lu_solve", "self, LU_data, LU_pivots", _torch_lu_solve_method, relevant=("self", "LU_data", "LU_pivots"),
       module="Tensor", ops=(_SOLVE_OP,))  # fmt: skip
