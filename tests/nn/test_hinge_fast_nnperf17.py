"""Note [Hinge embedding fast call]: F.hinge_embedding_loss's fast call gives the composite's
bits (NaN, infinities, signed zeros, targets other than +-1, every margin and reduction) and
leaves legacy arguments, other dtypes and shapes, errors, modes, gradients and registered
kernels to the body."""

from __future__ import annotations

import numpy as np
import pytest

import numtorch as torch
import numtorch.nn.functional as F
from numtorch.ops._registry import BINDINGS
from numtorch.ops.nn import hinge_fast
from numtorch.testing._internal.logging_tensor import LoggingTensorMode, capture_logs

from ._fastcheck import outcome, same


def _body(x, t, margin=1.0, size_average=None, reduce=None, reduction="mean"):
    (b,) = [b for b in BINDINGS if b.module == "torch.nn.functional" and b.name == "hinge_embedding_loss"]
    return b.body(x, t, margin, size_average, reduce, reduction)


def _spy(monkeypatch):
    ran = []
    real = hinge_fast._hinge
    monkeypatch.setattr(hinge_fast, "_hinge", lambda *a: ran.append(real(*a) is not None) or real(*a))
    return ran


@pytest.mark.filterwarnings("error")  # as quiet as the composite's kernels
@pytest.mark.parametrize("dtype", [torch.float32, torch.float64])
@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
def test_fast_call_gives_the_bodys_bits(dtype, reduction, monkeypatch):
    ran = _spy(monkeypatch)
    vals = np.array([0.0, -0.0, np.nan, np.inf, -np.inf, 1.0, -1.0, 2.5, -2.5, 1e-45, 0.3, 1e38])
    x = np.repeat(vals, 6)
    t = np.tile(np.array([1.0, -1.0, 0.0, 2.0, np.nan, -0.0]), vals.size)
    for margin in (1.0, 0.0, -0.0, -2.5, 2.5, np.inf, -np.inf, 1e-45):
        for shape in ((72,), (8, 9)):
            xi = torch.from_numpy(x.reshape(shape)).to(dtype)
            ti = torch.from_numpy(t.reshape(shape)).to(dtype)
            ran.clear()
            same(F.hinge_embedding_loss(xi, ti, margin, reduction=reduction), _body(xi, ti, margin, reduction=reduction))
            assert ran == [True]


def test_the_rest_takes_the_body(monkeypatch):
    x, t = torch.randn(3, 4), torch.randn(3, 4).sign()
    ran = _spy(monkeypatch)
    for args, kw in [((x, t, 1), {}), ((x, t), {"size_average": False}), ((x, t), {"reduce": False}),
                     ((x, t.double()), {}), ((x, t[0]), {}), ((x, t[:2]), {}), ((x, t), {"reduction": "bad"}),
                     ((x.half(), t.half()), {}), ((x, t.long()), {}), ((x, t), {"margin": True}), ((x, t), {"margin": float("nan")})]:  # fmt: skip
        same(outcome(F.hinge_embedding_loss, *args, **kw), outcome(_body, *args, **kw))
    assert True not in ran
    xg = x.clone().requires_grad_(True)
    r = F.hinge_embedding_loss(xg, t)
    r.backward()
    assert xg.grad is not None and True not in ran
    with capture_logs() as logs, LoggingTensorMode():
        F.hinge_embedding_loss(x, t)
    assert any("clamp_min" in s for s in logs) and True not in ran


def test_a_registered_kernel_replaces_the_fast_call():
    x, t = torch.randn(3, 4), torch.randn(3, 4).sign()
    want = F.hinge_embedding_loss(x, t)
    seen = []
    lib = torch.library.Library("aten", "IMPL")
    try:
        lib.impl("clamp_min", lambda *a, **k: seen.append(1) or torch.zeros(3, 4), "CPU")
        F.hinge_embedding_loss(x, t)
        assert seen
    finally:
        lib._destroy()
    same(F.hinge_embedding_loss(x, t), want)
