"""Copies: a strided (non-contiguous, broadcast) source into a contiguous destination,
casting to the destination's dtype; and a strided fill."""

from __future__ import annotations

from numba import cuda, float64, int64

from .._jit import cuda_device, cuda_kernel
from . import _SIM

TT = 4 if _SIM else 32  # transpose tile edge (a warp's width: one coalesced row per warp)
TROWS = 2 if _SIM else 8  # threads per block = TT * TROWS; each thread moves TT / TROWS elements
TT1 = TT + 1  # a padded tile row (a literal for the shared array's shape)


@cuda_kernel
def copy_strided(n, shape, out, x, xo, xs):
    # flat output index -> source element through the strides: ndim stays out of the type
    i = cuda.grid(1)
    if i < n:
        p = xo
        rem = i
        for d in range(shape.size - 1, -1, -1):
            q = rem // shape[d]
            k = rem - q * shape[d]  # one division per dim: the remainder from the quotient
            rem = q
            p += k * xs[d]
        out[i] = x[p]


@cuda_kernel
def copy_into_strided(n, shape, out, oo, os_, x, xo, xs):
    # both sides strided: copy_ into a view (a slice, a transpose) of another tensor
    i = cuda.grid(1)
    if i < n:
        p = xo
        q = oo
        rem = i
        for d in range(shape.size - 1, -1, -1):
            q_ = rem // shape[d]
            k = rem - q_ * shape[d]
            rem = q_
            p += k * xs[d]
            q += k * os_[d]
        out[q] = x[p]


@cuda_kernel
def fill_strided(n, shape, out, oo, os_, value):
    # fill_ / zero_ of any view (a slice, a column) through its strides
    i = cuda.grid(1)
    if i < n:
        q = oo
        rem = i
        for d in range(shape.size - 1, -1, -1):
            q_ = rem // shape[d]
            k = rem - q_ * shape[d]
            rem = q_
            q += k * os_[d]
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
def transpose_tiles_f(ntiles, tD, tE, shape, xs, os_, x, xo, out, oo, SD, SE, xsd, xse, osd):
    _transpose_tiles(ntiles, tD, tE, shape, xs, os_, x, xo, out, oo, SD, SE, xsd, xse, osd,
                     cuda.shared.array((TT, TT1), float64))


@cuda_kernel
def transpose_tiles_i(ntiles, tD, tE, shape, xs, os_, x, xo, out, oo, SD, SE, xsd, xse, osd):
    _transpose_tiles(ntiles, tD, tE, shape, xs, os_, x, xo, out, oo, SD, SE, xsd, xse, osd,
                     cuda.shared.array((TT, TT1), int64))


@cuda_device
def _transpose_tiles(ntiles, tD, tE, shape, xs, os_, x, xo, out, oo, SD, SE, xsd, xse, osd, tile):
    t = cuda.threadIdx.x
    ty = t // TT
    tx = t - ty * TT
    for b in range(cuda.blockIdx.x, ntiles, cuda.gridDim.x):
        r = b // tE
        e0 = (b - r * tE) * TT
        bb = r // tD
        d0 = (r - bb * tD) * TT
        p = xo
        q = oo
        for k in range(shape.size - 1, -1, -1):
            u = bb // shape[k]
            j = bb - u * shape[k]
            bb = u
            p += j * xs[k]
            q += j * os_[k]
        for j in range(ty, TT, TROWS):  # loads: tx along d, the source's unit stride
            e = e0 + j
            dd = d0 + tx
            if e < SE and dd < SD:
                tile[j, tx] = x[p + dd * xsd + e * xse]
        cuda.syncthreads()
        for j in range(ty, TT, TROWS):  # stores: tx along e, the destination's unit stride
            dd = d0 + j
            e = e0 + tx
            if dd < SD and e < SE:
                out[q + dd * osd + e] = tile[tx, j]
        cuda.syncthreads()  # the tile is read before the next one overwrites it
