"""OpInfos for numtorch/ops/pointwise/core.py: one per public elementwise function (aliases too).

Samples cover 0-d, empty, 1-d, 2-d, non-contiguous, broadcasting and Python-scalar operands;
domains are restricted where the op or its NumPy reference needs it (log on positives, integer
division by nonzero divisors, non-negative integer exponents).
"""

from __future__ import annotations

import math

import numpy as np

from ..core import ALL_REAL, FLOATS, NUMERIC, OpInfo, SampleInput, elementwise_shapes, make_arg

INTS_FLOATS = ("uint8", "int8", "int16", "int32", "int64", "float32", "float64")
BOOL_INTS = ("bool", "uint8", "int8", "int16", "int32", "int64")
INTS = ("uint8", "int8", "int16", "int32", "int64")
_FLOAT_KINDS = ("float16", "float32", "float64")


def arg(shape, dtype, rng, low=None, high=None, noncontiguous=False, nonzero=False):
    """make_arg with float bounds rounded for integer dtypes, optionally without zeros."""
    if dtype not in _FLOAT_KINDS and dtype != "bool":
        info = np.iinfo(dtype)
        low = max(-9 if low is None else math.ceil(low), info.min)
        high = max(10 if high is None else math.ceil(high), low + 1)
    a = make_arg(shape, dtype, rng, low, high, noncontiguous=noncontiguous)
    if nonzero and a.size:  # integer division needs no zeros; float gradients no tiny divisors
        a[np.abs(a.astype(np.float64)) < (0.5 if dtype in _FLOAT_KINDS else 1)] = 1
    return a


def scalar_for(dtype, f=2.5, i=2):
    return True if dtype == "bool" else (f if dtype in _FLOAT_KINDS else i)


def unary(low=None, high=None, **kwargs):
    def gen(dtype, rng):
        return [SampleInput(arg(s, dtype, rng, low, high, **kw), kwargs=dict(kwargs), name=f"{list(s)}{'nc' if kw else ''}")
                for s, kw in elementwise_shapes()]  # fmt: skip

    return gen


def binary(
    low=None,
    high=None,
    rlow=None,
    rhigh=None,
    *,
    nonzero=False,
    scalar=True,
    fscalar=2.5,
    iscalar=2,
    kwargs=None,
):
    """Same-shape, broadcast, 0-d and Python-number right-hand sides."""
    rlow = low if rlow is None else rlow
    rhigh = high if rhigh is None else rhigh
    kwargs = kwargs or {}

    def gen(dtype, rng):
        def rhs(shape):
            return arg(shape, dtype, rng, rlow, rhigh, nonzero=nonzero)

        out = [SampleInput(arg(s, dtype, rng, low, high, **kw), (rhs(s),), dict(kwargs), name=str(list(s)))
               for s, kw in elementwise_shapes()]  # fmt: skip
        out.append(
            SampleInput(
                arg((3, 1), dtype, rng, low, high), (rhs((4,)),), dict(kwargs), name="bcast"
            )
        )
        out.append(
            SampleInput(arg((4,), dtype, rng, low, high), (rhs(()),), dict(kwargs), name="0d-rhs")
        )
        if scalar:
            out.append(
                SampleInput(
                    arg((4,), dtype, rng, low, high),
                    (scalar_for(dtype, fscalar, iscalar),),
                    dict(kwargs),
                    name="scalar",
                )
            )
        return out

    return gen


def with_kwargs(gen, *variants):
    """The samples of ``gen`` once per kwargs dict in ``variants``."""

    def g(dtype, rng):
        return [
            SampleInput(s.input, s.args, dict(s.kwargs, **kw), name=f"{s.name}{kw}")
            for kw in variants
            for s in gen(dtype, rng)
        ]

    return g


def _logit_ref(a, eps=None):
    a = a.astype(np.float64) if a.dtype.kind in "biu" else a
    if eps is not None:
        a = np.clip(a, eps, 1 - eps)
    with np.errstate(divide="ignore", invalid="ignore"):  # integer samples sit on 0 / 1: +-inf, as in PyTorch
        return np.log(a / (1 - a))


