"""The rest of ``torch.special``: modified Bessel functions, the normal distribution's
functions, entr, erfcx, xlog1py, zeta, the incomplete gamma functions and the multivariate
log-gamma. Scalar kernels: ``kernels/cpu/pointwise/{bessel,gauss}.py``.

ATen names the special-only ops ``special_<name>`` (``aten::special_i0e``); ``i0``, ``igamma``,
``igammac`` and ``mvlgamma`` are also ``torch.<name>`` functions and Tensor methods. The
Bessel functions PyTorch declares without a derivative give results that do not require grad,
as there.
"""

from __future__ import annotations

import math

from ..._dispatch import dispatch
from ..._tensor import Tensor
from .._registry import defop, public
from ._elementwise import EXAMPLES, Elementwise
from ._math_grad import i1_self, i1e_self
from ._select_grad import numpy_first
from .core import _ALL, _T2, _add, _cmp, _decl, _div, _fast_args, _mul, _neg, _pick_ts, _publish, _sub, _u, _where

_SQRT_2PI = math.sqrt(2 * math.pi)


def _f(name, kind="T"):
    return _ALL[name][kind]["functional"]


def _call(name, *v):
    return dispatch(_f(name), list(v))


def _doc(name, text, example, shows):
    return f"{text}, as ``torch.special.{name}``.\n\n    >>> {example}\n    {shows}\n    "


def _special(name, ops, doc, *, sig="input, *, out=None", rel=("input",), pick=None, aten=None):
    pick = pick or _pick_ts(ops)
    _ALL.setdefault(name, {}).update(pick=pick, op=ops["functional"])

    def body(*v):
        o, v = v[-1], list(v[:-1])
        if not any(isinstance(a, Tensor) for a in v[: len(rel)]):
            raise TypeError(f"{aten or 'special_' + name}() received an invalid combination of arguments - "
                            f"got ({', '.join(type(a).__name__ for a in v)}), but expected a Tensor")  # fmt: skip
        chosen, v = pick(v)
        return dispatch(chosen["functional"], v) if o is None else dispatch(chosen["out"], v + [o])

    fast = _fast_args(pick, "functional", sig, "input")
    public(name, sig, body, relevant=rel, module="torch.special", doc=doc, ops=(ops["functional"],), fast=fast)


def _unary(name, expr, bw, example, shows, text, *, aten=None):
    aten = aten or f"special_{name}"
    ops = _decl(f"{aten}(Tensor self) -> Tensor", Elementwise(aten, ["self"], expr, rule="float", allow="bif"),
                None if bw is None else {"self": bw}, inplace=False)  # fmt: skip
    _ALL.setdefault(aten, {}).update(T=ops)
    _special(name, ops, _doc(name, text, example, shows))
    return ops


def _ex(name, shows, args="numtorch.tensor([0.5, 2.0])"):
    return f"numtorch.special.{name}({args})", shows


# ---- the modified Bessel functions --------------------------------------------------------------
@numpy_first(i1_self(lambda x: _call("i0", x)), raw=True)  # Note [Arithmetic of formulas in NumPy]
def _i1_over_x_d(grad, self, result):
    # d i1/dx = i0 - i1/x, 1/2 at 0
    d = _sub(_call("i0", self), _div(result, self))
    return _mul(grad, _where(_cmp("eq", self, 0.0), 0.5, d))


@numpy_first(i1e_self(lambda x: _call("special_i0e", x), lambda x: _u("sign", x)), raw=True)
def _i1e_d(grad, self, result):
    # d i1e/dx = i0e - i1e (sign(x) + 1/x), 1/2 at 0
    d = _sub(_call("special_i0e", self), _mul(result, _add(_u("sign", self), _u("reciprocal", self))))
    return _mul(grad, _where(_cmp("eq", self, 0.0), 0.5, d))


EXAMPLES.update({
    "i0": ("numtorch.i0(numtorch.tensor([0.5, 2.0]))", "tensor([1.0635, 2.2796])"),
    "igamma": ("numtorch.igamma(numtorch.tensor([1.0, 1.0]), numtorch.tensor([0.5, 2.0]))", "tensor([0.3935, 0.8647])"),
    "igammac": ("numtorch.igammac(numtorch.tensor([1.0, 1.0]), numtorch.tensor([0.5, 2.0]))", "tensor([0.6065, 0.1353])"),
})
_I0 = _decl("i0(Tensor self) -> Tensor", Elementwise("i0", ["self"], "bessel_i0(self)", rule="float", allow="bif"),
            {"self": lambda grad, self: _mul(grad, _call("special_i1", self))})  # fmt: skip
