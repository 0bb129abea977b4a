"""``nn.CosineSimilarity`` and ``nn.PairwiseDistance``."""

from __future__ import annotations

from ..._tensor import Tensor
from .. import functional as F
from .module import Module

__all__ = ["CosineSimilarity", "PairwiseDistance"]


class PairwiseDistance(Module):
    """p-norm distance between rows of two inputs.

    >>> numtorch.nn.PairwiseDistance()(numtorch.tensor([[0.0, 0.0]]), numtorch.tensor([[3.0, 4.0]]))
    tensor([5.0000])
    """

    __constants__ = ["norm", "eps", "keepdim"]

    def __init__(self, p: float = 2.0, eps: float = 1e-6, keepdim: bool = False) -> None:
        super().__init__()
        self.norm, self.eps, self.keepdim = p, eps, keepdim

    def forward(self, x1: Tensor, x2: Tensor) -> Tensor:
        return F.pairwise_distance(x1, x2, self.norm, self.eps, self.keepdim)


class CosineSimilarity(Module):
    """Cosine of the angle between two inputs along ``dim``.

    >>> numtorch.nn.CosineSimilarity()(numtorch.tensor([[1.0, 0.0]]), numtorch.tensor([[1.0, 0.0]]))
    tensor([1.])
    """

    __constants__ = ["dim", "eps"]

    def __init__(self, dim: int = 1, eps: float = 1e-8) -> None:
        super().__init__()
        self.dim, self.eps = dim, eps

    def forward(self, x1: Tensor, x2: Tensor) -> Tensor:
        return F.cosine_similarity(x1, x2, self.dim, self.eps)
