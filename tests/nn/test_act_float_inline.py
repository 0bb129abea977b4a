"""Note [Inlined float params]: an activation called with float parameters runs its learned kernel
entry from op.fast, bit for bit the general path's result; int and float params keep separate
entries; anything the general path would convert, refuse or record still reaches it. Also selu's
and elu's binding fast calls (elu's call with selu's constants)."""

from __future__ import annotations

import numpy as np
import pytest

import numtorch as torch
import numtorch.nn.functional as F
from numtorch.ops.nn import activation as A
from numtorch.testing._internal.logging_tensor import LoggingTensorMode, capture_logs

# public call, its functional op, the params the op receives
CASES = {
    "softshrink": (lambda x: F.softshrink(x, 0.3), A._softshrink, (0.3,)),
    "hardshrink": (lambda x: F.hardshrink(x, 0.3), A._hardshrink, (0.3,)),
    "softplus": (lambda x: F.softplus(x, 2.0, 1.5), A._softplus, (2.0, 1.5)),
    "leaky_relu": (lambda x: F.leaky_relu(x, 0.2), A._leaky, (0.2,)),
    "hardtanh": (lambda x: F.hardtanh(x, -0.5, 0.5), A._hardtanh, (-0.5, 0.5)),
    "hardtanh_mixed": (lambda x: F.hardtanh(x, -1, 0.5), A._hardtanh, (-1, 0.5)),
    "threshold": (lambda x: F.threshold(x, 0.1, 20.0), A._threshold, (0.1, 20.0)),
    "elu": (lambda x: F.elu(x, 0.7), A._elu, (0.7, 1, 1)),
    "selu": (lambda x: F.selu(x), A._elu, (A._SELU_ALPHA, A._SELU_SCALE, 1)),
}


def _x(dtype=torch.float32, shape=(3, 4)):
    a = np.random.default_rng(5).standard_normal(shape) * 3
    a.flat[:3] = (np.inf, -np.inf, np.nan)
    return torch.from_numpy(a).to(dtype)


def _pw(ops):
    return ops["functional"].impls["cpu"].__self__


def _general(ops, x, params):
    return _pw(ops)([x], list(params))  # Pointwise.__call__: no fast path at all


def _same(r, want):
    assert r.dtype == want.dtype and r.shape == want.shape and r.stride() == want.stride()
    assert r.numpy().tobytes() == want.numpy().tobytes()


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64])
@pytest.mark.parametrize("shape", [(3, 4), (7,)])
@pytest.mark.parametrize("name", list(CASES))
def test_float_params_run_the_learned_entry_with_the_general_bits(name, dtype, shape):
    call, ops, params = CASES[name]
    x = _x(dtype, shape)
    for _ in range(3):  # the general path learns the kernel, op.fast then learns its entry
        call(x)
    pw = _pw(ops)
    key = (dtype, *(p.__class__ for p in params)) if any(p.__class__ is float for p in params) else dtype
    assert key in pw._entry
    saved = pw._fast[dtype]

    def boom(*a):
        raise AssertionError("the numba dispatcher ran: the entry was not used")

    pw._fast[dtype] = (saved[0], saved[1], boom, boom)
    try:
        r = call(x)  # without the inlined float case this reaches unary() and its dispatcher
    finally:
        pw._fast[dtype] = saved
    _same(r, _general(ops, x, params))


def test_int_and_float_params_keep_their_own_entries():
    x = _x(torch.float64)
    a = x.numpy()
    for _ in range(3):
        for slope in (2, 0.5, 3, -0.25):  # an int entry given a float would truncate it
            r = F.leaky_relu(x, slope).numpy()
            np.testing.assert_array_equal(r, np.where(a > 0, a, a * slope))
    keys = set(_pw(A._leaky)._entry)
    assert torch.float64 in keys and (torch.float64, float) in keys


