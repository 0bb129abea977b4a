"""Shape ops: views (metadata only, so pure overhead), copies (contiguous, cat, stack)."""

from __future__ import annotations

import functools

from .common import Benchmark, need, resolve, tensor, warm

VIEWS = ["view", "reshape", "transpose", "permute", "t", "unsqueeze", "squeeze", "expand",
         "flatten", "narrow", "select", "unbind", "split", "chunk", "movedim"]  # fmt: skip
JOINS = ["cat", "concat", "concatenate", "stack", "hstack", "vstack", "dstack", "column_stack",
         "row_stack"]  # fmt: skip
# copies and constructions on a (1024, 1024) matrix: op -> extra arguments
COPIES = {"flip": ((0,),), "fliplr": (), "flipud": (), "roll": (3, 1), "tile": ((2, 1),),
          "repeat_interleave": (2,), "tril": (), "triu": (), "diag": (), "diag_embed": (),
          "fill": (1.5,), "atleast_1d": (), "atleast_2d": (), "atleast_3d": (),
          "broadcast_tensors": (), "meshgrid": (), "cartesian_prod": (), "rot90": (), "diff": ()}  # fmt: skip
COVERS = set(VIEWS) | {"contiguous", "clone"} | set(JOINS) | set(COPIES) | {"tril_indices", "triu_indices"}


def _view_call(op, x):
    """A zero-argument call of view op ``op`` on a (64, 32, 16) tensor ``x``."""
    args = {
        "view": (64, 512),
        "reshape": (64, 512),
        "transpose": (0, 2),
        "permute": (2, 0, 1),
        "t": None,
        "unsqueeze": (1,),
        "squeeze": None,
        "expand": (4, 64, 32, 16),
        "flatten": None,
        "narrow": (1, 4, 8),
        "select": (1, 3),
        "unbind": (0,),
        "split": (8,),
        "chunk": (4,),
        "movedim": (0, 2),
    }[op]
    if op == "t":
        x = x.reshape(64, 512)
    return functools.partial(resolve(f"Tensor.{op}"), x, *(args or ()))


class Views(Benchmark):
    """Views of a (64, 32, 16) float32 tensor: the cost is all Python and metadata."""

    params = [VIEWS]
    param_names = ["op"]

    def setup(self, op):
        need("Tensor.reshape")
        self.fn = _view_call(op, tensor((64, 32, 16)))
        warm(self.fn)

    def time_view(self, op):
        self.fn()


class Contiguous(Benchmark):
    """``x.t().contiguous()`` and ``x.clone()`` of 4096x1024: one strided / one streaming copy."""

    params = [["transpose_contiguous", "clone"], ["float32", "float64"]]
    param_names = ["op", "dtype"]

    def setup(self, op, dtype):
        x = tensor((4096, 1024), dtype)
        if op == "clone":
            self.fn = resolve("Tensor.clone").__get__(x)
        else:
            self.fn = resolve("Tensor.contiguous").__get__(resolve("Tensor.t")(x))
        warm(self.fn)

    def time_copy(self, op, dtype):
        self.fn()


class Cat(Benchmark):
    """``torch.cat`` / ``torch.stack`` of 8 tensors of (512, 1024) along dim 0 and 1."""

    params = [["cat", "stack"], [0, 1]]
    param_names = ["op", "dim"]

    def setup(self, op, dim):
        xs = [tensor((512, 1024), seed=i) for i in range(8)]
        self.fn = functools.partial(resolve(op), xs, dim)
        warm(self.fn)

    def time_cat(self, op, dim):
        self.fn()


class Join(Benchmark):
    """Every join op on 8 tensors of (512, 1024)."""

    params = [JOINS]
    param_names = ["op"]

    def setup(self, op):
        xs = [tensor((512, 1024), seed=i) for i in range(8)]
        self.fn = functools.partial(resolve(op), xs)
        warm(self.fn)

    def time_join(self, op):
        self.fn()


class Copies(Benchmark):
    """Ops that build a new tensor from one input: flips, rolls, tiles, triangles, ...
    (1-D ops get a 1024-vector, the tensor-list ones two of them)."""

    params = [list(COPIES)]
    param_names = ["op"]

    def setup(self, op):
        fn = resolve(op)
        vec = op in ("diag_embed", "meshgrid", "cartesian_prod", "broadcast_tensors")
        x = tensor((1024,) if vec else (1024, 1024))
        if op in ("meshgrid", "cartesian_prod", "broadcast_tensors"):
            y = tensor((1024,) if op != "cartesian_prod" else (256,), seed=5)
            if op == "cartesian_prod":
                x = tensor((256,))
            self.fn = functools.partial(fn, x, y)
        else:
            self.fn = functools.partial(fn, x, *COPIES[op])
        warm(self.fn)

    def time_op(self, op):
        self.fn()


class TriangleIndices(Benchmark):
    """``tril_indices`` / ``triu_indices`` of a 1024x1024 matrix (index factories)."""

    params = [["tril_indices", "triu_indices"]]
    param_names = ["op"]

    def setup(self, op):
        self.fn = functools.partial(resolve(op), 1024, 1024)
        warm(self.fn)

    def time_op(self, op):
        self.fn()
