"""Elementwise losses: mse / smooth_l1 / huber / binary_cross_entropy(_with_logits) with
generated pointwise kernels, and the l1 / kl_div / margin_ranking / cosine_embedding composites.

# Note [Elementwise loss kernels]
# A loss op evaluates its per-element expression with the pointwise engine (broadcasting, dtypes)
# and reduces with the float64 ``total`` kernel. Its backward op is one more pointwise
# expression scaled by ``norm`` (1/numel for 'mean', else 1), the grad broadcast from 0-d. Double
# backward formulas are written with numtorch ops, following derivatives.yaml.
"""

from __future__ import annotations

import math

import numpy as np

from ... import _dtype as D
from ..._device import CPU
from ..._dispatch import dispatch
from ..._ops import ops as _ops
from ..._state import STATE
from ..._tensor import Tensor, _make
from ...kernels import lazy
from .._fast_guard import free
from .._pointwise import Pointwise, _cname
from .._registry import defop
from ..reduction._entries import call
from .loss import MEAN, NONE, SUM
from .loss_grad_kernel import kernel_call, negated, overridden, pair_kernel

K = lazy("numtorch.kernels.cpu.nn.loss")
_ST = ["self", "target"]
_GST = ["grad_output", "self", "target"]


# Note [Loss bodies skip a same-shape broadcast]
# F.mse_loss / l1_loss / smooth_l1_loss / huber_loss bodies call torch.broadcast_tensors(input,
# target) as PyTorch's Python does. Of two CPU tensors of one shape its composite returns both
# as they are (expand_outplace), but with grad its fast call declines and the body's call cost
# 2.5 us of a 7 us recorded mse_loss forward. Where nothing could see the call (no torch function
# or dispatch mode, forward-AD level or autocast region, no library kernel over an aten op) the
# bodies take the pair as it is; anything else calls broadcast_tensors.
def same_shape_pair(input, target):
    """(input, target) where broadcast_tensors would return them unseen, else None."""
    if (input.__class__ is Tensor and target.__class__ is Tensor and input._device is CPU
            and target._device is CPU and input._data.shape == target._data.shape
            and not STATE.tf_modes and free() and not overridden()):  # fmt: skip
        return input, target
    return None


def _reduce(elems: Tensor, reduction: int) -> Tensor:
    if reduction == NONE:
        return elems
    # float16 sums in float32 (PyTorch's accumulate type; the kernel has no float16 variant)
    acc = np.float32 if elems._data.dtype == np.float16 else None
    a = np.ascontiguousarray(elems._data, dtype=acc).reshape(-1)
    total = K.total(a) if a.size else 0.0
    if reduction == MEAN:
        total = total / a.size if a.size else np.nan
    return _make(np.array(total, elems._dtype.np), elems._dtype)


def _same_plain(self: Tensor, target: Tensor) -> bool:
    # one shape, one float32/float64 dtype, both C-contiguous
    a, b = self._data, target._data
    return (a.shape == b.shape and a.dtype == b.dtype and a.dtype.char in "fd"
            and a.flags.c_contiguous and b.flags.c_contiguous)  # fmt: skip


def _norm(self: Tensor, target: Tensor, reduction: int) -> float:
    if reduction != MEAN:
        return 1.0
    a, b = self._data.shape, target._data.shape
    n = math.prod(a if a == b else np.broadcast_shapes(a, b))
    return 1.0 / n if n else 1.0


PW: dict = {}  # loss name -> its forward Pointwise (Note [Elementwise loss binding fast calls])
BWD_PW: dict = {}  # backward op -> its Pointwise (Note [Loss gradients through their kernel])


