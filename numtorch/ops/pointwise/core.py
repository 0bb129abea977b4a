"""Elementwise math: one declaration per op (scalar expressions + derivative), their public
bindings, and the Tensor operator dunders.

Overloads follow PyTorch's: ``.Tensor`` (tensor operands), ``.Scalar`` (a number as the second
operand) and ``.Scalar_Tensor`` / ``pow.Scalar`` (a number first); the public function picks
the one PyTorch's argument parser picks, so dispatch modes see the same ops. Semantics of the
engine: Note [Elementwise semantics] in ``_elementwise.py``.
"""

from __future__ import annotations

import math

import numpy as np

from ... import _dtype as D
from ..._dispatch import dispatch
from ..._tensor import Tensor, _make
from ._elementwise import EXAMPLES as _EXAMPLES
from ._elementwise import (
    Elementwise,
    Routed,
    addcdiv_check,
    alpha_check,
    checked_bounds,
    lerp_check, lerp_params, lerp_strict_out,
    nan_to_num_params, not_tensor, number, pow_check, sub_check, value_param,
)  # fmt: skip
from ._clamp import clamp_bounds, clamp_complex, scalar_bound
from ._square import square_composite
from ._minmax_grad import max_bw
from ._math_grad import asinh_self, atan2_part, atan_self, atanh_self, erf_self, logaddexp_part, pow_exponent, pow_self, rsqrt_one_minus_sq, tan_self  # fmt: skip
from ._select_grad import bound_keep, clamp_max, clamp_min, clamp_self, fmax_bw, numpy_first
from ._mul_grad import product as _bw_product
from .._pointwise import _cname, defpointwise
from ._overloads import two_numbers
from .._registry import OPS, defop, public, schema_sig

# name -> {"T"/"S"/"F": overload dicts, "pick", "pub"}: what aliases and dunders reuse
_ALL: dict[str, dict] = {}
_DEFAULTS: dict = {}


def _fill(op, v):
    d = _DEFAULTS.get(op)
    if d is None:
        d = _DEFAULTS[op] = [a.default for a in op._schema.arguments if not a.is_out]
    return v + d[len(v) :]


def _decl(schema, ew, backward=None, **kw):
    """Register an op's overloads (functional, out=, in-place); bindings come from _publish."""
    return defpointwise(schema, ew, backward=backward, function=False, method=False, **kw)


def _pick_ts(T, S=None, F=None):
    def pick(v):
        if F is not None and not isinstance(v[0], Tensor):
            if not isinstance(v[1], Tensor):
                raise two_numbers(T, S, F, v)
            return F, v
        if S is not None and not isinstance(v[1], Tensor):
            return S, v
        return T, v

    pick.tensors, pick.scalars = T, S  # every operand a Tensor: T, whatever S and F are (_fast_args)
    return pick


def _fast_args(pick, op, sig: str, first: str):
    # Note [Binding fast call]: with every relevant operand a Tensor, a _pick_ts pick takes
    # T unchanged, so the wrapper may call T's op.fast itself: its parameters are the
    # binding's (schema order, ``self`` named ``first``), unless a custom sig renames them.
    T = getattr(pick, "tensors", None)
    if T is None or op not in T:
        return None
    args = [a.name for a in T[op]._schema.arguments if not a.is_out]
    names = tuple(first if n == "self" else n for n in args)
    given = [p.split("=")[0].strip() for p in sig.split(",")]
    if tuple(n for n in given if n not in ("*", "", "out")) != names:
        return None
    return (T[op], names, "out is None") if "out" in given else (T[op], names)


def _publish(names, pick, op, *, first_number=False, second_tensor=False, method=True, inplace=True,
             function=True, out=True, fsig=None, msig=None):  # fmt: skip
    """numtorch.<name>, Tensor.<name>, Tensor.<name>_ for each of ``names`` (an op and its aliases).

    ``pick(values)`` returns (overload dict, schema-ordered values). first_number: the first
    operand may be a Python number (add, pow ...); second_tensor: the second must be a Tensor."""
    names = (names,) if isinstance(names, str) else tuple(names)
    ar = [a for a in op._schema.arguments if not a.is_out]
    second = ar[1].name if len(ar) > 1 else None
    for name in names:
        _ALL.setdefault(name, {}).update(pick=pick, op=op)

    def check(v, pos):
        if second_tensor and not isinstance(v[1], Tensor):
            raise not_tensor(names[0], second, pos, v[1])

    def fbody(*v):
        o, v = (v[-1], list(v[:-1])) if out else (None, list(v))
        check(v, 2)
        ops, v = pick(v)
        return dispatch(ops["functional"], v) if o is None else dispatch(ops["out"], v + [o])

    def mbody(*v):
        check(v, 1)
        ops, v = pick(list(v))
        return dispatch(ops["functional"], v)

    fbody.route, mbody.route = (pick, out, second_tensor), (pick, False, second_tensor)  # prepared_fast.py

    def ibody(*v):
        check(v, 1)
        ops, v = pick(list(v))
        return dispatch(ops["inplace"], v)

    for name in names:
        doc = _doc(name)
        if function:
            sig, rel, _ = schema_sig(op, method=False, out=out)
            rel = (
                rel[::-1] if first_number else rel
            )  # the generated gate then accepts a number first
            fast = _fast_args(pick, "functional", fsig or sig, "input")
            public(name, fsig or sig, fbody, relevant=rel, doc=doc, ops=(op,), fast=fast)
        if method:
            sig, rel, _ = schema_sig(op, method=True, out=False)
            fast = _fast_args(pick, "functional", msig or sig, "self")
            public(name, msig or sig, mbody, relevant=rel, module="Tensor", doc=doc, ops=(op,),
                   fast=fast)  # fmt: skip
            if inplace:
                fast = _fast_args(pick, "inplace", msig or sig, "self")
                public(name + "_", msig or sig, ibody, relevant=rel, module="Tensor", doc=doc,
                       ops=(op,), fast=fast)  # fmt: skip


def _register(names, T, S=None, F=None, pick=None, **pub):
    names = (names,) if isinstance(names, str) else tuple(names)
    _ALL.setdefault(names[0], {}).update(T=T, S=S, F=F)
    _publish(names, pick or _pick_ts(T, S, F), T["functional"], **pub)
    return T


