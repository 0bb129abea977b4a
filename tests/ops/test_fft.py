"""numtorch.fft: gradients through a real parametrisation, hfft2/hfftn identities, errors."""

from __future__ import annotations

import numpy as np
import pytest

import numtorch
from numtorch.autograd import gradcheck, gradgradcheck

_TRANSFORMS = ["fft", "ifft", "rfft", "irfft", "hfft", "ihfft", "fft2", "ifft2", "rfft2", "irfft2", "hfft2",
               "ihfft2", "fftn", "ifftn", "rfftn", "irfftn", "hfftn", "ihfftn"]  # fmt: skip


def _real_view(fn, complex_in: bool):
    # gradcheck compares real Jacobians: complex inputs and outputs travel as (..., 2) real views
    def f(x):
        y = fn(numtorch.view_as_complex(x) if complex_in else x)
        return numtorch.view_as_real(y) if y.dtype.is_complex else y

    return f


def _grad_cases():
    for name in _TRANSFORMS:
        nd = name[-1] in "2n"
        for complex_in in (False,) if name.startswith(("rfft", "ihfft")) else (False, True):
            for kw in ({}, {"norm": "ortho"}, {"s": (3, 7)} if nd else {"n": 7}, {"s": (2, 3)} if nd else {"n": 3}):
                yield pytest.param(name, complex_in, kw, id=f"{name}-{'c' if complex_in else 'r'}-{kw}")


@pytest.mark.parametrize("name,complex_in,kw", list(_grad_cases()))
def test_grad_and_gradgrad_match_finite_differences(name, complex_in, kw):
    numtorch.manual_seed(0)
    fn = getattr(numtorch.fft, name)
    x = numtorch.randn(*((3, 5, 2) if complex_in else (3, 5)), dtype=numtorch.float64, requires_grad=True)
    f = _real_view(lambda z: fn(z, **kw), complex_in)
    assert gradcheck(f, (x,))
    assert gradgradcheck(f, (x,))


def test_gradcheck_catches_a_wrong_fft_gradient():
    x = numtorch.randn(4, dtype=numtorch.float64, requires_grad=True)
    wrong = _real_view(lambda z: numtorch.fft.fft(z) * numtorch.tensor(1.0, dtype=numtorch.float64), False)
    assert gradcheck(wrong, (x,))  # the harness itself passes a right one ...
    y = numtorch.view_as_real(numtorch.fft.rfft(x))
    g = numtorch.randn(*y.shape, dtype=numtorch.float64)
    (gx,) = numtorch.autograd.grad(y, x, g)
    # ... and the value is PyTorch's adjoint formula, checked by hand: <J x', g> == <x', J^T g>
    xp = np.random.default_rng(1).standard_normal(4)
    jx = np.fft.rfft(xp)
    lhs = float(np.sum(jx.real * g.numpy()[:, 0] + jx.imag * g.numpy()[:, 1]))
    assert abs(lhs - float(xp @ gx.numpy())) < 1e-12


@pytest.mark.parametrize("name", ["hfft2", "hfftn"])
def test_hfftn_is_irfftn_of_the_conjugate_times_n(name):
    rng = np.random.default_rng(0)
    a = rng.standard_normal((4, 3)) + 1j * rng.standard_normal((4, 3))
    got = getattr(numtorch.fft, name)(numtorch.tensor(a)).numpy()
    want = np.fft.irfftn(np.conj(a), axes=(0, 1)) * (4 * 4)
    np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-12)
    r = rng.standard_normal((4, 6))
    inv = getattr(numtorch.fft, "i" + name)(numtorch.tensor(r)).numpy()
    np.testing.assert_allclose(inv, np.conj(np.fft.rfftn(r)) / r.size, rtol=1e-12, atol=1e-12)


def test_real_inputs_are_promoted_and_dtypes_kept():
    assert numtorch.fft.fft(numtorch.arange(4)).dtype is numtorch.complex64
    assert numtorch.fft.fft(numtorch.ones(4, dtype=numtorch.float64)).dtype is numtorch.complex128
    assert numtorch.fft.irfft(numtorch.ones(3, dtype=numtorch.complex64)).dtype is numtorch.float32


@pytest.mark.parametrize(
    "call,exc,text",
    [
        (lambda x: numtorch.fft.fft(x, n=0), RuntimeError, r"Invalid number of data points \(0\) specified"),
        (lambda x: numtorch.fft.fft(x, norm="bad"), RuntimeError, 'Invalid normalization mode: "bad"'),
        (lambda x: numtorch.fft.rfft(x.to(numtorch.complex64)), RuntimeError, "rfft expects a real input tensor, but got ComplexFloat"),
        (lambda x: numtorch.fft.rfftn(x.to(numtorch.complex64)), RuntimeError, "rfftn expects a real-valued input tensor"),
        (lambda x: numtorch.fft.fft(x.half()), RuntimeError, "Unsupported dtype Half"),
        (lambda x: numtorch.fft.fftn(x, s=(2,), dim=(0, 1)), RuntimeError, "dim and shape arguments must have the same length"),
        (lambda x: numtorch.fft.fftn(x, dim=(0, 0)), RuntimeError, "FFT dims must be unique"),
        (lambda x: numtorch.fft.fft(x, dim=2), IndexError, r"Dimension out of range \(expected to be in range of \[-2, 1\], but got 2\)"),
        (lambda x: numtorch.fft.irfft(numtorch.randn(1)), RuntimeError, r"Invalid number of data points \(0\) specified"),
        (lambda x: numtorch.fft.fft(numtorch.tensor(1.0)), IndexError, "Dimension specified as -1 but tensor has no dimensions"),
        (lambda x: numtorch.fft.fftfreq(5, dtype=numtorch.int64), RuntimeError, "fftfreq requires a floating point or complex dtype"),
    ],
)  # fmt: skip
def test_errors_match_pytorch(call, exc, text):
    with pytest.raises(exc, match=text):
        call(numtorch.randn(4, 6))


def test_frequencies_and_shifts():
    np.testing.assert_allclose(numtorch.fft.fftfreq(5, 0.5).numpy(), np.fft.fftfreq(5, 0.5).astype(np.float32))
    f = numtorch.fft.rfftfreq(6, dtype=numtorch.float64)
    assert f.dtype is numtorch.float64
    np.testing.assert_array_equal(f.numpy(), np.fft.rfftfreq(6))
    x = numtorch.arange(10).reshape(2, 5)
    assert numtorch.fft.ifftshift(numtorch.fft.fftshift(x)).tolist() == x.tolist()
    y = numtorch.randn(6, dtype=numtorch.float64, requires_grad=True)
    assert gradcheck(numtorch.fft.fftshift, (y,))


def test_out_argument():
    x = numtorch.randn(8)
    out = numtorch.empty(0, dtype=numtorch.complex64)
    assert numtorch.fft.fft(x, out=out) is out
    np.testing.assert_allclose(out.numpy(), np.fft.fft(x.numpy()), rtol=1e-5, atol=1e-5)
