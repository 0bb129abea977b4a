"""im2col of many small planes as one gather (kernels/cpu/nn/conv_gather.py).

# Note [im2col of small planes by gather]
# The im2col kernel works one (n, c) plane at a time, tap by tap and output row by output row,
# with the in-bounds columns hoisted: fast for wide planes, but a batch of small ones (a
# (4096, 2, 4, 4) input with a 2x2 kernel: 8192 planes, rows of two outputs) spent ~1 ms in
# loop set-up, 2.5 ns a value. Where the batch holds at least _MIN_N samples and a sample's
# columns at most _MAX_MAP values, the columns of every sample are one gather through a map
# built once per geometry (the flat input offset of each column value, -1 for padding):
# ~4x faster there; the same values are copied (zeros where the kernel writes zeros), so the
# results are the plane kernel's bit for bit. conv._im2col takes it, so convolutions, their
# fast calls and F.unfold share it. Tests: tests/nn/test_conv_gather.py.
# A batch of fewer samples takes it too (session 20): the map is kept per geometry, so a
# training loop builds it once, and the gather's call (~0.4 us) beats the plane kernel's
# fifteen-argument call and loop set-up (~1.3 us for one (2, 4, 4) sample); only the first
# call of a geometry pays for the map (~20 us).
"""

from __future__ import annotations

import numpy as np

from ...kernels import PARALLEL_THRESHOLD, lazy

_K = lazy("numtorch.kernels.cpu.nn.conv_gather")

_MAX_MAP = 4096  # values of one sample's columns
_MAX_OW = 16  # wider output rows: the plane kernel's copy loops run long enough
_MAPS: dict = {}


def _map(geo: tuple) -> np.ndarray:
    C, H, W, KH, KW, SH, SW, PH, PW, DH, DW, OH, OW = geo
    c = np.arange(C).reshape(C, 1, 1, 1, 1)
    kh = np.arange(KH).reshape(1, KH, 1, 1, 1)
    kw = np.arange(KW).reshape(1, 1, KW, 1, 1)
    oh = np.arange(OH).reshape(1, 1, 1, OH, 1)
    ow = np.arange(OW).reshape(1, 1, 1, 1, OW)
    ih = oh * SH - PH + kh * DH
    iw = ow * SW - PW + kw * DW
    ok = (ih >= 0) & (ih < H) & (iw >= 0) & (iw < W)
    return np.ascontiguousarray(np.where(ok, (c * H + ih) * W + iw, -1).reshape(-1), np.int64)


def im2col(x: np.ndarray, cols: np.ndarray, n: int, geo: tuple) -> bool:
    """Fill ``cols`` with the columns of the ``n`` samples of flat ``x`` by the gather, where it
    is the faster route; False (nothing written) otherwise."""
    C, H, W, KH, KW, OH, OW = geo[0], geo[1], geo[2], geo[3], geo[4], geo[11], geo[12]
    if OW > _MAX_OW or C * KH * KW * OH * OW > _MAX_MAP:
        return False
    idx = _MAPS.get(geo)
    if idx is None:
        if len(_MAPS) >= 256:
            _MAPS.clear()
        idx = _MAPS[geo] = _map(geo)
    fn = _K.im2col_gather_parallel if cols.size >= PARALLEL_THRESHOLD else _K.im2col_gather
    fn(x, cols, idx, n, C * H * W)
    return True