def _unary(name, expr, backward=None, *, aliases=(), inplace=True, out=True, pub=None, holomorphic=True, **ew):
    # a dtype-preserving unary op is ATen's build_borrowing_unary_op: check_all_same_dtype, so
    # out= must have the input's dtype ("Found dtype Double but expected Float")
    ew.setdefault("strict_out", ew.get("rule", "common") == "common")
    ops = _decl(f"{name}(Tensor self) -> Tensor", Elementwise(name, ["self"], expr, **ew), backward,
                inplace=inplace, out=out, holomorphic=holomorphic)  # fmt: skip
    return _register((name, *aliases), ops, **{"inplace": inplace, "out": out, **(pub or {})})


def _no_other(bw):
    return None if bw is None else {k: v for k, v in bw.items() if k != "other"} or None


def _no_self(bw):
    return None if bw is None else {k: v for k, v in bw.items() if k != "self"} or None


def _binary(
    names, ew, backward=None, *, S="Scalar", F=None, t="Tensor", alpha=False, ov=None, pick_s=True, **pub
):
    """Tensor / Scalar / Scalar-first overloads of a binary op sharing one Elementwise.
    ov: {"T"/"S"/"F": defpointwise keywords} (PyTorch's irregular out= and in-place names).
    pick_s=False: the bindings send numbers to the Tensor overload, as PyTorch's do for add,
    sub, mul and floor_divide (the Scalar overload stays reachable as numtorch.ops.aten)."""
    names = (names,) if isinstance(names, str) else tuple(names)
    name, ov = names[0], ov or {}
    kw_a, pos_a = (", *, Scalar alpha=1", ", Scalar alpha=1") if alpha else ("", "")
    T = _decl(
        f"{name}{'.' + t if t else ''}(Tensor self, Tensor other{kw_a}) -> Tensor",
        ew,
        backward,
        **ov.get("T", {}),
    )
    Sd = Fd = None
    if S:
        Sd = _decl(
            f"{name}.{S}(Tensor self, Scalar other{pos_a}) -> Tensor",
            ew,
            _no_other(backward),
            **ov.get("S", {}),
        )
    if F:
        Fd = _decl(
            f"{name}.{F}(Scalar self, Tensor other) -> Tensor",
            ew,
            _no_self(backward),
            inplace=False,
            **ov.get("F", {}),
        )
    pick = None if pick_s else _pick_ts(T, None, Fd)
    return _register(names, T, Sd, Fd, pick=pick, **pub)


def _doc(name):
    ex = _EXAMPLES.get(name)
    head = f"Elementwise ``{name}``, as ``torch.{name}``."
    return head if ex is None else f"{head}\n\n    >>> {ex[0]}\n    {ex[1]}\n    "


# ---- ops called by derivative formulas: below __torch_function__, as PyTorch's C++ formulas ----
def _f(name, kind="T"):
    return _ALL[name][kind]["functional"]


def _mul(a, b):
    return _f("mul").fast(a, b)  # dispatch(op, vals) without its frame


def _div(a, b):
    return _f("div").fast(a, b)


def _add(a, b):
    return _f("add").fast(a, b, 1)


def _sub(a, b):
    return _f("sub").fast(a, b, 1)


def _neg(a):
    return _f("neg").fast(a)


def _u(name, a):
    return dispatch(_f(name), [a])


def _cmp(name, a, b):
    return dispatch(_f(name, "T" if isinstance(b, Tensor) else "S"), [a, b])


def _and(a, b):
    return dispatch(_f("logical_and"), [a, b])


def _or(a, b):
    return dispatch(_f("logical_or"), [a, b])


def _where(c, a, b):
    return dispatch(_WHERE["functional"], [c, a, b])


def _pow(a, b):
    return dispatch(_f("pow", "T" if isinstance(b, Tensor) else "S"), [a, b])


def _zeros_like(t):
    op = OPS.get("aten::zeros_like")
    if op is None:  # factory area not loaded (minimal builds)
        return _make(np.zeros(t._data.shape, t._dtype.np), t._dtype)
    return dispatch(op, [t, None, None, None, None, None])


def _zero_grad(grad):
    return _zeros_like(grad)


def _no_derivative(name):
    def bw(grad):
        raise RuntimeError(f"derivative for aten::{name} is not implemented")

    return bw


def _scaled(grad, alpha):
    return grad if alpha == 1 else _mul(grad, alpha)


def _log_scalar(x):
    return math.log(x) if x > 0 else (-math.inf if x == 0 else math.nan)


# fmt: off
# (declarations below are tables: one op per statement, aligned by hand)

# internal select for masked gradients (PyTorch's formulas use at::where)
_WHERE = _decl("_s_where(Tensor condition, Tensor self, Tensor other) -> Tensor",
               Elementwise("where", ["condition", "self", "other"], "where(condition, self, other)"),
               {"self": lambda grad, condition: _where(condition, grad, 0.0),
                "other": lambda grad, condition: _where(condition, 0.0, grad)}, inplace=False, out=False)  # fmt: skip


# ---- arithmetic ----------------------------------------------------------------------------------
_T2 = ["self", "other"]
_binary("add", Elementwise("add", _T2, "self + alpha * other", ["alpha"], prep=alpha_check, fast=True),
        {"self": lambda grad: grad, "other": lambda grad, alpha: _scaled(grad, alpha)}, alpha=True, first_number=True,
        pick_s=False)  # fmt: skip
_binary(("sub", "subtract"), Elementwise("sub", _T2, "self - alpha * other", ["alpha"], prep=alpha_check, early=sub_check, fast=True),
        {"self": lambda grad: grad, "other": lambda grad, alpha: _scaled(_neg(grad), alpha)}, alpha=True, first_number=True,
        pick_s=False)  # fmt: skip
_binary("rsub", Elementwise("rsub", _T2, "other - alpha * self", ["alpha"], prep=alpha_check, early=sub_check, fast=True),
        {"self": lambda grad, alpha: _scaled(_neg(grad), alpha), "other": lambda grad: grad}, alpha=True,
        ov={"T": {"inplace": False, "out_overload": "Tensor_out"}, "S": {"inplace": False}}, method=False, out=False)  # fmt: skip
_MUL_EW = Elementwise("mul", _T2, "self * other", opmath=(1,))
_binary(("mul", "multiply"), _MUL_EW,
        {"self": lambda grad, other: _bw_product(grad, other, _mul), "other": lambda grad, self: _bw_product(grad, self, _mul)},
        first_number=True, pick_s=False)  # fmt: skip


