"""More elementwise math (erfc, deg2rad, rad2deg, copysign, logaddexp2), declared with the
helpers of ``pointwise.py``, which is at its size cap."""

from __future__ import annotations

import math

import numpy as np

from ... import _dtype as D
from ..._dispatch import dispatch
from ..._conj import mark as _conj_mark
from ..._device import CPU
from ..._state import STATE
from ..._tensor import Tensor, _make, _view, check_inference_write
from ._elementwise import Elementwise
from ._math_grad import erf_self, logaddexp_part, sinc_self
from ._select_grad import copysign_self, numpy_first
from ._select_grad import times_zero as _times_zero
from .._fast_guard import free
from .._quiet import IGNORE as _IGNORE
from .._quiet import quiet as _quiet
from .._quiet import restore as _restore
from ...kernels import PARALLEL_THRESHOLD
from .._pointwise import Pointwise, _cname, defpointwise
from .._registry import OPS, defop, public, schema_sig
from .core import (
    _ALL,
    _T2,
    _add,
    _binary,
    _cmp,
    _decl,
    _div,
    _fast_args,
    _fl,
    _mul,
    _neg,
    _no_derivative,
    _or,
    _register,
    _sub,
    _u,
    _where,
)

# fmt: off
_fl("erfc", "math.erfc(self)",
    numpy_first(erf_self(lambda x: _u("exp", x), -2 / math.sqrt(math.pi)), raw=True)(
        lambda grad, self: _mul(grad, _mul(_u("exp", _neg(_mul(self, self))), -2 / math.sqrt(math.pi)))),
    allow="bif", kname="erfc_vml_cpu")


def _scaled_by(k):
    return lambda grad: _mul(grad, k)


for _n, _k in (("deg2rad", math.pi / 180), ("rad2deg", 180 / math.pi)):
    _fl(_n, f"self * {_k!r}", _scaled_by(_k), allow="bif",
        errors={"c": (RuntimeError, f"{_n} is not supported for complex tensors.")})


@numpy_first(copysign_self)
def _copysign_bw_self(grad, self, result):
    # PyTorch's copysign_tensor_self_backward: grad * result / self, zero where self == 0
    return _where(_cmp("eq", self, 0), 0.0, _mul(grad, _div(result, self)))


_binary("copysign", Elementwise("copysign", _T2, "np.copysign(self, other)", rule="float", allow="bif"),
        {"self": _copysign_bw_self, "other": numpy_first(_times_zero)(lambda grad: _mul(grad, 0.0))})  # zero, kept on the graph for double backward


def _logaddexp2_bw(key):
    @numpy_first(logaddexp_part(lambda x: _u("exp2", x), key), raw=True)  # Note [Arithmetic of formulas in NumPy]
    def bw(grad, self, other):
        a, b = (other, self) if key == "self" else (self, other)
        return _div(grad, _add(_u("exp2", _sub(a, b)), 1))

    return bw


# PyTorch's logaddexp2 kernel: m + log1p(exp2(-|a - b|)) / ln 2 with m = max(a, b), in self's own
# type (a bare float constant is a float64 in Numba and made float32 compute in float64); equal
# infinities return themselves, a NaN operand NaN
_M2 = "(self if self >= other else other)"
_LAE2 = (f"({_M2} + np.log1p(np.exp2(-abs(self - other))) * type(self)(1.4426950408889634)) "
         f"if ({_M2} == {_M2} and not (self == other and self - self != self - self)) "
         "else (self if self == other else self + other)")
_binary("logaddexp2", Elementwise("logaddexp2", _T2, _LAE2, allow="f"),
        {"self": _logaddexp2_bw("self"), "other": _logaddexp2_bw("other")}, S=None, t="", ov={"T": {"inplace": False}},
        second_tensor=True, inplace=False)
# fmt: on



# ---- logit, sinc, heaviside ------------------------------------------------------------------------
_LOGIT_X = ("np.log(clamp(self, eps, type(self)(1) - eps) / (type(self)(1) - clamp(self, eps, type(self)(1) - eps))) "
            "if eps >= 0 else np.log(self / (type(self)(1) - self))")  # fmt: skip  (typed: a bare 1 made float32 compute in float64)


