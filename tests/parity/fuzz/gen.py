"""Generators of calls, one per op family (``FAMILIES``), each drawing from a ``random.Random``.

Hypothesis drives them through ``st.randoms(use_true_random=False)`` (so a failure shrinks
and replays); the CLI seeds a ``random.Random`` per call. Every generator returns a
``runner.Call``; bad arguments (mismatched shapes, wrong dtypes, out-of-range dims, bad out=
tensors, overlapping written-to memory) are drawn on purpose with a modest probability.
"""

from __future__ import annotations

import math

import numpy as np

from .runner import DT, T, Call, apply_operator

DTYPES = ("bool", "uint8", "int8", "int16", "int32", "int64", "float16", "float32", "float64",
          "complex64", "complex128")  # fmt: skip
COMMON = ("bool", "int64", "float32", "float64")
INTS = ("uint8", "int8", "int16", "int32", "int64")
FLOATS = ("float16", "float32", "float64")
COMPLEX = ("complex64", "complex128")
SHAPES = ((), (0,), (1,), (3,), (2, 3), (1, 3), (3, 1), (2, 0), (2, 1, 3), (4,), (2, 2))
_FSPECIAL = (0.0, -0.0, 1.0, -1.0, math.nan, math.inf, -math.inf, 1e-300, 1e30, 0.5, 2.0, 7.25)
SCALARS = (0, 1, -1, 2, 5, -3, 2**31, 2**40, 0.5, -2.5, 1e-300, 1e30, math.nan, math.inf, True, False, 1j,
           2 + 1j)  # fmt: skip


# ---- drawing values --------------------------------------------------------------------------------
def dtype(r, pool=None) -> str:
    if pool is None:
        pool = COMMON if r.random() < 0.5 else DTYPES
    return r.choice(pool)


def values(r, shape, dt: str) -> np.ndarray:
    rng = np.random.default_rng(r.getrandbits(32))
    n = int(np.prod(shape)) if shape else 1
    if dt == "bool":
        a = rng.random(n) < 0.5
    elif dt in INTS:
        info = np.iinfo(dt)
        edge = np.array([info.min, info.max, 0, 1, info.max - 1, info.min + 1], dtype=np.int64)
        lo = 0 if dt == "uint8" else -5
        a = rng.integers(lo, 10, n)
        if r.random() < 0.3:
            m = rng.random(n) < 0.3
            a = np.where(m, rng.choice(edge, n), a)
        a = a.astype(dt)
    else:
        a = np.round(rng.standard_normal(n) * 3, 3)
        if r.random() < 0.3:
            m = rng.random(n) < 0.3
            a = np.where(m, rng.choice(np.array(_FSPECIAL), n), a)
        if dt in COMPLEX:
            b = np.round(rng.standard_normal(n) * 2, 3)
            a = a + 1j * b
        with np.errstate(all="ignore"):
            a = a.astype(dt)
    return a.reshape(shape)


def tensor(r, shape=None, dt=None, layout=None, pool=None, rg=False, positive=False) -> T:
    shape = r.choice(SHAPES) if shape is None else tuple(shape)
    dt = dtype(r, pool) if dt is None else dt
    a = values(r, shape, dt)
    if positive and dt not in ("bool",):
        a = np.abs(a).astype(dt) if dt not in INTS else np.abs(a.astype(np.int64)).clip(0, 100).astype(dt)
    if layout is None:
        layout = r.choice(("contig",) * 5 + ("transpose", "slice", "expand"))
    storage = None
    if layout == "transpose" and len(shape) < 2 or layout in ("slice", "expand") and not shape:
        layout = "contig"
    if layout == "expand":
        a = np.array(np.broadcast_to(a[:1], shape), copy=True)
    if layout == "overlap":
        if len(shape) == 2 and shape[0] * shape[1] > 1:
            storage = values(r, (shape[0] + shape[1] - 1,), dt)
            idx = np.add.outer(np.arange(shape[0]), np.arange(shape[1]))
            a = storage[idx]
        else:
            layout = "contig"
    return T(a, dt, layout, rg and dt in FLOATS[1:] + COMPLEX, storage)


def broadcast_pair(r, shape):
    """A shape that broadcasts with ``shape`` (or, rarely, one that does not)."""
    s = list(shape)
    k = r.random()
    if k < 0.4:
        return tuple(s)
    if k < 0.6:
        return tuple(s[r.randint(0, len(s)) :]) if s else ()
    if k < 0.85:
        return tuple(1 if r.random() < 0.5 else n for n in s)
    if k < 0.93:
        return (r.choice((2, 1)),) + tuple(s)
    return tuple(n + 1 for n in s) or (2,)


