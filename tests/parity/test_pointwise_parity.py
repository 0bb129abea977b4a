"""Elementwise ops against torch: every OpInfo sample, dtype-promotion grids over tensor and
Python-number operands, operator dunders, in-place/out= casting, error types and messages, and
the aten overload schemas."""

from __future__ import annotations

import itertools
import math
import warnings

import numpy as np
import pytest

import numtorch
from numtorch.testing._opinfo.pointwise import core as pw_infos

torch = pytest.importorskip("torch")

DTYPES = [
    "bool",
    "uint8",
    "int8",
    "int16",
    "int32",
    "int64",
    "float16",
    "float32",
    "float64",
    "complex64",
]
SCALARS = [True, 3, -2, 2.5, -0.5, 1j, 2**40]


# ---- running one call in both libraries --------------------------------------------------------
def _conv(x, lib):
    if isinstance(x, np.ndarray):
        t = lib.from_numpy(x.copy()) if lib is torch else numtorch.from_numpy(x.copy())
        return t
    if isinstance(x, (list, tuple)):
        return type(x)(_conv(v, lib) for v in x)
    if isinstance(x, dict):
        return {k: _conv(v, lib) for k, v in x.items()}
    return x


def _outcome(fn):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            return ("ok", fn())
        except Exception as e:  # noqa: BLE001 - the outcome under test
            return ("err", type(e), str(e).split("\n")[0])


def _host(r):
    if isinstance(r, numtorch.Tensor):
        return r.dtype.name, r.detach().numpy() if r.requires_grad else r.numpy()
    if isinstance(r, torch.Tensor):
        return str(r.dtype).removeprefix("torch."), r.detach().numpy()
    if isinstance(r, (numtorch.dtype, torch.dtype)):
        return "dtype", str(r).removeprefix("torch.")
    return type(r).__name__, r


def _same(ours, theirs, tol=None, what=""):
    if _complex_half(theirs):
        return  # numtorch has no complex32: float16 with complex promotes to complex64 there
    if theirs[0] == "err":
        assert ours[0] == "err", (
            f"{what}: torch raised {theirs[1].__name__}: {theirs[2]}, numtorch returned {_host(ours[1])}"
        )
        assert issubclass(ours[1], theirs[1]) or ours[1] is theirs[1], (
            f"{what}: {ours[1].__name__} != {theirs[1].__name__} ({ours[2]})"
        )
        if theirs[1] is not TypeError:  # the argument parser's long listings are not mirrored
            assert ours[2] == theirs[2], f"{what}: message {ours[2]!r} != {theirs[2]!r}"
        return
    assert ours[0] == "ok", (
        f"{what}: numtorch raised {ours[1].__name__}: {ours[2]}; torch gave {_host(theirs[1])}"
    )
    (od, ov), (td, tv) = _host(ours[1]), _host(theirs[1])
    assert od == td, f"{what}: dtype {od} != {td}"
    if not isinstance(tv, np.ndarray):
        assert ov == tv, f"{what}: {ov} != {tv}"
        return
    assert ov.shape == tv.shape, f"{what}: shape {ov.shape} != {tv.shape}"
    if tv.dtype.kind in "fc":
        rtol, atol = tol or {
            "float16": (1e-3, 1e-3),
            "float32": (1.3e-6, 1e-5),
            "complex64": (1.3e-6, 1e-5),
        }.get(td, (1e-7, 1e-7))
        np.testing.assert_allclose(
            ov.astype(tv.dtype), tv, rtol=rtol, atol=atol, equal_nan=True, err_msg=what
        )
        if tv.dtype.kind == "f":  # signed zeros and infinities too
            z = (tv == 0) | np.isinf(tv)
            assert np.array_equal(np.signbit(ov[z]), np.signbit(tv[z])), (
                f"{what}: signs {ov[z]} != {tv[z]}"
            )
    else:
        np.testing.assert_array_equal(ov, tv, err_msg=what)


