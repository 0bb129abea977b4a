"""Note [pocketfft without np.fft's wrappers] and Note [FFT fast calls]: the direct gufunc calls
are np.fft's bit for bit (single precision without normalisation: within float32 rounding of
them); the transforms' fast calls give their bodies' results bit for bit (values, dtype, shape,
strides, errors); plain calls take the fast route and modes, gradients, forward AD, out= and
subclasses take the body."""

from __future__ import annotations

import numpy as np
import pytest

import numtorch as torch
import numtorch.autograd.forward_ad as fwAD
from numtorch.ops import _pocketfft as P
from numtorch.ops import fft as F
from numtorch.testing._internal.logging_tensor import LoggingTensorMode, capture_logs

from ._fastcall import binding as _binding
from ._fastcall import outcome as _outcome
from ._fastcall import same as _same

_1D = ["fft", "ifft", "rfft", "irfft", "hfft", "ihfft"]
_ND = [f"{n}{s}" for n in _1D for s in ("2", "n")]
_SHIFTS = ["fftshift", "ifftshift"]
_NP_NORM = {0: "backward", 1: "ortho", 2: "forward"}


def _arrays():
    rng = np.random.default_rng(0)
    for dt in (np.float32, np.float64):
        for shape in ((7,), (4, 6), (3, 5, 4), (2, 1, 9)):
            a = rng.standard_normal(shape).astype(dt)
            yield a
            yield (a + 1j * rng.standard_normal(shape)).astype(np.result_type(dt, 1j))
    b = rng.standard_normal((6, 8))
    yield b.T  # Fortran order
    yield b[:, ::2]  # strided
    yield (b + 2j * b)[::2].T


def _dim_sets(nd):
    yield [nd - 1]
    yield [0]
    if nd > 1:
        yield [0, nd - 1]
        yield [nd - 1, 0]
        yield [-1, -2]
    if nd > 2:
        yield [1, 0, 2]


def _bits(x, y, mode=None):
    assert x.dtype == y.dtype and x.shape == y.shape and x.flags.c_contiguous
    if mode == 0 and x.dtype in (np.float32, np.complex64):
        # without normalisation np.fft's int factor 1 runs pocketfft's float64 loop; numtorch
        # runs the float32 one (Note [pocketfft without np.fft's wrappers]): float32 rounding
        scale = max(1.0, float(np.abs(y).max(initial=0.0)))
        np.testing.assert_allclose(x, y, rtol=0, atol=2e-6 * scale)
        return
    assert x.tobytes() == y.tobytes()


def test_single_precision_without_normalisation_runs_the_float32_loop():
    from numpy.fft import _pocketfft_umath as pfu

    a = np.random.default_rng(1).standard_normal((3, 7)).astype(np.float32)
    c = (a + 1j * a[::-1]).astype(np.complex64)
    one = np.float32(1.0)
    _bits(P.r2c(a, [1], 0), pfu.rfft_n_odd(a, one, out=np.empty((3, 4), np.complex64)))
    _bits(P.c2c(c, [1], 0, True), pfu.fft(c, one, out=np.empty((3, 7), np.complex64)))
    _bits(P.c2c(c, [1], 0, False), pfu.ifft(c, one, out=np.empty((3, 7), np.complex64)))
    _bits(P.c2r(c, [1], 0, 12), pfu.irfft(c, one, out=np.empty((3, 12), np.float32)))
    # not np.fft's float64 loop (which rounds differently for these values)
    assert P.c2c(c, [1], 0, True).tobytes() != np.fft.fft(c).tobytes()


def test_gufunc_calls_are_np_fft_bit_for_bit():
    for a in _arrays():
        for dims in _dim_sets(a.ndim):
            for mode, norm in _NP_NORM.items():
                if a.dtype.kind == "c":
                    _bits(P.c2c(a, dims, mode, True), np.fft.fftn(a, axes=dims, norm=norm), mode)
                    _bits(
                        P.c2c(a, dims, mode, False),
                        np.fft.ifftn(
                            a, axes=dims, norm={0: "forward", 1: "ortho", 2: "backward"}[mode]
                        ),
                        mode,
                    )
                    for last in (2 * (a.shape[dims[-1]] - 1) or 1, 2 * a.shape[dims[-1]] - 1):
                        s = [a.shape[d] for d in dims[:-1]] + [last]
                        want = np.fft.irfftn(
                            a, s=s, axes=dims, norm={0: "forward", 1: "ortho", 2: "backward"}[mode]
                        )
                        _bits(P.c2r(a, dims, mode, last), want, mode)
                else:
                    _bits(P.r2c(a, dims, mode), np.fft.rfftn(a, axes=dims, norm=norm), mode)  # fmt: skip


def _old_fill(half, dims, n):
    """The Hermitian fill as it was written before (np.roll of the flipped mirror)."""
    last, h = dims[-1], half.shape[dims[-1]]
    shape = list(half.shape)
    shape[last] = n
    full = np.empty(shape, half.dtype)
    idx = [slice(None)] * full.ndim
    idx[last] = slice(0, h)
    full[tuple(idx)] = half
    if n > h:
        src = [slice(None)] * half.ndim
        src[last] = slice(n - h, 0, -1)
        idx[last] = slice(h, n)
        mirror = np.conj(half[tuple(src)])
        for d in dims[:-1]:
            mirror = np.roll(np.flip(mirror, axis=d), 1, axis=d)
        full[tuple(idx)] = mirror
    return full


