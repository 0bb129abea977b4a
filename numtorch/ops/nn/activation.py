"""nn activations: one pointwise declaration per op and per backward helper.

Backward helpers (``threshold_backward``, ``gelu_backward``, ...) are aten ops with their own
generated kernels, so dispatch modes see them and double backward differentiates them with
their own formulas, as in PyTorch's derivatives.yaml. The other nn ops live in
``layers.py`` (dropout, linear, embedding, ...), ``normalization.py``, ``conv.py`` and ``loss.py``.
"""

from __future__ import annotations

import math

import numpy as np

from ... import _dtype as D
from ..._dispatch import dispatch
from ..._ops import ops as _ops
from ...autograd._api import grad as autograd_grad
from ...autograd.grad_mode import enable_grad
from .._fast_guard import params
from .._pointwise import Pointwise, PointwiseDecl, defpointwise
from .._pw_entry_call import entry_unary
from .._registry import defop, public

_F = "torch.nn.functional"
_X = ["self"]
_GX = ["grad_output", "self"]


def _helper(schema, pw, backward):
    """A backward helper: an aten op with a kernel and a derivative, but no public binding."""
    ops = defpointwise(
        schema, pw, backward=backward, inplace=False, out=False, function=False, method=False
    )
    op = ops["functional"]
    return lambda *v: dispatch(op, list(v))


def _zeros(grad):
    return _ops.aten.zeros_like.default(grad)


# ---- backward helpers -----------------------------------------------------------------------
threshold_backward = _helper(
    "threshold_backward(Tensor grad_output, Tensor self, Scalar threshold) -> Tensor",
    Pointwise("threshold_backward", _GX, "0.0 if self <= threshold else grad_output", ["threshold"]),
    {"grad_output": lambda grad, self, threshold: threshold_backward(grad, self, threshold),
     "self": lambda grad: _zeros(grad)},
)  # fmt: skip
leaky_relu_backward = _helper(
    "leaky_relu_backward(Tensor grad_output, Tensor self, Scalar negative_slope, bool self_is_result) -> Tensor",
    Pointwise("leaky_relu_backward", _GX, "grad_output if self > 0 else grad_output * negative_slope",
              ["negative_slope"]),
    {"grad_output": lambda grad, self, negative_slope, self_is_result:
        leaky_relu_backward(grad, self, negative_slope, self_is_result),
     "self": lambda grad: _zeros(grad)},
)  # fmt: skip
hardtanh_backward = _helper(
    "hardtanh_backward(Tensor grad_output, Tensor self, Scalar min_val, Scalar max_val) -> Tensor",
    Pointwise("hardtanh_backward", _GX, "0.0 if (self <= min_val or self >= max_val) else grad_output",
              ["min_val", "max_val"]),
    {"grad_output": lambda grad, self, min_val, max_val: hardtanh_backward(grad, self, min_val, max_val),
     "self": lambda grad: _zeros(grad)},
)  # fmt: skip
hardsigmoid_backward = _helper(
    "hardsigmoid_backward(Tensor grad_output, Tensor self) -> Tensor",
    # PyTorch's kernel multiplies by the float literal 1.0f / 6.0f in every dtype
    Pointwise("hardsigmoid_backward", _GX,
              f"grad_output * type(self)({float(np.float32(1 / 6))!r}) if (self > type(self)(-3) and self < type(self)(3))"
              " else type(self)(0)"),
    {"grad_output": lambda grad, self: hardsigmoid_backward(grad, self), "self": lambda grad: _zeros(grad)},
)  # fmt: skip
hardswish_backward = _helper(
    "hardswish_backward(Tensor grad_output, Tensor self) -> Tensor",
    # constants of self's own type (type(self)(3)): a bare 3 or 0.5 is a float64 in Numba and
    # made float32 compute in float64 (half the vector lanes), where PyTorch's kernel uses
    # scalar_t; the ends as PyTorch 2.x: 0 at -3, grad_output at 3
    Pointwise("hardswish_backward", _GX,
              "type(self)(0) if self <= type(self)(-3) else (grad_output * (self / type(self)(3) + type(self)(0.5))"
              " if self < type(self)(3) else grad_output)"),
    # hardswish'' is 1/3 on (-3, 3): twice hardsigmoid'
    {"grad_output": lambda grad, self: hardswish_backward(grad, self),
     "self": lambda grad, grad_output, self: hardsigmoid_backward(grad * grad_output, self) * 2},
)  # fmt: skip
elu_backward = _helper(
    "elu_backward(Tensor grad_output, Scalar alpha, Scalar scale, Scalar input_scale, bool is_result, "
    "Tensor self_or_result) -> Tensor",
    Pointwise("elu_backward", ["grad_output", "self_or_result"],
              "(grad_output * input_scale * (self_or_result + scale * alpha) if is_result else "
              "grad_output * input_scale * scale * alpha * math.exp(self_or_result * input_scale)) "
              "if self_or_result <= 0 else grad_output * scale",
              ["alpha", "scale", "input_scale", "is_result"]),
    {"grad_output": lambda grad, alpha, scale, input_scale, is_result, self_or_result:
        elu_backward(grad, alpha, scale, input_scale, is_result, self_or_result),
     "self_or_result": lambda grad, grad_output, alpha, scale, input_scale, is_result, self_or_result:
        _elu_double_backward(grad, grad_output, alpha, scale, input_scale, is_result, self_or_result)},
)  # fmt: skip