def scalar(r):
    return r.choice(SCALARS)


def out_tensor(r, like_shape, like_dt) -> T:
    """An ``out=`` tensor: right, empty, wrong-shaped, another dtype, or non-contiguous/expanded."""
    k = r.random()
    dt = like_dt if k < 0.45 else dtype(r, DTYPES)
    shape = tuple(like_shape)
    k = r.random()
    if k < 0.2:
        shape = (0,)
    elif k < 0.3:
        shape = (5,)
    lay = r.choice(("contig",) * 6 + ("transpose", "slice", "expand", "overlap"))
    return tensor(r, shape, dt, lay)


def dim_arg(r, ndim, allow_none=True, allow_list=True):
    k = r.random()
    if allow_none and k < 0.2:
        return None
    if allow_list and k < 0.35:
        n = max(ndim, 1)
        return r.choice(((), [], (0,), (-1,), tuple(range(n)), (0, 0), [0, -1][: n]))
    if k < 0.93:
        return r.randint(-max(ndim, 1), max(ndim, 1) - 1)
    return r.choice((ndim + 1, -ndim - 2, 5))


# ---- families ----------------------------------------------------------------------------------------
BINARY = ("add", "sub", "mul", "div", "true_divide", "floor_divide", "remainder", "fmod", "pow", "maximum",
          "minimum", "atan2", "eq", "ne", "lt", "le", "gt", "ge", "logical_and", "logical_or", "logical_xor",
          "bitwise_and", "bitwise_or", "bitwise_xor", "bitwise_left_shift", "bitwise_right_shift", "hypot",
          "copysign", "fmax", "fmin", "xlogy", "ldexp", "nextafter", "float_power", "heaviside", "logaddexp",
          "gcd", "lcm", "rsub", "isclose", "eq", "complex", "polar")  # fmt: skip
UNARY = ("neg", "abs", "exp", "log", "sqrt", "sin", "cos", "tan", "tanh", "sinh", "cosh", "sigmoid", "floor",
         "ceil", "round", "trunc", "sign", "sgn", "reciprocal", "rsqrt", "log1p", "expm1", "erf", "erfc",
         "erfinv", "isnan", "isinf", "isfinite", "isposinf", "logical_not", "bitwise_not", "square", "frac",
         "angle", "exp2", "log2", "log10", "relu", "nan_to_num", "signbit", "positive", "asin", "acos", "atan",
         "asinh", "acosh", "atanh", "lgamma", "digamma", "deg2rad", "rad2deg", "conj", "conj_physical", "real",
         "imag", "sinc", "logit", "i0", "fix", "negative", "absolute")  # fmt: skip
OPERATORS = ("add", "sub", "mul", "truediv", "floordiv", "mod", "pow", "and_", "or_", "xor", "lshift", "rshift",
             "lt", "eq", "iadd", "isub", "imul", "itruediv", "matmul", "neg", "invert", "abs")  # fmt: skip


def _variant(r, c: Call, res_shape, res_dt, self_spec: T) -> Call:
    """Turn a functional call into its method, in-place or out= form."""
    k = r.random()
    name = c.target.split(".")[1]
    if k < 0.5:
        return c
    if k < 0.62:
        c.target = "m." + name
        return c
    if k < 0.8:
        if r.random() < 0.3:
            c.args[0] = self_spec = tensor(r, self_spec.arr.shape, self_spec.dtype, r.choice(("expand", "overlap")))
        c.target = "m." + name + "_"
        return c
    c.kwargs["out"] = out_tensor(r, res_shape, res_dt)
    if r.random() < 0.3:  # a wider out of the same kind: the result must wrap/round before the cast
        wide = "int64" if res_dt in INTS else "float64" if res_dt in FLOATS else None
        if wide is not None:
            c.kwargs["out"] = tensor(r, (0,), wide, "contig")
    if r.random() < 0.15:  # out= one of the inputs, or a view of it
        c.kwargs["out"] = c.args[0]
    return c


