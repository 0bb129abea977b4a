"""OpInfos for numtorch/ops/linalg.py."""

from __future__ import annotations

OPINFOS: list = []