def f64(fn):
    """A NumPy reference computing integer inputs in float64 (PyTorch promotes them to float)."""

    def ref(*args, **kwargs):
        args = [
            a.astype(np.float64) if isinstance(a, np.ndarray) and a.dtype.kind in "biu" else a
            for a in args
        ]
        return fn(*args, **kwargs)

    return ref


def _sign(a):
    return ((a > 0).astype(np.int8) - (a < 0).astype(np.int8)).astype(a.dtype)


def _xlogy(x, y):
    x, y = np.asarray(x, np.float64), np.asarray(y, np.float64)
    with np.errstate(all="ignore"):
        r = np.where(x == 0, 0.0, x * np.log(y))
    return np.where(np.isnan(y), np.nan, r)


def _lerp(a, b, w):
    return a + w * (b - a)


def _div(a, b, rounding_mode=None):
    if rounding_mode is None:
        return f64(np.true_divide)(a, b)
    if rounding_mode == "floor":
        return np.floor_divide(a, b)
    q = np.trunc(np.true_divide(a, b))
    return q.astype(np.result_type(a, b)) if np.result_type(a, b).kind in "iu" else q


def _shift(fn):
    def ref(a, b):
        return fn(a, np.asarray(b, a.dtype)).astype(a.dtype)

    return ref


def _pred(fn):
    """NumPy's isposinf/signbit reject bool; PyTorch answers False."""
    return lambda a: fn(a.astype(np.int8) if a.dtype == np.bool_ else a)


def _clamp(a, min=None, max=None):  # PyTorch's parameter names
    r = a if min is None else np.maximum(a, min)
    return r if max is None else np.minimum(r, max)


def _clamp_samples(dtype, rng):
    x = [arg(s, dtype, rng, **kw) for s, kw in elementwise_shapes()]
    out = [SampleInput(a, (-3 if dtype != "uint8" else 2, 4), name="scalars") for a in x]
    out += [
        SampleInput(x[2], (), {"min": 0}, name="min"),
        SampleInput(x[3], (), {"max": 1}, name="max"),
    ]
    lo, hi = arg((3, 4), dtype, rng, -5, 0), arg((4,), dtype, rng, 1, 5)
    out += [
        SampleInput(x[3], (lo, hi), name="tensors"),
        SampleInput(x[3], (lo,), name="tensor-min"),
    ]
    if dtype in _FLOAT_KINDS:
        out.append(SampleInput(x[2], (2.5, -1.5), name="min>max"))
    return out


def _bound_samples(dtype, rng):
    x = arg((3, 4), dtype, rng)
    return [SampleInput(x, (1,), name="scalar"), SampleInput(x, (arg((4,), dtype, rng),), name="tensor"),
            SampleInput(arg((), dtype, rng), (0,), name="0d")]  # fmt: skip


def _lerp_samples(dtype, rng):
    out = [
        SampleInput(arg(s, dtype, rng, **kw), (arg(s, dtype, rng), 0.3), name=f"{list(s)}")
        for s, kw in elementwise_shapes()
    ]
    out.append(SampleInput(arg((3, 4), dtype, rng), (arg((4,), dtype, rng), 0.75), name="w>0.5"))
    out.append(
        SampleInput(
            arg((3, 4), dtype, rng),
            (arg((3, 4), dtype, rng), arg((3, 4), dtype, rng, 0, 1)),
            name="tensor-w",
        )
    )
    return out


def _addc_samples(dtype, rng, nonzero=False):
    out = [SampleInput(arg(s, dtype, rng, **kw), (arg(s, dtype, rng), arg(s, dtype, rng, 1, 5, nonzero=nonzero)), name=f"{list(s)}")
           for s, kw in elementwise_shapes()]  # fmt: skip
    v = 0.5 if dtype in _FLOAT_KINDS else 2
    out.append(
        SampleInput(
            arg((3, 1), dtype, rng),
            (arg((4,), dtype, rng), arg((3, 4), dtype, rng, 1, 5)),
            {"value": v},
            name="bcast",
        )
    )
    return out


