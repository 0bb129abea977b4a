"""Pooling modules: max / average / adaptive, 1-d and 2-d."""

from __future__ import annotations

from ..._tensor import Tensor
from .. import functional as F
from .module import Module
from .utils import _pair, _single, _triple

__all__ = ["LPPool1d", "LPPool2d", "MaxUnpool1d", "MaxUnpool2d", "MaxUnpool3d", "MaxPool1d", "MaxPool2d", "AvgPool1d", "AvgPool2d", "AdaptiveAvgPool1d", "AdaptiveAvgPool2d",
           "AdaptiveMaxPool1d", "AdaptiveMaxPool2d", "MaxPool3d", "AvgPool3d", "AdaptiveAvgPool3d", "AdaptiveMaxPool3d",
           "LPPool3d"]  # fmt: skip


class _MaxPoolNd(Module):
    __constants__ = ["kernel_size", "stride", "padding", "dilation", "return_indices", "ceil_mode"]

    def __init__(
        self, kernel_size, stride=None, padding=0, dilation=1, return_indices=False, ceil_mode=False
    ) -> None:
        super().__init__()
        self.kernel_size = kernel_size
        self.stride = stride if stride is not None else kernel_size
        self.padding, self.dilation = padding, dilation
        self.return_indices, self.ceil_mode = return_indices, ceil_mode

    def extra_repr(self) -> str:
        return (f"kernel_size={self.kernel_size}, stride={self.stride}, padding={self.padding}, "
                f"dilation={self.dilation}, ceil_mode={self.ceil_mode}")  # fmt: skip


class MaxPool1d(_MaxPoolNd):
    """1-D max pooling.

    >>> numtorch.nn.MaxPool1d(2)(numtorch.tensor([[[1.0, 3.0, 2.0, 0.0]]]))
    tensor([[[3., 2.]]])
    """

    def forward(self, input: Tensor):
        return F.max_pool1d(input, self.kernel_size, self.stride, self.padding, self.dilation,
                            ceil_mode=self.ceil_mode, return_indices=self.return_indices)  # fmt: skip


class MaxPool2d(_MaxPoolNd):
    """2-D max pooling.

    >>> numtorch.nn.MaxPool2d(2)(numtorch.ones(1, 1, 4, 4)).shape
    torch.Size([1, 1, 2, 2])
    """

    def forward(self, input: Tensor):
        return F.max_pool2d(input, self.kernel_size, self.stride, self.padding, self.dilation,
                            ceil_mode=self.ceil_mode, return_indices=self.return_indices)  # fmt: skip


class _AvgPoolNd(Module):
    __constants__ = ["kernel_size", "stride", "padding", "ceil_mode", "count_include_pad"]

    def extra_repr(self) -> str:
        return f"kernel_size={self.kernel_size}, stride={self.stride}, padding={self.padding}"


class AvgPool1d(_AvgPoolNd):
    """1-D average pooling.

    >>> numtorch.nn.AvgPool1d(2)(numtorch.tensor([[[1.0, 3.0]]]))
    tensor([[[2.]]])
    """

    def __init__(
        self, kernel_size, stride=None, padding=0, ceil_mode=False, count_include_pad=True
    ) -> None:
        super().__init__()
        self.kernel_size = _single(kernel_size)
        self.stride = _single(stride if stride is not None else kernel_size)
        self.padding = _single(padding)
        self.ceil_mode, self.count_include_pad = ceil_mode, count_include_pad

    def forward(self, input: Tensor) -> Tensor:
        return F.avg_pool1d(
            input,
            self.kernel_size,
            self.stride,
            self.padding,
            self.ceil_mode,
            self.count_include_pad,
        )


