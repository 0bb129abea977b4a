"""numtorch.special: ops declared with ``module="torch.special"`` are exported here."""

from __future__ import annotations

from ._tensor import Tensor  # noqa: F401 - torch.special.Tensor is torch.Tensor, as in PyTorch
