"""Elementwise ops, parametrized by the registry: every public pointwise op at 1e3, 1e6 and
1e7 elements in float32 and float64, with and without ``out=``.

Inputs lie in [0.1, 0.9) so every op stays in its domain (log, sqrt, acos, atanh, ...).
"""

from __future__ import annotations

import functools
import inspect
import operator

from .common import (
    FLOATS,
    SIZES,
    Benchmark,
    lib,
    need,
    registry_ops,
    sample_args,
    tensor,
    warm,
)
from .common import resolve as _resolve

UNARY = registry_ops(tag="pointwise", arity=1)
BINARY = registry_ops(tag="pointwise", arity=2)
TERNARY = registry_ops(tag="pointwise", arity=3)
# declared with the pointwise ops but not run by the elementwise engine (allclose, square, ...)
OTHER = registry_ops(area="pointwise", exclude=UNARY + BINARY + TERNARY)
COVERS = set(UNARY) | set(BINARY) | set(TERNARY) | set(OTHER)


class _Pointwise(Benchmark):
    arity = 1

    def setup(self, op, numel, dtype, out):
        if op == "<none>":
            raise NotImplementedError(f"no {self.arity}-tensor pointwise op registered yet")
        self.fn = _resolve(op)
        self.args = sample_args(op, self.arity, (SIZES[numel],), dtype)
        self.kwargs = {}
        if out:
            if "out" not in inspect.signature(self.fn).parameters:
                raise NotImplementedError(f"{op} takes no out=")
            self.kwargs["out"] = warm(lambda: self.fn(*self.args), 1)
        warm(self._call)

    def _call(self):
        return self.fn(*self.args, **self.kwargs)

    def time_op(self, op, numel, dtype, out):
        self.fn(*self.args, **self.kwargs)


class Unary(_Pointwise):
    params = [UNARY, list(SIZES), FLOATS, [False, True]]
    param_names = ["op", "numel", "dtype", "out"]
    arity = 1


class Binary(_Pointwise):
    params = [BINARY, list(SIZES), FLOATS, [False, True]]
    param_names = ["op", "numel", "dtype", "out"]
    arity = 2


class Ternary(_Pointwise):
    params = [TERNARY, ["1e3", "1e6"], FLOATS, [False, True]]
    param_names = ["op", "numel", "dtype", "out"]
    arity = 3


class Other(Benchmark):
    """The pointwise area's composites and predicates at 1e6 float32."""

    params = [OTHER]
    param_names = ["op"]

    def setup(self, op):
        if op == "<none>":
            raise NotImplementedError("no such op registered yet")
        from .common import overload

        arity = len(overload(op, None).tensor_idx)
        self.fn = _resolve(op)
        self.args = sample_args(op, arity, (1_000_000,), "float32")
        warm(lambda: self.fn(*self.args))

    def time_op(self, op):
        self.fn(*self.args)


class Inplace(Benchmark):
    """``x.op_(...)`` in float32: no allocation, the kernel alone."""

    params = [sorted(set(UNARY) | set(BINARY)), ["1e6", "1e7"]]
    param_names = ["op", "numel"]

    def setup(self, op, numel):
        arity = 1 if op in UNARY else 2
        self.args = sample_args(op, arity, (SIZES[numel],), "float32")
        if arity == 2:
            # a second operand of ones: repeated x.mul_(y) would otherwise sink into
            # subnormals, which are ~100x slower on x86 and would time the FPU, not the op
            self.args[1] = tensor((SIZES[numel],), low=1.0, high=1.0)
        self.fn = _resolve(f"Tensor.{op}_")
        warm(self._call)

    def _call(self):
        return self.fn(*self.args)

    def time_inplace(self, op, numel):
        self.fn(*self.args)


class Layout(Benchmark):
    """``a + b`` / ``a * b`` on 1000x1000 float32 in layouts that leave the contiguous
    kernel: a broadcast row, a Python scalar, a transposed operand, a strided slice."""

    params = [["add", "mul"], ["contiguous", "row_broadcast", "scalar", "transposed", "sliced"]]
    param_names = ["op", "layout"]

    def setup(self, op, layout):
        a = tensor((1000, 1000))
        if layout == "contiguous":
            b = tensor((1000, 1000), seed=5)
        elif layout == "row_broadcast":
            b = tensor((1000,), seed=5)
        elif layout == "scalar":
            b = 2.0
        elif layout == "transposed":
            need("Tensor.t")
            b = tensor((1000, 1000), seed=5).t()
        else:
            need("Tensor.__getitem__")
            b = tensor((1000, 2000), seed=5)[:, ::2]
        self.fn = functools.partial(operator.add if op == "add" else operator.mul, a, b)
        warm(self.fn)

    def time_op(self, op, layout):
        self.fn()


class ParallelThreshold(Benchmark):
    """``a + b`` around ``numtorch.kernels.PARALLEL_THRESHOLD`` (2**18): where the
    ``prange`` variant starts paying for its ~1.6 us thread start-up."""

    params = [[2**14, 2**16, 2**17, 2**18, 2**19, 2**20]]
    param_names = ["numel"]

    def setup(self, numel):
        a, b = tensor((numel,)), tensor((numel,), seed=5)
        self.out = tensor((numel,), seed=6)
        self.fn = functools.partial(lib("numtorch").add, a, b, out=self.out)
        warm(self.fn)

    def time_add_out(self, numel):
        self.fn()
