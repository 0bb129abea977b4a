"""The prepared bindings' direct route (Note [Prepared binding body]) against their bodies: the
same values, dtype, shape and errors; plain calls of a learned key take the route, and modes,
gradients, forward AD, out=, subclasses and bad arguments take the body."""

from __future__ import annotations

import numpy as np
import pytest

import numtorch as torch
from numtorch.ops._registry import BINDINGS
from numtorch.ops.pointwise import _elementwise, _prepared, prepared_fast
from numtorch.ops.pointwise import _learned as learned_calls
from numtorch.testing._internal.logging_tensor import LoggingTensorMode, capture_logs

from .test_learned import _spy, check_learned

_x = np.array([[-2.5, -0.0, 0.0, 0.3], [1.7, 3.9, np.nan, -np.inf]], np.float32)
_y = np.array([[0.5, 2.0, -1.0, 0.25], [4.0, -3.0, 1.5, 0.75]], np.float32)

CALLS = {
    "clamp": lambda x, y: torch.clamp(x, -1, 2),
    "clamp_method": lambda x, y: x.clamp(-1.5, 2.5),
    "clamp_min_only": lambda x, y: torch.clamp(x, min=0.5),
    "clamp_max_only": lambda x, y: torch.clamp(x, None, 0.0),
    "clip": lambda x, y: torch.clip(x, -1, 2),
    "clamp_min": lambda x, y: torch.clamp_min(x, 1),
    "clamp_max": lambda x, y: x.clamp_max(-0.0),
    "lerp": lambda x, y: torch.lerp(x, y, 0.3),
    "lerp_method": lambda x, y: x.lerp(y, 2),
    "round_decimals": lambda x, y: torch.round(y, decimals=1),
    "round_method": lambda x, y: y.round(decimals=-1),
    "shift": lambda x, y: torch.bitwise_left_shift(y.to(torch.int32), 3),
}


def _args(dtype=np.float32):
    return torch.from_numpy(_x.astype(dtype)), torch.from_numpy(_y.astype(dtype))


def _counting(monkeypatch, impl=False):
    # without the learned calls (Note [Learned one-tensor binding calls], Note [Learned
    # prepared calls]: tested below), so that a plain call reaches prepared_call, directly or
    # through the op's impl (lerp)
    for memo in prepared_fast.MEMOS + learned_calls.MEMOS:
        memo.clear()
    calls = []
    real = prepared_fast.prepared_call

    def counted(*a):
        r = real(*a)
        calls.append(r is not None)
        return r

    monkeypatch.setattr(prepared_fast, "prepared_call", counted)
    if impl:  # also the op's impl's prepared call (the route dispatches lerp's learned impl)
        monkeypatch.setattr(_elementwise, "prepared_call", counted)
    return calls


def test_installed_on_every_name():
    routed = {(b.module, b.name) for b in BINDINGS if getattr(b.body, "__wrapped__", None) is not None
              and b.name in prepared_fast.NAMES}  # fmt: skip
    for name in prepared_fast.NAMES:
        assert ("torch", name) in routed and ("Tensor", name) in routed


@pytest.mark.parametrize("name", list(CALLS))
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_route_matches_the_body(name, dtype, monkeypatch):
    f = CALLS[name]
    body = f(*_args(dtype))  # the body, which learns the key
    calls = _counting(monkeypatch, impl=True)
    fast = f(*_args(dtype))
    assert any(calls), "the learned key did not take the prepared route"
    assert fast.dtype == body.dtype and fast.shape == body.shape and fast.stride() == body.stride()
    np.testing.assert_array_equal(fast.numpy(), body.numpy())
    assert np.array_equal(np.signbit(fast.numpy()), np.signbit(body.numpy()))
    assert fast.grad_fn is None and not fast.requires_grad