_ALL.setdefault("i0", {}).update(T=_I0)
_publish("i0", _pick_ts(_I0), _I0["functional"])
_special("i0", _I0, _doc("i0", "Modified Bessel function of the first kind of order 0", *_ex("i0", "tensor([1.0635, 2.2796])")))
_unary("i0e", "bessel_i0e(self)", lambda grad, self, result: _mul(grad, _sub(_call("special_i1e", self), _mul(_u("sign", self), result))),
       *_ex("i0e", "tensor([0.6450, 0.3085])"), "Exponentially scaled modified Bessel function of order 0: exp(-|x|) i0(x)")  # fmt: skip
_unary("i1", "bessel_i1(self)", _i1_over_x_d, *_ex("i1", "tensor([0.2579, 1.5906])"),
       "Modified Bessel function of the first kind of order 1")  # fmt: skip
_unary("i1e", "bessel_i1e(self)", _i1e_d, *_ex("i1e", "tensor([0.1564, 0.2153])"),
       "Exponentially scaled modified Bessel function of order 1: exp(-|x|) i1(x)")  # fmt: skip
for _n, _e, _show, _what in (
    ("modified_bessel_i0", "bessel_i0(self)", "tensor([1.0635, 2.2796])", "Modified Bessel function of the first kind of order 0"),
    ("modified_bessel_i1", "bessel_i1(self)", "tensor([0.2579, 1.5906])", "Modified Bessel function of the first kind of order 1"),
    ("modified_bessel_k0", "bessel_k0(self)", "tensor([0.9244, 0.1139])", "Modified Bessel function of the second kind of order 0"),
    ("modified_bessel_k1", "bessel_k1(self)", "tensor([1.6564, 0.1399])", "Modified Bessel function of the second kind of order 1"),
    ("scaled_modified_bessel_k0", "bessel_k0e(self)", "tensor([1.5241, 0.8416])", "exp(x) modified_bessel_k0(x)"),
    ("scaled_modified_bessel_k1", "bessel_k1e(self)", "tensor([2.7310, 1.0335])", "exp(x) modified_bessel_k1(x)"),
    ("spherical_bessel_j0", "spherical_j0(self)", "tensor([0.9589, 0.4546])", "Spherical Bessel function of the first kind of order 0: sin(x) / x"),
    ("bessel_j0", "bessel_j0(self)", "tensor([0.9385, 0.2239])", "Bessel function of the first kind of order 0"),
    ("bessel_j1", "bessel_j1(self)", "tensor([0.2423, 0.5767])", "Bessel function of the first kind of order 1"),
    ("bessel_y0", "bessel_y0(self)", "tensor([-0.4445,  0.5104])", "Bessel function of the second kind of order 0"),
    ("bessel_y1", "bessel_y1(self)", "tensor([-1.4715, -0.1070])", "Bessel function of the second kind of order 1"),
    ("airy_ai", "airy_ai(self)", "tensor([0.2317, 0.0349])", "The Airy function Ai"),
):  # fmt: skip
    _unary(_n, _e, None, *_ex(_n, _show), _what)


# ---- the normal distribution, entr, erfcx ----------------------------------------------------------
def _normal_pdf(x):
    return _div(_u("exp", _mul(_mul(x, x), -0.5)), _SQRT_2PI)


_unary("ndtr", "ndtr(self)", lambda grad, self: _mul(grad, _normal_pdf(self)), *_ex("ndtr", "tensor([0.6915, 0.9772])"),
       "The standard normal distribution function")  # fmt: skip
_unary("ndtri", "ndtri(self)", lambda grad, result: _mul(grad, _mul(_u("exp", _mul(_mul(result, result), 0.5)), _SQRT_2PI)),
       *_ex("ndtri", "tensor([-0.8416,  0.6745])", "numtorch.tensor([0.2, 0.75])"),
       "The inverse of ndtr: the argument at which the standard normal distribution reaches p")  # fmt: skip
