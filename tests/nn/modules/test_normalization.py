"""LayerNorm and GroupNorm."""

from __future__ import annotations

import numpy as np
import pytest

import numtorch
from numtorch import nn


def test_layer_norm_parameters_and_forward(rng):
    ln = nn.LayerNorm((3, 4), dtype=numtorch.float64)
    assert ln.weight.shape == (3, 4) and ln.normalized_shape == (3, 4)
    np.testing.assert_array_equal(ln.weight.detach().numpy(), np.ones((3, 4)))
    x = rng.standard_normal((2, 3, 4)) * 5 + 3
    out = ln(numtorch.from_numpy(x)).detach().numpy()
    np.testing.assert_allclose(out.mean(axis=(1, 2)), 0, atol=1e-10)
    np.testing.assert_allclose(out.var(axis=(1, 2)), 1, rtol=1e-4)
    assert repr(ln) == "LayerNorm((3, 4), eps=1e-05, elementwise_affine=True, bias=True)"


def test_layer_norm_without_affine_or_bias():
    assert nn.LayerNorm(4, elementwise_affine=False).weight is None
    ln = nn.LayerNorm(4, bias=False)
    assert ln.bias is None and [n for n, _ in ln.named_parameters()] == ["weight"]
    assert repr(ln) == "LayerNorm((4,), eps=1e-05, elementwise_affine=True, bias=False)"


def test_layer_norm_gradients_reach_parameters(rng):
    ln = nn.LayerNorm(5, dtype=numtorch.float64)
    x = numtorch.from_numpy(rng.standard_normal((3, 5))).requires_grad_(True)
    y = ln(x)
    (y * y * numtorch.arange(5.0, dtype=numtorch.float64)).sum().backward()
    assert ln.weight.grad.shape == (5,) and ln.bias.grad.shape == (5,)
    np.testing.assert_allclose(
        x.grad.numpy().sum(1), 0, atol=1e-10
    )  # normalization removes the mean direction


def test_group_norm(rng):
    gn = nn.GroupNorm(2, 4, dtype=numtorch.float64)
    x = rng.standard_normal((3, 4, 5))
    out = gn(numtorch.from_numpy(x)).detach().numpy().reshape(3, 2, 10)
    np.testing.assert_allclose(out.mean(-1), 0, atol=1e-10)
    assert repr(gn) == "GroupNorm(2, 4, eps=1e-05, affine=True, bias=True)"
    with pytest.raises(
        ValueError, match="num_channels \\(5\\) must be divisible by num_groups \\(2\\)"
    ):
        nn.GroupNorm(2, 5)
    assert nn.GroupNorm(1, 2, affine=False).weight is None


def test_rms_norm(rng):
    m = nn.RMSNorm(4, dtype=numtorch.float64)
    x = rng.standard_normal((3, 4))
    want = x / np.sqrt((x * x).mean(1, keepdims=True) + np.finfo(np.float64).eps)
    np.testing.assert_allclose(m(numtorch.from_numpy(x)).detach().numpy(), want, rtol=1e-12)
    assert repr(m) == "RMSNorm((4,), eps=None, elementwise_affine=True)"
    assert nn.RMSNorm(4, elementwise_affine=False).weight is None
