"""Note [Dot's own result]: the products' fast calls and product() call the array's dot method,
which is np.dot's C function without its dispatch: the same bits, layouts, warnings state and
errors, here over the products' ranks, dtypes, layouts and special values."""

from __future__ import annotations

import numpy as np
import pytest

import numtorch as torch
from numtorch.ops.linalg import _contract as C


def _pairs(dt):
    rng = np.random.default_rng(7)

    def r(*s):
        return (rng.standard_normal(s) * 10).astype(dt)

    yield r(4), r(4)
    yield r(2, 3), r(3)
    yield r(2, 3), r(3, 4)
    yield r(3, 2).T, r(3, 4)  # Fortran-ordered
    yield r(5, 7), r(4, 7).T
    yield r(1, 3), r(3, 1)
    yield r(33, 17), r(17, 9)
    big = np.array([[3e38, 3e38, -np.inf], [np.nan, 0.0, -0.0]], dt)
    yield big, np.array([[2.0, 0.0], [2.0, 1.0], [0.0, -0.0]], dt)
    yield big[0], big[1]


@pytest.mark.parametrize("dt", [np.float32, np.float64, np.complex64])
def test_dot_method_is_np_dot_bit_for_bit(dt):
    for x, y in _pairs(dt):
        with np.errstate(all="ignore"):
            want = np.dot(x, y)
            got = x.dot(y)
            assert (
                type(got) is type(want) and np.asarray(got).tobytes() == np.asarray(want).tobytes()
            )
            out, out2 = np.empty(np.shape(want), dt), np.empty(np.shape(want), dt)
            r, r2 = np.dot(x, y, out), x.dot(y, out2)  # a 0-d out: both return a scalar
            assert type(r) is type(r2) and out2.tobytes() == out.tobytes()
        if x.ndim == 2:
            dest = np.empty((x.shape[0],) + y.shape[1:], dt)
            C.dot_quiet(x, y, dest)
            assert dest.tobytes() == want.tobytes()


def test_dot_method_errors_are_np_dots():
    x, y = np.ones((2, 3), np.float32), np.ones((4, 2), np.float32)
    with pytest.raises(ValueError) as a:
        np.dot(x, y)
    with pytest.raises(ValueError) as b:
        x.dot(y)
    assert str(a.value) == str(b.value)


def test_products_warn_about_nothing():
    x = torch.full((2, 3), 3e38)
    with np.errstate(all="raise"):
        assert torch.isinf(torch.mm(x, torch.full((3, 2), 3e38))).all()
        assert torch.isinf(torch.dot(x[0], x[1])) and torch.isinf(torch.mv(x, x[0])).all()
