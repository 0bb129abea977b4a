"""numtorch.fft: ops declared with ``module="torch.fft"`` (numtorch/ops/fft.py) are exported here.

>>> numtorch.fft.rfft(numtorch.tensor([1.0, 1.0, 1.0, 1.0]))
tensor([4.+0.j, 0.+0.j, 0.+0.j])
"""

from __future__ import annotations

from ._tensor import Tensor  # noqa: F401 - torch.fft.Tensor is torch.Tensor, as in PyTorch
