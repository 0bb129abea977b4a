"""The other optimizers' updates as CUDA kernels (RMSprop and its centered / momentum variants,
Adagrad, NAdam, RAdam, Adamax, Adadelta, ASGD, Rprop): one thread per element running the CPU
kernels' own element functions (numtorch/kernels/cpu/optim.py, optim_extra.py), each with the
signature of its CPU twin and the element count first, as optim.py's kernels."""

from __future__ import annotations

from numba import cuda

from .._jit import cuda_kernel
from ..cpu import optim as cpu
from ..cpu import optim_extra as cpx
from . import _SIM


def _dev(f):
    # the simulator runs kernels as Python: the element functions' Python source there
    return f.py_func if _SIM else f


_rmsprop_elem = _dev(cpu._rmsprop_elem)
_adagrad_elem = _dev(cpu._adagrad_elem)
_nadam_elem = _dev(cpx._nadam_elem)
_radam_elem = _dev(cpx._radam_elem)
_adamax_elem = _dev(cpx._adamax_elem)
_adadelta_elem = _dev(cpx._adadelta_elem)
_asgd_elem = _dev(cpx._asgd_elem)
_rprop_elem = _dev(cpx._rprop_elem)


@cuda_kernel
def rmsprop_step(n, p, g, sq, s, flags):
    i = cuda.grid(1)
    if i < n:
        _rmsprop_elem(i, p, g, sq, sq, sq, s[0], s[1], s[2], s[3], s[4], s[5], s[6], s[7], s[8], s[9],
                      flags[0], flags[1], False, False)  # fmt: skip


@cuda_kernel
def rmsprop_centered_step(n, p, g, sq, gavg, s, flags):
    i = cuda.grid(1)
    if i < n:
        _rmsprop_elem(i, p, g, sq, gavg, sq, s[0], s[1], s[2], s[3], s[4], s[5], s[6], s[7], s[8], s[9],
                      flags[0], flags[1], True, False)  # fmt: skip


@cuda_kernel
def rmsprop_momentum_step(n, p, g, sq, buf, s, flags):
    i = cuda.grid(1)
    if i < n:
        _rmsprop_elem(i, p, g, sq, sq, buf, s[0], s[1], s[2], s[3], s[4], s[5], s[6], s[7], s[8], s[9],
                      flags[0], flags[1], False, True)  # fmt: skip


@cuda_kernel
def rmsprop_centered_momentum_step(n, p, g, sq, gavg, buf, s, flags):
    i = cuda.grid(1)
    if i < n:
        _rmsprop_elem(i, p, g, sq, gavg, buf, s[0], s[1], s[2], s[3], s[4], s[5], s[6], s[7], s[8], s[9],
                      flags[0], flags[1], True, True)  # fmt: skip


@cuda_kernel
def adagrad_step(n, p, g, acc, s, flags):
    i = cuda.grid(1)
    if i < n:
        _adagrad_elem(i, p, g, acc, s[0], s[1], s[2], flags[0], flags[1])


@cuda_kernel
def nadam_step(n, p, g, m, v, s, flags):
    i = cuda.grid(1)
    if i < n:
        _nadam_elem(i, p, g, m, v, s[0], s[1], s[2], s[3], s[4], s[5], s[6], s[7], s[8], s[9], s[10],
                    flags[0], flags[1], flags[2])  # fmt: skip


@cuda_kernel
def radam_step(n, p, g, m, v, s, flags):
    i = cuda.grid(1)
    if i < n:
        _radam_elem(i, p, g, m, v, s[0], s[1], s[2], s[3], s[4], s[5], s[6], s[7], s[8], s[9], s[10], s[11],
                    s[12], flags[0], flags[1], flags[2], flags[3])  # fmt: skip


@cuda_kernel
def adamax_step(n, p, g, m, u, s, flags):
    i = cuda.grid(1)
    if i < n:
        _adamax_elem(i, p, g, m, u, s[0], s[1], s[2], s[3], s[4], s[5], s[6], flags[0], flags[1])


@cuda_kernel
def adadelta_step(n, p, g, sq, acc, s, flags):
    i = cuda.grid(1)
    if i < n:
        _adadelta_elem(i, p, g, sq, acc, s[0], s[1], s[2], s[3], s[4], flags[0], flags[1])


@cuda_kernel
def asgd_step(n, p, g, ax, s, flags):
    i = cuda.grid(1)
    if i < n:
        _asgd_elem(i, p, g, ax, s[0], s[1], s[2], s[3], flags[0], flags[1], flags[2])


@cuda_kernel
def rprop_step(n, p, g, prev, ss, s, flags):
    i = cuda.grid(1)
    if i < n:
        _rprop_elem(i, p, g, prev, ss, s[0], s[1], s[2], s[3], s[4], s[5], s[6], flags[0])