def _loss_ops(name, pw, bwd_pw, param=None, default="1."):
    """``name`` (the loss value) and ``name_backward`` (its input gradient), derivatives unset."""
    PW[name] = pw
    extra, extra_d = (f", float {param}", f", float {param}={default}") if param else ("", "")

    def fwd_cpu(self, target, reduction, *ps):
        _check_float(self, target, name)
        if name == "mse_loss" and reduction != NONE and _same_plain(self, target):
            # Note [Loss totals]: the squares summed as they are made, none written out
            x = self._data.reshape(-1)
            total = K.sq_diff_total(x, target._data.reshape(-1)) if x.size else 0.0
            if reduction == MEAN:
                total = total / x.size if x.size else np.nan
            return _make(np.array(total, self._dtype.np), self._dtype)
        elems = pw.binary(self, target, *ps)  # its general route unless same-shape plain operands
        if name == "huber_loss" and elems._dtype is not self._dtype:
            # at::huber_loss writes into empty_like(input): computed in the promoted type,
            # stored in the input's (TensorIterator refuses a float result into an integer input).
            if not D.can_cast(elems._dtype, self._dtype):
                raise RuntimeError(f"result type {_cname(elems._dtype)} can't be cast to the desired output type "
                                   f"{_cname(self._dtype)}")  # fmt: skip
            elems = _make(elems._data.astype(self._dtype.np), self._dtype)
        return _reduce(elems, reduction)

    def bwd_cpu(grad_output, self, target, reduction, *ps):
        return bwd_pw([grad_output, self, target], [_norm(self, target, reduction), *ps])

    op = defop(
        f"{name}(Tensor self, Tensor target, int reduction=1{extra_d}) -> Tensor", cpu=fwd_cpu
    )
    bwd_op = defop(f"{name}_backward(Tensor grad_output, Tensor self, Tensor target, int reduction{extra}) -> Tensor",
                   cpu=bwd_cpu)  # fmt: skip
    BWD_PW[bwd_op] = bwd_pw
    return op, bwd_op


def _set_backward(op, formulas):
    from .._registry import make_derivative

    op.autograd = make_derivative(op._schema, formulas)


_CPU_NAMES = {"mse_loss": "mse", "smooth_l1_loss": "smooth_l1", "huber_loss": "huber"}


def _check_float(self, target, name):
    dt = D.promote_types(self._dtype, target._dtype)
    if dt.category != D._FLOAT:
        raise NotImplementedError(f"\"{_CPU_NAMES[name]}_cpu\" not implemented for '{_cname(dt)}'")


def _sum_if(t, reduction):
    return t if reduction == NONE else t.sum()


def _scale(t, self, reduction):
    return t / self.numel() if reduction == MEAN else t


def _mse_dd(g, self, reduction):
    return _scale(g * 2, self, reduction)


def _smooth_l1_dd(g, self, target, reduction, beta):
    inside = ((self - target).abs() < beta).to(g.dtype)
    return _scale(g * inside / beta, self, reduction)


def _huber_dd(g, self, target, reduction, delta):
    inside = ((self - target).abs() <= delta).to(g.dtype)
    return _scale(g * inside, self, reduction)


mse_loss, mse_loss_backward = _loss_ops(
    "mse_loss",
    Pointwise("mse", _ST, "(self - target) * (self - target)"),
    Pointwise("mse_backward", _GST, "norm * type(self)(2) * (self - target) * grad_output", ["norm"]),
)
smooth_l1_loss, smooth_l1_loss_backward = _loss_ops(
    "smooth_l1_loss",
    Pointwise("smooth_l1", _ST, "(type(self)(0.5) * (self - target) * (self - target) / beta if abs(self - target) < beta "
              "else abs(self - target) - type(self)(0.5) * beta)", ["beta"]),
    Pointwise("smooth_l1_backward", _GST, "norm * grad_output * ((type(self)(-1) if self - target < -beta else type(self)(1)) "
              "if abs(self - target) >= beta else (self - target) / beta)", ["norm", "beta"]),
    "beta",
)  # fmt: skip
huber_loss, huber_loss_backward = _loss_ops(
    "huber_loss",
    Pointwise("huber", _ST, "(type(self)(0.5) * (self - target) * (self - target) if abs(self - target) < delta "
              "else delta * (abs(self - target) - type(self)(0.5) * delta))", ["delta"]),
    Pointwise("huber_backward", _GST, "norm * grad_output * ((-delta if self - target < -delta else delta) "
              "if abs(self - target) > delta else self - target)", ["norm", "delta"]),
    "delta",
)  # fmt: skip


def _call(op, *v):
    """op(grad, self, target, reduction, *params): by its kernel where Note [Loss gradients
    through their kernel]'s gate holds, else its dispatch."""
    g, s, t, red, *ps = v
    r = kernel_call(BWD_PW[op], g, s, t, (_norm(s, t, red), *ps))
    return dispatch(op, list(v)) if r is None else r


def _neg_call(op, *v):
    """-op(...): the kernel's result negated in place of neg's dispatch, where the gate holds"""
    g, s, t, red, *ps = v
    r = kernel_call(BWD_PW[op], g, s, t, (_norm(s, t, red), *ps))
    return -dispatch(op, list(v)) if r is None else negated(r)