def _elu_double_backward(grad, grad_output, alpha, scale, input_scale, is_result, x):
    neg = (x <= 0).to(grad.dtype)
    if is_result:
        return grad * grad_output * neg * input_scale
    return elu_backward(grad * grad_output * input_scale, alpha, scale, input_scale, False, x) * neg


_INV_SQRT_2PI = 1 / math.sqrt(2 * math.pi)
_K, _C = math.sqrt(2 / math.pi), 0.044715
# PyTorch's scalar_t formulas: constants of self's own type (a bare float is a float64 in Numba
# and made float32 kernels compute in float64, half the vector lanes)
_TANH_U = f"math.tanh(type(self)({_K!r}) * (self + type(self)({_C!r}) * (self * self * self)))"
_GELU_BWD = {
    # Note [Vectorizable erf]: one helper per dtype (float32's stays in float32 kernels)
    "none": Pointwise("gelu_backward", _GX, "gelu_erf_backward(grad_output, self)"),
    "tanh": Pointwise("gelu_backward", _GX, f"grad_output * (type(self)(0.5) * (type(self)(1) + {_TANH_U}) + type(self)(0.5) * self * "
                      f"(type(self)(1) - {_TANH_U} * {_TANH_U}) * (type(self)({_K!r}) * "
                      f"(type(self)(1) + type(self)({3 * _C!r}) * (self * self))))"),
}  # fmt: skip


def _gelu_check(approximate: str) -> str:
    if approximate not in ("none", "tanh"):
        raise RuntimeError("approximate argument must be either none or tanh.")
    return approximate


def _gelu_double_backward(grad, grad_output, self, approximate):
    if approximate == "tanh":
        u = (self + self * self * self * _C) * _K
        du = (self * self * (3 * _C) + 1) * _K
        t = u.tanh()
        sech2 = 1 - t * t
        second = sech2 * (du - self * t * du * du + self * (3 * _C * _K))
        return grad * grad_output * second
    pdf = (self * self * -0.5).exp() * _INV_SQRT_2PI
    return grad * grad_output * pdf * (2 - self * self)


_gelu_backward_op = defop(
    'gelu_backward(Tensor grad_output, Tensor self, *, str approximate="none") -> Tensor',
    cpu=lambda grad_output, self, approximate: _GELU_BWD[_gelu_check(approximate)]([grad_output, self]),
    backward={"grad_output": lambda grad, self, approximate: gelu_backward(grad, self, approximate),
              "self": lambda grad, grad_output, self, approximate:
                  _gelu_double_backward(grad, grad_output, self, approximate)},
)  # fmt: skip


_gelu_backward_op.pointwise = PointwiseDecl(_GELU_BWD, (0, 1), (), "functional", _gelu_backward_op.impls["cpu"], 2)


def gelu_backward(grad_output, self, approximate="none"):
    return dispatch(_gelu_backward_op, [grad_output, self, approximate])


def _silu_double_backward(grad, grad_output, self):
    s = self.sigmoid()
    return grad * grad_output * s * (1 - s) * (2 + self * (1 - 2 * s))


silu_backward = _helper(
    "silu_backward(Tensor grad_output, Tensor self) -> Tensor",
    Pointwise("silu_backward", _GX, "grad_output * sigmoid(self) * (type(self)(1) + self * (type(self)(1) - sigmoid(self)))"),
    {"grad_output": lambda grad, self: silu_backward(grad, self),
     "self": lambda grad, grad_output, self: _silu_double_backward(grad, grad_output, self)},
)  # fmt: skip


