"""Edge cases of numtorch/ops/extra.py the differential fuzzer found (issue 10): dtypes and errors."""

from __future__ import annotations

import re

import numpy as np
import pytest

import numtorch


@pytest.mark.parametrize("dtype", ["uint8", "int32", "bool", "float16"])
def test_trapezoid_of_no_samples_keeps_the_input_dtype(dtype):
    # at::trapezoid answers zeros_like_except(y, dim) before any dtype check (bool included)
    y = numtorch.zeros((2, 0), dtype=getattr(numtorch, dtype))
    got = numtorch.trapezoid(y)
    assert got.dtype == y.dtype and got.shape == (2,)
    np.testing.assert_array_equal(got.numpy(), np.zeros(2, dtype=got.numpy().dtype))


def test_cumulative_trapezoid_of_no_samples_is_empty():
    got = numtorch.cumulative_trapezoid(numtorch.zeros(0, dtype=numtorch.uint8))
    assert got.dtype == numtorch.float32 and got.shape == (0,)


@pytest.mark.parametrize(
    "call,msg",
    [
        (lambda: numtorch.trapezoid(numtorch.ones(1, 2, dtype=numtorch.bool)),
         "trapezoid: received a bool input for `y`, but bool is not supported"),
        (lambda: numtorch.trapezoid(numtorch.ones(3), numtorch.ones(3, dtype=numtorch.bool)),
         "trapezoid: received a bool input for `x` or `y`, but bool is not supported"),
        (lambda: numtorch.trapezoid(numtorch.ones(3), dx=1j),
         "trapezoid: Currently, we only support dx as a real number."),
        (lambda: numtorch.cumulative_trapezoid(numtorch.ones(3, dtype=numtorch.bool)),
         "cumulative_trapezoid: received a bool input for `y`, but bool is not supported"),
        (lambda: numtorch.cumulative_trapezoid(numtorch.ones(3), dx=True),
         "cumulative_trapezoid: Currently, we only support dx as a real number."),
    ],
)  # fmt: skip
def test_trapezoid_refuses_bool_and_complex_spacing(call, msg):
    with pytest.raises(RuntimeError, match=re.escape(msg)):
        call()


def test_polar_refuses_a_python_number_angle():
    with pytest.raises(TypeError, match=re.escape("polar(): argument 'angle' (position 2) must be Tensor, not float")):
        numtorch.polar(numtorch.tensor([1.0, 2.0]), 1.0)
