"""The engine's sum of a broadcast input's gradient (_backward._sum_to): sum_to_size's own calls
without its binding, the same values and the same ops a mode sees."""

from __future__ import annotations

import numpy as np
import pytest

import numtorch
from numtorch._size import Size
from numtorch.autograd import _backward

from ._spy import OpLog


@pytest.mark.parametrize("a_shape,b_shape", [((3, 1), (1, 4)), ((4,), (2, 3, 4)), ((1, 3, 1), (2, 3, 5)), ((), (2, 2))])
def test_broadcast_gradients_equal_sum_to_size(monkeypatch, a_shape, b_shape):
    calls = []
    real = numtorch.Tensor.sum_to_size
    monkeypatch.setattr(numtorch.Tensor, "sum_to_size", lambda self, *s: calls.append(s) or real(self, *s))
    rng = np.random.default_rng(0)
    a = numtorch.tensor(rng.standard_normal(a_shape), requires_grad=True)
    b = numtorch.tensor(rng.standard_normal(b_shape), requires_grad=True)
    w = numtorch.tensor(rng.standard_normal(np.broadcast_shapes(a_shape, b_shape)))
    (a * b * w).sum().backward()
    assert calls == []  # the binding is not called
    full_a = (b * w).detach()
    want = real(full_a, Size(a_shape))
    assert a.grad.shape == want.shape and a.grad.stride() == want.stride()
    np.testing.assert_array_equal(a.grad.numpy(), want.numpy())


def test_a_mode_sees_the_same_calls():
    a = numtorch.randn(4, requires_grad=True)
    b = numtorch.randn(2, 3, 4)
    with OpLog(short=True) as log:
        (a * b).sum().backward()
    g = numtorch.ones(2, 3, 4) * b
    with OpLog(short=True) as ref:
        g.sum_to_size(4)
    tail = [c for c in log.calls if c != "detach.default"][-len(ref.calls):]
    assert tail == ref.calls and "sum.dim_IntList" in ref.calls


def test_subclass_gradient_takes_the_binding(monkeypatch):
    class Sub(numtorch.Tensor):
        pass

    calls = []
    monkeypatch.setattr(_backward, "Size", lambda s: calls.append(s) or Size(s))
    g = numtorch.ones(2, 3).as_subclass(Sub)
    r = _backward._sum_to(g, (3,))
    assert calls == [(3,)] and tuple(r.shape) == (3,)
    assert _backward._sum_to(numtorch.ones(2, 3), (1, 3)).shape == (1, 3) and calls == [(3,)]


def test_expand_backward_takes_sum_to(monkeypatch):
    calls = []
    real = numtorch.Tensor.sum_to_size
    monkeypatch.setattr(numtorch.Tensor, "sum_to_size", lambda self, *s: calls.append(s) or real(self, *s))
    for shape, to in (((3, 1), (2, 3, 4)), ((4,), (3, 4)), ((2, 1, 3), (2, 5, 3))):
        x = numtorch.randn(*shape, dtype=numtorch.float64, requires_grad=True)
        w = numtorch.randn(*to, dtype=numtorch.float64)
        (x.expand(*to) * w).sum().backward()
        want = real(w, Size(shape))
        assert x.grad.shape == want.shape
        np.testing.assert_array_equal(x.grad.numpy(), want.numpy())
        assert numtorch.autograd.gradgradcheck(lambda x, to=to: x.expand(*to), (x.detach().requires_grad_(),))
    assert calls == []
