"""Sparse COO kernels: duplicate merging, scatter into dense, sparse @ dense, segment softmax.

Every kernel sees a COO tensor as its row-major *linear* index per entry (int64, the sparse
dims folded into one number) plus its values as a C-contiguous 2-D array ``(nnz, D)`` where
``D`` is the product of the dense dims (1 when there are none): ndim never enters the Numba
type, so each kernel compiles once per dtype.

# Note [Coalesced means sorted by linear index]
# A coalesced tensor's entries are sorted by linear index with no duplicates, as PyTorch's
# coalesce() leaves them. The matrix kernels rely on it: the entries of one row of a 2-D
# coalesced tensor are contiguous, so ``rowptr`` (CSR's row offsets) is one pass over the rows.
"""

from __future__ import annotations

import numpy as np

from numtorch.kernels._jit import kernel, prange, serial_and_parallel


@kernel
def merge_sorted(lin, order, vals, out_lin, out_vals, count):
    """Sum the runs of equal ``lin[order[k]]`` (``order`` sorts ``lin``): ``out_lin`` gets each
    distinct index once, ``out_vals`` the sum of its rows, ``count[0]`` how many there are."""
    n = order.shape[0]
    d = vals.shape[1]
    m = -1
    prev = -1
    for k in range(n):
        src = order[k]
        li = lin[src]
        if m < 0 or li != prev:
            m += 1
            out_lin[m] = li
            for j in range(d):
                out_vals[m, j] = vals[src, j]
            prev = li
        else:
            for j in range(d):
                out_vals[m, j] += vals[src, j]
    count[0] = m + 1


@kernel
def scatter_add_rows(lin, vals, out):
    """``out[lin[k], :] += vals[k, :]``: to_dense (duplicates add up, as in PyTorch)."""
    d = vals.shape[1]
    for k in range(lin.shape[0]):
        r = lin[k]
        for j in range(d):
            out[r, j] += vals[k, j]


@kernel
def row_pointers(rows, nrows, rowptr):
    """CSR row offsets of sorted row indices: row ``r`` holds entries rowptr[r]:rowptr[r + 1]."""
    for r in range(nrows + 1):
        rowptr[r] = 0
    for k in range(rows.shape[0]):
        rowptr[rows[k] + 1] += 1
    for r in range(nrows):
        rowptr[r + 1] += rowptr[r]


def _spmm_rows(rowptr, cols, vals, dense, out):
    """``out[r, :] += sum_k vals[k] * dense[cols[k], :]`` over the entries of row r (CSR order);
    in parallel, each row is written by one task only."""
    n = dense.shape[1]
    for r in prange(rowptr.shape[0] - 1):
        for k in range(rowptr[r], rowptr[r + 1]):
            v = vals[k]
            c = cols[k]
            for j in range(n):
                out[r, j] += v * dense[c, j]


spmm_rows, spmm_rows_parallel = serial_and_parallel(_spmm_rows)


@kernel
def segment_softmax(group, ngroups, vals, out, log):
    """Softmax of ``vals`` (nnz, D) within each group of entries (``group[k]`` in [0, ngroups)),
    column by column; entries absent from the sparse tensor do not take part, as in PyTorch's
    sparse softmax. ``log``: log_softmax instead."""
    d = vals.shape[1]
    mx = np.full((ngroups, d), -np.inf, dtype=vals.dtype)
    sm = np.zeros((ngroups, d), dtype=vals.dtype)
    nnz = group.shape[0]
    for k in range(nnz):
        g = group[k]
        for j in range(d):
            if vals[k, j] > mx[g, j]:
                mx[g, j] = vals[k, j]
    for k in range(nnz):
        g = group[k]
        for j in range(d):
            e = np.exp(vals[k, j] - mx[g, j])
            out[k, j] = e
            sm[g, j] += e
    for k in range(nnz):
        g = group[k]
        for j in range(d):
            if log:
                out[k, j] = vals[k, j] - mx[g, j] - np.log(sm[g, j])
            else:
                out[k, j] = out[k, j] / sm[g, j]



@kernel
def sparse_adam_rows(rows, grad, param, exp_avg, exp_avg_sq, s):
    """SparseAdam on the rows a coalesced gradient names, in PyTorch's order of operations
    (torch.optim._functional.sparse_adam); ``s`` = (1 - beta1, 1 - beta2, eps, -step_size)
    already in the parameter's dtype. The other rows and their moments stay untouched."""
    w1, w2, eps, neg_step = s
    d = grad.shape[1]
    for k in range(rows.shape[0]):
        r = rows[k]
        for j in range(d):
            g = grad[k, j]
            m_old = exp_avg[r, j]
            v_old = exp_avg_sq[r, j]
            dm = (g - m_old) * w1
            dv = (g * g - v_old) * w2
            exp_avg[r, j] = m_old + dm
            exp_avg_sq[r, j] = v_old + dv
            param[r, j] += neg_step * ((dm + m_old) / (np.sqrt(dv + v_old) + eps))