def _outside(self, eps, value):
    # NaN outside [0, 1] (eps None), zero outside [eps, 1 - eps]: as PyTorch's logit_backward
    lo, hi = (0.0, 1.0) if eps is None else (eps, 1.0 - eps)
    return _where(_or(_cmp("lt", self, lo), _cmp("gt", self, hi)), math.nan if eps is None else 0.0, value)


def _logit_bw_bw_self(grad, grad_output, self, eps):
    # d/dx of g / (x (1 - x)): g (2x - 1) / (x (1 - x))^2, with the first derivative's fill outside
    d = _mul(self, _sub(1, self))
    return _outside(self, eps, _div(_mul(_mul(grad, grad_output), _sub(_mul(self, 2), 1)), _mul(d, d)))


# Note [Fused logit backward]: PyTorch's logit_backward as one generated kernel (the composite
# where(x < lo | x > hi, fill, g / (x * (1 - x))) ran six ops); eps None reaches it as -1
logit_backward = defpointwise(
    "logit_backward(Tensor grad_output, Tensor self, float? eps=None) -> Tensor",
    Pointwise("logit_backward", ["grad_output", "self"],
              "(grad_output / (self * (type(self)(1) - self)) if type(self)(0) <= self <= type(self)(1) "
              "else type(self)(math.nan)) if eps < 0 else (grad_output / (self * (type(self)(1) - self)) "
              "if eps <= self <= type(self)(1) - eps else type(self)(0))", ["eps"], rule="float", allow="float"),
    backward={"grad_output": lambda grad, self, eps: _logit_bw(grad, self, eps),
              "self": _logit_bw_bw_self},
    inplace=False, out=False, function=False, method=False, holomorphic=False,
)["functional"]  # fmt: skip


def _logit_bw(grad, self, eps):
    return dispatch(logit_backward, [grad, self, -1.0 if eps is None else eps])


_LOGIT = _decl("logit(Tensor self, float? eps=None) -> Tensor",
               Elementwise("logit", ["self"], _LOGIT_X, ["eps"], rule="float", allow="bif",
                           prep=lambda c, o, p: [-1.0 if p[0] is None else float(p[0])]),
               {"self": _logit_bw})  # fmt: skip
_register("logit", _LOGIT, fsig="input, eps=None, *, out=None", msig="self, eps=None")


@numpy_first(sinc_self(lambda x: _u("sin", x), lambda x: _u("cos", x)), raw=True)
def _sinc_bw(grad, self):
    px = _mul(self, math.pi)
    d = _div(_sub(_mul(px, _u("cos", px)), _u("sin", px)), _mul(px, self))
    return _mul(grad, _where(_cmp("eq", self, 0), 0.0, d))


_fl("sinc", {"bif": "sinc_real(self)",
            "c": "1.0 if self == 0 else np.divide(csin99(self * np.pi), self * np.pi)"}, _sinc_bw)


def _heaviside_check(operands):
    a, b = operands
    if isinstance(a, Tensor) and isinstance(b, Tensor):
        if a._dtype.category == D._COMPLEX or b._dtype.category == D._COMPLEX:
            raise RuntimeError("heaviside is not yet implemented for complex tensors.")
        if a._dtype is not b._dtype:
            raise RuntimeError("heaviside is not yet implemented for tensors with different dtypes.")


_binary("heaviside", Elementwise("heaviside", _T2, "other if self == 0 else (self > 0)", allow="bif", early=_heaviside_check),
        {"self": _no_derivative("heaviside"), "other": _no_derivative("heaviside")}, S=None, t="", second_tensor=True)


# ---- float_power: pow in double (complex double), as at::float_power ------------------------------------
def _fp_dtype(*xs):
    cplx = any((x._dtype.category == D._COMPLEX) if isinstance(x, Tensor) else isinstance(x, complex) for x in xs)
    return D.complex128 if cplx else D.float64


_PLAIN_CAST = (D.float32, D.float16, D.int64, D.int32, D.int16, D.int8, D.uint8, D.bool)