def _complex_half(outcome):
    if outcome[0] == "err":
        return "ComplexHalf" in outcome[2]
    return isinstance(outcome[1], torch.Tensor) and outcome[1].dtype is torch.complex32


def _both(expr, ns=None):
    """Evaluate ``expr`` with T = numtorch and T = torch; return both outcomes."""
    ns = ns or {}
    ours = _outcome(lambda: eval(expr, {"T": numtorch, "np": np, **_conv(ns, numtorch)}))  # noqa: S307
    theirs = _outcome(lambda: eval(expr, {"T": torch, "np": np, **_conv(ns, torch)}))  # noqa: S307
    return ours, theirs


# ---- 1. every OpInfo sample ------------------------------------------------------------------------
def _cases():
    for info in pw_infos.OPINFOS:
        dts = list(info.dtypes)
        if "float32" in dts and "float16" not in dts:
            dts.append("float16")
        for dt in dts:
            yield pytest.param(info, dt, id=f"{info.name}-{dt}")


def _sample_outcome(lib, s, pick):
    """Outcome of ``pick(lib, input)(*args, **kwargs)`` for one sample, inputs converted for ``lib``."""
    mod = numtorch if lib is numtorch else torch
    return _outcome(
        lambda: pick(mod, _conv(s.input, lib))(*_conv(s.args, lib), **_conv(s.kwargs, lib))
    )


@pytest.mark.parametrize(("info", "dtype"), list(_cases()))
def test_opinfo_samples_match_torch(info, dtype, rng):
    tol = info.tolerance(dtype) if dtype != "float16" else (2e-3, 2e-3)
    tol = tol if dtype in ("float16", "float32", "float64") else None
    for s in info.sample_inputs(dtype, rng):

        def fn(mod, x):
            f = mod
            for part in info.name.split("."):  # torch.special.* aliases
                f = getattr(f, part)
            return lambda *a, **k: f(x, *a, **k)

        _same(
            _sample_outcome(numtorch, s, fn),
            _sample_outcome(torch, s, fn),
            tol,
            f"{info.name}({s!r}, {s.kwargs})",
        )
        if info.method and isinstance(s.input, np.ndarray):

            def meth(mod, x):
                return getattr(x, info.method)

            _same(
                _sample_outcome(numtorch, s, meth),
                _sample_outcome(torch, s, meth),
                tol,
                f"Tensor.{info.method}({s!r})",
            )


# ---- 2. promotion and error grids --------------------------------------------------------------------
_A = [0, 1, 2, -3, 5, 7]
_B = [1, -2, 3, 4, -1, 2]
_SPECIAL = [0.0, -0.0, 1.5, -2.5, float("nan"), float("inf"), -float("inf"), 0.5, 3.0, -7.25]
# complex functions at infinities / NaN follow C99 Annex G in PyTorch; not mirrored here
_FINITE = [0.0, -0.0, 1.5, -2.5, 0.5, 3.0, -7.25, 1.0]


def _arr(vals, dtype):
    with np.errstate(all="ignore"), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        if dtype == "bool":
            return np.array([bool(v) for v in vals])
        return (
            np.array(vals, dtype=np.float64).astype(dtype)
            if dtype not in ("complex64",)
            else np.array(vals, np.complex64)
        )


BINARY = ["add", "sub", "rsub", "mul", "div", "true_divide", "floor_divide", "remainder", "fmod", "pow", "atan2", "hypot",
          "maximum", "minimum", "fmax", "fmin", "logaddexp", "xlogy", "eq", "ne", "lt", "le", "gt", "ge", "logical_and",
          "logical_or", "logical_xor", "bitwise_and", "bitwise_or", "bitwise_xor", "bitwise_left_shift",
          "bitwise_right_shift", "clamp_min", "clamp_max"]  # fmt: skip