def _div_bw_other(grad, self, other):
    return _neg(_mul(grad, _div(_div(self, other), other)))


_div_true = Elementwise("div", _T2, {"f": "np.divide(self, other)", "c": "cdiv(self, other)"}, rule="float", opmath=(1,))
_div_floor = Elementwise("div_floor", _T2, {"bi": "div_floor_int(self, other)", "f": "div_floor_float(self, other)"},
                         allow="if", zero_div=1)  # fmt: skip
_div_trunc = Elementwise("div_trunc", _T2, {"bi": "div_trunc_int(self, other)", "f": "np.trunc(self / other)"},
                         allow="if", zero_div=1)  # fmt: skip
_DIV_BW = {"self": lambda grad, other: _div(grad, other), "other": _div_bw_other}
_DIV_T = _decl("div.Tensor(Tensor self, Tensor other) -> Tensor", _div_true, _DIV_BW)
_DIV_S = _decl("div.Scalar(Tensor self, Scalar other) -> Tensor", _div_true, _no_other(_DIV_BW))


def _pick_mode(operands, params):
    mode = params[0]
    if mode is None:
        return _div_true, operands, ()
    if mode in ("trunc", "floor"):
        return (_div_trunc if mode == "trunc" else _div_floor), operands, ()
    raise RuntimeError(f"div expected rounding_mode to be one of None, 'trunc', or 'floor' but found '{mode}'")


def _div_mode_bw(key):
    def bw(grad, self, other, rounding_mode):
        if rounding_mode is not None:
            return _zeros_like(grad)
        return _div(grad, other) if key == "self" else _div_bw_other(grad, self, other)

    return bw


_div_mode = Routed("div", _T2, ["rounding_mode"], _pick_mode)
_DIVM_T = _decl("div.Tensor_mode(Tensor self, Tensor other, *, str? rounding_mode) -> Tensor", _div_mode,
                {"self": _div_mode_bw("self"), "other": _div_mode_bw("other")})  # fmt: skip
_DIVM_S = _decl("div.Scalar_mode(Tensor self, Scalar other, *, str? rounding_mode) -> Tensor", _div_mode,
                {"self": _div_mode_bw("self")})  # fmt: skip


def _pick_div(v):
    # PyTorch's bindings use div.Tensor / div.Tensor_mode for numbers too
    if len(v) < 3 or v[2] is None:
        return _DIV_T, v[:2]
    return _DIVM_T, v


_ALL["div"] = {"T": _DIV_T, "S": _DIV_S}
_publish(("div", "divide"), _pick_div, _DIVM_T["functional"], first_number=True,
         fsig="input, other, *, rounding_mode=None, out=None", msig="self, other, *, rounding_mode=None")  # fmt: skip
_publish("true_divide", _pick_div, _DIV_T["functional"], first_number=True)
_binary("floor_divide", Elementwise("floor_divide", _T2, {"bi": "div_floor_int(self, other)", "f": "div_floor_float(self, other)"},
                                    allow="if", kname="div_floor_cpu", zero_div=1),
        {"self": _no_derivative("floor_divide"), "other": _no_derivative("floor_divide")}, t="",
        ov={"T": {"inplace_overload": "Tensor"}}, first_number=True, pick_s=False)  # fmt: skip


def _floor_or_trunc_bw(mode):
    def bw(grad, self, other):
        return _neg(_mul(grad, dispatch(_DIVM_T["functional"], [self, other, mode])))

    return bw


_binary("remainder", Elementwise("remainder", _T2, {"bi": "remainder_int(self, other)", "f": "remainder_float(self, other)"},
                                 allow="if", zero_div=1),
        {"self": lambda grad: grad, "other": _floor_or_trunc_bw("floor")}, F="Scalar_Tensor",
        ov={"T": {"out_overload": "Tensor_out"}}, first_number=True)  # fmt: skip
_binary("fmod", Elementwise("fmod", _T2, {"bi": "fmod_int(self, other)", "f": "np.fmod(self, other)"}, allow="if", zero_div=1),
        {"self": lambda grad: grad, "other": _floor_or_trunc_bw("trunc")}, ov={"T": {"out_overload": "Tensor_out"}})  # fmt: skip


# ---- pow / square --------------------------------------------------------------------------------
@numpy_first(pow_self(_pow), raw=True)  # Note [Arithmetic of formulas in NumPy]
def _pow_bw_self(grad, self, exponent):
    e = exponent
    if not isinstance(e, Tensor):
        return _zeros_like(grad) if e == 0 else _mul(grad, _mul(_pow(self, e - 1), e))
    return _mul(grad, _where(_cmp("eq", e, 0), 0.0, _mul(e, _pow(self, _sub(e, 1)))))


@numpy_first(pow_exponent(lambda x: _u("log", x)), raw=True)
def _pow_bw_exponent(grad, self, exponent, result):
    if not isinstance(self, Tensor):
        g = _mul(result, _log_scalar(self))
        return _mul(grad, _where(_cmp("ge", exponent, 0), 0.0, g) if self == 0 else g)
    mask = _and(_cmp("eq", self, 0), _cmp("ge", exponent, 0))
    return _mul(grad, _where(mask, 0.0, _mul(result, _u("log", self))))


_POW_X = {"bi": "pow_int(self, exponent)", "f": "self ** exponent", "c": "cpow(self, exponent)"}
_pow_t = Elementwise("pow", ["self", "exponent"], _POW_X, kname="pow", allow="ifc")
_POW_T = _decl("pow.Tensor_Tensor(Tensor self, Tensor exponent) -> Tensor", _pow_t,
               {"self": _pow_bw_self, "exponent": _pow_bw_exponent}, out_overload="Tensor_Tensor_out", inplace_overload="Tensor")  # fmt: skip
# Note [Python scalars keep double precision]: the exponent stays double for float tensors
_pow_s = Elementwise("pow", ["self", "exponent"], _POW_X, kname="pow", allow="ifc", prep=pow_check, wide=("exponent",))
# ATen fills ones for exponent 0 and copies for exponent 1 before any dtype dispatch, and uses
# sqrt / rsqrt / reciprocal / products for these exponents on float and complex tensors
_pow_0 = Elementwise("pow_0", ["self", "exponent"], "1")
_pow_1 = Elementwise("pow_1", ["self", "exponent"], "self")
_POW_FAST = {e: Elementwise("pow", ["self", "exponent"], {"bi": _POW_X["bi"], "fc": x}, kname="pow", allow="ifc", prep=pow_check,
                           fast=True)
             for e, x in ((0.5, "np.sqrt(self)"), (-0.5, "rsqrt(self)"), (-1, "np.divide(1, self)"), (2, "self * self"),
                          (3, "self * self * self"), (-2, "np.divide(1, self * self)"))}  # fmt: skip