def _mish_grad_composite(grad, self):
    # d/dx x*tanh(softplus(x)), in ops so that it differentiates again
    sig = self.sigmoid()
    tsp = _ops.aten.softplus.default(self).tanh()
    return grad * (tsp + self * sig * (1 - tsp * tsp))


mish_backward = _helper(
    "mish_backward(Tensor grad_output, Tensor self) -> Tensor",
    Pointwise("mish_backward", _GX, "grad_output * (math.tanh(math.log1p(math.exp(self))) + self * sigmoid(self) * "
              "(type(self)(1) - math.tanh(math.log1p(math.exp(self))) * math.tanh(math.log1p(math.exp(self)))))"),
    {"grad_output": lambda grad, self: mish_backward(grad, self),
     "self": lambda grad, grad_output, self: _mish_self_dd(grad, grad_output, self)},
)  # fmt: skip


def _mish_self_dd(grad, grad_output, self):
    with enable_grad():
        x = self.detach().requires_grad_(True)
        g = _mish_grad_composite(grad_output.detach(), x)
        (d,) = autograd_grad(g, x, grad)
    return d


def _softplus_double_backward(grad, grad_output, self, beta, threshold):
    s = (self * beta).sigmoid()
    live = (self * beta <= threshold).to(grad.dtype)
    return grad * grad_output * s * (1 - s) * beta * live


softplus_backward = _helper(
    "softplus_backward(Tensor grad_output, Tensor self, Scalar beta, Scalar threshold) -> Tensor",
    Pointwise("softplus_backward", _GX,
              "grad_output if self * beta > threshold else grad_output * sigmoid(self * beta)",
              ["beta", "threshold"]),
    {"grad_output": lambda grad, self, beta, threshold: softplus_backward(grad, self, beta, threshold),
     "self": lambda grad, grad_output, self, beta, threshold:
        _softplus_double_backward(grad, grad_output, self, beta, threshold)},
)  # fmt: skip
log_sigmoid_backward = _helper(
    "log_sigmoid_backward(Tensor grad_output, Tensor self, Tensor buffer) -> Tensor",
    Pointwise("log_sigmoid_backward", _GX, "grad_output * sigmoid(-self)"),
    {"grad_output": lambda grad, self, buffer: log_sigmoid_backward(grad, self, buffer),
     "self": lambda grad, grad_output, self: _log_sigmoid_dd(grad, grad_output, self)},
)  # fmt: skip


def _log_sigmoid_dd(grad, grad_output, self):
    s = self.sigmoid()
    return grad * grad_output * s * (s - 1)


hardshrink_backward = _helper(
    "hardshrink_backward(Tensor grad_out, Tensor self, Scalar lambd) -> Tensor",
    Pointwise("hardshrink_backward", ["grad_out", "self"], "0.0 if (self >= -lambd and self <= lambd) else grad_out",
              ["lambd"]),
    {"grad_out": lambda grad, self, lambd: hardshrink_backward(grad, self, lambd), "self": lambda grad: _zeros(grad)},
)  # fmt: skip
softshrink_backward = _helper(
    "softshrink_backward(Tensor grad_output, Tensor self, Scalar lambd) -> Tensor",
    Pointwise("softshrink_backward", _GX, "0.0 if (self >= -lambd and self <= lambd) else grad_output", ["lambd"]),
    {"grad_output": lambda grad, self, lambd: softshrink_backward(grad, self, lambd), "self": lambda grad: _zeros(grad)},
)  # fmt: skip


# ---- activations ----------------------------------------------------------------------------
def _act(schema, pw, backward, *, torch_fn=False, method=False, doc=None, inplace=True, public_out=True):
    return defpointwise(schema, pw, backward=backward, function=torch_fn, method=method, doc=doc, inplace=inplace,
                        public_out=public_out)  # fmt: skip


_relu = _act("relu(Tensor self) -> Tensor", Pointwise("relu", _X, "self if not self <= 0 else 0", allow="nobool",
                       refuse={"bool": (RuntimeError, "Boolean inputs not supported for relu"),
                               "complex": (NotImplementedError, "clamp is not supported for complex types")}),
             {"self": lambda grad, result: threshold_backward(grad, result, 0)}, torch_fn=True, method=True, public_out=False,
             doc="Rectified linear unit, max(x, 0), elementwise.\n\n    >>> numtorch.relu(numtorch.tensor([-1.0, 2.0]))\n    tensor([0., 2.])\n")  # fmt: skip