UNARY = ["neg", "abs", "sign", "sgn", "reciprocal", "square", "sqrt", "rsqrt", "exp", "exp2", "expm1", "log", "log2",
         "log10", "log1p", "sin", "cos", "tan", "asin", "acos", "atan", "sinh", "cosh", "tanh", "asinh", "acosh", "atanh",
         "sigmoid", "erf", "floor", "ceil", "round", "trunc", "frac", "nan_to_num", "isnan", "isinf", "isfinite",
         "isposinf", "isneginf", "signbit", "logical_not", "bitwise_not", "positive"]  # fmt: skip


@pytest.mark.parametrize("op", UNARY)
def test_unary_dtypes_values_and_errors_match_torch(op):
    for dt in DTYPES:
        vals = (
            _SPECIAL
            if dt in ("float16", "float32", "float64")
            else _FINITE
            if dt == "complex64"
            else _A
        )
        a = _arr(vals, dt)
        _same(*_both(f"T.{op}(a)", {"a": a}), what=f"{op}({dt})")
        _same(*_both(f"a.{op}_()" if op not in ("isnan", "isinf", "isfinite", "isposinf", "isneginf", "signbit", "positive") else f"T.{op}(a)",
                     {"a": a}), what=f"{op}_({dt})")  # fmt: skip


@pytest.mark.parametrize("op", BINARY)
def test_binary_tensor_pairs_match_torch(op):
    for da, db in itertools.product(DTYPES, DTYPES):
        ns = {"a": _arr(_A, da), "b": _arr(_B, db), "z": _arr([2], db).reshape(())}
        _same(*_both(f"T.{op}(a, b)", ns), what=f"{op}({da}, {db})")
        _same(*_both(f"T.{op}(a, z)", ns), what=f"{op}({da}, 0-d {db})")
        _same(*_both(f"T.{op}(z, a)", ns), what=f"{op}(0-d {db}, {da})")


@pytest.mark.parametrize("op", BINARY)
def test_binary_python_numbers_match_torch(op):
    for da, s in itertools.product(DTYPES, SCALARS):
        ns = {"a": _arr(_A, da), "s": s}
        _same(*_both(f"T.{op}(a, s)", ns), what=f"{op}({da}, {s!r})")
        _same(*_both(f"T.{op}(s, a)", ns), what=f"{op}({s!r}, {da})")


@pytest.mark.parametrize(
    "op",
    [o for o in BINARY if o not in ("rsub", "maximum", "minimum", "fmax", "fmin", "logaddexp")],
)
def test_binary_inplace_casting_matches_torch(op):
    for da, db in itertools.product(DTYPES, DTYPES):
        ns = {"a": _arr(_A, da), "b": _arr(_B, db)}
        _same(*_both(f"a.{op}_(b)", ns), what=f"{da}.{op}_({db})")
        _same(
            *_both(f"T.{op}(a, b, out=T.empty(6, dtype=T.{da}))", ns),
            what=f"{op}({da}, {db}, out={da})",
        )


OPERATORS = [
    "+",
    "-",
    "*",
    "/",
    "//",
    "%",
    "**",
    "&",
    "|",
    "^",
    "<<",
    ">>",
    "==",
    "!=",
    "<",
    "<=",
    ">",
    ">=",
]


_INAME = {"+": "add", "-": "sub", "*": "mul", "/": "truediv", "//": "floordiv", "%": "mod", "**": "pow", "&": "and",
          "|": "or", "^": "xor", "<<": "lshift", ">>": "rshift"}  # fmt: skip


def _operands():
    for db in DTYPES:
        yield "b", {"b": _arr(_B, db)}, db
    for s in SCALARS:
        yield "s", {"s": s}, repr(s)
    yield "n", {"n": None}, "None"


