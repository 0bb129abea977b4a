"""Dropout modules."""

from __future__ import annotations

import numpy as np
import pytest

import numtorch
from numtorch import nn


def test_dropout_train_and_eval():
    numtorch.manual_seed(0)
    d = nn.Dropout(0.25)
    y = d(numtorch.ones(100, 100)).numpy()
    assert abs((y == 0).mean() - 0.25) < 0.02
    x = numtorch.ones(3)
    assert d.eval()(x) is x
    assert repr(d) == "Dropout(p=0.25, inplace=False)"


def test_dropout_probability_is_validated():
    with pytest.raises(
        ValueError, match="dropout probability has to be between 0 and 1, but got -0.1"
    ):
        nn.Dropout(-0.1)


def test_channel_and_alpha_dropout_modules():
    numtorch.manual_seed(1)
    a = nn.Dropout2d(0.5)(numtorch.ones(8, 16, 2, 2)).numpy()
    assert np.all(a.min(axis=(2, 3)) == a.max(axis=(2, 3)))
    assert nn.Dropout1d(0.5)(numtorch.ones(4, 8, 3)).shape == (4, 8, 3)
    x = numtorch.ones(5)
    assert nn.AlphaDropout(0.5).eval()(x) is x
    assert repr(nn.FeatureAlphaDropout(0.2)) == "FeatureAlphaDropout(p=0.2, inplace=False)"