_set_backward(
    mse_loss,
    {
        "self": lambda grad, self, target, reduction: _call(
            mse_loss_backward, grad, self, target, reduction
        ),
        "target": lambda grad, self, target, reduction: _call(
            mse_loss_backward, grad, target, self, reduction
        ),
    },
)
_set_backward(
    mse_loss_backward,
    {
        "grad_output": lambda grad, self, target, reduction: _sum_if(
            _call(mse_loss_backward, grad, self, target, reduction), reduction
        ),
        "self": lambda grad, grad_output, self, reduction: _mse_dd(
            grad * grad_output, self, reduction
        ),
        "target": lambda grad, grad_output, self, reduction: (
            -_mse_dd(grad * grad_output, self, reduction)
        ),
    },
)
_set_backward(
    smooth_l1_loss,
    {
        "self": lambda grad, self, target, reduction, beta: _call(
            smooth_l1_loss_backward, grad, self, target, reduction, beta
        ),
        "target": lambda grad, self, target, reduction, beta: _neg_call(
            smooth_l1_loss_backward, grad, self, target, reduction, beta
        ),
    },
)
_set_backward(
    smooth_l1_loss_backward,
    {
        "grad_output": lambda grad, self, target, reduction, beta: _sum_if(
            _call(smooth_l1_loss_backward, grad, self, target, reduction, beta), reduction
        ),
        "self": lambda grad, grad_output, self, target, reduction, beta: _smooth_l1_dd(
            grad * grad_output, self, target, reduction, beta
        ),
        "target": lambda grad, grad_output, self, target, reduction, beta: (
            -_smooth_l1_dd(grad * grad_output, self, target, reduction, beta)
        ),
    },
)
_set_backward(
    huber_loss,
    {
        "self": lambda grad, self, target, reduction, delta: _call(
            huber_loss_backward, grad, self, target, reduction, delta
        ),
        "target": lambda grad, self, target, reduction, delta: _neg_call(
            huber_loss_backward, grad, self, target, reduction, delta
        ),
    },
)
_set_backward(huber_loss_backward, {
    "grad_output": lambda grad, self, target, reduction, delta: _sum_if(
        _call(huber_loss_backward, grad, self, target, reduction, delta), reduction),
    "self": lambda grad, grad_output, self, target, reduction, delta: _huber_dd(grad * grad_output, self, target, reduction, delta),
    "target": lambda grad, grad_output, self, target, reduction, delta: -_huber_dd(grad * grad_output, self, target, reduction, delta)})  # fmt: skip


def _smooth_l1_checked(self, target, reduction, beta):
    if beta < 0:
        raise RuntimeError("smooth_l1_loss does not support negative values for beta.")
    if beta == 0:
        return dispatch(l1_loss, [self, target, reduction])
    return dispatch(smooth_l1_loss, [self, target, reduction, beta])


def _huber_checked(self, target, reduction, delta):
    if delta <= 0:
        raise RuntimeError("huber_loss does not support non-positive values for delta.")
    return dispatch(huber_loss, [self, target, reduction, delta])


def apply_reduction(t: Tensor, reduction: int) -> Tensor:
    """ATen's apply_loss_reduction, in ops."""
    if reduction == MEAN:
        return t.mean()
    if reduction == SUM:
        return t.sum()
    return t


l1_loss = defop("l1_loss(Tensor self, Tensor target, int reduction=1) -> Tensor",
                composite=lambda self, target, reduction: apply_reduction((self - target).abs(), reduction))  # fmt: skip


# ---- binary cross entropy ------------------------------------------------------------------------------
_BCE = Pointwise("binary_cross_entropy", ["self", "target", "weight"],
                 "-weight * (target * max(math.log(self), -100.0) + (1 - target) * max(math.log1p(-self), -100.0))")  # fmt: skip
_BCE_BWD = Pointwise("binary_cross_entropy_backward", ["grad_output", "self", "target", "weight"],
                     "norm * grad_output * weight * (self - target) / max((1 - self) * self, 1e-12)", ["norm"])  # fmt: skip


_UNIT_NP = (np.dtype(np.float32), np.dtype(np.float64))


