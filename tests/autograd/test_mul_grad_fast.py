"""mul's formula with a broadcast factor (Note [Broadcast product in mul's formula]): the NumPy
product is taken where the gate holds and gives the op's bits; everywhere else the op runs."""

from __future__ import annotations

import numpy as np
import pytest

import numtorch
from numtorch.autograd import gradcheck, gradgradcheck
from numtorch.ops.pointwise import _mul_grad

from ._spy import OpLog, numpy_spy


@pytest.fixture
def spy(monkeypatch):
    """Counts the NumPy route's calls."""
    return numpy_spy(monkeypatch, _mul_grad, "multiply", 0)


def _grads(fn, arrays, dtype, route=True, monkeypatch=None):
    xs = [numtorch.tensor(a, dtype=dtype, requires_grad=True) for a in arrays]
    if not route:
        monkeypatch.setattr(_mul_grad, "plain", lambda *t: False)
    fn(*xs).sum().backward()
    if not route:
        monkeypatch.undo()
    return [x.grad for x in xs]


_CASES = [
    (lambda a, b: numtorch.outer(a, b), [(3,), (4,)]),
    (lambda a, b: numtorch.kron(a, b), [(2, 3), (2, 2)]),
    (lambda a, b: a * b, [(3, 1), (4,)]),
    (lambda a, b: a * b, [(2, 3, 4), (3, 1)]),
    (lambda a, b: a * b.t(), [(3, 4), (4, 1)]),  # a transposed broadcast factor
    (lambda a, b: a * b[:, ::2], [(2, 3, 2), (3, 4)]),  # a strided one
    (lambda a, b: (a * 2).t() * b, [(4, 3), (4,)]),  # grad reaching a transposed product
]


@pytest.mark.parametrize("dtype", [numtorch.float32, numtorch.float64])
@pytest.mark.parametrize("fn, shapes", _CASES)
def test_broadcast_product_takes_numpy_and_matches_the_op(fn, shapes, dtype, spy, monkeypatch):
    rng = np.random.default_rng(1)
    arrays = [rng.standard_normal(s) for s in shapes]
    fast = _grads(fn, arrays, dtype)
    assert spy, "the NumPy product was not taken"
    del spy[:]
    slow = _grads(fn, arrays, dtype, route=False, monkeypatch=monkeypatch)
    assert not spy
    for f, s in zip(fast, slow, strict=True):
        assert f.dtype == s.dtype and f.shape == s.shape and f.stride() == s.stride()
        np.testing.assert_array_equal(f.numpy(), s.numpy())


def test_product_result_has_the_ops_layout_and_bits():
    rng = np.random.default_rng(2)
    for gshape, oshape in [
        ((3, 4), (4,)),
        ((3, 4), (3, 1)),
        ((2, 3, 4), (1, 3, 1)),
        ((5, 1), (5, 1, 1)),
    ]:
        g = numtorch.tensor(
            rng.standard_normal(np.broadcast_shapes(gshape, oshape)), dtype=numtorch.float32
        )
        o = numtorch.tensor(rng.standard_normal(oshape), dtype=numtorch.float32)
        with numtorch.no_grad():
            r = _mul_grad.product(g, o, lambda a, b: pytest.fail("fell back"))
            ref = numtorch.mul(g, o)
        assert r.stride() == ref.stride() and r.dtype == ref.dtype
        np.testing.assert_array_equal(r.numpy(), ref.numpy())


def _declines(g, o, spy):
    seen = []
    with numtorch.no_grad():
        _mul_grad.product(g, o, lambda a, b: seen.append(1) or numtorch.mul(a, b))
    return seen == [1] and not spy


def test_the_route_declines_what_it_cannot_stand_for(spy):
    g = numtorch.randn(3, 4)
    assert _declines(g, numtorch.randn(3, 4), spy)  # same shape: the contiguous kernel already
    assert _declines(g, 2.0, spy)  # mul.Scalar's formula: a number
    assert _declines(g, numtorch.randn(4, dtype=numtorch.float64), spy)  # mixed dtypes
    assert _declines(
        g.t().contiguous().t(), numtorch.randn(4, 1)[:3].t().expand(4, 3).t()[:, :1], spy
    )
    assert _declines(
        numtorch.randn(3, 4, dtype=numtorch.float16), numtorch.randn(4, dtype=numtorch.float16), spy
    )
    assert _declines(
        numtorch.randn(3, 4, dtype=numtorch.complex64),
        numtorch.randn(4, dtype=numtorch.complex64),
        spy,
    )
    big = numtorch.randn(3, 4000)
    assert _declines(big, numtorch.randn(4000), spy)  # above SMALL elements

    class Sub(numtorch.Tensor):
        pass

    assert _declines(g.as_subclass(Sub), numtorch.randn(4), spy)


def test_create_graph_modes_and_forward_ad_run_the_op(spy):
    a = numtorch.randn(3, dtype=numtorch.float64, requires_grad=True)
    b = numtorch.randn(4, dtype=numtorch.float64, requires_grad=True)
    (ga,) = numtorch.autograd.grad(numtorch.outer(a, b).sum(), a, create_graph=True)
    assert ga.requires_grad and not spy
    log = OpLog()
    with log:
        numtorch.outer(a, b).sum().backward()
    assert not spy and log.calls.count("aten.mul.Tensor") == 3
    assert gradcheck(lambda x, y: numtorch.outer(x, y), (a, b))
    assert gradgradcheck(lambda x, y: numtorch.outer(x, y), (a, b))
    assert gradcheck(lambda x, y: x * y, (a.reshape(3, 1), b))
    assert gradgradcheck(
        lambda x, y: numtorch.kron(x, y), (a.reshape(3, 1).detach().requires_grad_(), b)
    )


def test_complex_outer_gradient_is_unchanged():
    a = numtorch.randn(3, dtype=numtorch.complex128, requires_grad=True)
    b = numtorch.randn(4, dtype=numtorch.complex128, requires_grad=True)
    assert gradcheck(lambda x, y: numtorch.outer(x, y), (a, b))


def test_values_against_numpy():
    rng = np.random.default_rng(3)
    a, b = rng.standard_normal(3).astype(np.float32), rng.standard_normal(4).astype(np.float32)
    x, y = numtorch.tensor(a, requires_grad=True), numtorch.tensor(b, requires_grad=True)
    w = numtorch.tensor(rng.standard_normal((3, 4)).astype(np.float32))
    (numtorch.outer(x, y) * w).sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), (w.numpy() * b).sum(1), rtol=1e-6)
    np.testing.assert_allclose(y.grad.numpy(), (w.numpy() * a[:, None]).sum(0), rtol=1e-6)
