"""numtorch's CUDA backend beside PyTorch's, on a machine with an NVIDIA GPU.

    PYTHONPATH=. python benchmarks/cuda_compare.py            # synchronised per call
    PYTHONPATH=. python benchmarks/cuda_compare.py --only=sort,cum   # the cases naming one of these
    PYTHONPATH=. python benchmarks/cuda_compare.py --kernel   # queued, event-timed: kernel
                                                              # bandwidth vs copy rate, host us/op

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


# GPT-2-style model at GPU-sized widths (benchmarks/gpt2.py's CONFIG is the CPU's small one)
GPT_GPU = {"vocab": 512, "block": 128, "n_layer": 4, "n_head": 4, "n_embd": 256, "batch": 16, "micro": 2}
# bytes moved (read + written) or floating-point operations per call, for the rate column
WORK = {
    "add 16M": ("GB/s", 3 * 4 << 24),
    "add 64M": ("GB/s", 3 * 4 << 26),
    "clone 64M (copy rate)": ("GB/s", 2 * 4 << 26),
    "exp 16M": ("GB/s", 2 * 4 << 24),
    "half add 16M": ("GB/s", 3 * 2 << 24),
    "complex64 mul 4M": ("GB/s", 3 * 8 << 22),
    "mm 2048": ("TFLOP/s", 2 * 2048**3),
    "mm 4096": ("TFLOP/s", 2 * 4096**3),
}


def cases(lib):
    from benchmarks import gpt2

    g = np.random.default_rng(0)
    big = lib.tensor(g.standard_normal(1 << 24, dtype=np.float32), device="cuda")
    huge = lib.tensor(g.standard_normal(1 << 26, dtype=np.float32), device="cuda")
    big2, huge2 = big.flip(0).contiguous(), huge.flip(0).contiguous()  # x + x reads one array
    half, half2 = big.half(), big2.half()
    cplx = lib.complex(big[: 1 << 22], big[1 << 22 : 2 << 22])
    cplx2 = lib.complex(big2[: 1 << 22], big2[1 << 22 : 2 << 22])
    a4 = lib.tensor(g.standard_normal((4096, 4096), dtype=np.float32), device="cuda")
    small = lib.tensor(g.standard_normal(1 << 10, dtype=np.float32), device="cuda")
    a = lib.tensor(g.standard_normal((2048, 2048), dtype=np.float32), device="cuda")
    bt = lib.tensor(g.standard_normal((64, 128, 128), dtype=np.float32), device="cuda")
    x = lib.tensor(g.standard_normal((256, 512), dtype=np.float32), device="cuda")
    y = lib.tensor(g.standard_normal((256, 512), dtype=np.float32), device="cuda")
    idx = lib.tensor(g.integers(0, 1000, 1 << 24), device="cuda")
    return {
        "add 1K (launch cost)": lambda: small + small,
        "add 16M": lambda: big + big2,
        "add 64M": lambda: huge + huge2,
        "clone 64M (copy rate)": lambda: huge.clone(),
        "half add 16M": lambda: half + half2,
        "complex64 mul 4M": lambda: cplx * cplx2,
        "exp 16M": lambda: lib.exp(big),
        "mul+add+tanh 16M": lambda: lib.tanh(big * 0.5 + big),
        "sum 16M": lambda: big.sum(),
        "amax dim 2048x2048": lambda: a.amax(dim=1),
        "mm 2048": lambda: a @ a,
        "mm 4096": lambda: a4 @ a4,
        "autocast mm 2048 (float16)": lambda: _autocast_mm(lib, a),
        "bmm 64x128x128": lambda: lib.bmm(bt, bt),
        "copy transpose 2048": lambda: a.t().contiguous(),
        "MLP 512-2048 fwd+bwd+Adam": _mlp_step(lib, x, y),
        "sort rows 2048x2048": lambda: a.sort(dim=1),
        "topk 10 of 2048x2048": lambda: a.topk(10, dim=1),
        "cumprod 2048x2048": lambda: a.cumprod(1),
        "cumsum 2048x2048 dim 0": lambda: a.cumsum(0),
        "cummax 2048x2048": lambda: a.cummax(1),
        "logcumsumexp 2048x2048": lambda: a.logcumsumexp(1),
        "cumsum 16M (one row)": lambda: big.cumsum(0),
        "sort rows 256x16384 (merges)": lambda: a4.reshape(1024, 16384)[:256].sort(dim=1),
        "transposed add 4096": lambda: a4.t() + a4,
        "copy permute 16x64x32x32 (0,2,3,1)": lambda: bt.reshape(16, 64, 32, 32).permute(0, 2, 3, 1).contiguous(),
        "bincount 16M into 1000": lambda: lib.bincount(idx),
        "histc 16M 100 bins": lambda: lib.histc(big, 100, -3, 3),
        "conv2d 16x64x32x32 3x3 fwd+bwd": _conv_step(lib, g),
        "max_pool2d 3x3/2 16x64x32x32": lambda: lib.nn.functional.max_pool2d(bt.reshape(16, 64, 32, 32), 3, 2),
        "GPT 2L-64 step (gpt2.CONFIG)": gpt2.train_step(lib, device="cuda"),
        "GPT 4L-256 step, block 128": gpt2.train_step(lib, config=GPT_GPU, device="cuda"),
    }


def _autocast_mm(lib, a):
    with lib.autocast("cuda", dtype=lib.float16):
        return a @ a


def _rates(name: str, nt: float, tt: float) -> str:
    if name not in WORK:
        return ""
    unit, work = WORK[name]
    scale = 1e9 if unit == "GB/s" else 1e12
    return f"  {work / nt / scale:.1f} / {work / tt / scale:.1f} {unit}"


def host_profile(fn, reps: int):
    """cProfile of ``reps`` calls of ``fn`` after three warm-up calls, the queue drained on both
    sides (the host's own time, not the GPU's)."""
    import cProfile

    import numtorch

    for _ in range(3):
        fn()
    numtorch.cuda.synchronize()
    pr = cProfile.Profile()
    pr.enable()
    for _ in range(reps):
        fn()
    numtorch.cuda.synchronize()
    pr.disable()
    return pr


def profile(n: int = 2000) -> None:
    """Where the host time goes: cProfile of ``n`` 1K-element adds, then of 20 MLP steps."""
    import pstats

    import numtorch

    x = numtorch.ones(1 << 10, device="cuda")
    g = np.random.default_rng(0)
    xm = numtorch.tensor(g.standard_normal((256, 512), dtype=np.float32), device="cuda")
    step = _mlp_step(numtorch, xm, xm)
    for what, fn, reps in (("1K add", lambda: x + x, n), ("MLP step", step, 20)):
        print(f"==== {what} x {reps}")
        pstats.Stats(host_profile(fn, reps)).sort_stats("tottime").print_stats(30)
    _print_slow_launches()


def _print_slow_launches() -> None:
    # kernels that never get a direct launch (Note [Direct kernel launches]): each of these
    # launches costs numba-cuda's ~50 us of argument typing and conversion
    from numtorch.cuda import _launch

    slow = sorted(_launch.SLOW_LAUNCHES.items(), key=lambda kv: -kv[1])
    print("launches through numba-cuda's path (no direct plan):", slow[:20] or "none")


def _queued(lib, fn, reps: int) -> float:
    """Seconds per call of ``reps`` calls queued back to back, timed by CUDA events (no
    synchronisation between calls): the kernel's time when the GPU is the bottleneck (large
    tensors), the host's time per call when the host is (tiny ones)."""
    fn()
    lib.cuda.synchronize()
    start, end = lib.cuda.Event(enable_timing=True), lib.cuda.Event(enable_timing=True)
    start.record()
    for _ in range(reps):
        fn()
    end.record()
    end.synchronize()
    return start.elapsed_time(end) / 1e3 / reps


