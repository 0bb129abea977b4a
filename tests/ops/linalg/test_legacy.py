"""numtorch/ops/linalg/legacy.py: addr, chain_matmul, cholesky_solve, cholesky_inverse, pdist and
nuclear_norm against NumPy, with gradcheck and PyTorch's error texts."""

from __future__ import annotations

import numpy as np
import pytest

import numtorch
from numtorch.autograd import gradcheck

F64 = numtorch.float64


def _t(a, grad=False):
    return numtorch.tensor(np.asarray(a, np.float64), requires_grad=grad)


def _rand(*shape, seed=0):
    return np.random.default_rng(seed).standard_normal(shape)


def test_addr():
    m, a, b = _rand(3, 4), _rand(3, seed=1), _rand(4, seed=2)
    np.testing.assert_allclose(numtorch.addr(_t(m), _t(a), _t(b), beta=0.5, alpha=2).numpy(), 0.5 * m + 2 * np.outer(a, b))
    nan = _t(np.full((3, 4), np.nan))
    np.testing.assert_allclose(numtorch.addr(nan, _t(a), _t(b), beta=0).numpy(), np.outer(a, b))
    x = _t(m)
    assert x.addr_(_t(a), _t(b)) is x
    np.testing.assert_allclose(x.numpy(), m + np.outer(a, b))
    assert gradcheck(lambda p, q, r: numtorch.addr(p, q, r, beta=2.0, alpha=0.5), (_t(m, True), _t(a, True), _t(b, True)))
    with pytest.raises(RuntimeError, match="addr: Expected 1-D argument vec1, but got 2-D"):
        numtorch.addr(_t(m), _t(m), _t(b))


def test_chain_matmul():
    ms = [_rand(2, 3), _rand(3, 5, seed=1), _rand(5, 2, seed=2)]
    np.testing.assert_allclose(numtorch.chain_matmul(*[_t(m) for m in ms]).numpy(), ms[0] @ ms[1] @ ms[2])
    one = _t(ms[0])
    assert numtorch.chain_matmul(one).data_ptr() != one.data_ptr()
    with pytest.raises(RuntimeError, match="Tensor dimension is 1, expected 2 instead."):
        numtorch.chain_matmul(_t([1.0]), _t(ms[0]))


@pytest.mark.parametrize("upper", [False, True])
def test_cholesky_solve_and_inverse(upper):
    a = _rand(3, 3)
    A = a @ a.T + 3 * np.eye(3)
    low = np.linalg.cholesky(A)
    fac = low.T if upper else low
    B = _rand(3, 2, seed=1)
    np.testing.assert_allclose(numtorch.cholesky_solve(_t(B), _t(fac), upper).numpy(), np.linalg.solve(A, B), rtol=1e-10)
    np.testing.assert_allclose(numtorch.cholesky_inverse(_t(fac), upper).numpy(), np.linalg.inv(A), rtol=1e-10)
    # PyTorch's derivative takes the factor as a full matrix (A = L L^H), so it is checked on
    # the triangle the forward reads; tests/parity compares the full gradient with torch's
    f = _t(fac, True)

    def tri(c):
        return c.triu() if upper else c.tril()

    assert gradcheck(lambda b, c: numtorch.cholesky_solve(b, tri(c), upper), (_t(B, True), f))
    assert gradcheck(lambda c: numtorch.cholesky_inverse(tri(c), upper), (f,))


def test_pdist_and_nuclear_norm():
    x = _rand(5, 3)
    want = [np.linalg.norm(x[i] - x[j]) for i in range(5) for j in range(i + 1, 5)]
    np.testing.assert_allclose(numtorch.pdist(_t(x)).numpy(), want)
    want1 = [np.abs(x[i] - x[j]).sum() for i in range(5) for j in range(i + 1, 5)]
    np.testing.assert_allclose(numtorch.nn.functional.pdist(_t(x), p=1).numpy(), want1)
    assert gradcheck(numtorch.pdist, (_t(x, True),))
    with pytest.raises(RuntimeError, match="pdist only supports 2D tensors, got: 1D"):
        numtorch.pdist(_t([1.0, 2.0]))
    m = _rand(2, 3, 4)
    np.testing.assert_allclose(numtorch.nuclear_norm(_t(m[0])).numpy(), np.linalg.norm(m[0], "nuc"))
    np.testing.assert_allclose(numtorch.nuclear_norm(_t(m), dim=(1, 2)).numpy(), [np.linalg.norm(k, "nuc") for k in m])
