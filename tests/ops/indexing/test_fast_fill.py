"""The number routes of scatter and masked_fill and index_fill's number conversion (Note [Number
fill fast routes]) against the bodies: the same bits, dtype, strides and errors; plain calls take
the route (the body's checked_scalar never runs), and gradients, modes, autocast, subclasses and
bad arguments take the body."""

from __future__ import annotations

import math

import numpy as np
import pytest

import numtorch as torch
from numtorch.ops._registry import BINDINGS
from numtorch.ops.indexing import fast_fill, fast_index, masked, scatter
from numtorch.testing._internal.logging_tensor import LoggingTensorMode, capture_logs
from tests.ops._fastcall import outcome, same

_VALUES = (3, -1.5, 0.1, 1e300, -math.inf, math.nan, 2**62, 2**63, -(2**63), True, 1 + 2j)
_DTYPES = (torch.float32, torch.float64, torch.int64, torch.int32, torch.bool, torch.float16)


def _body(module, name):
    (b,) = [b for b in BINDINGS if b.module == module and b.name == name]
    return b.body.__wrapped__  # the body before the route (fast_fill.install)


def _x(dtype, *shape):
    a = np.random.default_rng(sum(shape)).standard_normal(shape) * 3
    return torch.from_numpy(a).to(dtype)


@pytest.fixture
def body_scalars(monkeypatch):
    """How often the bodies' checked_scalar ran (never on the number route)."""
    calls = []
    for mod in (scatter, masked):
        real = mod.checked_scalar
        monkeypatch.setattr(mod, "checked_scalar", lambda *a, real=real: calls.append(1) or real(*a))
    return calls


def _scatter_calls():
    i = torch.tensor([[0, 1, 2, 0], [1, 2, 0, 1]])
    for dt in _DTYPES:
        x = _x(dt, 3, 4)
        for v in _VALUES:
            yield x, 0, i, v
        yield x, 1, i[:, :3], 2
        yield x, -2, i, 5  # negative dim
        yield x, 0, torch.tensor([[0, 3]]), 1.0  # out of range: the body's error
        yield x, 2, i, 1.0  # bad dim
        yield x, 0, i.to(torch.int32), 1.0  # int32 index: the body's error
        yield x, 0, torch.tensor([[0, 1, 2, 0, 1]]), 1.0  # index wider than self
        yield x.t(), 0, i[:, :3], 7  # a transposed input: C-order result as the body's


@pytest.mark.parametrize("module", ["torch", "Tensor"])
def test_scatter_number_matches_body(module, body_scalars):
    body = _body(module, "scatter")
    fn = torch.scatter if module == "torch" else torch.Tensor.scatter
    ran = 0
    for x, dim, i, v in _scatter_calls():
        for args, kw in (((x, dim, i, v), {}), ((x, dim, i), {"value": v})):
            want = outcome(body, x, dim, i, None, v, None, *([None] if module == "torch" else []))
            body_scalars.clear()
            same(outcome(lambda *a, kw=kw: fn(*a, **kw), *args), want)
            taken = fast_fill._scatter_number(x, dim, i, v) is not None
            ran += taken
            # the route, or the body (that converts the number where it gets that far)
            assert not body_scalars if taken else body_scalars or isinstance(want, tuple), (x.dtype, dim, v)
    assert ran >= 30


def _mask_calls():
    m = torch.tensor([[True, False, True, False], [False, False, True, True], [True, True, True, False]])
    for dt in _DTYPES:
        x = _x(dt, 3, 4)
        for v in _VALUES:
            yield x, m, v
        yield x.t(), m.t(), -2  # transposed: the body's C-order copy
        yield x, m[0], 1.0  # a broadcast mask: the body
        yield x, m.to(torch.uint8), 1.0  # the body's error
        for vd in (torch.float32, torch.float64, torch.int64, torch.bool, torch.float16):
            yield x, m, torch.tensor(2.5).to(vd)  # a 0-d value tensor
        yield x, m, torch.tensor([1.0])  # a 1-d value: the body's error


