"""Max / average / adaptive pooling modules."""

from __future__ import annotations

import numpy as np
import pytest

import numtorch
import numtorch.nn.functional as F
from numtorch import nn

CASES = [
    (nn.MaxPool2d(2), lambda x: F.max_pool2d(x, 2), "MaxPool2d(kernel_size=2, stride=2, padding=0, dilation=1, ceil_mode=False)"),
    (nn.MaxPool2d(3, 2, 1, ceil_mode=True), lambda x: F.max_pool2d(x, 3, 2, 1, ceil_mode=True),
     "MaxPool2d(kernel_size=3, stride=2, padding=1, dilation=1, ceil_mode=True)"),
    (nn.AvgPool2d(2, divisor_override=3), lambda x: F.avg_pool2d(x, 2, divisor_override=3),
     "AvgPool2d(kernel_size=2, stride=2, padding=0)"),
    (nn.AdaptiveAvgPool2d((None, 2)), lambda x: F.adaptive_avg_pool2d(x, (6, 2)), "AdaptiveAvgPool2d(output_size=(None, 2))"),
    (nn.AdaptiveMaxPool2d(3), lambda x: F.adaptive_max_pool2d(x, 3), "AdaptiveMaxPool2d(output_size=3)"),
]  # fmt: skip


@pytest.mark.parametrize("case", CASES, ids=lambda c: c[2])
def test_pool2d_modules(case, rng):
    mod, fn, text = case
    x = numtorch.from_numpy(rng.standard_normal((2, 3, 6, 7)))
    np.testing.assert_array_equal(mod(x).numpy(), fn(x).numpy())
    assert repr(mod) == text


def test_pool1d_modules(rng):
    x = numtorch.from_numpy(rng.standard_normal((2, 3, 9)))
    assert nn.MaxPool1d(2)(x).shape == (2, 3, 4)
    assert repr(nn.AvgPool1d(3)) == "AvgPool1d(kernel_size=(3,), stride=(3,), padding=(0,))"
    np.testing.assert_allclose(nn.AvgPool1d(3)(x).numpy(), x.numpy().reshape(2, 3, 3, 3).mean(-1))
    np.testing.assert_array_equal(nn.AdaptiveMaxPool1d(1)(x).numpy()[..., 0], x.numpy().max(-1))
    np.testing.assert_allclose(nn.AdaptiveAvgPool1d(1)(x).numpy()[..., 0], x.numpy().mean(-1))


def test_return_indices_feed_the_gradient():
    x = numtorch.tensor([[[[1.0, 5.0], [3.0, 2.0]]]], requires_grad=True)
    out, idx = nn.MaxPool2d(2, return_indices=True)(x)
    assert idx.item() == 1 and idx.dtype is numtorch.int64
    out.sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), [[[[0.0, 1.0], [0.0, 0.0]]]])
    _, i1 = nn.AdaptiveMaxPool1d(1, return_indices=True)(numtorch.tensor([[[0.0, 4.0, 1.0]]]))
    assert i1.item() == 1