def _pick_pow(operands, params):
    pow_check(None, operands, params)
    e = operands[1]
    if e == 0 or e == 1:
        return (_pow_0 if e == 0 else _pow_1), operands, params
    return _POW_FAST.get(e if type(e) is not complex else None, _pow_s), operands, params


_POW_S = _decl("pow.Tensor_Scalar(Tensor self, Scalar exponent) -> Tensor", Routed("pow", ["self", "exponent"], [], _pick_pow),
               {"self": _pow_bw_self}, out_overload="Tensor_Scalar_out", inplace_overload="Scalar")  # fmt: skip
_POW_F = _decl("pow.Scalar(Scalar self, Tensor exponent) -> Tensor", _pow_t, {"exponent": _pow_bw_exponent}, inplace=False)
_register("pow", _POW_T, _POW_S, _POW_F, first_number=True)


def _square_out(self, out):
    return dispatch(_POW_S["out"], [self, 2, out])


_SQUARE = {"functional": defop("square(Tensor self) -> Tensor", composite=square_composite(_POW_S["functional"])),
           "out": defop("square.out(Tensor self, *, Tensor(a!) out) -> Tensor(a!)", composite=_square_out),
           "inplace": defop("square_(Tensor(a!) self) -> Tensor(a!)", composite=lambda self: dispatch(_POW_S["inplace"], [self, 2]))}  # fmt: skip
_register("square", _SQUARE)

# ---- unary ---------------------------------------------------------------------------------------
_LN2, _LN10 = math.log(2.0), math.log(10.0)
_BOOL_NEG = ("Negation, the `-` operator, on a bool tensor is not supported. If you are trying to invert a mask, "
             "use the `~` or `logical_not()` operator instead.")  # fmt: skip
_unary("neg", "-self", {"self": lambda grad: _neg(grad)}, aliases=("negative",), allow="ifc", errors={"b": (RuntimeError, _BOOL_NEG)})
_unary("abs", "abs(self)", {"self": lambda grad, self: _mul(grad, _u("sgn", self))}, aliases=("absolute",), rule="real", allow="ifc")
_unary("sign", "sign(self)", {"self": _zero_grad}, allow="bif", errors={"c": (
    NotImplementedError, "Unlike NumPy, torch.sign is not intended to support complex numbers. Please use torch.sgn instead.")})  # fmt: skip


def _sgn_bw(grad, self, result):
    # Note [Complex gradients]: sgn is not holomorphic; PyTorch's sgn_backward is
    # (g - sgn^2 * conj(g)) / (2|z|), zero where z == 0 (and for real inputs)
    if not self._dtype.is_complex:
        return _zeros_like(grad)
    a = _u("abs", self)
    g = _sub(grad, _mul(_mul(result, result), _u("conj_physical", grad)))
    return _where(_cmp("eq", a, 0.0), 0.0, _div(g, _mul(a, 2.0)))


_unary("sgn", {"bif": "sign(self)", "c": "csgn99(self)"}, {"self": _sgn_bw}, holomorphic=False)


def _fl(name, expr, bw, **kw):
    return _unary(name, expr, {"self": bw}, rule="float", **kw)


def _acosh_d(x):
    # complex: 1/(sqrt(z+1) sqrt(z-1)) keeps arccosh's branch cut (PyTorch's formula);
    # real: rsqrt(x^2 - 1), which PyTorch also uses (finite for x < -1)
    if x._dtype.is_complex:
        return _mul(_u("rsqrt", _add(x, 1)), _u("rsqrt", _sub(x, 1)))
    return _u("rsqrt", _sub(_mul(x, x), 1))


def _one_minus_sq(x):
    return _sub(1, _mul(x, x))


_fl("reciprocal", "np.divide(1, self)", lambda grad, result: _mul(_neg(grad), _mul(result, result)))
_fl("sqrt", {"bif": "np.sqrt(self)", "c": "csqrt99(self)"}, lambda grad, result: _div(grad, _mul(result, 2)))
_fl("rsqrt", "rsqrt(self)", lambda grad, result: _mul(_mul(grad, -0.5), _pow(result, 3)))
_fl("exp", {"bif": "np.exp(self)", "c": "cexp99(self)"}, lambda grad, result: _mul(grad, result))
_fl("exp2", {"bif": "np.exp2(self)", "c": "cexp2_99(self)"}, lambda grad, result: _mul(grad, _mul(result, _LN2)))
_fl("expm1", "np.expm1(self)", lambda grad, result: _mul(grad, _add(result, 1)))
_fl("log", "np.log(self)", lambda grad, self: _div(grad, self))
_fl("log2", "np.log2(self)", lambda grad, self: _div(grad, _mul(self, _LN2)))
_fl("log10", "np.log10(self)", lambda grad, self: _div(grad, _mul(self, _LN10)))
_fl("log1p", "np.log1p(self)", lambda grad, self: _div(grad, _add(self, 1)))
_fl("sin", {"bif": "np.sin(self)", "c": "csin99(self)"}, lambda grad, self: _mul(grad, _u("cos", self)))
_fl("cos", {"bif": "np.cos(self)", "c": "ccos99(self)"}, lambda grad, self: _mul(grad, _neg(_u("sin", self))))
_fl("tan", {"bif": "np.tan(self)", "c": "ctan99(self)"}, numpy_first(tan_self)(lambda grad, result: _mul(grad, _add(_mul(result, result), 1))))
_fl("asin", {"bif": "np.arcsin(self)", "c": "casin99(self)"}, numpy_first(rsqrt_one_minus_sq(lambda x: _u("rsqrt", x), 1), raw=True)(lambda grad, self: _mul(grad, _u("rsqrt", _one_minus_sq(self)))), aliases=("arcsin",))
_fl("acos", {"bif": "np.arccos(self)", "c": "cacos99(self)"}, numpy_first(rsqrt_one_minus_sq(lambda x: _u("rsqrt", x), -1), raw=True)(lambda grad, self: _neg(_mul(grad, _u("rsqrt", _one_minus_sq(self))))), aliases=("arccos",))
_fl("atan", {"bif": "np.arctan(self)", "c": "catan99(self)"}, numpy_first(atan_self)(lambda grad, self: _div(grad, _add(_mul(self, self), 1))), aliases=("arctan",))
_fl("sinh", {"bif": "np.sinh(self)", "c": "csinh99(self)"}, lambda grad, self: _mul(grad, _u("cosh", self)))
_fl("cosh", {"bif": "np.cosh(self)", "c": "ccosh99(self)"}, lambda grad, self: _mul(grad, _u("sinh", self)))
_fl("asinh", {"bif": "np.arcsinh(self)", "c": "casinh99(self)"}, numpy_first(asinh_self(lambda x: _u("rsqrt", x)), raw=True)(lambda grad, self: _mul(grad, _u("rsqrt", _add(_mul(self, self), 1)))), aliases=("arcsinh",))
_fl("acosh", {"bif": "np.arccosh(self)", "c": "cacosh99(self)"}, lambda grad, self: _mul(grad, _acosh_d(self)), aliases=("arccosh",))
_fl("atanh", {"bif": "np.arctanh(self)", "c": "catanh99(self)"}, numpy_first(atanh_self)(lambda grad, self: _div(grad, _one_minus_sq(self))), aliases=("arctanh",))
_fl("erf", "math.erf(self)", numpy_first(erf_self(lambda x: _u("exp", x), 2 / math.sqrt(math.pi)), raw=True)(lambda grad, self: _mul(grad, _mul(_u("exp", _neg(_mul(self, self))), 2 / math.sqrt(math.pi)))),
    allow="bif", kname="erf_vml_cpu")  # fmt: skip

