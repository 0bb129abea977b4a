"""Note [Elementwise loss binding fast calls]: F.smooth_l1_loss / F.huber_loss fast calls give
their bodies' bits (the same kernel and reduction) or decline: broadcasting, other dtypes,
legacy arguments, weights, beta 0 or negative, strided operands, gradients and modes."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import numtorch as torch
import numtorch.nn.functional as F
from numtorch.ops.nn import loss_fast
from numtorch.testing._internal.logging_tensor import LoggingTensorMode, capture_logs

from .._fastcall import binding, outcome, same


def _pair(shape, dtype, seed=0):
    rng = np.random.default_rng(seed)
    x = rng.standard_normal(shape) * 2
    t = rng.standard_normal(shape)
    if x.size > 3:
        x.flat[:3] = [np.nan, np.inf, -0.0]
    return torch.from_numpy(x.astype(dtype)), torch.from_numpy(t.astype(dtype))


def _routes(name, *args, **kw):
    """(fast outcome, body outcome, whether the fast route ran)."""
    b = binding(name, "torch.nn.functional")
    n = loss_fast.COUNT[0]
    got = outcome(lambda: getattr(F, name)(*args, **kw))
    ran = loss_fast.COUNT[0] > n
    want = outcome(lambda: b.body(*_full(name, args, kw)))
    return got, want, ran


def _full(name, args, kw):
    names = {"smooth_l1_loss": ("input", "target", "size_average", "reduce", "reduction", "beta"),
             "huber_loss": ("input", "target", "reduction", "delta", "weight")}[name]  # fmt: skip
    dflt = {"size_average": None, "reduce": None, "reduction": "mean", "beta": 1.0, "delta": 1.0, "weight": None}
    vals = dict(zip(names, args, strict=False))
    return [vals.get(k, kw.get(k, dflt.get(k))) for k in names]


_P = {"smooth_l1_loss": "beta", "huber_loss": "delta"}


@pytest.mark.parametrize("name", sorted(_P))
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("shape", [(3, 4), (7,), (2, 3, 5), (1,), (300, 500)])
@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
def test_fast_calls_give_the_bodys_bits(name, dtype, shape, reduction):
    x, t = _pair(shape, dtype)
    for p in (1.0, 0.7, 1e-3, 5.0):
        got, want, ran = _routes(name, x, t, reduction=reduction, **{_P[name]: p})
        assert ran
        same(got, want)


@pytest.mark.parametrize("name", sorted(_P))
def test_the_rest_takes_the_body(name):
    x, t = _pair((3, 4), np.float32)
    p = _P[name]
    cases = [
        ((x, t[:1]), {}), ((x, t.double()), {}), ((x.double(), t), {}), ((x.t(), t.t()), {}),
        ((x, t), {p: 0.0}), ((x, t), {p: -1.0}), ((x, t), {p: 1}), ((x, t), {p: True}),
        ((x, t), {"reduction": "bad"}), ((x, t), {"reduction": "elementwise_mean"}),
        ((x.int(), t.int()), {}), ((x[:0], t[:0]), {}),
    ]  # fmt: skip
    if name == "smooth_l1_loss":
        cases += [((x, t), {"size_average": False}), ((x, t), {"reduce": False})]
    else:
        cases += [((x, t), {"weight": torch.ones(3, 4)})]
    for args, kw in cases:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            got, want, ran = _routes(name, *args, **kw)
        assert not ran, (args, kw)
        same(got, want)
    xg = x.clone().requires_grad_(True)
    n = loss_fast.COUNT[0]
    r = getattr(F, name)(xg, t)
    assert r.grad_fn is not None
    r.backward()
    assert xg.grad is not None
    with capture_logs() as logs, LoggingTensorMode():
        getattr(F, name)(x, t)
    assert logs
    import numtorch.autograd.forward_ad as fwAD

    with fwAD.dual_level():
        d = fwAD.make_dual(x, torch.ones(3, 4))
        assert fwAD.unpack_dual(getattr(F, name)(d, t)).tangent is not None
    with torch.autocast("cpu", dtype=torch.bfloat16):
        getattr(F, name)(x, t)
    assert loss_fast.COUNT[0] == n
