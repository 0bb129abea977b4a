"""Copies: a strided (non-contiguous, broadcast) source into a contiguous destination,
casting to the destination's dtype; and a strided fill."""

from __future__ import annotations

from numba import cuda, float64, int64

from .._jit import cuda_device, cuda_kernel
from . import _SIM

TT = 4 if _SIM else 32  # transpose tile edge (a warp's width: one coalesced row per warp)
TROWS = 2 if _SIM else 8  # threads per block = TT * TROWS; each thread moves TT / TROWS elements
TT1 = TT + 1  # a padded tile row
TSZ = TT * TT1  # the tile's elements (a literal for the shared array's shape)


@cuda_kernel
def copy_strided(n, shape, out, x, xo, xs):
    # flat output index -> source element through the strides: ndim stays out of the type
    i = cuda.grid(1)
    if i < n:
        p, _ = _offsets(i, shape, xo, xs, xo, xs)  # the same strides twice: one decode
        out[i] = x[p]


@cuda_kernel
def copy_into_strided(n, shape, out, oo, os_, x, xo, xs):
    # both sides strided: copy_ into a view (a slice, a transpose) of another tensor
    i = cuda.grid(1)
    if i < n:
        p, q = _offsets(i, shape, xo, xs, oo, os_)
        out[q] = x[p]


@cuda_device
def _offsets(i, shape, xo, xs, oo, os_):
    """Flat index ``i`` over ``shape`` -> its element's offsets through two sets of strides (one
    division per dim, the remainder from the quotient)."""
    p = xo
    q = oo
    for d in range(shape.size - 1, -1, -1):
        u = i // shape[d]
        k = i - u * shape[d]
        i = u
        p += k * xs[d]
        q += k * os_[d]
    return p, q


@cuda_kernel
def fill_strided(n, shape, out, oo, os_, value):
    # fill_ / zero_ of any view (a slice, a column) through its strides
    i = cuda.grid(1)
    if i < n:
        _, q = _offsets(i, shape, oo, os_, oo, os_)
        out[q] = value


# Note [Tiled transposing copy]
# A copy whose source runs with stride 1 along another dim than the destination's last (``a.t()
# .contiguous()``, a permute that moves the innermost dim) reads and writes with a stride
# through copy_strided: each warp's 32 loads (or stores) hit 32 different 32-byte sectors, an
# eighth of the bandwidth for float32. Here a block moves a TT x TT tile through shared memory:
# its warps read rows of the tile along the source's unit-stride dim ``d`` (consecutive
# addresses), and after the barrier write rows along the destination's last dim ``e``
# (consecutive again). The tile row is padded by one element so that the column reads of the
# second half fall in different banks. The other dims are the batch: a block's tile is decoded
# once per tile (a few divisions per TT * TT elements, not per element). Values move through a
# float64 tile (exact for every float of 4 or 8 bytes, bool and integers up to 32 bits) or an
# int64 one (64-bit integers), each of the source's own dtype in and out.
@cuda_kernel
def transpose_tiles_f(tD, tE, shape, xs, os_, x, xo, out, oo, SD, SE, xsd, xse, osd):
    _transpose_tile(tD, tE, shape, xs, os_, x, xo, out, oo, SD, SE, xsd, xse, osd,
                    cuda.shared.array(TSZ, float64))


@cuda_kernel
def transpose_tiles_i(tD, tE, shape, xs, os_, x, xo, out, oo, SD, SE, xsd, xse, osd):
    _transpose_tile(tD, tE, shape, xs, os_, x, xo, out, oo, SD, SE, xsd, xse, osd,
                    cuda.shared.array(TSZ, int64))


@cuda_device
def _transpose_tile(tD, tE, shape, xs, os_, x, xo, out, oo, SD, SE, xsd, xse, osd, tile):
    # one tile per block, no grid-stride loop: with one, ptxas kept the batch decode's values
    # live across it and used 122 registers a thread (one block per SM) instead of 44
    t = cuda.threadIdx.x
    ty = t // TT
    tx = t - ty * TT
    b = cuda.blockIdx.x
    r = b // tE
    e0 = (b - r * tE) * TT
    bb = r // tD
    d0 = (r - bb * tD) * TT
    p, q = _offsets(bb, shape, xo, xs, oo, os_)
    dd = d0 + tx
    for jj in range(TT // TROWS):  # loads: tx along d, the source's unit stride
        j = ty + jj * TROWS
        e = e0 + j
        if e < SE and dd < SD:
            tile[j * TT1 + tx] = x[p + dd * xsd + e * xse]
    cuda.syncthreads()
    e = e0 + tx
    for jj in range(TT // TROWS):  # stores: tx along e, the destination's unit stride
        j = ty + jj * TROWS
        dd = d0 + j
        if dd < SD and e < SE:
            out[q + dd * osd + e] = tile[tx * TT1 + j]
