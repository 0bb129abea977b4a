"""The block scan of float rows (_cum_rows, Note [CUDA scans]) against the CPU: row lengths
on and around the block's pass of blockDim * SCAN_ITEMS elements, one long row cut into many
chunks (reduce, then scan), the one-pass scan forced for few rows, NaN, infinities and -0.0,
float16 / float32 / float64."""

from __future__ import annotations

import numpy as np
import pytest

import numtorch

from ._sim import requires_cuda, spy_launches

pytestmark = requires_cuda
rng = np.random.default_rng(41)


def _span() -> int:
    from numtorch.kernels.cuda.scan import SCAN_ITEMS, SCAN_THREADS

    return SCAN_THREADS * SCAN_ITEMS


_OPS = {
    "cumsum": lambda x: x.cumsum(-1),
    "cumprod": lambda x: (1 + 0.05 * x).cumprod(-1),
    "logcumsumexp": lambda x: (3 * x).logcumsumexp(-1),
}


def _check(fn, a, dtype="float64", tol=None):
    want = fn(numtorch.tensor(a).to(getattr(numtorch, dtype)))
    got = fn(numtorch.tensor(a, device="cuda").to(getattr(numtorch, dtype)))
    assert got.device.type == "cuda" and got.dtype == want.dtype and got.shape == want.shape
    tol = tol or {"float64": 1e-12, "float32": 1e-5, "float16": 2e-3}[dtype]
    np.testing.assert_allclose(got.cpu().numpy(), want.numpy(), rtol=tol, atol=tol, equal_nan=True)
    return got, want


@pytest.mark.parametrize("op", list(_OPS))
@pytest.mark.parametrize("extra", [-1, 0, 1, 2])  # row lengths around 2 passes of the block
@pytest.mark.parametrize("one_pass", [False, True], ids=["chunks", "one pass"])
def test_rows_around_the_block_span(op, extra, one_pass, monkeypatch):
    from numtorch.cuda import _scan

    if one_pass:  # the k == 1 scan, which the simulator's small inputs reach only for short rows
        monkeypatch.setattr(_scan, "_FEW_ROWS", 0)
    _check(_OPS[op], rng.standard_normal((3, 2 * _span() + extra)))


@pytest.mark.parametrize("dtype", ["float64", "float32", "float16"])
@pytest.mark.parametrize("op", list(_OPS))
def test_one_long_row_in_many_chunks(op, dtype):
    # the CPU reference folds one element after another: on a device's 51,203-element row its own
    # float32 rounding walks to about sqrt(n) * eps * |value| (1.4e-5 relative for logcumsumexp's
    # values near 15), past the float32 tolerance; a wrong chunk offset is off by O(1)
    tol = 1e-4 if dtype == "float32" else None
    _check(_OPS[op], rng.standard_normal(25 * _span() + 3), dtype, tol)


def test_nan_infinities_and_negative_zero():
    a = rng.standard_normal((2, 3 * _span() + 1))
    a[0, 5] = np.nan
    a[1, 2 * _span() - 1] = np.inf
    _check(_OPS["cumsum"], a)
    _check(_OPS["logcumsumexp"], a)
    b = np.full(2 * _span() + 5, -0.0)
    got, _ = _check(lambda x: x.cumsum(0), b)
    assert np.signbit(got.cpu().numpy()).all()  # -0.0 + -0.0 stays -0.0, as on the CPU
    c = np.full(2 * _span() + 5, -np.inf)
    c[-3] = 0.0
    _check(lambda x: x.logcumsumexp(0), c)
    d = np.ones(a.shape[1])
    d[7], d[-2] = 0.0, np.inf  # 0 * inf: NaN from there on
    _check(lambda x: x.cumprod(0), d)


def _spy(monkeypatch):
    from numtorch.cuda import _scan

    return spy_launches(monkeypatch, _scan)


@pytest.mark.parametrize("dtype", ["bool", "uint8", "int8", "int16", "int32", "int64"])
def test_integer_cumsum_of_a_long_row_takes_the_row_scan(dtype, monkeypatch):
    # int64 accumulators: the block scan, not one thread walking the row
    x = rng.integers(-3, 4, 25 * _span() + 3)
    x[5] = np.iinfo(dtype).max if dtype != "bool" else 1
    x = (x > 0) if dtype == "bool" else x.astype(dtype)
    names = _spy(monkeypatch)
    got = numtorch.tensor(x, device="cuda").cumsum(0)
    want = numtorch.tensor(x).cumsum(0)
    assert got.dtype == want.dtype == numtorch.int64
    np.testing.assert_array_equal(got.cpu().numpy(), want.numpy())
    assert "cum_rows_int_sum" in names and "cum_lines" not in names
    names.clear()
    two = x[:-3].reshape(-1, 2)  # a few long lines along dim 0: a rows-last copy, then the block scan
    got = numtorch.tensor(two, device="cuda").cumsum(0)
    np.testing.assert_array_equal(got.cpu().numpy(), numtorch.tensor(two).cumsum(0).numpy())
    assert "cum_rows_int_sum" in names


def test_integer_rows_are_exact_and_wrap_as_the_cpu(monkeypatch):
    big = np.full((2, 3 * _span() + 1), 2**60, dtype=np.int64)
    big[:, 1::2] = -(2**60) + 7  # partial sums beyond float64's integers
    big[1, 4:] = 2**62  # overflow: wraps
    names = _spy(monkeypatch)
    for fn in (lambda t: t.cumsum(1), lambda t: t.cumprod(1), lambda t: (t % 1000).int().cumsum(1, dtype=numtorch.int32),
               lambda t: (t % 5 + 1).cumprod(1), lambda t: (t % 7).to(numtorch.uint8).cumsum(1, dtype=numtorch.uint8)):
        want = fn(numtorch.tensor(big))
        got = fn(numtorch.tensor(big, device="cuda"))
        assert got.dtype == want.dtype
        np.testing.assert_array_equal(got.cpu().numpy(), want.numpy())
    assert "cum_rows_int_prod" in names and "cum_rows_int_sum" in names and "cum_lines" not in names