@pytest.mark.parametrize("sym", OPERATORS)
def test_operators_and_reflected_operators_match_torch(sym):
    for da in DTYPES:
        for name, extra, label in _operands():
            ns = {"a": _arr(_A, da), **extra}
            _same(*_both(f"a {sym} {name}", ns), what=f"{da} {sym} {label}")
            _same(*_both(f"{name} {sym} a", ns), what=f"{label} {sym} {da}")
            if (
                sym in _INAME
            ):  # the in-place dunder itself (NotImplemented when the operand is unsupported)
                _same(*_both(f"a.__i{_INAME[sym]}__({name})", ns), what=f"{da} {sym}= {label}")


# ---- 3. semantics worth their own expressions -------------------------------------------------------
EXPRS = [
    "T.tensor([1.0, float('nan')]) == T.tensor([1.0, float('nan')])", "T.maximum(T.tensor([1.0, float('nan')]), T.tensor([float('nan'), 2.0]))",
    "T.fmax(T.tensor([1.0, float('nan'), float('nan')]), T.tensor([float('nan'), 2.0, float('nan')]))",
    "T.clamp(T.tensor([float('nan'), 1.0, 5.0]), 0, 2)", "T.clamp(T.tensor([1.0, 2.0]), float('nan'), 3)",
    "T.clamp(T.tensor([1.0, 5.0]), 3, 2)", "T.clamp(T.tensor([1.0, 5.0]), T.tensor([float('nan'), 0.0]), T.tensor(4.0))",
    "T.clamp(T.tensor([1.0]))", "T.clip(T.tensor([-1, 5]), 0, 3)", "T.clamp_min(T.tensor([1.0]), float('nan'))",
    "T.clamp(T.tensor([True]), True, None)", "T.clamp(T.tensor([True]), T.tensor([True]), T.tensor([True]))",
    "T.clamp(T.tensor([1j]), 0, 1)", "T.tensor([1, 2]).clamp_(0.5, 1)",
    "T.tensor([-128], dtype=T.int8).abs()", "-T.tensor([-128], dtype=T.int8)", "T.tensor([127], dtype=T.int8) + 1",
    "T.tensor([2**62]) * 4", "T.tensor([200], dtype=T.uint8) * 2", "T.tensor([5], dtype=T.int8) + 1000",
    "T.tensor([5]) + 2**63", "T.tensor([5]) + 2**64", "T.tensor([5.0]) + 2**63", "T.tensor([255], dtype=T.uint8) == -1",
    "T.tensor([-2**63]) // -1", "T.tensor([-2**63]) % -1", "T.fmod(T.tensor([-2**63]), -1)",
    "T.tensor([5]) // 0", "T.tensor([5]) % T.tensor([0])", "T.fmod(T.tensor([5]), 0)", "T.div(T.tensor([5]), 0, rounding_mode='trunc')",
    "T.tensor([5]) / 0", "T.tensor([0]) / 0", "T.tensor([5], dtype=T.int8) // 256", "T.tensor([], dtype=T.int64) // 0",
    "T.div(T.tensor([5.0]), 2, rounding_mode='round')", "T.floor_divide(T.tensor([-0.0, 1.0, -1.0, 7.0]), T.tensor([5.0, -0.0, float('inf'), -2.0]))",
    "T.remainder(T.tensor([-3.0, 3.0, 5.0, -5.0]), T.tensor([2.0, -2.0, float('inf'), float('inf')]))",
    "T.tensor([2, 3]) ** -1", "T.tensor([2, 3]) ** T.tensor([-1, -2])", "T.tensor([-1, 1, 2]) ** T.tensor([-3, -3, -3])",
    "T.tensor([True]) ** -1", "T.tensor([], dtype=T.int64) ** -1", "T.tensor([3], dtype=T.int8) ** 5",
    "T.tensor([2.0]) ** 0.5", "T.tensor([-8.0]) ** (1 / 3)", "T.pow(0, T.tensor([0.0, -1.0, 2.0]))", "T.pow(2.5, T.tensor([1, 2]))",
    "T.tensor([1, 2]) << 70", "T.tensor([-5, 5]) >> 70", "T.tensor([1, -8]) >> -1", "T.tensor([1], dtype=T.int8) << 7",
    "T.tensor([True]) - T.tensor([True])", "T.tensor([True]) - 1", "1 - T.tensor([True])", "-T.tensor([True])", "+T.tensor([True])",
    "~T.tensor([1.0])", "T.tensor([1.0]) & 1", "T.add(T.tensor([1]), T.tensor([1]), alpha=2.5)",
    "T.add(T.tensor([1.0]), T.tensor([1.0]), alpha=True)", "T.add(T.tensor([1.0]), 1, alpha=1j)", "T.add(T.tensor([True]), T.tensor([True]), alpha=2)",
    "T.sub(T.tensor([5]), T.tensor([2]), alpha=3)", "T.rsub(T.tensor([5]), 2, alpha=3)", "T.sign(T.tensor([float('nan'), -0.0, 2.0]))",
    "T.sgn(T.tensor([3 + 4j, 0j]))", "T.round(T.tensor([0.5, 1.5, 2.5, -0.5, -1.5]))", "T.round(T.tensor([1.2345, 12345.675]), decimals=2)",
    "T.round(T.tensor([15.0, 25.0, -35.0]), decimals=-1)", "T.round(T.tensor([3]), decimals=1)", "T.round(T.tensor([3]), decimals=0)",
    "T.tensor([7]).round()", "T.nan_to_num(T.tensor([float('nan'), float('inf'), -float('inf')]), posinf=1e300)",
    "T.nan_to_num(T.tensor([float('inf')]).to(T.float16))", "T.nan_to_num(T.tensor([float('inf')]).to(T.float64))",
    "T.nan_to_num(T.tensor([complex(float('inf'), float('nan'))]))", "T.lerp(T.tensor([1.0]), T.tensor([1.0]).to(T.float64), 0.5)",
    "T.lerp(T.tensor([1.0, 2.0]), T.tensor([3.0, 4.0]), T.tensor([0.5, 0.5]).to(T.float64))", "T.lerp(T.tensor(1.0), T.tensor(2.0), T.tensor(0.5).to(T.float64))",
    "T.lerp(T.tensor([1, 2]), T.tensor([3, 4]), 0.5)", "T.lerp(T.tensor([0.0, 1.0]), T.tensor([10.0, 3.0]), 1.0)",
    "T.addcmul(T.tensor([1, 2]), T.tensor([3, 4]), T.tensor([5, 6]), value=2.5)", "T.addcmul(T.tensor([1.0]), T.tensor([3.0]), T.tensor([5.0]), value=1j)",
    "T.addcmul(T.tensor([True]), T.tensor([True]), T.tensor([True]))", "T.addcdiv(T.tensor([1]), T.tensor([3]), T.tensor([5]))",
    "T.addcdiv(T.tensor([1]), T.tensor([3.0]), T.tensor([5.0]))", "T.addcdiv(T.tensor([1.0]), T.tensor([3]), T.tensor([2.0]), value=2)",
    "T.isclose(T.tensor([1.0]), T.tensor([1.0]).to(T.float64))", "T.isclose(T.tensor([1.0]), T.tensor([1.0]), rtol=-1)",
    "T.isclose(T.tensor([1.0]), T.tensor([1.0]), atol=-0.5)", "T.isclose(T.tensor([1j]), T.tensor([1j]), equal_nan=True)",
    "T.isclose(T.tensor([100, 2**62]), T.tensor([101, -2**62]), rtol=0.01, atol=0)", "T.isclose(T.tensor([True, False]), T.tensor([True, True]))",
    "T.isclose(T.tensor([1.0, 2.0]), T.tensor(1.0))", "T.isclose(T.tensor([1.0]), 1.0)",
    "T.isclose(T.tensor([float('nan'), float('inf')]), T.tensor([float('nan'), float('inf')]), equal_nan=True)",
    "T.allclose(T.ones(2), T.ones(3))", "T.allclose(T.ones(2, 2), T.ones(2))", "T.allclose(T.ones(2), T.ones(2).to(T.float64))",
    "T.allclose(T.tensor([1.0, float('nan')]), T.tensor([1.0, float('nan')]), equal_nan=True)",
    "T.equal(T.tensor([1]), T.tensor([1.0]))", "T.equal(T.tensor([float('nan')]), T.tensor([float('nan')]))",
    "T.equal(T.ones(2, 2), T.ones(2))", "T.equal(T.tensor([1, 2]), T.tensor([1, 2]))", "T.tensor([1]).equal(T.tensor([2]))",
    "T.result_type(T.tensor([1, 2]), 2.5)", "T.result_type(2, 3.0)", "T.result_type(2, T.tensor([1], dtype=T.int8))",
    "T.result_type(T.tensor(1.0, dtype=T.float64), T.tensor([1]))", "T.result_type(T.tensor([1], dtype=T.uint8), T.tensor([1], dtype=T.int8))",
    "T.result_type(T.tensor([1.0]).to(T.float16), 2.5)", "T.result_type(True, T.tensor(1))",
    "T.maximum(T.tensor([1]), 2)", "T.tensor([1]).maximum(2)", "T.atan2(T.tensor([1.0]), 2)", "T.logical_and(T.tensor([1]), 1)",
    "T.maximum(T.tensor([1j]), T.tensor([1j]))", "T.fmin(T.tensor([1j]), T.tensor([1j]))", "T.hypot(T.tensor([1]), T.tensor([1]))",
    "T.logaddexp(T.tensor([1j]), T.tensor([2j]))", "T.logaddexp(T.tensor([float('inf'), -float('inf'), 1.0]), T.tensor([float('inf'), -float('inf'), float('nan')]))",
    "T.xlogy(T.tensor([0.0, 0.0, 1.0]), T.tensor([float('nan'), 0.0, 0.0]))", "T.xlogy(2, T.tensor([3, 4]))", "T.xlogy(T.tensor([1j]), 2)",
    "T.eq(2, T.tensor([2]))", "T.add(2, T.tensor([1]))", "T.mul(2.5, T.tensor([1]))", "T.sub(2, 3)", "T.add(T.tensor([1]), 'a')",
    "T.add(T.tensor([1]), None)", "T.tensor([1.0]) + [1]", "T.tensor([1.0]) == 'a'", "T.tensor([1.0]) < None",
    "T.tensor([1.0, 2.0]) + T.tensor([1.0, 2.0, 3.0])", "T.ones(1).add_(T.ones(3))", "T.ones(2, 3) * T.ones(3, 2)",
    "T.add(T.ones(2), T.ones(2), out=T.empty(5))", "T.add(T.ones(2).to(T.float16), 1, out=T.empty(2, dtype=T.int64))",
    "T.tensor([1], dtype=T.int64).add_(T.tensor([1.0]).to(T.float16))", "T.eq(T.ones(2), 1, out=T.empty(2, dtype=T.int32))",
    "T.tensor([1.0, 2.0]).eq_(1.0)", "T.tensor([1, 2]).lt_(1.5)", "T.tensor([0.0, 2.0]).logical_not_()",
    "T.tensor([1.5]) + np.float64(2.5)", "T.tensor([1]) + np.float32(2.5)", "T.tensor([1], dtype=T.int8) + np.int64(2)",
    "T.tensor([1.0]).to(T.float16) + 1e10", "T.tensor([65504.0]).to(T.float16) * 2", "T.tensor([1.0]).to(T.float16) / 3",
    "T.positive(T.tensor([1.0]))", "T.tensor([1.0]).neg_()", "T.tensor([3]).true_divide(2)",
    "T.true_divide(T.tensor([3]), T.tensor([2]))", "T.divide(T.tensor([-7]), 2, rounding_mode='floor')",
    "T.sigmoid(T.tensor([-100.0, 100.0, -1000.0, 0.0]))", "T.tanh(T.tensor([20.0, -20.0]))", "T.exp(T.tensor([1000.0]))",
    "T.square(T.tensor([True]))", "T.square(T.tensor([1 + 1j]))", "T.tensor([3]).square_()", "T.square(T.tensor([2]), out=T.empty(1))",
    "T.frac(T.tensor([1.5, -1.5, float('inf')]))", "T.trunc(T.tensor([2**60]))", "T.floor(T.tensor([2**60 + 1]))",
    "T.signbit(T.tensor([-0.0, 0.0, -1.0]))", "T.isposinf(T.tensor([1j]))", "T.signbit(T.tensor([1j]))", "T.sign(T.tensor([1j]))",
    "T.bitwise_not(T.tensor([1.0]))", "T.erf(T.tensor([1j]))", "T.floor(T.tensor([True]))", "T.frac(T.tensor([1]))",
]  # fmt: skip


