"""numtorch/ops/linalg/eig.py: A V = V diag(L) with unit-norm V, complex results, gradients of
gauge-invariant functions by gradcheck, PyTorch's errors."""

from __future__ import annotations

import numpy as np
import pytest

import numtorch
from numtorch.autograd import gradcheck

L = numtorch.linalg


def _a(seed=0, n=3):
    return np.random.default_rng(seed).standard_normal((n, n))


def test_eigenpairs_satisfy_the_definition():
    a = np.stack([_a(0), _a(1)])
    w, v = L.eig(numtorch.tensor(a))
    assert w.dtype is numtorch.complex128 and v.dtype is numtorch.complex128 and w.shape == (2, 3)
    np.testing.assert_allclose(a @ v.numpy(), v.numpy() * w.numpy()[..., None, :], atol=1e-12)
    np.testing.assert_allclose(np.linalg.norm(v.numpy(), axis=-2), 1.0, rtol=1e-12)
    np.testing.assert_allclose(L.eigvals(numtorch.tensor(a)).numpy(), w.numpy())
    assert L.eigvals(numtorch.tensor(_a(2), dtype=numtorch.float32)).dtype is numtorch.complex64


def test_gradients_of_gauge_invariant_functions():
    a = numtorch.tensor(_a(3), requires_grad=True)
    assert gradcheck(lambda x: L.eigvals(x).real, (a,))
    assert gradcheck(lambda x: L.eigvals(x).imag, (a,))
    assert gradcheck(lambda x: L.eig(x).eigenvectors.abs(), (a,))


def test_errors():
    with pytest.raises(RuntimeError, match="torch.linalg.eig: input tensor should not contain infs or NaNs."):
        L.eig(numtorch.tensor([[1.0, float("nan")], [0.0, 1.0]]))
    with pytest.raises(RuntimeError, match="linalg.eig: A must be batches of square matrices, but they are 2 by 3 matrices"):
        L.eig(numtorch.ones(2, 3))
    with pytest.raises(RuntimeError, match="Unknown Complex ScalarType for Long"):
        L.eigvals(numtorch.ones(2, 2, dtype=numtorch.int64))