def gen_binary(r) -> Call:
    op = r.choice(BINARY)
    a = tensor(r)
    b = tensor(r, broadcast_pair(r, a.arr.shape)) if r.random() < 0.75 else scalar(r)
    if r.random() < 0.2:
        a, b = (scalar(r), b) if isinstance(b, T) and op in ("pow", "add", "mul", "sub") else (a, b)
    if op in ("pow", "float_power") and r.random() < 0.4:  # tiny/huge exponents: double precision matters
        b = r.choice((1e-300, 1e-40, 0.1, 2.5, -1e-300))
    c = Call("binary", f"torch.{op}", [a, b])
    if op in ("add", "sub", "rsub") and r.random() < 0.3:
        c.kwargs["alpha"] = r.choice((2, 0.5, True, -1, 1j))
    if op == "div" and r.random() < 0.4:
        c.kwargs["rounding_mode"] = r.choice(("trunc", "floor", None, "bad"))
    if isinstance(c.args[0], T):
        shape = c.args[0].arr.shape
        c = _variant(r, c, shape, c.args[0].dtype, c.args[0])
    return c


def gen_unary(r) -> Call:
    op = r.choice(UNARY)
    a = tensor(r)
    c = Call("unary", f"torch.{op}", [a])
    if op == "round" and r.random() < 0.4:
        c.kwargs["decimals"] = r.choice((0, 1, 2, -1))
    if op == "nan_to_num" and r.random() < 0.5:
        c.kwargs.update(nan=r.choice((0.0, 1.5)), posinf=r.choice((None, 9.0)), neginf=-9.0)
    if op in ("real", "imag", "conj", "angle") and r.random() < 0.5:
        return c
    return _variant(r, c, a.arr.shape, a.dtype, a)


def gen_operator(r) -> Call:
    op = r.choice(OPERATORS)
    a = tensor(r)
    if op in ("neg", "invert", "abs"):
        return Call("operator", "fn:operator", [op, a])
    b = tensor(r, broadcast_pair(r, a.arr.shape)) if r.random() < 0.6 else scalar(r)
    if op == "matmul":
        b = tensor(r, r.choice(((), (3,), (3, 2), (2, 3), (0,))), a.dtype)
    if r.random() < 0.2:
        a, b = b, a
    return Call("operator", "fn:operator", [op, a, b])


def gen_ternary(r) -> Call:
    op = r.choice(("clamp", "where", "lerp", "addcmul", "addcdiv", "clamp_min", "clamp_max", "clip"))
    a = tensor(r)
    sh = a.arr.shape
    if op in ("clamp", "clip"):
        lo = r.choice((None, scalar(r), tensor(r, broadcast_pair(r, sh))))
        hi = r.choice((None, scalar(r), tensor(r, broadcast_pair(r, sh))))
        c = Call("ternary", f"torch.{op}", [a], {"min": lo, "max": hi})
    elif op in ("clamp_min", "clamp_max"):
        c = Call("ternary", f"torch.{op}", [a, r.choice((scalar(r), tensor(r, broadcast_pair(r, sh))))])
    elif op == "where":
        cond = tensor(r, broadcast_pair(r, sh), r.choice(("bool", "bool", "uint8", "int64")))
        c = Call("ternary", "torch.where", [cond, a, r.choice((scalar(r), tensor(r, broadcast_pair(r, sh))))])
        if r.random() < 0.2:
            c.kwargs["out"] = out_tensor(r, sh, a.dtype)
        return c
    elif op == "lerp":
        c = Call("ternary", "torch.lerp", [a, tensor(r, broadcast_pair(r, sh)), r.choice((0.5, tensor(r, sh)))])
    else:
        c = Call("ternary", f"torch.{op}", [a, tensor(r, broadcast_pair(r, sh)), tensor(r, broadcast_pair(r, sh))])
        if r.random() < 0.4:
            c.kwargs["value"] = r.choice((2, 0.5, 1j, True))
    return _variant(r, c, sh, a.dtype, a)


REDUCE = ("sum", "prod", "mean", "nansum", "nanmean", "amax", "amin", "max", "min", "argmax", "argmin", "std",
          "var", "norm", "logsumexp", "any", "all", "cumsum", "cumprod", "median", "nanmedian", "count_nonzero",
          "std_mean", "var_mean", "aminmax", "mode", "logcumsumexp", "cummax", "cummin")  # fmt: skip
_DIM_REQUIRED = ("cumsum", "cumprod", "logsumexp", "logcumsumexp", "cummax", "cummin")


