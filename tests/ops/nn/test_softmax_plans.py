"""Note [Softmax plans]: the softmax/log_softmax bindings' cached plan of the tiny route gives the
body's bits, and everything it does not cover (modes, grad, forward AD, autocast, subclasses,
strided or large inputs, bad dims) still takes the op."""

from __future__ import annotations

import numpy as np
import pytest

import numtorch as torch
import numtorch.nn.functional as F
from numtorch.ops._registry import BINDINGS
from numtorch.ops.nn import softmax_fast
from numtorch.ops.reduction import scan
from numtorch.testing._internal.logging_tensor import LoggingTensorMode, capture_logs

_NAMES = ("softmax", "log_softmax")


def _body(name):
    (body,) = [b.body for b in BINDINGS if b.module == "torch" and b.name == name]
    return lambda x, d: body(x, d, None, None)


def _same(got, ref):
    assert got.dtype == ref.dtype and got.shape == ref.shape and got.stride() == ref.stride()
    assert type(got) is type(ref) and got._base is None
    assert got.numpy().tobytes() == ref.numpy().tobytes()


def _routes(monkeypatch):
    taken = []  # per call: whether the plan answered
    real = softmax_fast.softmax_plain
    monkeypatch.setattr(softmax_fast, "softmax_plain", lambda *a: taken.append(real(*a)) or taken[-1])
    return taken


def _spy_impl(monkeypatch):
    calls = []
    real = scan._softmax_impl
    monkeypatch.setattr(scan, "_softmax_impl", lambda *a: calls.append(a) or real(*a))
    return calls


@pytest.mark.parametrize("name", _NAMES)
@pytest.mark.parametrize("shape,dim", [((2, 3, 4), 1), ((2, 3, 4), -1), ((2, 3, 4), 0), ((5,), 0),
                                       ((4, 32), -1), ((128,), 0), ((1, 1), 1)])  # fmt: skip
@pytest.mark.parametrize("dtype", [torch.float32, torch.float64])
def test_plan_gives_the_bodys_bits(name, shape, dim, dtype, monkeypatch):
    rng = np.random.default_rng(3)
    vals = rng.standard_normal(shape) * 30
    flat = vals.reshape(-1)
    flat[: min(3, flat.size)] = [np.inf, -np.inf, np.nan][: min(3, flat.size)]  # the shift kernel's decline
    cases = [vals, rng.standard_normal(shape), np.full(shape, -np.inf), np.full(shape, 1e30)]
    body = _body(name)
    for v in cases:
        x = torch.from_numpy(v).to(dtype)
        ref = body(x, dim)
        for fn in (lambda x=x: getattr(torch, name)(x, dim), lambda x=x: getattr(x, name)(dim), lambda x=x: getattr(F, name)(x, dim)):
            for _ in range(3):  # the first calls make the entry and the plan
                _same(fn(), ref)
    calls = _spy_impl(monkeypatch)
    getattr(torch, name)(x, dim)
    assert calls == []  # the plan ran, not the op


def test_plan_route_is_taken(monkeypatch):
    x = torch.randn(3, 5)
    for _ in range(3):
        torch.softmax(x, 0)
    taken = _routes(monkeypatch)
    calls = _spy_impl(monkeypatch)
    r = torch.softmax(x, 0)
    assert [t is not None for t in taken] == [True] and calls == []
    _same(r, _body("softmax")(x, 0))


def _warm(x, dim, name="softmax"):
    for _ in range(3):
        getattr(torch, name)(x.detach(), dim)


def test_everything_else_takes_the_op(monkeypatch):
    x = torch.randn(2, 3, 4)
    _warm(x, 1)
    taken = _routes(monkeypatch)

    def declined():
        r = [t is not None for t in taken]
        taken.clear()
        return r and not any(r)

    xg = x.clone().requires_grad_(True)
    y = torch.softmax(xg, 1)
    assert y.grad_fn is not None and declined()
    y[:, 0].sum().backward()
    assert xg.grad is not None
    with torch.no_grad():  # nothing to record: the plan
        _same(torch.softmax(xg, 1), _body("softmax")(x, 1))
    assert taken == [taken[0]] and taken[0] is not None
    taken.clear()
    with capture_logs() as logs, LoggingTensorMode():
        torch.softmax(x, 1)
    assert any("softmax" in line for line in logs) and declined()
    import numtorch.autograd.forward_ad as fwAD

    with fwAD.dual_level():
        d = fwAD.make_dual(x, torch.ones(2, 3, 4))
        assert fwAD.unpack_dual(torch.log_softmax(d, 1)).tangent is not None and declined()
    with torch.autocast("cpu", dtype=torch.bfloat16):
        torch.softmax(x, 1)
    assert taken == []  # the composite's autocast rule, before any plan
    xt = torch.randn(4, 3, 2).transpose(0, 2)  # strided: the op
    _warm(xt.contiguous(), 1)
    taken.clear()
    _same(torch.softmax(xt, 1), _body("softmax")(xt, 1))
    assert declined()
    big = torch.randn(3, 300)
    for _ in range(3):
        _same(torch.softmax(big, 1), _body("softmax")(big, 1))
    assert declined()
    for _ in range(3):
        _same(torch.softmax(x, True), _body("softmax")(x, True))  # bool dim: the body's handling
    assert declined()


def test_subclasses_get_the_ops_class(monkeypatch):
    class Sub(torch.Tensor):
        pass

    class TF(torch.Tensor):
        @classmethod
        def __torch_function__(cls, func, types, args=(), kwargs=None):
            return super().__torch_function__(func, types, args, kwargs or {})

    x = torch.randn(2, 3)
    for cls in (Sub, TF, torch.nn.Parameter):
        s = x.as_subclass(cls) if cls is not torch.nn.Parameter else torch.nn.Parameter(x, requires_grad=False)
        with monkeypatch.context() as m:  # the route without plans
            m.setattr(softmax_fast, "softmax_plain", lambda *a: None)
            ref = torch.softmax(s, 1)
        for _ in range(3):
            r = torch.softmax(s, 1)
            assert type(r) is type(ref)
            assert r.numpy().tobytes() == ref.detach().numpy().tobytes()


@pytest.mark.parametrize("name", _NAMES)
def test_errors_are_the_bodys(name):
    x = torch.randn(2, 3)
    body = _body(name)
    for dim in (2, -3, 5):
        for _ in range(3):
            with pytest.raises(IndexError) as fast:
                getattr(torch, name)(x, dim)
            with pytest.raises(IndexError) as ref:
                body(x, dim)
            assert str(fast.value) == str(ref.value)
    i = torch.ones(3, dtype=torch.int64)
    for _ in range(3):
        with pytest.raises(NotImplementedError, match="not implemented for 'Long'"):
            getattr(torch, name)(i, 0)
