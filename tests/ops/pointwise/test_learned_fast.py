"""Note [Learned binding calls]: addcmul/addcdiv/lerp's bindings run the learned record
themselves, bit for bit the body's result; every other call keeps the body's route."""

from __future__ import annotations

import numpy as np
import pytest

import numtorch as torch
import numtorch.autograd.forward_ad as fwAD
from numtorch.ops.pointwise import learned_fast
from numtorch.testing._internal.logging_tensor import LoggingTensorMode, capture_logs

from .test_learned import _x, _y

CALLS = {
    "addcmul": lambda x, y, z: torch.addcmul(x, y, z),
    "addcmul_value": lambda x, y, z: torch.addcmul(x, y, z, value=0.5),
    "addcmul_method": lambda x, y, z: x.addcmul(y, z, value=-3),
    "addcdiv": lambda x, y, z: torch.addcdiv(x, y, z),
    "addcdiv_method": lambda x, y, z: x.addcdiv(y, z, value=2.5),
    "lerp": lambda x, y, z: torch.lerp(x, y, 0.3),
    "lerp_high": lambda x, y, z: torch.lerp(x, y, 0.75),
    "lerp_int": lambda x, y, z: torch.lerp(x, y, 2),
    "lerp_method": lambda x, y, z: x.lerp(y, -0.25),
    "nan_to_num": lambda x, y, z: torch.nan_to_num(x),
    "nan_to_num_method": lambda x, y, z: x.nan_to_num(nan=-0.0, posinf=3.0, neginf=-2),
    "logit": lambda x, y, z: torch.logit(z),
    "logit_special": lambda x, y, z: torch.special.logit(x, eps=0.25),
}
_ONE = {"nan_to_num": ("nan_to_num", (0.0, None, None)), "nan_to_num_method": ("nan_to_num", (-0.0, 3.0, -2)),
        "logit": ("logit", (None,)), "logit_special": ("logit", (0.25,))}  # fmt: skip


def _args(dtype, shape=(3, 4)):
    z = (_y[::-1] * 0.5 + 1.0).copy()
    return [torch.from_numpy(a.astype(dtype).reshape(shape)) for a in (_x, _y, z)]


def _body(name):
    """The call through the layers below the binding (the impl's own learned call)."""
    if name in _ONE:
        op, p = _ONE[name]
        op = getattr(torch.ops.aten, op).default
        first = 2 if name == "logit" else 0
        return lambda *a: op.fast(a[first], *p)
    f = {"addcmul": torch.ops.aten.addcmul.default, "addcdiv": torch.ops.aten.addcdiv.default}
    for k, op in f.items():
        if name.startswith(k):
            value = {"addcmul": 1, "addcmul_value": 0.5, "addcmul_method": -3, "addcdiv": 1,
                     "addcdiv_method": 2.5}[name]  # fmt: skip
            return lambda x, y, z: op.fast(x, y, z, value)
    w = {"lerp": 0.3, "lerp_high": 0.75, "lerp_int": 2, "lerp_method": -0.25}[name]
    return lambda x, y, z: torch.ops.aten.lerp.Scalar.fast(x, y, w)


def _warm(call, *a):
    for _ in range(4):  # the prepared key, its entry, the impl's learned record
        call(*a)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("shape", [(3, 4), (12,), (2, 3, 2)])
@pytest.mark.parametrize("name", list(CALLS))
def test_learned_binding_call_is_the_body_bit_for_bit(name, shape, dtype):
    args = _args(dtype, shape)
    call = CALLS[name]
    _warm(call, *args)
    want = _body(name)(*args)
    n = learned_fast.COUNT[0]
    got = call(*args)
    assert learned_fast.COUNT[0] == n + 1, "the binding's learned call was not taken"
    assert got.dtype == want.dtype and got.shape == want.shape and got.stride() == want.stride()
    assert got._data.tobytes() == want._data.tobytes()
    assert got.grad_fn is None and not got.requires_grad and got._base is None


def _declines(fn):
    n = learned_fast.COUNT[0]
    r = fn()
    assert learned_fast.COUNT[0] == n, "the learned call was taken"
    return r