def test_grad_forward_ad_out_and_modes_take_the_body(monkeypatch):
    x, y = _args()
    torch.clamp(x, -1, 2), torch.clamp(x, -1, 2)
    calls = _counting(monkeypatch)
    xg = x.clone().requires_grad_(True)
    r = torch.clamp(xg, -1, 2)
    assert r.grad_fn is not None
    r.sum().backward()
    np.testing.assert_array_equal(xg.grad.numpy(), ((_x >= -1) & (_x <= 2)).astype(np.float32))
    with torch.no_grad():
        assert torch.clamp(xg, -1, 2).grad_fn is None
    out = torch.empty(2, 4)
    assert torch.clamp(x, -1, 2, out=out) is out
    with capture_logs() as logs, LoggingTensorMode():
        torch.clamp(x, -1, 2)
    assert any("clamp" in line for line in logs)
    import numtorch.autograd.forward_ad as fwAD

    with fwAD.dual_level():
        d = fwAD.make_dual(x, torch.ones(2, 4))
        t = fwAD.unpack_dual(torch.clamp(d, -1, 2)).tangent
    np.testing.assert_array_equal(t.numpy(), ((_x >= -1) & (_x <= 2)).astype(np.float32))
    assert calls.count(True) == 1  # only the no_grad call


def test_subclass_and_non_contiguous_take_the_body(monkeypatch):
    class Sub(torch.Tensor):
        pass

    x, _ = _args()
    torch.clamp(x, -1, 2), torch.clamp(x, -1, 2)
    calls = _counting(monkeypatch)
    s = x.as_subclass(Sub)
    assert type(torch.clamp(s, -1, 2)) is Sub
    t = x.t()
    np.testing.assert_array_equal(torch.clamp(t, -1, 2).numpy(), np.clip(_x.T, -1, 2))
    assert not any(calls)


def test_errors_are_the_bodys():
    x, _ = _args()
    for _ in range(3):
        torch.clamp(x, -1, 2)
        with pytest.raises(RuntimeError, match="At least one of 'min' or 'max' must not be None"):
            torch.clamp(x)
        with pytest.raises(RuntimeError, match="value cannot be converted to type float without overflow"):
            torch.clamp_min(x, 1e300)
        with pytest.raises(TypeError, match="received an invalid combination of arguments"):
            torch.clamp(x, torch.ones(2), 1)
        with pytest.raises(NotImplementedError, match="not implemented for 'Float'"):
            torch.bitwise_left_shift(x, 1)


def test_inference_mode_result_is_an_inference_tensor():
    x, _ = _args()
    torch.clamp(x, -1, 2), torch.clamp(x, -1, 2)
    with torch.inference_mode():
        r = torch.clamp(x, -1, 2)
    assert r.is_inference()


def test_many_keys_through_the_route():
    x = torch.tensor([-1.0, 1.0])
    for k in range(_prepared._MAX + 2):
        assert torch.clamp_min(x, float(k)).tolist() == [float(k), max(1.0, k)]


# Note [True division binding fast call]
@pytest.mark.parametrize("module,name", [(m, n) for m in ("torch", "Tensor") for n in ("div", "divide", "true_divide")])
def test_div_bindings_have_a_fast_call(module, name):
    (b,) = [b for b in BINDINGS if b.module == module and b.name == name]
    assert b.fast is not None and b.fast[0].name() == "aten::div.Tensor"


def test_div_fast_call_matches_the_body_and_leaves_the_rest_to_it(monkeypatch):
    x, y = _args()
    body = [b for b in BINDINGS if b.module == "torch" and b.name == "div"][0].body
    for dt in (torch.float32, torch.float64, torch.int64):
        a, c = x.nan_to_num().to(dt), y.to(dt) if dt.is_floating_point else (y * 4).to(dt) + 9
        r, ref = torch.div(a, c), body(a, c, None, None)
        assert r.dtype == ref.dtype and r.stride() == ref.stride()
        np.testing.assert_array_equal(r.numpy(), ref.numpy())
        np.testing.assert_array_equal(a.div(c).numpy(), ref.numpy())
        np.testing.assert_array_equal(torch.true_divide(a, c).numpy(), ref.numpy())
    assert torch.div(x, y, rounding_mode="floor").tolist()[1][:2] == [0.0, -2.0]
    out = torch.empty(2, 4)
    assert torch.divide(x, y, out=out) is out
    with pytest.raises(RuntimeError, match="div expected rounding_mode to be one of None"):
        torch.div(x, y, rounding_mode="up")
    with capture_logs() as logs, LoggingTensorMode():
        torch.div(x, y)
    assert any("div.Tensor" in line for line in logs)
    xg = x.clone().requires_grad_(True)
    torch.div(xg, y).sum().backward()
    np.testing.assert_array_equal(xg.grad.numpy(), (1 / _y).astype(np.float32))


