"""Note [Multi-margin binding fast call]: F.multi_margin_loss's fast call gives the body's bits
and leaves weights, other shapes and dtypes, bad targets, legacy arguments, gradients and
modes to the body."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import numtorch as torch
import numtorch.nn.functional as F
from numtorch.ops.nn import loss_fast
from numtorch.testing._internal.logging_tensor import LoggingTensorMode, capture_logs

from .._fastcall import binding, outcome, same

_SIG = ("input", "target", "p", "margin", "weight", "size_average", "reduce", "reduction")
_DEF = dict(p=1, margin=1.0, weight=None, size_average=None, reduce=None, reduction="mean")


def _routes(*args, **kw):
    b = binding("multi_margin_loss", "torch.nn.functional")
    vals = dict(_DEF, **dict(zip(_SIG, args, strict=False)), **kw)
    n = loss_fast.COUNT[0]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        got = outcome(lambda: F.multi_margin_loss(*args, **kw))
        ran = loss_fast.COUNT[0] > n
        want = outcome(lambda: b.body(*[vals[k] for k in _SIG]))
    return got, want, ran


def _case(n, c, dtype, seed=0):
    rng = np.random.default_rng(seed)
    x = rng.standard_normal((n, c)) * 2
    x.flat[:2] = [np.nan, -0.0]
    return torch.from_numpy(x).to(dtype), torch.from_numpy(rng.integers(0, c, n))


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64])
@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
@pytest.mark.parametrize("p", [1, 2])
def test_fast_call_gives_the_bodys_bits(dtype, reduction, p):
    for n, c in ((3, 4), (1, 1), (5, 2), (64, 33)):
        x, t = _case(n, c, dtype)
        for margin in (1.0, 0.3, 2, -1.5):
            got, want, ran = _routes(x, t, p, margin, reduction=reduction)
            assert ran
            same(got, want)


def test_the_rest_takes_the_body():
    x, t = _case(3, 4, torch.float32)
    cases = [
        ((x, torch.tensor([0, 4, 1])), {}), ((x, torch.tensor([0, -1, 1])), {}), ((x, t.int()), {}),
        ((x, t[:2]), {}), ((x, t.reshape(3, 1)), {}), ((x[0], t[:1]), {}), ((x.double(), t), {"weight": torch.ones(4)}),
        ((x, t), {"p": 3}), ((x, t), {"p": 2.0}), ((x, t), {"margin": True}), ((x, t), {"reduction": "bad"}),
        ((x, t), {"size_average": False}), ((x.t(), t[:1].expand(4).contiguous()), {}), ((x.half(), t), {}),
        ((x[:0], t[:0]), {}), ((x.int(), t), {}),
    ]  # fmt: skip
    for args, kw in cases:
        got, want, ran = _routes(*args, **kw)
        assert not ran, (args, kw)
        same(got, want)
    n = loss_fast.COUNT[0]
    xg = x.clone().requires_grad_(True)
    r = F.multi_margin_loss(xg, t)
    assert r.grad_fn is not None
    r.backward()
    assert xg.grad is not None
    with capture_logs() as logs, LoggingTensorMode():
        F.multi_margin_loss(x, t)
    assert logs and loss_fast.COUNT[0] == n
