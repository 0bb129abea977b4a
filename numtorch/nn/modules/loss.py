"""Loss modules: thin wrappers keeping the reduction (and weights) of the functional losses."""

from __future__ import annotations

import warnings

from ..._tensor import Tensor
from .. import functional as F
from ..functional import _Reduction
from .distance import PairwiseDistance
from .module import Module

__all__ = ["CTCLoss", "L1Loss", "NLLLoss", "NLLLoss2d", "MSELoss", "CrossEntropyLoss", "BCELoss", "BCEWithLogitsLoss", "KLDivLoss",
           "SmoothL1Loss", "HuberLoss", "MarginRankingLoss", "CosineEmbeddingLoss", "SoftMarginLoss",
           "HingeEmbeddingLoss", "PoissonNLLLoss", "GaussianNLLLoss", "MultiLabelSoftMarginLoss",
           "MultiLabelMarginLoss", "MultiMarginLoss", "TripletMarginLoss", "TripletMarginWithDistanceLoss"]  # fmt: skip


class _Loss(Module):
    def __init__(self, size_average=None, reduce=None, reduction: str = "mean") -> None:
        super().__init__()
        if size_average is not None or reduce is not None:
            self.reduction = _Reduction.legacy_get_string(size_average, reduce)
        else:
            self.reduction = reduction


class _WeightedLoss(_Loss):
    def __init__(
        self, weight: Tensor | None = None, size_average=None, reduce=None, reduction: str = "mean"
    ) -> None:
        super().__init__(size_average, reduce, reduction)
        self.register_buffer("weight", weight)
        self.weight: Tensor | None


class L1Loss(_Loss):
    """Mean absolute error.

    >>> numtorch.nn.L1Loss()(numtorch.tensor([1.0, -3.0]), numtorch.zeros(2))
    tensor(2.)
    """

    __constants__ = ["reduction"]

    def forward(self, input: Tensor, target: Tensor) -> Tensor:
        return F.l1_loss(input, target, reduction=self.reduction)


class MSELoss(_Loss):
    """Mean squared error.

    >>> numtorch.nn.MSELoss()(numtorch.tensor([1.0, 3.0]), numtorch.zeros(2))
    tensor(5.)
    """

    __constants__ = ["reduction"]

    def forward(self, input: Tensor, target: Tensor) -> Tensor:
        return F.mse_loss(input, target, reduction=self.reduction)


class NLLLoss(_WeightedLoss):
    """Negative log likelihood of class indices given log-probabilities.

    >>> numtorch.nn.NLLLoss()(numtorch.tensor([[-1.0, -2.0]]), numtorch.tensor([1]))
    tensor(2.)
    """

    __constants__ = ["ignore_index", "reduction"]

    def __init__(self, weight=None, size_average=None, ignore_index: int = -100, reduce=None,
                 reduction: str = "mean") -> None:  # fmt: skip
        super().__init__(weight, size_average, reduce, reduction)
        self.ignore_index = ignore_index

    def forward(self, input: Tensor, target: Tensor) -> Tensor:
        return F.nll_loss(
            input,
            target,
            weight=self.weight,
            ignore_index=self.ignore_index,
            reduction=self.reduction,
        )


class CrossEntropyLoss(_WeightedLoss):
    """Cross entropy of logits against class indices or class probabilities.

    >>> numtorch.nn.CrossEntropyLoss()(numtorch.zeros(1, 2), numtorch.tensor([0]))
    tensor(0.6931)
    """

    __constants__ = ["ignore_index", "reduction", "label_smoothing"]

    def __init__(self, weight=None, size_average=None, ignore_index: int = -100, reduce=None,
                 reduction: str = "mean", label_smoothing: float = 0.0) -> None:  # fmt: skip
        super().__init__(weight, size_average, reduce, reduction)
        self.ignore_index, self.label_smoothing = ignore_index, label_smoothing

    def forward(self, input: Tensor, target: Tensor) -> Tensor:
        return F.cross_entropy(input, target, weight=self.weight, ignore_index=self.ignore_index,
                               reduction=self.reduction, label_smoothing=self.label_smoothing)  # fmt: skip


class BCELoss(_WeightedLoss):
    """Binary cross entropy of probabilities.

    >>> numtorch.nn.BCELoss()(numtorch.tensor([0.5]), numtorch.tensor([1.0]))
    tensor(0.6931)
    """

    __constants__ = ["reduction"]

    def forward(self, input: Tensor, target: Tensor) -> Tensor:
        return F.binary_cross_entropy(input, target, weight=self.weight, reduction=self.reduction)


