"""Fresh-interpreter workloads for ``benchmarks/compare.py`` (category ``startup``): import, the
first op, the first MLP step and the first compiled GPT-2 step, with a warm or an empty kernel
cache, each timed inside a new interpreter; and the GPT-2 model's compile time. Compile time
counts as torch.compile's usually does: ``import`` excluded, the first compiled call less a
steady-state call, in a new process (Numba's start-up and the kernel loads from the disk cache
included, which an eager first step pays too); the "import + first ... step" rows give the whole
wait a user sees instead."""

from __future__ import annotations

import os
import re
import subprocess
import sys
import tempfile

from benchmarks import workloads
from benchmarks.workloads import Workload

_FIRST_STEP = """
import numpy as np
import {lib} as torch
nn = torch.nn
rng = np.random.default_rng(0)
model = nn.Sequential(nn.Linear(784, 256), nn.ReLU(), nn.Linear(256, 256), nn.ReLU(), nn.Linear(256, 10))
opt = torch.optim.SGD(model.parameters(), lr=0.01, momentum=0.9)
x = torch.from_numpy(rng.standard_normal((128, 784), dtype=np.float32))
y = torch.from_numpy(rng.integers(0, 10, 128))
opt.zero_grad()
nn.functional.cross_entropy(model(x), y).backward()
opt.step()
"""
_FIRST_OP = "import {lib} as torch\na = torch.ones(8)\nb = a + a\n"


def _fresh(code: str, cold: bool) -> float:
    """Seconds ``code`` takes in a new interpreter (timed inside it, start-up excluded), or the
    ``_seconds`` it sets, measured with ``_clock``. Python writes and reads bytecode (.pyc) as
    by default: a PYTHONDONTWRITEBYTECODE here (some sandboxes set it) would make each child
    compile numtorch's ~400 modules from source, doubling ``import numtorch`` (0.84 s vs 0.38 s)."""
    clock = "process_time" if os.environ.get("NUMTORCH_BENCH_CLOCK") == "cpu" else "perf_counter"
    prog = (f"import time\n_clock = time.{clock}\n_t0 = _clock()\n{code}\n"
            "print(globals().get('_seconds', _clock() - _t0))\n")  # fmt: skip
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    with tempfile.TemporaryDirectory(prefix="numtorch-cold-") as d:
        if cold:
            env.update(workloads._libs().kernel_cache_env(d))
        proc = subprocess.run([sys.executable, "-c", prog], env=env, capture_output=True, text=True)
    if proc.returncode:
        tail = proc.stderr.strip().splitlines()[-1:] or ["?"]
        if re.search(r"has no attribute|No module named", tail[0]):
            raise NotImplementedError(f"pending: {tail[0]}")
        raise RuntimeError(tail[0])
    return float(proc.stdout.strip().splitlines()[-1])


def _startup(template: str, cold=False, peers=("numtorch", "torch")):
    def make(name):
        if name not in peers or (name == "torch" and workloads._libs().torch_or_none() is None):
            raise NotImplementedError("not applicable")
        code = template.format(lib=name)
        if not cold:
            _fresh(code, False)  # fill the caches first
        return lambda: _fresh(code, cold)

    return make


_FIRST_GPT2_STEP = "import {lib}\nfrom benchmarks import gpt2\ngpt2.train_step({lib}, compiled=True)()\n"
# compile time as torch.compile's is usually given: in a new process after the import, the first
# compiled call less a steady-state one (capture, plan and kernel loads, Numba's start-up included)
_GPT2_COMPILE_TIME = """import {lib}
from benchmarks import gpt2
step = gpt2.train_step({lib}, compiled=True)
_t = [_clock()]
for _ in range(4):
    step()
    _t.append(_clock())
_seconds = (_t[1] - _t[0]) - min(b - a for a, b in zip(_t[1:], _t[2:]))
"""


def startup_workloads() -> list:
    """The startup rows of ``workloads.workloads()``."""
    W = []
    W.append(Workload("import + first compiled GPT-2 step, warm", "startup",
                      _startup(_FIRST_GPT2_STEP, peers=("numtorch",)), target_s=1.0, process=True))  # fmt: skip
    W.append(Workload("import + first compiled GPT-2 step, cold", "startup",
                      _startup(_FIRST_GPT2_STEP, True, ("numtorch",)), target_s=20.0, process=True,
                      samples=1))  # fmt: skip
    W.append(Workload("GPT-2 compile time, warm (first compiled step - steady step)", "startup",
                      _startup(_GPT2_COMPILE_TIME), target_s=1.0, process=True, samples=2))  # fmt: skip
    W.append(Workload("import", "startup", _startup("import {lib}\n"), target_s=0.5,
                      process=True))  # fmt: skip
    W.append(Workload("first op, warm cache", "startup", _startup(_FIRST_OP), process=True))
    W.append(Workload("first op, cold cache", "startup", _startup(_FIRST_OP, True, ("numtorch",)),
                      process=True, samples=2))  # fmt: skip
    W.append(Workload("import + first MLP step, warm", "startup", _startup(_FIRST_STEP),
                      target_s=1.0, process=True))  # fmt: skip
    W.append(Workload("import + first MLP step, cold", "startup",
                      _startup(_FIRST_STEP, True, ("numtorch",)), target_s=20.0, process=True,
                      samples=1))  # fmt: skip
    return W