def kernel_cases(lib):
    """Bandwidth cases, each as (bytes moved per call, fn); 'copy 64M' is the device-to-device
    copy rate the issue's 70% target is measured against."""
    g = np.random.default_rng(0)
    big = lib.tensor(g.standard_normal(1 << 24, dtype=np.float32), device="cuda")
    huge = lib.tensor(g.standard_normal(1 << 26, dtype=np.float32), device="cuda")
    # second operands: x + x reads one array, which overstated the bytes moved (before 2026-11-26)
    big2, huge2 = big.flip(0).contiguous(), huge.flip(0).contiguous()
    dst = lib.empty_like(huge)
    half, half2 = big.half(), big2.half()
    cplx = lib.complex(big[: 1 << 22], big[1 << 22 : 2 << 22])
    cplx2 = lib.complex(big2[: 1 << 22], big2[1 << 22 : 2 << 22])
    small = lib.tensor(g.standard_normal(1 << 10, dtype=np.float32), device="cuda")
    w = lib.tensor(g.standard_normal((64, 16), dtype=np.float32), device="cuda")
    idx = lib.tensor(g.integers(0, 1000, 1 << 24), device="cuda")
    mask = big > 0
    return {
        "copy_ 64M (copy rate)": (2 * 4 << 26, lambda: dst.copy_(huge)),
        "add 16M": (3 * 4 << 24, lambda: big + big2),
        "add 64M": (3 * 4 << 26, lambda: huge + huge2),
        "add_ 64M in place": (3 * 4 << 26, lambda: dst.add_(huge)),
        "mul scalar 64M": (2 * 4 << 26, lambda: huge * 0.5),
        "half add 16M": (3 * 2 << 24, lambda: half + half2),
        "exp 16M": (2 * 4 << 24, lambda: lib.exp(big)),
        "complex64 mul 4M": (3 * 8 << 22, lambda: cplx * cplx2),
        "transpose add 4096x4096 (strided)": (3 * 4 << 24, lambda: big.view(4096, 4096).t() + big.view(4096, 4096)),
        "copy transpose 4096 (t().contiguous())": (2 * 4 << 24, lambda: big.view(4096, 4096).t().contiguous()),
        "cumprod 2048x2048 (dim last)": (2 * 4 << 22, lambda: big[: 1 << 22].view(2048, 2048).cumprod(1)),
        "cumsum 2048x2048 dim 0": (2 * 4 << 22, lambda: big[: 1 << 22].view(2048, 2048).cumsum(0)),
        "sort rows 2048x2048": (0, lambda: big[: 1 << 22].view(2048, 2048).sort(dim=1)),
        "topk 10 of 2048x2048": (0, lambda: big[: 1 << 22].view(2048, 2048).topk(10, dim=1)),
        "sum 16M": (4 << 24, lambda: big.sum()),
        "amax dim 2048x2048": (4 << 22, lambda: big[: 1 << 22].view(2048, 2048).amax(1)),
        "cumsum 16M (one row)": (2 * 4 << 24, lambda: big.cumsum(0)),
        "cumsum 16M bool mask (to int64)": (9 << 24, lambda: mask.cumsum(0)),
        "logcumsumexp 2048x2048": (2 * 4 << 22, lambda: big[: 1 << 22].view(2048, 2048).logcumsumexp(1)),
        "histc 16M 100 bins (given range)": (4 << 24, lambda: lib.histc(big, 100, -3, 3)),
        "bincount 16M into 1000": (8 << 24, lambda: lib.bincount(idx)),
        "conv2d 16x64x32x32 3x3 fwd+bwd": (0, _conv_step(lib, g)),
        # tiny ops: the host's cost per call (the GPU waits for it)
        "host: add 1K": (0, lambda: small + small),
        "host: mul number 1K": (0, lambda: small * 0.5),
        "host: add_ 1K in place": (0, lambda: small.add_(small)),
        "host: exp 1K": (0, lambda: lib.exp(small)),
        "host: view + t()": (0, lambda: w.view(16, 64).t()),
        "host: strided add (t() + x)": (0, lambda: w.t() + w.t()),
    }


