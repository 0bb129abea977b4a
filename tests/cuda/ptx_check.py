"""Compile CUDA kernels to real PTX for cc 9.0 without a GPU, and assemble them with ptxas when
it is there (registers, spills, shared memory a block): the simulator runs the kernels' Python,
so a kernel that types only there (a shared array shaped by an expression, say) passes the
tests and fails on a device. Not a test (the test venv has no numba-cuda or CUDA toolkit): run

    CUDA_HOME=/usr/local/cuda-13.0 /work/cudavenv/bin/python tests/cuda/ptx_check.py [name ...]

from the repository root (names filter the kernels). It exits 1 if any kernel fails."""

from __future__ import annotations

import importlib
import os
import subprocess
import sys
import tempfile

sys.path.insert(0, os.getcwd())

from numba import cuda  # noqa: E402
from numba import types as T  # noqa: E402


def _no_gpu_here() -> None:
    # numba-cuda asks the current device for the cc of a device function, and libnvrtc for the
    # supported ccs and its own path; NVVM alone compiles to PTX
    import numba.cuda.cuda_paths as paths
    import numba.cuda.cudadrv.nvrtc as nvrtc
    import numba.cuda.dispatcher as disp

    class _Device:
        compute_capability = (9, 0)

    disp.get_current_device = lambda: _Device()
    nvrtc.get_supported_ccs = lambda: ((7, 5), (8, 0), (8, 6), (8, 9), (9, 0))
    paths._get_nvrtc_path = lambda: ("none", None)


def _specs():
    A = lambda dt: T.Array(dt, 1, "C")  # noqa: E731
    i64, f32, f64, b = T.int64, T.float32, T.float64, T.boolean
    H, S, SO, R = (f"numtorch.kernels.cuda.{m}" for m in ("histogram", "scan", "sort", "reduction"))
    out = []
    for it in (i64, T.int32, T.uint8):
        out += [(H, "count_shared", (i64, A(it), i64, A(i64), i64)), (H, "count_at", (i64, A(it), i64, A(i64)))]
    for wt in (f32, f64):
        out += [(H, f"add_shared_f{wt.bitwidth}", (i64, A(i64), i64, A(wt), i64, A(wt), i64)),
                (H, "histc_shared", (i64, A(wt), i64, A(i64), f64, f64, i64))]  # fmt: skip
    for name in ("cum_rows_sum", "cum_rows_prod", "cum_rows_lse"):
        out += [(S, name, (A(dt), A(dt), i64, i64, i64, A(f64), i64)) for dt in (f32, f64)]
    for name in ("cum_rows_int_sum", "cum_rows_int_prod"):
        out += [(S, name, (A(dt), A(dt), i64, i64, i64, A(i64), i64)) for dt in (i64, T.int32, T.uint8)]
    out += [(SO, "topk_rows_float", (i64, i64, i64, A(dt), A(dt), A(i64), b)) for dt in (f32, f64)]
    out += [(SO, "topk_rows_int", (i64, i64, i64, A(dt), A(dt), A(i64), b)) for dt in (i64, T.int32, T.uint8)]
    out += [(SO, "tile_sort_float", (i64, A(dt), A(dt), A(i64), b)) for dt in (f32, f64)]
    out += [(SO, "tile_sort_int", (i64, A(i64), A(i64), A(i64), b))]
    for dt in (f32, f64):
        out += [(R, "sum_rows_float", (A(dt), i64, i64, i64, A(f64), f64)),
                (R, "extreme_rows_float", (A(dt), i64, i64, i64, A(dt), b))]  # fmt: skip
    for dt in (i64, T.int32):
        out += [(R, "sum_rows_int", (A(dt), i64, i64, i64, A(i64))),
                (R, "extreme_rows_int", (A(dt), i64, i64, i64, A(dt), b, i64))]  # fmt: skip
    return out


def main(names) -> int:
    _no_gpu_here()
    home = os.environ.get("CUDA_HOME", "/usr/local/cuda")
    ptxas = os.path.join(home, "bin", "ptxas")
    fails = 0
    for mod, name, sig in _specs():
        if names and name not in names:
            continue
        label = f"{name}{tuple(str(t) for t in sig)}"
        try:
            ptx, _ = cuda.compile_ptx(getattr(importlib.import_module(mod), name).py_func, sig, cc=(9, 0))
        except Exception as e:  # noqa: BLE001 - report every kernel, then fail
            fails += 1
            print(f"FAIL {label}: {type(e).__name__}: {str(e)[:500]}")
            continue
        info = ""
        if os.path.exists(ptxas):
            with tempfile.NamedTemporaryFile("w", suffix=".ptx") as f:
                f.write(ptx)
                f.flush()
                r = subprocess.run([ptxas, "-arch=sm_90", "-v", "-o", os.devnull, f.name], capture_output=True, text=True)
            if r.returncode:
                fails += 1
                print(f"FAIL {label}: ptxas: {r.stderr[:500]}")
                continue
            info = " | ".join(ln.split("info    : ")[-1] for ln in r.stderr.splitlines() if "registers" in ln or "spill" in ln)
        print(f"ok {label} {info}")
    print(f"{fails} failed")
    return 1 if fails else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
