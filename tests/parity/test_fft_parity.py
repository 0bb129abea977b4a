"""numtorch.fft against torch.fft: values, dtypes, errors and gradients on the same inputs."""

from __future__ import annotations

import numpy as np
import pytest

import numtorch

torch = pytest.importorskip("torch")

_NAMES = ["fft", "ifft", "rfft", "irfft", "hfft", "ihfft", "fft2", "ifft2", "rfft2", "irfft2", "hfft2", "ihfft2",
          "fftn", "ifftn", "rfftn", "irfftn", "hfftn", "ihfftn"]  # fmt: skip


def _kwargs(name):
    nd = name[-1] in "2n"
    return [{}, {"norm": "ortho"}, {"norm": "forward"}, {"s": (3, 5)} if nd else {"n": 5},
            {"s": (5,), "dim": (0,)} if nd else {"n": 8, "dim": 0}]  # fmt: skip


def _run(lib, name, a, kw):
    try:
        r = getattr(lib.fft, name)(lib.tensor(a), **kw)
        return r.resolve_conj().numpy() if lib is torch else r.numpy()
    except Exception as exc:  # noqa: BLE001 - the error itself is compared
        return (type(exc).__name__, str(exc))


@pytest.mark.parametrize("name", _NAMES)
@pytest.mark.parametrize("dtype", ["float32", "float64", "complex64", "complex128"])
def test_values_dtypes_and_errors_match_torch(name, dtype):
    rng = np.random.default_rng(0)
    a = rng.standard_normal((4, 6))
    if dtype.startswith("complex"):
        a = a + 1j * rng.standard_normal((4, 6))
    a = a.astype(dtype)
    for kw in _kwargs(name):
        want, got = _run(torch, name, a, kw), _run(numtorch, name, a, kw)
        if isinstance(want, tuple) or isinstance(got, tuple):
            assert want == got, kw
            continue
        assert got.dtype == want.dtype and got.shape == want.shape, kw
        tol = 1e-5 if dtype in ("float32", "complex64") else 1e-12
        np.testing.assert_allclose(got, want, rtol=tol, atol=tol)


@pytest.mark.parametrize("name", _NAMES)
def test_gradients_match_torch(name):
    rng = np.random.default_rng(1)
    complex_in = not name.startswith(("rfft", "ihfft"))
    a = rng.standard_normal((4, 6)) + (1j * rng.standard_normal((4, 6)) if complex_in else 0)
    grads = []
    for lib in (torch, numtorch):
        x = lib.tensor(a, requires_grad=True)
        y = getattr(lib.fft, name)(x, norm="ortho")
        w = lib.tensor(np.cos(np.arange(np.prod(y.shape))).reshape(tuple(y.shape)))
        loss = (y.abs() * w).sum()
        loss.backward()
        grads.append(x.grad.resolve_conj().numpy() if lib is torch else x.grad.numpy())
    np.testing.assert_allclose(grads[1], grads[0], rtol=1e-10, atol=1e-10)


def test_freqs_and_shifts_match_torch():
    for n, d in ((5, 1.0), (8, 0.1)):
        np.testing.assert_allclose(numtorch.fft.fftfreq(n, d).numpy(), torch.fft.fftfreq(n, d).numpy())
        np.testing.assert_allclose(numtorch.fft.rfftfreq(n, d).numpy(), torch.fft.rfftfreq(n, d).numpy())
    x = np.arange(24).reshape(2, 3, 4)
    for dim in (None, 1, (0, 2)):
        assert numtorch.fft.fftshift(numtorch.tensor(x), dim).tolist() == torch.fft.fftshift(torch.tensor(x), dim).tolist()
        assert numtorch.fft.ifftshift(numtorch.tensor(x), dim).tolist() == torch.fft.ifftshift(torch.tensor(x), dim).tolist()
