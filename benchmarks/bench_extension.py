"""Extension ops: a ``custom_op`` whose kernel is an ``@njit`` function against the built-in op
of the same math (and PyTorch's ``torch.library.custom_op`` with the same kernel), on 8 and 1e6
elements, with and without autograd recording - "custom": a Python body calling the kernel, as
in PyTorch; "njit": the Numba function registered as the kernel itself, taking its output
(numtorch only, Note [Numba kernels as op kernels]); and the scalar-function route
(``numtorch.library.elementwise``) against the built-in elementwise op, and its reduction
counterpart (``numtorch.library.reduction``) against the built-in ``amax``. Target: custom op
<= 1.2x the built-in; the scalar routes at the built-ins' throughput."""

from __future__ import annotations

import math

import numba
import numpy as np

from .common import LIBS, Benchmark, lib, tensor, warm

COVERS: set = set()
SIZES = [8, 1_000_000]


@numba.njit(cache=True)
def _sin_kernel(a, out):
    for i in range(a.size):
        out[i] = math.sin(a[i])


@numba.njit(cache=True)
def _cos_kernel(a, out):
    for i in range(a.size):
        out[i] = math.cos(a[i])


def softplus(x):
    return math.log1p(math.exp(x))


def dsoftplus(x):
    return 1.0 / (1.0 + math.exp(-x))


def maximum(a, b):
    return a if a >= b else b


_OPS: dict = {}


def custom_sin(L):
    """``bench_ext::sin`` in library ``L`` (numtorch or torch), registered once per process.
    Each op's body is what a user writes in it (no shared helper frame)."""
    key = L.__name__
    if key not in _OPS:
        Tensor = L.Tensor

        def sin(x: Tensor) -> Tensor:
            # numpy(force=True): PyTorch's spelling of detach().numpy() for a CPU tensor
            a = x.numpy(force=True)
            out = np.empty_like(a)
            _sin_kernel(a, out)
            return L.from_numpy(out)

        def cos(x: Tensor) -> Tensor:
            a = x.numpy(force=True)
            out = np.empty_like(a)
            _cos_kernel(a, out)
            return L.from_numpy(out)

        sin.__annotations__ = cos.__annotations__ = {"x": Tensor, "return": Tensor}
        op = L.library.custom_op("bench_ext::sin", mutates_args=())(sin)
        cop = L.library.custom_op("bench_ext::cos", mutates_args=())(cos)

        def setup_context(ctx, inputs, output):
            ctx.save_for_backward(inputs[0])

        def backward(ctx, g):
            (x,) = ctx.saved_tensors
            return g * cop(x)

        op.register_autograd(backward, setup_context=setup_context)
        _OPS[key] = op
    return _OPS[key]


def njit_sin():
    """``bench_ext::nsin``: the same kernels registered directly (numtorch only): a schema, a fake
    function to allocate the output from, the @njit function as the CPU kernel."""
    if "njit" not in _OPS:
        import numtorch

        L = numtorch.library
        for name, k in (("nsin", _sin_kernel), ("ncos", _cos_kernel)):
            L.define(f"bench_ext::{name}", "(Tensor x) -> Tensor")
            L.register_fake(f"bench_ext::{name}", _like)
            L.register_kernel(f"bench_ext::{name}", "cpu", k)
        cop = numtorch.ops.bench_ext.ncos.default

        def setup_context(ctx, inputs, output):
            ctx.save_for_backward(inputs[0])

        def backward(ctx, g):
            (x,) = ctx.saved_tensors
            return g * cop(x)

        L.register_autograd("bench_ext::nsin", backward, setup_context=setup_context)
        _OPS["njit"] = L._custom_def("bench_ext::nsin")
    return _OPS["njit"]


def _like(x):
    return x.new_empty(x.shape)


def scalar_softplus():
    if "softplus" not in _OPS:
        import numtorch

        _OPS["softplus"] = numtorch.library.elementwise("bench_ext::softplus", softplus, derivative=dsoftplus)
    return _OPS["softplus"]


def scalar_max():
    if "max" not in _OPS:
        import numtorch

        backward = lambda x, r, g: g * (x == r) / (x == r).sum()  # noqa: E731
        _OPS["max"] = numtorch.library.reduction("bench_ext::max", maximum, backward=backward)
    return _OPS["max"]


class CustomOp(Benchmark):
    """sin as a custom op with an @njit kernel ("custom") vs the built-in ("builtin")."""

    params = [LIBS, ["custom", "njit", "builtin"], SIZES, [False, True]]
    param_names = ["lib", "impl", "n", "grad"]

    def setup(self, libname, impl, n, grad):
        L = lib(libname)
        if impl == "njit" and libname != "numtorch":
            raise NotImplementedError("PyTorch cannot register a Numba function as a kernel")
        self.x = tensor((n,), "float64", L=L, requires_grad=grad)
        self.fn = custom_sin(L) if impl == "custom" else njit_sin() if impl == "njit" else L.sin
        warm(self.time_call, 3)

    def time_call(self, *_):
        self.fn(self.x)


class ScalarRoute(Benchmark):
    """softplus from a scalar function (numtorch.library.elementwise) vs the built-in softplus."""

    params = [["scalar", "builtin"], SIZES, [False, True]]
    param_names = ["impl", "n", "grad"]

    def setup(self, impl, n, grad):
        L = lib("numtorch")
        self.x = tensor((n,), "float64", L=L, requires_grad=grad)
        self.fn = scalar_softplus() if impl == "scalar" else L.nn.functional.softplus
        warm(self.time_call, 3)

    def time_call(self, *_):
        self.fn(self.x)


class ScalarReduction(Benchmark):
    """max from a scalar combine function (numtorch.library.reduction) vs the built-in amax,
    over every dim and over the last dim of a (n/8, 8) view."""

    params = [["scalar", "builtin"], SIZES, [None, -1]]
    param_names = ["impl", "n", "dim"]

    def setup(self, impl, n, dim):
        L = lib("numtorch")
        self.x = tensor((n // 8, 8), "float64", L=L)
        self.dim = dim
        self.fn = scalar_max() if impl == "scalar" else L.amax
        warm(self.time_call, 3)

    def time_call(self, *_):
        if self.dim is None:
            self.fn(self.x)
        else:
            self.fn(self.x, self.dim)
