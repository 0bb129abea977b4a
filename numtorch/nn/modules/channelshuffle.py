"""ChannelShuffle: interleave the channels of ``groups`` groups (ShuffleNet)."""

from __future__ import annotations

from ..._tensor import Tensor
from .. import functional as F
from .module import Module

__all__ = ["ChannelShuffle"]


class ChannelShuffle(Module):
    """Split the channels into ``groups`` groups and interleave them.

    >>> numtorch.nn.ChannelShuffle(2)(numtorch.arange(4.0).view(1, 4, 1)).flatten()
    tensor([0., 2., 1., 3.])
    """

    __constants__ = ["groups"]

    def __init__(self, groups: int) -> None:
        super().__init__()
        self.groups = groups

    def forward(self, input: Tensor) -> Tensor:
        return F.channel_shuffle(input, self.groups)

    def extra_repr(self) -> str:
        return f"groups={self.groups}"