def _isclose_samples(dtype, rng):
    out = []
    for s, kw in elementwise_shapes():
        a = arg(s, dtype, rng, **kw)
        out.append(SampleInput(a, (a.copy(),), name=f"{list(s)}-same"))
        out.append(SampleInput(a, (arg(s, dtype, rng),), name=f"{list(s)}"))
    if dtype in _FLOAT_KINDS:
        a = np.array([1.0, np.nan, np.inf, -np.inf, 1e-9, 100.0], dtype)
        b = np.array([1.0 + 1e-6, np.nan, np.inf, np.inf, 0.0, 100.01], dtype)
        out += [SampleInput(a, (b,), name="special"), SampleInput(a, (b,), {"equal_nan": True}, name="equal_nan"),
                SampleInput(a, (b,), {"rtol": 1e-3, "atol": 0.0}, name="rtol")]  # fmt: skip
    return out


def _nan_to_num_samples(dtype, rng):
    out = unary()(dtype, rng)
    if dtype in _FLOAT_KINDS:
        a = np.array([np.nan, np.inf, -np.inf, 1.5, -0.0], dtype)
        out += [
            SampleInput(a, name="special"),
            SampleInput(a, kwargs={"nan": 2.0, "posinf": 1.0, "neginf": -1.0}, name="given"),
        ]
    return out


def _special_floats(gen):
    """Add a NaN / inf / signed-zero sample to a unary generator for float dtypes."""

    def g(dtype, rng):
        out = gen(dtype, rng)
        if dtype in _FLOAT_KINDS:
            out.append(
                SampleInput(
                    np.array([np.nan, np.inf, -np.inf, -0.0, 0.0, 0.5, -1.5, 2.5], dtype),
                    name="special",
                )
            )
        return out

    return g


def _round_ref(a, decimals=None):
    return np.round(a, decimals or 0) if a.dtype.kind == "f" else a.copy()


def _op(
    name,
    ref,
    samples,
    dtypes,
    *,
    method=True,
    inplace=True,
    out=True,
    grad=True,
    variants=(),
    tol=None,
    gradgrad=True,
    aliases=(),
):
    infos = []
    for n in (name, *aliases):
        infos.append(OpInfo(n, ref, samples, dtypes=dtypes, method=n if method else None,
                            inplace=f"{n}_" if (method and inplace) else None, supports_out=out,
                            grad=grad and "float64" in dtypes, gradgrad=gradgrad, tol=tol or {},
                            variants=variants if n == name else ()))  # fmt: skip
    return infos


_LOOSE = {"float32": (1e-5, 1e-5), "float64": (1e-7, 1e-7)}
OPINFOS: list = []
_add = OPINFOS.extend

# ---- arithmetic ----
_alpha = with_kwargs(binary(), {}, {"alpha": 2})
_add(_op("add", lambda a, b, alpha=1: np.add(a, np.multiply(b, alpha)).astype(np.result_type(a, b)), _alpha, ALL_REAL,
         variants=("__add__", "__radd__", "__iadd__")))  # fmt: skip
_add(_op("sub", lambda a, b, alpha=1: np.subtract(a, np.multiply(b, alpha)).astype(np.result_type(a, b)), _alpha, NUMERIC,
         variants=("__sub__", "__rsub__", "__isub__"), aliases=("subtract",)))  # fmt: skip
_add(_op("rsub", lambda a, b, alpha=1: np.subtract(b, np.multiply(a, alpha)).astype(np.result_type(a, b)), _alpha, NUMERIC,
         method=False, out=False))  # fmt: skip
_add(
    _op(
        "mul",
        np.multiply,
        binary(),
        ALL_REAL,
        variants=("__mul__", "__rmul__", "__imul__"),
        aliases=("multiply",),
    )
)
_modes = with_kwargs(
    binary(-9, 9, -5, 5, nonzero=True), {}, {"rounding_mode": "floor"}, {"rounding_mode": "trunc"}
)
_add(
    _op(
        "div",
        _div,
        _modes,
        INTS_FLOATS,
        variants=("__truediv__", "__rtruediv__", "__itruediv__"),
        aliases=("divide",),
    )
)
_add(_op("true_divide", _div, binary(-9, 9, 1, 5), INTS_FLOATS))
_add(_op("floor_divide", np.floor_divide, binary(-9, 9, -5, 5, nonzero=True), INTS_FLOATS, grad=False,
         variants=("__floordiv__", "__rfloordiv__", "__ifloordiv__")))  # fmt: skip
