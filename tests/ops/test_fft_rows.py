"""Note [Short real rows by a DFT matrix]: r2c transforms of many short float32 rows along the
last axis are one float64 matrix product, within float32 rounding of the exact transform,
exactly Hermitian, taken by fft/ifft/rfft/ihfft's bodies and fast calls alike (and not by
float64, strided, small, long-row or other-axis inputs); non-finite input takes pocketfft."""

from __future__ import annotations

import numpy as np
import pytest

import numtorch as torch
from numtorch.ops import _pocketfft as P
from numtorch.ops import fft_rows as R
from numtorch.testing._internal.logging_tensor import LoggingTensorMode

_NORMS = (None, "ortho", "forward", "backward")


@pytest.fixture
def spy(monkeypatch):
    calls = []
    real = R.r2c

    def counted(*args):
        r = real(*args)
        calls.append(r is not None)
        return r

    monkeypatch.setattr(R, "r2c", counted)
    return calls


def _close(got, want):
    assert got.shape == want.shape and got.flags.c_contiguous and got.dtype == np.complex64
    scale = max(1.0, float(np.abs(want).max()))
    # float32 rounding of each output (float64 sums): tighter than pocketfft's float32 loop
    np.testing.assert_allclose(got.astype(np.complex128), want, rtol=0, atol=2e-7 * scale)


@pytest.mark.parametrize("n", range(2, R._MAX_N + 1))
def test_rows_are_the_exact_transforms_and_take_the_matrix(n, spy):
    rows = -(-R._MIN_SIZE // n) + 3
    rng = np.random.default_rng(n)
    a = (rng.standard_normal((rows, n)) * 10).astype(np.float32)
    a64 = a.astype(np.float64)
    t = torch.from_numpy(a)
    for norm in _NORMS:
        for name, want in (
            ("rfft", np.fft.rfft(a64, norm=norm)),
            ("fft", np.fft.fft(a64, norm=norm)),
            ("ihfft", np.fft.ihfft(a64, norm=norm)),
            ("ifft", np.fft.ifft(a64, norm=norm)),
        ):
            spy.clear()
            got = getattr(torch.fft, name)(t, norm=norm)
            assert spy == [True]
            _close(got.numpy(), want)
            with LoggingTensorMode():  # the op's body: the same route, the same bits
                body = getattr(torch.fft, name)(t, norm=norm)
            assert spy == [True, True]
            assert got.numpy().tobytes() == body.numpy().tobytes()
            if name in ("fft", "ifft"):  # exactly Hermitian (the same sums, negated)
                g = got.numpy()
                for k in range(1, n):
                    assert np.array_equal(g[:, n - k], np.conj(g[:, k]))
                    assert g[:, n - k].real.tobytes() == g[:, k].real.tobytes()
            if name in ("rfft", "ihfft"):  # the zero bin's imaginary part: +0.0, or -0.0 conjugated
                assert np.all(np.signbit(got.numpy()[:, 0].imag) == (name == "ihfft"))


def test_three_dims_and_gradients(spy):
    rng = np.random.default_rng(9)
    a = rng.standard_normal((300, 4, 6)).astype(np.float32)
    got = torch.fft.rfft(torch.from_numpy(a))
    assert spy == [True]
    _close(got.numpy(), np.fft.rfft(a.astype(np.float64)))
    w = torch.from_numpy(a).requires_grad_(True)
    r = torch.fft.rfft(w, norm="ortho")
    plain = torch.fft.rfft(torch.from_numpy(a), norm="ortho")
    assert spy == [True, True, True] and r.detach().numpy().tobytes() == plain.numpy().tobytes()
    r.abs().sum().backward()
    w64 = torch.from_numpy(a.astype(np.float64)).requires_grad_(True)
    torch.fft.rfft(w64, norm="ortho").abs().sum().backward()
    np.testing.assert_allclose(w.grad.numpy(), w64.grad.numpy(), rtol=0, atol=1e-5)


def test_other_inputs_keep_their_routes(spy):
    rng = np.random.default_rng(1)
    a = rng.standard_normal((2000, 6)).astype(np.float32)
    torch.fft.rfft(torch.from_numpy(a.astype(np.float64)))  # float64: pocketfft (np.fft's bits)
    torch.fft.rfft(torch.from_numpy(a)[:, :5])  # strided
    torch.fft.rfft(torch.from_numpy(a[:600]))  # small: under _MIN_SIZE
    torch.fft.rfft(torch.from_numpy(a), dim=0)  # another axis
    torch.fft.rfft(torch.from_numpy(rng.standard_normal((500, R._MAX_N + 1)).astype(np.float32)))
    torch.fft.fft(torch.from_numpy((a + 1j * a).astype(np.complex64)))  # complex input: c2c
    assert spy == []


@pytest.mark.parametrize("bad", [np.nan, np.inf, -np.inf])
def test_non_finite_input_takes_pocketfft(bad, spy):
    a = np.random.default_rng(2).standard_normal((1000, 6)).astype(np.float32)
    a[17, 3] = bad
    for name, onesided in (("rfft", True), ("fft", False)):
        got = getattr(torch.fft, name)(torch.from_numpy(a)).numpy()
        assert spy[-1] is False  # declined
        half = P.r2c(a, [1], 0)
        want = half if onesided else P.hermitian_fill(half, [1], 6)
        assert got.tobytes() == want.tobytes()
