"""Upsample and its fixed-mode aliases."""

from __future__ import annotations

import numpy as np

import numtorch
from numtorch import nn


def test_upsample_nearest_repeats_pixels():
    x = numtorch.tensor([[[[1.0, 2.0], [3.0, 4.0]]]])
    out = nn.Upsample(scale_factor=2)(x).numpy()[0, 0]
    np.testing.assert_array_equal(out, np.repeat(np.repeat([[1, 2], [3, 4]], 2, 0), 2, 1))
    assert repr(nn.Upsample(scale_factor=2)) == "Upsample(scale_factor=2.0, mode='nearest')"


def test_upsample_bilinear_align_corners_keeps_the_corners():
    x = numtorch.tensor([[[[1.0, 2.0], [3.0, 4.0]]]])
    out = nn.UpsamplingBilinear2d(size=3)(x).numpy()[0, 0]
    np.testing.assert_allclose(out, [[1, 1.5, 2], [2, 2.5, 3], [3, 3.5, 4]])
    assert repr(nn.UpsamplingBilinear2d(size=3)) == "UpsamplingBilinear2d(size=3, mode='bilinear')"
    assert nn.Upsample(size=(3, 5), mode="bilinear")(x).shape == (1, 1, 3, 5)
