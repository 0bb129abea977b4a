"""Note [Direct DFT of small single-precision transforms]: small float32/complex64 transforms are
direct float64-summed DFTs within float32 rounding of the exact transform, taken by the ops'
bodies and the fast calls alike (and not by float64, large or strided inputs); a real signal's
full spectrum is exactly Hermitian; fftshift/ifftshift of a small matrix run roll2d."""

from __future__ import annotations

import numpy as np
import pytest

import numtorch as torch
from numtorch.ops import fft_dft as S
from numtorch.ops import fft_fast as FF

from ._fastcall import binding as _binding

_NORMS = {0: ("backward", "forward"), 1: ("ortho", "ortho"), 2: ("forward", "backward")}


def _close(got, want):
    assert got.shape == want.shape and got.flags.c_contiguous
    scale = max(1.0, float(np.abs(want).max()))
    # float32 rounding of each output (the sums are float64): far tighter than pocketfft's
    # float32 loop, which the other FFT tests allow 2e-6 of the largest magnitude
    np.testing.assert_allclose(got.astype(np.complex128), want, rtol=0, atol=2e-7 * scale)


def _dim_sets(nd):
    out = [[nd - 1], [0], [0, nd - 1], [nd - 1, 0], list(range(nd))]
    if nd > 2:
        out.append([1, 0, 2])
    return [d for d in out if len(set(d)) == len(d)]


@pytest.mark.parametrize(
    "shape", [(7,), (1,), (2, 2), (4, 6), (3, 5, 4), (2, 1, 9), (8, 16), (2, 3, 4, 5)]
)
def test_direct_dfts_are_the_exact_transforms_within_float32_rounding(shape, monkeypatch):
    monkeypatch.setattr(S, "_MAX_WORK", 1 << 30)  # every size here through the kernels
    rng = np.random.default_rng(sum(shape))
    a = rng.standard_normal(shape).astype(np.float32)
    c = (a + 1j * rng.standard_normal(shape)).astype(np.complex64)
    a64, c64 = a.astype(np.float64), c.astype(np.complex128)
    for dims in _dim_sets(len(shape)):
        for mode, (fwd, inv) in _NORMS.items():
            assert S.usable(a, dims) and S.usable(c, dims)
            _close(S.c2c(c, dims, mode, True), np.fft.fftn(c64, axes=dims, norm=fwd))
            _close(S.c2c(c, dims, mode, False), np.fft.ifftn(c64, axes=dims, norm=inv))
            half = np.fft.rfftn(a64, axes=dims, norm=fwd)
            full = np.fft.fftn(a64, axes=dims, norm=fwd)
            _close(S.r2c(a, dims, mode, True), half)
            _close(S.r2c(a, dims, mode, True, True), np.conj(half))
            _close(S.r2c(a, dims, mode, False), full)
            _close(S.r2c(a, dims, mode, False, True), np.conj(full))
            for last in (2 * (c.shape[dims[-1]] - 1) or 1, 2 * c.shape[dims[-1]] - 1):
                if not S.usable(c, dims, last):  # the half spectrum is not n // 2 + 1 long
                    continue
                s = [c.shape[d] for d in dims[:-1]] + [last]
                want = np.fft.irfftn(c64, s=s, axes=dims, norm=inv)
                got = S.c2r(c, dims, mode, last)
                assert got.dtype == np.float32
                _close(got, want)


def test_exact_values_at_quarter_turns_and_exactly_hermitian_spectra():
    x = torch.tensor([1.0, 0.0, -1.0, 0.0])
    assert torch.fft.fft(x).tolist() == [0j, 2 + 0j, 0j, 2 + 0j]  # no 1e-17 residues
    a = torch.randn(4, 6)
    for fn in (torch.fft.fft, torch.fft.ifft):  # the last axis: each row mirrors itself
        f = fn(a).numpy()
        assert np.array_equal(f, np.conj(np.roll(f[:, ::-1], 1, axis=1)))  # bit for bit, +-0
    for fn in (torch.fft.fft2, torch.fft.ifft2):  # both axes: X[j, k] = conj(X[-j, -k])
        f = fn(a).numpy()
        assert np.array_equal(f, np.conj(np.roll(f[::-1, ::-1], 1, axis=(0, 1))))


def _counting(monkeypatch):
    calls = []
    for name in ("c2c", "r2c", "c2r"):
        real = getattr(S, name)

        def spy(*a, _real=real, _name=name, **k):
            calls.append(_name)
            return _real(*a, **k)

        monkeypatch.setattr(S, name, spy)
    return calls


_CASES = [("fft", True), ("ifft", True), ("fft2", True), ("ifftn", True), ("rfft", False),
          ("rfft2", False), ("ihfft", False), ("irfft", True), ("irfftn", True), ("hfft", True),
          ("hfft2", True)]  # fmt: skip


@pytest.mark.parametrize("name,complex_too", _CASES)
def test_small_single_precision_calls_take_the_direct_dft_in_fast_call_and_body(
    name, complex_too, monkeypatch
):
    calls = _counting(monkeypatch)
    fn = getattr(torch.fft, name)
    b = _binding(name, "torch.fft")
    x = torch.randn(4, 6)
    inputs = [x, torch.randn(4, 6, dtype=torch.complex64)] if complex_too else [x]
    for t in inputs:
        del calls[:]
        fn(t)
        assert calls, "the fast call did not take the direct DFT"
        del calls[:]
        b.body(t, None, -1 if name[-1] not in "2n" else None, None, None)
        assert calls, "the body did not take the direct DFT"
    for t in (x.double(), torch.randn(64, 32), x.t()):  # float64, large, not C-contiguous
        del calls[:]
        fn(t)
        assert not calls


