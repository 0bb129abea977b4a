"""Note [im2col of small planes by gather]: the gather writes the plane kernel's columns bit for
bit (padding, strides, dilation, groups' layout), convolutions and F.unfold of a batch of small
planes (and, since session 20, of a few samples) take it, and wide rows and large maps keep the
plane kernel."""

from __future__ import annotations

import numpy as np
import pytest

import numtorch as torch
import numtorch.nn.functional as F
from numtorch.ops.nn import conv
from numtorch.ops.nn import conv_gather as G

_GEOMS = [  # N, C, H, W, KH, KW, stride, padding, dilation
    (20, 2, 4, 4, 2, 2, (1, 2), (1, 0), (1, 1)),
    (17, 3, 5, 6, 3, 2, (2, 1), (1, 2), (1, 2)),
    (32, 1, 3, 3, 3, 3, (1, 1), (0, 0), (1, 1)),
    (16, 2, 7, 5, 2, 3, (3, 2), (2, 1), (2, 1)),
    (16, 2, 1, 9, 1, 3, (1, 2), (0, 4), (1, 3)),  # a 1-d convolution's planes
    (16, 1, 2, 2, 3, 3, (1, 1), (2, 2), (1, 1)),  # padding wider than the input
    (1, 2, 4, 4, 2, 2, (1, 1), (0, 0), (1, 1)),  # one sample (session 20)
    (3, 2, 5, 5, 3, 3, (2, 2), (1, 1), (1, 1)),
]


def _geo(C, H, W, KH, KW, S, P, D):
    OH = (H + 2 * P[0] - D[0] * (KH - 1) - 1) // S[0] + 1
    OW = (W + 2 * P[1] - D[1] * (KW - 1) - 1) // S[1] + 1
    return (C, H, W, KH, KW, S[0], S[1], P[0], P[1], D[0], D[1], OH, OW)


@pytest.mark.parametrize("dt", [np.float32, np.float64, np.int64])
@pytest.mark.parametrize("case", _GEOMS)
def test_gather_is_the_plane_kernel_bit_for_bit(case, dt):
    N, C, H, W, KH, KW, S, P, D = case
    x = np.random.default_rng(N).standard_normal((N, C, H, W))
    x[0, 0, 0, 0] = -0.0
    x = x.astype(dt)
    geo = _geo(C, H, W, KH, KW, S, P, D)
    got = np.full((N, C * KH * KW, geo[11] * geo[12]), 7, dt)
    want = np.full_like(got, 5)
    assert G.im2col(x.reshape(-1), got.reshape(-1), N, geo)
    conv.K.im2col(x.reshape(-1), want.reshape(-1), *geo)
    assert got.tobytes() == want.tobytes()


def test_batches_of_small_planes_take_the_gather(monkeypatch):
    calls = []
    real = G.im2col
    monkeypatch.setattr(G, "im2col", lambda *a: calls.append(real(*a)) or calls[-1])
    x, w = torch.randn(32, 2, 4, 4), torch.randn(3, 2, 2, 2)
    want = F.conv2d(x.double(), w.double(), None, (1, 2), (1, 0))
    xg = x.detach().requires_grad_()
    runs = [
        ("conv2d", x, w, None, (1, 2), (1, 0)),  # the fast call
        ("convolution", x, w, None, [1, 2], [1, 0], [1, 1], False, [0, 0], 1),
        ("conv2d", xg, w, None, (1, 2), (1, 0)),  # a grad to record: the body
    ]
    for name, *args in runs:
        del calls[:]
        got = getattr(F if name == "conv2d" else torch, name)(*args)
        assert calls == [True]
        np.testing.assert_allclose(got.detach().numpy(), want.numpy(), rtol=1e-5, atol=1e-5)
    del calls[:]
    F.unfold(x, 2)
    assert calls == [True]
    del calls[:]
    F.unfold(torch.randn(1, 2, 4, 4), 2)  # one sample: the kept map
    assert calls == [True]
    for args in ((torch.randn(16, 2, 4, 40), 2),  # wide rows
                 (torch.randn(16, 64, 8, 8), 3)):  # a large map  # fmt: skip
        del calls[:]
        F.unfold(*args)
        assert calls == [False]


def test_gradients_through_the_gather():
    x = torch.randn(16, 2, 4, 4, dtype=torch.float64, requires_grad=True)
    w = torch.randn(3, 2, 2, 2, dtype=torch.float64, requires_grad=True)
    assert torch.autograd.gradcheck(lambda a, b: F.conv2d(a, b, None, (1, 2), (1, 0)), (x, w))
