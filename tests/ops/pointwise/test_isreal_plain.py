"""Note [Plain isreal]: isreal of a plain real C-contiguous tensor is a new bool array of ones,
as ones_like(self, dtype=bool); everything else dispatches ones_like (or compares imag)."""

from __future__ import annotations

import pytest

import numtorch as torch
from numtorch.ops.pointwise import extra
from numtorch.testing._internal.logging_tensor import LoggingTensorMode, capture_logs


def _spy(monkeypatch):
    calls = []
    real = extra.dispatch
    monkeypatch.setattr(extra, "dispatch", lambda *a: calls.append(1) or real(*a))
    return calls


@pytest.mark.parametrize("shape", [(3, 4), (5,), (), (0, 3), (2, 1, 3)])
@pytest.mark.parametrize(
    "dtype", [torch.float32, torch.float64, torch.int64, torch.uint8, torch.bool, torch.float16]
)
def test_plain_isreal_is_ones_like(shape, dtype, monkeypatch):
    x = torch.zeros(shape, dtype=dtype)
    want = torch.ones_like(x, dtype=torch.bool)
    calls = _spy(monkeypatch)
    for got in (torch.isreal(x), x.isreal()):
        assert got.dtype is torch.bool and got.shape == want.shape and got.stride() == want.stride()
        assert got.numpy().tobytes() == want.numpy().tobytes()
        got[...] = False  # a new array each call
    assert not calls, "the plain route was not taken"
    assert torch.isreal(x).all()


def test_other_calls_dispatch(monkeypatch):
    calls = _spy(monkeypatch)
    x = torch.arange(6.0).reshape(2, 3)
    t = torch.isreal(x.t())  # not contiguous: ones_like keeps the layout
    assert t.stride() == torch.ones_like(x.t(), dtype=torch.bool).stride() and t.all()
    assert torch.isreal(torch.tensor([1 + 0j, 1j])).tolist() == [True, False]
    assert torch.isreal(x.to(torch.bfloat16)).all()
    with capture_logs() as logs, LoggingTensorMode():
        torch.isreal(x)
    assert any("ones_like" in line for line in logs)
    assert len(calls) == 3  # non-contiguous, bfloat16, the mode (complex compares imag)
    with torch.inference_mode():
        assert torch.isreal(x).is_inference()
    xg = x.clone().requires_grad_(True)
    r = torch.isreal(xg)
    assert not r.requires_grad and r.all()
