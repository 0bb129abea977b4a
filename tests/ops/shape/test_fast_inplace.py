"""Note [Fill and resize fast calls]: plain fill_/fill/zero_/resize_/resize_as_ calls skip the
body and give what it gives (values bit for bit, dtype, shape, strides, storage sharing, the
version counter, errors); modes, gradients, inference tensors, other values and layouts take
the body."""

from __future__ import annotations

import numpy as np
import pytest

import numtorch as torch
from numtorch.ops.shape import inplace
from numtorch.testing._internal.logging_tensor import LoggingTensorMode


@pytest.fixture
def body_calls(monkeypatch):
    """The ops the bodies call (through ops/shape/inplace.py's ``_c``), by name; the fast routes
    call none."""
    calls = []
    real = inplace._c
    monkeypatch.setattr(inplace, "_c", lambda op, *v: calls.append(op.__name__.split(".")[0]) or real(op, *v))
    return calls


def _x(dtype=torch.float32, shape=(2, 3)):
    return torch.tensor(np.arange(6.0).reshape(shape), dtype=dtype)  # owns its memory


def _outcome(fn, x):
    try:
        r = fn(x)
    except Exception as e:  # noqa: BLE001  (both routes must raise alike)
        return (type(e), str(e))
    return r, x._version, x.shape, x.stride()


def _same(got, want):
    if isinstance(want, tuple) and isinstance(want[0], type):
        assert got == want
        return
    (r, v, shape, stride), (rw, vw, shapew, stridew) = got, want
    assert (v, shape, stride) == (vw, shapew, stridew)
    assert r.shape == rw.shape and r.dtype == rw.dtype and r.stride() == rw.stride()
    assert r._data.tobytes() == rw._data.tobytes()


FAST = [
    ("fill_ float", lambda x: x.fill_(2.5)), ("fill_ int", lambda x: torch.fill_(x, 3)),
    ("fill_ inf", lambda x: x.fill_(float("inf"))), ("fill_ nan", lambda x: x.fill_(float("nan"))),
    ("fill_ -0.0", lambda x: x.fill_(-0.0)), ("fill_ rounds", lambda x: x.fill_(0.1)),
    ("fill", lambda x: torch.fill(x, 1.5)), ("fill int", lambda x: torch.fill(x, 7)),
    ("zero_", lambda x: x.zero_()), ("torch.zero_", lambda x: torch.zero_(x)),
    ("resize_ same", lambda x: x.resize_(2, 3)), ("resize_ shrink", lambda x: x.resize_(5)),
    ("resize_ list", lambda x: x.resize_([3, 2])), ("resize_ 0", lambda x: x.resize_(0, 4)),
    ("resize_as_", lambda x: x.resize_as_(torch.zeros(3, 2))), ("torch.resize_as_", lambda x: torch.resize_as_(x, torch.zeros(6))),
]  # fmt: skip


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64, torch.float16])
@pytest.mark.parametrize("call", FAST, ids=[c[0] for c in FAST])
def test_plain_calls_take_the_fast_route_and_match_the_body(body_calls, call, dtype):
    x = _x(dtype)
    storage = x._data
    got = _outcome(call[1], x)
    assert body_calls == [], "the body ran"
    y = _x(dtype)
    with LoggingTensorMode():
        want = _outcome(call[1], y)
    assert body_calls
    _same(got, want)
    if call[0].startswith("resize_") and x.numel():  # the storage kept, as the kernel's view of it
        assert np.shares_memory(storage, x._data)


@pytest.mark.parametrize("dtype", [torch.int64, torch.int32, torch.int16, torch.int8, torch.uint8])
def test_integer_fills_in_range_take_the_fast_route(body_calls, dtype):
    for v in (0, 5, -3 if dtype is not torch.uint8 else 255):
        x, y = _x(dtype), _x(dtype)
        got = _outcome(lambda t, v=v: t.fill_(v), x)
        with LoggingTensorMode():
            want = _outcome(lambda t, v=v: t.fill_(v), y)
        _same(got, want)
    assert body_calls == ["fill_"] * 3


