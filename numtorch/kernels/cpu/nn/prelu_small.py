"""prelu of a small C-contiguous input in one pass (Note [Padding, pooling and prelu fast calls]):
the body's fused _prelu_kernel formula, ``self if self > 0 else weight * self``, over N blocks of
C channel planes of ``inner`` elements with one weight per plane (C == 1: one weight)."""

from __future__ import annotations

from numtorch.kernels._jit import kernel


@kernel
def prelu_planes(x, w, out, N, C, inner):
    p = 0
    for _ in range(N):
        for c in range(C):
            wc = w[c]
            for j in range(p, p + inner):
                v = x[j]
                out[j] = v if v > 0 else wc * v
            p += inner