_threshold = _act("threshold(Tensor self, Scalar threshold, Scalar value) -> Tensor",
                  Pointwise("threshold", _X, "value if self <= threshold else self", ["threshold", "value"],
                            allow="nobool"),
                  {"self": lambda grad, self, threshold: threshold_backward(grad, self, threshold)},
                  torch_fn=True)  # fmt: skip
_leaky = _act("leaky_relu(Tensor self, Scalar negative_slope=0.01) -> Tensor",
              Pointwise("leaky_relu", _X, "self if self > 0 else self * negative_slope", ["negative_slope"],
                        allow="float"),
              {"self": lambda grad, self, negative_slope: leaky_relu_backward(grad, self, negative_slope, False)})  # fmt: skip
_ELU = Pointwise(
    "elu",
    _X,
    "self * scale if self > 0 else scale * alpha * math.expm1(self * input_scale)",
    ["alpha", "scale", "input_scale"],
    allow="float",
)
_elu = _act("elu(Tensor self, Scalar alpha=1, Scalar scale=1, Scalar input_scale=1) -> Tensor", _ELU,
            {"self": lambda grad, self, alpha, scale, input_scale:
                elu_backward(grad, alpha, scale, input_scale, False, self)})  # fmt: skip
_GELU = {
    "none": Pointwise("GeluKernelImpl", _X, "gelu_erf(self)", allow="float", refuse={"kernel": "GeluKernelImpl"}),
    "tanh": Pointwise("GeluKernelImpl", _X, f"type(self)(0.5) * self * (type(self)(1) + {_TANH_U})", allow="float",
                      refuse={"kernel": "GeluKernelImpl"}),
}  # fmt: skip
_gelu = defop(
    'gelu(Tensor self, *, str approximate="none") -> Tensor',
    cpu=lambda self, approximate: _GELU[_gelu_check(approximate)]([self]),
    backward={"self": lambda grad, self, approximate: gelu_backward(grad, self, approximate)},
)
_gelu.pointwise = PointwiseDecl(_GELU, (0,), (), "functional", _gelu.impls["cpu"], 1)  # Note [Pointwise declaration]
_gelu_ = defop(
    'gelu_(Tensor(a!) self, *, str approximate="none") -> Tensor(a!)',
    cpu=lambda self, approximate: _GELU[_gelu_check(approximate)]([self], inplace=True),
    backward={"self": lambda grad, self, approximate: gelu_backward(grad, self, approximate)},
)
_silu = _act("silu(Tensor self) -> Tensor", Pointwise("silu", _X, "self * sigmoid(self)", allow="float"),
             {"self": lambda grad, self: silu_backward(grad, self)})  # fmt: skip
_mish = _act("mish(Tensor self) -> Tensor",
             Pointwise("mish", _X, "self * math.tanh(math.log1p(math.exp(self)))", allow="float"),
             {"self": lambda grad, self: mish_backward(grad, self)})  # fmt: skip
_softplus = _act("softplus(Tensor self, Scalar beta=1, Scalar threshold=20) -> Tensor",
                 Pointwise("softplus", _X, "self if self * beta > threshold else math.log1p(math.exp(self * beta)) / beta",
                           ["beta", "threshold"], allow="float"),
                 {"self": lambda grad, self, beta, threshold: softplus_backward(grad, self, beta, threshold)},
                 inplace=False)  # fmt: skip
class _HardtanhPointwise(Pointwise):
    __slots__ = ()

    def __call__(self, operands, params=(), out=None, inplace=False):
        # ATen's hardtanh_out: a uint8 input refuses negative limits (as integers) before anything,
        # an empty one too (seed 402; the limits' uint8 conversion raised otherwise)
        if operands[0]._dtype is D.uint8 and any(int(v) < 0 for v in params[:2]):
            raise RuntimeError("cannot do hardtanh on an unsigned type with negative limits")
        return super().__call__(operands, params, out, inplace)

    def _learn(self, operands, compute, result, pat):
        # the fast paths skip __call__'s uint8 test: uint8 calls stay on the general path
        if compute is not D.uint8:
            super()._learn(operands, compute, result, pat)


