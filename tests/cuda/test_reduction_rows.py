"""The row reductions of numtorch/kernels/cuda/reduction.py (Note [Four loads in flight])
against the CPU: row lengths around the unrolled loop's step of 4 (sums) and 2 (extremes)
blocks' widths, so both the unrolled loop and its tail run, NaN in either part, whole-tensor
reductions cut into chunks, float and int dtypes."""

from __future__ import annotations

import numpy as np
import pytest

import numtorch

from ._sim import requires_cuda

pytestmark = requires_cuda
rng = np.random.default_rng(63)


def _width() -> int:
    from numtorch.kernels.cuda import RED_THREADS

    return RED_THREADS


_OPS = {
    "sum": lambda t: t.sum(1),
    "mean": lambda t: t.mean(1),
    "amax": lambda t: t.amax(1),
    "amin": lambda t: t.amin(1),
    "sum all": lambda t: t.sum(),
    "amax all": lambda t: t.amax(),
    "amin all": lambda t: t.amin(),
}


def _check(fn, x):
    want = fn(numtorch.tensor(x))
    got = fn(numtorch.tensor(x, device="cuda"))
    assert got.dtype == want.dtype and got.shape == want.shape
    tol = 1e-5 if want.dtype == numtorch.float32 else 1e-12
    np.testing.assert_allclose(got.cpu().numpy(), want.numpy(), rtol=tol, atol=tol, equal_nan=True)


@pytest.mark.parametrize("op", list(_OPS))
@pytest.mark.parametrize("extra", [-1, 0, 1, 3, 5])
def test_rows_around_the_unrolled_step(op, extra):
    x = rng.standard_normal((3, 8 * _width() + extra))
    _check(_OPS[op], x)
    _check(_OPS[op], x.astype(np.float32))
    if op != "mean":
        _check(_OPS[op], (x * 100).astype(np.int64))
        _check(_OPS[op], (x * 100).astype(np.int32))


@pytest.mark.parametrize("op", ["amax", "amin", "sum", "amax all", "amin all"])
def test_nan_in_the_unrolled_loop_and_the_tail(op):
    x = rng.standard_normal((4, 8 * _width() + 1))
    x[0, 1] = np.nan  # the loop's first accumulator
    x[1, _width() + 2] = np.nan  # the second
    x[2, -1] = np.nan  # the tail
    _check(_OPS[op], x)
    x[:3] = 1.0
    x[3, 5] = np.inf
    _check(_OPS[op], x)


def test_long_vector_in_chunks():
    x = rng.standard_normal(40 * 16 * _width() + 7)  # several chunks of the first pass
    for fn in (lambda t: t.sum(), lambda t: t.mean(), lambda t: t.amax(), lambda t: t.amin()):
        _check(fn, x)
        _check(fn, x.astype(np.float32))