# Note [Learned one-tensor binding calls]
ONE_TENSOR = ("clamp", "clamp_method", "clamp_min_only", "clamp_max_only", "clip", "clamp_min", "clamp_max",
              "round_decimals", "round_method", "shift")  # fmt: skip


def _memo_spy():
    return _spy(prepared_fast.MEMOS + learned_calls.MEMOS)


@pytest.mark.parametrize("name", ONE_TENSOR)
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_learned_binding_call_matches_the_body(name, dtype):
    check_learned(lambda: CALLS[name](*_args(dtype)), prepared_fast.MEMOS + learned_calls.MEMOS, prepared_fast.MEMOS)


def test_learned_binding_call_leaves_the_rest_to_the_body():
    x, _ = _args()
    for memo in prepared_fast.MEMOS + learned_calls.MEMOS:
        memo.clear()
    first = [torch.clamp(x, -1.5, b).numpy().tobytes() for b in (0.0, -0.0)]  # the general path
    for _ in range(4):
        torch.clamp(x, -1, 2), torch.clamp(x, -1.5, 0.0)
    calls = _memo_spy()
    assert torch.clamp(x, -1, 2).tolist()[1][:2] == [np.float32(1.7), 2.0] and calls == [1]
    xg = x.clone().requires_grad_(True)
    assert torch.clamp(xg, -1, 2).grad_fn is not None
    out = torch.empty(2, 4)
    assert torch.clamp(x, -1, 2, out=out) is out
    with capture_logs() as logs, LoggingTensorMode():
        torch.clamp(x, -1, 2)
    assert any("clamp" in line for line in logs)

    class Sub(torch.Tensor):
        pass

    assert type(torch.clamp(x.as_subclass(Sub), -1, 2)) is Sub
    np.testing.assert_array_equal(torch.clamp(x.t(), -1, 2).numpy(), np.clip(_x.T, -1, 2))
    assert torch.clamp(x, -1.0, 2.0).dtype is torch.float32  # a float key of its own
    assert calls == [1]
    r = torch.clamp(x, -1.5, 0.0)  # a float zero is kept with its sign
    assert calls == [1, 1] and r.numpy().tobytes() == first[0]
    r = torch.clamp(x, -1.5, -0.0)  # a key of its own
    assert calls == [1, 1] and r.numpy().tobytes() == first[1] != first[0]
    with torch.inference_mode():
        assert torch.clamp(x, -1, 2).is_inference()
    assert calls == [1, 1, 1]
    with pytest.raises(RuntimeError, match="value cannot be converted to type float without overflow"):
        torch.clamp(x, -1, 1e300)