BODY = [
    ("fill_ bool value", lambda x: x.fill_(True)), ("fill_ complex", lambda x: x.fill_(1 + 0j)),
    ("fill_ overflow", lambda x: x.fill_(1e300)), ("fill_ f16 overflow", lambda x: x.half().fill_(70000)),
    ("fill_ int overflow", lambda x: x.fill_(2**64)), ("fill_ int8 overflow", lambda x: x.to(torch.int8).fill_(300)),
    ("fill_ uint8 wraps", lambda x: x.to(torch.uint8).fill_(-3)), ("fill_ int float", lambda x: x.long().fill_(2.5)),
    ("fill_ bool", lambda x: x.bool().fill_(1)), ("fill_ tensor", lambda x: x.fill_(torch.tensor(2.0))),
    ("fill_ numpy", lambda x: x.fill_(np.float32(2.0))),
    ("fill t", lambda x: torch.fill(x.t(), 1.0)), ("fill size-1", lambda x: torch.fill(x.reshape(6, 1), 1.0)),
    ("fill empty", lambda x: torch.fill(x[:0], 1.0)), ("fill overflow", lambda x: torch.fill(x, 1e300)),
    ("resize_ grow", lambda x: x.resize_(4, 4)), ("resize_ view", lambda x: x[1:].resize_(2)),
    ("resize_ reshaped", lambda x: x.reshape(3, 2).resize_(5)),
    ("resize_ negative", lambda x: x.resize_(-1, 2)), ("resize_ format", lambda x: x.resize_(3, 2, memory_format=torch.contiguous_format)),
    ("resize_ float size", lambda x: x.resize_(2.0, 3)), ("resize_as_ grow", lambda x: x.resize_as_(torch.zeros(7))),
    ("resize_as_ not tensor", lambda x: x.resize_as_(np.zeros(3))),
]  # fmt: skip


@pytest.mark.parametrize("call", BODY, ids=[c[0] for c in BODY])
def test_other_calls_take_the_body(body_calls, call):
    got = _outcome(call[1], _x())
    assert body_calls or isinstance(got[0], type), "the fast call did not decline"  # (or the body's error)
    with LoggingTensorMode():
        want = _outcome(call[1], _x())
    if "grow" in call[0]:  # the new elements are uninitialised: compare the kept ones
        got, want = ((r[0].reshape(-1)[:6], *r[1:]) for r in (got, want))
    _same(got, want)


def test_gradients_inference_and_forward_ad_take_the_body(body_calls):
    x = _x().requires_grad_()
    with pytest.raises(RuntimeError, match="a leaf Variable that requires grad"):
        x.fill_(1.0)
    with pytest.raises(RuntimeError, match="cannot resize variables that require grad"):
        x.resize_(2, 3)
    y = _x().requires_grad_() * 1
    assert torch.fill(y, 2.0).grad_fn is not None and y.zero_().grad_fn is not None
    with torch.inference_mode():
        z = _x()
    with pytest.raises(RuntimeError, match="Inplace update to inference tensor outside InferenceMode"):
        z.fill_(1.0)
    with pytest.raises(RuntimeError, match="Inplace update to inference tensor outside InferenceMode"):
        z.zero_()
    assert body_calls.count("fill_") == 2 and "fill" in body_calls and body_calls.count("zero_") == 2
    assert "resize_" in body_calls


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64, torch.int32, torch.int64, torch.float16])
def test_large_fills_match_the_body(body_calls, dtype):
    """From 16384 values the fills run a store kernel (ops/shape/fast_inplace._fill_array)."""
    values = [0, 7, -3] + ([2.5, -0.0, float("nan"), float("-inf")] if dtype.is_floating_point else [])
    calls = [lambda x, v=v: x.fill_(v) for v in values] + [lambda x: x.zero_()]
    calls += [lambda x, v=v: torch.fill(x, v) for v in values]
    for call in calls:
        x, y = torch.ones(20000, dtype=dtype), torch.ones(20000, dtype=dtype)
        got = _outcome(call, x)
        assert body_calls == []
        with LoggingTensorMode():
            want = _outcome(call, y)
        _same(got, want)
        body_calls.clear()
