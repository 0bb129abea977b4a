"""argmax/argmin/aminmax binding fast calls (Note [Argext binding fast calls]) against their
bodies: the same bits, dtype, shape and strides, or the same error; modes, out=, gradients,
other dtypes, strided and empty inputs take the body."""

from __future__ import annotations

from functools import partial

import numpy as np
import pytest

import numtorch as torch
from numtorch.ops.reduction import arg_fast
from numtorch.testing._internal.logging_tensor import LoggingTensorMode, capture_logs

from .._fastcall import binding, outcome, same

DTYPES = [np.float32, np.float64, np.int32, np.int64]


def _x(dtype, shape=(3, 4, 5)):
    rng = np.random.default_rng(2)
    x = rng.integers(-3, 4, shape).astype(dtype)  # ties
    if np.dtype(dtype).kind == "f":
        x.reshape(-1)[[3, 17, 40]] = np.nan
        x.reshape(-1)[5] = -0.0
    return torch.from_numpy(x)


def _pair_routes(fn, method, want):
    # both bindings took the fast route once each, with the body's return type and bits
    n = arg_fast.COUNT[0]
    r, m = fn(), method()
    assert arg_fast.COUNT[0] == n + 2
    want = want()
    assert type(r) is type(want) is type(m)
    for a, b, c in zip(r, m, want, strict=True):
        same(a, c)
        same(b, c)


ARGS = [(None, False), (None, True), (0, False), (1, True), (-1, False), (2, True), (-3, False)]


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("name", ["argmax", "argmin"])
def test_argext_fast_matches_the_body(dtype, name):
    x = _x(dtype)
    body = binding(name).body
    for dim, keepdim in ARGS:
        n = arg_fast.COUNT[0]
        r = getattr(torch, name)(x, dim, keepdim)
        m = getattr(x, name)(dim, keepdim)
        assert arg_fast.COUNT[0] == n + 2
        want = body(x, dim, keepdim, None)
        same(r, want)
        same(m, want)


@pytest.mark.parametrize("dtype", DTYPES)
def test_aminmax_fast_matches_the_body(dtype):
    x = _x(dtype)
    body = binding("aminmax").body
    for dim, keepdim in ARGS[2:]:
        _pair_routes(partial(torch.aminmax, x, dim=dim, keepdim=keepdim), partial(x.aminmax, dim=dim, keepdim=keepdim),
                     partial(body, x, dim, keepdim, None))  # fmt: skip


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("name", ["cummax", "cummin"])
def test_cumext_fast_matches_the_body(dtype, name):
    x = _x(dtype)
    body = binding(name).body
    for dim in (0, 1, 2, -1, -3):
        _pair_routes(partial(getattr(torch, name), x, dim), partial(getattr(x, name), dim), partial(body, x, dim, None))


@pytest.mark.parametrize("dtype", DTYPES)
def test_topk_fast_matches_the_body(dtype):
    x = _x(dtype)
    body = binding("topk").body
    for k, dim, largest in ((2, 1, True), (1, -1, False), (0, 0, True), (5, 2, False), (3, -3, True), (4, 1, True)):
        _pair_routes(partial(torch.topk, x, k, dim, largest), partial(x.topk, k, dim, largest, False),
                     partial(body, x, k, dim, largest, True, None))  # fmt: skip


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("name", ["median", "nanmedian"])
def test_whole_median_fast_matches_the_body(dtype, name):
    body = binding(name).body
    x = _x(dtype)
    allnan = torch.from_numpy(np.full(4, np.nan, dtype)) if np.dtype(dtype).kind == "f" else x[0, 0]
    for t in (x, x[1], x[0, 0, :1].contiguous(), allnan, x[2, :, 1].contiguous()):
        n = arg_fast.COUNT[0]
        r, m = getattr(torch, name)(t), getattr(t, name)()
        assert arg_fast.COUNT[0] == n + 2
        want = body(t, None, False, None)
        same(r, want)
        same(m, want)


def test_large_inputs():
    x = torch.from_numpy(np.random.default_rng(1).standard_normal((600, 400)).astype(np.float32))
    n = arg_fast.COUNT[0]
    lo, hi = torch.aminmax(x, dim=1)
    assert arg_fast.COUNT[0] == n + 1
    assert np.array_equal(lo.numpy(), x.numpy().min(1)) and np.array_equal(hi.numpy(), x.numpy().max(1))
    same(torch.argmax(x, 0), binding("argmax").body(x, 0, False, None))  # past the threshold: the body


