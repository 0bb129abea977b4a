"""Fold and Unfold."""

from __future__ import annotations

import numpy as np

import numtorch
from numtorch import nn


def test_fold_of_unfold_counts_window_overlaps():
    x = numtorch.ones(1, 2, 4, 5)
    cols = nn.Unfold(2)(x)
    assert cols.shape == (1, 8, 12)
    back = nn.Fold((4, 5), 2)(cols).numpy()[0, 0]
    counts = np.array([[1, 2, 2, 2, 1], [2, 4, 4, 4, 2], [2, 4, 4, 4, 2], [1, 2, 2, 2, 1]])
    np.testing.assert_array_equal(back, counts)
    assert repr(nn.Unfold(2)) == "Unfold(kernel_size=2, dilation=1, padding=0, stride=1)"
    assert (
        repr(nn.Fold((4, 5), 2))
        == "Fold(output_size=(4, 5), kernel_size=2, dilation=1, padding=0, stride=1)"
    )