class BCEWithLogitsLoss(_Loss):
    """Sigmoid + binary cross entropy, fused and stable.

    >>> numtorch.nn.BCEWithLogitsLoss()(numtorch.tensor([0.0]), numtorch.tensor([1.0]))
    tensor(0.6931)
    """

    def __init__(self, weight=None, size_average=None, reduce=None, reduction: str = "mean",
                 pos_weight=None) -> None:  # fmt: skip
        super().__init__(size_average, reduce, reduction)
        self.register_buffer("weight", weight)
        self.register_buffer("pos_weight", pos_weight)

    def forward(self, input: Tensor, target: Tensor) -> Tensor:
        return F.binary_cross_entropy_with_logits(input, target, self.weight, pos_weight=self.pos_weight,
                                                  reduction=self.reduction)  # fmt: skip


class KLDivLoss(_Loss):
    """Kullback-Leibler divergence with ``input`` in log space.

    >>> numtorch.nn.KLDivLoss(reduction="sum")(numtorch.tensor([0.0]), numtorch.tensor([1.0]))
    tensor(0.)
    """

    __constants__ = ["reduction"]

    def __init__(
        self, size_average=None, reduce=None, reduction: str = "mean", log_target: bool = False
    ) -> None:
        super().__init__(size_average, reduce, reduction)
        self.log_target = log_target

    def forward(self, input: Tensor, target: Tensor) -> Tensor:
        return F.kl_div(input, target, reduction=self.reduction, log_target=self.log_target)


class SmoothL1Loss(_Loss):
    """Squared error below ``beta``, absolute error above.

    >>> numtorch.nn.SmoothL1Loss()(numtorch.tensor([0.5, 3.0]), numtorch.zeros(2))
    tensor(1.3125)
    """

    __constants__ = ["reduction"]

    def __init__(
        self, size_average=None, reduce=None, reduction: str = "mean", beta: float = 1.0
    ) -> None:
        super().__init__(size_average, reduce, reduction)
        self.beta = beta

    def forward(self, input: Tensor, target: Tensor) -> Tensor:
        return F.smooth_l1_loss(input, target, reduction=self.reduction, beta=self.beta)


class HuberLoss(_Loss):
    """Squared error below ``delta``, delta-scaled absolute error above.

    >>> numtorch.nn.HuberLoss()(numtorch.tensor([0.5, 3.0]), numtorch.zeros(2))
    tensor(1.3125)
    """

    __constants__ = ["reduction", "delta"]

    def __init__(self, reduction: str = "mean", delta: float = 1.0) -> None:
        super().__init__(reduction=reduction)
        self.delta = delta

    def forward(self, input: Tensor, target: Tensor) -> Tensor:
        return F.huber_loss(input, target, reduction=self.reduction, delta=self.delta)


class MarginRankingLoss(_Loss):
    """max(0, -y (x1 - x2) + margin).

    >>> numtorch.nn.MarginRankingLoss()(numtorch.tensor([1.0]), numtorch.tensor([2.0]), numtorch.tensor([1.0]))
    tensor(1.)
    """

    __constants__ = ["margin", "reduction"]

    def __init__(
        self, margin: float = 0.0, size_average=None, reduce=None, reduction: str = "mean"
    ) -> None:
        super().__init__(size_average, reduce, reduction)
        self.margin = margin

    def forward(self, input1: Tensor, input2: Tensor, target: Tensor) -> Tensor:
        return F.margin_ranking_loss(
            input1, input2, target, margin=self.margin, reduction=self.reduction
        )


class CosineEmbeddingLoss(_Loss):
    """1 - cos(x1, x2) for y = 1, max(0, cos(x1, x2) - margin) for y = -1.

    >>> numtorch.nn.CosineEmbeddingLoss()(numtorch.ones(1, 2), numtorch.ones(1, 2), numtorch.tensor([1.0]))
    tensor(0.)
    """

    __constants__ = ["margin", "reduction"]

    def __init__(
        self, margin: float = 0.0, size_average=None, reduce=None, reduction: str = "mean"
    ) -> None:
        super().__init__(size_average, reduce, reduction)
        self.margin = margin

    def forward(self, input1: Tensor, input2: Tensor, target: Tensor) -> Tensor:
        return F.cosine_embedding_loss(
            input1, input2, target, margin=self.margin, reduction=self.reduction
        )


