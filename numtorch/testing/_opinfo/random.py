"""OpInfos for numtorch/ops/random.py."""

from __future__ import annotations

OPINFOS: list = []