# backward helpers are ops themselves, so double backward works (as in PyTorch)
_SIGB = _decl("sigmoid_backward(Tensor grad_output, Tensor output) -> Tensor",
              Elementwise("sigmoid_backward", ["grad_output", "output"], "grad_output * (1 - output) * output", allow="fc"),
              {"grad_output": lambda grad, output: dispatch(_SIGB["functional"], [grad, output]),
               "output": lambda grad, grad_output, output: _mul(_mul(grad, grad_output), _sub(1, _mul(output, 2)))},
              inplace=False, out=False)  # fmt: skip
_TANHB = _decl("tanh_backward(Tensor grad_output, Tensor output) -> Tensor",
               Elementwise("tanh_backward", ["grad_output", "output"], "grad_output * (1 - output * output)", allow="fc"),
               {"grad_output": lambda grad, output: dispatch(_TANHB["functional"], [grad, output]),
                "output": lambda grad, grad_output, output: _mul(_mul(grad, grad_output), _mul(output, -2))},
               inplace=False, out=False)  # fmt: skip
_fl("tanh", {"bif": "np.tanh(self)", "c": "ctanh99(self)"}, lambda grad, result: dispatch(_TANHB["functional"], [grad, result]))
_fl("sigmoid", {"bif": "sigmoid(self)", "c": "np.divide(1, 1 + cexp99(-self))"}, lambda grad, result: dispatch(_SIGB["functional"], [grad, result]))
for _n in ("floor", "ceil", "trunc"):
    _unary(_n, {"i": "self", "f": f"np.{_n}(self)"}, {"self": _zero_grad}, aliases=("fix",) if _n == "trunc" else (),
           allow="if", kname=f"{_n}_vml_cpu", errors={"c": (NotImplementedError, f"{_n} is not supported for complex inputs")})  # fmt: skip
_unary("frac", "self - np.trunc(self)", {"self": lambda grad: grad}, allow="f")
_unary("logical_not", "self == 0", rule="bool")
_unary("bitwise_not", {"b": "not self", "i": "~self"}, allow="bi")
_unary("isnan", "self != self", rule="bool", inplace=False, out=False)
_unary("isinf", {"bi": "self != self", "f": "np.isinf(self)", "c": "isinf_complex(self)"}, rule="bool", inplace=False, out=False)
_unary("isfinite", {"bi": "self == self", "f": "np.isfinite(self)", "c": "isfinite_complex(self)"}, rule="bool", inplace=False, out=False)
for _n, _e in (("isposinf", "self == np.inf"), ("isneginf", "self == -np.inf")):
    _unary(_n, {"bi": "self != self", "f": _e}, rule="bool", allow="bif", inplace=False,
           errors={"c": (RuntimeError, f"{_n} does not support complex inputs."),
                   "out": (RuntimeError, f"{_n} does not support non-boolean outputs.")})  # fmt: skip
_unary("signbit", {"b": "self != self", "i": "self < 0", "f": "np.signbit(self)"}, rule="bool", allow="bif", inplace=False,
       errors={"c": (NotImplementedError, "signbit is not implemented for complex tensors."),
               "out": (RuntimeError, "signbit does not support non-boolean outputs.")})  # fmt: skip

# round: the default overload keeps integers; round.decimals (any decimals given) is float-only
_ROUND = _decl("round(Tensor self) -> Tensor", Elementwise("round", ["self"], {"i": "self", "f": "np.rint(self)"}, allow="if",
                                                         kname="round_vml_cpu", strict_out=True), {"self": _zero_grad})  # fmt: skip
_round_dec = {z: Elementwise("round", ["self"], {"f": "round_decimals(self, ten_pow, neg_flag)"}, ["decimals"], allow="f", strict_out=True,
                             kname="round_vml_cpu" if z else "round_cpu", kparams=["ten_pow", "neg_flag"],
                             prep=lambda c, o, p: [10.0 ** abs(p[0]), float(p[0] < 0)]) for z in (True, False)}  # fmt: skip
_ROUND_D = _decl("round.decimals(Tensor self, *, int decimals) -> Tensor",
                 Routed("round", ["self"], ["decimals"], lambda o, p: (_round_dec[p[0] == 0], o, p)),
                 {"self": _zero_grad}, out_overload="decimals_out")  # fmt: skip
_ALL["round"] = {"T": _ROUND}
_publish("round", lambda v: (_ROUND, v[:1]) if v[1] is None else (_ROUND_D, v), _ROUND_D["functional"],
         fsig="input, *, decimals=None, out=None", msig="self, *, decimals=None")  # fmt: skip

