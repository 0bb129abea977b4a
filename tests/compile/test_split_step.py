"""split.Tensor in a plan runs as NumPy slices wrapped as views (direct.SplitStep), bitwise
eager's, aliasing like eager's views; anything else runs its node."""

from __future__ import annotations

import numpy as np
import pytest

import numtorch
from numtorch._compile import direct


def _eq(a, b) -> None:
    assert a.shape == b.shape and a.stride() == b.stride()
    np.testing.assert_array_equal(a.detach().numpy(), b.detach().numpy())


def _splits(cf) -> list:
    out = []
    for e in cf.cache.values():
        out += (e.aot.fwd_steps if e.aot is not None else e.steps) or []
    return [st for st in out if isinstance(st, direct.SplitStep)]


@pytest.mark.parametrize(("size", "dim"), [(4, 2), (3, -1), (5, 0), (2, 1), (9, 1)])
def test_split_runs_as_slices(size, dim):
    def f(x):
        return tuple(p * 1.0 for p in (x * 2.0).split(size, dim)), (x + 1.0).split(size, dim)

    cf = numtorch.compile(f)
    x = numtorch.randn(5, 6, 12)
    with numtorch.no_grad():
        for _ in range(2):
            a, b = cf(x), f(x)
            for u, v in zip(a[0] + a[1], b[0] + b[1], strict=True):
                _eq(u, v)
        assert len(_splits(cf)) == 2
        parts = cf(x)[1]
        assert all(p._base is parts[0]._base and p._version == parts[0]._version for p in parts)
        parts[-1][0, 0, 0] = 7.0  # a view of the add's result, as eager's split makes
        first = [0, 0, 0]
        first[dim % 3] = sum(p.shape[dim] for p in parts[:-1])
        assert parts[0]._base[tuple(first)].item() == 7.0 and parts[0]._version == parts[-1]._version


def test_split_in_a_training_plan_and_under_a_mode():
    from numtorch.utils._python_dispatch import TorchDispatchMode

    lin = numtorch.nn.Linear(4, 12)

    def f(x):
        q, k, v = lin(x).split(4, dim=-1)
        return (q * k).sum(-1, keepdim=True) * v

    cf = numtorch.compile(f)
    g = numtorch.Generator().manual_seed(0)
    for _ in range(3):
        x = numtorch.randn(3, 4, generator=g, requires_grad=True)
        y = x.detach().clone().requires_grad_(True)
        cf(x).sum().backward()
        f(y).sum().backward()
        _eq(x.grad, y.grad)
    assert _splits(cf)

    class Count(TorchDispatchMode):
        seen = []

        def __torch_dispatch__(self, func, types, args=(), kwargs=None):
            Count.seen.append(func.__name__)
            return func(*args, **(kwargs or {}))

    with numtorch.no_grad():
        cf(x)  # the no-grad key: captured, then planned
        with Count():
            _eq(cf(x), f(x))
    assert "split.Tensor" in Count.seen