def test_hermitian_fill_is_the_rolled_mirror():
    for a in _arrays():
        if a.dtype.kind == "c":
            continue
        for dims in _dim_sets(a.ndim):
            dims = [d % a.ndim for d in dims]
            half = np.fft.rfftn(a, axes=dims)
            want = _old_fill(half, dims, a.shape[dims[-1]])
            _bits(P.hermitian_fill(half, dims, a.shape[dims[-1]]), want)
            _bits(P.hermitian_fill(half, dims, a.shape[dims[-1]], True), np.conjugate(want))


@pytest.mark.parametrize("dt", [np.complex64, np.complex128])
def test_hermitian_fill_kernel_of_many_rows_is_numpys_copy_bit_for_bit(dt):
    rng = np.random.default_rng(3)
    for n in (6, 7, 2, 1, 16):
        h = n // 2 + 1
        half = (rng.standard_normal((3000, h)) + 1j * rng.standard_normal((3000, h))).astype(dt)
        f = half.view(half.real.dtype)
        f[0, :] = np.array([np.nan, -np.nan, 0.0, -0.0, np.inf, -np.inf] * 6)[
            : f.shape[1]
        ]  # signs of NaN/0 kept
        got = P.hermitian_fill(half, [1], n)
        assert got.tobytes() == _old_fill(half, [1], n).tobytes()
        conj = P.hermitian_fill(half, [1], n, True)  # the conjugate, NaN and zero signs flipped
        assert conj.tobytes() == np.conjugate(got).tobytes()
        assert P.hermitian_fill(half.reshape(3, 1000, h), [2], n).tobytes() == got.tobytes()
        # small halves (hermitian_blocks): the last axis, and the last two (rows mirrored)
        for rows in ((5,), (2, 3), (1,), (4, 1)):
            small = half[: int(np.prod(rows))].reshape(rows + (h,))
            for dims in ([small.ndim - 1], [small.ndim - 2, small.ndim - 1]):
                want = _old_fill(small, dims, n)
                assert P.hermitian_fill(small, dims, n).tobytes() == want.tobytes()
                conj = P.hermitian_fill(small, dims, n, True)
                assert conj.tobytes() == np.conjugate(want).tobytes()


def _inputs():
    for a in _arrays():
        yield torch.from_numpy(np.array(a))
        yield torch.from_numpy(a)  # the same values in a non-C layout (the first three)
    yield torch.arange(6).reshape(2, 3)  # integers: the body converts
    yield torch.ones(2, 3, dtype=torch.float16)  # the body's error
    yield torch.ones(2, 1)  # irfft of one point: the body's error
    yield torch.ones(0, 3)
    yield torch.tensor(2.0)


def _dim_args(nd, one_d):
    if one_d:
        return (-1, 0, 1, nd, -nd - 1, 1.0)
    return (None, -1, (0,), (0, -1), [-1, 0], (0, 0), (0, nd), (), 0.5)


@pytest.mark.parametrize("name", _1D + _ND)
def test_fast_call_matches_body(name):
    b = _binding(name, "torch.fft")
    fn = getattr(torch.fft, name)
    one_d = name in _1D
    checked = 0
    for x in _inputs():
        for dim in _dim_args(x.ndim, one_d):
            for norm in (None, "forward", "ortho", "backward", "bad"):
                want = _outcome(b.body, x, None, dim, norm, None)
                _same(_outcome(fn, x, None, dim, norm), want)
                _same(_outcome(b.fast[0], x, None, dim, norm), want)
                checked += not isinstance(want, tuple)
    assert checked > 50
    # n / s resize the input: the body (same values as the plain call on a resized tensor)
    x = torch.randn(4, 6, dtype=torch.float64)
    kw = {"n": 5} if one_d else {"s": (3, 5)}
    _same(fn(x, **kw), b.body(x, *kw.values(), -1 if one_d else None, None, None))


@pytest.mark.parametrize("name", _SHIFTS)
def test_shift_fast_call_matches_body(name):
    b = _binding(name, "torch.fft")
    fn = getattr(torch.fft, name)
    big = torch.arange(5001 * 5).reshape(5001, 5)  # the kernel's size: every dtype kind it takes
    larges = [
        big,
        big.float(),
        big > 7,
        big.to(torch.complex64),
        big.to(torch.int16),
        big.double().t(),
        big.half(),
    ]
    for x in list(_inputs()) + [torch.arange(7), torch.arange(30).reshape(2, 3, 5) > 7] + larges:
        for dim in (None, 0, -1, (0, -1), [1], (0, 0), (5,), ()):
            want = _outcome(b.body, x, dim)
            _same(_outcome(fn, x, dim), want)
            _same(_outcome(b.fast[0], x, dim), want)


