"""scatter(reduce=) and scatter_reduce as CUDA kernels, with no atomics.

# Note [Scatter along lines]
# A scatter along ``dim`` writes ``out[k with k[dim] = index[k]]``: an element only ever lands
# on the line (all coordinates but ``dim``) it comes from. So one thread per line of the index
# walks that line in order and owns every output element it can touch: no two threads write
# the same element, any reduction works without atomics (prod, amax with NaN, mean's counts),
# and the order of the reduction is the CPU kernel's, so results match it exactly.
"""

from __future__ import annotations

from numba import cuda

from .._jit import cuda_kernel

ADD, MEAN, MUL, MAX, MIN = range(5)


@cuda_kernel
def scatter_reduce_lines(lines, shape, dim, size, out, os_, src, so, ss, idx, io, is_, cnt, op, include_self,
                         ident):  # fmt: skip
    # out: contiguous from element 0 (os_ its strides); cnt: int64 counts of out's layout (MEAN)
    line = cuda.grid(1)
    if line < lines:
        p = so
        q = io
        r = 0
        rem = line
        for d in range(shape.size - 1, -1, -1):
            if d != dim:
                k = rem % shape[d]
                rem //= shape[d]
                p += k * ss[d]
                q += k * is_[d]
                r += k * os_[d]
        m = shape[dim]
        if not include_self:
            for t in range(m):
                j = idx[q + t * is_[dim]]
                if j < 0:
                    j += size
                out[r + j * os_[dim]] = ident
        for t in range(m):
            j = idx[q + t * is_[dim]]
            if j < 0:
                j += size
            o = r + j * os_[dim]
            v = src[p + t * ss[dim]]
            if op == ADD or op == MEAN:
                out[o] += v
                if op == MEAN:
                    cnt[o] += 1
            elif op == MUL:
                out[o] *= v
            elif op == MAX:
                if v > out[o] or v != v:
                    out[o] = v
            elif v < out[o] or v != v:
                out[o] = v


@cuda_kernel
def divide_counts(n, out, cnt, base, floor):
    # mean: the sum over (counts + base), a count of 0 read as 1; integers floor-divide
    i = cuda.grid(1)
    if i < n:
        c = cnt[i] + base
        if c == 0:
            c = 1
        if floor:
            out[i] = out[i] // c
        else:
            out[i] = out[i] / c
