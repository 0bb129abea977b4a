"""Start-up costs, each timed in a fresh interpreter (asv ``timeraw_``): ``import numtorch``,
the first op (kernel load from a warm Numba cache, or compile into an empty one) and the
first MLP training step. Targets: import <= 0.5 s; first step <= 1.0 s warm, <= 20 s cold.

"Cold" points ``NUMBA_CACHE_DIR`` and ``NUMTORCH_KERNEL_CACHE`` at a new temporary folder in
the child (removed at its exit), so every kernel the workload touches is generated and
compiled. "Warm" first runs the workload once in another process so the caches are filled.
"""

from __future__ import annotations

import subprocess
import sys
import textwrap

from .common import Benchmark, need, require_torch

COVERS: set = set()

COLD_SETUP = """
import atexit, os, shutil, tempfile
_cold = tempfile.mkdtemp(prefix="numtorch-cold-")
atexit.register(shutil.rmtree, _cold, True)
os.environ["NUMBA_CACHE_DIR"] = _cold
os.environ["NUMTORCH_KERNEL_CACHE"] = os.path.join(_cold, "kernels")
"""

FIRST_OP_SETUP = """
import numtorch
a = numtorch.ones(8)
b = numtorch.ones(8)
"""
FIRST_OP = "a + b"

# The whole "time to first step", import included (what a user waits for). {lib} is
# numtorch or torch; the code uses only the shared API.
FIRST_STEP = """
import numpy as np
import {lib} as torch
nn = torch.nn
rng = np.random.default_rng(0)
model = nn.Sequential(nn.Linear(784, 256), nn.ReLU(), nn.Linear(256, 256), nn.ReLU(),
                      nn.Linear(256, 10))
opt = torch.optim.SGD(model.parameters(), lr=0.01, momentum=0.9)
x = torch.from_numpy(rng.standard_normal((128, 784), dtype=np.float32))
y = torch.from_numpy(rng.integers(0, 10, 128))
opt.zero_grad()
loss = nn.functional.cross_entropy(model(x), y)
loss.backward()
opt.step()
"""


def run_fresh(code: str, env: dict | None = None) -> None:
    """Run ``code`` in a new interpreter (to fill the kernel caches); raise on failure."""
    import os

    proc = subprocess.run(
        [sys.executable, "-c", textwrap.dedent(code)],
        env={**os.environ, **(env or {})},
        capture_output=True,
        text=True,
    )
    if proc.returncode:
        raise RuntimeError(f"warm-up process failed:\n{proc.stderr[-2000:]}")


def timeraw_import_numtorch():
    return "import numtorch"


def timeraw_first_op_warm_cache():
    return FIRST_OP, FIRST_OP_SETUP


def _warm_first_op():
    run_fresh(FIRST_OP_SETUP + FIRST_OP)


timeraw_first_op_warm_cache.setup = _warm_first_op


def timeraw_first_op_cold_cache():
    return FIRST_OP, COLD_SETUP + FIRST_OP_SETUP


timeraw_first_op_cold_cache.timeout = 300.0
timeraw_first_op_cold_cache.repeat = (1, 3, 60.0)


class ImportPeer(Benchmark):
    """``import torch`` for reference (PyTorch 2.13: ~1 s here)."""

    def setup(self):
        require_torch()

    def timeraw_import_torch(self):
        return "import torch"


class FirstTrainStep(Benchmark):
    """Import, build the MLP and SGD, one training step, in a fresh process."""

    params = [["numtorch", "torch"], ["warm", "cold"]]
    param_names = ["lib", "cache"]
    timeout = 600.0
    repeat = (1, 3, 120.0)

    def setup(self, libname, cache):
        if libname == "torch":
            require_torch()
            if cache == "cold":
                raise NotImplementedError("PyTorch has no JIT cache: cold is warm")
        else:
            need(
                "nn.Linear", "nn.ReLU", "nn.Sequential", "nn.functional.cross_entropy", "optim.SGD"
            )
        if cache == "warm":
            run_fresh(FIRST_STEP.format(lib=libname))

    def timeraw_first_step(self, libname, cache):
        code = FIRST_STEP.format(lib=libname)
        return code, (COLD_SETUP if cache == "cold" else "")
