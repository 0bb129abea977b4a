"""Optimizer updates as CUDA kernels: one thread per element, running the CPU kernels' own
element functions (numtorch/kernels/cpu/optim.py, Note [Optimizer kernels follow PyTorch's
single-tensor order]), so each update rule is written once for both targets. Each kernel has
the signature of its CPU twin with the element count first (numtorch/cuda/_optim.py launches
a twin by the CPU kernel's name)."""

from __future__ import annotations

from numba import cuda

from .._jit import cuda_kernel
from ..cpu import optim as cpu
from . import _SIM

# the simulator runs a kernel as Python, whose arrays a compiled function cannot take: there the
# kernels call the element functions' Python source (numba-cuda compiles the real ones)
_sgd_elem = cpu._sgd_elem.py_func if _SIM else cpu._sgd_elem
_adam_elem = cpu._adam_elem.py_func if _SIM else cpu._adam_elem


@cuda_kernel
def sgd_step(n, p, g, s, flags):
    i = cuda.grid(1)
    if i < n:
        _sgd_elem(i, p, g, g, s[0], s[1], s[2], s[3], flags[0], False, flags[1], flags[2], flags[3])


@cuda_kernel
def sgd_momentum_step(n, p, g, buf, s, flags):
    i = cuda.grid(1)
    if i < n:
        _sgd_elem(i, p, g, buf, s[0], s[1], s[2], s[3], flags[0], True, flags[1], flags[2], flags[3])


@cuda_kernel
def adam_step(n, p, g, m, v, s, flags):
    i = cuda.grid(1)
    if i < n:
        _adam_elem(i, p, g, m, v, v, s[0], s[1], s[2], s[3], s[4], s[5], s[6], s[7], s[8], s[9],
                   flags[0], flags[1], flags[2], False)  # fmt: skip


@cuda_kernel
def adam_amsgrad_step(n, p, g, m, v, vmax, s, flags):
    i = cuda.grid(1)
    if i < n:
        _adam_elem(i, p, g, m, v, vmax, s[0], s[1], s[2], s[3], s[4], s[5], s[6], s[7], s[8], s[9],
                   flags[0], flags[1], flags[2], True)  # fmt: skip
