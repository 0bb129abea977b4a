"""numtorch.special: ops declared with ``module="torch.special"`` are exported here."""

from __future__ import annotations
