"""OpInfos for numtorch/ops/reduction.py."""

from __future__ import annotations

OPINFOS: list = []
