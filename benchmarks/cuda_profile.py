"""Where numtorch's CUDA time goes, on a machine with an NVIDIA GPU: host and device apart.

    PYTHONPATH=. python benchmarks/cuda_profile.py [OUTDIR]

- host: cProfile of tiny ops and of a GPT-2 training step (the GPU waits on the host there),
  sorted by own time, into ``OUTDIR/host.txt``;
- device: every kernel the process launched, with its GPU time, read through CUPTI by PyTorch's
  profiler (the peer, never imported by numtorch; CUPTI sees Numba's kernels as well as its
  own), for the cases ``cuda_compare.py`` shows furthest behind, into ``OUTDIR/kernels.txt``;
- per-op host cost: tiny calls queued back to back, numtorch beside torch, the cost of one
  synchronisation, and how many synchronising calls and host transfers one GPT-2 step makes,
  into ``OUTDIR/ops.txt``.
"""

from __future__ import annotations

import io
import pstats
import sys

import numpy as np

from benchmarks import gpt2
from benchmarks.cuda_compare import GPT_GPU, _conv_step, host_profile


def _host(out) -> None:
    import numtorch

    g = np.random.default_rng(0)
    small = numtorch.tensor(g.standard_normal(1 << 10, dtype=np.float32), device="cuda")
    w = numtorch.tensor(g.standard_normal((64, 16), dtype=np.float32), device="cuda")
    cases = (
        ("1K add", lambda: small + small, 2000),
        ("1K exp", lambda: numtorch.exp(small), 2000),
        ("strided add t() + t()", lambda: w.t() + w.t(), 1000),
        ("GPT 2L-64 step", gpt2.train_step(numtorch, device="cuda"), 10),
    )
    for name, fn, reps in cases:
        pr = host_profile(fn, reps)
        for key in ("tottime", "cumulative"):
            s = io.StringIO()
            pstats.Stats(pr, stream=s).sort_stats(key).print_stats(35)
            out.write(f"==== {name} x {reps}, by {key}\n{s.getvalue()}\n")


def _kernels(out) -> None:
    import torch
    from torch.profiler import ProfilerActivity, profile

    import numtorch

    g = np.random.default_rng(0)
    a = numtorch.tensor(g.standard_normal((2048, 2048), dtype=np.float32), device="cuda")
    big = numtorch.tensor(g.standard_normal(1 << 24, dtype=np.float32), device="cuda")
    bt = numtorch.tensor(g.standard_normal((64, 128, 128), dtype=np.float32), device="cuda")
    cases = (
        ("conv2d 16x64x32x32 3x3 fwd+bwd", _conv_step(numtorch, g)),
        ("cumprod 2048x2048", lambda: a.cumprod(1)),
        ("sort rows 2048x2048", lambda: a.sort(dim=1)),
        ("topk 10 of 2048x2048", lambda: a.topk(10, dim=1)),
        ("sum 16M", lambda: big.sum()),
        ("amax dim 2048x2048", lambda: a.amax(dim=1)),
        ("bmm 64x128x128", lambda: numtorch.bmm(bt, bt)),
        ("max_pool2d 3x3/2", lambda: numtorch.nn.functional.max_pool2d(bt.reshape(16, 64, 32, 32), 3, 2)),
        ("GPT 4L-256 step", gpt2.train_step(numtorch, config=GPT_GPU, device="cuda")),
    )
    for name, fn in cases:
        try:
            fn()
            numtorch.cuda.synchronize()
            with profile(activities=[ProfilerActivity.CUDA]) as prof:
                for _ in range(3):
                    fn()
                numtorch.cuda.synchronize()
                torch.cuda.synchronize()
            table = prof.key_averages().table(sort_by="cuda_time_total", row_limit=25, max_name_column_width=110)
            out.write(f"==== {name} x 3\n{table}\n")
        except Exception as e:  # one failing case must not hide the others
            out.write(f"==== {name} FAILED: {type(e).__name__}: {e}\n")
        out.flush()


