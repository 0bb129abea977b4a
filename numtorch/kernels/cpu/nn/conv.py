"""Convolution kernels: im2col / col2im on contiguous (N*C, H, W) planes.

Convolutions are im2col + a BLAS matrix product (NumPy's matmul): the gather into columns and
the scatter back (col2im, for grad_input and transposed convolutions) are these kernels. Both
work one (n, c) plane per iteration, so the parallel variants need no atomics: every plane of
``x`` owns a disjoint block of rows of ``cols``.

# Note [Convolution geometry]
# All kernels take the 2-D geometry (C, H, W, KH, KW, SH, SW, PH, PW, DH, DW, OH, OW) as plain
# ints: a 1-D convolution is a 2-D one with H == KH == 1. ``cols`` is laid out
# (N, C*KH*KW, OH*OW) with row (c*KH + kh)*KW + kw, the layout PyTorch's im2col uses, so a
# grouped weight (G, OC/G, C/G*KH*KW) multiplies a (N, G, C/G*KH*KW, OH*OW) view directly.
"""

from __future__ import annotations

from numtorch.kernels._jit import inline, kernel, parallel_kernel, prange


@inline
def _valid_range(K, S, P, D, size, out_size):
    """[lo, hi): the output positions o whose input o*S - P + K*D lies inside [0, size)."""
    off = P - K * D  # input = o*S - off
    lo = 0 if off <= 0 else (off + S - 1) // S
    hi = (size + off + S - 1) // S
    return min(lo, out_size), max(min(hi, out_size), min(lo, out_size))


@inline
def _im2col_plane(x, cols, nc, C, H, W, KH, KW, SH, SW, PH, PW, DH, DW, OH, OW):
    n = nc // C
    c = nc - n * C
    xb = nc * H * W
    L = OH * OW
    for kh in range(KH):
        for kw in range(KW):
            # the in-bounds columns [lo, hi) are hoisted per tap: the copy loop has no tests
            lo, hi = _valid_range(kw, SW, PW, DW, W, OW)
            row = (c * KH + kh) * KW + kw
            cb = (n * C * KH * KW + row) * L
            for oh in range(OH):
                ih = oh * SH - PH + kh * DH
                ob = cb + oh * OW
                if ih < 0 or ih >= H:
                    for ow in range(OW):
                        cols[ob + ow] = 0
                    continue
                src = xb + ih * W - PW + kw * DW
                for ow in range(lo):
                    cols[ob + ow] = 0
                for ow in range(lo, hi):
                    cols[ob + ow] = x[src + ow * SW]
                for ow in range(hi, OW):
                    cols[ob + ow] = 0


@kernel
def im2col(x, cols, C, H, W, KH, KW, SH, SW, PH, PW, DH, DW, OH, OW):
    """Gather ``x`` (N*C*H*W,) into ``cols`` (N*C*KH*KW*OH*OW,); Note [Convolution geometry]."""
    for nc in range(x.size // (H * W)):
        _im2col_plane(x, cols, nc, C, H, W, KH, KW, SH, SW, PH, PW, DH, DW, OH, OW)


@parallel_kernel
def im2col_parallel(x, cols, C, H, W, KH, KW, SH, SW, PH, PW, DH, DW, OH, OW):
    for nc in prange(x.size // (H * W)):
        _im2col_plane(x, cols, nc, C, H, W, KH, KW, SH, SW, PH, PW, DH, DW, OH, OW)


@inline
def _col2im_plane(cols, out, nc, C, H, W, KH, KW, SH, SW, PH, PW, DH, DW, OH, OW):
    n = nc // C
    c = nc - n * C
    xb = nc * H * W
    L = OH * OW
    for i in range(H * W):
        out[xb + i] = 0
    for kh in range(KH):
        oh_lo, oh_hi = _valid_range(kh, SH, PH, DH, H, OH)
        for kw in range(KW):
            ow_lo, ow_hi = _valid_range(kw, SW, PW, DW, W, OW)
            row = (c * KH + kh) * KW + kw
            cb = (n * C * KH * KW + row) * L
            for oh in range(oh_lo, oh_hi):
                ob = cb + oh * OW
                dst = xb + (oh * SH - PH + kh * DH) * W - PW + kw * DW
                for ow in range(ow_lo, ow_hi):
                    out[dst + ow * SW] += cols[ob + ow]


@kernel
def col2im(cols, out, C, H, W, KH, KW, SH, SW, PH, PW, DH, DW, OH, OW):
    """Sum ``cols`` back into planes ``out`` (N*C*H*W,), overwriting it: the adjoint of im2col."""
    for nc in range(out.size // (H * W)):
        _col2im_plane(cols, out, nc, C, H, W, KH, KW, SH, SW, PH, PW, DH, DW, OH, OW)


@parallel_kernel
def col2im_parallel(cols, out, C, H, W, KH, KW, SH, SW, PH, PW, DH, DW, OH, OW):
    for nc in prange(out.size // (H * W)):
        _col2im_plane(cols, out, nc, C, H, W, KH, KW, SH, SW, PH, PW, DH, DW, OH, OW)


@kernel
def add_channel_bias(out, bias, C, S):
    """``out`` (N*C*S,) += ``bias`` (C,) broadcast over batch and spatial positions."""
    for nc in range(out.size // S):
        b = bias[nc % C]
        base = nc * S
        for i in range(S):
            out[base + i] += b


@kernel
def channel_sum(g, out, C, S):
    """``out`` (C,) = ``g`` (N*C*S,) summed over batch and spatial positions (the bias grad)."""
    for c in range(C):
        out[c] = 0
    for nc in range(g.size // S):
        acc = g.dtype.type(0)  # not g[0] * 0: a NaN or inf there would reach every channel
        base = nc * S
        for i in range(S):
            acc += g[base + i]
        out[nc % C] += acc