@pytest.mark.parametrize("expr", EXPRS)
def test_expression_matches_torch(expr):
    _same(*_both(expr), what=expr)


# ---- 4. overloads: the aten schemas numtorch registers are PyTorch's ----------------------------------
def _our_overloads():
    from numtorch.ops.pointwise import core as mod  # noqa: F401  (registers)
    from numtorch.ops._registry import OPS

    names = set(UNARY + BINARY) | {"add", "sub", "rsub", "div", "pow", "square", "clamp", "clamp_min", "clamp_max", "lerp",
                                   "addcmul", "addcdiv", "isclose", "allclose", "equal", "sigmoid_backward", "tanh_backward",
                                   "round", "nan_to_num", "__lshift__", "__rshift__"}  # fmt: skip
    names |= {n + "_" for n in names}
    return sorted(k for k, op in OPS.items() if op._schema.name in names)


@pytest.mark.parametrize("qualname", _our_overloads())
def test_registered_overload_has_torchs_schema(qualname):
    from numtorch.ops._registry import OPS

    ours = OPS[qualname]
    ns, _, rest = qualname.partition("::")
    name, _, ov = rest.partition(".")
    packet = getattr(torch.ops.aten, name)
    theirs = getattr(packet, ov or "default")
    assert str(ours._schema) == str(theirs._schema)