class SoftMarginLoss(_Loss):
    """Two-class logistic loss, log(1 + exp(-y x)).

    >>> numtorch.nn.SoftMarginLoss()(numtorch.tensor([0.0]), numtorch.tensor([1.0]))
    tensor(0.6931)
    """

    __constants__ = ["reduction"]

    def forward(self, input: Tensor, target: Tensor) -> Tensor:
        return F.soft_margin_loss(input, target, reduction=self.reduction)


class HingeEmbeddingLoss(_Loss):
    """x for y = 1, max(0, margin - x) for y = -1.

    >>> numtorch.nn.HingeEmbeddingLoss()(numtorch.tensor([0.3]), numtorch.tensor([-1.0]))
    tensor(0.7000)
    """

    __constants__ = ["margin", "reduction"]

    def __init__(
        self, margin: float = 1.0, size_average=None, reduce=None, reduction: str = "mean"
    ) -> None:
        super().__init__(size_average, reduce, reduction)
        self.margin = margin

    def forward(self, input: Tensor, target: Tensor) -> Tensor:
        return F.hinge_embedding_loss(input, target, margin=self.margin, reduction=self.reduction)


class PoissonNLLLoss(_Loss):
    """Negative log likelihood of a Poisson-distributed target.

    >>> numtorch.nn.PoissonNLLLoss()(numtorch.tensor([0.0]), numtorch.tensor([1.0]))
    tensor(1.)
    """

    __constants__ = ["log_input", "full", "eps", "reduction"]

    def __init__(self, log_input: bool = True, full: bool = False, size_average=None, eps: float = 1e-8,
                 reduce=None, reduction: str = "mean") -> None:  # fmt: skip
        super().__init__(size_average, reduce, reduction)
        self.log_input, self.full, self.eps = log_input, full, eps

    def forward(self, log_input: Tensor, target: Tensor) -> Tensor:
        return F.poisson_nll_loss(log_input, target, log_input=self.log_input, full=self.full,
                                  eps=self.eps, reduction=self.reduction)  # fmt: skip


class GaussianNLLLoss(_Loss):
    """Negative log likelihood of a Gaussian with predicted mean and variance.

    >>> numtorch.nn.GaussianNLLLoss()(numtorch.zeros(2), numtorch.zeros(2), numtorch.ones(2))
    tensor(0.)
    """

    __constants__ = ["full", "eps", "reduction"]

    def __init__(self, *, full: bool = False, eps: float = 1e-6, reduction: str = "mean") -> None:
        super().__init__(None, None, reduction)
        self.full, self.eps = full, eps

    def forward(self, input: Tensor, target: Tensor, var) -> Tensor:
        return F.gaussian_nll_loss(input, target, var, full=self.full, eps=self.eps,
                                   reduction=self.reduction)  # fmt: skip


class MultiLabelSoftMarginLoss(_WeightedLoss):
    """Per-class logistic loss, averaged over classes.

    >>> numtorch.nn.MultiLabelSoftMarginLoss()(numtorch.zeros(1, 2), numtorch.ones(1, 2))
    tensor(0.6931)
    """

    __constants__ = ["reduction"]

    def forward(self, input: Tensor, target: Tensor) -> Tensor:
        return F.multilabel_soft_margin_loss(input, target, weight=self.weight, reduction=self.reduction)


class MultiLabelMarginLoss(_Loss):
    """Multi-label hinge loss over (target, non-target) class pairs.

    >>> numtorch.nn.MultiLabelMarginLoss()(numtorch.tensor([[0.0, 1.0]]), numtorch.tensor([[1, -1]]))
    tensor(0.)
    """

    __constants__ = ["reduction"]

    def forward(self, input: Tensor, target: Tensor) -> Tensor:
        return F.multilabel_margin_loss(input, target, reduction=self.reduction)


class MultiMarginLoss(_WeightedLoss):
    """Multi-class hinge loss.

    >>> numtorch.nn.MultiMarginLoss()(numtorch.tensor([[0.0, 1.0]]), numtorch.tensor([1]))
    tensor(0.)
    """

    __constants__ = ["p", "margin", "reduction"]

    def __init__(self, p: int = 1, margin: float = 1.0, weight: Tensor | None = None, size_average=None,
                 reduce=None, reduction: str = "mean") -> None:  # fmt: skip
        super().__init__(weight, size_average, reduce, reduction)
        if p != 1 and p != 2:
            raise ValueError("only p == 1 and p == 2 supported")
        if weight is not None and weight.dim() != 1:
            raise ValueError(
                f"MultiMarginLoss: expected weight to be None or 1D tensor, got {weight.dim()}D instead"
            )
        self.p, self.margin = p, margin

    def forward(self, input: Tensor, target: Tensor) -> Tensor:
        return F.multi_margin_loss(input, target, p=self.p, margin=self.margin, weight=self.weight,
                                   reduction=self.reduction)  # fmt: skip


