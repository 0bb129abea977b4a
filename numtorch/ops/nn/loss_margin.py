"""Margin, embedding and likelihood losses as composites (STYLE rule 2): the aten ops
soft_margin_loss, hinge_embedding_loss, poisson_nll_loss, triplet_margin_loss, multi_margin_loss
and multilabel_margin_loss, and their ``torch.nn.functional`` forms, together with the losses
PyTorch writes in Python (gaussian_nll_loss, multilabel_soft_margin_loss,
triplet_margin_with_distance_loss).

Reductions are PyTorch's enum: 0 none, 1 mean, 2 sum.
"""

from __future__ import annotations

import math

from ..._dispatch import dispatch
from ..._ops import ops as _ops
from ...autograd.grad_mode import no_grad
from .._registry import defop, public
from .gaussian_nll_fast import clamp_clone, var_negative
from .layers import pairwise_distance
from .loss import forbid_grad
from .loss_multimargin import multi_margin_loss, multilabel_margin_loss
from .loss_pointwise import apply_reduction

_F = "torch.nn.functional"
aten = _ops.aten  # Note [Composite bodies are below the Python API]


def _enum(size_average, reduce, reduction) -> int:
    # functional.py imports this package, so its _Reduction is reached lazily
    from ...nn.functional import _enum as enum

    return enum(size_average, reduce, reduction)


# ---- pointwise margin losses -------------------------------------------------------------------------
def _soft_margin(self, target, reduction):
    return apply_reduction((-self * target).exp().log1p(), reduction)


soft_margin_loss = defop(
    "soft_margin_loss(Tensor self, Tensor target, int reduction=1) -> Tensor", composite=_soft_margin
)


def _hinge_embedding(self, target, margin, reduction):
    zeros = self * 0
    margin_clamp = (margin - self).clamp_min(0)
    out = margin_clamp.where(target != 1, zeros) + self.where(target != -1, zeros)
    return apply_reduction(out, reduction)


hinge_embedding_loss = defop(
    "hinge_embedding_loss(Tensor self, Tensor target, float margin=1.0, int reduction=1) -> Tensor",
    composite=_hinge_embedding,
)


def _poisson_nll(input, target, log_input, full, eps, reduction):
    if log_input:
        loss = input.exp() - target * input
    else:
        loss = input - target * (input + eps).log()
    if full:
        stirling = target * target.log() - target + (target * (2 * math.pi)).log() * 0.5
        loss = loss + stirling.masked_fill(target <= 1, 0)
    return apply_reduction(loss, reduction)


poisson_nll_loss = defop(
    "poisson_nll_loss(Tensor input, Tensor target, bool log_input, bool full, float eps, int reduction) -> Tensor",
    composite=_poisson_nll,
)


# ---- triplet --------------------------------------------------------------------------------------------
def _triplet_dims(anchor, positive, negative):
    a, p, n = anchor.dim(), positive.dim(), negative.dim()
    if not a == p == n:
        raise RuntimeError(
            f"The anchor, positive, and negative tensors are expected to have the same number of dimensions, "
            f"but got: anchor {a}D, positive {p}D, and negative {n}D inputs"
        )


def _triplet(anchor, positive, negative, margin, p, eps, swap, reduction):
    _triplet_dims(anchor, positive, negative)
    d_pos = dispatch(pairwise_distance, [anchor, positive, p, eps, False])
    d_neg = dispatch(pairwise_distance, [anchor, negative, p, eps, False])
    if swap:
        d_neg = d_neg.minimum(dispatch(pairwise_distance, [positive, negative, p, eps, False]))
    return apply_reduction((d_pos - d_neg + margin).clamp_min(0), reduction)


triplet_margin_loss = defop(
    "triplet_margin_loss(Tensor anchor, Tensor positive, Tensor negative, float margin=1.0, float p=2, "
    "float eps=1e-06, bool swap=False, int reduction=1) -> Tensor",
    composite=_triplet,
)


