"""Reductions and normalisations on a 4096x1024 matrix: over everything, along the
contiguous dim (rows) and along the strided dim (columns)."""

from __future__ import annotations

import functools

from .common import FLOATS, Benchmark, resolve, tensor, warm

SHAPE = (4096, 1024)
REDUCTIONS = ["sum", "mean", "max", "min", "amax", "amin", "argmax", "argmin", "aminmax", "prod",
              "var", "std", "var_mean", "std_mean", "norm", "logsumexp", "nansum", "nanmean", "all", "any",
              "count_nonzero", "median", "nanmedian", "mode"]  # fmt: skip
# the reductions PyTorch has no all-elements form of; they get a dim
_DIM_ONLY = {"logsumexp", "mode"}
# along dim 1, with extra arguments
SCANS = {"cumsum": (1,), "cumprod": (1,), "cummax": (1,), "cummin": (1,), "sort": (1,),
         "argsort": (1,), "topk": (10, 1), "kthvalue": (10, 1), "msort": ()}  # fmt: skip
COVERS = set(REDUCTIONS) | set(SCANS) | {"softmax", "log_softmax"}


class Reduce(Benchmark):
    """``torch.<op>(x)``, ``torch.<op>(x, 1)`` (rows) and ``torch.<op>(x, 0)`` (columns)."""

    params = [REDUCTIONS, ["all", "dim1", "dim0"], FLOATS]
    param_names = ["op", "over", "dtype"]

    def setup(self, op, over, dtype):
        fn = resolve(op)
        x = tensor(SHAPE, dtype)
        if over == "all":
            if op in _DIM_ONLY:
                raise NotImplementedError(f"{op} needs a dim")
            self.fn = functools.partial(fn, x)
        elif op == "aminmax":
            self.fn = functools.partial(fn, x, dim=1 if over == "dim1" else 0)
        else:
            self.fn = functools.partial(fn, x, 1 if over == "dim1" else 0)
        warm(self.fn)

    def time_reduce(self, op, over, dtype):
        self.fn()


class Scan(Benchmark):
    """Scans and sorts along the rows of a (1024, 1024) matrix."""

    params = [list(SCANS), FLOATS]
    param_names = ["op", "dtype"]

    def setup(self, op, dtype):
        self.fn = functools.partial(resolve(op), tensor((1024, 1024), dtype), *SCANS[op])
        warm(self.fn)

    def time_op(self, op, dtype):
        self.fn()


class Sum1D(Benchmark):
    """``x.sum()`` of a long vector: pairwise summation and the parallel variant."""

    params = [[1_000, 1_000_000, 10_000_000], FLOATS]
    param_names = ["numel", "dtype"]

    def setup(self, numel, dtype):
        self.fn = resolve("sum")
        self.x = tensor((numel,), dtype)
        warm(lambda: self.fn(self.x))

    def time_sum(self, numel, dtype):
        self.fn(self.x)


class Softmax(Benchmark):
    """``softmax`` / ``log_softmax`` along the last dim (rows) and the first (columns)."""

    params = [["softmax", "log_softmax"], [-1, 0], FLOATS]
    param_names = ["op", "dim", "dtype"]

    def setup(self, op, dim, dtype):
        fn = resolve(op)
        self.fn = functools.partial(fn, tensor(SHAPE, dtype), dim)
        warm(self.fn)

    def time_forward(self, op, dim, dtype):
        self.fn()


class TinyReduce(Benchmark):
    """Per-call cost of reductions of 8 elements (Note [Reduction fast path]): every element,
    one dim of a (2, 4) tensor (rows and columns), with and without ``requires_grad``."""

    params = [["sum", "mean", "prod", "amax", "max", "all"], ["all", "dim1", "dim0"], [False, True]]
    param_names = ["op", "over", "requires_grad"]

    def setup(self, op, over, requires_grad):
        if requires_grad and op == "all":
            raise NotImplementedError("all has no gradient")
        x = tensor((8,) if over == "all" else (2, 4), requires_grad=requires_grad)
        fn = getattr(x, op)
        self.fn = fn if over == "all" else functools.partial(fn, 1 if over == "dim1" else 0)
        warm(self.fn)

    def time_tiny_reduce(self, op, over, requires_grad):
        self.fn()