class TripletMarginLoss(_Loss):
    """max(0, d(a, p) - d(a, n) + margin) with the p-norm distance.

    >>> a = numtorch.zeros(1, 2)
    >>> numtorch.nn.TripletMarginLoss()(a, a, a + 1)
    tensor(0.)
    """

    __constants__ = ["margin", "p", "eps", "swap", "reduction"]

    def __init__(self, margin: float = 1.0, p: float = 2.0, eps: float = 1e-6, swap: bool = False,
                 size_average=None, reduce=None, reduction: str = "mean") -> None:  # fmt: skip
        super().__init__(size_average, reduce, reduction)
        if margin <= 0:
            raise ValueError(
                f"TripletMarginLoss: expected margin to be greater than 0, got {margin} instead"
            )
        self.margin, self.p, self.eps, self.swap = margin, p, eps, swap

    def forward(self, anchor: Tensor, positive: Tensor, negative: Tensor) -> Tensor:
        return F.triplet_margin_loss(anchor, positive, negative, margin=self.margin, p=self.p,
                                     eps=self.eps, swap=self.swap, reduction=self.reduction)  # fmt: skip


class TripletMarginWithDistanceLoss(_Loss):
    """The triplet loss with any distance function (PairwiseDistance by default).

    >>> a = numtorch.zeros(1, 2)
    >>> numtorch.nn.TripletMarginWithDistanceLoss()(a, a, a + 1)
    tensor(0.)
    """

    def __init__(self, *, distance_function=None, margin: float = 1.0, swap: bool = False,
                 reduction: str = "mean") -> None:  # fmt: skip
        super().__init__(size_average=None, reduce=None, reduction=reduction)
        if margin <= 0:
            raise ValueError(
                f"TripletMarginWithDistanceLoss: expected margin to be greater than 0, got {margin} instead"
            )
        self.distance_function = (
            distance_function if distance_function is not None else PairwiseDistance()
        )
        self.margin, self.swap = margin, swap

    def forward(self, anchor: Tensor, positive: Tensor, negative: Tensor) -> Tensor:
        return F.triplet_margin_with_distance_loss(anchor, positive, negative,
                                                   distance_function=self.distance_function,
                                                   margin=self.margin, swap=self.swap,
                                                   reduction=self.reduction)  # fmt: skip


class CTCLoss(_Loss):
    """Connectionist temporal classification loss over (T, N, C) log-probabilities.

    >>> loss = numtorch.nn.CTCLoss()
    >>> lp = numtorch.full((2, 1, 2), 0.5).log()
    >>> round(loss(lp, numtorch.tensor([[1]]), [2], [1]).item(), 4)
    0.2877
    """

    __constants__ = ["blank", "reduction"]

    def __init__(self, blank: int = 0, reduction: str = "mean", zero_infinity: bool = False) -> None:
        super().__init__(reduction=reduction)
        self.blank, self.zero_infinity = blank, zero_infinity

    def forward(self, log_probs: Tensor, targets: Tensor, input_lengths, target_lengths) -> Tensor:
        return F.ctc_loss(log_probs, targets, input_lengths, target_lengths, self.blank, self.reduction,
                          self.zero_infinity)  # fmt: skip


class NLLLoss2d(NLLLoss):
    """The deprecated 2-D name of NLLLoss (it warns, then behaves as NLLLoss).

    >>> import warnings; warnings.simplefilter("ignore")
    >>> numtorch.nn.NLLLoss2d()(numtorch.tensor([[-1.0, -2.0]]), numtorch.tensor([1]))
    tensor(2.)
    """

    def __init__(self, weight=None, size_average=None, ignore_index: int = -100, reduce=None,
                 reduction: str = "mean") -> None:  # fmt: skip
        warnings.warn(
            "`NLLLoss2d` has been deprecated. Please use `NLLLoss` instead as a drop-in replacement and see "
            "https://pytorch.org/docs/main/nn.html#torch.nn.NLLLoss for more details.",
            FutureWarning,
            stacklevel=2,
        )
        super().__init__(weight, size_average, ignore_index, reduce, reduction)