def _fp_cast(x, dt):
    # to(dt) of an operand; a plain CPU tensor that nothing records or watches (no mode, no
    # forward-AD level, no grad) is cast by NumPy, which gives to()'s values without its
    # dispatch (2 us of ldexp's and float_power's small calls)
    if not isinstance(x, Tensor) or x._dtype is dt:
        return x
    S = STATE
    if (dt is not D.float64 or x._dtype not in _PLAIN_CAST or S.td_modes or S.fw_level >= 0
            or x.__class__ is not Tensor or x._device is not CPU or S.grad_enabled and x._rg):  # fmt: skip
        return x.to(dt)
    return _make(x._data.astype(np.float64), dt)


def _float_power(self, exponent):
    dt = _fp_dtype(self, exponent)
    base = _fp_cast(self, dt) if isinstance(self, Tensor) else _make(np.array(self, dt.np), dt)
    return base.pow(_fp_cast(exponent, dt))


def _float_power_(self, exponent):
    dt = _fp_dtype(self, exponent)
    if self._dtype is not dt:
        raise RuntimeError(f"the base given to float_power_ has dtype {_cname(self._dtype)} but the operation's "
                           f"result requires dtype {_cname(dt)}")  # fmt: skip
    return self.pow_(_fp_cast(exponent, dt))


def _float_power_out(self, exponent, out):
    dt = _fp_dtype(self, exponent)
    if out._dtype is not dt:
        raise RuntimeError(f"the output given to float_power has dtype {_cname(out._dtype)} but the operation's "
                           f"result requires dtype {_cname(dt)}")  # fmt: skip
    return dispatch(OPS["aten::pow.Tensor_Tensor_out"] if isinstance(exponent, Tensor) else OPS["aten::pow.Tensor_Scalar_out"],
                    [_fp_cast(self, _fp_dtype(self, exponent)), _fp_cast(exponent, _fp_dtype(self, exponent)), out])


def _fp_ops(ov, a, b, inplace=True):
    sch = f"({a} self, {b} exponent)"
    r = {"functional": defop(f"float_power.{ov}{sch} -> Tensor", composite=_float_power),
         "out": defop(f"float_power.{ov}_out{sch[:-1]}, *, Tensor(a!) out) -> Tensor(a!)", composite=_float_power_out)}
    if inplace:
        r["inplace"] = defop(f"float_power_.{'Tensor' if b == 'Tensor' else 'Scalar'}(Tensor(a!) self, {b} exponent) -> Tensor(a!)",
                             composite=_float_power_)  # fmt: skip
    return r


_register("float_power", _fp_ops("Tensor_Tensor", "Tensor", "Tensor"), _fp_ops("Tensor_Scalar", "Tensor", "Scalar"),
          _fp_ops("Scalar", "Scalar", "Tensor", inplace=False), first_number=True)



# ---- conj: a lazily conjugated view of a complex tensor (Note [Conjugate views]); real tensors are
# returned as they are -------------------------------------------------------------------------------
# Note [conj_physical of a real tensor is itself]
# As ATen: conj_physical is CompositeImplicitAutograd, returning a real self as it is (no copy, no
# node, nothing a dispatch mode sees) and calling _conj_physical for complex input; out= and the
# in-place overload are kernels of their own. Formulas may call conj_physical on any gradient.
_CP_EW = Elementwise("conj_physical", ["self"], {"bif": "self", "c": "np.conj(self)"}, strict_out=True)
_CP_BW = {"self": lambda grad: _u("conj_physical", grad)}
_CPP = _decl("_conj_physical(Tensor self) -> Tensor", _CP_EW, _CP_BW, inplace=False, holomorphic=False)["functional"]
_CP = _register("conj_physical", _decl("conj_physical(Tensor self) -> Tensor", _CP_EW, _CP_BW, holomorphic=False,
                                       composite=lambda self: _CPP.fast(self) if self._dtype.is_complex else self))  # fmt: skip


def _conj_physical_inplace(self, _engine=_CP["inplace"].impls["cpu"]):
    # ATen's conj_physical_ returns a real self before any check, so an expanded real self is
    # accepted; only complex input reaches the engine's written-to-memory checks. The
    # ADInplaceOrView layer above the kernel still runs: the inference check and the version bump
    if self._dtype.is_complex:
        return _engine(self)
    check_inference_write(self)
    self._vc[0] += 1
    return self


