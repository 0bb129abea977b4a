"""numtorch/ops/linalg/derived.py: values against NumPy, gradients by gradcheck, the info of the
``*_ex`` variants and PyTorch's error texts."""

from __future__ import annotations

import math

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


def test_vecdot_conjugates_the_first_and_broadcasts():
    x, y = _rand(3, 4), _rand(4, seed=1)
    np.testing.assert_allclose(L.vecdot(_t(x), _t(y)).numpy(), x @ y)
    z = (_rand(2, 3) + 1j * _rand(2, 3, seed=2)).astype(np.complex128)
    w = (_rand(2, 3, seed=3) + 1j * _rand(2, 3, seed=4)).astype(np.complex128)
    np.testing.assert_allclose(L.vecdot(numtorch.tensor(z), numtorch.tensor(w), dim=0).numpy(), (z.conj() * w).sum(0))
    assert gradcheck(lambda a, b: L.vecdot(a, b), (_t(x, True), _t(y, True)))
    with pytest.raises(RuntimeError, match="linalg.vecdot: Expected x and y to have the same dtype, but found x of type Float "
                                           "and y of type Double instead"):  # fmt: skip
        L.vecdot(numtorch.ones(3), numtorch.ones(3, dtype=F64))


def test_diagonal_is_a_view_and_matmul_an_alias():
    A = _t(_rand(2, 3, 3))
    d = L.diagonal(A, offset=1)
    np.testing.assert_array_equal(d.numpy(), np.diagonal(A.numpy(), 1, -2, -1))
    assert d._base is A
    np.testing.assert_allclose(L.matmul(A, A).numpy(), A.numpy() @ A.numpy())


def test_vander_matches_numpy_keeps_integers_and_differentiates():
    np.testing.assert_array_equal(L.vander(numtorch.tensor([1, 2, 3]), N=4).numpy(), np.vander([1, 2, 3], 4, increasing=True))
    x = _rand(2, 3)
    np.testing.assert_allclose(L.vander(_t(x)).numpy(), np.stack([np.vander(r, increasing=True) for r in x]))
    assert gradcheck(lambda a: L.vander(a, N=4), (_t(x, True),))
    with pytest.raises(RuntimeError, match="N must be greater than 1."):
        L.vander(numtorch.tensor([1.0, 2.0]), N=1)


@pytest.mark.parametrize("p", [None, 2, -2, "fro", "nuc", 1, -1, math.inf, -math.inf])
def test_cond_matches_numpy(p):
    A = _rand(3, 4, 4)
    np.testing.assert_allclose(L.cond(_t(A), p).numpy(), np.linalg.cond(A, p), rtol=1e-10)
    assert gradcheck(lambda a: L.cond(a, p), (_t(A[0], True),))


def test_cond_errors_and_singular_input():
    assert L.cond(numtorch.zeros(2, 2), "fro").item() == math.inf
    with pytest.raises(RuntimeError, match=r"linalg.cond\(ord=1\): A must be batches of square matrices, but they are 2 by 3"):
        L.cond(numtorch.ones(2, 3), 1)


def test_matrix_rank_matches_numpy_with_tolerances():
    A = _rand(4, 3) @ _rand(3, 5, seed=1)  # rank 3
    assert L.matrix_rank(_t(A)).item() == np.linalg.matrix_rank(A) == 3
    assert L.matrix_rank(_t(A), atol=1e6).item() == 0
    assert L.matrix_rank(_t(A), tol=1e6).item() == 0
    S = A @ A.T
    assert L.matrix_rank(_t(S), hermitian=True).item() == 3
    assert L.matrix_rank(_t(np.stack([A, np.zeros_like(A)]))).tolist() == [3, 0]
    assert L.matrix_rank(_t(A)).dtype == numtorch.int64
    with pytest.raises(RuntimeError, match="The input tensor input must have at least 2 dimensions"):
        L.matrix_rank(numtorch.ones(3))


def test_tensorinv_and_tensorsolve_match_numpy():
    a = _rand(4, 6, 8, 3) + 4 * np.eye(24).reshape(4, 6, 8, 3)
    np.testing.assert_allclose(L.tensorinv(_t(a), ind=2).numpy(), np.linalg.tensorinv(a, ind=2), rtol=1e-10, atol=1e-12)
    b = _rand(4, 6, seed=3)
    np.testing.assert_allclose(L.tensorsolve(_t(a), _t(b)).numpy(), np.linalg.tensorsolve(a, b), rtol=1e-10, atol=1e-12)
    a2 = np.moveaxis(a, 3, 1)
    np.testing.assert_allclose(L.tensorsolve(_t(a2), _t(b), dims=(1,)).numpy(), np.linalg.tensorsolve(a2, b, axes=(1,)),
                               rtol=1e-10, atol=1e-12)  # fmt: skip
    small = _rand(2, 2, 4) + np.eye(4).reshape(2, 2, 4)
    assert gradcheck(lambda t: L.tensorinv(t, ind=2), (_t(small, True),))
    with pytest.raises(RuntimeError, match="Expected a strictly positive integer for 'ind', but got 0"):
        L.tensorinv(numtorch.ones(2, 3), ind=0)
    with pytest.raises(RuntimeError, match=r"prod\(self.shape\[ind:\]\) == prod\(self.shape\[:ind\]\), but got 3 != 2"):
        L.tensorinv(numtorch.ones(2, 3), ind=1)


