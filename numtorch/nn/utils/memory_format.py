"""Converting convolution weights to a memory format (``channels_last``), mirroring
``torch.nn.utils.memory_format``; values and shapes stay, only the strides change."""

from __future__ import annotations

import numtorch

__all__ = ["convert_conv2d_weight_memory_format", "convert_conv3d_weight_memory_format"]


def _convert(module, memory_format, classes):
    if isinstance(module, classes):
        module.weight.data = module.weight.detach().clone(memory_format=memory_format)
    for child in module.children():
        _convert(child, memory_format, classes)
    return module


def convert_conv2d_weight_memory_format(module, memory_format):
    """Give every Conv2d / ConvTranspose2d weight under ``module`` the ``memory_format`` layout.

    >>> m = convert_conv2d_weight_memory_format(numtorch.nn.Conv2d(2, 3, 2), numtorch.channels_last)
    >>> m.weight.is_contiguous(memory_format=numtorch.channels_last)
    True
    """
    return _convert(module, memory_format, (numtorch.nn.Conv2d, numtorch.nn.ConvTranspose2d))


def convert_conv3d_weight_memory_format(module, memory_format):
    """Give every Conv3d / ConvTranspose3d weight under ``module`` the ``memory_format`` layout.

    >>> m = convert_conv3d_weight_memory_format(numtorch.nn.Conv3d(2, 3, 2), numtorch.channels_last_3d)
    >>> m.weight.is_contiguous(memory_format=numtorch.channels_last_3d)
    True
    """
    return _convert(module, memory_format, (numtorch.nn.Conv3d, numtorch.nn.ConvTranspose3d))
