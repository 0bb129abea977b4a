"""Indexing kernels: storage offsets for gather/scatter-style ops, scatter-accumulate, search.

# Note [Indexing kernels compute offsets]
# gather, scatter, index_select/add/copy/fill and take_along_dim all visit the positions of an
# iteration shape and replace the coordinate along one dim by an index value. ``dim_offsets``
# turns that into storage offsets (flat storage + int64 strides, so ndim stays out of the Numba
# type, and an index broadcast by stride 0 serves index_select's 1-D index); the data then
# moves in one NumPy pass (``storage[offsets]``) or is combined by ``accumulate_at``. Bounds are
# checked in the same loop: a kernel returns the first bad position (or -1) and the caller
# raises PyTorch's error, so no Numba or NumPy message reaches the user.
"""

import numpy as np

from numtorch.kernels._jit import kernel

ADD, MUL, MAX, MIN = 0, 1, 2, 3


@kernel
def dim_offsets(shape, base, base_st, dim_st, idx, idx_off, idx_st, dim, dim_size, wrap, out):
    """out[i] = storage offset of C-order position i of ``shape`` with its ``dim`` coordinate
    replaced by the index value there; returns the first out-of-range position or -1.

    ``base_st`` must hold 0 at ``dim`` (the index supplies that coordinate through ``dim_st``);
    ``wrap`` admits negative indices down to -dim_size, as index_fill and take_along_dim do.
    """
    nd = shape.shape[0]
    pos = np.zeros(nd, np.int64)
    ip = idx_off
    bp = base
    for i in range(out.shape[0]):
        v = np.int64(idx[ip])
        if v < 0 and wrap:
            v += dim_size
        if v < 0 or v >= dim_size:
            return i
        out[i] = bp + v * dim_st
        d = nd - 1
        while d >= 0:
            pos[d] += 1
            ip += idx_st[d]
            bp += base_st[d]
            if pos[d] < shape[d]:
                break
            ip -= idx_st[d] * shape[d]
            bp -= base_st[d] * shape[d]
            pos[d] = 0
            d -= 1
    return -1


@kernel
def accumulate_at(dst, offsets, src, mode):
    """dst[offsets[i]] (op)= src[i] in order, op by ``mode``: ADD, MUL, MAX, MIN (NaN wins)."""
    n = offsets.shape[0]
    # one loop per mode: the branch stays out of the hot loop
    if mode == 0:
        for i in range(n):
            dst[offsets[i]] += src[i]
    elif mode == 1:
        for i in range(n):
            dst[offsets[i]] *= src[i]
    elif mode == 2:
        for i in range(n):
            o, v = offsets[i], src[i]
            if v > dst[o] or v != v:
                dst[o] = v
    else:
        for i in range(n):
            o, v = offsets[i], src[i]
            if v < dst[o] or v != v:
                dst[o] = v


@kernel
def count_at(counts, offsets):
    """counts[offsets[i]] += 1: the number of values scatter_reduce's mean divides by."""
    for i in range(offsets.shape[0]):
        counts[offsets[i]] += 1


@kernel
def search_rows(bounds, bstride, nb, values, nv, right, out):
    """out[k] = insertion point of values[k] in its row of sorted ``bounds`` (row r holds
    bounds[r * bstride : r * bstride + nb]; bstride 0 shares one row). NaN sorts last, as in
    PyTorch's lower/upper bound loops: the same probes (lo, hi, mid = (lo + hi) >> 1), so an
    unsorted row gives their answer too. Written as base/count with selects (no branch on the
    data: a mispredicted branch a probe cost ~1.5x PyTorch's time on 5 boundaries), and a loop
    over rows instead of a division per value."""
    rows = values.shape[0] // nv if nv > 0 else 0
    for r in range(rows):
        b0 = r * bstride
        for k in range(r * nv, r * nv + nv):
            v = values[k]
            base = 0  # lo
            n = nb  # hi - lo
            while n > 0:
                half = n >> 1
                m = base + half  # mid
                b = bounds[b0 + m]
                up = not (b > v) if right else not (b >= v)
                base = m + 1 if up else base
                n = n - half - 1 if up else half
            out[k] = base


@kernel
def add_slabs(dst, src, idx, outer, size, inner, copy):
    """index_add (``copy`` 0) or index_copy (1) on C-contiguous data viewed as (outer, size,
    inner) / (outer, len(idx), inner): dst[o, idx[j], :] += (or =) src[o, j, :] in order (a
    repeated index_copy index keeps its last slab, as NumPy's assignment); returns the first
    out-of-range j or -1 (nothing written)."""
    k = idx.shape[0]
    for j in range(k):
        if idx[j] < 0 or idx[j] >= size:
            return j
    for o in range(outer):
        for j in range(k):
            d0 = (o * size + idx[j]) * inner
            s0 = (o * k + j) * inner
            if copy:
                for r in range(inner):
                    dst[d0 + r] = src[s0 + r]
            else:
                for r in range(inner):
                    dst[d0 + r] += src[s0 + r]
    return -1


@kernel
def first_out_of_range(idx, lo, hi):
    """The first position of the 1-D ``idx`` whose value is outside [lo, hi), or -1: one pass
    instead of NumPy's min and max (two reductions, ~2 us on a small index)."""
    for j in range(idx.shape[0]):
        if idx[j] < lo or idx[j] >= hi:
            return j
    return -1


