"""3-D convolution kernels: vol2col / col2vol on contiguous (N*C, D, H, W) volumes.

The 3-D twin of kernels/cpu/nn/conv.py (Note [Convolution geometry]): ``cols`` is laid out
(N, C*KD*KH*KW, OD*OH*OW) with row ((c*KD + kd)*KH + kh)*KW + kw, PyTorch's vol2col layout, so a
grouped weight (G, OC/G, C/G*KD*KH*KW) multiplies a (N, G, C/G*KD*KH*KW, L) view directly. One
(n, c) volume per iteration: the parallel variants write disjoint blocks and need no atomics.

# Note [3-D convolution geometry]
# The geometry arrives as one int64 array ``geo`` of 19 entries
# (C, D, H, W, KD, KH, KW, SD, SH, SW, PD, PH, PW, DD, DH, DW, OD, OH, OW), built by
# ops/nn/conv3d.py::_geo; an array rather than 19 arguments keeps the signatures short.
"""

from __future__ import annotations

from numtorch.kernels._jit import inline, kernel, parallel_kernel, prange
from numtorch.kernels.cpu.nn.conv import _valid_range


@inline
def _vol2col_volume(x, cols, nc, geo):
    C, D, H, W, KD, KH, KW = geo[0], geo[1], geo[2], geo[3], geo[4], geo[5], geo[6]
    SD, SH, SW, PD, PH, PW = geo[7], geo[8], geo[9], geo[10], geo[11], geo[12]
    DD, DH, DW, OD, OH, OW = geo[13], geo[14], geo[15], geo[16], geo[17], geo[18]
    n = nc // C
    c = nc - n * C
    xb = nc * D * H * W
    L = OD * OH * OW
    for kd in range(KD):
        for kh in range(KH):
            for kw in range(KW):
                lo, hi = _valid_range(kw, SW, PW, DW, W, OW)
                row = ((c * KD + kd) * KH + kh) * KW + kw
                cb = (n * C * KD * KH * KW + row) * L
                for od in range(OD):
                    idd = od * SD - PD + kd * DD
                    for oh in range(OH):
                        ih = oh * SH - PH + kh * DH
                        ob = cb + (od * OH + oh) * OW
                        if idd < 0 or idd >= D or ih < 0 or ih >= H:
                            for ow in range(OW):
                                cols[ob + ow] = 0
                            continue
                        src = xb + (idd * H + ih) * W - PW + kw * DW
                        for ow in range(lo):
                            cols[ob + ow] = 0
                        for ow in range(lo, hi):
                            cols[ob + ow] = x[src + ow * SW]
                        for ow in range(hi, OW):
                            cols[ob + ow] = 0


@kernel
def vol2col(x, cols, geo):
    """Gather ``x`` (N*C*D*H*W,) into ``cols``; Note [3-D convolution geometry]."""
    for nc in range(x.size // (geo[1] * geo[2] * geo[3])):
        _vol2col_volume(x, cols, nc, geo)


@parallel_kernel
def vol2col_parallel(x, cols, geo):
    for nc in prange(x.size // (geo[1] * geo[2] * geo[3])):
        _vol2col_volume(x, cols, nc, geo)


@inline
def _col2vol_volume(cols, out, nc, geo):
    C, D, H, W, KD, KH, KW = geo[0], geo[1], geo[2], geo[3], geo[4], geo[5], geo[6]
    SD, SH, SW, PD, PH, PW = geo[7], geo[8], geo[9], geo[10], geo[11], geo[12]
    DD, DH, DW, OD, OH, OW = geo[13], geo[14], geo[15], geo[16], geo[17], geo[18]
    n = nc // C
    c = nc - n * C
    xb = nc * D * H * W
    L = OD * OH * OW
    for i in range(D * H * W):
        out[xb + i] = 0
    for kd in range(KD):
        od_lo, od_hi = _valid_range(kd, SD, PD, DD, D, OD)
        for kh in range(KH):
            oh_lo, oh_hi = _valid_range(kh, SH, PH, DH, H, OH)
            for kw in range(KW):
                ow_lo, ow_hi = _valid_range(kw, SW, PW, DW, W, OW)
                row = ((c * KD + kd) * KH + kh) * KW + kw
                cb = (n * C * KD * KH * KW + row) * L
                for od in range(od_lo, od_hi):
                    idd = od * SD - PD + kd * DD
                    for oh in range(oh_lo, oh_hi):
                        ob = cb + (od * OH + oh) * OW
                        dst = xb + (idd * H + oh * SH - PH + kh * DH) * W - PW + kw * DW
                        for ow in range(ow_lo, ow_hi):
                            out[dst + ow * SW] += cols[ob + ow]


@kernel
def col2vol(cols, out, geo):
    """Sum ``cols`` back into volumes ``out`` (N*C*D*H*W,), overwriting it: vol2col's adjoint."""
    for nc in range(out.size // (geo[1] * geo[2] * geo[3])):
        _col2vol_volume(cols, out, nc, geo)


@parallel_kernel
def col2vol_parallel(cols, out, geo):
    for nc in prange(out.size // (geo[1] * geo[2] * geo[3])):
        _col2vol_volume(cols, out, nc, geo)