_unary("log_ndtr", "log_ndtr(self)",
       lambda grad, self, result: _mul(grad, _div(_u("exp", _sub(_mul(_mul(self, self), -0.5), result)), _SQRT_2PI)),
       *_ex("log_ndtr", "tensor([-0.3689, -0.0230])"), "The log of the standard normal distribution function")  # fmt: skip
_unary("entr", "entr(self)",
       lambda grad, self: _mul(grad, _neg(_add(_u("log", self), 1.0))),  # derivatives.yaml's: +inf at 0, as there
       *_ex("entr", "tensor([ 0.3466, -1.3863])"), "The entropy term -x log(x), 0 at 0 and -inf for x < 0")  # fmt: skip
_unary("erfcx", "erfcx(self)",
       lambda grad, self, result: _mul(grad, _sub(_mul(_mul(self, result), 2.0), 2 / math.sqrt(math.pi))),
       *_ex("erfcx", "tensor([0.6157, 0.2554])"), "The scaled complementary error function exp(x^2) erfc(x)")  # fmt: skip


# ---- binary: xlog1py, zeta, the incomplete gamma functions ------------------------------------------
def _binary(aten, expr, bw, *, scalars=True):
    ew = Elementwise(aten, _T2, expr, rule="float", allow="bif")
    T = _decl(f"{aten}(Tensor self, Tensor other) -> Tensor", ew, bw, inplace=False)
    if not scalars:
        return T, None, None
    keep = {k: v for k, v in (bw or {}).items()}
    S = _decl(f"{aten}.other_scalar(Tensor self, Scalar other) -> Tensor", ew, {k: v for k, v in keep.items() if k == "self"} or None,
              inplace=False, out_overload="other_scalar_out")  # fmt: skip
    F = _decl(f"{aten}.self_scalar(Scalar self, Tensor other) -> Tensor", ew, {k: v for k, v in keep.items() if k == "other"} or None,
              inplace=False, out_overload="self_scalar_out")  # fmt: skip
    return T, S, F


def _not_implemented(name):
    def bw(grad):
        raise NotImplementedError(f"the derivative for '{name}' is not implemented.")

    return bw


_XLOG1PY = _binary("special_xlog1py", "xlog1py(self, other)",
                   {"self": lambda grad, self, other: _mul(grad, _call("special_xlog1py", _cmp("ne", self, 0), other)),
                    "other": lambda grad, self, other: _div(_mul(grad, self), _add(other, 1.0))})  # fmt: skip
_ALL["special_xlog1py"] = {"T": _XLOG1PY[0], "S": _XLOG1PY[1], "F": _XLOG1PY[2]}
_special("xlog1py", _XLOG1PY[0], _doc("xlog1py", "x * log1p(y), 0 where x is 0 and y is not NaN",
                                      "numtorch.special.xlog1py(numtorch.tensor([0.0, 2.0]), numtorch.tensor([3.0, 1.0]))",
                                      "tensor([0.0000, 1.3863])"),
         sig="input, other, *, out=None", rel=("other", "input"), pick=_pick_ts(*_XLOG1PY))  # fmt: skip

_ZETA = _binary("special_zeta", "zeta(np.float64(self), np.float64(other))",
                {"self": _not_implemented("zeta"),
                 "other": lambda grad, self, other: _mul(grad, _neg(_mul(self, _call("special_zeta", _add(self, 1.0), other))))})  # fmt: skip
_ALL["special_zeta"] = {"T": _ZETA[0], "S": _ZETA[1], "F": _ZETA[2]}
_special("zeta", _ZETA[0], _doc("zeta", "The Hurwitz zeta function sum_k (k + q)^-x",
                                "numtorch.special.zeta(numtorch.tensor([2.0, 3.0]), 1.0)", "tensor([1.6449, 1.2021])"),
         sig="input, other, *, out=None", rel=("other", "input"), pick=_pick_ts(*_ZETA))  # fmt: skip


def _igamma_dx(sign):
    # d/dx P(a, x) = exp(-x) x^(a-1) / Gamma(a), computed in logs
    def bw(grad, self, other):
        lg = _sub(_sub(_call("xlogy", _sub(self, 1.0), other), other), _u("lgamma", self))
        return _mul(grad, _mul(_u("exp", lg), sign))

    return bw