class AvgPool2d(_AvgPoolNd):
    """2-D average pooling.

    >>> numtorch.nn.AvgPool2d(2)(numtorch.ones(1, 1, 4, 4)).shape
    torch.Size([1, 1, 2, 2])
    """

    __constants__ = [
        "kernel_size",
        "stride",
        "padding",
        "ceil_mode",
        "count_include_pad",
        "divisor_override",
    ]

    def __init__(self, kernel_size, stride=None, padding=0, ceil_mode=False, count_include_pad=True,
                 divisor_override=None) -> None:  # fmt: skip
        super().__init__()
        self.kernel_size = kernel_size
        self.stride = stride if stride is not None else kernel_size
        self.padding, self.ceil_mode = padding, ceil_mode
        self.count_include_pad, self.divisor_override = count_include_pad, divisor_override

    def forward(self, input: Tensor) -> Tensor:
        return F.avg_pool2d(input, self.kernel_size, self.stride, self.padding, self.ceil_mode, self.count_include_pad,
                            self.divisor_override)  # fmt: skip


class _AdaptivePool(Module):
    __constants__ = ["output_size"]

    def __init__(self, output_size) -> None:
        super().__init__()
        self.output_size = output_size

    def extra_repr(self) -> str:
        return f"output_size={self.output_size}"


class AdaptiveAvgPool1d(_AdaptivePool):
    """1-D average pooling to a fixed output length.

    >>> numtorch.nn.AdaptiveAvgPool1d(1)(numtorch.tensor([[[1.0, 3.0]]]))
    tensor([[[2.]]])
    """

    def forward(self, input: Tensor) -> Tensor:
        return F.adaptive_avg_pool1d(input, self.output_size)


class AdaptiveAvgPool2d(_AdaptivePool):
    """2-D average pooling to a fixed output size (None keeps that input size).

    >>> numtorch.nn.AdaptiveAvgPool2d((1, 1))(numtorch.ones(2, 3, 5, 5)).shape
    torch.Size([2, 3, 1, 1])
    """

    def forward(self, input: Tensor) -> Tensor:
        return F.adaptive_avg_pool2d(input, self.output_size)


class _AdaptiveMaxPool(_AdaptivePool):
    __constants__ = ["output_size", "return_indices"]

    def __init__(self, output_size, return_indices: bool = False) -> None:
        super().__init__(output_size)
        self.return_indices = return_indices


class AdaptiveMaxPool1d(_AdaptiveMaxPool):
    """1-D max pooling to a fixed output length.

    >>> numtorch.nn.AdaptiveMaxPool1d(1)(numtorch.tensor([[[1.0, 3.0]]]))
    tensor([[[3.]]])
    """

    def forward(self, input: Tensor):
        return F.adaptive_max_pool1d(input, self.output_size, self.return_indices)


class AdaptiveMaxPool2d(_AdaptiveMaxPool):
    """2-D max pooling to a fixed output size.

    >>> numtorch.nn.AdaptiveMaxPool2d(1)(numtorch.ones(1, 1, 3, 3)).shape
    torch.Size([1, 1, 1, 1])
    """

    def forward(self, input: Tensor):
        return F.adaptive_max_pool2d(input, self.output_size, self.return_indices)


class _LPPoolNd(Module):
    __constants__ = ["norm_type", "kernel_size", "stride", "ceil_mode"]

    def __init__(self, norm_type: float, kernel_size, stride=None, ceil_mode: bool = False) -> None:
        super().__init__()
        self.norm_type, self.kernel_size, self.stride, self.ceil_mode = norm_type, kernel_size, stride, ceil_mode

    def extra_repr(self) -> str:
        return "norm_type={norm_type}, kernel_size={kernel_size}, stride={stride}, ceil_mode={ceil_mode}".format(
            **self.__dict__
        )


class LPPool1d(_LPPoolNd):
    """Power-average pooling over (N, C, L): (sum of x^p over the window)^(1/p).

    >>> numtorch.nn.LPPool1d(2, 2)(numtorch.tensor([[[3.0, 4.0]]]))
    tensor([[[5.]]])
    """

    def forward(self, input: Tensor) -> Tensor:
        return F.lp_pool1d(input, float(self.norm_type), self.kernel_size, self.stride, self.ceil_mode)


