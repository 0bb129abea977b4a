"""numtorch's CUDA backend beside PyTorch's, on a machine with an NVIDIA GPU.

    PYTHONPATH=. python benchmarks/cuda_compare.py

Each case runs the same code on ``numtorch`` and on ``torch`` (the peer, never imported by
numtorch itself), synchronises after every call, and prints the median of repeated timings and
the ratio numtorch / torch. The first call of each case (Numba's compile, cuBLAS's start) is
timed apart as "first". A case that fails prints its error and the run goes on.
"""

from __future__ import annotations

import statistics
import sys
import time

import numpy as np


def _time(lib, fn, reps: int) -> tuple[float, float]:
    sync = lib.cuda.synchronize
    t0 = time.perf_counter()
    fn()
    sync()
    first = time.perf_counter() - t0
    ts = []
    for _ in range(reps):
        t0 = time.perf_counter()
        fn()
        sync()
        ts.append(time.perf_counter() - t0)
    return first, statistics.median(ts)


def _mlp_step(lib, x, y):
    nn, F = lib.nn, lib.nn.functional
    lib.manual_seed(0)
    model = nn.Sequential(nn.Linear(512, 2048), nn.GELU(), nn.Linear(2048, 512), nn.LayerNorm(512)).to("cuda")
    opt = lib.optim.Adam(model.parameters(), lr=1e-3)

    def step():
        opt.zero_grad()
        loss = F.mse_loss(model(x), y)
        loss.backward()
        opt.step()

    return step


def _conv_step(lib, g):
    x = lib.tensor(g.standard_normal((16, 64, 32, 32), dtype=np.float32), device="cuda", requires_grad=True)
    w = lib.tensor(g.standard_normal((64, 64, 3, 3), dtype=np.float32) * 0.05, device="cuda", requires_grad=True)
    return lambda: lib.nn.functional.conv2d(x, w, padding=1).sum().backward()


def cases(lib):
    g = np.random.default_rng(0)
    big = lib.tensor(g.standard_normal(1 << 24, dtype=np.float32), device="cuda")
    small = lib.tensor(g.standard_normal(1 << 10, dtype=np.float32), device="cuda")
    a = lib.tensor(g.standard_normal((2048, 2048), dtype=np.float32), device="cuda")
    bt = lib.tensor(g.standard_normal((64, 128, 128), dtype=np.float32), device="cuda")
    x = lib.tensor(g.standard_normal((256, 512), dtype=np.float32), device="cuda")
    y = lib.tensor(g.standard_normal((256, 512), dtype=np.float32), device="cuda")
    return {
        "add 1K (launch cost)": lambda: small + small,
        "add 16M": lambda: big + big,
        "exp 16M": lambda: lib.exp(big),
        "mul+add+tanh 16M": lambda: lib.tanh(big * 0.5 + big),
        "sum 16M": lambda: big.sum(),
        "amax dim 2048x2048": lambda: a.amax(dim=1),
        "mm 2048": lambda: a @ a,
        "bmm 64x128x128": lambda: lib.bmm(bt, bt),
        "copy transpose 2048": lambda: a.t().contiguous(),
        "MLP 512-2048 fwd+bwd+Adam": _mlp_step(lib, x, y),
        "sort rows 2048x2048": lambda: a.sort(dim=1),
        "topk 10 of 2048x2048": lambda: a.topk(10, dim=1),
        "cumprod 2048x2048": lambda: a.cumprod(1),
        "conv2d 16x64x32x32 3x3 fwd+bwd": _conv_step(lib, g),
        "max_pool2d 3x3/2 16x64x32x32": lambda: lib.nn.functional.max_pool2d(bt.reshape(16, 64, 32, 32), 3, 2),
    }


def profile(n: int = 2000) -> None:
    """Where the host time goes: cProfile of ``n`` 1K-element adds, then of 20 MLP steps."""
    import cProfile
    import pstats

    import numtorch

    x = numtorch.ones(1 << 10, device="cuda")
    g = np.random.default_rng(0)
    xm = numtorch.tensor(g.standard_normal((256, 512), dtype=np.float32), device="cuda")
    step = _mlp_step(numtorch, xm, xm)
    for what, fn, reps in (("1K add", lambda: x + x, n), ("MLP step", step, 20)):
        for _ in range(3):
            fn()
        numtorch.cuda.synchronize()
        pr = cProfile.Profile()
        pr.enable()
        for _ in range(reps):
            fn()
        numtorch.cuda.synchronize()
        pr.disable()
        print(f"==== {what} x {reps}")
        pstats.Stats(pr).sort_stats("tottime").print_stats(30)


def main() -> None:
    if "--profile" in sys.argv:
        profile()
        return
    import torch

    import numtorch

    reps = int(sys.argv[1]) if len(sys.argv) > 1 else 20
    nt_cases, t_cases = cases(numtorch), cases(torch)
    print(f"{'case':30s} {'numtorch':>12s} {'torch':>12s} {'ratio':>7s} {'nt first':>10s}")
    for name in nt_cases:
        try:
            nf, nt = _time(numtorch, nt_cases[name], reps)
            _, tt = _time(torch, t_cases[name], reps)
            print(f"{name:30s} {nt * 1e6:10.1f}us {tt * 1e6:10.1f}us {nt / tt:6.2f}x {nf:9.2f}s", flush=True)
        except Exception as e:  # one failing case must not hide the others' numbers
            print(f"{name:30s} FAILED: {type(e).__name__}: {str(e)[:300]}", flush=True)


if __name__ == "__main__":
    main()
