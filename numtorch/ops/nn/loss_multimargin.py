"""The multi-class margin losses: multi_margin_loss (+ _backward) and multilabel_margin_loss, a
composite over multilabel_margin_loss_forward (+ multilabel_margin_loss_backward), as ATen's.

# Note [Fused multi-class margin losses]
# Each op is one CPU kernel (kernels/cpu/nn/margin.py: ATen's loops, its summation order and
# accumulators) and its derivative the fused backward op, which dispatch modes see as PyTorch's
# calls: a (3, 4) loss went from ~110-230 us of composite to a few us. When the backward is
# itself recorded (create_graph), the gradient is the composites' (below, in ops), so that it
# differentiates again; PyTorch has no double backward for these and raises there.

Reductions are PyTorch's enum: 0 none, 1 mean, 2 sum.
"""

from __future__ import annotations

import numpy as np

from ... import _dtype as D
from ..._dispatch import dispatch
from ..._state import STATE
from ..._tensor import _make
from ...autograd._api import grad as autograd_grad
from ...autograd.grad_mode import enable_grad, no_grad
from ...kernels import lazy
from .._meta_shapes import SHAPE_RULES
from .._pointwise import _cname
from .._registry import defop
from .loss_pointwise import apply_reduction

MK = lazy("numtorch.kernels.cpu.nn.margin")


def _class_input(self, target):
    shape = self._data.shape
    nd = len(shape)
    if not ((nd == 2 and shape[1] != 0) or (nd == 1 and shape[0] != 0) or nd == 0):
        raise RuntimeError(f"Expected non-empty vector or matrix with optional 0-dim batch size, but got: {list(shape)}")
    if target._dtype is not D.int64:
        raise RuntimeError(f"expected scalar type Long but found {_cname(target._dtype)}")
    n, c = (shape[0], shape[1]) if nd == 2 else (1, shape[0] if nd else 1)
    return n, c


def _floating_kernel(x, kernel: str) -> None:
    # AT_DISPATCH_FLOATING_TYPES: after the shape checks, before the kernel reads the targets
    if x._dtype is not D.float32 and x._dtype is not D.float64 and x.device.type == "cpu":
        raise NotImplementedError(f"\"{kernel}\" not implemented for '{_cname(x._dtype)}'")


def _rows(t, n, c, dt=None):
    return np.ascontiguousarray(t._data, dtype=dt).reshape(n, c)


def _checked_kernel(status, message):
    if status:
        raise RuntimeError(message)


# ---- multi_margin_loss ---------------------------------------------------------------------------------
def _check_multi_margin(self, target, p, weight):
    n, c = _class_input(self, target)
    nd, ts = self._data.ndim, target._data.shape
    if (nd < 2 and target._data.size != 1) or (nd == 2 and (len(ts) > 1 or target._data.size != n)):
        raise RuntimeError(
            "multi_margin_loss: target tensor should be 1-D with size equal to the number of input samples "
            f"(batch size). Expected target size [{n}], but got {list(ts)}. Input has shape {list(self._data.shape)}."
        )
    if p not in (1, 2):
        raise RuntimeError("only p == 1 and p == 2 supported")
    if weight is not None and (weight._data.ndim > 1 or weight._data.size != c):
        raise RuntimeError(f"inconsistent weight size, expected {c} but got {list(weight._data.shape)}")
    _floating_kernel(self, "multi_margin_loss_cpu_kernel")
    return n, c


def _multi_margin_composite(self, target, p, margin, weight, reduction):
    n, c = _check_multi_margin(self, target, p, weight)
    x = self.reshape(n, c)
    t = target.reshape(n, 1)
    z = (x - x.gather(1, t) + margin).clamp_min(0)
    if p == 2:
        z = z * z
    if weight is not None:
        z = z * weight.gather(0, t.reshape(n)).reshape(n, 1)
    own = x.new_zeros((n, c), dtype=D.bool).scatter(1, t, True)
    per = z.masked_fill(own, 0).sum(1) / c
    if reduction == 0:
        return per.reshape(target.shape) if self.dim() == 2 else per.reshape(())
    return apply_reduction(per, reduction)


def _mm_args(self, target, p, margin, weight):
    n, c = _check_multi_margin(self, target, p, weight)
    dt = self._dtype.np.type
    w = np.ascontiguousarray(weight._data, dtype=dt).reshape(-1) if weight is not None else np.zeros(1, dt)
    return n, c, _rows(self, n, c), np.ascontiguousarray(target._data).reshape(n), int(p), dt(margin), w