def _unit(a) -> bool:
    """Every element of ``a`` in [0, 1]: one kernel pass over C-contiguous float32/float64 data
    (through its compiled entry), else NumPy's comparisons (four reductions were 3 us of a small
    binary_cross_entropy)."""
    if not a.size:
        return True
    if a.dtype in _UNIT_NP and a.flags.c_contiguous:
        return call(K, "in_unit_range", (a.reshape(-1),))
    return bool(np.all(a >= 0) and np.all(a <= 1))


def _bce_cpu(self, target, weight, reduction):
    if target._dtype is not self._dtype:  # TensorIterator's same-dtype check, before the dispatch
        raise RuntimeError(f"Found dtype {_cname(target._dtype)} but expected {_cname(self._dtype)}")
    if self._dtype.category != D._FLOAT:
        raise NotImplementedError(
            f"\"binary_cross_entropy\" not implemented for '{_cname(self._dtype)}'"
        )
    if not _unit(self._data):
        raise RuntimeError("all elements of input should be between 0 and 1")
    if not _unit(target._data):  # NaN fails both comparisons, as in PyTorch's kernel check
        raise RuntimeError("all elements of target should be between 0 and 1")
    elems = pair_kernel(_BCE, self, target, (1.0,)) if weight is None else None
    return _reduce(_BCE([self, target, 1.0 if weight is None else weight]) if elems is None else elems, reduction)


def _bce_backward_cpu(grad_output, self, target, weight, reduction):
    norm = _norm(self, target, reduction)
    return _BCE_BWD([grad_output, self, target, 1.0 if weight is None else weight], [norm])


def _bce_grad(grad, self, target, weight, reduction):
    # Note [Loss gradients through their kernel]: no weight is the engine's "s" operand 1.0
    r = None
    if weight is None:
        r = kernel_call(_BCE_BWD, grad, self, target, (_norm(self, target, reduction),), (1.0,))
    if r is None:
        return dispatch(binary_cross_entropy_backward, [grad, self, target, weight, reduction])
    return r


def _w(t, weight):
    return t * weight if weight is not None else t


def _bce_target_grad(grad, self, target, weight, reduction):
    g = ((-self).log1p().clamp_min(-100) - self.log().clamp_min(-100)) * grad
    return _scale(_w(g, weight), self, reduction)


def _bce_dd_self(grad, grad_output, self, target, weight, reduction):
    eps = 1e-12
    num = self * self - self * target * 2 + target
    den = (self + eps) * (self + eps) * (1 - self + eps) * (1 - self + eps)
    return _scale(_w(num / den * (grad * grad_output), weight), self, reduction)


def _bce_dd_target(grad, grad_output, self, weight, reduction):
    res = -grad * grad_output / ((1 - self) * self).clamp_min(1e-12)
    return _scale(_w(res, weight), self, reduction)


binary_cross_entropy = defop(
    "binary_cross_entropy(Tensor self, Tensor target, Tensor? weight=None, int reduction=1) -> Tensor",
    cpu=_bce_cpu,
    backward={"self": lambda grad, self, target, weight, reduction: _bce_grad(grad, self, target, weight, reduction),
              "target": _bce_target_grad},
)  # fmt: skip
binary_cross_entropy_backward = defop(
    "binary_cross_entropy_backward(Tensor grad_output, Tensor self, Tensor target, Tensor? weight=None, "
    "int reduction=1) -> Tensor",
    cpu=_bce_backward_cpu,
    backward={"grad_output": lambda grad, self, target, weight, reduction: _sum_if(dispatch(
        binary_cross_entropy_backward, [grad, self, target, weight, reduction]), reduction),
        "self": _bce_dd_self, "target": _bce_dd_target},
)  # fmt: skip

_BCE_LOGITS = Pointwise(
    "binary_cross_entropy_with_logits", ["self", "target", "weight", "pos_weight"],
    "weight * ((1 - target) * self + (1 + (pos_weight - 1) * target) * (math.log1p(math.exp(-abs(self))) + "
    "max(-self, 0.0)))",
)  # fmt: skip
# without pos_weight PyTorch has no (pos_weight - 1) * target term: an infinite target must not
# meet 0 * inf there (torch gives inf, the weighted form nan)
_BCE_LOGITS_NO_PW = Pointwise(
    "binary_cross_entropy_with_logits_no_pw", ["self", "target", "weight"],
    "weight * ((1 - target) * self + (math.log1p(math.exp(-abs(self))) + max(-self, 0.0)))",
)  # fmt: skip


