"""Elementwise ops: error types and messages, type promotion, NaN and overflow semantics, 0-d and
empty tensors, float16, in-place/out= rules, operator dunders and derivative conventions."""

from __future__ import annotations

import math
import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import numtorch
from numtorch.autograd import gradcheck, gradgradcheck

T = numtorch.tensor
REAL = ["bool", "uint8", "int8", "int16", "int32", "int64", "float16", "float32", "float64"]
ALL = REAL + ["complex64", "complex128"]


def dt(name):
    return getattr(numtorch, name)


def f64(*vals, rg=True):
    return T(list(vals), dtype=numtorch.float64, requires_grad=rg)


# ---- error types and messages -------------------------------------------------------------------
@pytest.mark.parametrize(
    ("call", "exc", "msg"),
    [
        (
            lambda: -T([True]),
            RuntimeError,
            "Negation, the `-` operator, on a bool tensor is not supported. If you are trying to invert a mask, use the `~` or `logical_not()` operator instead.",
        ),
        (
            lambda: T([True]) - T([True]),
            RuntimeError,
            "Subtraction, the `-` operator, with two bool tensors is not supported. Use the `^` or `logical_xor()` operator instead.",
        ),
        (
            lambda: T([1]) - T([True]),
            RuntimeError,
            "Subtraction, the `-` operator, with a bool tensor is not supported. If you are trying to invert a mask, use the `~` or `logical_not()` operator instead.",
        ),
        (
            lambda: 1 - T([True]),
            RuntimeError,
            "Subtraction, the `-` operator, with a bool tensor is not supported.",
        ),
        (lambda: +T([True]), RuntimeError, "The `+` operator, on a bool tensor is not supported."),
        (
            lambda: T([1.0]) & T([1.0]),
            NotImplementedError,
            "\"bitwise_and_cpu\" not implemented for 'Float'",
        ),
        (
            lambda: T([1]) | 1.5,
            NotImplementedError,
            "\"bitwise_or_cpu\" not implemented for 'Float'",
        ),
        (lambda: T([1.0]) << 1, NotImplementedError, "\"lshift_cpu\" not implemented for 'Float'"),
        (
            lambda: T([True]) >> T([True]),
            NotImplementedError,
            "\"rshift_cpu\" not implemented for 'Bool'",
        ),
        (
            lambda: ~T([1.0]),
            TypeError,
            "~ (operator.invert) is only implemented on integer and Boolean-type tensors",
        ),
        (
            lambda: numtorch.bitwise_not(T([1.0])),
            NotImplementedError,
            "\"bitwise_not_cpu\" not implemented for 'Float'",
        ),
        (
            lambda: T([1.0, 2.0]) + T([1.0, 2.0, 3.0]),
            RuntimeError,
            "The size of tensor a (2) must match the size of tensor b (3) at non-singleton dimension 0",
        ),
        (
            lambda: numtorch.ones(1).add_(numtorch.ones(3)),
            RuntimeError,
            "output with shape [1] doesn't match the broadcast shape [3]",
        ),
        (
            lambda: T([1, 2]).add_(T([0.5, 1.0])),
            RuntimeError,
            "result type Float can't be cast to the desired output type Long",
        ),
        (
            lambda: T([1, 2]).sqrt_(),
            RuntimeError,
            "result type Float can't be cast to the desired output type Long",
        ),
        (
            lambda: T([1]).div_(2),
            RuntimeError,
            "result type Float can't be cast to the desired output type Long",
        ),
        (
            lambda: T([1]).add_(T([1.0]).half()),
            RuntimeError,
            "result type Half can't be cast to the desired output type Long",
        ),
        (
            lambda: T([True]).floor_divide_(T([1j])),
            RuntimeError,
            "result type ComplexFloat can't be cast to the desired output type Bool",
        ),
        (
            lambda: numtorch.add(T([1]), T([1]), out=numtorch.empty(1, dtype=numtorch.bool)),
            RuntimeError,
            "result type Long can't be cast to the desired output type Bool",
        ),
        (lambda: T([5]) // 0, RuntimeError, "ZeroDivisionError"),
        (lambda: T([5]) % T([1, 0]), RuntimeError, "ZeroDivisionError"),
        (
            lambda: numtorch.fmod(T([5], dtype=numtorch.int8), 256),
            RuntimeError,
            "ZeroDivisionError",
        ),
        (lambda: numtorch.div(T([5]), 0, rounding_mode="trunc"), RuntimeError, "ZeroDivisionError"),
        (
            lambda: numtorch.div(T([5.0]), 2, rounding_mode="round"),
            RuntimeError,
            "div expected rounding_mode to be one of None, 'trunc', or 'floor' but found 'round'",
        ),
        (
            lambda: T([2]) ** -1,
            RuntimeError,
            "Integers to negative integer powers are not allowed.",
        ),
        (
            lambda: T([], dtype=numtorch.int64) ** -2,
            RuntimeError,
            "Integers to negative integer powers are not allowed.",
        ),
        (lambda: T([True]) ** T([True]), NotImplementedError, "\"pow\" not implemented for 'Bool'"),
        (
            lambda: numtorch.clamp(T([1.0])),
            RuntimeError,
            "torch.clamp: At least one of 'min' or 'max' must not be None",
        ),
        (
            lambda: numtorch.clamp(T([1], dtype=numtorch.int8), 1000),
            RuntimeError,
            "value cannot be converted to type int8_t without overflow",
        ),
        (
            lambda: numtorch.clamp(T([1j]), 0, 1),
            NotImplementedError,
            "clamp is not supported for complex types",
        ),
        (
            lambda: numtorch.maximum(T([1j]), T([1j])),
            RuntimeError,
            "maximum not implemented for complex tensors.",
        ),
        (
            lambda: numtorch.maximum(T([1]), 2),
            TypeError,
            "maximum(): argument 'other' (position 2) must be Tensor, not int",
        ),
        (
            lambda: numtorch.add(T([1]), T([1]), alpha=2.5),
            RuntimeError,
            "For integral input tensors, argument alpha must not be a floating point number.",
        ),
        (
            lambda: numtorch.add(T([1.0]), T([1.0]), alpha=True),
            RuntimeError,
            "Boolean alpha only supported for Boolean results.",
        ),
        (
            lambda: numtorch.add(T([1.0]), 1, alpha=1j),
            RuntimeError,
            "For non-complex input tensors, argument alpha must not be a complex number.",
        ),
        (
            lambda: numtorch.add(T([1]), "a"),
            TypeError,
            "add(): argument 'other' (position 2) must be Tensor, not str",
        ),
        (lambda: T([1]) + 2**64, OverflowError, "int too big to convert"),
        (
            lambda: numtorch.addcdiv(T([1]), T([3]), T([5])),
            RuntimeError,
            "Integer division with addcdiv is no longer supported",
        ),
        (
            lambda: numtorch.addcmul(T([1.0]), T([1.0]), T([1.0]), value=1j),
            RuntimeError,
            "value cannot be converted to type float without overflow",
        ),
        (
            lambda: numtorch.lerp(T([1.0]), T([1.0], dtype=numtorch.float64), 0.5),
            RuntimeError,
            "expected dtype float for `end` but got dtype double",
        ),
        (
            lambda: numtorch.lerp(T([1, 2]), T([3, 4]), 0.5),
            NotImplementedError,
            "\"lerp_kernel_scalar\" not implemented for 'Long'",
        ),
        (
            lambda: numtorch.isclose(T([1.0]), T([1.0], dtype=numtorch.float64)),
            RuntimeError,
            "Float did not match Double",
        ),
        (
            lambda: numtorch.isclose(T([1.0]), T([1.0]), rtol=-1),
            RuntimeError,
            "rtol must be greater than or equal to zero, but got -1",
        ),
        (
            lambda: numtorch.isclose(T([1.0]), 1.0),
            TypeError,
            "isclose(): argument 'other' (position 2) must be Tensor, not float",
        ),
        (
            lambda: numtorch.round(T([3]), decimals=1),
            NotImplementedError,
            "\"round_cpu\" not implemented for 'Long'",
        ),
        (
            lambda: numtorch.frac(T([1])),
            NotImplementedError,
            "\"frac_cpu\" not implemented for 'Long'",
        ),
        (
            lambda: numtorch.floor(T([True])),
            NotImplementedError,
            "\"floor_vml_cpu\" not implemented for 'Bool'",
        ),
        (
            lambda: numtorch.sign(T([1j])),
            NotImplementedError,
            "Unlike NumPy, torch.sign is not intended to support complex numbers.",
        ),
        (
            lambda: numtorch.isposinf(T([1j])),
            RuntimeError,
            "isposinf does not support complex inputs.",
        ),
        (
            lambda: T([1j]).abs_(),
            RuntimeError,
            "In-place abs is not supported for complex tensors.",
        ),
        (
            lambda: numtorch.sin(2),
            TypeError,
            "sin(): argument 'input' (position 1) must be Tensor, not int",
        ),
    ],
    ids=lambda v: v if isinstance(v, str) else "",
)
def test_error_type_and_message(call, exc, msg):
    with pytest.raises(exc) as info:
        call()
    assert str(info.value).startswith(msg)


def test_no_numba_error_reaches_the_user_for_any_dtype_pair():
    # every failure must be one of PyTorch's exception types, never a Numba typing error
    ops = ["add", "sub", "mul", "div", "floor_divide", "remainder", "fmod", "pow", "atan2", "hypot", "maximum", "fmax",
           "logaddexp", "xlogy", "eq", "lt", "logical_and", "bitwise_and", "bitwise_left_shift", "clamp_min"]  # fmt: skip
    for op in ops:
        for a, b in [(x, y) for x in ALL for y in ALL]:
            x, y = numtorch.ones(3, dtype=dt(a)), numtorch.ones(3, dtype=dt(b))
            try:
                getattr(numtorch, op)(x, y)
            except (RuntimeError, NotImplementedError, TypeError) as e:
                assert "numba" not in type(e).__module__ and "Numba" not in str(e), (op, a, b, e)


# ---- type promotion --------------------------------------------------------------------------------
@settings(max_examples=60, deadline=None)
@given(st.sampled_from(ALL), st.sampled_from(ALL), st.sampled_from(["add", "mul", "maximum", "eq"]))
def test_tensor_pairs_promote_like_promote_types(a, b, op):
    x, y = numtorch.ones(2, dtype=dt(a)), numtorch.ones(2, dtype=dt(b))
    want = numtorch.promote_types(dt(a), dt(b))
    assert numtorch.result_type(x, y) is want
    try:
        r = getattr(numtorch, op)(x, y)
    except (RuntimeError, NotImplementedError):
        return  # e.g. maximum on complex
    assert r.dtype is (numtorch.bool if op == "eq" else want)


@settings(max_examples=60, deadline=None)
@given(st.sampled_from(REAL), st.sampled_from([True, 7, -3, 2.5, 1j]))
def test_python_numbers_are_weak(a, s):
    x = numtorch.ones(2, dtype=dt(a))
    r = x * s
    cat = {bool: 0, int: 1, float: 2, complex: 3}[type(s)]
    mine = {"bool": 0, "float16": 2, "float32": 2, "float64": 2}.get(a, 1)
    if cat <= mine:
        assert r.dtype is x.dtype  # a number of the same or lower category never widens
    elif cat == 1:
        assert r.dtype is numtorch.int64
    elif cat == 2:
        assert r.dtype is numtorch.get_default_dtype()
    else:
        assert r.dtype is (numtorch.complex128 if a == "float64" else numtorch.complex64)
    assert numtorch.result_type(x, s) is r.dtype


@pytest.mark.parametrize(("expr", "want"), [
    ("T([1, 2]) / 2", "float32"), ("T([1, 2]) // 2", "int64"), ("T([1, 2], dtype=numtorch.int8) + 1000", "int8"),
    ("T([1.0]).half() + 2.5", "float16"), ("T([1]) + T(2.5, dtype=numtorch.float64)", "float64"),
    ("T([1.0]) + T(2.5, dtype=numtorch.float64)", "float32"), ("T([1], dtype=numtorch.uint8) + T([1], dtype=numtorch.int8)", "int16"),
    ("numtorch.sqrt(T([4]))", "float32"), ("numtorch.exp(T([True]))", "float32"), ("numtorch.abs(T([1j]))", "float32"),
    ("numtorch.square(T([True]))", "int64"), ("T([True]) ** 2", "int64"), ("T([True]) ** False", "bool"), ("numtorch.sign(T([True]))", "bool"),
    ("numtorch.round(T([3]))", "int64"), ("numtorch.clamp(T([1, 5]), 0.5, 2)", "float32"), ("numtorch.clamp(T([True]), 0, 1)", "int64"),
    ("numtorch.xlogy(T([1]), 2)", "float32"), ("numtorch.atan2(T([True]), T([True]))", "float32"), ("T([1.0]) == 1j", "bool"),
    ("T([1.0]).eq_(1.0)", "float32"), ("T([1]).lt_(1.5)", "int64"), ("numtorch.nan_to_num(T([1]))", "int64"),
])  # fmt: skip
def test_result_dtype(expr, want):
    assert eval(expr).dtype is dt(want)  # noqa: S307


# ---- NaN, infinities, signed zeros ---------------------------------------------------------------
NAN = float("nan")


def test_maximum_minimum_clamp_propagate_nan_and_fmax_fmin_ignore_it():
    a, b = T([1.0, NAN, NAN, 3.0]), T([NAN, 2.0, NAN, 1.0])
    assert np.array_equal(numtorch.maximum(a, b).numpy(), [NAN, NAN, NAN, 3.0], equal_nan=True)
    assert np.array_equal(numtorch.minimum(a, b).numpy(), [NAN, NAN, NAN, 1.0], equal_nan=True)
    assert np.array_equal(numtorch.fmax(a, b).numpy(), [1.0, 2.0, NAN, 3.0], equal_nan=True)
    assert np.array_equal(numtorch.fmin(a, b).numpy(), [1.0, 2.0, NAN, 1.0], equal_nan=True)
    assert np.array_equal(
        numtorch.clamp(T([NAN, -1.0, 5.0]), 0, 2).numpy(), [NAN, 0.0, 2.0], equal_nan=True
    )
    assert math.isnan(numtorch.clamp(T([1.0]), NAN, 3).item())
    assert numtorch.clamp(T([1.0, 5.0]), 3, 2).tolist() == [2.0, 2.0]  # max wins when min > max


def test_sign_of_nan_is_zero_and_comparisons_with_nan_are_false():
    assert numtorch.sign(T([NAN, -0.0, -2.0])).tolist() == [0.0, 0.0, -1.0]
    assert (T([NAN]) == T([NAN])).tolist() == [False] and (T([NAN]) != T([NAN])).tolist() == [True]


def test_floor_division_and_remainder_follow_python_for_floats():
    a, b = T([-0.0, 1.0, -1.0, 7.0, -7.0]), T([5.0, -0.0, float("inf"), -2.0, 2.0])
    assert np.signbit(numtorch.floor_divide(a, b).numpy()).all()
    assert numtorch.floor_divide(a, b).tolist()[1:] == [-math.inf, -1.0, -4.0, -4.0]
    assert numtorch.remainder(T([-3.0, 3.0, 5.0]), T([2.0, -2.0, math.inf])).tolist() == [
        1.0,
        -1.0,
        5.0,
    ]
    assert numtorch.fmod(T([-3.0, 3.0]), 2).tolist() == [-1.0, 1.0]
    assert (T([5, -5]) / 0).tolist() == [math.inf, -math.inf]


def test_round_is_half_to_even_with_decimals():
    assert numtorch.round(T([0.5, 1.5, 2.5, -0.5, -1.5])).tolist() == [0.0, 2.0, 2.0, -0.0, -2.0]
    assert numtorch.round(T([15.0, 25.0, -35.0]), decimals=-1).tolist() == [20.0, 20.0, -40.0]
    assert numtorch.round(T([0.125, 1.2345], dtype=numtorch.float64), decimals=2).tolist() == [
        0.12,
        1.23,
    ]


def test_nan_to_num_defaults_to_the_dtype_limits():
    x = T([NAN, math.inf, -math.inf])
    assert numtorch.nan_to_num(x).tolist() == [
        0.0,
        np.finfo(np.float32).max,
        np.finfo(np.float32).min,
    ]
    assert numtorch.nan_to_num(x.half()).tolist() == [0.0, 65504.0, -65504.0]
    assert numtorch.nan_to_num(x, nan=1.0, posinf=2.0, neginf=-2.0).tolist() == [1.0, 2.0, -2.0]


def test_isclose_equal_and_allclose():
    a = T([1.0, NAN, math.inf, 1e-9])
    b = T([1.0 + 1e-6, NAN, math.inf, 0.0])
    assert numtorch.isclose(a, b).tolist() == [True, False, True, True]
    assert numtorch.isclose(a, b, equal_nan=True).tolist() == [True, True, True, True]
    assert numtorch.allclose(a, b, equal_nan=True) is True and numtorch.allclose(a, b) is False
    assert numtorch.equal(T([1, 2]), T([1.0, 2.0])) is True
    assert numtorch.equal(T([NAN]), T([NAN])) is False
    assert numtorch.equal(numtorch.ones(2, 2), numtorch.ones(2)) is False
    assert numtorch.isclose(T([100, 2**62]), T([101, -(2**62)]), rtol=0.01, atol=0).tolist() == [
        True,
        False,
    ]


# ---- integer overflow wraps --------------------------------------------------------------------------
def test_integer_arithmetic_wraps():
    i8 = numtorch.int8
    assert (T([127], dtype=i8) + 1).tolist() == [-128]
    assert numtorch.abs(T([-128], dtype=i8)).tolist() == [-128]
    assert (-T([-128], dtype=i8)).tolist() == [-128]
    assert (T([2**62]) * 4).tolist() == [0]
    assert (T([200], dtype=numtorch.uint8) * 2).tolist() == [144]
    assert (T([5], dtype=i8) + 1000).tolist() == [-19]  # the number wraps to int8 first
    assert (T([5]) + 2**63).tolist() == [5 - 2**63]  # [2**63, 2**64) wraps like c10::Scalar
    assert (T([3], dtype=i8) ** 5).tolist() == [-13]
    assert (T([1, -8]) << 70).tolist() == [0, 0] and (T([-5, 5]) >> 70).tolist() == [-1, 0]
    assert (T([-(2**63)]) // -1).tolist() == [-(2**63)]  # PyTorch traps here; we wrap
    assert (T([-(2**63)]) % -1).tolist() == [0]


# ---- 0-d, empty, non-contiguous, float16 ----------------------------------------------------------
def test_zero_dim_and_empty_shapes():
    assert (T(2.0) + T(3.0)).shape == () and (T(2.0) + 1).dtype is numtorch.float32
    assert (numtorch.ones(0, 3) * 2).shape == (0, 3)
    assert (numtorch.ones(0) == numtorch.ones(1)).shape == (0,)
    assert numtorch.sin(T([])).shape == (0,)
    assert (T([], dtype=numtorch.int64) // 0).shape == (0,)  # no element divides by zero


def test_non_contiguous_operands_and_inplace_on_a_view():
    base = numtorch.arange(12.0).reshape(3, 4)
    v = base.t()
    r = v * 2
    assert r.tolist() == (np.arange(12.0).reshape(3, 4).T * 2).tolist()
    col = base[:, 1]
    col.add_(100)
    assert base[:, 1].tolist() == [101.0, 105.0, 109.0]


def test_float16_computes_in_float32_and_rounds_once():
    x = T([1.0, 2.0]).half()
    assert (x / 3).dtype is numtorch.float16
    assert (x / 3).tolist() == np.array([1 / 3, 2 / 3], np.float16).tolist()
    assert (T([65504.0]).half() * 2).tolist() == [math.inf]
    assert numtorch.add(x, x, out=numtorch.empty(2, dtype=numtorch.float16)).tolist() == [2.0, 4.0]


def test_out_is_resized_with_pytorchs_warning_and_version_counters_bump():
    out = numtorch.empty(5)
    with pytest.warns(UserWarning, match="An output with one or more elements was resized"):
        numtorch.add(T([1.0, 2.0]), 1, out=out)
    assert out.tolist() == [2.0, 3.0]
    x = T([1.0])
    v = x._version
    x.mul_(2)
    assert x._version == v + 1
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        numtorch.add(T([1.0]), 1, out=numtorch.empty(0))  # empty outputs resize silently


def test_out_fast_case_keeps_pytorchs_out_semantics(monkeypatch):
    # Note [Elementwise fast signatures]: a plain contiguous out= of the result dtype and shape
    # skips the general path (run); every other out= still takes it
    from numtorch.ops.pointwise import _elementwise
    from numtorch.utils._python_dispatch import TorchDispatchMode

    rng = np.random.default_rng(0)
    an, bn = rng.standard_normal((3, 4)).astype(np.float32), rng.standard_normal((3, 4)).astype(np.float32)
    a, b = numtorch.from_numpy(an.copy()), numtorch.from_numpy(bn.copy())
    for f in (numtorch.add, numtorch.mul, numtorch.sub):
        f(a, b), f(a, 2.0)  # learn the signatures

    def no_general_path(*args, **kw):
        raise AssertionError("out= took the general path")

    real_run = _elementwise.run
    monkeypatch.setattr(_elementwise, "run", no_general_path)
    for f, ref in ((numtorch.add, np.add), (numtorch.mul, np.multiply), (numtorch.sub, np.subtract)):
        out = numtorch.empty(3, 4)
        v = out._version
        assert f(a, b, out=out) is out and out._version == v + 1
        np.testing.assert_array_equal(out.numpy(), ref(an, bn))
        assert f(a, 2.0, out=out) is out and out._version == v + 2
        np.testing.assert_array_equal(out.numpy(), ref(an, np.float32(2.0)))
    big = rng.standard_normal(_elementwise.PARALLEL_THRESHOLD + 3).astype(np.float32)
    tb = numtorch.from_numpy(big)
    numtorch.mul(tb, tb)  # from PARALLEL_THRESHOLD on: the parallel (or single-thread) kernel
    out = numtorch.empty(big.size)
    np.testing.assert_array_equal(numtorch.mul(tb, tb, out=out).numpy(), big * big)
    monkeypatch.setattr(_elementwise, "run", real_run)

    c = numtorch.from_numpy(an.copy())  # out= the first input: Note [In-place kernel variants]
    assert numtorch.add(c, b, out=c) is c
    np.testing.assert_array_equal(c.numpy(), an + bn)
    out = numtorch.empty(5)  # another shape: resized with the warning
    with pytest.warns(UserWarning, match="An output with one or more elements was resized"):
        numtorch.add(a, b, out=out)
    np.testing.assert_array_equal(out.numpy(), an + bn)
    wide = numtorch.empty(3, 4, dtype=numtorch.float64)  # another dtype: cast check, then cast
    numtorch.mul(a, b, out=wide)
    np.testing.assert_array_equal(wide.numpy(), (an * bn).astype(np.float64))
    with pytest.raises(RuntimeError, match="^result type Float can't be cast to the desired output type Long$"):
        numtorch.mul(a, b, out=numtorch.empty(3, 4, dtype=numtorch.int64))
    strided = numtorch.empty(4, 3).t()  # a non-contiguous out
    numtorch.add(a, b, out=strided)
    np.testing.assert_array_equal(strided.numpy(), an + bn)
    msg = "^add\\(\\): functions with out=... arguments don't support automatic differentiation, but one of the arguments requires grad.$"
    with pytest.raises(RuntimeError, match=msg):
        numtorch.add(a.detach().requires_grad_(), b, out=numtorch.empty(3, 4))
    with pytest.raises(RuntimeError, match=msg):
        numtorch.add(a, b, out=numtorch.zeros(3, 4, requires_grad=True))
    seen = []

    class Log(TorchDispatchMode):
        def __torch_dispatch__(self, func, types, args=(), kwargs=None):
            seen.append(str(func))
            return func(*args, **(kwargs or {}))

    with Log():
        numtorch.add(a, b, out=numtorch.empty(3, 4))
        numtorch.mul(a, b, out=numtorch.empty(3, 4))
    assert seen.count("aten.add.out") == 1 and seen.count("aten.mul.out") == 1


# ---- operator dunders -----------------------------------------------------------------------------------
def test_reflected_operators():
    t = T([1, 2, 4])
    assert (
        (10 - t).tolist() == [9, 8, 6]
        and (10 // t).tolist() == [10, 5, 2]
        and (10 % t).tolist() == [0, 0, 2]
    )
    assert (
        (2**t).tolist() == [2, 4, 16]
        and (1 << t).tolist() == [2, 4, 16]
        and (64 >> t).tolist() == [32, 16, 4]
    )
    assert (
        (3 & t).tolist() == [1, 2, 0]
        and (3 | t).tolist() == [3, 3, 7]
        and (3 ^ t).tolist() == [2, 1, 7]
    )
    assert (2 / t).dtype is numtorch.float32 and (2 / t).tolist() == [2.0, 1.0, 0.5]
    assert (2 < t).tolist() == [False, False, True]


def test_unsupported_operands_return_notimplemented():
    t = T([1.0])
    assert (t == None) is False and (t != None) is True  # noqa: E711
    assert t.__add__("a") is NotImplemented and t.__iadd__("a") is NotImplemented
    with pytest.raises(TypeError, match="unsupported operand"):
        t + "a"
    with pytest.raises(TypeError, match="not supported between instances"):
        t < None  # noqa: B015


def test_inplace_operators_keep_identity_and_dtype():
    t = T([1.0, 2.0])
    same = t
    t += 1
    t *= T([2.0, 2.0])
    t **= 2
    assert t is same and t.tolist() == [16.0, 36.0]
    m = T([5, 6])
    m //= 4
    m <<= 1
    assert m.tolist() == [2, 2] and m.dtype is numtorch.int64


# ---- derivative conventions --------------------------------------------------------------------------
def _grad(fn, *xs):
    out = fn(*xs)
    return numtorch.autograd.grad(out.sum(), xs, allow_unused=True)


def test_abs_sign_and_rounding_gradients():
    x = f64(-1.5, 0.0, 2.0)
    assert _grad(numtorch.abs, x)[0].tolist() == [-1.0, 0.0, 1.0]
    for fn in (numtorch.sign, numtorch.floor, numtorch.ceil, numtorch.round, numtorch.trunc):
        assert _grad(fn, x)[0].tolist() == [0.0, 0.0, 0.0]
    assert _grad(numtorch.frac, x)[0].tolist() == [1.0, 1.0, 1.0]


def test_maximum_splits_ties_evenly_and_clamp_passes_inside_the_bounds():
    a, b = f64(1.0, 2.0, 3.0), f64(1.0, 5.0, 0.0)
    ga, gb = _grad(numtorch.maximum, a, b)
    assert ga.tolist() == [0.5, 0.0, 1.0] and gb.tolist() == [0.5, 1.0, 0.0]
    ga, gb = _grad(numtorch.minimum, a, b)
    assert ga.tolist() == [0.5, 1.0, 0.0] and gb.tolist() == [0.5, 0.0, 1.0]
    x = f64(-2.0, 0.0, 0.5, 1.0, 3.0)
    assert _grad(lambda t: numtorch.clamp(t, 0, 1), x)[0].tolist() == [0.0, 1.0, 1.0, 1.0, 0.0]
    assert _grad(lambda t: t.clamp(min=0), x)[0].tolist() == [0.0, 1.0, 1.0, 1.0, 1.0]


def test_pow_exponent_gradient_is_masked_at_zero_base():
    base, e = f64(0.0, 0.0, 2.0), f64(2.0, -1.0, 3.0)
    gb, ge = _grad(numtorch.pow, base, e)
    assert ge.tolist()[0] == 0.0 and math.isnan(ge.tolist()[1]) or math.isinf(ge.tolist()[1])
    assert ge.tolist()[2] == pytest.approx(8 * math.log(2))
    assert gb.tolist()[2] == pytest.approx(12.0)
    (g,) = _grad(lambda t: numtorch.pow(2.0, t), f64(1.0, 3.0))
    assert g.tolist() == pytest.approx([2 * math.log(2), 8 * math.log(2)])
    (g,) = _grad(lambda t: t**0, f64(1.0, 3.0))
    assert g.tolist() == [0.0, 0.0]


def test_floor_divide_has_no_derivative():
    x = f64(1.5, 2.5)
    with pytest.raises(RuntimeError, match="derivative for aten::floor_divide is not implemented"):
        numtorch.floor_divide(x, 2).sum().backward()


@pytest.mark.parametrize(
    "fn",
    [numtorch.sigmoid, numtorch.tanh, lambda t: t.pow(3), lambda t: numtorch.atan2(t, t * 2 + 3), lambda t: t.exp().log1p(),
     lambda t: numtorch.addcdiv(t, t, t * t + 1, value=0.5), lambda t: numtorch.lerp(t, t * t, t.sigmoid()),
     lambda t: numtorch.hypot(t, t + 2), lambda t: numtorch.logaddexp(t, -t), lambda t: numtorch.xlogy(t, t * t + 1),
     lambda t: numtorch.remainder(t, 1.7) + numtorch.fmod(t, 0.9)],
    ids=["sigmoid", "tanh", "pow", "atan2", "log1p_exp", "addcdiv", "lerp", "hypot", "logaddexp", "xlogy", "remainder_fmod"],
)  # fmt: skip
def test_double_backward(fn):
    x = f64(0.3, -0.8, 1.3)
    assert gradcheck(fn, (x,))
    assert gradgradcheck(fn, (x,))


# ---- numbers first, error order, erfc / deg2rad / rad2deg / copysign / logaddexp2 ------------------
@pytest.mark.parametrize("mode", ["floor", "trunc"])
def test_div_with_a_number_first_and_a_rounding_mode(mode):
    # PyTorch's parser wraps the number as a tensor; the routed kernel must accept it
    for a, b, want_dtype in ((-7, T(2), numtorch.int64), (-7.5, T(2), numtorch.float32), (7, T([-2.0]), numtorch.float32)):
        r = numtorch.div(a, b, rounding_mode=mode)
        fn = np.floor if mode == "floor" else np.trunc
        assert r.dtype == want_dtype and r.tolist() == np.asarray(fn(a / b.numpy()), dtype=r.numpy().dtype).tolist()


def test_broadcast_error_comes_before_the_dtype_error():
    # TensorIterator computes the shape first: a shape mismatch wins over an unsupported dtype
    with pytest.raises(RuntimeError, match=r"^The size of tensor a \(5\) must match the size of tensor b \(4\) at non-singleton dimension 0$"):
        numtorch.bitwise_and(numtorch.ones(5), numtorch.ones(4))
    with pytest.raises(NotImplementedError, match="\"bitwise_and_cpu\" not implemented for 'Float'"):
        numtorch.bitwise_and(numtorch.ones(4), numtorch.ones(4))
    with pytest.raises(RuntimeError, match="must match the size of tensor b"):
        numtorch.lt(numtorch.ones(3, 4), numtorch.ones(3, dtype=numtorch.complex64))


def test_erfc_deg2rad_rad2deg_values_dtypes_and_errors():
    x = np.array([-2.0, -0.5, 0.0, 0.7, 3.0, np.nan, np.inf, -np.inf])
    np.testing.assert_allclose(numtorch.erfc(T(x)).numpy(), [math.erfc(v) for v in x], rtol=1e-12)
    np.testing.assert_allclose(numtorch.deg2rad(T(x)).numpy(), np.deg2rad(x))
    np.testing.assert_allclose(numtorch.rad2deg(T(x)).numpy(), np.rad2deg(x))
    assert numtorch.deg2rad(T([180])).dtype == numtorch.float32 and numtorch.erfc(T([True])).dtype == numtorch.float32
    with pytest.raises(RuntimeError, match="^deg2rad is not supported for complex tensors.$"):
        numtorch.deg2rad(T([1j]))
    with pytest.raises(NotImplementedError, match="\"erfc_vml_cpu\" not implemented for 'ComplexFloat'"):
        numtorch.erfc(T([1j]))


def test_copysign_and_logaddexp2_values_and_gradients():
    x = np.array([2.0, -0.5, 0.0, 0.7, -3.0])
    y = np.array([1.0, -1.0, -0.0, 2.0, -3.0])
    assert numtorch.copysign(T(x), T(y)).numpy().tobytes() == np.copysign(x, y).tobytes()
    assert numtorch.copysign(T([1, -2]), -1.5).tolist() == [-1.0, -2.0]
    np.testing.assert_allclose(numtorch.logaddexp2(T(x), T(y)).numpy(), np.logaddexp2(x, y), rtol=1e-12)
    with pytest.raises(NotImplementedError, match="\"logaddexp2_cpu\" not implemented for 'Long'"):
        numtorch.logaddexp2(T([1]), T([2]))
    a = T(x, requires_grad=True)
    b = T(y, requires_grad=True)
    numtorch.copysign(a, b).sum().backward()
    # PyTorch: grad * result / self, zero where self == 0; nothing flows to `other`
    assert a.grad.tolist() == [1.0, 1.0, 0.0, 1.0, 1.0] and b.grad.tolist() == [0.0] * 5
    p = T([0.3, -1.2], dtype=numtorch.float64, requires_grad=True)
    q = T([1.5, 0.4], dtype=numtorch.float64, requires_grad=True)
    assert gradcheck(numtorch.logaddexp2, (p, q)) and gradgradcheck(numtorch.logaddexp2, (p, q))
    assert gradcheck(numtorch.copysign, (p, q)) and gradgradcheck(numtorch.copysign, (p, q))


def test_logaddexp2_float32_accuracy_and_ends():
    # PyTorch's formula in float32 (m + log1p(exp2(-|a - b|)) / ln 2): within 2.5 ulp of the
    # larger of |result|, |a|, |b| (torch's own: 1.9), and IEEE's ends
    rng = np.random.default_rng(3)
    a, b = ((rng.standard_normal(4096) * np.exp2(rng.integers(-10, 8, 4096))).astype(np.float32) for _ in "ab")
    ref = np.logaddexp2(a.astype(np.float64), b.astype(np.float64))
    got = numtorch.logaddexp2(numtorch.from_numpy(a), numtorch.from_numpy(b)).numpy()
    scale = np.spacing(np.maximum(np.abs(ref), np.maximum(np.abs(a), np.abs(b))).astype(np.float32))
    assert got.dtype == np.float32 and (np.abs(got - ref) / scale).max() <= 2.5
    sp = np.array([np.inf, -np.inf, np.nan, 0.0, 3.0], np.float32)
    x, y = np.repeat(sp, 5), np.tile(sp, 5)
    with np.errstate(invalid="ignore"):
        want = np.logaddexp2(x, y)
    np.testing.assert_array_equal(numtorch.logaddexp2(numtorch.from_numpy(x), numtorch.from_numpy(y)).numpy(), want)


def test_logit_heaviside_float_power_follow_pytorchs_rules():
    x = T([-0.5, 0.0, 0.3, 1.0, 1.5])
    got = numtorch.logit(x).tolist()
    assert math.isnan(got[0]) and got[1] == -math.inf and got[3] == math.inf and math.isnan(got[4])
    assert numtorch.logit(x, 0.1).tolist() == pytest.approx([math.log(0.1 / 0.9)] * 2 + [math.log(0.3 / 0.7), math.log(9)] * 1 + [math.log(9)], rel=1e-6)
    g = T([-0.5, 0.5, 0.05], dtype=numtorch.float64, requires_grad=True)
    numtorch.logit(g).sum().backward()
    assert math.isnan(g.grad[0].item()) and g.grad[1].item() == 4.0
    g.grad = None
    numtorch.logit(g, 0.1).sum().backward()  # outside [eps, 1 - eps]: zero
    assert g.grad[0].item() == 0.0 and g.grad[2].item() == 0.0
    # heaviside: `values` where input == 0, NaN counts as not positive (PyTorch, unlike NumPy)
    assert numtorch.heaviside(T([-1.0, 0.0, 2.0, math.nan]), T([0.5])).tolist() == [0.0, 0.5, 1.0, 0.0]
    with pytest.raises(RuntimeError, match="^heaviside is not yet implemented for tensors with different dtypes.$"):
        numtorch.heaviside(T([1.0]), T([1]))
    with pytest.raises(RuntimeError, match="derivative for aten::heaviside is not implemented"):
        numtorch.heaviside(T([1.0], requires_grad=True), T([1.0])).sum().backward()
    # float_power computes in double (complex double)
    assert numtorch.float_power(T([2, 3]), 2).dtype == numtorch.float64
    assert numtorch.float_power(2, T([0.5])).dtype == numtorch.float64
    assert numtorch.float_power(T([1j]), 2).dtype == numtorch.complex128
    with pytest.raises(RuntimeError, match="^the base given to float_power_ has dtype Float but the operation's result requires dtype Double$"):
        T([1.0]).float_power_(2)
    y = T([2.0], dtype=numtorch.float64)
    assert y.float_power_(T([3])) is y and y.item() == 8.0


def test_gcd_lcm_ldexp_isreal_dist_conj():
    assert numtorch.gcd(T([12, -18, 0]), T([18, 4, 0])).tolist() == [6, 2, 0]
    assert numtorch.lcm(T([12, -18, 0]), T([18, 4, 5])).tolist() == [36, 36, 0]
    with pytest.raises(NotImplementedError, match="\"gcd_cpu\" not implemented for 'Float'"):
        numtorch.gcd(T([1.0]), T([1.0]))
    assert numtorch.ldexp(T([1, 2]), T([3, 1])).tolist() == [8.0, 4.0] and numtorch.ldexp(T([1, 2]), T([3, 1])).dtype == numtorch.float32
    assert numtorch.isreal(T([1 + 0j, 1j])).tolist() == [True, False] and numtorch.isreal(T([math.nan])).tolist() == [True]
    assert numtorch.dist(T([1.0, 2.0]), T([4.0, 6.0])).item() == 5.0 and T([1.0, 2.0]).dist(T([4.0, 6.0]), 1).item() == 7.0
    with pytest.raises(RuntimeError, match="^norm\\(\\): input dtype should be either floating point or complex. Got Long instead.$"):
        numtorch.dist(T([1, 2]), T([4, 6]))
    x = T([1.0, 2.0])
    assert numtorch.conj(x) is x and numtorch.conj(T([1 + 2j])).tolist() == [1 - 2j] and not x.is_conj()


def test_elementwise_ops_read_dtype_views_of_their_storage():
    # Tensor.imag / view(dtype) are views whose storage has another dtype: the strided kernels
    # must read the storage as the view's dtype
    c = T([[1 + 0j, 1j], [2 - 3j, 4 + 5j]])
    im, re = c.imag, c.real
    assert numtorch.eq(im, 0).tolist() == [[True, False], [False, False]]
    assert (im + re).tolist() == [[1.0, 1.0], [-1.0, 9.0]] and (im.t() * 2).tolist() == [[0.0, -6.0], [2.0, 10.0]]
    assert numtorch.where(im > 0, re, im).tolist() == [[0.0, 0.0], [-3.0, 4.0]]
    w = numtorch.arange(6, dtype=numtorch.int32).view(numtorch.int16)[::2]
    assert (w + 1).tolist() == [1, 2, 3, 4, 5, 6]


@pytest.mark.parametrize("n", [5, 1 << 19])
def test_inplace_ops_write_through_the_inplace_kernel_variants(n, monkeypatch):
    # Note [In-place kernel variants]: the c_/p_ loops given one array as input and output
    # lose vectorization to LLVM's alias check; x.op_(...) takes the ci_/pi_ variants instead
    from numtorch.ops._pointwise import Pointwise

    used = []
    real = Pointwise.kernel
    monkeypatch.setattr(Pointwise, "kernel", lambda self, v: used.append(v) or real(self, v))
    rng = np.random.default_rng(1)
    a, b = rng.standard_normal(n).astype(np.float32), rng.standard_normal(n).astype(np.float32)
    x, y = numtorch.tensor(a), numtorch.tensor(b)
    x.add_(y, alpha=2)
    x.mul_(x)
    x.sub_(0.5)
    np.testing.assert_allclose(x.numpy(), (a + 2 * b) ** 2 - 0.5, rtol=1e-6)
    assert used and all(v[1:3] == "i_" for v in used), used
    used.clear()
    numtorch.add(x, y, out=x)  # out= the first input runs in place too
    np.testing.assert_allclose(x.numpy(), (a + 2 * b) ** 2 - 0.5 + b, rtol=1e-6)
    assert used[0][1:3] == "i_", used


_SIGNATURES = """
import json, sys
import numpy as np
import numtorch
a, b, o = numtorch.ones(5), numtorch.ones(5), numtorch.empty(5)
x = numtorch.ones(4, 4).t()
ai, ab = numtorch.ones(5, dtype=numtorch.int64), numtorch.ones(5, dtype=numtorch.bool)
a + b, a.add(b, alpha=2), numtorch.add(a, b, out=o), numtorch.add(a, b, out=o, alpha=3)
a.add_(b), a.add_(b, alpha=2), a + 2, a.add(2, alpha=2)
x + x, x.add(x, alpha=2), ai + ai, ai.add(ai, alpha=2), ab + ab, ab.add(ab, alpha=True)
assert (b.add(b, alpha=3).numpy() == 4).all()
(mod,) = {m for n, m in sys.modules.items() if n.startswith("_numtorch_gen_pw_add_bifc_")}
sigs = lambda: {v: [[str(t) for t in s] for s in getattr(mod, v).signatures]
                for v in ("c_aa", "ci_aa", "c_as", "strided")}
first = sigs()
a.add(b, alpha=0.5), a.add(b, alpha=1.5), x.add(x, alpha=0.5)
print(json.dumps([first, sigs()]))
"""


def test_one_kernel_signature_per_dtype_and_parameter_kind():
    # Note [One kernel signature per parameter kind]: the fast paths and the general path
    # (alpha != 1, out=, in-place, strided) pass alpha=<int> alike, so each compiles (and loads
    # from the disk cache) once. A fresh interpreter: other tests compile other signatures.
    import json
    import os
    import subprocess
    import sys

    root = os.path.dirname(os.path.dirname(numtorch.__file__))
    out = subprocess.run([sys.executable, "-c", _SIGNATURES], cwd=root, capture_output=True,
                         text=True, timeout=300, check=True)  # fmt: skip
    first, then = json.loads(out.stdout.strip().splitlines()[-1])
    for variant, dtypes in (("c_aa", 3), ("ci_aa", 1), ("c_as", 1), ("strided", 1)):
        sigs = first[variant]
        assert all(s[-1] == "int64" for s in sigs), (variant, sigs)
        assert len({s[0] for s in sigs}) == len(sigs) == dtypes, (variant, sigs)
    # a float alpha is the other kind: one more signature, not one per path
    assert len(then["c_aa"]) == 4 and len(then["strided"]) == 2
    assert then["c_aa"][-1][-1] == then["strided"][-1][-1] == "float64"


# Note [Expanded operands run as scalars]
@pytest.mark.parametrize("shape", [(5, 7), (3, 1, 4), (6,)])
def test_expanded_operand_runs_as_scalar(shape):
    rng = np.random.default_rng(7)
    x = numtorch.from_numpy(rng.standard_normal(shape).astype(np.float32))
    g = numtorch.tensor(2.5).expand(*shape)
    assert not any(g.stride())
    np.testing.assert_array_equal((g * x).numpy(), 2.5 * x.numpy())
    np.testing.assert_array_equal((x - g).numpy(), x.numpy() - np.float32(2.5))
    # a defop'd backward helper (Pointwise called directly) on the expanded gradient
    want = numtorch.ops.aten.tanh_backward(g.contiguous(), x.tanh())
    np.testing.assert_array_equal(numtorch.ops.aten.tanh_backward(g, x.tanh()).numpy(), want.numpy())
    xg = x.clone().requires_grad_(True)
    numtorch.nn.functional.gelu(xg).sum().backward()
    want = numtorch.ops.aten.gelu_backward(numtorch.ones_like(x), x)
    np.testing.assert_array_equal(xg.grad.numpy(), want.numpy())
    # only expanded operands: one value computed, the full-shape result filled with it
    np.testing.assert_array_equal((g * g).numpy(), np.full(shape, 6.25, np.float32))
    r = g.neg()
    assert r.shape == g.shape and r.is_contiguous()
    np.testing.assert_array_equal(r.numpy(), np.full(shape, -2.5, np.float32))
    np.testing.assert_array_equal((g + 1).numpy(), np.full(shape, 3.5, np.float32))
    np.testing.assert_array_equal(numtorch.ops.aten.tanh_backward(g, g).numpy(),
                                  np.full(shape, np.float32(2.5) * (1 - np.float32(2.5) ** 2)))  # fmt: skip
    xg = x.clone().requires_grad_(True)
    (-xg).sum().backward()
    np.testing.assert_array_equal(xg.grad.numpy(), np.full(shape, -1.0, np.float32))
    a = numtorch.zeros(shape)
    a.add_(g)
    np.testing.assert_array_equal(a.numpy(), np.full(shape, 2.5, np.float32))


def test_zero_dim_operand_of_the_same_dtype_runs_as_scalar():
    # Note [Expanded operands run as scalars]: a 0-d tensor is one value too (g.mul_(clip_coef))
    x = numtorch.from_numpy(np.arange(6, dtype=np.float32).reshape(2, 3))
    c = numtorch.tensor(0.5)
    for _ in range(2):  # the first call learns the same-dtype signature
        np.testing.assert_array_equal((x * c).numpy(), x.numpy() * np.float32(0.5))
        np.testing.assert_array_equal((c - x).numpy(), np.float32(0.5) - x.numpy())
        h = x.clone()
        v = h._version
        assert h.mul_(c) is h and h._version == v + 1
        np.testing.assert_array_equal(h.numpy(), x.numpy() * np.float32(0.5))
    i = numtorch.arange(4)
    assert (i * numtorch.tensor(3)).tolist() == [0, 3, 6, 9]
    r = i * numtorch.tensor(1.5)  # another dtype: promotion, the general path
    assert r.dtype is numtorch.float32 and r.tolist() == [0.0, 1.5, 3.0, 4.5]
    assert (numtorch.ones(1) * c).tolist() == [0.5] and (numtorch.ones(0) * c).shape == (0,)


def test_conj_physical_of_a_real_tensor_is_the_tensor_itself():
    # Note [conj_physical of a real tensor is itself]: no copy and no node, for any real dtype
    for x in (numtorch.randn(3, requires_grad=True), numtorch.arange(4), numtorch.tensor([True])):
        assert numtorch.conj_physical(x) is x and x.conj_physical() is x
    assert numtorch.conj_physical(x).grad_fn is None
    z = numtorch.tensor([1 + 2j, 3 - 1j], requires_grad=True)
    y = numtorch.conj_physical(z)
    assert y is not z and type(y.grad_fn).__name__ == "ConjPhysicalBackward0"
    np.testing.assert_array_equal(y.detach().numpy(), np.conj(z.detach().numpy()))
    out = numtorch.empty(3)
    x = numtorch.randn(3)
    assert numtorch.conj_physical(x, out=out) is out and out is not x and out.tolist() == x.tolist()


@pytest.mark.parametrize("dtype", ["float32", "float64", "int64", "bool", "complex64", "bfloat16", "float16"])
def test_equal_same_and_mixed_dtypes(dtype):
    # one dtype: NumPy's comparison; mixed dtypes: the promoting eq op; NaN is never equal
    dt = getattr(numtorch, dtype)
    a = numtorch.tensor([[0.0, 1.0], [2.0, -3.0]]).to(dt)
    assert numtorch.equal(a, a.clone()) and not numtorch.equal(a, a.clone().reshape(4))
    b = a.clone()
    b[1, 1] = 1
    assert numtorch.equal(a, b) is (dtype == "bool")
    assert numtorch.equal(a, a.to(numtorch.complex128 if dt.is_complex else numtorch.float64))
    if dt.is_floating_point:
        n = numtorch.tensor([float("nan"), -0.0]).to(dt)
        assert not numtorch.equal(n, n) and numtorch.equal(n[1:], numtorch.zeros(1, dtype=dt))