def _multi_margin_cpu(self, target, p, margin, weight, reduction):
    # Note [Fused multi-class margin losses]
    n, c, x, t, p, m, w = _mm_args(self, target, p, margin, weight)
    none = reduction == 0 and self._data.ndim == 2
    out = np.empty(n if none else 1, x.dtype)
    if n:
        _checked_kernel(MK.multi_margin(x, t, p, m, w, weight is not None, out, 0 if none else reduction),
                        "target out of range")  # fmt: skip
    elif not none:
        out[0] = np.nan if reduction == 1 else 0
    return _make(out.reshape(target._data.shape if none else ()), self._dtype)


def _multi_margin_backward_cpu(grad_output, self, target, p, margin, weight, reduction):
    n, c, x, t, p, m, w = _mm_args(self, target, p, margin, weight)
    gi = np.empty((n, c), x.dtype)
    go = np.ascontiguousarray(grad_output._data, dtype=x.dtype).reshape(-1)
    if n:
        per_row = not (reduction != 0 or grad_output._data.ndim == 0)
        _checked_kernel(MK.multi_margin_backward(go, x, t, p, m, w, weight is not None, gi, reduction, per_row),
                        "target out of range")  # fmt: skip
    return _make(gi.reshape(self._data.shape), self._dtype)


def _multi_margin_grad(grad, self, target, p, margin, weight, reduction):
    if STATE.grad_enabled:  # create_graph: the composite's gradient differentiates again
        with enable_grad():
            out = _multi_margin_composite(self, target, p, margin, weight, reduction)
            return autograd_grad(out, self, grad, create_graph=True)[0]
    return dispatch(multi_margin_loss_backward, [grad, self, target, p, margin, weight, reduction])


def _vjp(composite, grad_output, self, *args):
    # a device without these kernels (CUDA) differentiates the composite, whose ops run there
    with enable_grad():
        x = self.detach().requires_grad_()
        return autograd_grad(composite(x, *args), x, grad_output)[0]


def _multi_margin_cuda(self, target, p, margin, weight, reduction):
    n, c = _check_multi_margin(self, target, p, weight)
    if bool(((target < 0) | (target >= c)).any()):
        raise RuntimeError("target out of range")
    with no_grad():
        return _multi_margin_composite(self, target, p, margin, weight, reduction)


multi_margin_loss = defop(
    "multi_margin_loss(Tensor self, Tensor target, Scalar p=1, Scalar margin=1, Tensor? weight=None, "
    "int reduction=1) -> Tensor",
    cpu=_multi_margin_cpu,
    cuda=_multi_margin_cuda,
    backward={"self": _multi_margin_grad},
)
multi_margin_loss_backward = defop(
    "multi_margin_loss_backward(Tensor grad_output, Tensor self, Tensor target, Scalar p, Scalar margin, "
    "Tensor? weight=None, int reduction=1) -> Tensor",
    cpu=_multi_margin_backward_cpu,
    cuda=lambda grad_output, self, *args: _vjp(_multi_margin_composite, grad_output, self, *args),
)


def _multi_margin_meta(a):
    self, target = a["self"], a["target"]
    _check_multi_margin(self, target, a["p"], a["weight"])
    return tuple(target._data.shape) if a["reduction"] == 0 and self._data.ndim == 2 else ()


SHAPE_RULES["multi_margin_loss"] = _multi_margin_meta
SHAPE_RULES["multi_margin_loss_backward"] = lambda a: tuple(a["self"]._data.shape)


# ---- multilabel_margin_loss -----------------------------------------------------------------------------
def _check_multilabel(self, target):
    n, c = _class_input(self, target)
    ts = list(target._data.shape)
    ok = len(ts) <= 1 and target._data.size == c if self._data.ndim <= 1 else ts == [n, c]
    if not ok:
        raise RuntimeError(f"inconsistent target size: {ts} for input of size: {list(self._data.shape)}")
    _floating_kernel(self, "multilabel_margin_loss_forward_out_frame")
    return n, c


