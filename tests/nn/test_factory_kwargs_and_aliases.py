"""nn.factory_kwargs, the deprecated nn.NLLLoss2d and F's grid_sample mode tables."""

from __future__ import annotations

import pytest

import numtorch
from numtorch import nn


def test_factory_kwargs_merges_and_validates():
    assert nn.factory_kwargs(None) == {}
    got = nn.factory_kwargs({"device": "cpu", "factory_kwargs": {"dtype": numtorch.float64}})
    assert got == {"device": "cpu", "dtype": numtorch.float64}
    with pytest.raises(TypeError, match="unexpected kwargs"):
        nn.factory_kwargs({"bogus": 1})
    with pytest.raises(TypeError, match="dtype specified twice, in \\*\\*kwargs and in factory_kwargs"):
        nn.factory_kwargs({"dtype": numtorch.float32, "factory_kwargs": {"dtype": numtorch.float64}})


def test_nllloss2d_warns_and_is_nllloss():
    with pytest.warns(FutureWarning, match="`NLLLoss2d` has been deprecated"):
        m = nn.NLLLoss2d(ignore_index=1)
    x = numtorch.tensor([[-1.0, -2.0], [-0.5, -3.0]])
    assert isinstance(m, nn.NLLLoss) and m(x, numtorch.tensor([0, 1])).item() == 1.0


def test_grid_sample_mode_tables():
    F = numtorch.nn.functional
    assert F.GRID_SAMPLE_INTERPOLATION_MODES == {"bilinear": 0, "nearest": 1, "bicubic": 2}
    assert F.GRID_SAMPLE_PADDING_MODES == {"zeros": 0, "border": 1, "reflection": 2}