class _Refuse:
    def __getattr__(self, name):
        raise AssertionError("the body ran")


def test_plain_calls_take_the_fast_route(monkeypatch):
    def spy(*a, **k):
        raise AssertionError("the body ran")

    monkeypatch.setattr(F, "dispatch", spy)  # every body reaches its op through these two
    monkeypatch.setattr(F, "_ops", _Refuse())
    x = torch.randn(4, 6)
    c = torch.randn(4, 6, dtype=torch.complex128)
    for name in _1D + _ND:
        for t in (x, c) if not name.startswith(("rfft", "ihfft")) else (x,):
            assert getattr(torch.fft, name)(t).shape[0] in (4, 6)
            getattr(torch.fft, name)(t, norm="ortho", dim=0 if name in _1D else (0,))
    assert torch.fft.fftshift(x).shape == (4, 6) and torch.fft.ifftshift(x, (0,)).shape == (4, 6)
    with pytest.raises(AssertionError, match="the body ran"):  # the spies are live
        torch.fft.fft(x, n=3)
    with pytest.raises(AssertionError, match="the body ran"):
        torch.fft.fftshift(x.requires_grad_(True))


def test_modes_grad_forward_ad_out_and_subclasses_take_the_body():
    x = torch.randn(4, 6, dtype=torch.float64)
    with capture_logs(is_mode=True) as logs, LoggingTensorMode():
        (
            torch.fft.fft(x),
            torch.fft.ifft2(x.to(torch.complex128)),
            torch.fft.irfft(x),
            torch.fft.fftshift(x),
        )
    seen = " ".join(logs)
    assert "aten._fft_r2c" in seen and "aten._fft_c2c" in seen and "aten._fft_c2r" in seen
    assert "aten.roll" in seen
    w = x.clone().requires_grad_(True)
    for name in _1D + _ND + _SHIFTS:
        r = getattr(torch.fft, name)(w)
        assert r.grad_fn is not None, name
    with torch.no_grad():
        assert torch.fft.fft(w).grad_fn is None
    with fwAD.dual_level():
        d = fwAD.make_dual(x, torch.ones_like(x))
        p, t = fwAD.unpack_dual(torch.fft.rfft(d))
        assert t is not None
        _same(t, torch.fft.rfft(torch.ones_like(x)))
    out = torch.empty(0, dtype=torch.complex128)
    assert torch.fft.fft(x, out=out) is out
    _same(out, torch.fft.fft(x))

    class Sub(torch.Tensor):
        pass

    assert type(torch.fft.fft(x.as_subclass(Sub))) is Sub
    assert type(torch.fft.fftshift(x.as_subclass(Sub))) is Sub


def test_an_empty_transformed_dimension_is_pytorchs_error():
    for call in (lambda: torch.fft.fft2(torch.ones(0, 3)), lambda: torch.fft.rfft(torch.ones(0, 3), dim=0),
                 lambda: torch.fft.irfft2(torch.ones(3, 0)), lambda: torch.fft.ifftn(torch.ones(2, 0, 2))):  # fmt: skip
        with pytest.raises(RuntimeError, match=r"^Invalid number of data points \(0\) specified$"):
            call()
    assert torch.fft.fft(torch.ones(0, 3)).shape == (0, 3)  # only the batch is empty
    with pytest.raises(
        ValueError, match=r"Invalid number of FFT data points \(0\)"
    ):  # the op itself
        torch.ops.aten._fft_c2c(torch.ones(2, 0, dtype=torch.complex64), [1], 0, True)


def test_inference_mode_result_is_an_inference_tensor():
    x = torch.randn(4, 6)
    with torch.inference_mode():
        assert torch.fft.fft(x).is_inference() and torch.fft.fftshift(x).is_inference()


def test_without_the_gufuncs_np_fft_gives_the_same_results(monkeypatch):
    # NumPy 1.x has no numpy.fft._pocketfft_umath: the functions fall back to np.fft itself
    cases = []
    for a in _arrays():
        for dims in _dim_sets(a.ndim):
            for mode in _NP_NORM:
                if a.dtype.kind == "c":
                    last = 2 * a.shape[dims[-1]] - 1
                    cases.append((P.c2c, (a, dims, mode, True)))
                    cases.append((P.c2c, (a, dims, mode, False)))
                    cases.append((P.c2r, (a, dims, mode, last)))
                else:
                    cases.append((P.r2c, (a, dims, mode)))
                    cases.append((P.c2c, (a, dims, mode, True)))
    want = [fn(*args) for fn, args in cases]
    x = torch.randn(4, 6, dtype=torch.float32)
    want_op = torch.fft.rfft2(x, norm="ortho")
    monkeypatch.setattr(P, "_pfu", None)
    for (fn, args), w in zip(cases, want, strict=True):
        r = fn(*args)
        assert r.flags.c_contiguous
        # np.fft's float64 loop where the gufunc route runs the float32 one (see _bits)
        _bits(r, w, args[2])
    got = torch.fft.rfft2(x, norm="ortho")
    assert got.dtype == torch.complex64 and np.array_equal(got.numpy(), want_op.numpy())