for _n, _s, _fn, _show in (("igamma", 1.0, "gammainc", "tensor([0.3935, 0.8647])"), ("igammac", -1.0, "gammaincc", "tensor([0.6065, 0.1353])")):
    _ew = Elementwise(_n, _T2, f"{_fn}(self, other)", rule="float", allow="f")
    _ops = _decl(f"{_n}(Tensor self, Tensor other) -> Tensor", _ew,
                 {"self": _not_implemented(f"{_n}: input"), "other": _igamma_dx(_s)})  # fmt: skip
    _ALL.setdefault(_n, {}).update(T=_ops)
    _publish(_n, _pick_ts(_ops), _ops["functional"], second_tensor=True)
    _sp = {"functional": defop(f"special_{_fn}(Tensor self, Tensor other) -> Tensor", composite=lambda a, x, _o=_ops: dispatch(_o["functional"], [a, x])),
           "out": defop(f"special_{_fn}.out(Tensor self, Tensor other, *, Tensor(a!) out) -> Tensor(a!)",
                        composite=lambda a, x, out, _o=_ops: dispatch(_o["out"], [a, x, out]))}  # fmt: skip
    _special(_fn, _sp, _doc(_fn, f"The regularised {'lower' if _s > 0 else 'upper'} incomplete gamma function",
                            f"numtorch.special.{_fn}(numtorch.tensor([1.0, 1.0]), numtorch.tensor([0.5, 2.0]))", _show),
             sig="input, other, *, out=None", rel=("input", "other"))  # fmt: skip


# ---- mvlgamma: the multivariate log-gamma -----------------------------------------------------------
def _mvlgamma_check(p):
    if p < 1:
        raise RuntimeError("p has to be greater than or equal to 1")


def _mvlgamma(self, p):
    # sum_j lgamma(x - j/2) + p (p - 1) / 4 log(pi), one lgamma per j (differentiable through lgamma)
    _mvlgamma_check(p)
    # lgamma promotes integers to the default float, as PyTorch's mvlgamma does
    x = self
    acc = None
    for j in range(p):
        t = _u("lgamma", _sub(x, j / 2) if j else x)
        acc = t if acc is None else _add(acc, t)
    return _add(acc, p * (p - 1) / 4 * math.log(math.pi))


def _mvlgamma_bw(grad, self, p):
    # PyTorch's mvlgamma_backward: grad * sum_j digamma(x - j/2)
    acc = None
    for j in range(p):
        d = _u("digamma", _sub(self, j / 2) if j else self)
        acc = d if acc is None else _add(acc, d)
    return _mul(grad, acc)


# Note [mvlgamma's own node]
# PyTorch's mvlgamma is CompositeExplicitAutograd with MvlgammaBackward0; recording the
# composite cost 3p ops each way (p lgammas, their subs and adds, and their backwards: 2.0x
# PyTorch's fwd+bwd at p = 2). The composite is the kernel, run below autograd; the formula is
# mvlgamma_backward's, summed in the composite's order (j = 0 first: PyTorch sums its arange's
# row, j = p - 1 first, so a gradient may differ from PyTorch's in the last bit).
_MVL = defop("mvlgamma(Tensor self, int p) -> Tensor", cpu=_mvlgamma, any_device=_mvlgamma,
             backward={"self": _mvlgamma_bw})  # fmt: skip
_MVL_OUT = defop("mvlgamma.out(Tensor self, int p, *, Tensor(a!) out) -> Tensor(a!)",
                 composite=lambda self, p, out: out.copy_(dispatch(_MVL, [self, p])))  # fmt: skip
_MVL_ = defop("mvlgamma_(Tensor(a!) self, int p) -> Tensor(a!)", composite=lambda self, p: self.copy_(dispatch(_MVL, [self, p])))
_SP_MVL = defop("special_multigammaln(Tensor self, int p) -> Tensor", composite=lambda self, p: dispatch(_MVL, [self, p]))


def _mvlgamma_fn(input, p, out):
    """The multivariate log-gamma of dimension ``p``, elementwise, as ``torch.mvlgamma``.

    >>> numtorch.mvlgamma(numtorch.tensor([3.0]), 2)
    tensor([1.5502])
    """
    return dispatch(_MVL, [input, p]) if out is None else dispatch(_MVL_OUT, [input, p, out])


def _mvlgamma_method(self, p):
    """``mvlgamma(self, p)``.

    >>> numtorch.tensor([3.0]).mvlgamma(2)
    tensor([1.5502])
    """
    return dispatch(_MVL, [self, p])