_NTN = _decl("nan_to_num(Tensor self, float? nan=None, float? posinf=None, float? neginf=None) -> Tensor",
             Elementwise("nan_to_num", ["self"], {"bi": "self", "f": "nan_to_num(self, nan, posinf, neginf)",
                                                  "c": "nan_to_num_complex(self, nan, posinf, neginf)"},
                         ["nan", "posinf", "neginf"], prep=nan_to_num_params,
                         errors={"out": (RuntimeError, "nan_to_num: dtype of out: {out} should be same as input: {input}")}),
             {"self": numpy_first(lambda g, a: g * np.isfinite(a))(lambda grad, self: _mul(grad, _u("isfinite", self)))})  # fmt: skip
_register("nan_to_num", _NTN, fsig="input, nan=0.0, posinf=None, neginf=None, *, out=None",
          msig="self, nan=0.0, posinf=None, neginf=None")  # fmt: skip


def _positive(self):
    if self._dtype is D.bool:
        raise RuntimeError("The `+` operator, on a bool tensor is not supported.")
    return self


_register("positive", {"functional": defop("positive(Tensor(a) self) -> Tensor(a)", composite=_positive)}, inplace=False, out=False)


# ---- comparisons, logical, bitwise ----------------------------------------------------------------
_TOUT = {"T": {"out_overload": "Tensor_out"}}
for _n, _e, _allow, _al in (("eq", "==", "bifc", ()), ("ne", "!=", "bifc", ("not_equal",)), ("lt", "<", "bif", ("less",)),
                            ("le", "<=", "bif", ("less_equal",)), ("gt", ">", "bif", ("greater",)),
                            ("ge", ">=", "bif", ("greater_equal",))):  # fmt: skip
    _binary((_n, *_al), Elementwise(_n, _T2, f"self {_e} other", rule="bool", allow=_allow), ov=_TOUT)
for _n, _e in (("logical_and", "(self != 0) and (other != 0)"), ("logical_or", "(self != 0) or (other != 0)"),
               ("logical_xor", "(self != 0) != (other != 0)")):  # fmt: skip
    _binary(_n, Elementwise(_n, _T2, _e, rule="bool"), S=None, t="", second_tensor=True)
for _n, _e in (("bitwise_and", "&"), ("bitwise_or", "|"), ("bitwise_xor", "^")):
    _binary(_n, Elementwise(_n, _T2, f"self {_e} other", allow="bi"), F="Scalar_Tensor", first_number=True, ov=_TOUT)
for _n, _k in (("bitwise_left_shift", "lshift"), ("bitwise_right_shift", "rshift")):
    _ew = Elementwise(_n, _T2, f"{_k}(self, other, bits)", allow="i", kname=f"{_k}_cpu", kparams=["bits"],
                      prep=lambda c, o, p: [c.itemsize * 8])  # fmt: skip
    _binary(_n, _ew, S="Tensor_Scalar", F="Scalar_Tensor", first_number=True,
            ov={"T": {"out_overload": "Tensor_out"}, "S": {"out_overload": "Tensor_Scalar_out"}})  # fmt: skip
    _d = "__lshift__" if _k == "lshift" else "__rshift__"
    _ALL[_d] = {k: _decl(f"{_d}.{k2}(Tensor self, {t} other) -> Tensor", _ew, inplace=False, out=False)
                for k, k2, t in (("T", "Tensor", "Tensor"), ("S", "Scalar", "Scalar"))}  # fmt: skip
    _ALL[_d]["pick"] = _pick_ts(_ALL[_d]["T"], _ALL[_d]["S"])


# ---- binary float math, min / max ------------------------------------------------------------------
def _atan2_bw(key):
    @numpy_first(atan2_part(key))  # Note [Arithmetic of formulas in NumPy]
    def bw(grad, self, other):
        recip = _u("reciprocal", _add(_mul(self, self), _mul(other, other)))
        return _mul(_mul(grad, other if key == "self" else _neg(self)), recip)

    return bw


_binary(("atan2", "arctan2"), Elementwise("atan2", _T2, "np.arctan2(self, other)", rule="float", allow="bif"),
        {"self": _atan2_bw("self"), "other": _atan2_bw("other")}, S=None, t="", second_tensor=True)  # fmt: skip
_binary("hypot", Elementwise("hypot", _T2, "np.hypot(self, other)", allow="f"),
        {"self": lambda grad, self, result: _div(_mul(grad, self), result),
         "other": lambda grad, other, result: _div(_mul(grad, other), result)}, S=None, t="", second_tensor=True)  # fmt: skip
_binary("logaddexp", Elementwise("logaddexp", _T2, {"f": "logaddexp(self, other)", "c": "logaddexp_complex(self, other)"}, allow="fc"),
        {"self": numpy_first(logaddexp_part(lambda x: _u("exp", x), "self"), raw=True)(lambda grad, self, other: _div(grad, _add(_u("exp", _sub(other, self)), 1))),
         "other": numpy_first(logaddexp_part(lambda x: _u("exp", x), "other"), raw=True)(lambda grad, self, other: _div(grad, _add(_u("exp", _sub(self, other)), 1)))},
        S=None, t="", ov={"T": {"inplace": False}}, second_tensor=True, inplace=False)  # fmt: skip


def _xlogy(a, b):
    return dispatch(_f("xlogy", "T" if isinstance(b, Tensor) else "S"), [a, b])


_binary("xlogy", Elementwise("xlogy", _T2, "xlogy(self, other)", rule="float", allow="bif"),
        {"self": lambda grad, self, other: _mul(grad, _xlogy(_cmp("ne", self, 0), other)),
         "other": lambda grad, self, other: _div(_mul(grad, self), other)},
        S="Scalar_Other", F="Scalar_Self", first_number=True,
        ov={"T": {"out_overload": "OutTensor"}, "S": {"out_overload": "OutScalar_Other"}, "F": {"out_overload": "OutScalar_Self"}})  # fmt: skip


for _n, _e, _lose, _keep in (("maximum", "maximum", "lt", None), ("minimum", "minimum", "gt", None),
                             ("fmax", "fmax", None, "ge"), ("fmin", "fmin", None, "le")):  # fmt: skip
    _bw = (lambda k, _l=_lose: max_bw(_l, k, (_where, _cmp, _div))) if _lose else (lambda k, _k=_keep: fmax_bw(_k, k, (_where, _cmp, _or, _u)))
    _binary(_n, Elementwise(_n, _T2, f"{_e}(self, other)", allow="bif",
                            errors={"c": (RuntimeError, f"{_n} not implemented for complex tensors.")}),
            {"self": _bw("self"), "other": _bw("other")}, S=None, t="", ov={"T": {"inplace": False}},
            second_tensor=True, inplace=False)  # fmt: skip


