"""Note [Power-average pool fast calls]: F.lp_pool1d/2d/3d's fast calls give the composite's
bits (zeros and NaNs of either sign included) and leave the rest to it."""

from __future__ import annotations

import numpy as np
import pytest

import numtorch as torch
import numtorch.nn.functional as F
from numtorch.ops._registry import BINDINGS
from numtorch.ops.nn import lp_pool_fast
from numtorch.testing._internal.logging_tensor import LoggingTensorMode, capture_logs

from ._fastcheck import outcome, same


def _body(n):
    (b,) = [b for b in BINDINGS if b.module == "torch.nn.functional" and b.name == f"lp_pool{n}d"]
    return b.body


def _x(shape, dtype, seed=0):
    rng = np.random.default_rng(seed)
    a = rng.standard_normal(shape) * 3
    flat = a.reshape(-1)
    specials = [np.nan, -np.nan, -0.0, 0.0, np.inf, -np.inf, 1e-30, -1e-30]
    flat[rng.choice(flat.size, min(len(specials), flat.size), replace=False)] = specials[: flat.size]
    flat[-4:] = -0.0  # a window of -0.0: a -0.0 average for odd powers
    return torch.from_numpy(a).to(dtype)


def _spy(monkeypatch):
    ran = []
    real = lp_pool_fast._finish
    monkeypatch.setattr(lp_pool_fast, "_finish", lambda *a: ran.append(1) or real(*a))
    return ran


_CASES = {1: [((2, 3, 9), 3, 2, False), ((3, 8), 2, None, True), ((1, 2, 7), 1, 1, False)],
          2: [((1, 2, 5, 5), 2, 1, False), ((2, 4, 6), (2, 3), (1, 2), True), ((1, 1, 4, 4), [2, 2], None, False)],
          3: [((1, 2, 4, 4, 4), (2, 2, 3), (2, 1, 1), False), ((2, 3, 4, 5), 2, None, True)]}  # fmt: skip


@pytest.mark.parametrize("n", [1, 2, 3])
@pytest.mark.parametrize("dtype", [torch.float32, torch.float64])
@pytest.mark.parametrize("p", [1, 2, 3, 2.0, 3.0, 2.5, -1.0, 0.5])
def test_fast_call_gives_the_composites_bits(n, dtype, p, monkeypatch):
    ran = _spy(monkeypatch)
    fn = getattr(F, f"lp_pool{n}d")
    for seed, (shape, k, s, ceil) in enumerate(_CASES[n]):
        x = _x(shape, dtype, seed)
        want = outcome(_body(n), x, p, k, s, ceil)
        for _ in range(3):
            same(outcome(fn, x, p, k, s, ceil), want)
        xt = torch.from_numpy(np.repeat(x.numpy(), 2, axis=-1))[..., ::2]  # strided
        same(outcome(fn, xt, p, k, s, ceil), outcome(_body(n), xt, p, k, s, ceil))
    assert len(ran) == 4 * len(_CASES[n])


@pytest.mark.parametrize("n", [1, 2, 3])
def test_the_rest_takes_the_composite(n, monkeypatch):
    shape, k, s, ceil = _CASES[n][0]
    x = _x(shape, torch.float32)
    fn = getattr(F, f"lp_pool{n}d")
    ran = _spy(monkeypatch)
    bad = [(x, 0, k, s, ceil), (x, True, k, s, ceil), (x, "2", k, s, ceil), (x, 2.0, 2.0, s, ceil),
           (x, 2.0, (2,), s, ceil), (x, 2.0, (2,) * (n + 1), s, ceil), (x, 2.0, k, s, 1),
           (x.int(), 2.0, k, s, ceil), (x.half(), 2.0, k, s, ceil), (x, 2.0, 50, s, ceil)]  # fmt: skip
    for args in bad:
        want = outcome(_body(n), *args)
        same(outcome(fn, *args), want)
    assert not ran  # (a kernel larger than the input: the pool raises the same error after the pow)
    ran.clear()
    xg = x.clone().requires_grad_(True)
    r = fn(xg, 2.0, k, s, ceil)
    assert r.grad_fn is not None
    r.nansum().backward()
    assert xg.grad is not None
    with capture_logs() as logs, LoggingTensorMode():
        fn(x, 2.0, k, s, ceil)
    assert any("sign" in line for line in logs)
    assert not ran