_add(
    _op(
        "remainder",
        np.remainder,
        binary(-9, 9, -5, 5, nonzero=True),
        INTS_FLOATS,
        variants=("__mod__", "__rmod__", "__imod__"),
    )
)
_add(_op("fmod", np.fmod, binary(-9, 9, -5, 5, nonzero=True), INTS_FLOATS))
_add(_op("pow", lambda a, b: np.power(a, b), binary(0.5, 3, 0, 3, fscalar=1.5, iscalar=3), INTS_FLOATS,
         variants=("__pow__", "__rpow__", "__ipow__")))  # fmt: skip
_add(_op("square", np.square, unary(), INTS_FLOATS))
_add(_op("neg", np.negative, unary(), NUMERIC, variants=("__neg__",), aliases=("negative",)))
_add(_op("abs", np.abs, unary(), NUMERIC, variants=("__abs__",), aliases=("absolute",)))
_add(_op("sign", _sign, _special_floats(unary()), ALL_REAL, gradgrad=False))
_add(_op("sgn", _sign, unary(), ALL_REAL, gradgrad=False))
_add(
    _op("positive", lambda a: a, unary(), NUMERIC, inplace=False, out=False, variants=("__pos__",))
)

# ---- unary float math (integers promote to float32) ----
_FL = INTS_FLOATS
for _n, _ref, _lo, _hi, _al in (
    ("reciprocal", np.reciprocal, 0.5, 5, ()), ("sqrt", np.sqrt, 0.1, 9, ()), ("rsqrt", lambda a: 1 / np.sqrt(a), 0.1, 9, ()),
    ("exp", np.exp, -3, 3, ()), ("exp2", np.exp2, -3, 3, ()), ("expm1", np.expm1, -3, 3, ()), ("log", np.log, 0.1, 9, ()),
    ("log2", np.log2, 0.1, 9, ()), ("log10", np.log10, 0.1, 9, ()), ("log1p", np.log1p, -0.9, 9, ()), ("sin", np.sin, None, None, ()),
    ("cos", np.cos, None, None, ()), ("tan", np.tan, -1.2, 1.2, ()), ("asin", np.arcsin, -0.95, 0.95, ("arcsin",)),
    ("acos", np.arccos, -0.95, 0.95, ("arccos",)), ("atan", np.arctan, None, None, ("arctan",)), ("sinh", np.sinh, -3, 3, ()),
    ("cosh", np.cosh, -3, 3, ()), ("asinh", np.arcsinh, None, None, ("arcsinh",)), ("acosh", np.arccosh, 1.1, 9, ("arccosh",)),
    ("atanh", np.arctanh, -0.95, 0.95, ("arctanh",)), ("tanh", np.tanh, -3, 3, ()),
    ("sigmoid", lambda a: 1 / (1 + np.exp(-a)), -5, 5, ()), ("erf", np.vectorize(math.erf, otypes=[np.float64]), -3, 3, ()),
    ("erfc", np.vectorize(math.erfc, otypes=[np.float64]), -3, 3, ()), ("deg2rad", np.deg2rad, None, None, ()),
    ("rad2deg", np.rad2deg, None, None, ()),
):  # fmt: skip
    _dt = ("bool", *_FL) if _n in ("exp", "sin", "sigmoid", "erf", "erfc", "deg2rad", "rad2deg") else _FL
    _add(_op(_n, f64(_ref), _special_floats(unary(_lo, _hi)) if _lo is None else unary(_lo, _hi), _dt, aliases=_al,
             tol={"float32": (1e-5, 1e-5), "float64": (1e-7, 1e-7)}))  # fmt: skip

