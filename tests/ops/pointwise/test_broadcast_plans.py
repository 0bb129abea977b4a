"""Note [Inlined broadcast plans]: op.fast serves a broadcast call of two same-dtype C-contiguous
operands (a bias row, a column, an outer broadcast, a 0-d operand) by the plan the body kept,
bit for bit the kernels' result; everything else still goes through the body."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import numtorch as torch
from numtorch.ops.pointwise import _elementwise, _expanded
from numtorch.ops.pointwise._ufunc_route import UFUNC_MAX, UFUNCS
from numtorch.testing._internal.logging_tensor import LoggingTensorMode, capture_logs

from .test_broadcast_ufunc import _bits, _cases
from .test_broadcast_ufunc import _pairs as _row_pairs
from .test_ufunc_route import _elementwise as _op_of
from .test_ufunc_route import _special, _spy


@pytest.fixture
def body_calls(monkeypatch):
    """Counts the body's expanded-operand calls (op.fast's broadcast branch skips them)."""
    calls = []
    real = _elementwise.expanded_call

    def spy(*a, **k):
        calls.append(1)
        return real(*a, **k)

    monkeypatch.setattr(_elementwise, "expanded_call", spy)
    return calls


def _pairs(dt):
    v = _special(dt)
    # a 0-d operand on either side, every special value in turn
    return (
        _row_pairs(dt) + [(np.array(s), v.copy()) for s in v] + [(v.copy(), np.array(s)) for s in v]
    )


def _kernel(ew, op, x, y, params):
    """The body without the ufunc: the kernels' result (the expanded or the row kernel)."""
    saved = ew._uf.pop(x.dtype)
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            return op.fast(x, y, *params)
    finally:
        ew._uf[x.dtype] = saved


@pytest.mark.parametrize("name,dt", list(_cases()), ids=lambda v: getattr(v, "__name__", v))
def test_broadcast_plan_is_the_kernel_bit_for_bit(name, dt, body_calls):
    op, ew = _op_of(name)
    for a, b in _pairs(dt):
        x, y = torch.from_numpy(a), torch.from_numpy(b)
        big = x if x.dim() else y
        params = [1] if len(op._schema.arguments) > 2 else []
        op.fast(big, big, *params)  # learns the same-dtype signature and the ufunc
        want = _kernel(ew, op, x, y, params)  # the dispatched kernels
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            op.fast(x, y, *params)  # the body keeps the plan
            n = len(body_calls)
            calls = _spy(ew, x.dtype)
            try:
                got = op.fast(x, y, *params)
            finally:
                ew._uf[x.dtype] = (UFUNCS[name][0], *ew._uf[x.dtype][1:])
        zerod = not (x.dim() and y.dim())
        if not zerod or got.numel() <= _expanded._BROADCAST_MAX.get(name, UFUNC_MAX):
            assert len(body_calls) == n, "op.fast's broadcast branch was not taken"
            assert bool(calls) == zerod  # the ufunc for a 0-d operand, else the row kernel's entry
        _bits(got, want, a, b)


def _fast(fn, *args):
    """fn(*args) and whether op.fast's broadcast branch served it (no Elementwise body ran)."""
    before = _expanded_calls[0]
    r = fn(*args)
    return r, _expanded_calls[0] == before


_expanded_calls = [0]


@pytest.fixture
def counted(monkeypatch):
    real = _elementwise.Elementwise.__call__

    def spy(*a, **k):
        _expanded_calls[0] += 1
        return real(*a, **k)

    monkeypatch.setattr(_elementwise.Elementwise, "__call__", spy)


@pytest.mark.parametrize(
    "shapes",
    [((16, 32), (32,)), ((16, 32), (16, 1)), ((16, 1), (1, 32)), ((16, 32), ()), ((), (4, 8))],
)
def test_dunder_and_function_take_the_plan(shapes, counted):
    x = torch.randn(*shapes[0])
    y = torch.randn(*shapes[1])
    want = x._data + y._data
    x + x if x.dim() else y + y  # the signature
    x + y  # the body keeps the plan
    for fn in (lambda a, b: a + b, torch.add, lambda a, b: torch.add(a, b, alpha=1)):
        r, fast = _fast(fn, x, y)
        assert fast and np.array_equal(r._data, want) and type(r) is torch.Tensor