_CONJ_WRITES = {
    "setitem_view": lambda c: c[0].view(-1).__setitem__(1, 5),
    "mul_slice": lambda c: c[1:].mul_(2j),
    "copy": lambda c: c.copy_(c.new_ones(c.shape) * (1 - 1j)),
    "fill_": lambda c: c.fill_(2 + 3j),
    "add_out": lambda c: torch_or_nt(c).add(c, 1j, out=c),
    "index_put_": lambda c: c.index_put_((torch_or_nt(c).tensor([0]),), torch_or_nt(c).tensor(4j, dtype=c.dtype)),
}


def torch_or_nt(t):
    return torch if isinstance(t, torch.Tensor) else numtorch


@pytest.mark.parametrize("name", sorted(_CONJ_WRITES))
def test_writes_through_a_conj_view_reach_the_base_as_torchs(name):
    got = []
    for lib in (torch, numtorch):
        x = lib.tensor([[1 + 2j, 3 - 1j], [0.5j, -2 + 0j]], dtype=lib.complex128)
        c = x.t().conj()
        _CONJ_WRITES[name](c)
        got.append((x.tolist(), c.tolist(), c.is_conj(), c.sum().item()))
    assert got[0] == got[1]


@pytest.mark.parametrize("out_dtype", ["float64", "float16", "int64", "float32"])
@pytest.mark.parametrize("weight_dim", [0, 1])
def test_lerp_tensor_weight_out_dtype(out_dtype, weight_dim):
    # lerp.Tensor: out= must have the result dtype ("Found dtype Double but expected Float")
    # unless the weight is 0-d, which casts into out as lerp.Scalar does (fuzz seeds 42-58)
    def call(lib):
        w = lib.full((3,) * weight_dim, 0.25)
        out = lib.full((3,), 7, dtype=getattr(lib, out_dtype))
        try:
            return lib.lerp(lib.ones(3), lib.zeros(3), w, out=out).tolist()
        except RuntimeError as e:
            assert out.tolist() == [7, 7, 7]  # nothing written
            return str(e)

    assert call(numtorch) == call(torch)