# Note [Round binding fast call]
def test_round_without_decimals_calls_round_default_and_leaves_the_rest_to_the_body(monkeypatch):
    from numtorch.ops.pointwise.core import _ROUND

    op = _ROUND["functional"]
    torch.round(torch.ones(2))  # op.fast generates itself on its first call
    for memo in prepared_fast.MEMOS + learned_calls.MEMOS:
        memo.clear()
    calls, routed = [], []
    real, real_prepared = op.fast, prepared_fast._prepared
    monkeypatch.setattr(op, "fast", lambda *a: calls.append(1) or real(*a))
    monkeypatch.setattr(prepared_fast, "_prepared", lambda *a: routed.append(1) or real_prepared(*a))
    x, y = _args()
    body = [b for b in BINDINGS if b.name == "round" and b.module == "torch"][0].body
    for t in (x, y, torch.arange(5), torch.tensor(2.5), x.t()):
        want = body(t, None, None)
        assert routed and calls
        del routed[:], calls[:]
        for got in (torch.round(t), t.round()):
            assert got.dtype == want.dtype and got.stride() == want.stride()
            assert got.numpy().tobytes() == want.numpy().tobytes()
        assert len(calls) == 2 and not routed, "the binding ran its body"
    assert torch.round(y, decimals=1).tolist()[0] == [0.5, 2.0, -1.0, np.float32(0.2)]
    out = torch.empty(2, 4)
    assert torch.round(y, out=out) is out and out.tolist()[1] == [4.0, -3.0, 2.0, 1.0]
    with capture_logs() as logs, LoggingTensorMode():
        torch.round(y)
    assert any("round.default" in line for line in logs)
    assert routed  # decimals, out= and the mode took the body
    with pytest.raises(TypeError):
        torch.round(y, 1)


@pytest.mark.parametrize("name", ["equal", "isclose", "allclose"])
@pytest.mark.parametrize("module", ["torch", "Tensor"])
def test_comparison_bindings_have_a_fast_call(name, module):
    (b,) = [b for b in BINDINGS if b.module == module and b.name == name]
    # Note [Close fast calls] (ops/pointwise/close_fast.py) and equal's kernel call
    assert b.fast is not None and callable(b.fast[0]) and b.fast[1][1] == "other"


def test_comparison_fast_calls_match_the_bodies():
    x, y = _args()
    z = x.clone()
    assert torch.equal(x, z) is False  # NaN
    assert torch.equal(y, y.clone()) is True and y.equal(y + 1) is False
    for f in (torch.isclose, torch.Tensor.isclose):
        np.testing.assert_array_equal(f(x, z, equal_nan=True).numpy(), np.isclose(_x, _x, equal_nan=True))
    assert torch.allclose(y, y + 1e-9) and not x.allclose(z)
    with pytest.raises(TypeError, match="argument 'other' \\(position 2\\) must be Tensor, not int"):
        torch.equal(x, 1)
    with capture_logs() as logs, LoggingTensorMode():
        torch.equal(y, y)
    assert any("equal" in line for line in logs)


def test_result_type_of_one_dtype():
    x, y = _args()
    assert torch.result_type(x, y) is torch.float32
    assert torch.result_type(torch.tensor(1.0, dtype=torch.float64), torch.tensor([1.0], dtype=torch.float64)) is torch.float64
    assert torch.result_type(torch.tensor([1], dtype=torch.uint8), torch.tensor(1, dtype=torch.uint8)) is torch.uint8
    assert torch.result_type(torch.tensor([1]), 1.0) is torch.float32  # the general promotion
    assert torch.result_type(torch.tensor([1], dtype=torch.int8), torch.tensor(1)) is torch.int8


@pytest.mark.parametrize("name,args", [("clamp", (-0.5, 0.5)), ("clamp_min", (0.0,)), ("round", ()),
                                       ("bitwise_left_shift", (1,))])  # fmt: skip
def test_a_registered_kernel_replaces_the_routed_learned_call(name, args):
    # Note [Learned one-tensor binding calls]: a learned call checks that the op's CPU kernel is
    # still the declared one (a numtorch.library registration over it takes every call)
    x = torch.tensor(np.linspace(-2, 2, 12).reshape(3, 4), dtype=torch.int64 if "shift" in name else torch.float32)
    fn = getattr(torch, name)
    for _ in range(3):
        want = fn(x, *args)  # learns the routed call
    seen = []
    lib = torch.library.Library("aten", "IMPL")
    try:
        overload = f"{name}.Tensor_Scalar" if "shift" in name else name
        lib.impl(overload, lambda *a, **k: seen.append(1) or torch.zeros(3, 4, dtype=x.dtype), "CPU")
        assert torch.equal(fn(x, *args), torch.zeros(3, 4, dtype=x.dtype)) and seen
    finally:
        lib._destroy()
    assert torch.equal(fn(x, *args), want)