def kernel_main(reps: int) -> None:
    """``--kernel``: queued timings (kernel time for the large cases, host time per call for
    the tiny ones), numtorch beside torch, and each large case's rate as a share of torch's
    copy rate measured here (the issue's 70% target)."""
    import torch

    import numtorch

    nt, tt = kernel_cases(numtorch), kernel_cases(torch)
    copy_rate = None
    print(f"{'case (queued, event-timed)':36s} {'numtorch':>10s} {'torch':>10s} {'ratio':>6s}  GB/s nt / torch, nt % of copy")
    only = _only()
    for name, (work, fn) in nt.items():
        if only and not any(o in name for o in only) and not name.startswith("copy_ 64M"):
            continue
        try:
            a = min(_queued(numtorch, fn, reps) for _ in range(3))
            b = min(_queued(torch, tt[name][1], reps) for _ in range(3))
        except Exception as e:
            print(f"{name:36s} FAILED: {type(e).__name__}: {str(e)[:300]}", flush=True)
            continue
        line = f"{name:36s} {a * 1e6:8.1f}us {b * 1e6:8.1f}us {a / b:5.2f}x"
        if work:
            if copy_rate is None:
                copy_rate = work / b
            line += f"  {work / a / 1e9:7.0f} / {work / b / 1e9:7.0f}  {100 * work / a / copy_rate:5.1f}%"
        print(line, flush=True)
    _print_slow_launches()


def _only():
    # --only=sort,cum: the cases whose names hold one of these (the copy rate's case always runs)
    return next((a.split("=", 1)[1].split(",") for a in sys.argv[1:] if a.startswith("--only=")), None)


def main() -> None:
    if "--profile" in sys.argv:
        profile()
        return
    if "--kernel" in sys.argv:
        kernel_main(int(next((a for a in sys.argv[1:] if a.isdigit()), 50)))
        return
    import torch

    import numtorch

    reps = int(next((a for a in sys.argv[1:] if a.isdigit()), 20))
    only = _only()
    nt_cases, t_cases = cases(numtorch), cases(torch)
    print(f"{'case':30s} {'numtorch':>12s} {'torch':>12s} {'ratio':>7s} {'nt first':>10s}  rate numtorch / torch")
    for name in nt_cases:
        if only and not any(o in name for o in only):
            continue
        try:
            nf, nt = _time(numtorch, nt_cases[name], reps)
            _, tt = _time(torch, t_cases[name], reps)
            print(f"{name:30s} {nt * 1e6:10.1f}us {tt * 1e6:10.1f}us {nt / tt:6.2f}x {nf:9.2f}s{_rates(name, nt, tt)}", flush=True)
        except Exception as e:  # one failing case must not hide the others' numbers
            print(f"{name:30s} FAILED: {type(e).__name__}: {str(e)[:300]}", flush=True)


if __name__ == "__main__":
    main()