# ---- torch.nn.functional ---------------------------------------------------------------------------------
def _f_soft_margin(input, target, size_average, reduce, reduction):
    """log(1 + exp(-y x)).

    >>> numtorch.nn.functional.soft_margin_loss(numtorch.tensor([0.0]), numtorch.tensor([1.0]))
    tensor(0.6931)
    """
    forbid_grad("soft_margin_loss", "target", target)
    return dispatch(soft_margin_loss, [input, target, _enum(size_average, reduce, reduction)])


def _f_hinge(input, target, margin, size_average, reduce, reduction):
    """x for y = 1, max(0, margin - x) for y = -1.

    >>> numtorch.nn.functional.hinge_embedding_loss(numtorch.tensor([0.3]), numtorch.tensor([-1.0]))
    tensor(0.7000)
    """
    red = _enum(size_average, reduce, reduction)
    return dispatch(hinge_embedding_loss, [input, target, margin, red])


def _f_poisson(input, target, log_input, full, size_average, eps, reduce, reduction):
    """Negative log likelihood of a Poisson target.

    >>> numtorch.nn.functional.poisson_nll_loss(numtorch.tensor([0.0]), numtorch.tensor([1.0]))
    tensor(1.)
    """
    red = _enum(size_average, reduce, reduction)
    return dispatch(poisson_nll_loss, [input, target, log_input, full, eps, red])


def _f_gaussian(input, target, var, full, eps, reduction):
    """Negative log likelihood of a Gaussian with predicted mean and variance.

    >>> numtorch.nn.functional.gaussian_nll_loss(numtorch.zeros(2), numtorch.zeros(2), numtorch.ones(2))
    tensor(0.)
    """
    if isinstance(var, float):
        if var < 0:
            raise ValueError("var has negative entry/entries")
        var = input.new_ones(input.shape) * var
    elif not var.is_meta:
        neg = var_negative(var)  # Note [Gaussian NLL's check and clamp]
        if neg is None:
            neg = bool((var < 0).any())
        if neg:
            raise ValueError("var has negative entry/entries")
    if var.size() != input.size():
        if input.size()[:-1] == var.size():
            var = var.unsqueeze(-1)
        elif not (
            input.dim() == var.dim()
            and sum(b for a, b in zip(input.size(), var.size()) if a != b) == 1
        ):
            raise ValueError("var is of incorrect size")
    if reduction not in ("none", "mean", "sum"):
        raise ValueError(reduction + " is not valid")
    var = var.clone()
    if not clamp_clone(var, eps):
        with no_grad():
            var.clamp_(min=eps)
    loss = (var.log() + (input - target) ** 2 / var) * 0.5
    if full:
        loss = loss + 0.5 * math.log(2 * math.pi)
    return apply_reduction(loss, _enum(None, None, reduction))


def _f_multilabel_soft(input, target, weight, size_average, reduce, reduction):
    """Per-class logistic loss averaged over classes.

    >>> numtorch.nn.functional.multilabel_soft_margin_loss(numtorch.zeros(1, 2), numtorch.ones(1, 2))
    tensor(0.6931)
    """
    red = _enum(size_average, reduce, reduction)
    loss = -(target * aten.log_sigmoid.default(input) + (1 - target) * aten.log_sigmoid.default(-input))
    if weight is not None:
        loss = loss * weight
    class_dim = input.dim() - 1
    loss = loss.sum(class_dim) / input.size(class_dim)
    return apply_reduction(loss, red)


def _f_triplet(anchor, positive, negative, margin, p, eps, swap, size_average, reduce, reduction):
    """max(0, d(a, p) - d(a, n) + margin) with the p-norm distance.

    >>> a = numtorch.zeros(1, 2)
    >>> numtorch.nn.functional.triplet_margin_loss(a, a, a + 1)
    tensor(0.)
    """
    red = _enum(size_average, reduce, reduction)
    return dispatch(triplet_margin_loss, [anchor, positive, negative, margin, p, eps, swap, red])