# ---- torch.special aliases ----
for _n, _ref, _lo, _hi in (("erf", np.vectorize(math.erf, otypes=[np.float64]), -3, 3), ("erfc", np.vectorize(math.erfc, otypes=[np.float64]), -3, 3),
                           ("exp2", np.exp2, -3, 3), ("expm1", np.expm1, -3, 3), ("log1p", np.log1p, -0.9, 9),
                           ("expit", lambda a: 1 / (1 + np.exp(-a)), -5, 5)):  # fmt: skip
    _add(_op(f"special.{_n}", f64(_ref), unary(_lo, _hi), ("bool", *_FL), method=False, tol=_LOOSE))

# ---- rounding ----
for _n, _ref in (("floor", np.floor), ("ceil", np.ceil), ("trunc", np.trunc)):
    _add(
        _op(
            _n,
            _ref,
            _special_floats(unary()),
            INTS_FLOATS,
            gradgrad=False,
            aliases=("fix",) if _n == "trunc" else (),
        )
    )
_add(_op("round", _round_ref, _special_floats(unary(-9, 9)), INTS_FLOATS, gradgrad=False))
_add(
    _op(
        "round",
        _round_ref,
        with_kwargs(unary(-99, 99), {"decimals": 2}, {"decimals": -1}, {"decimals": 0}),
        FLOATS,
        gradgrad=False,
    )
)
_add(_op("frac", lambda a: a - np.trunc(a), unary(), FLOATS))
_add(_op("nan_to_num", np.nan_to_num, _nan_to_num_samples, ALL_REAL, gradgrad=False))

# ---- binary float math, min / max ----
_add(
    _op(
        "atan2", f64(np.arctan2), binary(scalar=False), ("bool", *INTS_FLOATS), aliases=("arctan2",)
    )
)
_add(_op("hypot", np.hypot, binary(scalar=False), FLOATS))
_add(_op("logaddexp", np.logaddexp, binary(scalar=False), FLOATS, inplace=False))
_add(_op("logaddexp2", np.logaddexp2, binary(scalar=False), FLOATS, inplace=False))
_add(_op("conj_physical", np.conj, unary(), NUMERIC))
_add(_op("gcd", np.gcd, binary(scalar=False), INTS, grad=False))
_add(_op("lcm", np.lcm, binary(-9, 9, 1, 9, scalar=False), INTS, grad=False))
_add(_op("ldexp", lambda a, b: np.asarray(a, np.float64) * 2.0 ** np.asarray(b, np.float64), binary(-3, 3, -3, 3, scalar=False),
         INTS_FLOATS, inplace=False, tol=_LOOSE))
_add(_op("isreal", lambda a: np.ones(a.shape, bool), unary(), ALL_REAL, grad=False, inplace=False, out=False, method=False))
_add(_op("dist", lambda a, b, p=2: np.asarray(np.linalg.norm((a - b).ravel(), p)), with_kwargs(binary(scalar=False), {}, {"p": 1}, {"p": 3}),
         FLOATS, inplace=False, out=False, tol=_LOOSE))
_add(_op("conj", np.conj, unary(), NUMERIC, inplace=False, out=False))
_add(_op("resolve_conj", lambda a: a, unary(), NUMERIC, inplace=False, out=False))
_add(_op("logit", _logit_ref, with_kwargs(unary(0.05, 0.95), {}, {"eps": 0.2}), INTS_FLOATS, tol=_LOOSE))
_add(_op("sinc", f64(np.sinc), unary(-3, 3), ("bool", *INTS_FLOATS), tol=_LOOSE))
# np.heaviside gives float16 on bool and float64 on ints; PyTorch keeps the inputs' common dtype
_add(_op("heaviside", lambda a, b: np.heaviside(a, b).astype(np.result_type(a, b)), binary(scalar=False), ALL_REAL,
         grad=False))
_add(_op("float_power", lambda a, b: np.power(np.asarray(a, np.float64), np.asarray(b, np.float64)),
         binary(0.5, 3, 0, 3, fscalar=1.5, iscalar=3), INTS_FLOATS, inplace=False))
