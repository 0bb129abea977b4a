"""numtorch.nn.attention: choosing the scaled-dot-product-attention backend (``SDPBackend``, ``sdpa_kernel``).

numtorch has one implementation, the math one (ATen's composite). The fused backends (flash,
memory-efficient, cuDNN) are CUDA kernels numtorch does not have: selecting them is accepted, as
PyTorch accepts it, but ``scaled_dot_product_attention`` then has no usable backend unless MATH is
among the enabled ones, and raises PyTorch's error. The choice lives in the
``numtorch.backends.cuda.*_sdp_enabled`` flags, as in PyTorch.

>>> from numtorch.nn.attention import SDPBackend, sdpa_kernel
>>> with sdpa_kernel(SDPBackend.MATH):
...     numtorch.nn.functional.scaled_dot_product_attention(*[numtorch.ones(1, 2, 4)] * 3).shape
torch.Size([1, 2, 4])
"""

from __future__ import annotations

import contextlib
import enum

from ...backends import cuda as _cuda_flags

__all__ = ["SDPBackend", "WARN_FOR_UNFUSED_KERNELS", "sdpa_kernel", "can_use_flash_attention",
           "can_use_efficient_attention"]  # fmt: skip

WARN_FOR_UNFUSED_KERNELS = False


class SDPBackend(enum.IntEnum):
    """The scaled-dot-product-attention implementations PyTorch knows (numtorch runs MATH only)."""

    ERROR = -1
    MATH = 0
    FLASH_ATTENTION = 1
    EFFICIENT_ATTENTION = 2
    CUDNN_ATTENTION = 3
    OVERRIDEABLE = 4


# backend -> its numtorch.backends.cuda flag (OVERRIDEABLE, for out-of-tree devices, has none here)
_FLAG = {SDPBackend.MATH: "math", SDPBackend.FLASH_ATTENTION: "flash",
         SDPBackend.EFFICIENT_ATTENTION: "mem_efficient", SDPBackend.CUDNN_ATTENTION: "cudnn"}  # fmt: skip


def _cur_sdpa_kernel_backends() -> list:
    return [b for b, flag in _FLAG.items() if _cuda_flags._SDP[flag]]


def _sdpa_kernel(backends) -> None:
    for b, flag in _FLAG.items():
        _cuda_flags._SDP[flag] = b in backends


@contextlib.contextmanager
def sdpa_kernel(backends, set_priority: bool = False):
    """Enable only ``backends`` (one SDPBackend or a list) for ``scaled_dot_product_attention`` inside the block."""
    if not isinstance(backends, (list, SDPBackend)):
        raise AssertionError(
            "Backend must be an instance of SDPBackend or a list of SDPBackend instances, "
            f"got {type(backends).__name__}"
        )
    backends = [backends] if isinstance(backends, SDPBackend) else list(dict.fromkeys(backends))
    previous = _cur_sdpa_kernel_backends()
    try:
        _sdpa_kernel(backends)
        yield {}
    finally:
        _sdpa_kernel(previous)


def can_use_flash_attention(params=None, debug: bool = False) -> bool:
    """False: numtorch has no flash-attention kernel."""
    return False


def can_use_efficient_attention(params=None, debug: bool = False) -> bool:
    """False: numtorch has no memory-efficient attention kernel."""
    return False
