"""numtorch's power-of-two FFT kernels (kernels/cpu/fft.py) against NumPy's pocketfft in long
double: every power of two up to 2**12 (the size thresholds lowered so each goes through the
kernel), each direction and norm, float32 and float64. The kernels compute in the input's
precision, so their error grows like eps * log n: measured up to ~1.6 eps (float32) and ~3.4 eps
(float64) of max|X| at 2**20, as PyTorch's MKL (float32 ~2.2 eps); NumPy's float32 pocketfft is
closer to the output's rounding (~0.4 eps), the bound below allows 2 (1 + log2(n) / 4) eps."""

from __future__ import annotations

import numpy as np
import pytest

import numtorch
from numtorch.autograd import gradcheck, gradgradcheck
from numtorch.ops import fft as F

_CPLX = {np.float32: np.complex64, np.float64: np.complex128}


@pytest.fixture
def kernel_everywhere(monkeypatch):
    low = {(kind, c): 1 if kind == "c2c" else 2 for kind in ("c2c", "r2c", "c2r") for c in "fdFD"}
    monkeypatch.setattr(F, "_POW2_MIN", low)


def _signal(op, n, dt, rng, shape=()):
    """The input of ``op`` for an n-point transform, and the float64 copy NumPy sees."""
    m = n // 2 + 1 if op == "irfft" else n
    x = rng.standard_normal(shape + (m,))
    if op != "rfft":
        x = x + 1j * rng.standard_normal(shape + (m,))
    low = x.astype(_CPLX[dt] if op != "rfft" else dt)
    return low, low.astype(np.clongdouble if op != "rfft" else np.longdouble)


def _err(got, ref):
    return float(np.abs(got - ref).max() / max(np.abs(ref).max(), 1e-300))


def _bound(n, dt):
    return 2 * (1 + np.log2(n) / 4) * np.finfo(dt).eps


@pytest.mark.parametrize("dt", [np.float32, np.float64], ids=["float32", "float64"])
@pytest.mark.parametrize("op", ["fft", "ifft", "rfft", "irfft"])
def test_every_power_of_two_matches_numpy(kernel_everywhere, op, dt):
    rng = np.random.default_rng(0)
    for lg in range(0 if op in ("fft", "ifft") else 1, 13):
        n = 1 << lg
        low, x64 = _signal(op, n, dt, rng)
        for norm in (None, "ortho", "forward"):
            kw = {"n": n, "norm": norm} if op == "irfft" else {"norm": norm}
            got = getattr(numtorch.fft, op)(numtorch.from_numpy(low), **kw).numpy()
            ref = getattr(np.fft, op)(x64, **kw)
            assert got.dtype == (dt if op == "irfft" else _CPLX[dt])
            assert got.shape == ref.shape
            assert _err(got, ref) <= _bound(n, dt), (n, norm)


_LARGE = [("fft", 1 << 16), ("ifft", 1 << 16), ("rfft", 1 << 16), ("irfft", 1 << 16),
          ("fft", 1 << 20), ("rfft", 1 << 20)]  # fmt: skip


@pytest.mark.parametrize("op,n", _LARGE)
def test_large_sizes_match_numpy_float32(kernel_everywhere, op, n):
    rng = np.random.default_rng(1)
    low, _ = _signal(op, n, np.float32, rng)
    kw = {"n": n} if op == "irfft" else {}
    got = getattr(numtorch.fft, op)(numtorch.from_numpy(low), **kw).numpy()
    ref = getattr(np.fft, op)(low.astype(np.complex128 if op != "rfft" else np.float64), **kw)
    assert _err(got, ref) <= _bound(n, np.float32)


def test_full_spectrum_of_a_real_signal(kernel_everywhere):
    x = np.random.default_rng(2).standard_normal((3, 64)).astype(np.float32)
    got = numtorch.fft.fft(numtorch.from_numpy(x)).numpy()
    np.testing.assert_allclose(got, np.fft.fft(x.astype(np.float64)), rtol=0, atol=2e-5)


@pytest.mark.parametrize("op", ["fft", "ifft", "rfft", "irfft"])
def test_batches_and_inner_dims(kernel_everywhere, op):
    rng = np.random.default_rng(3)
    low, x64 = _signal(op, 32, np.float64, rng, shape=(2, 3))
    x64 = x64.astype(low.dtype)
    low, x64 = np.moveaxis(low, -1, 1), np.moveaxis(x64, -1, 1)  # transform dim 1 of (2, m, 3)
    kw = {"n": 32} if op == "irfft" else {}
    x = numtorch.from_numpy(np.ascontiguousarray(low))
    got = getattr(numtorch.fft, op)(x, dim=1, **kw).numpy()
    np.testing.assert_allclose(got, getattr(np.fft, op)(x64, axis=1, **kw), rtol=1e-12, atol=1e-12)


def test_irfft_ignores_imaginary_parts_of_dc_and_nyquist(kernel_everywhere):
    rng = np.random.default_rng(4)
    h = rng.standard_normal(9) + 1j * rng.standard_normal(9)
    got = numtorch.fft.irfft(numtorch.from_numpy(h)).numpy()
    np.testing.assert_allclose(got, np.fft.irfft(h), rtol=1e-12, atol=1e-14)


@pytest.mark.parametrize("op", ["fft", "rfft", "irfft"])
def test_gradients_through_the_kernels(kernel_everywhere, op):
    numtorch.manual_seed(0)
    x = numtorch.randn(2, 8, dtype=numtorch.float64, requires_grad=True)
    if op == "irfft":
        fn = lambda t: numtorch.fft.irfft(numtorch.complex(t[:, :5], t[:, 3:]), n=8)  # noqa: E731
    else:
        fn = lambda t: numtorch.view_as_real(getattr(numtorch.fft, op)(t))  # noqa: E731
    assert gradcheck(fn, (x,))
    assert gradgradcheck(fn, (x,))
