"""Note [Max unpool fast call]: F.max_unpool1d/2d/3d's fast call gives the body's bits and
view-ness, and the body keeps every error, mode, gradient and argument it does not cover."""

from __future__ import annotations

import numpy as np
import pytest

import numtorch as torch
import numtorch.nn.functional as F
from numtorch.ops._registry import BINDINGS
from numtorch.ops.nn import unpool_fast
from numtorch.testing._internal.logging_tensor import LoggingTensorMode, capture_logs

from ._fastcheck import outcome, same


def _body(n):
    (b,) = [b for b in BINDINGS if b.module == "torch.nn.functional" and b.name == f"max_unpool{n}d"]
    return b.body


def _spy(monkeypatch):
    ran = []
    for n in (1, 2, 3):
        (b,) = [b for b in BINDINGS if b.module == "torch.nn.functional" and b.name == f"max_unpool{n}d"]
        monkeypatch.setattr(b, "body", b.body)  # restored after the test
    real = unpool_fast._KR.minmax_all
    monkeypatch.setattr(unpool_fast, "_KR", type("K", (), {"minmax_all": staticmethod(
        lambda *a: ran.append(1) or real(*a))}))  # fmt: skip
    return ran


def _pooled(n, shape, k, s, p, dtype):
    x = torch.from_numpy(np.random.default_rng(n).standard_normal(shape)).to(dtype)
    pool = {1: F.max_pool1d, 2: F.max_pool2d, 3: F.max_pool3d}[n]
    return pool(x, k, s, p, return_indices=True)


_CASES = {1: [((2, 3, 7), 2, None, 0), ((3, 8), 3, 2, 1), ((1, 2, 9), (3,), [1], (1,))],
          2: [((2, 3, 5, 6), 2, None, 0), ((3, 5, 6), (2, 3), (1, 2), (1, 1)), ((1, 1, 4, 4), 3, 1, 1)],
          3: [((1, 2, 4, 5, 3), 2, None, 0), ((2, 4, 4, 4), (2, 2, 3), (1, 2, 1), (1, 0, 1)),
              ((2, 1, 4, 4, 6), (2, 2, 3), (2, 2, 3), 0)]}  # fmt: skip


@pytest.mark.parametrize("n", [1, 2, 3])
@pytest.mark.parametrize("dtype", [torch.float32, torch.float64])
def test_fast_call_gives_the_bodys_bits(n, dtype, monkeypatch):
    ran = _spy(monkeypatch)
    fits = 0
    for shape, k, s, p in _CASES[n]:
        y, idx = _pooled(n, shape, k, s, p, dtype)  # overlapping windows repeat indices
        args = (k, s, p, None)
        want = outcome(_body(n), y, idx, *args)
        ran.clear()
        same(outcome(getattr(F, f"max_unpool{n}d"), y, idx, *args), want)
        assert ran  # the fast call ran (its range check declines an index past the output)
        fits += not isinstance(want, tuple)
        # repeated indices with different values: the same assignment as the body's scatter
        rep = torch.zeros_like(idx)
        same(getattr(F, f"max_unpool{n}d")(y, rep, *args), _body(n)(y, rep, *args))
    assert fits >= 2


@pytest.mark.parametrize("n", [1, 2, 3])
def test_the_rest_takes_the_body(n, monkeypatch):
    shape, k, s, p = _CASES[n][-1]  # one whose indices fit the default output size
    y, idx = _pooled(n, shape, k, s, p, torch.float32)
    ran = _spy(monkeypatch)
    fn, body = getattr(F, f"max_unpool{n}d"), _body(n)
    big = idx.clone()
    big.view(-1)[0] = 10_000
    neg = idx.clone()
    neg.view(-1)[-1] = -1
    ranged = [(y, big, k, s, p, None), (y, neg, k, s, p, None), (y.double(), idx, k, s, p, None)]
    declined = [
        (y, idx.int(), k, s, p, None), (y, idx[..., :1], k, s, p, None), (y, idx, 2.0, s, p, None),
        (y, idx, True, s, p, None), (y, idx, (2,) * (n + 1), s, p, None), (y, idx, k, [], p, None),
        (y, idx, k, s, p, [2 * v for v in y.shape[-n:]]), (y.int(), idx, k, s, p, None),
        (y.reshape(-1), idx.reshape(-1), k, s, p, None), (y, idx, k, s, 50, None),
    ]  # fmt: skip
    for c in ranged + declined:
        ran.clear()
        want = outcome(body, *c)
        for _ in range(2):
            same(outcome(fn, *c), want)
        assert bool(ran) == any(c is r for r in ranged)  # the range check: the fast call ran
    ran.clear()
    yg = y.clone().requires_grad_(True)
    r = fn(yg, idx, k, s, p)
    assert r.grad_fn is not None
    r.sum().backward()
    assert yg.grad is not None
    with capture_logs() as logs, LoggingTensorMode():
        fn(y, idx, k, s, p)
    assert logs and not ran
