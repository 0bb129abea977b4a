"""Note [Conversion fast calls]: plain dtype conversions of C-contiguous CPU tensors skip the
body and give what it gives (bits, dtype, shape, strides; ``self`` for its own dtype); other
layouts, bfloat16, complex to real, modes, forward AD and gradients take the body."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import numtorch as torch
import numtorch.autograd.forward_ad as fwAD
from numtorch.ops.factory import conversion
from numtorch.testing._internal.logging_tensor import LoggingTensorMode, capture_logs


@pytest.fixture
def copies(monkeypatch):
    calls = []
    real = conversion._c

    def spy(op, *vals):
        calls.append(op)
        return real(op, *vals)

    monkeypatch.setattr(conversion, "_c", spy)
    return calls


def _src(dtype=torch.float32, n=6):
    vals = np.array([0.5, -1.5, 2.25, 1e5, -0.0, 3.0e38, np.nan, np.inf, -7.75, 65519.0, 1e-6, 6.1e-5] * 20)[:n]
    return torch.from_numpy(vals.astype(dtype.np).reshape(-1))


FAST = [
    ("half", lambda x: x.half()), ("int", lambda x: x.int()), ("long", lambda x: x.long()),
    ("double", lambda x: x.double()), ("bool", lambda x: x.bool()), ("byte", lambda x: x.byte()),
    ("cfloat", lambda x: x.cfloat()), ("type str", lambda x: x.type("torch.DoubleTensor")),
    ("type dtype", lambda x: x.type(torch.int16)), ("type_as", lambda x: x.type_as(torch.zeros(1, dtype=torch.int32))),
    ("half big", lambda x: _src(n=200).half()), ("half f64", lambda x: _src(torch.float64, n=12).half()),
    ("int to float", lambda x: torch.arange(6).float()), ("2-d", lambda x: x.reshape(2, 3).double()),
    ("char", lambda x: x.char()), ("short", lambda x: x.short()), ("0-d", lambda x: x[1].long()),
    ("size-1 dims", lambda x: x.unsqueeze(0).unsqueeze(2).int()), ("empty", lambda x: x[:0].reshape(0, 3).byte()),
]  # fmt: skip
BODY = [
    ("transposed", lambda x: x.reshape(2, 3).t().half()), ("to bf16", lambda x: x.bfloat16()),
    ("from bf16", lambda x: x.bfloat16().float()), ("format", lambda x: x.half(memory_format=torch.preserve_format)),
    ("complex to real", lambda x: x.cfloat().float()), ("cuda type", lambda x: x.type("torch.cuda.FloatTensor")),
    ("bad type", lambda x: x.type("torch.Foo")), ("bad dtype", lambda x: x.type(3)),
    ("non_blocking", lambda x: x.type(torch.float64, non_blocking=True)),
    ("type_as meta", lambda x: x.type_as(torch.zeros(1, device="meta"))),
]  # fmt: skip


def _run(fn):
    try:
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter("always")
            r = fn(_src())
        return r, [str(x.message) for x in w]
    except Exception as e:  # noqa: BLE001
        return (type(e), str(e)), []


def _same(a, b):
    if isinstance(a, tuple):
        assert a == b
        return
    assert a.dtype is b.dtype and a.shape == b.shape and a.stride() == b.stride() and a.device == b.device
    if a.dtype is torch.bfloat16:
        assert a.float().tolist() == b.float().tolist()
    elif not a.is_meta:
        assert a.numpy().tobytes() == b.numpy().tobytes()


@pytest.mark.parametrize("call", FAST, ids=[c[0] for c in FAST])
def test_plain_conversions_take_the_fast_route(copies, call):
    got, gw = _run(call[1])
    assert copies == [], "the body ran"
    with capture_logs(is_mode=True) as logs, LoggingTensorMode():
        want, ww = _run(call[1])
    assert copies and any("_to_copy" in ln for ln in logs)
    _same(got, want)
    assert gw == ww and got._vc == [0] and got._base is None


@pytest.mark.parametrize("call", BODY, ids=[c[0] for c in BODY])
def test_other_conversions_take_the_body(copies, call):
    got, gw = _run(call[1])
    assert copies or isinstance(got, tuple), "the fast call did not decline"
    with LoggingTensorMode():
        want, ww = _run(call[1])
    _same(got, want)
    assert gw == ww


def test_own_dtype_is_self_and_grad_forward_ad_take_the_body(copies):
    x = _src()
    assert x.float() is x and x.type(torch.float32) is x and x.type_as(_src()) is x and copies == []
    p = torch.zeros(3, requires_grad=True)
    h = p.double()
    assert h.grad_fn is not None and len(copies) == 1
    with torch.no_grad():
        assert p.double().grad_fn is None and len(copies) == 1
    with fwAD.dual_level():
        _src().double()
    assert len(copies) == 2
