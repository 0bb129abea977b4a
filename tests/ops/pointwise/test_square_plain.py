"""Note [Plain square]: a plain square is NumPy's product, bit for bit pow(x, 2)'s kernel;
everything else dispatches pow.Tensor_Scalar."""

from __future__ import annotations

import numpy as np
import pytest

import numtorch as torch
from numtorch.ops.pointwise import _square
from numtorch.testing._internal.logging_tensor import LoggingTensorMode, capture_logs


def _x(dtype):
    x = np.array([[-2.5, -0.0, 0.0, 0.3], [1.7, 3e38, np.nan, -np.inf], [1e-30, -1e-200, 7.0, -3.0]])
    return torch.from_numpy(x.astype(dtype))


def _spy(monkeypatch):
    calls = []
    real = _square.dispatch
    monkeypatch.setattr(_square, "dispatch", lambda *a: calls.append(1) or real(*a))
    return calls


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("shape", [(3, 4), (12,), (2, 3, 2), (1,)])
def test_plain_square_is_pow_bit_for_bit(dtype, shape, monkeypatch):
    x = _x(dtype).reshape(-1)[: int(np.prod(shape))].reshape(shape)
    calls = _spy(monkeypatch)
    r = torch.square(x)
    m = x.square()
    assert not calls, "the plain route was not taken"
    ref = torch.pow(x, 2)
    for got in (r, m):
        assert got.dtype == ref.dtype and got.shape == ref.shape and got.stride() == ref.stride()
        assert got.numpy().tobytes() == ref.numpy().tobytes()


def test_other_calls_dispatch_pow(monkeypatch):
    calls = _spy(monkeypatch)
    x = _x(np.float32)
    t = torch.square(x.t())  # not C-contiguous
    np.testing.assert_array_equal(t.numpy(), torch.pow(x.t(), 2).numpy())
    assert t.is_contiguous()
    for v in (torch.tensor(3.0), x.to(torch.float16), x.to(torch.complex64), torch.arange(4)):
        np.testing.assert_array_equal(torch.square(v).numpy(), torch.pow(v, 2).numpy())
    xg = x.clone().requires_grad_(True)
    y = torch.square(xg)
    assert y.grad_fn is not None
    y.nansum().backward()
    with capture_logs() as logs, LoggingTensorMode():
        torch.square(x)
    assert any("pow.Tensor_Scalar" in line for line in logs)
    assert len(calls) == 7  # non-contiguous, four dtypes or ranks, the gradient, the mode


def test_inference_and_no_grad():
    x = _x(np.float32).requires_grad_(True)
    with torch.no_grad():
        r = torch.square(x)
    assert r.grad_fn is None and not r.requires_grad
    with torch.inference_mode():
        assert torch.square(_x(np.float32)).is_inference()
