"""numtorch/ops/linalg/lu.py and the triangular fixes against torch.linalg: the same pivots,
factors, solutions, gradients and texts."""

from __future__ import annotations

import numpy as np
import pytest

import numtorch

torch = pytest.importorskip("torch")


def _pair(a):
    return numtorch.tensor(a), torch.tensor(a)


@pytest.mark.parametrize("shape", [(4, 4), (3, 5), (5, 3), (2, 3, 3)])
def test_lu_factor_and_unpack_match_torch(shape):
    n, t = _pair(np.random.default_rng(1).standard_normal(shape))
    (nlu, npiv), (tlu, tpiv) = numtorch.linalg.lu_factor(n), torch.linalg.lu_factor(t)
    np.testing.assert_allclose(nlu.numpy(), tlu.numpy(), rtol=1e-12, atol=1e-14)
    assert npiv.tolist() == tpiv.tolist()
    for x, y in zip(numtorch.lu_unpack(nlu, npiv), torch.lu_unpack(tlu, tpiv)):
        np.testing.assert_allclose(x.numpy(), y.numpy(), rtol=1e-12, atol=1e-14)


@pytest.mark.parametrize("left, adjoint", [(True, False), (True, True), (False, False), (False, True)])
def test_lu_solve_and_gradients_match_torch(left, adjoint):
    rng = np.random.default_rng(2)
    a = rng.standard_normal((3, 3)) + 2 * np.eye(3)
    b = rng.standard_normal((3, 2) if left else (2, 3))
    outs = []
    for lib in (numtorch, torch):
        A = lib.tensor(a, requires_grad=True)
        B = lib.tensor(b, requires_grad=True)
        X = lib.linalg.lu_solve(*lib.linalg.lu_factor(A), B, left=left, adjoint=adjoint)
        P, L, U = lib.linalg.lu(A)
        g = lib.autograd.grad((X.sum() + (L * U).sum()), (A, B))
        outs.append([X.detach().numpy(), g[0].numpy(), g[1].numpy()])
    for x, y in zip(*outs):
        np.testing.assert_allclose(x, y, rtol=1e-10, atol=1e-12)


def test_lu_errors_match_torch():
    for call in (lambda m: m.linalg.lu_factor(m.zeros(2, 2)), lambda m: m.linalg.lu_factor(m.eye(2), pivot=False),
                 lambda m: m.linalg.lu_factor(m.ones(2))):  # fmt: skip
        with pytest.raises(Exception) as te:
            call(torch)
        with pytest.raises(type(te.value).__mro__[0] if type(te.value) is not torch.linalg.LinAlgError else
                           numtorch.linalg.LinAlgError) as ne:  # fmt: skip
            call(numtorch)
        assert str(ne.value) == str(te.value)


def test_triangular_special_values_and_partial_cholesky_match_torch():
    inf = float("inf")
    for a, b, kw in (([[1.0, 0], [inf, 1]], [[0.0], [1]], {"upper": False}),
                     ([[1.0, 0], [inf, 1]], [[0.0, 1], [1, 1]], {"upper": False, "left": False}),
                     ([[0.0, 0], [0, 0]], [[1.0, 1], [1, 1]], {"upper": True}),
                     ([[2.0, 0, 0], [1, inf, 0], [1, 2, 3]], [[1.0], [1], [1]], {"upper": False})):  # fmt: skip
        n = numtorch.linalg.solve_triangular(numtorch.tensor(a), numtorch.tensor(b), **kw)
        t = torch.linalg.solve_triangular(torch.tensor(a), torch.tensor(b), **kw)
        np.testing.assert_array_equal(n.numpy(), t.numpy())
    a = np.array([[4.0, 2, 1, 0, 1], [2, 5, 0, 1, 0], [1, 0, 0.2, 0, 0], [0, 1, 0, 3, 0], [1, 0, 0, 0, 9]])
    for upper in (False, True):
        n, t = numtorch.linalg.cholesky_ex(numtorch.tensor(a), upper=upper), torch.linalg.cholesky_ex(torch.tensor(a), upper=upper)
        np.testing.assert_allclose(n.L.numpy(), t.L.numpy(), rtol=1e-14)
        assert n.info.item() == t.info.item()


def test_eig_values_and_gradients_match_torch():
    a = np.random.default_rng(5).standard_normal((4, 4))
    outs = []
    for lib in (numtorch, torch):
        A = lib.tensor(a, requires_grad=True)
        w, v = lib.linalg.eig(A)
        g = lib.autograd.grad(w.real.sum() + (v.abs() ** 2 * lib.arange(4.0, dtype=lib.float64)).sum(), A)[0]
        outs.append([w.detach().numpy(), np.abs(v.detach().numpy()), g.numpy()])
    for x, y in zip(*outs):
        np.testing.assert_allclose(x, y, rtol=1e-9, atol=1e-12)


def test_geqrf_householder_and_ormqr_match_torch():
    a = np.random.default_rng(6).standard_normal((5, 3))
    c = np.random.default_rng(7).standard_normal((5, 2))
    outs = []
    for lib in (numtorch, torch):
        h, tau = lib.geqrf(lib.tensor(a))
        outs.append([h.numpy(), tau.numpy(), lib.linalg.householder_product(h, tau).numpy(),
                     lib.ormqr(h, tau, lib.tensor(c), True, True).numpy()])  # fmt: skip
    for x, y in zip(*outs):
        np.testing.assert_allclose(x, y, rtol=1e-12, atol=1e-13)
