"""embedding_bag's reduction without autograd (Note [embedding_bag forward only]): one pass over
the kept indices, each row added into (or compared with) its bag's output row, in index order,
as the composite's index_add / scatter_reduce(amax) and its max-index scan."""

from __future__ import annotations

import numpy as np

from numtorch.kernels._jit import kernel


@kernel
def bag_reduce(w, idx, bag, keep, psw, has_psw, counts, mode, out, arg, one):
    """``out`` (n_bags, dim) and ``arg`` (n_bags, dim when mode is max) come zeroed; ``one``
    is 1 in the weight's dtype."""
    dim = w.shape[1]
    T = type(one)
    best = np.full(out.shape if mode == 2 else (0, 0), -np.inf)
    seen = np.zeros(out.shape[0] if mode == 2 else 0, np.bool_)
    for i in range(idx.size):
        if not keep[i]:
            continue
        b, r = bag[i], idx[i]
        if mode == 2:
            for d in range(dim):
                v = w[r, d]
                if not seen[b] or v > out[b, d] or np.isnan(v):
                    out[b, d] = v
                if v > best[b, d]:
                    best[b, d] = v
                    arg[b, d] = r
            seen[b] = True
        elif has_psw:
            s = psw[i]
            for d in range(dim):
                out[b, d] += w[r, d] * s
        else:
            for d in range(dim):
                out[b, d] += w[r, d]
    if mode == 1:
        for b in range(out.shape[0]):
            c = T(max(counts[b], 1))
            for d in range(dim):
                out[b, d] /= c


@kernel
def bags(starts, n, bag):
    """bag[i] = the last b with starts[b] <= i (starts ascending, starts[0] == 0): the
    composite's searchsorted(starts, i, "right") - 1, in one pass."""
    nb = starts.size
    for b in range(nb):
        hi = starts[b + 1] if b + 1 < nb else n
        for i in range(max(starts[b], 0), min(hi, n)):
            bag[i] = b


@kernel
def offsets_reduce(w, idx, starts, mode, out, one):
    """Note [embedding_bag fast call]'s reduction: bag b is idx[starts[b]:starts[b + 1]] (the
    last bag ends at idx.size), reduced in index order into ``out`` (n_bags, dim), which comes
    zeroed (``one`` is 1 in its dtype): bag_reduce's arithmetic without its bag, keep and
    counts arrays. 1 (nothing useful written) where the starts do not ascend or an index is
    out of range (tested before its row is read): the caller then takes the body, which raises
    or takes its general route."""
    num, dim = w.shape
    nb, n = starts.size, idx.size
    for b in range(nb - 1):
        if starts[b + 1] < starts[b]:
            return 1
    T = type(one)
    for b in range(nb):
        lo = starts[b]
        hi = starts[b + 1] if b + 1 < nb else n
        c = T(max(hi - lo, 1))
        if dim <= 8:
            # a few columns: four register accumulators (columns d0..d0 + 3, the last repeated
            # past the end and not stored), four independent add chains per pass over the bag's
            # indices, instead of a store into out per index and column
            for d0 in range(0, dim, 4):
                d1, d2, d3 = min(d0 + 1, dim - 1), min(d0 + 2, dim - 1), min(d0 + 3, dim - 1)
                s0 = s1 = s2 = s3 = out[b, d0]
                for i in range(lo, hi):
                    r = idx[i]
                    if r < 0 or r >= num:
                        return 1
                    v0, v1, v2, v3 = w[r, d0], w[r, d1], w[r, d2], w[r, d3]
                    if mode == 2:
                        if i == lo or v0 > s0 or np.isnan(v0):
                            s0 = v0
                        if i == lo or v1 > s1 or np.isnan(v1):
                            s1 = v1
                        if i == lo or v2 > s2 or np.isnan(v2):
                            s2 = v2
                        if i == lo or v3 > s3 or np.isnan(v3):
                            s3 = v3
                    else:
                        s0 += v0
                        s1 += v1
                        s2 += v2
                        s3 += v3
                if mode == 1:
                    s0, s1, s2, s3 = s0 / c, s1 / c, s2 / c, s3 / c
                out[b, d0] = s0
                out[b, d1] = s1
                out[b, d2] = s2
                out[b, d3] = s3
        else:
            for i in range(lo, hi):
                r = idx[i]
                if r < 0 or r >= num:
                    return 1
                for d in range(dim):
                    v = w[r, d]
                    if mode == 2:
                        if i == lo or v > out[b, d] or np.isnan(v):
                            out[b, d] = v
                    else:
                        out[b, d] += v
            if mode == 1:
                for d in range(dim):
                    out[b, d] /= c
    return 0