class LPPool2d(_LPPoolNd):
    """Power-average pooling over (N, C, H, W).

    >>> numtorch.nn.LPPool2d(1, 2)(numtorch.full((1, 1, 2, 2), 2.0))
    tensor([[[[8.]]]])
    """

    def forward(self, input: Tensor) -> Tensor:
        return F.lp_pool2d(input, float(self.norm_type), self.kernel_size, self.stride, self.ceil_mode)


class _MaxUnpoolNd(Module):
    _tuple = staticmethod(_single)

    def __init__(self, kernel_size, stride=None, padding=0) -> None:
        super().__init__()
        self.kernel_size = self._tuple(kernel_size)
        self.stride = self._tuple(stride if stride is not None else kernel_size)
        self.padding = self._tuple(padding)

    def extra_repr(self) -> str:
        return f"kernel_size={self.kernel_size}, stride={self.stride}, padding={self.padding}"


class MaxUnpool1d(_MaxUnpoolNd):
    """The partial inverse of MaxPool1d: values at their indices, zeros elsewhere.

    >>> numtorch.nn.MaxUnpool1d(2)(numtorch.tensor([[[5.0]]]), numtorch.tensor([[[1]]]))
    tensor([[[0., 5.]]])
    """

    def forward(self, input: Tensor, indices: Tensor, output_size=None) -> Tensor:
        return F.max_unpool1d(input, indices, self.kernel_size, self.stride, self.padding, output_size)


class MaxUnpool2d(_MaxUnpoolNd):
    """The partial inverse of MaxPool2d.

    >>> numtorch.nn.MaxUnpool2d(2)(numtorch.ones(1, 1, 1, 1), numtorch.tensor([[[[0]]]])).flatten()
    tensor([1., 0., 0., 0.])
    """

    _tuple = staticmethod(_pair)

    def forward(self, input: Tensor, indices: Tensor, output_size=None) -> Tensor:
        return F.max_unpool2d(input, indices, self.kernel_size, self.stride, self.padding, output_size)


class MaxUnpool3d(_MaxUnpoolNd):
    """The partial inverse of MaxPool3d.

    >>> numtorch.nn.MaxUnpool3d(2)(numtorch.ones(1, 1, 1, 1, 1), numtorch.tensor([[[[[0]]]]])).shape
    torch.Size([1, 1, 2, 2, 2])
    """

    _tuple = staticmethod(_triple)

    def forward(self, input: Tensor, indices: Tensor, output_size=None) -> Tensor:
        return F.max_unpool3d(input, indices, self.kernel_size, self.stride, self.padding, output_size)


class MaxPool3d(_MaxPoolNd):
    """3-D max pooling.

    >>> numtorch.nn.MaxPool3d(2)(numtorch.ones(1, 1, 4, 4, 4)).shape
    torch.Size([1, 1, 2, 2, 2])
    """

    def forward(self, input: Tensor):
        return F.max_pool3d(input, self.kernel_size, self.stride, self.padding, self.dilation,
                            ceil_mode=self.ceil_mode, return_indices=self.return_indices)  # fmt: skip


class AvgPool3d(_AvgPoolNd):
    """3-D average pooling.

    >>> numtorch.nn.AvgPool3d(2)(numtorch.ones(1, 1, 4, 4, 4)).shape
    torch.Size([1, 1, 2, 2, 2])
    """

    __constants__ = ["kernel_size", "stride", "padding", "ceil_mode", "count_include_pad", "divisor_override"]

    def __init__(self, kernel_size, stride=None, padding=0, ceil_mode=False, count_include_pad=True,
                 divisor_override=None) -> None:  # fmt: skip
        super().__init__()
        self.kernel_size = kernel_size
        self.stride = stride if stride is not None else kernel_size
        self.padding, self.ceil_mode = padding, ceil_mode
        self.count_include_pad, self.divisor_override = count_include_pad, divisor_override

    def forward(self, input: Tensor) -> Tensor:
        return F.avg_pool3d(input, self.kernel_size, self.stride, self.padding, self.ceil_mode, self.count_include_pad,
                            self.divisor_override)  # fmt: skip

    def __setstate__(self, d):
        super().__setstate__(d)
        self.__dict__.setdefault("padding", 0)
        self.__dict__.setdefault("ceil_mode", False)
        self.__dict__.setdefault("count_include_pad", True)


