"""Loss ops: nll_loss (kernel, 1-2-d and 2d-spatial forms), cross_entropy_loss and nll_loss_nd
(composites, as in ATen's LossNLL.cpp), and the elementwise losses (generated pointwise kernels
reduced by a float64 ``total`` kernel) with their backward ops.

Reductions are PyTorch's enum: 0 none, 1 mean, 2 sum.
"""

from __future__ import annotations

import math

import numpy as np

from ... import _dtype as D
from ..._dispatch import dispatch
from ..._ops import ops as _ops
from ..._state import STATE
from ..._tensor import Tensor, _make
from ...kernels import lazy
from .._pointwise import _cname
from .._registry import defop, fast_of

K = lazy("numtorch.kernels.cpu.nn.loss")
NONE, MEAN, SUM = 0, 1, 2
_I64 = np.dtype(np.int64)


# ---- nll loss ----------------------------------------------------------------------------------------
def _target_array(target: Tensor) -> np.ndarray:
    if target._dtype not in (D.int64, D.uint8):
        raise RuntimeError(
            f"expected target dtype to be Long or Byte, but got {_cname(target._dtype)}"
        )
    a = target._data
    if a.dtype is _I64 and a.flags.c_contiguous:  # what ascontiguousarray returns, as a flat view
        return a.ravel()
    return np.ascontiguousarray(a, dtype=np.int64).reshape(-1)


def _nll_prepare(self, target, weight, ignore_index, C):
    t = _target_array(target)
    # one reduction in the common case: a negative target read as uint64 is >= C too
    if t.size and np.maximum.reduce(t.view(np.uint64)) >= C:
        bad = t[(t != ignore_index) & ((t < 0) | (t >= C))]
        if bad.size:
            raise IndexError(f"Target {int(bad[0])} is out of bounds.")
    if weight is not None and (weight._data.ndim != 1 or weight._data.size != C):
        raise RuntimeError(
            f"weight tensor should be defined either for all {C} classes or no classes but got weight tensor of "
            f"shape: {list(weight._data.shape)}"
        )
    dt = self._dtype if self._dtype is not D.float16 else D.float32
    if dt.category != D._FLOAT:
        raise NotImplementedError(
            f"\"nll_loss_forward_reduce_cuda_kernel_2d_index\" not implemented for '{_cname(dt)}'"
        )
    w = (
        np.empty(0, dt.np)
        if weight is None
        else np.ascontiguousarray(weight._data, dtype=dt.np).reshape(-1)
    )
    return t, w, dt


def _nll_forward(self, target, weight, reduction, ignore_index, N, C, S, none_shape):
    t, w, dt = _nll_prepare(self, target, weight, ignore_index, C)
    x = self._data
    x = x.ravel() if x.dtype is dt.np and x.flags.c_contiguous else np.ascontiguousarray(x, dtype=dt.np).reshape(-1)
    per = np.empty(t.size, dt.np)
    tw = K.nll_loss(x, t, w, C, S, int(ignore_index), per) if t.size else 0.0
    if reduction == NONE:
        out = per.reshape(none_shape)
    elif reduction == SUM:
        out = np.array(K.total(per) if per.size else 0.0, dt.np)
    else:
        out = np.array(K.total(per) / tw if tw else np.nan, dt.np)
    like = self._dtype
    return _make(out.astype(like.np, copy=False), like), _make(np.array(tw, like.np), like)


def _nll_backward(
    grad_output, self, target, weight, reduction, ignore_index, total_weight, N, C, S
):
    t, w, dt = _nll_prepare(self, target, weight, ignore_index, C)
    g = np.ascontiguousarray(grad_output._data, dtype=dt.np).reshape(-1)
    scale = 1.0
    if reduction == MEAN:
        tw = float(total_weight._data.item())
        scale = 1.0 / tw if tw else math.nan
    gi = np.empty(self._data.size, dt.np)
    if t.size and g.size:
        K.nll_loss_backward(g, t, w, C, S, int(ignore_index), scale, gi)  # zeroes gi first
    else:
        gi[...] = 0
    return _make(gi.reshape(self._data.shape).astype(self._dtype.np, copy=False), self._dtype)


