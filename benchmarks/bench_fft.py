"""numtorch.fft beside PyTorch's (MKL). Target (issue 15): fft of 2**20 points at >= 0.8x
PyTorch's throughput; the sizes also place the kernel/pocketfft thresholds (Note [Which FFT runs]
in numtorch/ops/fft.py)."""

from __future__ import annotations

import functools

import numpy as np

from .common import LIBS, Benchmark, lib, pending, warm

COVERS = {"fft_fft", "fft_ifft", "fft_rfft", "fft_irfft"}

_INPUTS = {  # transform -> (input dtype for a float32 / float64 run, input length for n points)
    "fft": ("float", lambda n: n),  # a real signal's full spectrum: the workload
    "fft_complex": ("complex", lambda n: n),
    "ifft": ("complex", lambda n: n),
    "rfft": ("float", lambda n: n),
    "irfft": ("complex", lambda n: n // 2 + 1),
}
_COMPLEX = {"float32": "complex64", "float64": "complex128"}


def _signal(kind: str, n: int, dtype: str, L):
    rng = np.random.default_rng(0)
    x = rng.standard_normal(_INPUTS[kind][1](n))
    if _INPUTS[kind][0] == "complex":
        x = (x + 1j * rng.standard_normal(x.shape)).astype(_COMPLEX[dtype])
    return L.from_numpy(x.astype(dtype) if x.dtype.kind == "f" else x)


class Transform1d(Benchmark):
    """One 1-D transform of n points (float32 / complex64 or float64 / complex128)."""

    params = [list(_INPUTS), [1 << 10, 1 << 16, 1 << 20], ["float32", "float64"], LIBS]
    param_names = ["transform", "n", "dtype", "lib"]

    def setup(self, kind, n, dtype, libname):
        L = lib(libname)
        x = _signal(kind, n, dtype, L)
        op = kind.split("_")[0]
        kw = {"n": n} if op == "irfft" else {}
        with pending():
            self.fn = functools.partial(getattr(L.fft, op), x, **kw)
        warm(self.fn)

    def time_transform(self, kind, n, dtype, libname):
        self.fn()


class BatchedRfft(Benchmark):
    """rfft over the last dim of a (64, 4096) float32 batch (spectrogram-like)."""

    params = [LIBS]
    param_names = ["lib"]

    def setup(self, libname):
        L = lib(libname)
        x = L.from_numpy(np.random.default_rng(0).standard_normal((64, 4096)).astype("float32"))
        with pending():
            self.fn = functools.partial(L.fft.rfft, x)
        warm(self.fn)

    def time_rfft(self, libname):
        self.fn()
