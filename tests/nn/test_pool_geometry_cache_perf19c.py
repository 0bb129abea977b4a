"""Note [Pool geometry cache]: the 2-d/3-d pools keep a successful geometry per (shape,
arguments, op); calls that raise are never kept, and other argument kinds are worked out."""

from __future__ import annotations

import numpy as np
import pytest

import numtorch as torch
import numtorch.nn.functional as F
from numtorch.ops.nn import pooling, pooling3d


def _count(monkeypatch, mod):
    ran = []
    real = mod._work_out_geometry
    monkeypatch.setattr(mod, "_work_out_geometry", lambda *a: ran.append(a[1:]) or real(*a))
    pooling._GEOMETRY.clear()
    return ran


@pytest.mark.parametrize("n", [2, 3])
def test_kept_per_shape_and_arguments(n, monkeypatch):
    mod = pooling if n == 2 else pooling3d
    ran = _count(monkeypatch, mod)
    pool = F.max_pool2d if n == 2 else F.max_pool3d
    avg = F.avg_pool2d if n == 2 else F.avg_pool3d
    # with a gradient to record: the op's kernel (F's fast calls run pool plans, not this)
    x = torch.from_numpy(
        np.random.default_rng(n).standard_normal((2, 3) + (7,) * n)
    ).requires_grad_(True)
    first = pool(x, 3, 2, 1).detach()
    assert len(ran) == 1
    for k in (3, [3] * n, (3,) * n):  # a list and a tuple of the same ints: one geometry
        r = pool(x, k, 2, 1).detach()
        assert r.numpy().tobytes() == first.numpy().tobytes()
    assert len(ran) == 2
    pool(x, 3, 2, 1, ceil_mode=True)  # another argument, another shape, another op: new ones
    pool(x[:1], 3, 2, 1)
    avg(x, 3, 2, 1)
    assert len(ran) == 5
    pool(x, np.int64(3), 2, 1)  # not an int: worked out each call
    pool(x, np.int64(3), 2, 1)
    assert len(ran) == 7
    # the backward kernels read the kept geometry: the gradients of a fresh cache's
    for f in (pool, avg):
        xg = x.detach().clone().requires_grad_(True)
        f(xg, 3, 2, 1).sum().backward()
        pooling._GEOMETRY.clear()
        want = x.detach().clone().requires_grad_(True)
        f(want, 3, 2, 1).sum().backward()
        assert xg.grad.numpy().tobytes() == want.grad.numpy().tobytes()


@pytest.mark.parametrize("n", [2, 3])
def test_errors_are_never_kept(n, monkeypatch):
    mod = pooling if n == 2 else pooling3d
    ran = _count(monkeypatch, mod)
    pool = F.max_pool2d if n == 2 else F.max_pool3d
    x = torch.zeros((1, 2) + (3,) * n, requires_grad=True)
    for _ in range(2):
        with pytest.raises(RuntimeError, match="pad should be at most half"):
            pool(x, 2, 1, 2)
        with pytest.raises(RuntimeError, match="Output size is too small"):
            pool(x, 5)
    assert len(ran) == 4 and not pooling._GEOMETRY