@pytest.mark.parametrize("module", ["torch", "Tensor"])
def test_masked_fill_matches_body(module, body_scalars):
    body = _body(module, "masked_fill")
    fn = torch.masked_fill if module == "torch" else torch.Tensor.masked_fill
    ran = 0
    for x, m, v in _mask_calls():
        want = outcome(body, x, m, v)
        body_scalars.clear()
        same(outcome(fn, x, m, v), want)
        taken = fast_fill._masked_fill(x, m, v) is not None
        ran += taken
        assert not body_scalars if taken else body_scalars or isinstance(want, tuple), (x.dtype, m.shape, v)
    assert ran >= 25


def test_index_fill_converts_as_the_body():
    # 1e300 into float32 overflows: the body's error (the fast call wrote inf before)
    b = [b for b in BINDINGS if b.module == "torch" and b.name == "index_fill"][0]
    i = torch.tensor([0, 2])
    for dt in _DTYPES:
        x = _x(dt, 3, 4)
        for v in _VALUES:
            want = outcome(b.body, x, 1, i, v)
            same(outcome(torch.index_fill, x, 1, i, v), want)
            r = fast_index._index_fill(x, 1, i, v)
            if r is not None:
                same(r, want)
    with pytest.raises(RuntimeError, match="without overflow"):
        torch.zeros(3).index_fill(0, i, 1e300)


def test_grad_modes_autocast_and_subclasses_take_the_body(body_scalars):
    x = _x(torch.float64, 3, 4).requires_grad_()
    i = torch.tensor([[0, 1, 2, 0]])
    m = x.detach() > 0
    for call in (lambda t: t.scatter(0, i, 2.0), lambda t: torch.masked_fill(t, m, 2.0),
                 lambda t: t.masked_fill(m, torch.tensor(2.0, dtype=torch.float64))):  # fmt: skip
        body_scalars.clear()
        r = call(x)
        # recorded by the body; its kernel takes the route (Note [Kernels try the fast cores])
        assert r.grad_fn is not None and not body_scalars
        body_scalars.clear()
        call(x.detach())
        assert not body_scalars  # the route
        with LoggingTensorMode(), capture_logs() as logs:
            call(x.detach())
        assert logs
        with torch.autocast("cpu"):
            assert fast_fill._masked_fill(x.detach(), m, 2.0) is None
            assert fast_fill._scatter_number(x.detach(), 0, i, 2.0) is None
        with torch.enable_grad(), torch.autograd.forward_ad.dual_level():
            assert fast_fill._masked_fill(x.detach(), m, 2.0) is None

    class Sub(torch.Tensor):
        pass

    s = x.detach().as_subclass(Sub)
    assert fast_fill._masked_fill(s, m, 2.0) is None and fast_fill._scatter_number(s, 0, i, 2.0) is None
    assert type(s.masked_fill(m, 2.0)) is Sub and type(s.scatter(0, i, 2.0)) is Sub
    torch.autograd.gradcheck(lambda t: t.scatter(0, i, 2.0).masked_fill(m, -1.0), (x,))
    torch.autograd.gradgradcheck(lambda t: (t.scatter(0, i, 2.0).masked_fill(m, -1.0) * t), (x,))


def test_bad_arguments_take_the_body():
    x, i = torch.zeros(3), torch.tensor([0])
    with pytest.raises(TypeError, match="missing 1 required positional argument"):
        x.scatter(0, i)
    with pytest.raises(RuntimeError, match="reduce argument must be either add or multiply"):
        x.scatter(0, i, 1.0, reduce="max")
    with pytest.raises(TypeError):
        torch.masked_fill(x, x > 0, "a")
    out = torch.empty(3)
    torch.scatter(x, 0, i, 2.0, out=out)  # out=: the body
    assert out.tolist() == [2.0, 0.0, 0.0]