def test_other_calls_go_through_the_body(counted):
    x = torch.randn(16, 32)
    b = torch.randn(32)
    x + x
    x + b
    assert _fast(torch.add, x, b)[1]
    # params, out=, another dtype, a strided operand, a mode: the body
    r, fast = _fast(lambda: torch.add(x, b, alpha=2))
    assert not fast and np.allclose(r._data, x._data + 2 * b._data)
    o = torch.empty(16, 32)
    r, fast = _fast(lambda: torch.add(x, b, out=o))
    assert not fast and r is o and np.array_equal(o._data, x._data + b._data)
    r, fast = _fast(lambda: x + b.double())
    assert not fast and r.dtype is torch.float64
    r, fast = _fast(lambda: x.t() + b[:16])
    assert not fast and np.array_equal(r._data, x._data.T + b._data[:16])

    class Sub(torch.Tensor):
        pass

    r, fast = _fast(lambda: x.as_subclass(Sub) + b)  # a plain subclass: the op sees a Tensor
    assert type(r) is Sub and np.array_equal(r._data, x._data + b._data)
    with capture_logs() as logs, LoggingTensorMode():
        r, fast = _fast(lambda: x + b)
    assert any("add.Tensor" in line for line in logs)  # the mode saw the call
    with torch.inference_mode():
        r, fast = _fast(lambda: x + b)
        assert fast and r.is_inference()
    # 131072 elements: the same row kernel's entry as the body's (Note [Broadcast ufunc route])
    big = torch.ones(512, 256)
    bb = torch.arange(256.0)
    big + bb
    r, fast = _fast(lambda: big + bb)
    assert fast and np.array_equal(
        r._data, 1 + np.arange(256, dtype=np.float32)[None].repeat(512, 0)
    )
    with pytest.raises(RuntimeError, match="must match the size"):
        torch.ones(2, 3) + torch.ones(4)


def test_recorded_calls_and_parameters(counted):
    x = torch.randn(16, 32)
    b = torch.nn.Parameter(torch.randn(32))
    x + x
    with torch.no_grad():
        r, fast = _fast(lambda: x + b)  # the body keeps the plan for a Parameter too
        r, fast = _fast(lambda: x + b)
    assert fast and type(r) is torch.Tensor and np.array_equal(r._data, x._data + b._data)
    xr = x.clone().requires_grad_(True)
    r, fast = _fast(lambda: xr + b)  # the recorded call's forward computes by the same route
    assert fast and r.grad_fn is not None
    r.sum().backward()
    assert np.array_equal(b.grad._data, np.full(32, 16, np.float32))
    assert np.array_equal(xr.grad._data, np.ones((16, 32), np.float32))
    a = torch.randn(3, 1, dtype=torch.float64, requires_grad=True)
    c = torch.randn(4, dtype=torch.float64, requires_grad=True)
    for f in (torch.add, torch.sub, torch.mul, torch.div):
        assert torch.autograd.gradcheck(f, (a, c))
        assert torch.autograd.gradgradcheck(f, (a, c))


def test_forward_ad_and_autocast_take_the_body(counted):
    import numtorch.autograd.forward_ad as fwAD

    x = torch.randn(4, 3, dtype=torch.float64)
    b = torch.randn(3, dtype=torch.float64)
    x + x
    x * b
    with fwAD.dual_level():
        d = fwAD.make_dual(x, torch.ones_like(x))
        out = d * b
        t = fwAD.unpack_dual(out).tangent
    assert np.array_equal(t._data, np.broadcast_to(b._data, (4, 3)))
    with torch.autocast("cpu", dtype=torch.bfloat16):
        y = torch.randn(4, 3) * torch.randn(3)
    assert y.dtype is torch.float32


def test_zero_dim_body_bounded():
    # the body's 0-d case takes the ufunc below the op's bound only
    op, ew = _op_of("logical_and")
    big = torch.ones(UFUNC_MAX + 1, dtype=torch.bool)
    op.fast(big, big)
    s = torch.tensor(True)
    ew._bp.clear()
    op.fast(big, s)
    assert not ew._bp
    op.fast(big[:UFUNC_MAX], s)
    assert ew._bp
    assert _expanded._BROADCAST_MAX["add"] > UFUNC_MAX