def _nll_1d2d_check(self, target):
    # kernel-side code: array attributes, not the public methods' __torch_function__ gates
    nd, shape, tshape = self._data.ndim, self._data.shape, target._data.shape
    if not 0 < nd <= 2:
        raise RuntimeError("input tensor should be 1D or 2D")
    if len(tshape) > 1:
        raise RuntimeError("0D or 1D target tensor expected, multi-target not supported")
    no_batch = nd == 1 and not tshape
    if not no_batch and shape[0] != tshape[0]:
        raise RuntimeError(f"size mismatch (got input: {list(shape)}, target: {list(tshape)})")
    N = 1 if nd == 1 else shape[0]
    return N, shape[-1], (() if nd == 1 else (N,))


def _nll_fwd_cpu(self, target, weight, reduction, ignore_index):
    N, C, shape = _nll_1d2d_check(self, target)
    return _nll_forward(self, target, weight, reduction, ignore_index, N, C, 1, shape)


def _nll_bwd_cpu(grad_output, self, target, weight, reduction, ignore_index, total_weight):
    N, C, _ = _nll_1d2d_check(self, target)
    return _nll_backward(
        grad_output, self, target, weight, reduction, ignore_index, total_weight, N, C, 1
    )


def _nll2d_check(self, target):
    # kernel-side code: array attributes, not the public methods' __torch_function__ gates
    if target._data.ndim != 3:
        raise RuntimeError(
            f"only batches of spatial targets supported (3D tensors) but got targets of dimension: {target._data.ndim}"
        )
    if self._data.ndim != 4:
        raise RuntimeError(
            f"only batches of spatial inputs supported (4D tensors), but got input of dimension: {self._data.ndim}"
        )
    n, c, h, w = self._data.shape
    if target._data.shape != (n, h, w):
        raise RuntimeError(
            f"size mismatch (got input: {list(self._data.shape)} , target: {list(target._data.shape)}"
        )
    return n, c, h * w


def _nll2d_fwd_cpu(self, target, weight, reduction, ignore_index):
    N, C, S = _nll2d_check(self, target)
    return _nll_forward(self, target, weight, reduction, ignore_index, N, C, S, target._data.shape)


def _nll2d_bwd_cpu(grad_output, self, target, weight, reduction, ignore_index, total_weight):
    N, C, S = _nll2d_check(self, target)
    return _nll_backward(
        grad_output, self, target, weight, reduction, ignore_index, total_weight, N, C, S
    )


def _declare_nll(name, fwd, bwd):
    f = b = None
    f = defop(
        f"{name}_forward(Tensor self, Tensor target, Tensor? weight, int reduction, SymInt ignore_index) -> "
        "(Tensor output, Tensor total_weight)",
        cpu=fwd,
        backward={"self": lambda grad, self, target, weight, reduction, ignore_index, result1: dispatch(
            b, [grad, self, target, weight, reduction, ignore_index, result1])},
        output_differentiability=(True, False),
    )  # fmt: skip
    b = defop(
        f"{name}_backward(Tensor grad_output, Tensor self, Tensor target, Tensor? weight, int reduction, "
        "SymInt ignore_index, Tensor total_weight) -> Tensor",
        cpu=bwd,
        backward={"grad_output": lambda grad, target, weight, reduction, ignore_index: dispatch(
            f, [grad, target, weight, reduction, ignore_index])[0],
            "self": lambda grad: _ops.aten.zeros_like.default(grad)},
    )  # fmt: skip
    top = defop(
        f"{name}(Tensor self, Tensor target, Tensor? weight=None, int reduction=1, SymInt ignore_index=-100) -> Tensor",
        composite=lambda *v: dispatch(f, list(v))[0],
    )
    return f, b, top


