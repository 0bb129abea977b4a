"""median()/nanmedian() of every element of a large tensor by NumPy's partition (Note
[Whole-tensor median by NumPy's partition]): the route is taken by the fast call and the body
from NP_MIN elements, gives the lower_median kernel's value (the first NaN, NaN skipped by
nanmedian, ties, signed zeros, all-NaN) and PyTorch's rule (the lower median; NaN if any for
median, of the non-NaN values for nanmedian), computed here by sorting."""

from __future__ import annotations

import numpy as np
import pytest

import numtorch as torch
from numtorch.ops.reduction import arg_fast
from numtorch.ops.reduction import median_all as M
from numtorch.ops.reduction.sorting import K as SK
from numtorch.testing._internal.logging_tensor import LoggingTensorMode

from .._fastcall import same

DTYPES = [np.float32, np.float64, np.int32, np.int64]


def _cases(dtype):
    rng = np.random.default_rng(5)
    n = M.NP_MIN + 37
    yield rng.integers(-3, 4, n).astype(dtype)  # few distinct values (the kernel's slow case)
    yield (rng.standard_normal(n - 37) * 100).astype(dtype)  # even count
    if np.dtype(dtype).kind == "f":
        a = rng.integers(-2, 3, n).astype(dtype)
        a[a == 0] = -0.0
        yield a
        a = rng.standard_normal(n).astype(dtype)
        a[[7, 300, 901]] = np.nan
        a.view(np.uint32 if dtype == np.float32 else np.uint64)[300] |= 5  # another payload later
        yield a
        yield np.full(n, np.nan, dtype)
        a = np.full(n, np.nan, dtype)
        a[3] = 2.5
        yield a


def _lower_median(a, skip_nan):
    """PyTorch's median of every element: the lower of the two middle values."""
    if a.dtype.kind == "f":
        nan = np.isnan(a)
        if nan.any() and not skip_nan:
            return np.array(np.nan, a.dtype)
        a = a[~nan]
        if a.size == 0:
            return np.array(np.nan, a.dtype)
    return np.sort(a)[(a.size - 1) // 2]


@pytest.fixture
def spy(monkeypatch):
    calls = []
    real = M.lower_median

    def counted(a, skip_nan):
        calls.append(a.size)
        return real(a, skip_nan)

    monkeypatch.setattr(M, "lower_median", counted)
    return calls


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("name", ["median", "nanmedian"])
def test_large_median_takes_numpy_and_matches_the_kernel(dtype, name, spy):
    for a in _cases(dtype):
        t = torch.from_numpy(a)
        n = arg_fast.COUNT[0]
        r = getattr(torch, name)(t)
        assert arg_fast.COUNT[0] == n + 1 and spy == [a.size]  # the fast call, then this route
        with LoggingTensorMode():
            body = getattr(torch, name)(t)
        assert arg_fast.COUNT[0] == n + 1 and spy == [a.size] * 2  # the body took it too
        same(r, body)
        want = SK.lower_median(a.copy(), name == "nanmedian")
        assert r.dtype == t.dtype and r.shape == ()
        assert np.array_equal(r.numpy(), np.array(want, dtype), equal_nan=True)
        if np.isnan(want):  # the kernel's NaN payload: the first NaN's
            assert r.numpy().tobytes() == np.array(want, dtype).tobytes()
        ref = _lower_median(a, name == "nanmedian")
        assert np.array_equal(r.numpy(), ref, equal_nan=True)
        spy.clear()


def test_small_and_strided_keep_their_routes(spy):
    x = torch.from_numpy(np.arange(M.NP_MIN - 1, dtype=np.float32)[::-1].copy())
    assert torch.median(x).item() == (M.NP_MIN - 2) // 2 and spy == []
    y = torch.from_numpy(np.random.default_rng(0).standard_normal((64, 64)).astype(np.float32))
    r = torch.median(y.t())  # the body copies, then this route
    assert spy == [4096]
    assert r.item() == np.partition(y.numpy().ravel(), 2047)[2047]
    w = y.clone().requires_grad_(True)
    r = torch.median(w)
    r.backward()
    assert w.grad.sum().item() == 1.0 and r.item() == np.partition(y.numpy().ravel(), 2047)[2047]
