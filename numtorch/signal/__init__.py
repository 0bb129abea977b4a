"""numtorch.signal: signal-processing helpers (PyTorch's ``torch.signal``); so far the window functions.

>>> numtorch.signal.windows.hann(3).tolist()
[0.0, 1.0, 0.0]
"""

from __future__ import annotations

from . import windows

__all__ = ["windows"]