def _f_triplet_distance(anchor, positive, negative, distance_function, margin, swap, reduction):
    """The triplet loss with any distance function (pairwise_distance by default).

    >>> a = numtorch.zeros(1, 2)
    >>> numtorch.nn.functional.triplet_margin_with_distance_loss(a, a, a + 1)
    tensor(0.)
    """
    if margin <= 0:
        raise ValueError(f"margin must be greater than 0, got {margin}")
    _triplet_dims(anchor, positive, negative)
    red = _enum(None, None, reduction)

    def dist(x, y):
        if distance_function is None:
            return dispatch(pairwise_distance, [x, y, 2.0, 1e-6, False])
        return distance_function(x, y)

    d_pos, d_neg = dist(anchor, positive), dist(anchor, negative)
    if swap:
        d_neg = d_neg.minimum(dist(positive, negative))
    return apply_reduction((margin + d_pos - d_neg).clamp_min(0), red)


def _f_multi_margin(input, target, p, margin, weight, size_average, reduce, reduction):
    """Multi-class hinge loss: sum over j != y of max(0, margin - x[y] + x[j])^p / C.

    >>> numtorch.nn.functional.multi_margin_loss(numtorch.tensor([[0.0, 1.0]]), numtorch.tensor([1]))
    tensor(0.)
    """
    red = _enum(size_average, reduce, reduction)
    if p != 1 and p != 2:
        raise ValueError("only p == 1 and p == 2 supported")
    if weight is not None and weight.dim() != 1:
        raise ValueError("weight must be one-dimensional")
    forbid_grad("multi_margin_loss", "weight", weight)
    return dispatch(multi_margin_loss, [input, target, p, margin, weight, red])


def _f_multilabel_margin(input, target, size_average, reduce, reduction):
    """Multi-label hinge loss over (target, non-target) class pairs.

    >>> numtorch.nn.functional.multilabel_margin_loss(numtorch.tensor([[0.0, 1.0]]), numtorch.tensor([[1, -1]]))
    tensor(0.)
    """
    red = _enum(size_average, reduce, reduction)
    return dispatch(multilabel_margin_loss, [input, target, red])


_LEGACY = "size_average=None, reduce=None, reduction='mean'"
for _name, _sig, _body, _rel, _op in (
    ("soft_margin_loss", f"input, target, {_LEGACY}", _f_soft_margin, ("input", "target"), soft_margin_loss),
    ("hinge_embedding_loss", f"input, target, margin=1.0, {_LEGACY}", _f_hinge, ("input", "target"),
     hinge_embedding_loss),
    ("poisson_nll_loss", "input, target, log_input=True, full=False, size_average=None, eps=1e-08, reduce=None, "
     "reduction='mean'", _f_poisson, ("input", "target"), poisson_nll_loss),
    ("gaussian_nll_loss", "input, target, var, full=False, eps=1e-06, reduction='mean'", _f_gaussian,
     ("input", "target", "var"), None),
    ("multilabel_soft_margin_loss", f"input, target, weight=None, {_LEGACY}", _f_multilabel_soft,
     ("input", "target", "weight"), None),
    ("triplet_margin_loss", f"anchor, positive, negative, margin=1.0, p=2, eps=1e-06, swap=False, {_LEGACY}",
     _f_triplet, ("anchor", "positive", "negative"), triplet_margin_loss),
    ("triplet_margin_with_distance_loss", "anchor, positive, negative, *, distance_function=None, margin=1.0, "
     "swap=False, reduction='mean'", _f_triplet_distance, ("anchor", "positive", "negative"), None),
    ("multi_margin_loss", f"input, target, p=1, margin=1.0, weight=None, {_LEGACY}", _f_multi_margin,
     ("input", "target", "weight"), multi_margin_loss),
    ("multilabel_margin_loss", f"input, target, {_LEGACY}", _f_multilabel_margin, ("input", "target"),
     multilabel_margin_loss),
):  # fmt: skip
    public(_name, _sig, _body, relevant=_rel, module=_F, ops=(_op,) if _op is not None else ())
