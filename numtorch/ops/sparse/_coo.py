"""Array-level helpers of the sparse COO ops: linear indices, coalescing, scatter and gather.

A leaf of the sparse package (imports no sibling). Note [Coalesced means sorted by linear index].
"""

from __future__ import annotations

import numpy as np

from ... import _dtype as D
from ..._sparse_tensor import make_sparse
from ..._tensor import Tensor, _make
from ...kernels import lazy

K = lazy("numtorch.kernels.cpu.sparse")

# Numba has no float16 and no += on bool: those values are combined in a wider type
_COMPUTE = {np.float16: np.float32, np.bool_: np.int64, np.int8: np.int64, np.uint8: np.int64,
            np.int16: np.int64}  # fmt: skip


def sparse_sizes(t) -> tuple:
    return tuple(t.shape[: t._sp_idx._data.shape[0]])


def linear(idx: np.ndarray, sizes: tuple) -> np.ndarray:
    """Row-major linear index of each column of ``idx`` (sparse_dim, nnz) in ``sizes``."""
    lin = np.zeros(idx.shape[1], np.int64)
    for d, n in enumerate(sizes):
        lin *= n
        lin += idx[d]
    return lin


def unlinear(lin: np.ndarray, sizes: tuple) -> np.ndarray:
    if not sizes:
        return np.zeros((0, lin.shape[0]), np.int64)
    return np.stack(np.unravel_index(lin, sizes)).astype(np.int64, copy=False).reshape(len(sizes), -1)


def rows2d(values: np.ndarray) -> np.ndarray:
    """Values as a C-contiguous (nnz, D) array in a dtype the kernels take."""
    d = int(np.prod(values.shape[1:], dtype=np.int64))  # explicit: nnz == 0 leaves -1 undecidable
    v = values.reshape(values.shape[0], d) if values.ndim != 2 else values
    ct = _COMPUTE.get(v.dtype.type)
    return np.ascontiguousarray(v, dtype=ct) if ct is not None else np.ascontiguousarray(v)


def from_rows(rows: np.ndarray, shape: tuple, dt: D.dtype) -> np.ndarray:
    out = rows.reshape(shape)
    if out.dtype != dt.np:
        out = (out != 0) if dt is D.bool else out.astype(dt.np)
    return out


def coalesce_arrays(idx: np.ndarray, vals: np.ndarray, sizes: tuple, dt: D.dtype):
    """(indices, values) sorted by linear index with duplicates summed (PyTorch's coalesce)."""
    nnz = idx.shape[1]
    lin = linear(idx, sizes)
    order = np.argsort(lin, kind="stable")
    rows = rows2d(vals)
    out_lin = np.empty(nnz, np.int64)
    out_rows = np.empty_like(rows)
    count = np.zeros(1, np.int64)
    K.merge_sorted(lin, order, rows, out_lin, out_rows, count)
    m = int(count[0]) if nnz else 0
    new_vals = from_rows(out_rows[:m], (m,) + vals.shape[1:], dt)
    return unlinear(out_lin[:m], sizes), np.ascontiguousarray(new_vals)


def coalesced(t):
    """``t`` itself when coalesced, else a coalesced copy (no autograd: below the Autograd key)."""
    if t._sp_coal:
        return t
    idx, vals = coalesce_arrays(t._sp_idx._data, t._sp_val._data, sparse_sizes(t), t._dtype)
    return wrap(idx, vals, t.shape, True, t._dtype)


def wrap(idx: np.ndarray, vals: np.ndarray, shape, is_coalesced: bool, dt: D.dtype):
    return make_sparse(_make(idx, D.int64), _make(vals, dt), shape, is_coalesced)


def to_dense_array(t) -> np.ndarray:
    """The dense array of a sparse tensor: its values scattered (and summed) into zeros."""
    sizes = sparse_sizes(t)
    nrows = int(np.prod(sizes, dtype=np.int64))
    rows = rows2d(t._sp_val._data)
    out = np.zeros((nrows, rows.shape[1]), rows.dtype)
    if rows.shape[0]:
        K.scatter_add_rows(linear(t._sp_idx._data, sizes), rows, out)
    return from_rows(out, tuple(t.shape), t._dtype)


def gather_rows(dense: np.ndarray, idx: np.ndarray, sizes: tuple) -> np.ndarray:
    """``dense`` at each sparse index: the (nnz, *dense_dims) values of a sparse_mask."""
    nrows = int(np.prod(sizes, dtype=np.int64))
    flat = dense.reshape((nrows,) + dense.shape[len(sizes) :])
    return flat[linear(idx, sizes)]


def gather_sparse(src, idx: np.ndarray, sizes: tuple) -> np.ndarray:
    """The values of sparse ``src`` at each index of ``idx`` (zero where ``src`` has none)."""
    c = coalesced(src)
    have = linear(c._sp_idx._data, sizes)
    want = linear(idx, sizes)
    vals = c._sp_val._data
    out = np.zeros((want.shape[0],) + vals.shape[1:], vals.dtype)
    if have.shape[0]:
        pos = np.minimum(np.searchsorted(have, want), have.shape[0] - 1)
        hit = have[pos] == want
        out[hit] = vals[pos[hit]]
    return out


def check_sparse(t, name: str) -> None:
    if not (isinstance(t, Tensor) and t.is_sparse):
        raise RuntimeError(f"{name} expected sparse coordinate tensor layout but got Strided")