nll_loss_forward, nll_loss_backward, nll_loss = _declare_nll("nll_loss", _nll_fwd_cpu, _nll_bwd_cpu)
nll_loss2d_forward, nll_loss2d_backward, nll_loss2d = _declare_nll(
    "nll_loss2d", _nll2d_fwd_cpu, _nll2d_bwd_cpu
)


def forbid_grad(fname: str, name: str, t) -> None:
    """PyTorch's check for a tensor argument without a derivative (class weights, running
    stats): it must not require grad while grad mode is on."""
    if t is not None and t.requires_grad and STATE.grad_enabled:
        raise RuntimeError(
            f"The function '{fname}' is not differentiable with respect to argument '{name}'. "
            "This input cannot have requires_grad True."
        )


def _nll_loss_nd(self, target, weight, reduction, ignore_index):
    nd = self._data.ndim
    forbid_grad("nll_loss_forward" if nd < 3 else "nll_loss2d_forward", "weight", weight)
    if nd < 1:
        raise ValueError(f"Expected 1 or more dimensions (got {nd})")
    if nd != 1 and self._data.shape[0] != target._data.shape[0]:
        raise ValueError(
            f"Expected input batch_size ({self.shape[0]}) to match target batch_size ({target.shape[0]})."
        )
    if nd in (1, 2):
        return dispatch(nll_loss, [self, target, weight, reduction, ignore_index])
    if nd == 4:
        return dispatch(nll_loss2d, [self, target, weight, reduction, ignore_index])
    n, c = self.shape[0], self.shape[1]
    out_size = [n] + list(self.shape[2:])
    if list(target.shape[1:]) != list(self.shape[2:]):
        raise RuntimeError(f"Expected target size {out_size}, got {list(target.shape)}")
    x = self.contiguous().view(n, c, 1, -1) if self.numel() else self.view(n, c, 0, 0)
    t = target.contiguous().view(n, 1, -1) if target.numel() else target.view(n, 0, 0)
    out = dispatch(nll_loss2d, [x, t, weight, reduction, ignore_index])
    return out.view(out_size) if reduction == NONE else out


nll_loss_nd = defop(
    "nll_loss_nd(Tensor self, Tensor target, Tensor? weight=None, int reduction=1, SymInt ignore_index=-100) -> Tensor",
    composite=_nll_loss_nd,
)


# ---- cross entropy -------------------------------------------------------------------------------------
# Note [Composite bodies are below the Python API]: op calls, not Tensor methods or operators,
# so patching Tensor.log_softmax (or __mul__) never changes cross_entropy, as in ATen's C++;
# dispatch() with every schema value skips the aten overloads' argument binding.
aten = _ops.aten


def _log_softmax(x, dim):
    return dispatch(aten.log_softmax.int, [x, dim, None])


def _sum(x, dim=None):
    # Tensor.sum's fused path (the op's own dispatch takes the general reduction)
    return fast_of("sum", "Tensor")(x, dim, False)


def _neg_sum(x, dim=None):
    """-x.sum() or -x.sum(dim)"""
    return dispatch(aten.neg.default, [_sum(x, dim)])


def _class_view(weight, input, class_dim):
    if input.dim() > 1:
        shape = [1] * input.dim()
        shape[class_dim] = weight.shape[0]
        return dispatch(aten.view.default, [weight, shape])
    return weight


def _ce_prob_target(self, target, weight, reduction, label_smoothing):
    class_dim = 0 if self.dim() == 1 else 1
    n_classes = self.shape[class_dim]
    if weight is not None and (weight.dim() != 1 or weight.numel() != n_classes):
        raise RuntimeError(
            f"cross_entropy: weight tensor should be defined either for all {n_classes} classes or no classes but "
            f"got weight tensor of shape: {list(weight.shape)}"
        )
    logp = _log_softmax(self, class_dim)
    t = target
    if label_smoothing > 0:
        t = dispatch(aten.mul.Tensor, [target, 1 - label_smoothing])
        t = dispatch(aten.add.Tensor, [t, label_smoothing / n_classes, 1])
    prod = dispatch(aten.mul.Tensor, [logp, t])
    if weight is not None:
        prod = dispatch(aten.mul.Tensor, [prod, _class_view(weight, logp, class_dim)])
    if reduction == MEAN:
        if logp.numel() == 0:
            return dispatch(aten.mul.Tensor, [_neg_sum(prod), math.nan])
        return dispatch(aten.div.Tensor, [_neg_sum(prod), logp.numel() / n_classes])
    if reduction == SUM:
        return _neg_sum(prod)
    return _neg_sum(prod, class_dim)