def test_what_the_general_path_converts_or_refuses_still_reaches_it():
    i = torch.arange(-3, 3)
    for _ in range(3):
        assert F.threshold(i, 1, 7).tolist() == [7, 7, 7, 7, 7, 2]  # int params on an int tensor
        # a float param on an int tensor: truncated by the general path (Scalar::to<int64_t>)
        assert F.threshold(i, 1.5, 7.9).tolist() == [7, 7, 7, 7, 7, 2]
        assert F.hardtanh(i, -1.5, 1.5).tolist() == [-1, -1, -1, 0, 1, 1]
    assert (torch.int64, float, float) not in _pw(A._threshold)._entry
    with pytest.raises(RuntimeError, match="value cannot be converted to type int64_t without overflow"):
        F.threshold(i, 1e30, 7)
    with pytest.raises(NotImplementedError, match="\"softshrink_cpu\" not implemented for 'Long'"):
        F.softshrink(i, 0.5)
    x = _x(torch.float32)
    for _ in range(3):
        F.softshrink(x, True)  # a bool param: the general path's conversion
    _same(F.softshrink(x, True), _general(A._softshrink, x, (True,)))
    assert (torch.float32, bool) not in _pw(A._softshrink)._entry
    h = _x(torch.float16)
    for _ in range(2):
        _same(F.softshrink(h, 0.3), _general(A._softshrink, h, (0.3,)))
    u = torch.tensor([1, 2, 3], dtype=torch.uint8)
    for _ in range(3):
        assert F.hardtanh(u, 0, 6).tolist() == [1, 2, 3]
    with pytest.raises(RuntimeError, match="cannot do hardtanh on an unsigned type with negative limits"):
        F.hardtanh(u, -1, 1)  # the uint8 test of hardtanh's __call__, never skipped


def test_large_and_strided_inputs_take_the_impl():
    x = _x(torch.float32, (300, 500))
    for _ in range(2):
        _same(F.softshrink(x, 0.3), _general(A._softshrink, x, (0.3,)))
        t = x.t()
        _same(F.softshrink(t, 0.3), _general(A._softshrink, t, (0.3,)))


def test_modes_grads_and_subclasses_keep_the_body():
    x = _x(torch.float64)
    for call, _, _ in CASES.values():
        call(x)
    with capture_logs(is_mode=True) as logs, LoggingTensorMode():
        F.softshrink(x, 0.3)
        F.selu(x)
        torch.selu(x)
        F.elu(x, 0.5)
    text = "\n".join(logs)
    assert "softshrink" in text and text.count("aten.elu.default") == 3 and "selu" not in text
    g = torch.randn(5, dtype=torch.float64, requires_grad=True)
    for f in (lambda t: F.selu(t), lambda t: torch.selu(t), lambda t: F.elu(t, 0.7), lambda t: F.softplus(t, 2.0)):
        torch.autograd.gradcheck(f, (g,))
        torch.autograd.gradgradcheck(f, (g,))
    assert F.selu(g).grad_fn.name() == "EluBackward0"
    assert F.elu(g, 0.5).grad_fn.name() == "EluBackward0"

    class Sub(torch.Tensor):
        pass

    s = x.as_subclass(Sub)
    assert type(F.selu(s)) is Sub and type(F.softshrink(s, 0.3)) is Sub
    y = x.clone()
    assert F.selu(y, inplace=True) is y and y.numpy().tobytes() == F.selu(x).numpy().tobytes()
    y = x.clone()
    assert F.elu(y, 0.7, inplace=True) is y and y.numpy().tobytes() == F.elu(x, 0.7).numpy().tobytes()
    with pytest.raises(TypeError, match=r"elu\(\): argument 'input' \(position 1\) must be Tensor, not int"):
        F.elu(3)


def test_selu_fast_call_honours_a_replaced_composite(monkeypatch):
    x = _x(torch.float32)
    want = F.selu(x)
    seen = []
    comp = A._selu.impls["composite"]
    monkeypatch.setitem(A._selu.impls, "composite", lambda t: seen.append(1) or comp(t))
    A._selu.fast = torch._dispatch.make_fast(A._selu)
    _same(F.selu(x), want)
    assert seen
    monkeypatch.undo()
    A._selu.fast = torch._dispatch.make_fast(A._selu)


@pytest.mark.parametrize("alpha", [0.7, 2])
@pytest.mark.parametrize("dtype", [torch.float32, torch.float64])
def test_celu_runs_elus_entry_with_the_general_bits(alpha, dtype):
    x = _x(dtype)
    for _ in range(3):
        F.celu(x, alpha)
    pw = A._ELU
    assert (dtype, alpha.__class__, int, float) in pw._entry
    saved = pw._fast[dtype]

    def boom(*a):
        raise AssertionError("the numba dispatcher ran: the entry was not used")

    pw._fast[dtype] = (saved[0], saved[1], boom, boom)
    try:
        r = F.celu(x, alpha)
    finally:
        pw._fast[dtype] = saved
    _same(r, pw([x], [alpha, 1, 1 / alpha]))
    with pytest.raises(RuntimeError, match="ZeroDivisionError: alpha cannot be 0 for CELU"):
        F.celu(x, 0.0)
    _same(F.celu(x, True), pw([x], [True, 1, 1.0]))
    g = torch.randn(5, dtype=torch.float64, requires_grad=True)
    torch.autograd.gradcheck(lambda t: F.celu(t, alpha), (g,))