@pytest.mark.parametrize(
    "call",
    [
        lambda x: torch.argmax(x, 3),
        lambda x: torch.argmin(x, -4, True),
        lambda x: torch.argmax(x, 1.0),
        lambda x: torch.argmax(x, (1,)),
        lambda x: torch.aminmax(x, dim=3),
        lambda x: torch.aminmax(x, dim=1, keepdim=1),
        lambda x: torch.argmax(x[:, :0]),
        lambda x: torch.argmax(x[:, :0], 1),
        lambda x: torch.aminmax(x[:, :0], dim=1),
        lambda x: torch.argmax(x.bool(), 1),
        lambda x: torch.aminmax(x[0, 0, 0], dim=0),
        lambda x: torch.argmax(x[0, 0, 0], 0),
        lambda x: torch.cummax(x, 3),
        lambda x: torch.cummin(x, 1.0),
        lambda x: torch.cummax(x[0, 0, 0], 0),
        lambda x: torch.cummin(x[0, 0, 0], 1),
        lambda x: torch.cummax(x[:, :0], 1),
        lambda x: torch.topk(x, 6, 1),
        lambda x: torch.topk(x, -1, 1),
        lambda x: torch.topk(x, 2, 3),
        lambda x: torch.topk(x, 2.0, 1),
        lambda x: torch.topk(x, 1, 1, 1),
        lambda x: torch.topk(x.bool(), 1, 1),
        lambda x: torch.topk(x[0, 0, 0], 1),
        lambda x: torch.topk(x[:, :0], 0, 1),
        lambda x: torch.topk(torch.zeros(2, 200), 100),
        lambda x: torch.median(x[:0]),
        lambda x: torch.nanmedian(x.bool()),
        lambda x: torch.median(x, keepdim=True),
        lambda x: torch.median(x.transpose(0, 1)),
    ],
)
def test_errors_and_edges_are_the_bodies(call):
    x = _x(np.float32)
    r = outcome(call, x)
    n = arg_fast.COUNT[0]
    with LoggingTensorMode():  # the bodies alone: the fast calls decline under a mode
        want = outcome(call, x)
    assert arg_fast.COUNT[0] == n
    if isinstance(r, tuple) and isinstance(r[0], type):
        assert r == want
    else:
        for a, c in zip(r if isinstance(r, tuple) else (r,), want if isinstance(want, tuple) else (want,), strict=True):
            same(a, c)


def test_modes_out_grad_and_other_inputs_take_the_body():
    x = _x(np.float32)
    n = arg_fast.COUNT[0]
    with capture_logs(is_mode=True) as logs, LoggingTensorMode():
        torch.argmax(x, 1), torch.aminmax(x, dim=1)
    assert "aten.argmax" in " ".join(logs) and "aten.aminmax" in " ".join(logs)
    o = torch.empty(0, dtype=torch.int64)
    assert torch.argmax(x, 1, out=o) is o
    lo, hi = torch.empty(0), torch.empty(0)
    torch.aminmax(x, dim=1, out=(lo, hi))
    torch.argmax(x.transpose(0, 2), 1), torch.aminmax(x.transpose(0, 2), dim=0)
    torch.argmax(x.to(torch.int16), 1), torch.argmax(x.half(), 1), torch.aminmax(x.to(torch.uint8), dim=1)
    torch.aminmax(x)  # dim=None: the body's one-pass kernel
    v, i = torch.empty(0), torch.empty(0, dtype=torch.int64)
    torch.cummax(x, 1, out=(v, i)), torch.cummin(x.transpose(0, 1), 1)
    torch.topk(x, 2, 1, out=(torch.empty(0), torch.empty(0, dtype=torch.int64))), torch.topk(x.transpose(0, 1), 2)
    w = x.clone().requires_grad_(True)
    torch.aminmax(w, dim=1), torch.argmax(w, 1)
    assert torch.cummax(w, 1).values.grad_fn is not None and torch.cummin(w, 0).values.grad_fn is not None
    assert torch.topk(w, 2, 1).values.grad_fn is not None
    assert torch.median(w).grad_fn is not None and torch.nanmedian(w).grad_fn is not None
    torch.median(x, out=torch.empty(0)), torch.median(x.transpose(0, 1))
    assert arg_fast.COUNT[0] == n
    with torch.inference_mode():
        assert torch.argmax(x, 1).is_inference()