@pytest.mark.parametrize("upper", [True, False])
@pytest.mark.parametrize("left", [True, False])
@pytest.mark.parametrize("unit", [True, False])
def test_solve_triangular_reads_one_triangle(upper, left, unit):
    A = _rand(2, 3, 3) + 3 * np.eye(3)
    B = _rand(2, 3, 2, seed=1) if left else _rand(2, 2, 3, seed=1)
    T = np.triu(A) if upper else np.tril(A)
    if unit:
        T = T - np.einsum("bii->bi", T)[..., None] * np.eye(3) + np.eye(3)
    want = np.linalg.solve(T, B) if left else np.swapaxes(np.linalg.solve(np.swapaxes(T, -1, -2), np.swapaxes(B, -1, -2)), -1, -2)
    got = L.solve_triangular(_t(A), _t(B), upper=upper, left=left, unitriangular=unit)
    np.testing.assert_allclose(got.numpy(), want, rtol=1e-10)
    a, b = _t(A, True), _t(B, True)
    assert gradcheck(lambda x, y: L.solve_triangular(x, y, upper=upper, left=left, unitriangular=unit), (a, b))
    g = numtorch.autograd.grad(L.solve_triangular(a, b, upper=upper, left=left, unitriangular=unit).sum(), a)[0].numpy()
    assert not (np.tril(g, -1) if upper else np.triu(g, 1)).any()


def test_solve_triangular_errors():
    with pytest.raises(RuntimeError, match=r"linalg.solve_triangular: Incompatible shapes of A and B for the equation AX = B \(2x2 and 3x2\)"):
        L.solve_triangular(numtorch.ones(2, 2), numtorch.ones(3, 2), upper=True)
    with pytest.raises(TypeError):
        L.solve_triangular(numtorch.ones(2, 2), numtorch.ones(2, 2))


def _expm_ref(a):
    # sum of the Taylor series after scaling by 2^-8, then 8 squarings
    a = a / 256.0
    r, term = np.eye(a.shape[-1]), np.eye(a.shape[-1])
    for k in range(1, 30):
        term = term @ a / k
        r = r + term
    for _ in range(8):
        r = r @ r
    return r


@pytest.mark.parametrize("scale", [0.1, 1.0, 30.0])
def test_matrix_exp_matches_the_taylor_series(scale):
    A = _rand(3, 4, 4) * scale
    want = np.stack([_expm_ref(a) for a in A])
    np.testing.assert_allclose(L.matrix_exp(_t(A)).numpy(), want, rtol=1e-9, atol=1e-12 * np.abs(want).max())
    np.testing.assert_allclose(numtorch.matrix_exp(_t(A)).numpy(), want, rtol=1e-9, atol=1e-12 * np.abs(want).max())


def test_matrix_exp_gradients_and_errors():
    A = _t(_rand(3, 3) * 0.5, True)
    assert gradcheck(L.matrix_exp, (A,))
    assert gradgradcheck(L.matrix_exp, (A,))
    rot = L.matrix_exp(_t([[0.0, math.pi], [-math.pi, 0.0]]))
    np.testing.assert_allclose(rot.numpy(), -np.eye(2), atol=1e-14)
    with pytest.raises(RuntimeError, match="linalg.matrix_exp: A must be batches of square matrices, but they are 2 by 3 matrices"):
        L.matrix_exp(numtorch.ones(2, 3))
    with pytest.raises(RuntimeError, match="linalg.matrix_exp: Expected a floating point or complex tensor as input. Got Long"):
        L.matrix_exp(numtorch.ones(2, 2, dtype=numtorch.int64))