def gen_reduction(r) -> Call:
    op = r.choice(REDUCE)
    a = tensor(r, r.choice(SHAPES + ((2, 3, 2),)))
    nd = a.arr.ndim
    kw: dict = {}
    args = [a]
    if op in _DIM_REQUIRED or op in ("mode",):
        args.append(dim_arg(r, nd, False, op == "logsumexp"))
    elif op in ("max", "min", "median", "nanmedian", "argmax", "argmin", "count_nonzero"):
        if r.random() < 0.6:
            d = dim_arg(r, nd, op in ("argmax", "argmin", "count_nonzero"), op == "count_nonzero")
            args.append(d)
            if r.random() < 0.5 and op != "count_nonzero":
                kw["keepdim"] = True
    elif r.random() < 0.75:
        kw["dim"] = dim_arg(r, nd, True, op not in ("aminmax",))
        if op not in ("aminmax",) and r.random() < 0.4:
            kw["keepdim"] = True
        elif op == "aminmax":
            kw["keepdim"] = r.random() < 0.4
    if op in ("sum", "prod", "mean", "nansum", "cumsum", "cumprod") and r.random() < 0.3:
        kw["dtype"] = DT(dtype(r, DTYPES))
    if op in ("std", "var", "std_mean", "var_mean") and r.random() < 0.4:
        kw["correction"] = r.choice((0, 1, 2))
    if op == "norm" and r.random() < 0.5:
        kw["p"] = r.choice((1, 2, 0, math.inf, -math.inf, 3, "fro", "nuc"))
    c = Call("reduction", f"torch.{op}", args, kw)
    if op in ("median", "nanmedian", "mode", "max", "min", "cummax", "cummin") and len(args) > 1:
        c.cmp = "values0"
    if r.random() < 0.15 and op in ("sum", "prod", "mean", "amax", "amin", "cumsum", "std", "var", "logsumexp",
                                      "any", "all", "nansum", "argmax"):  # fmt: skip
        c.kwargs["out"] = out_tensor(r, (), a.dtype)
    elif r.random() < 0.2 and op not in ("std_mean", "var_mean", "aminmax", "count_nonzero", "nanmean"):
        c.target = f"m.{op}"
    return c


def gen_sorting(r) -> Call:
    op = r.choice(("sort", "topk", "kthvalue", "max", "min", "argsort", "msort", "unique", "searchsorted",
                   "bucketize", "cummax", "median", "mode"))  # fmt: skip
    a = tensor(r, r.choice(((), (0,), (4,), (2, 3), (3, 1))), pool=COMMON + INTS[:2] + FLOATS[:1])
    nd = a.arr.ndim
    args, kw = [a], {}
    if op == "topk":
        args.append(r.choice((0, 1, 2, 5)))
        kw["dim"] = dim_arg(r, nd, False, False)
        kw["largest"] = r.random() < 0.5
    elif op == "kthvalue":
        args += [r.choice((1, 2, 0, 9)), dim_arg(r, nd, False, False)]
    elif op in ("max", "min", "cummax", "median", "mode"):
        args.append(dim_arg(r, nd, False, False))
    elif op == "sort":
        kw["dim"] = dim_arg(r, nd, False, False)
        kw["descending"] = r.random() < 0.5
        kw["stable"] = True
    elif op == "unique":
        kw = {"sorted": True, "return_counts": r.random() < 0.5, "return_inverse": r.random() < 0.5}
        if r.random() < 0.3:
            kw["dim"] = dim_arg(r, nd, False, False)
    elif op in ("searchsorted", "bucketize"):
        bnd = tensor(r, (4,), r.choice(("int64", "float32", "float64")), "contig")
        bnd.arr = np.sort(bnd.arr)
        args = [bnd, a] if op == "searchsorted" else [a, bnd]
        kw["right"] = r.random() < 0.5
        if r.random() < 0.3:
            kw["out_int32"] = True
    c = Call("sorting", f"torch.{op}", args, kw)
    if op in ("topk", "kthvalue", "max", "min", "median", "mode", "cummax"):
        c.cmp = "values0"
    if op in ("sort", "topk", "kthvalue", "max", "min", "cummax", "median", "mode") and r.random() < 0.5:
        shape = a.arr.shape
        idx_dt = r.choice(("int64", "int64", "int32", "float32"))
        c.kwargs["out"] = (out_tensor(r, shape, a.dtype), tensor(r, (0,), idx_dt, "contig"))
    return c
