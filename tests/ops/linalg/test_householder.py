"""numtorch/ops/linalg/householder.py: geqrf's compact QR reconstructs A, householder_product
and ormqr against the explicit Q, gradients by gradcheck, PyTorch's errors."""

from __future__ import annotations

import numpy as np
import pytest

import numtorch
from numtorch.autograd import gradcheck


def _a(*shape, seed=0):
    return numtorch.tensor(np.random.default_rng(seed).standard_normal(shape))


def test_geqrf_and_householder_product_reconstruct_a():
    A = _a(2, 5, 3)
    h, tau = numtorch.geqrf(A)
    Q = numtorch.linalg.householder_product(h, tau)
    np.testing.assert_allclose((Q.mT @ Q).numpy(), np.broadcast_to(np.eye(3), (2, 3, 3)), atol=1e-13)
    np.testing.assert_allclose((Q @ h[..., :3, :].triu()).numpy(), A.numpy(), atol=1e-13)
    assert numtorch.orgqr(h, tau).allclose(Q) and h.orgqr(tau).allclose(Q)


@pytest.mark.parametrize("left, transpose", [(True, False), (True, True), (False, False), (False, True)])
def test_ormqr_multiplies_by_the_full_q(left, transpose):
    h, tau = numtorch.geqrf(_a(4, 3))
    Qf = numtorch.ormqr(h, tau, numtorch.eye(4, dtype=numtorch.float64))
    Q = Qf.mT if transpose else Qf
    C = _a(4, 2, seed=1) if left else _a(2, 4, seed=1)
    want = Q @ C if left else C @ Q
    np.testing.assert_allclose(h.ormqr(tau, C, left, transpose).numpy(), want.numpy(), atol=1e-13)


def test_householder_product_gradients_and_errors():
    h, tau = numtorch.geqrf(_a(4, 3, seed=2))
    assert gradcheck(numtorch.linalg.householder_product, (h.requires_grad_(), tau.requires_grad_()))
    with pytest.raises(RuntimeError, match=r"input.shape\[-2\] must be greater than or equal to input.shape\[-1\]"):
        numtorch.linalg.householder_product(numtorch.ones(2, 3), numtorch.ones(2))
    with pytest.raises(RuntimeError, match="torch.geqrf: input must have at least 2 dimensions."):
        numtorch.geqrf(numtorch.ones(3))