_hardtanh = _act("hardtanh(Tensor self, Scalar min_val=-1, Scalar max_val=1) -> Tensor",
                 _HardtanhPointwise("hardtanh", _X, "min_val if self < min_val else (max_val if self > max_val else self)",
                           ["min_val", "max_val"], allow="nobool"),
                 {"self": lambda grad, self, min_val, max_val: hardtanh_backward(grad, self, min_val, max_val)})  # fmt: skip
_hardsigmoid = _act("hardsigmoid(Tensor self) -> Tensor",
                    Pointwise("hardsigmoid", _X, "min(max(self + type(self)(3), type(self)(0)), type(self)(6)) / type(self)(6)"
                              " if self == self else self", allow="float"),
                    {"self": lambda grad, self: hardsigmoid_backward(grad, self)})  # fmt: skip
_hardswish = _act("hardswish(Tensor self) -> Tensor",
                  Pointwise("hardswish", _X, "self * min(max(self + type(self)(3), type(self)(0)), type(self)(6)) / type(self)(6)"
                            " if self == self else self", allow="float"),
                  {"self": lambda grad, self: hardswish_backward(grad, self)})  # fmt: skip
_log_sigmoid = _act("log_sigmoid(Tensor self) -> Tensor",
                    Pointwise("log_sigmoid", _X, "min(self, type(self)(0)) - math.log1p(math.exp(-abs(self)))", allow="float"),
                    {"self": lambda grad, self: log_sigmoid_backward(grad, self, self)}, inplace=False)  # fmt: skip

_hardshrink = _act("hardshrink(Tensor self, Scalar lambd=0.5) -> Tensor",
                   Pointwise("hardshrink", _X, "0.0 if (self >= -lambd and self <= lambd) else self", ["lambd"],
                             allow="float"),
                   {"self": lambda grad, self, lambd: hardshrink_backward(grad, self, lambd)},
                   torch_fn=True, method=True, inplace=False,
                   doc="0 inside [-lambd, lambd], x outside.\n\n    >>> numtorch.hardshrink(numtorch.tensor([0.3, 2.0]))\n"
                       "    tensor([0., 2.])\n")  # fmt: skip
_softshrink = _act("softshrink(Tensor self, Scalar lambd=0.5) -> Tensor",
                   Pointwise("softshrink", _X, "self - lambd if self > lambd else (self + lambd if self < -lambd else "
                             "self * 0)", ["lambd"], allow="float"),
                   {"self": lambda grad, self, lambd: softshrink_backward(grad, self, lambd)}, inplace=False)  # fmt: skip

_SELU_ALPHA = 1.6732632423543772848170429916717
_SELU_SCALE = 1.0507009873554804934193349852946


def _elu_call(x, alpha, scale, input_scale, inplace):
    return dispatch(_elu["inplace" if inplace else "functional"], [x, alpha, scale, input_scale])


_selu = defop(
    "selu(Tensor self) -> Tensor",
    composite=lambda self: _elu_call(self, _SELU_ALPHA, _SELU_SCALE, 1, False),
)
_selu_ = defop("selu_(Tensor(a!) self) -> Tensor(a!)",
               composite=lambda self: _elu_call(self, _SELU_ALPHA, _SELU_SCALE, 1, True))  # fmt: skip


def _selu_fast(op, ip_op):
    """selu's binding fast call: its composite's elu call, while that composite is selu's
    (numtorch.library may replace it). A plain selu is elu's call to PyTorch's modes and
    graphs as well (CompositeImplicitAutograd), so elu's op.fast gate decides the rest."""
    impls, comp = op.impls, op.impls["composite"]
    elu = _elu["inplace"] if ip_op else _elu["functional"]

    def call(input):
        if impls.get("composite") is comp:
            return elu.fast(input, _SELU_ALPHA, _SELU_SCALE, 1)
        return dispatch(op, [input])

    return call


def _celu_check(alpha):
    if alpha == 0:
        raise RuntimeError("ZeroDivisionError: alpha cannot be 0 for CELU")
    return alpha


def _celu_backward(grad, self, alpha):
    # derivatives.yaml: input_scale 1.0 / alpha.toFloat(), a float32 reciprocal even for double inputs
    return elu_backward(grad, alpha, 1, 1.0 / float(np.float32(alpha)), False, self)


_celu = defop("celu(Tensor self, Scalar alpha=1.) -> Tensor",
              cpu=lambda self, alpha: entry_unary(_ELU, self, (self._dtype, alpha.__class__, int, float), alpha, 1,
                                                  1 / _celu_check(alpha)),
              backward={"self": _celu_backward})  # fmt: skip
