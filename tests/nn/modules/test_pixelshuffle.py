"""PixelShuffle and PixelUnshuffle."""

from __future__ import annotations

import numpy as np

import numtorch
from numtorch import nn


def test_pixel_shuffle_round_trip():
    x = numtorch.arange(2 * 8 * 3 * 3.0).reshape(2, 8, 3, 3)
    y = nn.PixelShuffle(2)(x)
    assert y.shape == (2, 2, 6, 6)
    np.testing.assert_array_equal(y.numpy()[0, 0, :2, :2], [[0.0, 9.0], [18.0, 27.0]])
    np.testing.assert_array_equal(nn.PixelUnshuffle(2)(y).numpy(), x.numpy())
    assert repr(nn.PixelShuffle(2)) == "PixelShuffle(upscale_factor=2)"
    assert repr(nn.PixelUnshuffle(3)) == "PixelUnshuffle(downscale_factor=3)"
