"""Identity, Linear, Bilinear."""

from __future__ import annotations

import numpy as np
import pytest

import numtorch
from numtorch import nn


def test_linear_parameters_init_and_forward():
    numtorch.manual_seed(0)
    lin = nn.Linear(20, 30)
    assert lin.weight.shape == (30, 20) and lin.bias.shape == (30,)
    assert [n for n, _ in lin.named_parameters()] == ["weight", "bias"]
    bound = 1 / np.sqrt(20)
    w = lin.weight.detach().numpy()
    assert np.abs(w).max() <= bound and np.abs(w).max() > 0.9 * bound  # U(-1/sqrt(in), 1/sqrt(in))
    assert np.abs(lin.bias.detach().numpy()).max() <= bound
    x = np.random.default_rng(0).standard_normal((4, 20)).astype(np.float32)
    out = lin(numtorch.from_numpy(x))
    np.testing.assert_allclose(
        out.detach().numpy(), x @ w.T + lin.bias.detach().numpy(), rtol=1e-5, atol=1e-6
    )
    assert repr(lin) == "Linear(in_features=20, out_features=30, bias=True)"


def test_linear_without_bias_and_batched_input():
    lin = nn.Linear(3, 2, bias=False, dtype=numtorch.float64)
    assert lin.bias is None and lin.weight.dtype is numtorch.float64
    assert repr(lin) == "Linear(in_features=3, out_features=2, bias=False)"
    assert lin(numtorch.ones(4, 5, 3, dtype=numtorch.float64)).shape == (4, 5, 2)
    lin(numtorch.ones(2, 3, dtype=numtorch.float64)).sum().backward()
    np.testing.assert_allclose(lin.weight.grad.numpy(), np.full((2, 3), 2.0))


def test_identity_ignores_arguments():
    x = numtorch.ones(2)
    assert nn.Identity(3, flag=True)(x) is x
    assert repr(nn.Identity(3)) == "Identity()"


def test_bilinear_shapes_and_values(rng):
    bl = nn.Bilinear(2, 3, 4, dtype=numtorch.float64)
    assert bl.weight.shape == (4, 2, 3)
    assert np.abs(bl.weight.detach().numpy()).max() <= 1 / np.sqrt(2)
    x1, x2 = rng.standard_normal((5, 2)), rng.standard_normal((5, 3))
    out = bl(numtorch.from_numpy(x1), numtorch.from_numpy(x2))
    want = np.einsum("bi,oij,bj->bo", x1, bl.weight.detach().numpy(), x2) + bl.bias.detach().numpy()
    np.testing.assert_allclose(out.detach().numpy(), want, rtol=1e-10)
    assert repr(bl) == "Bilinear(in1_features=2, in2_features=3, out_features=4, bias=True)"
    with pytest.raises(
        RuntimeError,
        match="bilinear\\(\\): input1 size does not match weight size: got 3 but expected 2",
    ):
        bl(numtorch.ones(5, 3, dtype=numtorch.float64), numtorch.ones(5, 3, dtype=numtorch.float64))
