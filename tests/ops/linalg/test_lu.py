"""numtorch/ops/linalg/lu.py: P L U reconstructs A (square, wide, tall, batched), pivots and info
as LAPACK's getrf, lu_solve against NumPy, gradients by gradcheck, PyTorch's errors."""

from __future__ import annotations

import numpy as np
import pytest

import numtorch
from numtorch.autograd import gradcheck, gradgradcheck

L = numtorch.linalg
F64 = numtorch.float64


def _t(a, grad=False):
    return numtorch.tensor(np.asarray(a), dtype=F64, requires_grad=grad)


def _rand(*shape, seed=0):
    return np.random.default_rng(seed).standard_normal(shape)


@pytest.mark.parametrize("shape", [(4, 4), (3, 5), (5, 3), (2, 3, 3)])
def test_plu_reconstructs_and_pivots_by_largest_entry(shape):
    a = _rand(*shape)
    P, Lf, U = L.lu(_t(a))
    np.testing.assert_allclose((P @ Lf @ U).numpy(), a, atol=1e-14)
    assert np.allclose(np.tril(U.numpy(), -1), 0) and np.allclose(np.diagonal(Lf.numpy(), 0, -2, -1), 1)
    assert np.abs(np.tril(Lf.numpy(), -1)).max() <= 1.0  # partial pivoting bounds the multipliers
    LU, piv = L.lu_factor(_t(a))
    assert piv.dtype is numtorch.int32 and piv.shape == shape[:-2] + (min(shape[-2:]),)
    P2, L2, U2 = numtorch.lu_unpack(LU, piv)
    np.testing.assert_allclose(P2.numpy(), P.numpy())


def test_lu_factor_ex_reports_zero_pivots_and_lu_factor_raises():
    LU, piv, info = L.lu_factor_ex(_t(np.stack([np.eye(2), np.zeros((2, 2))])))
    assert info.tolist() == [0, 1] and piv.tolist() == [[1, 2], [1, 2]]
    for fn in (L.lu_factor, lambda A: L.lu_factor_ex(A, check_errors=True)):
        with pytest.raises(RuntimeError, match=r"torch.linalg.lu_factor(_ex)?: U\[1,1\] is zero.*or linalg.lu_factor_ex\(A, pivot\)$") as e:
            fn(numtorch.zeros(2, 2))
        assert not isinstance(e.value, L.LinAlgError)  # torch 2.13's plain RuntimeError (fuzz seed 201)
    with pytest.raises(RuntimeError, match="LU without pivoting is not implemented on the CPU"):
        L.lu_factor(numtorch.eye(2), pivot=False)
    with pytest.raises(RuntimeError, match=r"Expected tensor with 2 or more dimensions. Got size: \[2\] instead"):
        L.lu_factor(numtorch.ones(2))
    with pytest.raises(NotImplementedError, match="\"lu_cpu\" not implemented for 'Long'"):
        L.lu_factor(numtorch.ones(2, 2, dtype=numtorch.int64))
    LU, piv, infos = numtorch.lu(numtorch.zeros(2, 2), get_infos=True)
    assert infos.item() == 1


@pytest.mark.parametrize("left, adjoint", [(True, False), (True, True), (False, False), (False, True)])
def test_lu_solve_all_four_equations(left, adjoint):
    a = _rand(2, 3, 3) + 2 * np.eye(3)
    b = _rand(2, 3, 2, seed=1) if left else _rand(2, 2, 3, seed=1)
    A = np.conj(np.swapaxes(a, -1, -2)) if adjoint else a
    want = np.linalg.solve(A, b) if left else np.swapaxes(np.linalg.solve(np.swapaxes(A, -1, -2), np.swapaxes(b, -1, -2)), -1, -2)
    LU, piv = L.lu_factor(_t(a))
    np.testing.assert_allclose(L.lu_solve(LU, piv, _t(b), left=left, adjoint=adjoint).numpy(), want, rtol=1e-10)
    if left and not adjoint:
        np.testing.assert_allclose(numtorch.lu_solve(_t(b), LU, piv).numpy(), want, rtol=1e-10)


@pytest.mark.parametrize("shape", [(3, 3), (2, 4), (4, 2)])
def test_lu_gradients(shape):
    a = _t(_rand(*shape, seed=3), True)
    assert gradcheck(lambda x: L.lu(x)[1:], (a,))
    assert gradcheck(lambda x: L.lu_factor(x).LU, (a,))


def test_lu_solve_gradients_and_second_order():
    a = _t(_rand(3, 3, seed=4) + 2 * np.eye(3), True)
    b = _t(_rand(3, 2, seed=5), True)
    assert gradcheck(lambda x, y: L.lu_solve(*L.lu_factor(x), y), (a, b))
    assert gradgradcheck(lambda x: L.lu(x).U, (a,))
