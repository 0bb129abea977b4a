"""prelu's fast call runs Note [PReLU rows]' one-pass kernel (Note [Padding, pooling and prelu fast
calls]) and gives the body's bits: signed zeros, NaN, infinities, NaN and zero weights, empty
inputs, strided weights, one weight or one per channel, float32 and float64."""

from __future__ import annotations

import numpy as np
import pytest

import numtorch as torch
import numtorch.nn.functional as F
from numtorch.ops._registry import BINDINGS
from numtorch.ops.nn import fast_nn

from ._fastcheck import outcome, same


def _body():
    (b,) = [b for b in BINDINGS if b.module == "torch.nn.functional" and b.name == "prelu"]
    return b.body


def _spy(monkeypatch):
    ran = []
    real = fast_nn._prelu_rows

    def rows(a, w, C, S):
        ran.append((C, S))
        return real(a, w, C, S)

    monkeypatch.setattr(fast_nn, "_prelu_rows", rows)
    return ran


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64])
def test_kernel_gives_the_bodys_bits(dtype, monkeypatch):
    ran = _spy(monkeypatch)
    rng = np.random.default_rng(5)
    specials = np.array([0.0, -0.0, np.nan, np.inf, -np.inf, 1e-40, -1e-40, -3.5])
    weights = [np.array([0.25]), np.array(-1.5), np.array([0.1, np.nan, -0.0]), np.array([np.inf, 0.0, -2.0]),
               np.repeat(np.array([0.3, -0.7, 2.0]), 2)[::2]]  # fmt: skip
    for shape in [(2, 3, 4), (2, 3), (1, 3, 2, 5), (3,), (0, 3), (2, 3, 0), (4096 // 3, 3)]:
        v = rng.standard_normal(shape) * 4
        v.reshape(-1)[: min(v.size, specials.size)] = specials[: min(v.size, specials.size)]
        x = torch.from_numpy(v).to(dtype)
        for wv in weights:
            w = torch.from_numpy(wv).to(dtype)
            if w.numel() == 3 and x.dim() < 2 or x.dim() >= 2 and w.numel() not in (1, x.shape[1]):
                continue
            ran.clear()
            r, want = F.prelu(x, w), _body()(x, w)
            # the body of a 4-d input returns a reshape view of its (N, C, -1) result; PyTorch's
            # prelu and the fast call a new tensor (as on main before this kernel)
            assert not r._is_view() and type(r) is type(want) and r.shape == want.shape
            assert r.dtype == want.dtype and r.stride() == want.stride()
            assert r.numpy().tobytes() == want.numpy().tobytes()
            assert len(ran) == (1 if x.numel() else 0)  # the kernel ran (an empty input: the body)


def test_large_and_other_cases_take_the_body(monkeypatch):
    ran = _spy(monkeypatch)
    x = torch.randn(4100)
    for args in ((x, torch.tensor([0.2])), (torch.randn(2, 3).t(), torch.tensor([0.2, 0.3])),
                 (torch.randn(2, 3, 4), torch.tensor([0.1, 0.2])), (torch.tensor(1.0), torch.tensor(0.5))):  # fmt: skip
        same(outcome(F.prelu, *args), outcome(_body(), *args))
    assert not ran
