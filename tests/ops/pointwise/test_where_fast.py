"""Note [Where fast call]: where(c, x, y) / x.where(c, y) of three same-shape plain tensors run
the kernel's select from the binding, bit for bit the body's; everything else takes the body."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import numtorch as torch
from numtorch.ops.indexing import masked
from numtorch.ops.pointwise import where_fast
from numtorch.testing._internal.logging_tensor import LoggingTensorMode, capture_logs

from .._fastcall import binding, outcome, same


@pytest.fixture
def taken(monkeypatch):
    """One entry per where call the fast call served."""
    calls = []
    real = where_fast._where

    def spy(*a):
        r = real(*a)
        if r is not None:
            calls.append(1)
        return r

    monkeypatch.setattr(where_fast, "_where", spy)
    return calls


def _special(dt):
    if dt == np.float32:
        v = np.array([0.0, -0.0, np.inf, -np.inf, 1e-40, 3e38, 1.5], np.float32)
        nan = np.array([0x7FC00001, 0xFFC00002], np.uint32).view(np.float32)
        return np.concatenate([v, nan])
    if dt == np.bool_:
        return np.array([True, False, True, True, False, False, True, False, True])
    return np.array([0, 1, -1, 127, -128, 5, 7, -3, 2]).astype(dt)


@pytest.mark.parametrize("dt", [np.float32, np.float64, np.int8, np.int64, np.bool_, np.uint8])
@pytest.mark.parametrize("layout", ["contiguous", "transposed"])
def test_where_fast_is_the_body_bit_for_bit(dt, layout, taken):
    rng = np.random.default_rng(0)
    v = _special(np.float32 if dt == np.float64 else dt).astype(dt)
    a = np.resize(v, (3, 6))
    b = np.resize(v[::-1], (3, 6))
    c = rng.random((3, 6)) > 0.5
    x, y, cond = (torch.from_numpy(t.copy()) for t in (a, b, c))
    if layout == "transposed":
        x, y, cond = x.t(), y.t(), cond.t()
    want = masked._where_body(cond, x, y)  # the body
    for fn in (
        binding("where").fast[0],
        lambda c_, x_, y_: binding("where", "Tensor").fast[0](x_, c_, y_),
    ):
        n = len(taken)
        got = fn(cond, x, y)
        assert len(taken) == n + 1, "the fast call was not taken"
        same(got, want)
    n = len(taken)
    same(torch.where(cond, x, y), want)
    same(x.where(cond, y), want)
    assert len(taken) == n + 2


def test_other_calls_take_the_body(taken):
    x = torch.randn(3, 4)
    y = torch.randn(3, 4)
    c = x > 0
    fast = binding("where").fast[0]
    cases = [
        (c, x, 0.0),  # a number
        (c, x, torch.randn(4)),  # broadcasting
        (c, x, y.double()),  # promotion
        (c[0], x, y),  # a broadcast condition
        (c.to(torch.uint8), x, y),  # the deprecated uint8 condition (its warning)
        (x, x, y),  # a float condition: PyTorch's error
    ]
    for args in cases:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            r = outcome(fast, *args)
        same(r, outcome(masked._where_body, *args))
    with pytest.raises(RuntimeError, match="where expected condition to be a boolean tensor"):
        torch.where(x, x, y)
    o = torch.empty(3, 4)
    assert torch.where(c, x, y, out=o) is o
    g = x.clone().requires_grad_(True)
    r = torch.where(c, g, y)
    assert r.grad_fn is not None
    r.sum().backward()
    assert np.array_equal(g.grad._data, c._data.astype(np.float32))
    with capture_logs() as logs, LoggingTensorMode():
        torch.where(c, x, y)
    assert any("where" in line for line in logs)

    class Sub(torch.Tensor):
        pass

    assert type(torch.where(c, x.as_subclass(Sub), y)) is Sub
    assert not taken  # none of the above
    torch.where(c, x, y)
    assert taken
    a = torch.randn(3, 2, dtype=torch.float64, requires_grad=True)
    b = torch.randn(3, 2, dtype=torch.float64, requires_grad=True)
    m = a.detach() > 0
    assert torch.autograd.gradcheck(lambda p, q: torch.where(m, p, q), (a, b))
    assert torch.autograd.gradgradcheck(lambda p, q: torch.where(m, p, q), (a, b))


def test_a_library_kernel_takes_the_body():
    x = torch.randn(2, 2)
    c = x > 0
    lib = torch.library.Library("aten", "IMPL")
    seen = []
    lib.impl("where.self", lambda c_, a, b: seen.append(1) or masked._where_cpu(c_, a, b), "CPU")
    try:
        torch.where(c, x, x)
        assert seen
    finally:
        lib._destroy()
    n = len(seen)
    torch.where(c, x, x)
    assert len(seen) == n


def test_large_inputs_take_np_where(taken, monkeypatch):
    calls = []
    real = np.putmask
    monkeypatch.setattr(where_fast.np, "putmask", lambda *a: calls.append(1) or real(*a))
    for n, small in ((where_fast._PUTMASK_MAX, True), (where_fast._PUTMASK_MAX + 1, False)):
        x = torch.randn(n)
        y = torch.randn(n)
        c = x > 0
        calls.clear()
        r = torch.where(c, x, y)
        assert bool(calls) == small and np.array_equal(r._data, np.where(c._data, x._data, y._data))
    assert len(taken) == 2
