"""Dropout modules: ``nn.Dropout``, ``nn.Dropout1d``, ``nn.Dropout2d``, ``nn.AlphaDropout``,
``nn.FeatureAlphaDropout``."""

from __future__ import annotations

from ..._tensor import Tensor
from .. import functional as F
from .module import Module

__all__ = ["Dropout", "Dropout1d", "Dropout2d", "Dropout3d", "AlphaDropout", "FeatureAlphaDropout"]


class _DropoutNd(Module):
    __constants__ = ["p", "inplace"]

    def __init__(self, p: float = 0.5, inplace: bool = False) -> None:
        super().__init__()
        if p < 0 or p > 1:
            raise ValueError(f"dropout probability has to be between 0 and 1, but got {p}")
        self.p, self.inplace = p, inplace

    def extra_repr(self) -> str:
        return f"p={self.p}, inplace={self.inplace}"


class Dropout(_DropoutNd):
    """Zero each element with probability p in training, scaling the rest by 1/(1-p).

    >>> numtorch.nn.Dropout(0.5).eval()(numtorch.ones(2))
    tensor([1., 1.])
    """

    def forward(self, input: Tensor) -> Tensor:
        return F.dropout(input, self.p, self.training, self.inplace)


class Dropout1d(_DropoutNd):
    """Zero whole channels of (N, C, L) input.

    >>> numtorch.nn.Dropout1d().eval()(numtorch.ones(1, 2, 3)).shape
    torch.Size([1, 2, 3])
    """

    def forward(self, input: Tensor) -> Tensor:
        return F.dropout1d(input, self.p, self.training, self.inplace)


class Dropout2d(_DropoutNd):
    """Zero whole channels of (N, C, H, W) input.

    >>> numtorch.nn.Dropout2d().eval()(numtorch.ones(1, 2, 3, 3)).shape
    torch.Size([1, 2, 3, 3])
    """

    def forward(self, input: Tensor) -> Tensor:
        return F.dropout2d(input, self.p, self.training, self.inplace)


class Dropout3d(_DropoutNd):
    """Zero whole channels of (N, C, D, H, W) input.

    >>> numtorch.nn.Dropout3d().eval()(numtorch.ones(1, 2, 3, 3, 3)).shape
    torch.Size([1, 2, 3, 3, 3])
    """

    def forward(self, input: Tensor) -> Tensor:
        return F.dropout3d(input, self.p, self.training, self.inplace)


class AlphaDropout(_DropoutNd):
    """Dropout that keeps SELU activations' mean and variance.

    >>> numtorch.nn.AlphaDropout().eval()(numtorch.ones(2))
    tensor([1., 1.])
    """

    def forward(self, input: Tensor) -> Tensor:
        return F.alpha_dropout(input, self.p, self.training)


class FeatureAlphaDropout(_DropoutNd):
    """Alpha dropout of whole channels.

    >>> numtorch.nn.FeatureAlphaDropout().eval()(numtorch.ones(1, 2, 2)).shape
    torch.Size([1, 2, 2])
    """

    def forward(self, input: Tensor) -> Tensor:
        return F.feature_alpha_dropout(input, self.p, self.training)
