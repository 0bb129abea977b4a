"""Padding modules: constant / zero / reflection / replication / circular, 1-d and 2-d."""

from __future__ import annotations

from ..._tensor import Tensor
from .. import functional as F
from .module import Module
from .utils import _ntuple, _pair, _quadruple

_sextuple = _ntuple(6, "_sextuple")

__all__ = ["ConstantPad1d", "ConstantPad2d", "ZeroPad1d", "ZeroPad2d", "ReflectionPad1d", "ReflectionPad2d",
           "ReplicationPad1d", "ReplicationPad2d", "CircularPad1d", "CircularPad2d", "ConstantPad3d", "ZeroPad3d",
           "ReflectionPad3d", "ReplicationPad3d", "CircularPad3d"]  # fmt: skip


class _PadNd(Module):
    __constants__ = ["padding"]
    _mode = "constant"

    def forward(self, input: Tensor) -> Tensor:
        return F.pad(input, self.padding, self._mode)

    def extra_repr(self) -> str:
        return f"{self.padding}"


class _ConstantPadNd(_PadNd):
    __constants__ = ["padding", "value"]

    def __init__(self, value: float) -> None:
        super().__init__()
        self.value = value

    def forward(self, input: Tensor) -> Tensor:
        return F.pad(input, self.padding, "constant", self.value)

    def extra_repr(self) -> str:
        return f"padding={self.padding}, value={self.value}"


class ConstantPad1d(_ConstantPadNd):
    """Pad the last dim with a constant.

    >>> numtorch.nn.ConstantPad1d(1, 9.0)(numtorch.zeros(1, 1))
    tensor([[9., 0., 9.]])
    """

    def __init__(self, padding, value: float) -> None:
        super().__init__(value)
        self.padding = _pair(padding)


class ConstantPad2d(_ConstantPadNd):
    """Pad the last two dims with a constant.

    >>> numtorch.nn.ConstantPad2d(1, 0.0)(numtorch.ones(1, 1, 1)).shape
    torch.Size([1, 3, 3])
    """

    def __init__(self, padding, value: float) -> None:
        super().__init__(value)
        self.padding = _quadruple(padding)


class ZeroPad1d(ConstantPad1d):
    """Pad the last dim with zeros.

    >>> numtorch.nn.ZeroPad1d(1)(numtorch.ones(1, 1))
    tensor([[0., 1., 0.]])
    """

    def __init__(self, padding) -> None:
        super().__init__(padding, 0.0)

    def extra_repr(self) -> str:
        return f"{self.padding}"


class ZeroPad2d(ConstantPad2d):
    """Pad the last two dims with zeros.

    >>> numtorch.nn.ZeroPad2d(1)(numtorch.ones(1, 1, 1)).shape
    torch.Size([1, 3, 3])
    """

    def __init__(self, padding) -> None:
        super().__init__(padding, 0.0)

    def extra_repr(self) -> str:
        return f"{self.padding}"


def _pad_class(name: str, mode: str, n: int, doc: str):
    conv = {1: _pair, 2: _quadruple, 3: _sextuple}[n]

    def __init__(self, padding) -> None:
        _PadNd.__init__(self)
        self.padding = conv(padding)

    return type(
        name,
        (_PadNd,),
        {"__init__": __init__, "_mode": mode, "__doc__": doc, "__module__": __name__},
    )


ReflectionPad1d = _pad_class(
    "ReflectionPad1d",
    "reflect",
    1,
    "Reflect-pad the last dim.\n\n    >>> numtorch.nn."
    "ReflectionPad1d(1)(numtorch.tensor([[1.0, 2.0]]))\n    tensor([[2., 1., 2., 1.]])\n",
)
ReflectionPad2d = _pad_class(
    "ReflectionPad2d",
    "reflect",
    2,
    "Reflect-pad the last two dims.\n\n    >>> numtorch."
    "nn.ReflectionPad2d(1)(numtorch.ones(1, 2, 2)).shape\n    torch.Size([1, 4, 4])\n",
)
ReplicationPad1d = _pad_class(
    "ReplicationPad1d",
    "replicate",
    1,
    "Edge-pad the last dim.\n\n    >>> numtorch.nn."
    "ReplicationPad1d(1)(numtorch.tensor([[1.0, 2.0]]))\n    tensor([[1., 1., 2., 2.]])\n",
)
ReplicationPad2d = _pad_class(
    "ReplicationPad2d",
    "replicate",
    2,
    "Edge-pad the last two dims.\n\n    >>> numtorch."
    "nn.ReplicationPad2d(1)(numtorch.ones(1, 2, 2)).shape\n    torch.Size([1, 4, 4])\n",
)
CircularPad1d = _pad_class(
    "CircularPad1d",
    "circular",
    1,
    "Wrap-pad the last dim.\n\n    >>> numtorch.nn."
    "CircularPad1d(1)(numtorch.tensor([[1.0, 2.0]]))\n    tensor([[2., 1., 2., 1.]])\n",
)
CircularPad2d = _pad_class(
    "CircularPad2d",
    "circular",
    2,
    "Wrap-pad the last two dims.\n\n    >>> numtorch.nn."
    "CircularPad2d(1)(numtorch.ones(1, 2, 2)).shape\n    torch.Size([1, 4, 4])\n",
)
ReflectionPad3d = _pad_class(
    "ReflectionPad3d",
    "reflect",
    3,
    "Reflect-pad the last three dims.\n\n    >>> numtorch."
    "nn.ReflectionPad3d(1)(numtorch.ones(1, 2, 2, 2)).shape\n    torch.Size([1, 4, 4, 4])\n",
)
ReplicationPad3d = _pad_class(
    "ReplicationPad3d",
    "replicate",
    3,
    "Edge-pad the last three dims.\n\n    >>> numtorch."
    "nn.ReplicationPad3d(1)(numtorch.ones(1, 2, 2, 2)).shape\n    torch.Size([1, 4, 4, 4])\n",
)
CircularPad3d = _pad_class(
    "CircularPad3d",
    "circular",
    3,
    "Wrap-pad the last three dims.\n\n    >>> numtorch."
    "nn.CircularPad3d(1)(numtorch.ones(1, 2, 2, 2)).shape\n    torch.Size([1, 4, 4, 4])\n",
)


class ConstantPad3d(_ConstantPadNd):
    """Pad the last three dims with a constant.

    >>> numtorch.nn.ConstantPad3d(1, 0.0)(numtorch.ones(1, 1, 1, 1)).shape
    torch.Size([1, 3, 3, 3])
    """

    def __init__(self, padding, value: float) -> None:
        super().__init__(value)
        self.padding = _sextuple(padding)


class ZeroPad3d(ConstantPad3d):
    """Pad the last three dims with zeros.

    >>> numtorch.nn.ZeroPad3d(1)(numtorch.ones(1, 1, 1, 1)).shape
    torch.Size([1, 3, 3, 3])
    """

    def __init__(self, padding) -> None:
        super().__init__(padding, 0.0)

    def extra_repr(self) -> str:
        return f"{self.padding}"