def test_ex_variants_report_failures_in_info():
    A = _t(np.stack([np.eye(2) * 2, np.zeros((2, 2))]))
    inv, info = L.inv_ex(A)
    assert info.tolist() == [0, 1] and info.dtype == numtorch.int32
    np.testing.assert_allclose(inv[0].numpy(), np.eye(2) / 2)
    # getrf + getrs as LAPACK runs them, not a NaN placeholder: U = 0, so 1/0 = inf in the last
    # pivot's row and 0/0 = NaN above it (torch's values)
    np.testing.assert_array_equal(inv[1].numpy(), [[np.nan, np.nan], [np.nan, np.inf]])
    np.testing.assert_array_equal(L.inv_ex(_t([[0.0, 0.0], [0.0, 1.0]])).inverse.numpy(), [[np.inf, np.nan], [0.0, 1.0]])
    with pytest.raises(L.LinAlgError, match=r"linalg.inv_ex: \(Batch element 1\): The diagonal element 1 is zero"):
        L.inv_ex(A, check_errors=True)
    Lf, info = L.cholesky_ex(_t([[4.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, -1.0]]))
    assert info.item() == 3
    res, info = L.solve_ex(_t(np.eye(3)), _t([1.0, 2.0, 3.0]))
    assert info.item() == 0 and res.tolist() == [1.0, 2.0, 3.0]
    res, info = L.solve_ex(numtorch.zeros(2, 2), numtorch.ones(2))
    assert info.item() == 1 and res.shape == (2,)
    assert L.solve_ex(_t([[0.0, 0.0], [0.0, 1.0]]), _t([1.0, 2.0])).result.tolist() == [math.inf, 2.0]
    x = _t(_rand(3, 3) + 3 * np.eye(3), True)
    assert gradcheck(lambda a: L.inv_ex(a).inverse, (x,))
    out = (numtorch.empty(0, dtype=F64), numtorch.empty(0, dtype=numtorch.int32))
    r = L.inv_ex(_t(np.eye(2)), out=out)
    assert r.inverse is out[0] and r.info is out[1] and out[0].shape == (2, 2)


def test_solve_triangular_substitutes_so_special_values_stay_local():
    # Note [Substitution, not LU, for triangular systems]: PyTorch's (MKL trsm's) values
    inf = math.inf
    T = _t([[1.0, 0.0], [inf, 1.0]])
    assert L.solve_triangular(T, _t([[1.0], [1.0]]), upper=False).tolist() == [[1.0], [-inf]]
    assert L.solve_triangular(T, _t([[1.0], [1.0]]), upper=True).tolist() == [[1.0], [1.0]]
    assert L.solve_triangular(T, _t([[0.0, 1.0], [1.0, 1.0]]), upper=False, left=False).tolist() == [[-inf, 1.0], [-inf, 1.0]]
    x = L.solve_triangular(_t([[2.0, 0, 0], [1, inf, 0], [1, 2, 3]]), _t([[1.0], [1.0], [1.0]]), upper=False)
    np.testing.assert_allclose(x.numpy(), [[0.5], [0.0], [1 / 6]])
    z = L.solve_triangular(numtorch.zeros(2, 2), numtorch.ones(2, 2), upper=True)
    assert z[0].isnan().all() and z[1].isinf().all()


def test_solve_triangular_broadcasts_batches_and_second_derivatives():
    A = _rand(3, 1, 3, 3) + 3 * np.eye(3)
    B = _rand(2, 3, 2, seed=1)
    got = L.solve_triangular(_t(A), _t(B), upper=True)
    assert got.shape == (3, 2, 3, 2)
    np.testing.assert_allclose(got.numpy(), np.linalg.solve(np.triu(A), B), rtol=1e-10)
    a, b = _t(A[0, 0], True), _t(B[0], True)
    assert gradgradcheck(lambda x, y: L.solve_triangular(x, y, upper=False, left=False), (a, b.mT))
    c = (_rand(3, 3) + 1j * _rand(3, 3, seed=5) + 3 * np.eye(3)).astype(np.complex128)
    d = (_rand(3, 2, seed=6) + 1j * _rand(3, 2, seed=7)).astype(np.complex128)
    np.testing.assert_allclose(L.solve_triangular(numtorch.tensor(c), numtorch.tensor(d), upper=False).numpy(),
                               np.linalg.solve(np.tril(c), d), rtol=1e-10)  # fmt: skip
    with pytest.raises(NotImplementedError, match="^\"triangular_solve_cpu\" not implemented for 'Long'$"):  # PyTorch 2.13
        L.solve_triangular(numtorch.ones(2, 2, dtype=numtorch.int64), numtorch.ones(2, 2, dtype=numtorch.int64), upper=True)


def test_cholesky_ex_returns_lapacks_partial_factor():
    # PyTorch's values: columns before the failing one factored, the failed pivot on the
    # diagonal, later columns the input's lower triangle
    A = _t([[4.0, 2, 1, 0, 1], [2, 5, 0, 1, 0], [1, 0, 0.2, 0, 0], [0, 1, 0, 3, 0], [1, 0, 0, 0, 9]])
    Lf, info = L.cholesky_ex(A)
    want = [[2, 0, 0, 0, 0], [1, 2, 0, 0, 0], [0.5, -0.25, -0.1125, 0, 0], [0, 0.5, 0, 3, 0], [0.5, -0.25, 0, 0, 9]]
    np.testing.assert_allclose(Lf.numpy(), want, atol=1e-15)
    assert info.item() == 3
    U, info = L.cholesky_ex(_t([[4.0, 2, 1], [2, -1, 0], [1, 0, 3]]), upper=True)
    np.testing.assert_allclose(U.numpy(), [[2, 1, 0.5], [0, -2, 0], [0, 0, 3]])
    Lb, info = L.cholesky_ex(_t(np.stack([np.eye(2), [[-1.0, 5.0], [5.0, 2.0]]])))
    assert info.tolist() == [0, 1] and Lb[1].tolist() == [[-1.0, 0.0], [5.0, 2.0]]