@pytest.mark.parametrize("case", [
    ("addcdiv", ((2,), (), ()), ("float16", "complex64", "float16"), 0.5),  # ComplexHalf: no kernel
    ("addcdiv", ((), (2,), ()), ("complex64", "float16", "float16"), 0.5),
    ("addcdiv", ((2,), (2,), (2,)), ("float16", "complex64", "float16"), 0.5),  # complex64: fine
    ("addcmul", ((2,), (2,), (2,)), ("float16", "float16", "float16"), 1j),  # opmath: "type float"
    ("addcdiv", ((2,), (2,), (2,)), ("bfloat16", "bfloat16", "bfloat16"), 1e39),
    ("addcdiv", ((2,), (2,), (2,)), ("complex64", "float32", "float32"), 1e39),
    ("addcmul", ((2,), (2,), (2,)), ("int8", "int8", "int8"), 300),
    ("addcmul", ((2,), (2,), (2,)), ("uint8", "uint8", "uint8"), -1),
])  # fmt: skip
def test_addc_value_and_complex_half(case):
    # torch promotes float16 with a lower-priority complex to ComplexHalf, which addcdiv has no
    # kernel for; value converts to the opmath type, checked (fuzz seeds 42-58)
    op, shapes, dts, v = case

    def call(lib):
        try:
            return getattr(lib, op)(*[lib.ones(s, dtype=getattr(lib, d)) for s, d in zip(shapes, dts)], value=v).tolist()
        except (RuntimeError, NotImplementedError) as e:
            return f"{type(e).__name__}: {e}"

    assert call(numtorch) == call(torch)