# ---- clamp family -----------------------------------------------------------------------------------
_CLAMP_C = {"c": (NotImplementedError, "clamp is not supported for complex types")}


def _clamp_ew(name, inputs, expr, kname, allow="if"):
    return Elementwise(name, inputs, expr, allow=allow, kname=kname, errors=_CLAMP_C if "scalar" in kname else None, prep=checked_bounds,
                       strict_out=kname.endswith("_scalar_cpu"), early=clamp_complex)  # fmt: skip


def _clamp_router(sfx, allow_one):
    both = _clamp_ew("clamp", ["self", "min", "max"], "clamp(self, min, max)", f"clamp{sfx}")
    lo = _clamp_ew("clamp_min", ["self", "min"], "maximum(self, min)", f"clamp_min{sfx}" if "scalar" in sfx else "maximum_cpu", allow_one)
    hi = _clamp_ew("clamp_max", ["self", "max"], "minimum(self, max)", f"clamp_max{sfx}" if "scalar" in sfx else "minimum_cpu", allow_one)

    def pick(operands, params):
        x, a, b = operands
        if a is None and b is None:
            raise RuntimeError("torch.clamp: At least one of 'min' or 'max' must not be None")
        a, b = clamp_bounds(x, a, b)
        operands = [x, a, b]
        return (lo, [x, a], ()) if b is None else (hi, [x, b], ()) if a is None else (both, operands, ())

    return Routed("clamp", ["self", "min", "max"], [], pick), lo, hi


def _clamp_mask(self, lo, hi):
    m = None if lo is None else _cmp("ge", self, lo)
    mh = None if hi is None else _cmp("le", self, hi)
    return mh if m is None else m if mh is None else _and(m, mh)


@numpy_first(clamp_min)
def _clamp_bw_min(grad, self, min, max):
    m = _cmp("lt", self, min)
    return _where(m if max is None else _and(m, _cmp("lt", min, max)), grad, 0.0)


@numpy_first(clamp_max)
def _clamp_bw_max(grad, self, min, max):
    m = _cmp("gt", self, max)
    return _where(m if min is None else _or(m, _cmp("lt", max, min)), grad, 0.0)


_clamp_self = {"self": numpy_first(clamp_self)(lambda grad, self, min, max: _where(_clamp_mask(self, min, max), grad, 0.0))}
_cs, _cmin_s, _cmax_s = _clamp_router("_scalar_cpu", "if")
_ct = _clamp_router("_cpu", "bif")[0]  # Tensor bounds: a complex bound meets the kernels' dtype checks
_CLAMP_S = _decl("clamp(Tensor self, Scalar? min=None, Scalar? max=None) -> Tensor", _cs, _clamp_self)
_CLAMP_T = _decl("clamp.Tensor(Tensor self, Tensor? min=None, Tensor? max=None) -> Tensor", _ct,
                 {**_clamp_self, "min": _clamp_bw_min, "max": _clamp_bw_max}, out_overload="Tensor_out")  # fmt: skip


_CLAMP_SIGS = ("but expected one of:\n * (Tensor input, Tensor min = None, Tensor max = None, *, Tensor out = None)\n"
               " * (Tensor input, Number min = None, Number max = None, *, Tensor out = None)\n")  # fmt: skip


def _pick_clamp(v):
    a, b = v[1], v[2]
    ta, tb = isinstance(a, Tensor), isinstance(b, Tensor)
    if ta != tb and (a if tb else b) is not None:
        # PyTorch's parser: a Tensor bound with a number matches only the Scalar overload, which
        # takes a 0-d tensor that needs no grad as a number
        t = a if ta else b
        if t._data.ndim or t.requires_grad:
            got = ", ".join(type(x).__name__ if not isinstance(x, Tensor) else "Tensor" for x in v[:3])
            raise TypeError(f"clamp() received an invalid combination of arguments - got ({got}), {_CLAMP_SIGS}")
        v = [v[0], t.item() if ta else a, b if ta else t.item(), *v[3:]]
        return _CLAMP_S, v
    return (_CLAMP_T if ta or tb else _CLAMP_S), v


_ALL["clamp"] = {"T": _CLAMP_T, "S": _CLAMP_S}
_publish(("clamp", "clip"), _pick_clamp, _CLAMP_T["functional"])
_BOUND_BW = {
    "min": ({"self": numpy_first(bound_keep("ge"))(lambda grad, self, min: _where(_cmp("ge", self, min), grad, 0.0))},
            {"min": numpy_first(bound_keep("lt"))(lambda grad, self, min: _where(_cmp("lt", self, min), grad, 0.0))}),
    "max": ({"self": numpy_first(bound_keep("le"))(lambda grad, self, max: _where(_cmp("le", self, max), grad, 0.0))},
            {"max": numpy_first(bound_keep("gt"))(lambda grad, self, max: _where(_cmp("gt", self, max), grad, 0.0))}),
}  # fmt: skip
for _b, _s, _e in (("min", _cmin_s, "maximum"), ("max", _cmax_s, "minimum")):
    _keep, _lose = _BOUND_BW[_b]
    _t = Elementwise(f"clamp_{_b}", ["self", _b], f"{_e}(self, {_b})", allow="bif", kname=f"{_e}_cpu")
    _Sd = _decl(f"clamp_{_b}(Tensor self, Scalar {_b}) -> Tensor", scalar_bound(_s), _keep)
    _Td = _decl(f"clamp_{_b}.Tensor(Tensor self, Tensor {_b}) -> Tensor", _t, {**_keep, **_lose}, out_overload="Tensor_out")
    _register(f"clamp_{_b}", _Td, _Sd)


# ---- lerp, addcmul, addcdiv ------------------------------------------------------------------------
_LERP_X = {"f": "lerp(self, end, weight, half, one)", "c": "self + weight * (end - self)"}
_LERP_S = _decl("lerp.Scalar(Tensor self, Tensor end, Scalar weight) -> Tensor",
                Elementwise("lerp", ["self", "end"], _LERP_X, ["weight"], allow="fc", kname="lerp_kernel_scalar",
                            kparams=["weight", "half", "one"], early=lerp_check, prep=lerp_params),
                {"self": lambda grad, weight: _mul(grad, 1 - weight), "end": lambda grad, weight: _mul(grad, weight)})  # fmt: skip
