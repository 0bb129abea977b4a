"""numtorch.nn.functional: ops declared with ``module="torch.nn.functional"`` are exported here
by ``numtorch/__init__.py``; composites written in Python live below."""

from __future__ import annotations
