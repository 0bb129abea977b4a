"""BatchNorm1d / BatchNorm2d: running statistics, train/eval, state."""

from __future__ import annotations

import numpy as np
import pytest

import numtorch
from numtorch import nn


def test_buffers_parameters_and_repr():
    bn = nn.BatchNorm2d(3)
    assert [n for n, _ in bn.named_parameters()] == ["weight", "bias"]
    assert [n for n, _ in bn.named_buffers()] == [
        "running_mean",
        "running_var",
        "num_batches_tracked",
    ]
    assert bn.num_batches_tracked.dtype is numtorch.int64
    assert list(bn.state_dict()) == [
        "weight",
        "bias",
        "running_mean",
        "running_var",
        "num_batches_tracked",
    ]
    assert (
        repr(bn)
        == "BatchNorm2d(3, eps=1e-05, momentum=0.1, affine=True, bias=True, track_running_stats=True)"
    )


def test_training_updates_running_stats_and_eval_uses_them(rng):
    bn = nn.BatchNorm1d(2, momentum=0.5, dtype=numtorch.float64)
    x = rng.standard_normal((6, 2)) * 2 + 1
    out = bn(numtorch.from_numpy(x)).detach().numpy()
    np.testing.assert_allclose(out, (x - x.mean(0)) / np.sqrt(x.var(0) + 1e-5), rtol=1e-10)
    np.testing.assert_allclose(bn.running_mean.numpy(), 0.5 * x.mean(0))
    np.testing.assert_allclose(bn.running_var.numpy(), 0.5 + 0.5 * x.var(0, ddof=1))
    assert bn.num_batches_tracked.item() == 1
    bn.eval()
    y = rng.standard_normal((3, 2))
    want = (y - bn.running_mean.numpy()) / np.sqrt(bn.running_var.numpy() + 1e-5)
    np.testing.assert_allclose(bn(numtorch.from_numpy(y)).detach().numpy(), want, rtol=1e-10)
    assert bn.num_batches_tracked.item() == 1


def test_momentum_none_is_a_cumulative_average(rng):
    bn = nn.BatchNorm1d(1, momentum=None, dtype=numtorch.float64)
    batches = [rng.standard_normal((4, 1)) + k for k in range(3)]
    for b in batches:
        bn(numtorch.from_numpy(b))
    np.testing.assert_allclose(
        bn.running_mean.numpy(), np.mean([b.mean() for b in batches]), rtol=1e-10
    )


def test_without_running_stats_eval_uses_batch_statistics(rng):
    bn = nn.BatchNorm2d(2, affine=False, track_running_stats=False).eval()
    assert bn.running_mean is None and bn.weight is None
    x = rng.standard_normal((2, 2, 3, 3)).astype(np.float32)
    out = bn(numtorch.from_numpy(x)).numpy()
    np.testing.assert_allclose(out.mean(axis=(0, 2, 3)), 0, atol=1e-6)


def test_input_dimension_checks_and_tiny_batches():
    with pytest.raises(ValueError, match="expected 4D input \\(got 3D input\\)"):
        nn.BatchNorm2d(3)(numtorch.ones(2, 3, 4))
    with pytest.raises(ValueError, match="expected 2D or 3D input \\(got 4D input\\)"):
        nn.BatchNorm1d(3)(numtorch.ones(2, 3, 4, 4))
    with pytest.raises(ValueError, match="Expected more than 1 value per channel when training"):
        nn.BatchNorm1d(3)(numtorch.ones(1, 3))
    nn.BatchNorm1d(3).eval()(numtorch.ones(1, 3))  # eval accepts a single sample


def test_gradients_flow_to_input_and_affine(rng):
    bn = nn.BatchNorm2d(2, dtype=numtorch.float64)
    x = numtorch.from_numpy(rng.standard_normal((3, 2, 2, 2))).requires_grad_(True)
    (bn(x) * numtorch.from_numpy(rng.standard_normal((3, 2, 2, 2)))).sum().backward()
    assert x.grad.shape == (3, 2, 2, 2) and bn.weight.grad.shape == (2,)
    np.testing.assert_allclose(x.grad.numpy().sum(axis=(0, 2, 3)), 0, atol=1e-10)