_LERP_T = _decl("lerp.Tensor(Tensor self, Tensor end, Tensor weight) -> Tensor",
                Elementwise("lerp", ["self", "end", "weight"], _LERP_X, allow="fc", kname="lerp_kernel_tensor",
                            kparams=["half", "one"], early=lerp_check, prep=lerp_params, strict_out=lerp_strict_out),
                {"self": lambda grad, weight: _mul(grad, _sub(1, weight)), "end": lambda grad, weight: _mul(grad, weight),
                 "weight": lambda grad, self, end: _mul(grad, _sub(end, self))}, out_overload="Tensor_out")  # fmt: skip
_ALL["lerp"] = {"T": _LERP_T, "S": _LERP_S}
_publish("lerp", lambda v: (_LERP_T if isinstance(v[2], Tensor) else _LERP_S, v), _LERP_T["functional"])
_ADDC = "(Tensor self, Tensor tensor1, Tensor tensor2, *, Scalar value=1) -> Tensor"
_register("addcmul", _decl("addcmul" + _ADDC, Elementwise("addcmul", ["self", "tensor1", "tensor2"], "self + value * tensor1 * tensor2",
                                                          ["value"], allow="ifc", kname="addcmul_cpu_out", prep=value_param),
                           {"self": lambda grad: grad, "tensor1": lambda grad, tensor2, value: _mul(_mul(grad, tensor2), value),
                            "tensor2": lambda grad, tensor1, value: _mul(_mul(grad, tensor1), value)}))  # fmt: skip
_register("addcdiv", _decl("addcdiv" + _ADDC, Elementwise("addcdiv", ["self", "tensor1", "tensor2"], "self + np.divide(value * tensor1, tensor2)",
                                                          ["value"], prep=addcdiv_check),
                           {"self": lambda grad: grad, "tensor1": lambda grad, tensor2, value: _div(_mul(grad, value), tensor2),
                            "tensor2": lambda grad, tensor1, tensor2, value: _neg(_div(_mul(_mul(grad, value), tensor1),
                                                                                     _mul(tensor2, tensor2)))}))  # fmt: skip


# ---- Tensor operator dunders --------------------------------------------------------------------
def _dunder(name, target, swap=False, inplace=False):
    """``Tensor.<name>`` -> the op PyTorch's dunder calls; a TypeError (an unsupported operand)
    becomes NotImplemented so Python tries the reflected operator, as torch.Tensor does."""
    pick = _ALL[target]["pick"]

    def body(self, other):
        try:
            ops, v = pick([other, self] if swap else [self, other])
            op = ops["inplace" if inplace else "functional"]
            return op.fast(*_fill(op, v))  # dispatch(op, ...), one frame less
        except TypeError:
            return NotImplemented

    fast = None  # Note [Binding fast call]: two plain Tensors pick the .Tensor overload
    if not swap and "T" in _ALL[target] and pick.__qualname__.startswith("_pick_ts."):
        op = _ALL[target]["T"]["inplace" if inplace else "functional"]
        sop = (pick.scalars or pick.tensors)["inplace" if inplace else "functional"]  # a float other
        fast = (op, ("self", "other", *_fill(op, [0, 0])[2:]), "", True, (sop, ("self", "other", *_fill(sop, [0, 0])[2:])))
    public(name, "self, other", body, relevant=("self", "other"), module="Tensor", doc=f"``{name}``: see ``{target}``.",
           fast=fast)  # fmt: skip


for _names, _t in ((("__add__", "__radd__"), "add"), (("__sub__",), "sub"), (("__rsub__",), "rsub"),
                   (("__mul__", "__rmul__"), "mul"), (("__truediv__", "__div__"), "div"), (("__floordiv__",), "floor_divide"),
                   (("__mod__",), "remainder"), (("__pow__",), "pow"), (("__eq__",), "eq"), (("__ne__",), "ne"),
                   (("__lt__",), "lt"), (("__le__",), "le"), (("__gt__",), "gt"), (("__ge__",), "ge"),
                   (("__and__", "__rand__"), "bitwise_and"), (("__or__", "__ror__"), "bitwise_or"),
                   (("__xor__", "__rxor__"), "bitwise_xor"), (("__lshift__",), "__lshift__"), (("__rshift__",), "__rshift__")):  # fmt: skip
    for _n in _names:
        _dunder(_n, _t)
for _n, _t in (("__rfloordiv__", "floor_divide"), ("__rmod__", "remainder"), ("__rpow__", "pow"),
               ("__rlshift__", "bitwise_left_shift"), ("__rrshift__", "bitwise_right_shift")):  # fmt: skip
    _dunder(_n, _t, swap=True)
for _n, _t in (("__iadd__", "add"), ("__isub__", "sub"), ("__imul__", "mul"), ("__itruediv__", "div"), ("__idiv__", "div"),
               ("__ifloordiv__", "floor_divide"), ("__imod__", "remainder"), ("__ipow__", "pow"), ("__iand__", "bitwise_and"),
               ("__ior__", "bitwise_or"), ("__ixor__", "bitwise_xor"), ("__ilshift__", "bitwise_left_shift"),
               ("__irshift__", "bitwise_right_shift")):  # fmt: skip
    _dunder(_n, _t, inplace=True)


def _rtruediv(self, other):
    # PyTorch: other / self == self.reciprocal() * other
    try:
        return _mul(_u("reciprocal", self), other if isinstance(other, Tensor) else number(other, _MUL_EW, 1))
    except TypeError:
        return NotImplemented


def _invert(self):
    if self._dtype.category > D._INT:
        raise TypeError("~ (operator.invert) is only implemented on integer and Boolean-type tensors")
    return _u("bitwise_not", self)


public("__rtruediv__", "self, other", _rtruediv, relevant=("self", "other"), module="Tensor", doc="``other / self``.")
public("__rdiv__", "self, other", _rtruediv, relevant=("self", "other"), module="Tensor", doc="``other / self``.")
for _n, _fn in (("__neg__", lambda self: _neg(self)), ("__abs__", lambda self: _u("abs", self)),
                ("__pos__", lambda self: dispatch(_ALL["positive"]["T"]["functional"], [self])), ("__invert__", _invert)):  # fmt: skip
    public(_n, "self", _fn, relevant=("self",), module="Tensor", doc=f"``{_n}``.")
# fmt: on