class AdaptiveAvgPool3d(_AdaptivePool):
    """3-D average pooling to a fixed output size (None keeps that input size).

    >>> numtorch.nn.AdaptiveAvgPool3d((1, None, 2))(numtorch.ones(2, 3, 4, 5, 6)).shape
    torch.Size([2, 3, 1, 5, 2])
    """

    def forward(self, input: Tensor) -> Tensor:
        return F.adaptive_avg_pool3d(input, self.output_size)


class AdaptiveMaxPool3d(_AdaptiveMaxPool):
    """3-D max pooling to a fixed output size.

    >>> numtorch.nn.AdaptiveMaxPool3d(1)(numtorch.ones(1, 1, 3, 3, 3)).shape
    torch.Size([1, 1, 1, 1, 1])
    """

    def forward(self, input: Tensor):
        return F.adaptive_max_pool3d(input, self.output_size, self.return_indices)


class LPPool3d(_LPPoolNd):
    """Power-average pooling over (N, C, D, H, W).

    >>> numtorch.nn.LPPool3d(1, 2)(numtorch.full((1, 1, 2, 2, 2), 2.0))
    tensor([[[[[16.]]]]])
    """

    def forward(self, input: Tensor) -> Tensor:
        return F.lp_pool3d(input, float(self.norm_type), self.kernel_size, self.stride, self.ceil_mode)


class _FractionalMaxPoolNd(Module):
    _nd = 2

    def __init__(self, kernel_size, output_size=None, output_ratio=None, return_indices: bool = False,
                 _random_samples=None) -> None:  # fmt: skip
        super().__init__()
        tup = _pair if self._nd == 2 else _triple
        self.kernel_size = tup(kernel_size)
        self.return_indices = return_indices
        self.register_buffer("_random_samples", _random_samples)
        self.output_size = tup(output_size) if output_size is not None else None
        self.output_ratio = tup(output_ratio) if output_ratio is not None else None
        name = type(self).__name__
        if output_size is None and output_ratio is None:
            raise ValueError(f"{name} requires specifying either an output size, or a pooling ratio")
        if output_size is not None and output_ratio is not None:
            raise ValueError("only one of output_size and output_ratio may be specified")
        if self.output_ratio is not None and not all(0 < r < 1 for r in self.output_ratio):
            raise ValueError(f"output_ratio must be between 0 and 1 (got {output_ratio})")

    def forward(self, input: Tensor):
        fn = F.fractional_max_pool2d if self._nd == 2 else F.fractional_max_pool3d
        return fn(input, self.kernel_size, self.output_size, self.output_ratio, self.return_indices,
                  _random_samples=self._random_samples)  # fmt: skip


class FractionalMaxPool2d(_FractionalMaxPoolNd):
    """2-d fractional max pooling (Graham, 2014): windows at random fractional strides.

    >>> numtorch.nn.FractionalMaxPool2d(2, output_ratio=0.5)(numtorch.ones(1, 1, 8, 8)).shape
    torch.Size([1, 1, 4, 4])
    """

    _nd = 2


class FractionalMaxPool3d(_FractionalMaxPoolNd):
    """3-d fractional max pooling.

    >>> numtorch.nn.FractionalMaxPool3d(2, output_size=3)(numtorch.ones(1, 1, 5, 5, 5)).shape
    torch.Size([1, 1, 3, 3, 3])
    """

    _nd = 3