_add(_op("copysign", f64(np.copysign), binary(), ("bool", *INTS_FLOATS)))
_add(_op("xlogy", _xlogy, binary(0, 9, 0.1, 9), ("bool", *INTS_FLOATS)))
for _n, _ref in (
    ("maximum", np.maximum),
    ("minimum", np.minimum),
    ("fmax", np.fmax),
    ("fmin", np.fmin),
):
    _add(_op(_n, _ref, binary(scalar=False), ALL_REAL, inplace=False))
_add(_op("clamp", _clamp, _clamp_samples, INTS_FLOATS, aliases=("clip",)))
_add(_op("clamp_min", lambda a, b: np.maximum(a, b), _bound_samples, INTS_FLOATS))
_add(_op("clamp_max", lambda a, b: np.minimum(a, b), _bound_samples, INTS_FLOATS))
_add(_op("lerp", _lerp, _lerp_samples, FLOATS))
_add(_op("addcmul", lambda a, b, c, value=1: a + value * b * c, _addc_samples, NUMERIC))
_add(
    _op(
        "addcdiv",
        lambda a, b, c, value=1: a + value * b / c,
        lambda d, r: _addc_samples(d, r, True),
        FLOATS,
    )
)

# ---- comparisons, logical, bitwise, predicates ----
for _n, _ref, _al, _d in (("eq", np.equal, (), "__eq__"), ("ne", np.not_equal, ("not_equal",), "__ne__"),
                          ("lt", np.less, ("less",), "__lt__"), ("le", np.less_equal, ("less_equal",), "__le__"),
                          ("gt", np.greater, ("greater",), "__gt__"), ("ge", np.greater_equal, ("greater_equal",), "__ge__")):  # fmt: skip
    _add(_op(_n, _ref, binary(), ALL_REAL, grad=False, aliases=_al, variants=(_d,)))
for _n, _ref in (
    ("logical_and", np.logical_and),
    ("logical_or", np.logical_or),
    ("logical_xor", np.logical_xor),
):
    _add(_op(_n, _ref, binary(scalar=False), ALL_REAL, grad=False))
_add(_op("logical_not", np.logical_not, unary(), ALL_REAL, grad=False))
for _n, _ref, _d in (
    ("bitwise_and", np.bitwise_and, "and"),
    ("bitwise_or", np.bitwise_or, "or"),
    ("bitwise_xor", np.bitwise_xor, "xor"),
):
    _add(
        _op(
            _n,
            _ref,
            binary(),
            BOOL_INTS,
            grad=False,
            variants=(f"__{_d}__", f"__r{_d}__", f"__i{_d}__"),
        )
    )
_add(_op("bitwise_not", np.invert, unary(), BOOL_INTS, grad=False, variants=("__invert__",)))
_add(_op("bitwise_left_shift", _shift(np.left_shift), binary(0, 9, 0, 7), INTS, grad=False,
         variants=("__lshift__", "__rlshift__", "__ilshift__")))  # fmt: skip
_add(_op("bitwise_right_shift", _shift(np.right_shift), binary(-9, 9, 0, 7), INTS, grad=False,
         variants=("__rshift__", "__rrshift__", "__irshift__")))  # fmt: skip
for _n, _ref, _out in (("isnan", np.isnan, False), ("isinf", np.isinf, False), ("isfinite", np.isfinite, False),
                       ("isposinf", np.isposinf, True), ("isneginf", np.isneginf, True), ("signbit", np.signbit, True)):  # fmt: skip
    _add(
        _op(
            _n, _pred(_ref), _special_floats(unary()), ALL_REAL, grad=False, inplace=False, out=_out
        )
    )
_add(_op("isclose", np.isclose, _isclose_samples, ALL_REAL, grad=False, inplace=False, out=False))
_add(_op("allclose", None, _isclose_samples, ALL_REAL, grad=False, inplace=False, out=False))
_add(_op("equal", None, _isclose_samples, ALL_REAL, grad=False, inplace=False, out=False))
_add(_op("result_type", None, binary(), ALL_REAL, grad=False, method=False, out=False))