def _multilabel_margin_composite(self, target, reduction):
    n, c = _check_multilabel(self, target)
    x, t = self.reshape(n, c), target.reshape(n, c)
    # labels count up to the first -1 in each row; a repeated label counts each time, as in ATen
    valid = (t != -1).cumprod(1).bool()
    idx = t.clamp_min(0)
    count = x.new_zeros((n, c)).scatter_add(1, idx, valid.to(x.dtype))
    others = (count == 0).to(x.dtype)
    hinge = (x.unsqueeze(1) - x.unsqueeze(2) + 1).clamp_min(0)
    per = (hinge * count.unsqueeze(2) * others.unsqueeze(1)).sum((1, 2)) / c
    if reduction == 0:
        return per if self.dim() == 2 else per.reshape(())
    return apply_reduction(per, reduction)


def _multilabel_forward_cpu(self, target, reduction):
    # Note [Fused multi-class margin losses]
    n, c = _check_multilabel(self, target)
    x, t = _rows(self, n, c), _rows(target, n, c)
    none = reduction == 0 and self._data.ndim == 2
    out = np.empty(n if none else 1, x.dtype)
    is_t = np.empty((n, c), x.dtype)
    if n:
        _checked_kernel(MK.multilabel_margin(x, t, is_t, out, 0 if none else reduction, x.dtype.type(1)),
                        "argument #2 'target' is out of range")  # fmt: skip
    elif not none:
        out[0] = np.nan if reduction == 1 else 0
    return _make(out.reshape((n,) if none else ()), self._dtype), _make(is_t.reshape(target._data.shape), self._dtype)


def _multilabel_backward_cpu(grad_output, self, target, reduction, is_target):
    n, c = _check_multilabel(self, target)
    x, t = _rows(self, n, c), _rows(target, n, c)
    gi = np.empty((n, c), x.dtype)
    go = np.ascontiguousarray(grad_output._data, dtype=x.dtype).reshape(-1)
    if n:
        per_row = not (reduction != 0 or grad_output._data.ndim == 0)
        _checked_kernel(MK.multilabel_margin_backward(go, x, t, _rows(is_target, n, c, x.dtype), gi, reduction,
                                                      per_row, x.dtype.type(1)),
                        "argument #2 'target' is out of range")  # fmt: skip
    return _make(gi.reshape(self._data.shape), self._dtype)


def _multilabel_grad(grads, self, target, reduction, result1):
    if STATE.grad_enabled:  # create_graph: the composite's gradient differentiates again
        with enable_grad():
            out = _multilabel_margin_composite(self, target, reduction)
            return autograd_grad(out, self, grads[0], create_graph=True)[0]
    return dispatch(multilabel_margin_loss_backward, [grads[0], self, target, reduction, result1])


def _multilabel_forward_cuda(self, target, reduction):
    n, c = _check_multilabel(self, target)
    if bool(((target < -1) | (target >= c)).any()):
        raise RuntimeError("argument #2 'target' is out of range")
    with no_grad():
        t = target.reshape(n, c)
        valid = (t != -1).cumprod(1).to(self.dtype)
        is_t = (self.new_zeros((n, c)).scatter_add(1, t.clamp_min(0), valid) > 0).to(self.dtype)
        return _multilabel_margin_composite(self, target, reduction), is_t.reshape(target.shape)


multilabel_margin_loss_forward = defop(
    "multilabel_margin_loss_forward(Tensor self, Tensor target, int reduction) -> (Tensor output, Tensor is_target)",
    cpu=_multilabel_forward_cpu,
    cuda=_multilabel_forward_cuda,
    backward={"self": _multilabel_grad},
    output_differentiability=(True, False),
)
multilabel_margin_loss_backward = defop(
    "multilabel_margin_loss_backward(Tensor grad_output, Tensor self, Tensor target, int reduction, "
    "Tensor is_target) -> Tensor",
    cpu=_multilabel_backward_cpu,
    cuda=lambda grad_output, self, target, reduction, is_target: _vjp(_multilabel_margin_composite, grad_output,
                                                                      self, target, reduction),  # fmt: skip
)
multilabel_margin_loss = defop(
    "multilabel_margin_loss(Tensor self, Tensor target, int reduction=1) -> Tensor",
    composite=lambda self, target, reduction: dispatch(multilabel_margin_loss_forward, [self, target, reduction])[0],
)


def _multilabel_meta(a):
    self, target = a["self"], a["target"]
    n, _ = _check_multilabel(self, target)
    return [(n,) if a["reduction"] == 0 and self._data.ndim == 2 else (), tuple(target._data.shape)]


SHAPE_RULES["multilabel_margin_loss_forward"] = _multilabel_meta
SHAPE_RULES["multilabel_margin_loss_backward"] = lambda a: tuple(a["self"]._data.shape)
