"""Layer norm's two kernels in one call (Note [Layer norm binding fast call]): the fast call of a
small F.layer_norm made moments and apply, each through its own entry, and allocated their
statistics; this allocates them in x's dtype and calls both, in that order."""

from __future__ import annotations

import numpy as np

from numtorch.kernels._jit import kernel
from numtorch.kernels.cpu.nn.layer_norm import apply, moments


@kernel
def moments_apply(x, out, w, b, N, eps, has_w, has_b):
    """``out`` = layer_norm of the (x.size // N, N) rows of ``x`` (moments, then apply)."""
    M = x.size // N
    mean = np.empty(M, x.dtype)
    rstd = np.empty(M, x.dtype)
    moments(x, N, mean, rstd, eps)
    apply(x, out, mean, rstd, w, b, N, has_w, has_b)
