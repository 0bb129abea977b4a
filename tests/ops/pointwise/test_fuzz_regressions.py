"""Pointwise regressions found by differential fuzzing against PyTorch (issue 10); expected
values are PyTorch 2.13's."""

import math

import numpy as np
import pytest

import numtorch

nt = numtorch


@pytest.mark.parametrize("a,b,want", [
    (nt.float16, nt.int64, nt.float16), (nt.int8, nt.float16, nt.float16),
    (nt.int32, nt.int32, nt.float32), (nt.uint8, nt.int8, nt.float32),
    (nt.float16, nt.float32, nt.float32), (nt.complex64, nt.float64, nt.complex128),
])  # fmt: skip
def test_ldexp_result_dtype(a, b, want):
    assert nt.ldexp(nt.ones(2, dtype=a), nt.ones(2, dtype=b)).dtype is want


def test_ldexp_float16_computes_wide():
    h = nt.float16
    assert nt.ldexp(nt.tensor([0.0], dtype=h), nt.tensor([200])).tolist() == [0.0]
    assert nt.ldexp(nt.tensor([2**-20], dtype=h), nt.tensor([30])).tolist() == [1024.0]
    r = nt.ldexp(nt.tensor([60000.0], dtype=h), nt.tensor([-30]))
    assert r.tolist() == [float(np.float16(60000.0 * 2.0**-30))]
    assert math.isinf(nt.ldexp(nt.tensor([1.0], dtype=h), nt.tensor([20])).item())