_CP["inplace"].impls["cpu"] = _conj_physical_inplace


def _conj_view(self):
    if self._device.type == "cuda":  # a CUDA view with the bit, as PyTorch's (Note [Conjugate views])
        return _conj_mark(_view(self, self._data.alias()), not self._is_conj)
    if self._device.type != "cpu":  # other backends keep no conjugate bit: a copy, as conj_physical
        return _make(np.conj(self._data), self._dtype, Tensor, self._device)
    return _conj_mark(_view(self, self._data.view()), not self._is_conj)


_CONJ_VIEW = defop("_conj(Tensor(a) self) -> Tensor(a)", cpu=_conj_view, any_device=_conj_view,
                   backward={"self": lambda grad: _u("conj_physical", grad)}, node_name="ConjBackward0")  # fmt: skip
_CONJ = defop("conj(Tensor(a) self) -> Tensor(a)",
              composite=lambda self: dispatch(_CONJ_VIEW, [self]) if self._dtype.category == D._COMPLEX else self)  # fmt: skip
# the values of a conjugate view in memory of their own: conj_physical of the unconjugated alias
_RESOLVE = defop("resolve_conj(Tensor(a) self) -> Tensor(a)",
                 composite=lambda self: _u("conj_physical", dispatch(_CONJ_VIEW, [self])) if self._is_conj else self)  # fmt: skip


def _conj(input):
    """The complex conjugate, a view sharing ``input``'s memory; a real tensor is returned as it is.

    >>> numtorch.conj(numtorch.tensor([1 + 2j]))
    tensor([1.-2.j])
    """
    return dispatch(_CONJ, [input])


def _resolve_conj(input):
    """A conjugate view's values in memory of their own; any other tensor as it is.

    >>> numtorch.tensor([1 + 2j]).conj().resolve_conj().is_conj()
    False
    """
    return dispatch(_RESOLVE, [input])


for _n, _b, _o in (("conj", _conj, _CONJ), ("resolve_conj", _resolve_conj, _RESOLVE)):
    public(_n, "input", _b, ops=(_o,))
    public(_n, "self", _b, relevant=("self",), module="Tensor", ops=(_o,))
public("is_conj", "self", lambda self: self._is_conj, relevant=("self",), module="Tensor",
       doc="Whether ``self`` is a lazily conjugated view (Note [Conjugate views]).\n\n    >>> numtorch.tensor([1j]).conj().is_conj()\n    True\n    ")



# ---- gcd, lcm, ldexp, isreal, dist --------------------------------------------------------------------
# lcm is ATen's abs(a / gcd * b) (kernels/cpu/pointwise/scalar.py), not NumPy's |a| / gcd * |b|:
# lcm(int32 -2147483647, 2147483646) gave -2147483646 where torch gives 2147483646
for _n, _e in (("gcd", "np.gcd(self, other)"), ("lcm", "lcm_aten(self, other)")):
    _binary(_n, Elementwise(_n, _T2, _e, allow="i"), S=None, t="", second_tensor=True)


def _pow2(other, self=None):
    # 2 ** other in double precision (complex128 for a complex exponent): at::ldexp computes
    # in a wide type, so ldexp(float16 0, 200) is 0, not 0 * inf. Its exponent kernel has no
    # bool: every form (functional, in place, out=) reaches it for a real floating self only (of
    # any size; an integer, bool or complex self takes another route in torch 2.13; fuzz seed 97).
    if other._dtype is D.bool and (self is None or self._dtype.category == D._FLOAT):
        raise NotImplementedError("\"ldexp_cpu_exp\" not implemented for 'Bool'")
    # A real exponent takes exp2's float64 kernel (vectorised; exact at integers as pow, within
    # a float64 ulp elsewhere): pow's per-element libm call made ldexp 5x torch's time.
    if other._dtype.category == D._COMPLEX:
        return dispatch(_ALL["pow"]["F"]["functional"], [2.0, other.to(D.complex128)])
    return _u("exp2", _fp_cast(other, D.float64))