@pytest.mark.parametrize("dtype", ["complex64", "complex128"])
def test_complex_div_by_zero_and_smith(dtype):
    # c10's complex division: a zero divisor divides each part by |c| and |d| (Numba's kept the
    # sign of -0: (-6.5-0.3j) / -0 gave inf-infj for torch's -inf-infj, fuzz seed 61)
    a = [complex(-6.491, -0.344), complex(2, 3), 0j, complex(1, 0), complex(1e30, 3), complex(1, math.inf)]
    b = [complex(-0.0, 0), complex(0.5, -2), complex(-0.0, -0.0), complex(1e-30, 1e30), complex(2, math.inf), complex(math.inf, 1)]
    got = numtorch.div(numtorch.tensor(a, dtype=getattr(numtorch, dtype)), numtorch.tensor(b, dtype=getattr(numtorch, dtype)))
    want = torch.div(torch.tensor(a, dtype=getattr(torch, dtype)), torch.tensor(b, dtype=getattr(torch, dtype)))
    for part in (np.real, np.imag):
        np.testing.assert_allclose(part(got.numpy()), part(want.numpy()), rtol=1e-6)
    half = numtorch.tensor(a, dtype=getattr(numtorch, dtype)) / numtorch.tensor([-0.0], dtype=numtorch.float16)
    want = torch.tensor(a, dtype=getattr(torch, dtype)) / torch.tensor([-0.0], dtype=torch.float16)
    for part in (np.real, np.imag):
        np.testing.assert_array_equal(part(half.numpy()), part(want.numpy()))
