"""numtorch's own host time per CUDA op, measurable without a GPU (run under
``NUMBA_ENABLE_CUDASIM=1``): cProfile of N calls after warm-up, summing the tottime of the frames
in numtorch's files only (kernel bodies, numtorch/kernels, and the simulator's launch machinery excluded; on a
GPU the direct launch path replaces the latter), with the kernel launches (``_launch.run``) and
device arrays made (``CudaArray``) per call. Before/after comparisons of host-path changes:

    NUMBA_ENABLE_CUDASIM=1 PYTHONPATH=$PWD python benchmarks/cuda_hostsim.py [case ...]
"""

from __future__ import annotations

import cProfile
import pstats
import sys
import time

import numpy as np


def _cases():
    import numtorch
    from numtorch.nn import functional as F

    g = np.random.default_rng(0)

    def t(*s):
        return numtorch.tensor(g.standard_normal(s, dtype=np.float32), device="cuda")

    img, m, m3 = t(2, 4, 16, 16), t(64, 64), t(4, 8, 64)
    lin = numtorch.nn.Linear(64, 32).cuda()
    ps = [
        numtorch.nn.Parameter(t(*s))
        for s in ((16, 16), (16,), (32, 16), (32,), (16, 32), (16,)) * 5
    ]
    for p in ps:
        p.grad = numtorch.ones_like(p)
    return {
        "clip_grad_norm_30": lambda: numtorch.nn.utils.clip_grad_norm_(ps, 1e9),
        "conv2d": lambda: F.conv2d(img, img[:4, :4, :3, :3]),
        "cat": lambda: numtorch.cat([m, m]),
        "mm64": lambda: m @ m,
        "linear3d": lambda: lin(m3),
        "t_contiguous": lambda: m.t().contiguous(),
        "layer_norm": lambda: F.layer_norm(m, (64,)),
        "reshape": lambda: m.reshape(16, 256),
        "view_t_transpose": lambda: (m.view(16, 256), m.t(), m3.transpose(1, 2)),
        "add": lambda: m + m,
        "sum_dim": lambda: m.sum(1),
        "zeros": lambda: numtorch.zeros(64, 64, device="cuda"),
    }


def measure(fn, reps: int = 5) -> tuple:
    """(numtorch's own host microseconds, launches, CudaArrays made) per call."""
    for _ in range(3):
        fn()
    pr = cProfile.Profile(
        time.thread_time
    )  # the main thread's CPU: not the simulator threads' nor GIL waits
    pr.enable()
    for _ in range(reps):
        fn()
    pr.disable()
    own = launches = arrays = 0.0
    for (file, _line, name), (_cc, nc, tt, _ct, _callers) in pstats.Stats(pr).stats.items():
        if ("/numtorch/" in file and "/numtorch/kernels/" not in file) or file.startswith(
            "<numtorch"
        ):
            own += tt
            if file.endswith("cuda/_launch.py") and name == "run":
                launches += nc
            if file.endswith("cuda/_storage.py") and name in ("__init__", "empty"):
                arrays += nc
    return own / reps * 1e6, launches / reps, arrays / reps


def main(names) -> None:
    import numtorch

    assert numtorch.cuda._rt.simulated(), "run under NUMBA_ENABLE_CUDASIM=1"
    sys.setswitchinterval(1e-4)  # the simulator's syncthreads polls (tests/cuda/conftest.py)
    cases = _cases()
    for name in names or cases:
        us, launches, arrays = min(measure(cases[name]) for _ in range(3))
        print(f"{name:20s} {us:8.1f} us  {launches:5.1f} launches  {arrays:5.1f} arrays")


if __name__ == "__main__":
    main(sys.argv[1:])
