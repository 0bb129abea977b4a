"""Note [Two-level broadcast kernels]: a bias row, a column or an outer broadcast of two
C-contiguous same-dtype operands runs ``b_<roles>`` (body and op.fast alike), bit for bit the
row kernel's result, and leaves every other broadcast to the row or strided kernel."""

from __future__ import annotations

import numpy as np
import pytest

import numtorch as torch
from numtorch.ops._pointwise import strided_layout
from numtorch.ops.pointwise import _elementwise
from numtorch.ops.pointwise._broadcast_fast import two_level

from .test_ufunc_route import _special

SHAPES = [  # (x, y, roles, inner)
    ((16, 32), (32,), "ar", 32),
    ((32,), (16, 32), "ra", 32),
    ((16, 32), (16, 1), "ac", 32),
    ((16, 1), (16, 32), "ca", 32),
    ((16, 1), (1, 32), "cr", 32),
    ((1, 32), (16, 1), "rc", 32),
    ((16, 1), (32,), "cr", 32),
    ((2, 3, 4), (3, 4), "ar", 12),
    ((2, 3, 4), (2, 3, 1), "ac", 4),
    ((2, 3, 1), (4,), "cr", 4),
    ((3, 4, 1), (4, 1), "ar", 4),
    ((2, 5, 1, 1), (3, 4), "cr", 12),
]
OTHER = [
    ((2, 1, 4), (3, 1)),
    ((2, 1, 3, 4), (5, 1, 1)),
    ((4, 1, 8), (1, 5, 1)),
    ((2, 3, 4), (2, 1, 4)),
]  # not rows x inner


def test_two_level_splits_only_rows_by_inner():
    for a, b, roles, inner in SHAPES:
        shape = np.broadcast_shapes(a, b)
        assert two_level(a, b, shape) == (roles, inner), (a, b)
    for a, b in OTHER:
        assert two_level(a, b, np.broadcast_shapes(a, b)) is None, (a, b)


def _row_kernel(ew, dt, d, e, params):
    """The row (or strided) kernel's result for d op e, as before the two-level kernels."""
    shape = np.broadcast_shapes(d.shape, e.shape)
    _, result = ew.dtypes([torch.from_numpy(d), torch.from_numpy(e)])
    dest = np.empty(shape, result.np)
    variant, shp, parts = strided_layout(dest, (d, e), shape)
    with np.errstate(all="ignore"):
        ew.variants["bifc"[dt.category]].kernel(variant)(shp, *parts, *params)
    return dest


def _values(dt, shape, seed):
    v = _special(dt.np)
    return np.random.default_rng(seed).choice(v, size=shape)


# (complex operands keep no plan: the body's general path serves them)
CASES = [("add", torch.float32), ("add", torch.int64), ("mul", torch.float64), ("sub", torch.float64),
         ("mul", torch.bool), ("mul", torch.int8), ("div", torch.float32), ("div", torch.float64),
         ("lt", torch.float32), ("eq", torch.uint8), ("maximum", torch.float64), ("atan2", torch.float32)]  # fmt: skip


@pytest.mark.parametrize("name,dt", CASES, ids=str)
def test_two_level_kernel_is_the_row_kernel_bit_for_bit(name, dt, monkeypatch):
    packet = getattr(torch.ops.aten, name)
    op = getattr(packet, "Tensor" if "Tensor" in packet.overloads() else "default")
    ew = op.impls["cpu"].__self__
    params = [1] if len(op._schema.arguments) > 2 else []
    calls = []
    real = _elementwise.expanded_call
    monkeypatch.setattr(
        _elementwise, "expanded_call", lambda *a, **k: calls.append(1) or real(*a, **k)
    )
    for i, (a, b, roles, inner) in enumerate(SHAPES):
        d, e = _values(dt, a, i), _values(dt, b, 100 + i)
        x, y = torch.from_numpy(d), torch.from_numpy(e)
        want = _row_kernel(ew, dt, d, e, params)
        # no ufunc route for the same shapes, the kernels only; restored after the test (the
        # learned signature never learns it again, and test_ufunc_route needs it)
        monkeypatch.delitem(ew._uf, x.dtype, raising=False)
        with np.errstate(all="ignore"):
            op.fast(x, x, *params)  # learns the same-dtype signature
            first = op.fast(x, y, *params)  # the body: runs b_<roles>, keeps its entry
            n = len(calls)
            got = op.fast(x, y, *params)  # op.fast's broadcast branch: the kept entry
        assert len(calls) == n, "op.fast's broadcast branch did not take the plan"
        plan = ew._bp[(x.dtype, a, b)]
        assert plan[0] == want.shape and plan[5] == inner
        assert ew.variants["bifc"[dt.category]].kernel("b_" + roles).overloads, roles
        for r in (first, got):
            assert (
                r._data.dtype == want.dtype
                and r._data.shape == want.shape
                and r._data.flags.c_contiguous
            )
            assert r._data.tobytes() == want.tobytes(), (name, dt, a, b)


def test_other_broadcasts_keep_the_row_kernel():
    ew = torch.ops.aten.mul.Tensor.impls["cpu"].__self__
    for i, (a, b) in enumerate(OTHER):
        d, e = _values(torch.float32, a, i), _values(torch.float32, b, 50 + i)
        want = _row_kernel(ew, torch.float32, d, e, [])
        x, y = torch.from_numpy(d), torch.from_numpy(e)
        with np.errstate(all="ignore"):
            r = [x * y for _ in range(3)]
        assert ew._bp[(x.dtype, a, b)][5] == 0
        for got in r:
            assert got._data.tobytes() == want.tobytes()


def test_plans_hold_under_modes_grad_and_strided_operands():
    x = torch.randn(16, 32)
    b = torch.randn(32)
    want = (x._data + b._data).tobytes()
    for _ in range(2):
        assert (x + b)._data.tobytes() == want
    with torch.inference_mode():
        assert (x + b)._data.tobytes() == want
    xg = x.clone().requires_grad_()
    r = xg + b
    r.sum().backward()
    assert r._data.tobytes() == want and torch.equal(xg.grad, torch.ones(16, 32))
    xt = torch.randn(32, 16).t()  # not C-contiguous: not the plan, same values
    assert torch.equal(xt + b, torch.from_numpy(xt._data + b._data))
    with pytest.raises(RuntimeError, match="must match the size"):
        x + torch.randn(31)
