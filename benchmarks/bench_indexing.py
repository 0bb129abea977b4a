"""Indexing: ``__getitem__`` / ``__setitem__`` in their basic and advanced forms, and
gather / scatter / index_select / index_add / masked ops on a 4096x1024 float32 matrix."""

from __future__ import annotations

import functools
import operator

import numpy as np

import numtorch

from .common import SEED, Benchmark, need, pending, resolve, tensor, warm

SHAPE = (4096, 1024)
GETITEM = [
    "int",
    "slice",
    "slice_step",
    "tuple",
    "ellipsis_none",
    "bool_mask",
    "int_tensor",
    "int_list",
]
SETITEM = ["slice_scalar", "slice_tensor", "bool_mask_scalar", "int_tensor_tensor"]
GATHER = ["gather", "scatter", "scatter_add", "scatter_reduce", "index_select", "index_add",
          "index_copy", "index_fill", "masked_fill", "masked_select", "masked_scatter", "take",
          "take_along_dim", "put", "index_put", "where"]  # fmt: skip
SEARCH = ["nonzero", "argwhere", "bincount", "bucketize", "searchsorted"]
COVERS = set(GATHER) | set(SEARCH)


def _index(kind: str, x):
    rng = np.random.default_rng(SEED)
    rows = numtorch.from_numpy(rng.integers(0, SHAPE[0], 1024).astype(np.int64))
    return {
        "int": 7,
        "slice": slice(100, 3000),
        "slice_step": (slice(None), slice(None, None, 2)),
        "tuple": (5, slice(10, 20)),
        "ellipsis_none": (Ellipsis, None),
        "bool_mask": x > 0.0 if kind.startswith("bool") else None,
        "int_tensor": rows,
        "int_list": [0, 5, 9, 100],
    }[kind]


class GetItem(Benchmark):
    """``x[index]`` for each index kind (views for the basic ones, copies for advanced)."""

    params = [GETITEM, ["tiny", "large"]]
    param_names = ["index", "size"]

    def setup(self, index, size):
        need("Tensor.__getitem__")
        x = tensor(SHAPE if size == "large" else (8, 8))
        with pending():
            idx = _index(index, x)
        if size == "tiny" and index in ("int_tensor", "int_list", "slice"):
            idx = {"int_tensor": numtorch.tensor([0, 3]), "int_list": [0, 3], "slice": slice(1, 3)}[
                index
            ]
        self.fn = functools.partial(operator.getitem, x, idx)
        warm(self.fn)

    def time_getitem(self, index, size):
        self.fn()


class SetItem(Benchmark):
    """``x[index] = value`` on the large matrix."""

    params = [SETITEM]
    param_names = ["index"]

    def setup(self, index):
        need("Tensor.__setitem__")
        x = tensor(SHAPE)
        rng = np.random.default_rng(SEED)
        rows = numtorch.from_numpy(rng.choice(SHAPE[0], 1024, replace=False).astype(np.int64))
        with pending():
            idx, val = {
                "slice_scalar": lambda: (slice(100, 3000), 1.5),
                "slice_tensor": lambda: (slice(100, 3000), tensor((2900, 1024), seed=5)),
                "bool_mask_scalar": lambda: (x > 0.0, 0.0),
                "int_tensor_tensor": lambda: (rows, tensor((1024, 1024), seed=5)),
            }[index]()
        self.fn = functools.partial(operator.setitem, x, idx, val)
        warm(self.fn)

    def time_setitem(self, index):
        self.fn()


def _gather_call(op):
    x = tensor(SHAPE)
    rng = np.random.default_rng(SEED)
    idx2 = numtorch.from_numpy(rng.integers(0, SHAPE[1], (SHAPE[0], 64)).astype(np.int64))
    src2 = tensor((SHAPE[0], 64), seed=5)
    rows = numtorch.from_numpy(rng.integers(0, SHAPE[0], 1024).astype(np.int64))
    src_rows = tensor((1024, SHAPE[1]), seed=6)
    if op in ("masked_fill", "masked_select", "masked_scatter", "where"):
        mask = x > 0.0
        args = {
            "masked_fill": (x, mask, 0.0),
            "masked_select": (x, mask),
            "masked_scatter": (x, mask, tensor(SHAPE, seed=5)),
            "where": (mask, x, tensor(SHAPE, seed=5)),
        }[op]
    else:
        args = {
            "gather": (x, 1, idx2),
            "scatter": (x, 1, idx2, src2),
            "scatter_add": (x, 1, idx2, src2),
            "scatter_reduce": (x, 1, idx2, src2, "amax"),
            "index_select": (x, 0, rows),
            "index_add": (x, 0, rows, src_rows),
            "index_copy": (x, 0, rows, src_rows),
            "index_fill": (x, 0, rows, 1.5),
            "take": (x, rows),
            "take_along_dim": (x, idx2, 1),
            "put": (x, rows, tensor((1024,), seed=8)),
            "index_put": (x, (rows,), src_rows),
        }[op]
    return functools.partial(resolve(op), *args)


class Gather(Benchmark):
    """The gather/scatter family along dim 1 (64 picks per row) or dim 0 (1024 rows)."""

    params = [GATHER]
    param_names = ["op"]

    def setup(self, op):
        with pending():
            self.fn = _gather_call(op)
        warm(self.fn)

    def time_op(self, op):
        self.fn()


def _search_call(op):
    rng = np.random.default_rng(SEED)
    if op == "bincount":
        return functools.partial(resolve(op), numtorch.from_numpy(rng.integers(0, 1000, 1_000_000)))
    if op in ("bucketize", "searchsorted"):
        edges = numtorch.from_numpy(np.sort(rng.random(1024)).astype(np.float32))
        x = tensor((1_000_000,), low=0.0, high=1.0)
        return functools.partial(resolve(op), *((x, edges) if op == "bucketize" else (edges, x)))
    x = tensor(SHAPE)
    return functools.partial(resolve(op), x > 0.5)


class Search(Benchmark):
    """nonzero / argwhere on a 4096x1024 mask, bincount of 1e6 ints, bucketize and
    searchsorted of 1e6 values into 1024 edges."""

    params = [SEARCH]
    param_names = ["op"]

    def setup(self, op):
        with pending():
            self.fn = _search_call(op)
        warm(self.fn)

    def time_op(self, op):
        self.fn()
