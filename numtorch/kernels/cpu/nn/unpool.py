"""max_unpool's placement (Note [max_unpool's own node]): each plane's values written at their
indices into the zeroed output, in order."""

from __future__ import annotations

from numtorch.kernels._jit import kernel


@kernel
def unpool_place(a, ii, per, volume, res):
    """``res`` (planes * volume,) comes zeroed; ``a`` and ``ii`` (planes * per,) are the values
    and their in-plane indices, each already checked to lie in [0, volume). A repeated index
    keeps the last value written, as PyTorch's CPU kernel (and NumPy's assignment) does."""
    for p in range(a.size // per if per else 0):
        b = p * per
        o = p * volume
        for k in range(per):
            res[o + ii[b + k]] = a[b + k]
