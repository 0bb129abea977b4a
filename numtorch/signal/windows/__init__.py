"""numtorch.signal.windows: the SciPy-style window functions of ``torch.signal.windows``."""

from __future__ import annotations

from .windows import (
    bartlett, blackman, cosine, exponential, gaussian, general_cosine, general_hamming, hamming, hann, kaiser,
    nuttall,
)  # fmt: skip

__all__ = [
    "bartlett", "blackman", "cosine", "exponential", "gaussian", "general_cosine", "general_hamming", "hamming",
    "hann", "kaiser", "nuttall",
]  # fmt: skip
