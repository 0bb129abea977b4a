"""Padding modules."""

from __future__ import annotations

import numpy as np
import pytest

import numtorch
from numtorch import nn

ROW = np.array([[1.0, 2.0, 3.0]])
CASES = [
    (nn.ZeroPad1d(2), np.pad(ROW, ((0, 0), (2, 2))), "ZeroPad1d((2, 2))"),
    (nn.ConstantPad1d((1, 2), 3.5), np.pad(ROW, ((0, 0), (1, 2)), constant_values=3.5), "ConstantPad1d(padding=(1, 2), value=3.5)"),
    (nn.ReflectionPad1d(2), np.pad(ROW, ((0, 0), (2, 2)), mode="reflect"), "ReflectionPad1d((2, 2))"),
    (nn.ReplicationPad1d((1, 2)), np.pad(ROW, ((0, 0), (1, 2)), mode="edge"), "ReplicationPad1d((1, 2))"),
    (nn.CircularPad1d(1), np.pad(ROW, ((0, 0), (1, 1)), mode="wrap"), "CircularPad1d((1, 1))"),
]  # fmt: skip


@pytest.mark.parametrize("case", CASES, ids=lambda c: c[2])
def test_1d_padding_modules(case):
    mod, want, text = case
    np.testing.assert_array_equal(mod(numtorch.from_numpy(ROW.copy())).numpy(), want)
    assert repr(mod) == text


def test_2d_padding_modules(rng):
    x = rng.standard_normal((1, 3, 4))
    for mod, mode in ((nn.ReflectionPad2d((1, 2, 2, 1)), "reflect"), (nn.ReplicationPad2d((1, 2, 2, 1)), "edge"),
                      (nn.CircularPad2d((1, 2, 2, 1)), "wrap"), (nn.ZeroPad2d((1, 2, 2, 1)), "constant")):  # fmt: skip
        np.testing.assert_array_equal(
            mod(numtorch.from_numpy(x)).numpy(), np.pad(x, ((0, 0), (2, 1), (1, 2)), mode=mode)
        )
    assert repr(nn.ZeroPad2d(2)) == "ZeroPad2d((2, 2, 2, 2))"
    assert repr(nn.ConstantPad2d(1, 0.5)) == "ConstantPad2d(padding=(1, 1, 1, 1), value=0.5)"
