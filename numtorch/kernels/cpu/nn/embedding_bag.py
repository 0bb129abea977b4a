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