_celu_ = defop("celu_(Tensor(a!) self, Scalar alpha=1.) -> Tensor(a!)",
               cpu=lambda self, alpha: _ELU([self], [alpha, 1, 1 / _celu_check(alpha)], inplace=True),
               backward={"self": _celu_backward})  # fmt: skip
_relu6 = defop("relu6(Tensor self) -> Tensor",
               composite=lambda self: dispatch(_hardtanh["functional"], [self, 0, 6]))  # fmt: skip
_relu6_ = defop("relu6_(Tensor(a!) self) -> Tensor(a!)",
                composite=lambda self: dispatch(_hardtanh["inplace"], [self, 0, 6]))  # fmt: skip


# ---- public bindings --------------------------------------------------------------------------
def _bind(name, sig, ops, doc, inplace_name=None, fast_fns=None):
    """``F.<name>(input, ..., inplace=False)`` choosing the functional or the in-place op, plus
    ``F.<name>_`` (``inplace_name``) when PyTorch has it; ``fast_fns``: the two fast calls in
    place of the ops' (Note [Binding fast call])."""
    fn, ip = ops if isinstance(ops, tuple) else (ops["functional"], ops.get("inplace"))
    has_inplace = sig.endswith("inplace=False")

    def body(*v):
        if has_inplace:
            *args, inplace = v
            return dispatch(ip if inplace else fn, list(args))
        return dispatch(fn, list(v))

    body.__doc__ = doc
    # Note [Binding fast call]: a plain call is the body's dispatch of the functional op
    args = params(sig)
    f, f_ip = fast_fns or (fn, ip)
    fast = (f, args[:-1], "inplace is False") if has_inplace else (f, args)
    public(name, sig, body, module=_F, ops=(fn,) + ((ip,) if ip else ()), fast=fast)
    if inplace_name:
        n_args = sig.replace(", inplace=False", "")

        def ibody(*v):
            return dispatch(ip, list(v))

        ibody.__doc__ = f"In-place version of :func:`{name}`."
        public(inplace_name, n_args, ibody, module=_F, ops=(ip,), fast=(f_ip, params(n_args)))


def _doc(text, call, out):
    return f"{text}\n\n    >>> numtorch.nn.functional.{call}\n    {out}\n"


_bind(
    "relu",
    "input, inplace=False",
    _relu,
    _doc("max(x, 0) elementwise.", "relu(numtorch.tensor([-1.0, 2.0]))", "tensor([0., 2.])"),
    "relu_",
)
_bind(
    "threshold",
    "input, threshold, value, inplace=False",
    _threshold,
    _doc(
        "x if x > threshold else value.",
        "threshold(numtorch.tensor([0.5, 2.0]), 1.0, -1.0)",
        "tensor([-1.,  2.])",
    ),
    "threshold_",
)
_bind(
    "leaky_relu",
    "input, negative_slope=0.01, inplace=False",
    _leaky,
    _doc(
        "x if x > 0 else negative_slope * x.",
        "leaky_relu(numtorch.tensor([-1.0, 2.0]), 0.1)",
        "tensor([-0.1000,  2.0000])",
    ),
    "leaky_relu_",
)


def _f_elu(input, alpha, inplace):
    """alpha * (exp(x) - 1) for x <= 0, x otherwise.

    >>> numtorch.nn.functional.elu(numtorch.tensor([-1.0, 2.0]))
    tensor([-0.6321,  2.0000])
    """
    return _elu_call(input, alpha, 1, 1, inplace)


def _f_elu_(input, alpha):
    """In-place version of :func:`elu`."""
    return _elu_call(input, alpha, 1, 1, True)


public("elu", "input, alpha=1.0, inplace=False", _f_elu, module=_F, ops=(_elu["functional"],),
       fast=(_elu["functional"], ("input", "alpha", 1, 1), "inplace is False"))  # fmt: skip
public("elu_", "input, alpha=1.0", _f_elu_, module=_F, ops=(_elu["inplace"],),
       fast=(_elu["inplace"], ("input", "alpha", 1, 1)))  # fmt: skip