def _host_ops(lib):
    g = np.random.default_rng(0)
    t = lambda *shape: lib.tensor(g.standard_normal(shape, dtype=np.float32), device="cuda")
    v, m, b3, img = t(1024), t(64, 64), t(8, 32, 32), t(2, 4, 16, 16)
    tgt = lib.tensor(g.integers(0, 64, 64), device="cuda")
    F = lib.nn.functional
    mg, x3, w = t(64, 64).requires_grad_(), t(4, 32, 64), t(64, 64)
    q4 = t(4, 2, 32, 32)
    return {
        "add": lambda: v + v,
        "sum all": lambda: v.sum(),
        "sum dim": lambda: m.sum(1),
        "amax dim": lambda: m.amax(1),
        "mm 64": lambda: m @ m,
        "bmm 8x32": lambda: lib.bmm(b3, b3),
        "softmax": lambda: m.softmax(-1),
        "layer_norm": lambda: F.layer_norm(m, (64,)),
        "cross_entropy": lambda: F.cross_entropy(m, tgt),
        "max_pool2d": lambda: F.max_pool2d(img, 2),
        "conv2d": lambda: F.conv2d(img, img[:4, :4, :3, :3]),
        "cat": lambda: lib.cat([m, m]),
        "index_select": lambda: m.index_select(0, tgt),
        "t().contiguous()": lambda: m.t().contiguous(),
        "zeros": lambda: lib.zeros(64, 64, device="cuda"),
        "randn": lambda: lib.randn(64, 64, device="cuda"),
        "linear 3-D": lambda: F.linear(x3, w),
        "matmul 4-D": lambda: q4 @ q4,
        "softmax fwd+bwd": lambda: mg.softmax(-1).sum().backward(),
        "layer_norm fwd+bwd": lambda: F.layer_norm(mg, (64,)).sum().backward(),
        "cross_entropy fwd+bwd": lambda: F.cross_entropy(mg, tgt).backward(),
    }


def _count_calls(fn, targets) -> list:
    """How many times one call of ``fn`` calls each (module, name) or (list, index) in ``targets``."""
    counts = [0] * len(targets)
    get = lambda m, n: m[n] if type(m) is list else getattr(m, n)
    put = lambda m, n, f: m.__setitem__(n, f) if type(m) is list else setattr(m, n, f)
    saved = [get(m, n) for m, n in targets]

    def counting(i, f):
        def wrapper(*a, **k):
            counts[i] += 1
            return f(*a, **k)
        return wrapper

    for i, (m, n) in enumerate(targets):
        put(m, n, counting(i, saved[i]))
    try:
        fn()
    finally:
        for (m, n), f in zip(targets, saved, strict=True):
            put(m, n, f)
    return counts


def _ops(out) -> None:
    import time

    import torch

    import numtorch
    from benchmarks.cuda_compare import _queued

    nt, tt = _host_ops(numtorch), _host_ops(torch)
    from numba.cuda.cudadrv import driver as drv

    from numtorch.cuda import _launch

    out.write(f"{'tiny op, queued (host us/call)':32s} {'numtorch':>9s} {'torch':>9s} {'ratio':>6s}"
              "  per call: direct launches, numba-cuda launches, device-to-host copies\n")
    for name, fn in nt.items():
        try:
            a = min(_queued(numtorch, fn, 200) for _ in range(3)) * 1e6
            b = min(_queued(torch, tt[name], 200) for _ in range(3)) * 1e6
            counts = _count_calls(fn, [(_launch._DIRECT, 0), (drv, "device_to_host")])
            slow = sum(_launch.SLOW_LAUNCHES.values())
            fn()
            slow = sum(_launch.SLOW_LAUNCHES.values()) - slow
            out.write(f"{name:32s} {a:9.1f} {b:9.1f} {a / b:6.2f}  {counts[0]} {slow} {counts[1]}\n")
        except Exception as e:
            out.write(f"{name:32s} FAILED: {type(e).__name__}: {str(e)[:200]}\n")
    out.write(f"kernels launched through numba-cuda's path: {dict(_launch.SLOW_LAUNCHES)}\n")
    for lib in (numtorch, torch):
        lib.cuda.synchronize()
        t0 = time.perf_counter()
        for _ in range(1000):
            lib.cuda.synchronize()
        out.write(f"{lib.__name__}.cuda.synchronize() on an idle GPU: {(time.perf_counter() - t0) * 1e3:.2f} us\n")
    # what in one GPT-2 step waits for the GPU: synchronisations and host transfers
    step = gpt2.train_step(numtorch, device="cuda")
    step()
    numtorch.cuda.synchronize()
    names = ("device_to_host", "host_to_device")
    found = _count_calls(step, [(drv, n) for n in names] + [(drv.Context, "synchronize"), (_launch._DIRECT, 0)])
    counts = dict(zip((*names, "Context.synchronize", "direct launches"), found, strict=True))
    out.write(f"one GPT 2L-64 step: {counts}\n")


def main() -> None:
    outdir = next((a for a in sys.argv[1:] if not a.startswith("--")), ".")
    with open(f"{outdir}/ops.txt", "w") as out:
        _ops(out)
    if "--ops" in sys.argv:
        return
    with open(f"{outdir}/kernels.txt", "w") as out:
        _kernels(out)
    with open(f"{outdir}/host.txt", "w") as out:
        _host(out)


if __name__ == "__main__":
    main()
