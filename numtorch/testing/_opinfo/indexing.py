"""OpInfos for numtorch/ops/indexing.py."""

from __future__ import annotations

OPINFOS: list = []