def _mvlgamma_inplace(self, p):
    """In-place ``mvlgamma(self, p)``.

    >>> numtorch.tensor([3.0]).mvlgamma_(2)
    tensor([1.5502])
    """
    return dispatch(_MVL_, [self, p])


def _multigammaln(input, p, out):
    """``torch.special.multigammaln``: the same op as ``numtorch.mvlgamma``.

    >>> numtorch.special.multigammaln(numtorch.tensor([3.0]), 2)
    tensor([1.5502])
    """
    return dispatch(_SP_MVL, [input, p]) if out is None else dispatch(_MVL_OUT, [input, p, out])


public("mvlgamma", "input, p, *, out=None", _mvlgamma_fn, ops=(_MVL,))
public("mvlgamma", "self, p", _mvlgamma_method, relevant=("self",), module="Tensor", ops=(_MVL,))
public("mvlgamma_", "self, p", _mvlgamma_inplace, relevant=("self",), module="Tensor", ops=(_MVL_,))
public("multigammaln", "input, p, *, out=None", _multigammaln, module="torch.special", ops=(_SP_MVL,))


# ---- orthogonal polynomials (no derivative in PyTorch: results do not require grad) -----------------
_POLYS = (
    ("chebyshev_polynomial_t", "cheb_t", "Chebyshev polynomial of the first kind T_n", "tensor([-1.0000, -0.9440])"),
    ("chebyshev_polynomial_u", "cheb_u", "Chebyshev polynomial of the second kind U_n", "tensor([-1.0000, -1.0880])"),
    ("chebyshev_polynomial_v", "cheb_v", "Chebyshev polynomial of the third kind V_n", "tensor([-1.0000, -0.7280])"),
    ("chebyshev_polynomial_w", "cheb_w", "Chebyshev polynomial of the fourth kind W_n", "tensor([-1.0000, -1.4480])"),
    ("shifted_chebyshev_polynomial_t", "shifted_cheb_t", "Shifted Chebyshev polynomial T*_n(x) = T_n(2x - 1)", "tensor([-0.0000, 0.5680])"),
    ("shifted_chebyshev_polynomial_u", "shifted_cheb_u", "Shifted Chebyshev polynomial U*_n(x) = U_n(2x - 1)", "tensor([-0.0000, 0.7360])"),
    ("shifted_chebyshev_polynomial_v", "shifted_cheb_v", "Shifted Chebyshev polynomial V*_n(x) = V_n(2x - 1)", "tensor([1.0000, 1.5760])"),
    ("shifted_chebyshev_polynomial_w", "shifted_cheb_w", "Shifted Chebyshev polynomial W*_n(x) = W_n(2x - 1)", "tensor([-1.0000, -0.1040])"),
    ("hermite_polynomial_h", "hermite_h", "Physicists' Hermite polynomial H_n", "tensor([-5.0000, -4.2880])"),
    ("hermite_polynomial_he", "hermite_he", "Probabilists' Hermite polynomial He_n", "tensor([-1.3750, -1.1360])"),
    ("laguerre_polynomial_l", "laguerre_l", "Laguerre polynomial L_n", "tensor([-0.1458,  0.0293])"),
    ("legendre_polynomial_p", "legendre_p", "Legendre polynomial P_n", "tensor([-0.4375, -0.4400])"),
)  # fmt: skip
for _n, _k, _what, _show in _POLYS:
    _ew = Elementwise(f"special_{_n}", ["x", "n"], f"{_k}(x, n)", rule="float", allow="bif")
    _T = _decl(f"special_{_n}(Tensor x, Tensor n) -> Tensor", _ew, None, inplace=False)
    _X = _decl(f"special_{_n}.x_scalar(Scalar x, Tensor n) -> Tensor", _ew, None, inplace=False, out_overload="x_scalar_out")
    _N = _decl(f"special_{_n}.n_scalar(Tensor x, Scalar n) -> Tensor", _ew, None, inplace=False, out_overload="n_scalar_out")
    _ALL[f"special_{_n}"] = {"T": _T, "S": _N, "F": _X}
    _special(_n, _T, _doc(_n, _what, f"numtorch.special.{_n}(numtorch.tensor([0.5, 0.4]), 3)", _show),
             sig="x, n, *, out=None", rel=("n", "x"), pick=_pick_ts(_T, _N, _X))  # fmt: skip