@pytest.mark.parametrize("name", ["addcmul", "lerp", "nan_to_num"])
def test_other_calls_keep_the_body(name):
    x, y, z = _args(np.float32)
    call = CALLS[name]
    _warm(call, x, y, z)
    # requires_grad: the body records
    g = x.clone().requires_grad_(True)
    r = _declines(lambda: call(g, y, z))
    assert r.grad_fn is not None
    r.sum().backward()
    assert g.grad is not None
    with torch.no_grad():  # nothing to record: the learned call
        n = learned_fast.COUNT[0]
        call(g, y, z)
        assert learned_fast.COUNT[0] == n + 1
    # a dispatch mode sees the call
    with capture_logs() as logs, LoggingTensorMode():
        _declines(lambda: call(x, y, z))
    assert any(name in line for line in logs)
    # forward AD
    with fwAD.dual_level():
        dual = fwAD.make_dual(x, torch.ones_like(x))
        r = _declines(lambda: call(dual, y, z))
        assert fwAD.unpack_dual(r).tangent is not None
    # autocast region (addcmul has a promote rule)
    with torch.autocast("cpu", dtype=torch.bfloat16):
        _declines(lambda: call(x, y, z))
    # a subclass keeps its class
    class Sub(torch.Tensor):
        pass

    assert type(_declines(lambda: call(x.as_subclass(Sub), y, z))) is Sub
    # broadcasting, strided operands, another dtype, one element: the body
    want = call(x, y, z)
    if name == "nan_to_num":  # its only tensor strided
        got = _declines(lambda: call(x.t(), y, z))
        assert got.t().contiguous()._data.tobytes() == want._data.tobytes()
    else:
        assert _declines(lambda: call(x, y[0], z)).shape == (3, 4)
        assert _declines(lambda: call(x, y.t().contiguous().t(), z))._data.tobytes() == want._data.tobytes()
    if name == "nan_to_num":
        i = torch.ones(3, 4, dtype=torch.int64)
        r = call(i, y, z)  # the body, or an int64 record another call learned: the body's result
        assert r.dtype == torch.int64 and torch.equal(r, i) and r._data is not i._data
    elif name == "lerp":  # the body's dtype check
        with pytest.raises(RuntimeError, match="expected dtype float for `end` but got dtype double"):
            _declines(lambda: call(x, y.double(), z))
    else:
        assert _declines(lambda: call(x, y.double(), z)).dtype == torch.float64
    assert _declines(lambda: call(x[:1, :1], y[:1, :1], z[:1, :1])).shape == (1, 1)


def test_out_and_numbers_keep_the_body():
    x, y, z = _args(np.float32)
    for _ in range(4):
        torch.addcmul(x, y, z, value=0.0)
        torch.lerp(x, y, 0.0)
    o = torch.empty(3, 4)
    assert _declines(lambda: torch.addcmul(x, y, z, out=o)) is o
    assert o._data.tobytes() == torch.addcmul(x, y, z)._data.tobytes()
    assert _declines(lambda: torch.lerp(x, y, 0.3, out=o)) is o
    assert o._data.tobytes() == torch.lerp(x, y, 0.3)._data.tobytes()
    # a zero value, a NaN weight, a tensor weight: never a learned key here
    _declines(lambda: torch.addcmul(x, y, z, value=0.0))
    _declines(lambda: torch.addcmul(x, y, z, value=-0.0))
    _declines(lambda: torch.lerp(x, y, 0.0))
    assert torch.isnan(_declines(lambda: torch.lerp(x, y, float("nan")))).all()
    _declines(lambda: torch.lerp(x, y, z))
    # errors are the body's
    i = torch.ones(3, 4, dtype=torch.int64)
    for _ in range(2):
        with pytest.raises(RuntimeError, match="Integer division with addcdiv is no longer supported"):
            torch.addcdiv(i, i, i)
    with pytest.raises(TypeError):
        torch.addcmul(x, y, z, value="a")


def test_a_registered_kernel_replaces_the_learned_call():
    x, y, z = _args(np.float32)
    _warm(torch.addcmul, x, y, z)
    lib = torch.library.Library("aten", "IMPL")
    try:
        lib.impl("addcmul", lambda *a, **k: torch.zeros(3, 4), "CPU")
        r = _declines(lambda: torch.addcmul(x, y, z))
        assert torch.equal(r, torch.zeros(3, 4))
    finally:
        lib._destroy()
    n = learned_fast.COUNT[0]
    torch.addcmul(x, y, z)
    assert learned_fast.COUNT[0] == n + 1


def test_inline_key_is_args_key():
    # Note [Learned one-tensor binding calls]: the routed bindings build the key inline
    from numtorch.ops.pointwise._learned import args_key
    from numtorch.ops.pointwise.prepared_fast import _inline_key

    nan = float("nan")
    vals = [1, -3, 2.5, None, 0.0, -0.0, nan, True, 1e300, torch.ones(1), "a"]
    for a in vals:
        for b in [*vals, "absent"]:
            v = (None, a) if b == "absent" else (None, a, b)
            for extra in ((), (None,)):  # an out= after the numbers
                w = v + extra
                got, want = _inline_key(torch.float32, w, len(v)), args_key(torch.float32, w[1 : len(v)])
                assert (got is None) == (want is None) and got == want, (a, b)


def test_one_key_is_args_key():
    from numtorch.ops.pointwise._learned import args_key
    from numtorch.ops.pointwise.learned_fast import one_key

    nan = float("nan")
    vals = [1, -3, 2.5, None, 0.0, -0.0, nan, True, torch.ones(1), "a"]
    cases = [(a,) for a in vals] + [(a, b, c) for a in vals for b in (None, 1.0, 0.0) for c in (None, -2, -0.0)]
    for p in cases + [(), (1, 2)]:
        got, want = one_key(torch.float64, p), args_key(torch.float64, p)
        assert (got is None) == (want is None) and got == want, p


@pytest.mark.parametrize("name", ["addcmul", "lerp", "nan_to_num"])
def test_inference_mode_results_are_inference_tensors(name):
    x, y, z = _args(np.float32)
    call = CALLS[name]
    _warm(call, x, y, z)
    with torch.inference_mode():
        n = learned_fast.COUNT[0]
        r = call(x, y, z)
        assert learned_fast.COUNT[0] == n + 1 and r.is_inference()
    assert not call(x, y, z).is_inference()