def test_float32_gradients_through_the_direct_dft_match_float64():
    x64 = torch.randn(3, 5, dtype=torch.float64)
    for name in ("fft2", "rfft2", "ihfft", "ifft"):
        fn = getattr(torch.fft, name)
        grads = []
        for t in (x64, x64.float()):
            t = t.detach().requires_grad_(True)
            y = fn(t)
            (y.real * torch.arange(y.numel()).reshape(y.shape) + y.imag).sum().backward()
            grads.append(t.grad.double())
        np.testing.assert_allclose(grads[1].numpy(), grads[0].numpy(), rtol=0, atol=1e-5)
    c = torch.randn(3, 4, dtype=torch.complex128)
    for name in ("irfft2", "hfft"):
        fn = getattr(torch.fft, name)
        grads = []
        for t in (c, c.to(torch.complex64)):
            t = t.detach().requires_grad_(True)
            y = fn(t)
            (y * torch.arange(y.numel()).reshape(y.shape)).sum().backward()
            grads.append(t.grad.to(torch.complex128))
        np.testing.assert_allclose(grads[1].numpy(), grads[0].numpy(), rtol=0, atol=1e-4)


def test_gradcheck_of_small_transforms():
    x = torch.randn(3, 4, dtype=torch.float64, requires_grad=True)
    c = torch.randn(3, 3, dtype=torch.complex128, requires_grad=True)
    for fn in (torch.fft.fft2, torch.fft.rfft2, torch.fft.ihfft):
        assert torch.autograd.gradcheck(lambda t, fn=fn: torch.view_as_real(fn(t)), (x,))
        assert torch.autograd.gradgradcheck(lambda t, fn=fn: torch.view_as_real(fn(t)), (x,))
    for fn in (torch.fft.irfft2, torch.fft.hfft, torch.fft.ifft):
        assert torch.autograd.gradcheck(
            fn if fn is not torch.fft.ifft else (lambda t: torch.view_as_real(torch.fft.ifft(t))),
            (c,),
        )


def test_small_shifts_run_roll2d(monkeypatch):
    real = FF._K.roll2d
    calls = []

    class K:
        @staticmethod
        def roll2d(*a):
            calls.append(1)
            return real(*a)

    monkeypatch.setattr(FF, "_K", K)
    x = torch.arange(20.0).reshape(4, 5)
    assert torch.fft.fftshift(x).tolist() == np.fft.fftshift(x.numpy()).tolist()
    assert torch.fft.ifftshift(torch.arange(5)).tolist() == [2, 3, 4, 0, 1]
    assert len(calls) == 2
    torch.fft.fftshift(torch.ones(2, 3, 4))  # three dims: the slice plan
    torch.fft.fftshift(torch.ones(0, 3))  # empty: no kernel
    torch.fft.fftshift(x.half())  # float16: not a kernel dtype
    assert len(calls) == 2


@pytest.mark.parametrize("special", [np.inf, -np.inf, np.nan])
@pytest.mark.parametrize(
    "call",
    [lambda t: torch.fft.fft(t), lambda t: torch.fft.rfft(t.real.contiguous()), lambda t: torch.fft.ifft2(t),
     lambda t: torch.fft.irfft(t), lambda t: torch.fft.fft(t.real.contiguous()), lambda t: torch.fft.ihfft(t.real.contiguous())],  # fmt: skip
)
def test_non_finite_inputs_take_pocketfft(call, special, monkeypatch):
    # a direct sum multiplies an infinity by the roots' exact zeros (NaN); pocketfft's
    # butterflies only add it: fft([inf, 0, 0, 0]) is inf+0j in every bin, as in PyTorch
    v = np.zeros((2, 4), np.complex64)
    v[0, 0] = special
    v[1, 1] = complex(1.0, special)
    ran = []
    real_c2c, real_r2c, real_c2r = S._K.c2c_nd, S._K.r2c_nd, S._K.c2r_nd

    def spy(real):
        def f(*args):
            ran.append(real(*args))
            return ran[-1]

        return f

    monkeypatch.setattr(S, "_K", type("K", (), {"c2c_nd": staticmethod(spy(real_c2c)),
                                                  "r2c_nd": staticmethod(spy(real_r2c)),
                                                  "c2r_nd": staticmethod(spy(real_c2r))}))  # fmt: skip
    got = call(torch.from_numpy(v))
    assert ran and not any(ran)  # the kernel saw the value and declined
    monkeypatch.setattr(S, "usable", lambda *a, **k: False)
    want = call(torch.from_numpy(v))
    assert got.dtype == want.dtype and got.shape == want.shape
    assert got.numpy().tobytes() == want.numpy().tobytes()


def test_fft_of_an_infinity_keeps_zero_imaginary_parts():
    r = torch.fft.fft(torch.tensor([np.inf, 0.0, 0.0, 0.0], dtype=torch.float32)).numpy()
    assert np.all(r.real == np.inf) and np.all(r.imag == 0)
