"""Run the CUDA tests under Numba's CUDA simulator when this process has no CUDA.

The simulator must be switched on before ``numba.cuda`` is first imported (Note [When CUDA is
available]), and this process's CPU tests expect the CPU-only answers of numtorch.cuda, so the
CUDA tests run in a child process with NUMBA_ENABLE_CUDASIM=1. On a GPU machine, or in the CI
lane that sets the variable, they run directly and this test skips.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

import numtorch

HERE = Path(__file__).parent
ROOT = HERE.parent.parent


@pytest.mark.skipif(numtorch.cuda.is_available(), reason="CUDA is available: the CUDA tests run directly")
def test_cuda_tests_pass_under_the_simulator():
    pytest.importorskip("numba")
    path = os.pathsep.join(p for p in (str(ROOT), os.environ.get("PYTHONPATH", "")) if p)
    env = dict(os.environ, NUMBA_ENABLE_CUDASIM="1", PYTHONPATH=path)
    cmd = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-x", str(HERE)]
    proc = subprocess.run(cmd, cwd=ROOT, env=env, capture_output=True, text=True, timeout=1800)
    tail = (proc.stdout + proc.stderr)[-6000:]
    assert proc.returncode == 0, tail
    assert " passed" in proc.stdout.strip().splitlines()[-1], tail
