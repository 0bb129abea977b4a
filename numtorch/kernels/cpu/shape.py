"""Cache-blocked strided copy (``x.t().contiguous()``, ``clone`` into another layout).

NumPy copies a transposed view element by element along the destination's rows, so every
read lands on a new cache line; for a 4096x1024 float32 transpose that is ~9x slower than
PyTorch's blocked copy. ``copy_blocked`` walks the two dims that are innermost in the source and
in the destination in TILE x TILE tiles, so both sides stay in L1 within a tile.

Copies move bits: ``copy_into`` views both sides as the signed integer of the same itemsize
(1/2/4/8 bytes), so bool, float16 and complex64 need no signature of their own and NaN payloads
and signed zeros pass through unchanged.
"""

from __future__ import annotations

import math

import numpy as np

from .._jit import kernel

TILE = 64  # a multiple of 8 (the micro tile)

# Both tiled dims must be at least this long; measured (16,3,128,128).permute(0,2,3,1) 1.08 ms vs
# NumPy 0.69 ms, (100000,3).T 216 us vs 79 us.
MIN_TILED = 32

# Note [When NumPy's transpose is slow]
# NumPy walks the destination row by row, reading the source down a column at byte stride S.
# When S shares a large power of two with 4096 (the L1 way size) those reads all land in a few
# cache sets and evict each other: 2048xN float32 ``.T`` costs 12.6 ms at N=1024 (S=4096 B) and
# 8.6 ms at N=1536, against 1.2 ms at N=1000/1008/1032 (gcd(S, 4096) <= 64), where NumPy beats
# this kernel by ~15% (1.15 vs 1.35 ms). The kernel's tiles avoid the aliasing (1.8 ms at
# N=1024), so it runs where gcd(S, 4096) >= ALIASING_GCD (N=1152: 1.8 vs 2.3 ms; N=1088,
# gcd 256: 1.6 vs 1.3 ms) and for 8-byte items, where it wins or ties at every N measured
# (float64 N=1000: 1.5 vs 1.9 ms).
ALIASING_GCD = 512

_INT_OF_SIZE = {1: np.int8, 2: np.int16, 4: np.int32, 8: np.int64}


@kernel
def copy_blocked(src, soff, dst, doff, shape, sst, dstr, p, q):
    """``dst[doff + sum(i*dstr)] = src[soff + sum(i*sst)]`` over ``shape`` (element strides).

    ``q`` is the destination's innermost dim, ``p`` (!= q) the source's; they are tiled, all other
    dims are walked by an odometer outside the tiles.
    """
    nd = shape.shape[0]
    n_p = shape[p]
    n_q = shape[q]
    for d in range(nd):
        if shape[d] == 0:
            return
    sp = sst[p]
    sq = sst[q]
    dp = dstr[p]
    dq = dstr[q]
    idx = np.zeros(nd, np.int64)
    nouter = 1
    for d in range(nd):
        if d != p and d != q:
            nouter *= shape[d]
    for _ in range(nouter):
        sb = soff
        db = doff
        for d in range(nd):
            if d != p and d != q:
                sb += idx[d] * sst[d]
                db += idx[d] * dstr[d]
        for i0 in range(0, n_p, TILE):
            i1 = min(i0 + TILE, n_p)
            for j0 in range(0, n_q, TILE):
                j1 = min(j0 + TILE, n_q)
                # 8x8 micro tiles with constant trip counts, which LLVM unrolls into vector
                # shuffles (~2.5x faster than a plain loop); the ragged rims element by element
                ie = i0 + (i1 - i0) // 8 * 8
                je = j0 + (j1 - j0) // 8 * 8
                for ii in range(i0, ie, 8):
                    for jj in range(j0, je, 8):
                        for i in range(ii, ii + 8):
                            s = sb + i * sp
                            o = db + i * dp
                            for j in range(jj, jj + 8):
                                dst[o + j * dq] = src[s + j * sq]
                for i in range(i0, i1):
                    s = sb + i * sp
                    o = db + i * dp
                    for j in range(je if i < ie else j0, j1):
                        dst[o + j * dq] = src[s + j * sq]
        d = nd - 1
        while d >= 0:
            if d == p or d == q:
                d -= 1
                continue
            idx[d] += 1
            if idx[d] < shape[d]:
                break
            idx[d] = 0
            d -= 1


def _estrides(a: np.ndarray):
    """``a``'s strides in elements; None when negative or not a multiple of the itemsize."""
    isz = a.itemsize
    st = []
    for s in a.strides:
        if s < 0 or s % isz:
            return None
        st.append(s // isz)
    return st


def _flat(a: np.ndarray, st) -> np.ndarray:
    """``a``'s memory as a 1-D integer array starting at ``a``'s first element."""
    span = 1 + sum((n - 1) * s for n, s in zip(a.shape, st, strict=True))
    flat = np.lib.stride_tricks.as_strided(a, (span,), (a.itemsize,))
    return flat.view(_INT_OF_SIZE[a.itemsize])


def copy_into(dst: np.ndarray, src: np.ndarray, only_if_faster: bool = True) -> bool:
    """Copy ``src`` into ``dst`` (same shape and dtype, no overlap) with ``copy_blocked``.

    Returns False, copying nothing, where the kernel does not apply (itemsize not 1/2/4/8,
    negative strides, readonly source, both sides innermost along the same dim, a tiled dim
    shorter than MIN_TILED) or, with ``only_if_faster``, where NumPy's copy is as fast (see
    Note [When NumPy's transpose is slow]): the caller then uses NumPy.
    """
    if src.dtype != dst.dtype or src.shape != dst.shape or src.ndim < 2:
        return False
    isz = src.itemsize
    if isz not in _INT_OF_SIZE or not (src.flags.writeable and dst.flags.writeable):
        return False
    sst = _estrides(src)
    dstr = _estrides(dst)
    if sst is None or dstr is None:
        return False
    shape = src.shape
    live = [d for d in range(src.ndim) if shape[d] > 1]
    if len(live) < 2:
        return False
    q = min(live, key=lambda d: (dstr[d], -d))
    p = min((d for d in live if d != q), key=lambda d: (sst[d], -d))
    if sst[q] <= sst[p]:
        return False  # both innermost along q: NumPy streams it
    if shape[p] < MIN_TILED or shape[q] < MIN_TILED:
        return False  # thin tiles: NumPy's loop is 2-4x faster ((N, 3) <-> (3, N) layouts)
    if only_if_faster and isz < 8 and math.gcd(sst[q] * isz, 4096) < ALIASING_GCD:
        return False
    copy_blocked(_flat(src, sst), 0, _flat(dst, dstr), 0, np.array(shape, np.int64),
                 np.array(sst, np.int64), np.array(dstr, np.int64), p, q)  # fmt: skip
    return True


@kernel
def fill_flat(out, v):
    """``out[:] = v`` (1-D; ``v`` a scalar of ``out``'s dtype): a vectorised store loop, ~1.3x
    ndarray.fill's speed on 131072 values (fill_, zero_ and fill's fast calls from 16384 values)."""
    for i in range(out.shape[0]):
        out[i] = v