def _ce_label_smoothing(self, target, weight, reduction, ignore_index, label_smoothing):
    class_dim = 0 if self.dim() == 1 else 1
    logp = _log_softmax(self, class_dim)
    nll = dispatch(nll_loss_nd, [logp, target, weight, reduction, ignore_index])
    n_classes = logp.shape[class_dim]
    ignore = dispatch(aten.eq.Scalar, [target, ignore_index])
    weighted = logp
    if weight is not None:
        weighted = dispatch(aten.mul.Tensor, [logp, _class_view(weight, logp, class_dim)])
    smooth = dispatch(aten.masked_fill.Scalar, [_neg_sum(weighted, class_dim), ignore, 0.0])
    if reduction == MEAN:
        if weight is not None:
            filtered = dispatch(aten.masked_fill.Scalar, [target, ignore, 0])
            flat = dispatch(aten.flatten.using_ints, [filtered, 0, -1])
            tw = dispatch(aten.gather.default, [weight, 0, flat, False])
            tw = dispatch(aten.view.default, [tw, list(filtered.shape)])
            tw = _sum(dispatch(aten.masked_fill.Scalar, [tw, ignore, 0]))
            ret = dispatch(aten.div.Tensor, [_sum(smooth), tw])
        else:
            total = _sum(smooth)
            kept = _sum(dispatch(aten.bitwise_not.default, [ignore]))
            ret = dispatch(aten.div.Tensor, [total, kept])
    elif reduction == SUM:
        ret = _sum(smooth)
    else:
        ret = smooth
    nll = dispatch(aten.mul.Tensor, [nll, 1 - label_smoothing])
    smooth = dispatch(aten.mul.Tensor, [ret, label_smoothing / n_classes])
    return dispatch(aten.add.Tensor, [nll, smooth, 1])


def _cross_entropy_loss(self, target, weight, reduction, ignore_index, label_smoothing):
    if self._data.shape == target._data.shape:
        if target.dtype.category != D._FLOAT:
            raise RuntimeError(
                f"Expected floating point type for target with class probabilities, got {_cname(target.dtype)}"
            )
        if ignore_index >= 0:
            raise RuntimeError("ignore_index is not supported for floating point target")
        if not self.dim():  # ATen reads the class dim's size before the label_smoothing check
            raise IndexError("Dimension specified as 1 but tensor has no dimensions")
        if not 0.0 <= label_smoothing <= 1.0:
            raise RuntimeError(
                f"label_smoothing must be between 0.0 and 1.0. Got: {label_smoothing}"
            )
        return _ce_prob_target(self, target, weight, reduction, label_smoothing)
    if label_smoothing > 0.0:
        if label_smoothing > 1.0:
            raise RuntimeError(
                f"label_smoothing must be between 0.0 and 1.0. Got: {label_smoothing}"
            )
        return _ce_label_smoothing(self, target, weight, reduction, ignore_index, label_smoothing)
    class_dim = 0 if self._data.ndim == 1 else 1
    logp = _log_softmax(self, class_dim)
    return dispatch(nll_loss_nd, [logp, target, weight, reduction, ignore_index])


cross_entropy_loss = defop(
    "cross_entropy_loss(Tensor self, Tensor target, Tensor? weight=None, int reduction=1, SymInt ignore_index=-100, "
    "float label_smoothing=0.0) -> Tensor",
    composite=_cross_entropy_loss,
)
