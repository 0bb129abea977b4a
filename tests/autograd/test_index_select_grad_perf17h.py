"""index_select's gradient in NumPy (Note [index_select's gradient in NumPy]): taken where
nothing observes the formula's ops, the same bits as the ops (new_zeros + index_add) otherwise."""

from __future__ import annotations

import numpy as np
import pytest

import numtorch
from numtorch.autograd import gradcheck, gradgradcheck
from numtorch.ops.indexing import _index_select_grad as isg

from ._spy import OpLog


@pytest.fixture
def ops_calls(monkeypatch):
    seen = []
    real = isg._d
    monkeypatch.setattr(isg, "_d", lambda *a: seen.append(a[0]) or real(*a))
    return seen


def _case(shape, dim, idx, dt, seed=0):
    rng = np.random.default_rng(seed)
    a = rng.standard_normal(shape)
    w = None
    x = numtorch.tensor(a, dtype=dt, requires_grad=True)
    i = numtorch.tensor(idx, dtype=numtorch.int64)
    out = numtorch.index_select(x, dim, i)
    w = numtorch.tensor(rng.standard_normal(tuple(out.shape)), dtype=dt)
    return x, i, out, w


_CASES = [((4,), 0, [0, 2, 2, 3, 0]), ((3, 4), 1, [3, 1, 3]), ((2, 3, 4), -2, [2, 2, 2, 0]),
          ((2, 3, 4), 0, [1]), ((1, 2, 3, 4, 3), 2, [2, 1, 0, 1, 2]), ((3, 0), 0, [1, 1]),
          ((2, 3), 1, [])]  # fmt: skip


@pytest.mark.parametrize("dt", [numtorch.float32, numtorch.float64])
@pytest.mark.parametrize("shape,dim,idx", _CASES)
def test_numpy_route_matches_the_ops(ops_calls, dt, shape, dim, idx):
    x, i, out, w = _case(shape, dim, idx, dt)
    (out * w).sum().backward()
    assert ops_calls == []  # the route was taken
    fast = x.grad.detach().clone()
    x.grad = None
    (g,) = numtorch.autograd.grad((numtorch.index_select(x, dim, i) * w).sum(), x, create_graph=True)
    assert len(ops_calls) == 1  # a graph being built: the ops
    assert g.dtype == fast.dtype and g.shape == fast.shape and g.stride() == fast.stride()
    np.testing.assert_array_equal(g.detach().numpy(), fast.numpy())


def test_observers_take_the_ops(ops_calls):
    x, i, out, w = _case((3, 4), 1, [0, 0, 2], numtorch.float64)
    with OpLog(short=True) as log:
        out.backward(w)
    assert ops_calls and "index_add.default" in log.calls
    n = len(ops_calls)
    # other dtypes, a non-contiguous gradient, a 0-d input and int32 indices take the ops too
    for dt in (numtorch.complex128, numtorch.float16):
        y = numtorch.ones(3, 4, dtype=dt, requires_grad=True)
        numtorch.index_select(y, 1, i).sum().abs().backward() if dt.is_complex else numtorch.index_select(y, 1, i).sum().backward()
    y = numtorch.ones(4, 3, dtype=numtorch.float64, requires_grad=True)
    numtorch.index_select(y, 0, i).backward(numtorch.ones(3, 3, dtype=numtorch.float64).t())
    s = numtorch.tensor(2.0, dtype=numtorch.float64, requires_grad=True)
    numtorch.index_select(s, 0, numtorch.tensor([0])).sum().backward()
    numtorch.index_select(y, 0, i.int()).sum().backward()
    assert len(ops_calls) == n + 5
    np.testing.assert_array_equal(s.grad.numpy(), 1.0)


def test_gradcheck_and_the_saved_sizes():
    x = numtorch.randn(3, 4, dtype=numtorch.float64, requires_grad=True)
    i = numtorch.tensor([1, 1, 3, 0])
    assert gradcheck(lambda x: numtorch.index_select(x, 1, i), (x,))
    assert gradgradcheck(lambda x: numtorch.index_select(x, 1, i), (x,))
    y = x.clone()
    out = numtorch.index_select(y, 0, i[:2])
    y.mul_(2)  # only the input's size is saved: changing it in place does not matter
    out.sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), [[0.0] * 4, [2.0] * 4, [0.0] * 4])


def test_reflect_pad_3d_gradient():
    a = np.arange(24.0).reshape(1, 1, 2, 3, 4)
    x = numtorch.tensor(a, requires_grad=True)
    numtorch.nn.functional.pad(x, (1, 2, 2, 1, 0, 1), mode="reflect").sum().backward()
    # each input element counted as many times as the padding reads it, per dim
    cnt = [np.bincount(r, minlength=n) for r, n in (
        ((n - 1) - np.abs((n - 1) - np.abs(np.arange(-lo, n + hi))), n) for n, lo, hi in ((2, 0, 1), (3, 2, 1), (4, 1, 2)))]  # fmt: skip
    want = cnt[0][:, None, None] * cnt[1][None, :, None] * cnt[2][None, None, :]
    np.testing.assert_array_equal(x.grad.numpy()[0, 0], want)