def _ldexp_dtype(self, other):
    # PyTorch's result type: the promoted type, integers and bools to the default float.
    rd = D.promote_types(self._dtype, other._dtype)
    return rd if rd.category >= D._FLOAT else D.get_default_dtype()


# Note [ldexp without the composite's ops]
# ldexp is a composite (pow, mul, and two casts): 38 us on a small input where PyTorch takes
# 3.6. When nothing records or watches (plain CPU tensors, no grad, mode or forward-AD level),
# a float32/float64 self with a real exponent takes 2 ** other from the pow op (in double, as
# the composite) and the product and its one rounding to the result dtype from NumPy.
_LDEXP_SELF = (D.float32, D.float64)
_LDEXP_EXP = (D.float32, D.float64, D.int64, D.int32, D.int16, D.int8, D.uint8)
_F64 = np.dtype(np.float64)


def _ldexp_arrays(self, other):
    S = STATE
    if (S.td_modes or S.fw_level >= 0 or self.__class__ is not Tensor or other.__class__ is not Tensor
            or self._device is not CPU or other._device is not CPU or self._dtype not in _LDEXP_SELF
            or other._dtype not in _LDEXP_EXP or self._data.shape != other._data.shape
            or S.grad_enabled and (self._rg or other._rg)):  # fmt: skip
        return None
    rd = _ldexp_dtype(self, other)
    q = _quiet(_IGNORE)
    try:
        p = _exp2_f64(other._data)
        if p is None:
            p = _pow2(other, self)._data  # the exp2 kernel's values, bit for bit the composite's
        # both operands cast exactly, the one product rounded in double as the composite's mul
        x = self._data.astype(np.float64)
        np.multiply(x, p, out=x)
        return _make(x if rd is D.float64 else x.astype(rd.np), rd)
    finally:
        _restore(q)


def _exp2_f64(e):
    """exp2's float64 kernel entry (Note [Compiled kernel entry]) on ``e`` cast to double, as
    _pow2's dispatch runs it below the parallel size; None where that entry is not learned yet
    or a kernel was registered over exp2's."""
    op = _ALL["exp2"]["T"]["functional"]
    impl = op.impls.get("cpu")
    ew = getattr(impl, "__self__", None)
    ent = ew._entry.get(D.float64) if ew.__class__ is Elementwise and "composite" not in op.impls else None
    if ent is None or e.size >= PARALLEL_THRESHOLD or ent[2] is not _F64:
        return None
    # (a separate output, as the dispatched call's: over its own input the loop is not vectorised)
    e = e.astype(np.float64)
    r = np.empty(e.shape, np.float64)
    ent[0](e.ravel(), r.ravel())
    return r


def _ldexp(self, other):
    # at::ldexp: self * 2 ** other, in floating point
    r = _ldexp_arrays(self, other)
    if r is not None:
        return r
    return _mul(self, _pow2(other, self)).to(_ldexp_dtype(self, other))


def _ldexp_(self, other):
    if self._dtype.category < D._FLOAT:  # torch 2.13's own check, before the exponent's
        raise RuntimeError(f"ldexp can't be cast to the desired output type {_cname(self._dtype)}")
    return self.mul_(_pow2(other, self))  # in place, torch computes 2 ** other even for an empty self


def _ldexp_out(self, other, out):
    return dispatch(_ALL["mul"]["T"]["out"], [self, _pow2(other, self), out])


# Note [ldexp's own node]
# PyTorch's ldexp.Tensor is CompositeExplicitAutograd with its own formulas (LdexpBackward0:
# grad * pow(2, other).conj() and grad * result.conj() * ln 2); recording the composite cost
# ten ops each way (two _to_copy, exp2, mul, their backwards). The composite is its kernel, run
# below autograd, where the array route serves a recorded call too. One difference: an integer
# exponent's factor is the composite's float64 2 ** other, not PyTorch's integer pow (0 for a
# negative exponent: torch 2.13 gives ldexp(x, -2)'s gradient as 0).
def _ldexp_self_grad(grad, other):
    # an integer exponent takes 2 ** other in double (the composite's exact factor): PyTorch's
    # pow(2, other) is an integer power there, 0 for every negative exponent
    if other._dtype.category < D._FLOAT:
        return _mul(grad, _pow2(other))
    p = dispatch(_ALL["pow"]["F"]["functional"], [2, other])
    return _mul(grad, p.conj() if p._dtype.is_complex else p)