@kernel
def take_flat(src, idx, out, n):
    """take: out[j] = src[idx[j]] of the flat C-order ``src`` of ``n`` elements, a negative
    index counting from the end; returns the first position outside [-n, n) or -1 (the bounds
    pass and NumPy's fancy gather in one loop)."""
    for j in range(idx.shape[0]):
        v = idx[j]
        if v < -n or v >= n:
            return j
        out[j] = src[v + n if v < 0 else v]
    return -1


@kernel
def fill_where(dst, mask, value):
    """masked_fill on flat C-order data: dst[j] = value where mask[j] (np.copyto's where=)."""
    for j in range(dst.shape[0]):
        if mask[j]:
            dst[j] = value


@kernel
def scatter_where(dst, mask, src):
    """masked_scatter on flat C-order data: the k-th True of ``mask`` takes src[k], in order;
    returns False (``dst`` partly written: the caller drops it) where src runs out."""
    k = 0
    n = src.shape[0]
    for j in range(dst.shape[0]):
        if mask[j]:
            if k >= n:
                return False
            dst[j] = src[k]
            k += 1
    return True


@kernel
def index_put_2d(dst, i0, i1, vals, n0, n1, accumulate):
    """index_put of two 1-D indices into the flat C-order ``dst`` of an (n0, n1) array: what
    np.ravel_multi_index's offsets and the in-order assignment (or accumulate_at's +=) do, the
    value vals[j] or, for one value, vals[0]; returns the first position holding an index
    outside [0, n) (negative ones included: the body wraps them) or -1."""
    one = vals.shape[0] == 1
    for j in range(i0.shape[0]):
        if i0[j] < 0 or i0[j] >= n0 or i1[j] < 0 or i1[j] >= n1:
            return j
    for j in range(i0.shape[0]):
        v = vals[0] if one else vals[j]
        if accumulate:
            dst[i0[j] * n1 + i1[j]] += v
        else:
            dst[i0[j] * n1 + i1[j]] = v
    return -1


@kernel
def scatter_2d(dst, idx, src, ir, ic, n1, sc, d, size, accumulate):
    """scatter (``accumulate`` False) or scatter_add of an (ir, ic) index into the flat C-order
    (n0, n1) ``dst`` along dim ``d`` (0 or 1, ``size`` entries), src[r, c] at r * sc + c: the
    positions of dim_offsets in its order, so the same writes and sums; returns the first bad
    index position or -1 (then ``dst`` is partly written: the caller drops it)."""
    for r in range(ir):
        for c in range(ic):
            k = idx[r * ic + c]
            if k < 0 or k >= size:
                return r * ic + c
            o = k * n1 + c if d == 0 else r * n1 + k
            if accumulate:
                dst[o] += src[r * sc + c]
            else:
                dst[o] = src[r * sc + c]
    return -1


# Note [Last-dim gather and scatter-add]: gather / scatter_add along the last dim of C-contiguous
# (rows, m) data by a (rows, k) index of the same leading sizes, with the bounds check, in one
# pass (no offsets array); the same element order as dim_offsets + accumulate_at, so the same sums.
@kernel
def gather_last(src, idx, out, rows, m, k):
    """out[r, j] = src[r, idx[r, j]]; returns the first flat index position outside [0, m) or -1."""
    for r in range(rows):
        s0 = r * m
        i0 = r * k
        for j in range(k):
            v = idx[i0 + j]
            if v < 0 or v >= m:
                return i0 + j
            out[i0 + j] = src[s0 + v]
    return -1


@kernel
def scatter_add_last(dst, idx, src, rows, m, k):
    """dst[r, idx[r, j]] += src[r, j] in order; returns the first bad position or -1 (then
    ``dst`` is partly written: the caller drops it)."""
    for r in range(rows):
        d0 = r * m
        i0 = r * k
        for j in range(k):
            v = idx[i0 + j]
            if v < 0 or v >= m:
                return i0 + j
            dst[d0 + v] += src[i0 + j]
    return -1


@kernel
def put_flat(dst, idx, src, n, accumulate):
    """put's step on the flat C-order ``dst`` of ``n`` elements: dst[idx[j]] = src[j] (or +=)
    in order, negative indices from the end; returns the first position outside [-n, n) or -1
    (then ``dst`` is partly written: the caller drops it)."""
    for j in range(idx.shape[0]):
        v = idx[j]
        if v < -n or v >= n:
            return j
        if v < 0:
            v += n
        if accumulate:
            dst[v] += src[j]
        else:
            dst[v] = src[j]
    return -1


@kernel
def fill_slabs(dst, idx, outer, size, inner, value):
    """index_fill on C-contiguous data viewed as (outer, size, inner): dst[o, idx[j], :] = value,
    a negative index counting from the end (the caller checked every index is in [-size, size))."""
    for o in range(outer):
        for j in range(idx.shape[0]):
            r = idx[j]
            if r < 0:
                r += size
            d0 = (o * size + r) * inner
            for c in range(inner):
                dst[d0 + c] = value


@kernel
def add_rows_at(dst, src, idx, outer, size):
    """dst[o, idx[j]] += src[o, j] over C-contiguous (outer, size) / (outer, len(idx)) data, in
    the order of o then j: the scatter-add of a gather's gradient along its last dim (3-d
    padding's backward); ``idx`` was built in range by the caller."""
    k = idx.shape[0]
    for o in range(outer):
        d0 = o * size
        s0 = o * k
        for j in range(k):
            dst[d0 + idx[j]] += src[s0 + j]