def _bce_logits_cpu(self, target, weight, pos_weight, reduction):
    if self._dtype.category != D._FLOAT:  # PyTorch's formula starts with log_sigmoid(input)
        raise NotImplementedError(f'"log_sigmoid_cpu" not implemented for \'{_cname(self._dtype)}\'')
    ops = [self, target, 1.0 if weight is None else weight]
    elems = pair_kernel(_BCE_LOGITS_NO_PW, self, target, (1.0,)) if weight is None and pos_weight is None else None
    if elems is None:
        elems = _BCE_LOGITS_NO_PW(ops) if pos_weight is None else _BCE_LOGITS([*ops, pos_weight])
    if target._dtype.category == D._FLOAT and elems._dtype is not target._dtype:
        # PyTorch builds the loss as (1 - target).mul_(input)...: the target's dtype.
        elems = _make(elems._data.astype(target._dtype.np), target._dtype)
    return _reduce(elems, reduction)


def _bce_logits_grad(grad, self, target, weight, pos_weight, reduction):
    if pos_weight is not None:
        t = pos_weight * target
        gi = (t + 1 - target) * self.sigmoid() - t
    else:
        gi = self.sigmoid() - target
    return _scale(_w(gi * grad, weight), self, reduction)


def _bce_logits_target_grad(grad, self, target, weight, pos_weight, reduction):
    if pos_weight is not None:
        ls = _ops.aten.log_sigmoid.default
        gt = ls(-self) - ls(self) * pos_weight
    else:
        gt = -self
    return _scale(_w(gt * grad, weight), self, reduction)


binary_cross_entropy_with_logits = defop(
    "binary_cross_entropy_with_logits(Tensor self, Tensor target, Tensor? weight=None, Tensor? pos_weight=None, "
    "int reduction=1) -> Tensor",
    cpu=_bce_logits_cpu,
    backward={"self": _bce_logits_grad, "target": _bce_logits_target_grad},
)


# ---- composites -----------------------------------------------------------------------------------------
def _kl_div(self, target, reduction, log_target):
    for t in (self, target):
        if t.dtype.category == D._COMPLEX:
            raise RuntimeError("kl_div: Complex inputs not supported.")
        if t.dtype.category <= D._INT:
            raise RuntimeError("kl_div: Integral inputs not supported.")
    if log_target:
        out = target.exp() * (target - self)
    else:
        out = target.xlogy(target) - target * self
    return apply_reduction(out, reduction)


kl_div = defop("kl_div(Tensor self, Tensor target, int reduction=1, *, bool log_target=False) -> Tensor",
               composite=_kl_div)  # fmt: skip


def _margin_ranking(input1, input2, target, margin, reduction):
    return apply_reduction((-target * (input1 - input2) + margin).clamp_min(0), reduction)


margin_ranking_loss = defop(
    "margin_ranking_loss(Tensor input1, Tensor input2, Tensor target, float margin=0., int reduction=1) -> Tensor",
    composite=_margin_ranking,
)


def _cosine_embedding(input1, input2, target, margin, reduction):
    t_dim = target.dim()
    if input1.shape != input2.shape:
        raise RuntimeError(
            f"cosine_embedding_loss: Input1 and Input2 must have same shape, but got Input1 shape "
            f"{list(input1.shape)} and Input2 shape {list(input2.shape)}"
        )
    if input1.dim() != t_dim + 1:
        raise RuntimeError(
            f"cosine_embedding_loss: Expected input1 to have {t_dim + 1} dimensions, but got {input1.dim()}"
        )
    eps = 1e-12
    prod = (input1 * input2).sum(t_dim)
    mag1 = (input1 * input1).sum(t_dim) + eps
    mag2 = (input2 * input2).sum(t_dim) + eps
    cos = prod / (mag1 * mag2).sqrt()
    zeros = cos * 0
    pos = 1 - cos
    neg = (cos - margin).clamp_min(0)
    out_pos = pos.where(target == 1, zeros)
    out_neg = neg.where(target == -1, zeros)
    return apply_reduction(out_pos + out_neg, reduction)


cosine_embedding_loss = defop(
    "cosine_embedding_loss(Tensor input1, Tensor input2, Tensor target, float margin=0., int reduction=1) -> Tensor",
    composite=_cosine_embedding,
)
smooth_l1_checked = _smooth_l1_checked
huber_checked = _huber_checked
