"""The privatised (shared-memory) histograms of numtorch/kernels/cuda/histogram.py against the
CPU: bin counts on both sides of HIST_BINS (the private and the global-atomic kernels), inputs
long enough for the grid-stride loop and several blocks' flushes, NaN and out-of-range values,
int and float dtypes, weights."""

from __future__ import annotations

import numpy as np
import pytest

import numtorch

from ._sim import requires_cuda, spy_launches

pytestmark = requires_cuda
rng = np.random.default_rng(31)
N = 157  # more than the simulator's 2 blocks of 8 threads: every thread loops


def _hist_bins() -> int:
    from numtorch.kernels.cuda.histogram import HIST_BINS

    return HIST_BINS


def _spy(monkeypatch):
    from numtorch.cuda import _histogram

    return spy_launches(monkeypatch, _histogram)


@pytest.mark.parametrize("extra", [-1, 0, 1])  # bins below, on and above the shared-memory cap
@pytest.mark.parametrize("dtype", ["int64", "int32", "uint8"])
def test_bincount_counts(extra, dtype, monkeypatch):
    cap = _hist_bins()
    bins = min(cap + extra, int(np.iinfo(dtype).max) + 1)  # a device's cap is past uint8's range
    i = rng.integers(0, bins, N).astype(dtype)
    i[0] = bins - 1  # the top bin is reached
    names = _spy(monkeypatch)
    got = numtorch.bincount(numtorch.tensor(i, device="cuda"))
    want = np.bincount(i)
    assert got.dtype == numtorch.int64
    np.testing.assert_array_equal(got.cpu().numpy(), want)
    assert ("count_shared" if bins <= cap else "count_at") in names


@pytest.mark.parametrize("extra", [0, 1])
@pytest.mark.parametrize("wdtype", ["float64", "float32", "int32"])
def test_bincount_weights(extra, wdtype, monkeypatch):
    bins = _hist_bins() + extra
    i = rng.integers(0, bins, N)
    i[0] = bins - 1
    w = (rng.standard_normal(N) * 4).astype(wdtype)
    names = _spy(monkeypatch)
    got = numtorch.bincount(numtorch.tensor(i, device="cuda"), weights=numtorch.tensor(w, device="cuda"))
    want = numtorch.bincount(numtorch.tensor(i), weights=numtorch.tensor(w))
    assert got.dtype == want.dtype
    np.testing.assert_allclose(got.cpu().numpy(), want.numpy(), rtol=1e-5 if wdtype == "float32" else 1e-12, atol=1e-5)
    kernel = ("add_shared_f32" if wdtype == "float32" else "add_shared_f64") if extra <= 0 else "add_at"
    assert kernel in names


def test_bincount_minlength_past_the_cap_takes_the_global_kernel(monkeypatch):
    i = rng.integers(0, 3, N)
    names = _spy(monkeypatch)
    got = numtorch.bincount(numtorch.tensor(i, device="cuda"), minlength=_hist_bins() + 1)
    np.testing.assert_array_equal(got.cpu().numpy(), np.bincount(i, minlength=_hist_bins() + 1))
    assert "count_at" in names and "count_shared" not in names


@pytest.mark.parametrize("extra", [-1, 0, 1])
@pytest.mark.parametrize("dtype", ["float64", "float32", "float16"])
def test_histc(extra, dtype, monkeypatch):
    bins = _hist_bins() + extra
    x = rng.standard_normal(N)
    x[:4] = [np.nan, 2.0, -2.0, 5.0]  # NaN and out of range dropped, the edges counted
    x = x.astype(dtype)
    names = _spy(monkeypatch)
    got = numtorch.tensor(x, device="cuda").histc(bins, -2, 2)
    want = numtorch.tensor(x).histc(bins, -2, 2)
    assert got.dtype == want.dtype
    np.testing.assert_array_equal(got.cpu().numpy(), want.numpy())
    assert ("histc_shared" if extra <= 0 else "histc_counts") in names


def test_histc_strided_data_range():
    x = rng.standard_normal((N, 2)).astype(np.float32)
    got = numtorch.tensor(x, device="cuda")[:, 1].histc(_hist_bins())
    want = numtorch.tensor(x)[:, 1].histc(_hist_bins())
    np.testing.assert_array_equal(got.cpu().numpy(), want.numpy())
