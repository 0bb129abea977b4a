"""Flatten and Unflatten."""

from __future__ import annotations

import pytest

import numtorch
from numtorch import nn


def test_flatten_and_unflatten_round_trip():
    x = numtorch.arange(24.0).reshape(2, 3, 4)
    f = nn.Flatten()
    assert f(x).shape == (2, 12) and repr(f) == "Flatten(start_dim=1, end_dim=-1)"
    assert nn.Flatten(0, 1)(x).shape == (6, 4)
    u = nn.Unflatten(1, (3, 4))
    assert u(f(x)).tolist() == x.tolist()
    assert repr(u) == "Unflatten(dim=1, unflattened_size=(3, 4))"


def test_unflatten_rejects_non_int_sizes():
    with pytest.raises(
        TypeError,
        match="unflattened_size must be tuple of ints, but found element of type float at pos 1",
    ):
        nn.Unflatten(1, (3, 4.0))
