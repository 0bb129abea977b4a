"""numtorch.linalg: ops declared with ``module="torch.linalg"`` are exported here."""

from __future__ import annotations

from .ops.linalg.core import LinAlgError  # noqa: F401