_bind(
    "hardtanh",
    "input, min_val=-1.0, max_val=1.0, inplace=False",
    _hardtanh,
    _doc(
        "Clamp to [min_val, max_val].",
        "hardtanh(numtorch.tensor([-2.0, 0.5]))",
        "tensor([-1.0000,  0.5000])",
    ),
    "hardtanh_",
)
_bind(
    "relu6",
    "input, inplace=False",
    (_relu6, _relu6_),
    _doc("min(max(x, 0), 6).", "relu6(numtorch.tensor([-1.0, 7.0]))", "tensor([0., 6.])"),
)
_bind(
    "selu",
    "input, inplace=False",
    (_selu, _selu_),
    _doc("Scaled ELU.", "selu(numtorch.tensor([0.0, 1.0]))", "tensor([0.0000, 1.0507])"),
    "selu_",
    (_selu_fast(_selu, False), _selu_fast(_selu_, True)),
)
_bind(
    "celu",
    "input, alpha=1.0, inplace=False",
    (_celu, _celu_),
    _doc(
        "Continuously differentiable ELU.", "celu(numtorch.tensor([0.0, 1.0]))", "tensor([0., 1.])"
    ),
    "celu_",
)
_bind(
    "gelu",
    "input, approximate='none'",
    (_gelu, _gelu_),
    _doc(
        "Gaussian error linear unit (exact erf, or 'tanh').",
        "gelu(numtorch.tensor([0.0, 1.0]))",
        "tensor([0.0000, 0.8413])",
    ),
)
_bind(
    "silu",
    "input, inplace=False",
    _silu,
    _doc("x * sigmoid(x).", "silu(numtorch.tensor([0.0, 1.0]))", "tensor([0.0000, 0.7311])"),
)
_bind(
    "mish",
    "input, inplace=False",
    _mish,
    _doc("x * tanh(softplus(x)).", "mish(numtorch.tensor([0.0, 1.0]))", "tensor([0.0000, 0.8651])"),
)
_bind(
    "softplus",
    "input, beta=1.0, threshold=20.0",
    _softplus,
    _doc(
        "log(1 + exp(beta x)) / beta, linear above threshold.",
        "softplus(numtorch.tensor([0.0]))",
        "tensor([0.6931])",
    ),
)
_bind(
    "hardsigmoid",
    "input, inplace=False",
    _hardsigmoid,
    _doc(
        "Piecewise-linear sigmoid, clamp(x / 6 + 1/2, 0, 1).",
        "hardsigmoid(numtorch.tensor([0.0, 4.0]))",
        "tensor([0.5000, 1.0000])",
    ),
)
_bind(
    "hardswish",
    "input, inplace=False",
    _hardswish,
    _doc("x * hardsigmoid(x).", "hardswish(numtorch.tensor([0.0, 4.0]))", "tensor([0., 4.])"),
)
_bind(
    "hardshrink",
    "input, lambd=0.5",
    (_hardshrink["functional"], None),
    _doc(
        "0 inside [-lambd, lambd], x outside.",
        "hardshrink(numtorch.tensor([0.3, 2.0]))",
        "tensor([0., 2.])",
    ),
)
_bind(
    "softshrink",
    "input, lambd=0.5",
    (_softshrink["functional"], None),
    _doc(
        "Shrink towards 0 by lambd.",
        "softshrink(numtorch.tensor([0.3, 2.0]))",
        "tensor([0.0000, 1.5000])",
    ),
)
_bind(
    "logsigmoid",
    "input",
    (_log_sigmoid["functional"], None),
    _doc(
        "log(sigmoid(x)), computed stably.",
        "logsigmoid(numtorch.tensor([0.0]))",
        "tensor([-0.6931])",
    ),
)


def _torch_level(name, sig, op, doc, fast=None):
    def body(*v):
        return dispatch(op, list(v))

    body.__doc__ = doc
    public(name, sig, body, module="torch", ops=(op,), fast=fast and (fast, params(sig)))


_torch_level("relu_", "input", _relu["inplace"], "In-place :func:`relu`.")
_torch_level(
    "threshold_", "input, threshold, value", _threshold["inplace"], "In-place :func:`threshold`."
)
_torch_level("selu", "input", _selu, "Scaled ELU; see :func:`numtorch.nn.functional.selu`.", _selu_fast(_selu, False))
_torch_level("selu_", "input", _selu_, "In-place :func:`selu`.", _selu_fast(_selu_, True))
_torch_level("celu", "input, alpha=1.0", _celu, "CELU; see :func:`numtorch.nn.functional.celu`.")
_torch_level("celu_", "input, alpha=1.0", _celu_, "In-place :func:`celu`.")
