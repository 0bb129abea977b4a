"""InstanceNorm1d / InstanceNorm2d."""

from __future__ import annotations

import numpy as np
import pytest

import numtorch
from numtorch import nn


def test_instance_norm_normalizes_each_sample_and_channel(rng):
    x = rng.standard_normal((2, 3, 4, 5)) * 3 + 2
    out = nn.InstanceNorm2d(3)(numtorch.from_numpy(x)).numpy()
    np.testing.assert_allclose(out.mean(axis=(2, 3)), 0, atol=1e-10)
    assert repr(nn.InstanceNorm2d(3)) == (
        "InstanceNorm2d(3, eps=1e-05, momentum=0.1, affine=False, bias=False, track_running_stats=False)"
    )


def test_instance_norm_unbatched_affine_and_running_stats(rng):
    m = nn.InstanceNorm1d(3, affine=True, track_running_stats=True, dtype=numtorch.float64)
    x = rng.standard_normal((3, 6))
    out = m(numtorch.from_numpy(x))
    assert out.shape == (3, 6)
    np.testing.assert_allclose(m.running_mean.numpy(), 0.1 * x.mean(1), rtol=1e-10)
    with pytest.raises(
        ValueError,
        match="expected input's size at dim=0 to match num_features \\(3\\), but got: 4.",
    ):
        m(numtorch.ones(4, 6, dtype=numtorch.float64))
