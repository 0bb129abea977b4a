"""House-style limits that a reviewer should not have to count (STYLE.md rule 7)."""

from __future__ import annotations

from pathlib import Path

import pytest

import numtorch

ROOT = Path(numtorch.__file__).parent
HARD_CAP, KERNEL_CAP = 800, 400


@pytest.mark.parametrize("path", sorted(ROOT.rglob("*.py")), ids=lambda p: str(p.relative_to(ROOT)))
def test_module_stays_under_its_line_cap(path):
    cap = KERNEL_CAP if "kernels" in path.relative_to(ROOT).parts else HARD_CAP
    n = len(path.read_text().splitlines())
    assert n <= cap, f"{path.relative_to(ROOT)} has {n} lines (cap {cap}): split it by concern"


def test_torch_is_never_imported_by_the_package():
    offenders = [
        str(p.relative_to(ROOT))
        for p in ROOT.rglob("*.py")
        if any(
            line.strip().startswith(("import torch", "from torch"))
            for line in p.read_text().splitlines()
        )
    ]
    assert offenders == []