def _ldexp_other_grad(grad, result):
    return _mul(_mul(grad, result.conj() if result._dtype.is_complex else result), _LN2)


_LN2 = math.log(2.0)  # M_LN2


_register("ldexp", {"functional": defop("ldexp.Tensor(Tensor self, Tensor other) -> Tensor", cpu=_ldexp, any_device=_ldexp,
                                        backward={"other": _ldexp_other_grad, "self": _ldexp_self_grad}),
                    "out": defop("ldexp.out(Tensor self, Tensor other, *, Tensor(a!) out) -> Tensor(a!)", composite=_ldexp_out),
                    "inplace": defop("ldexp_(Tensor(a!) self, Tensor other) -> Tensor(a!)", composite=_ldexp_)},
          second_tensor=True)  # fmt: skip


# Note [Plain isreal]
# isreal of a real tensor is ones_like(self, dtype=bool) (ATen's composite): 2.7 us through the
# factory op where PyTorch takes 1.2. For a plain C-contiguous CPU Tensor with nothing to see
# the decomposition (no dispatch mode, forward-AD level or autocast region) that is a new
# C-contiguous bool array of ones, as ones_like's own result.
def _isreal(self):
    if self._dtype.category != D._COMPLEX:  # at::isreal: ones_like(self, kBool)
        d = self._data
        if self.__class__ is Tensor and self._device is CPU and d.flags.c_contiguous and free():
            r = np.empty(d.shape, np.bool_)
            r.fill(True)
            return _make(r, D.bool)
        return dispatch(OPS["aten::ones_like"], [self, D.bool, None, None, None, None])
    return _cmp("eq", self.imag, 0)


_register("isreal", {"functional": defop("isreal(Tensor self) -> Tensor", composite=_isreal)}, inplace=False, out=False,
          method=False)  # fmt: skip


def _dist(self, other, p=2):
    d = _sub(self, other)  # PyTorch's norm(self - other): the difference's promoted dtype is checked
    if d._dtype.category < D._FLOAT:
        raise RuntimeError(f"norm(): input dtype should be either floating point or complex. Got {_cname(d._dtype)} instead.")
    return dispatch(OPS["aten::linalg_vector_norm"], [d, p, None, False, None])


_register("dist", {"functional": defop("dist(Tensor self, Tensor other, Scalar p=2) -> Tensor", composite=_dist)},
          inplace=False, out=False, second_tensor=True)  # fmt: skip


# ---- torch.special aliases of the unary ops: the same op, one more public name -------------------
def _special_alias(name: str, target: str, shows: str) -> None:
    info = _ALL[target]
    pick, op = info["pick"], info["op"]
    sig, rel, _ = schema_sig(op, method=False, out=True)

    def body(*v):
        o, v = v[-1], list(v[:-1])
        ops, v = pick(v)
        return dispatch(ops["functional"], v) if o is None else dispatch(ops["out"], v + [o])

    doc = (f"``torch.special.{name}``: the same op as ``numtorch.{target}``.\n\n"
           f"    >>> numtorch.special.{name}(numtorch.tensor([0.5, 2.0]))\n    {shows}\n    ")
    # Note [Binding fast call]: plain Tensors call the target's functional op as torch.<target>
    # does (0.4 us of the body's pick per call)
    public(name, sig, body, relevant=rel, module="torch.special", doc=doc, ops=(op,),
           fast=_fast_args(pick, "functional", sig, "input"))


for _n, _t, _shows in (("erf", "erf", "tensor([0.5205, 0.9953])"), ("erfc", "erfc", "tensor([0.4795, 0.0047])"),
                       ("exp2", "exp2", "tensor([1.4142, 4.0000])"), ("expm1", "expm1", "tensor([0.6487, 6.3891])"),
                       ("log1p", "log1p", "tensor([0.4055, 1.0986])"), ("expit", "sigmoid", "tensor([0.6225, 0.8808])")):  # fmt: skip
    _special_alias(_n, _t, _shows)
