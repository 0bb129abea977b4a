"""Direct DFTs of short single-precision signals over the axes ``dims`` of C-contiguous arrays,
summed in float64, one kernel call a transform (Note [Direct DFT of small single-precision
transforms], ops/fft_dft.py).

An axis d of an array is read as (outer, n, inner) with the signal along the middle axis; the
roots w[e] = exp(-+2 pi i e / n) (the sign picks the direction) are float64, exactly
conjugate-symmetric, with exact values at the quarter turns; ``norm`` is PyTorch's
fft_norm_mode (0: none, 1: 1/sqrt(n), 2: 1/n an axis) and ``neg`` -1.0 stores the conjugate
(1.0 otherwise) in the last pass. Each kernel returns False, writing nothing, where the input
holds a NaN or an infinity: a direct sum multiplies it by the roots' exact zeros (NaN) where
pocketfft's butterflies only add it, so the caller takes pocketfft (its bits, PyTorch's values).
"""

from __future__ import annotations

import numpy as np

from numtorch.kernels._jit import inline, kernel


@inline
def _split(shape, d):
    outer = 1
    for i in range(d):
        outer *= shape[i]
    inner = 1
    for i in range(d + 1, len(shape)):
        inner *= shape[i]
    return outer, inner


@inline
def _roots(n, inverse, norm, wr, wi):
    """Fill wr/wi[:n] with the n-th roots; returns the axis' normalisation factor."""
    for e in range(n):
        m = min(e, n - e)  # the upper half mirrors the lower
        if m == 0:
            c, s = 1.0, 0.0
        elif 4 * m == n:
            c, s = 0.0, 1.0
        elif 2 * m == n:
            c, s = -1.0, 0.0
        else:
            a = (2.0 * np.pi / n) * m
            c, s = np.cos(a), np.sin(a)
        if (e > n - e) != inverse:
            wi[e] = s
        else:
            wi[e] = -s
        wr[e] = c
    if norm == 0:
        return 1.0
    if norm == 1:
        return 1.0 / np.sqrt(n)
    return 1.0 / n


@inline
def _c2c_inplace(t, shape, d, inverse, norm, neg, wr, wi, col):
    """The c2c transform of the flat complex ``t`` (of ``shape``) along d, in place."""
    n = shape[d]
    outer, inner = _split(shape, d)
    scale = _roots(n, inverse, norm, wr, wi)
    for o in range(outer):
        base = o * n * inner
        for i in range(inner):
            for j in range(n):
                col[j] = t[base + j * inner + i]
            for k in range(n):
                sr = 0.0
                si = 0.0
                e = 0
                for j in range(n):
                    x = col[j]
                    cr = wr[e]
                    ci = wi[e]
                    sr += x.real * cr - x.imag * ci
                    si += x.real * ci + x.imag * cr
                    e += k
                    if e >= n:
                        e -= n
                t[base + k * inner + i] = complex(sr * scale, si * scale * neg)


@inline
def _complex_finite(flat):
    for x in flat:
        if not (np.isfinite(x.real) and np.isfinite(x.imag)):
            return False
    return True


@inline
def _real_finite(flat):
    for x in flat:
        if not np.isfinite(x):
            return False
    return True


@kernel
def c2c_nd(src, dst, dims, inverse, norm):
    """dst = the c2c transform of complex src over ``dims`` (the last first)."""
    if not _complex_finite(src.reshape(-1)):
        return False
    t = dst.reshape(-1)
    t[:] = src.reshape(-1)
    mx = 1
    for d in dims:
        mx = max(mx, src.shape[d])
    wr = np.empty(mx)
    wi = np.empty(mx)
    col = np.empty(mx, dst.dtype)
    for q in range(len(dims) - 1, -1, -1):
        _c2c_inplace(t, dst.shape, dims[q], inverse, norm, 1.0, wr, wi, col)
    return True


@kernel
def r2c_nd(src, dst, dims, norm, neg):
    """dst = the r2c transform of real src over ``dims``: along the last of them the first
    h = n // 2 + 1 bins, and with dst as long as src there the rest, the conjugates of their
    mirrors (as the Hermitian fill writes them); then c2c over the others, last first."""
    if not _real_finite(src.reshape(-1)):
        return False
    d = dims[-1]
    n = src.shape[d]
    m = dst.shape[d]
    outer, inner = _split(src.shape, d)
    mx = n
    for dd in dims:
        mx = max(mx, dst.shape[dd])
    wr = np.empty(mx)
    wi = np.empty(mx)
    col = np.empty(mx, dst.dtype)
    s = src.reshape(-1)
    t = dst.reshape(-1)
    scale = _roots(n, False, norm, wr, wi)
    g = neg if len(dims) == 1 else 1.0
    h = n // 2 + 1
    for o in range(outer):
        sb = o * n * inner
        db = o * m * inner
        for k in range(h):
            for i in range(inner):
                sr = 0.0
                si = 0.0
                e = 0
                p = sb + i
                for _ in range(n):
                    x = s[p]
                    sr += x * wr[e]
                    si += x * wi[e]
                    p += inner
                    e += k
                    if e >= n:
                        e -= n
                t[db + k * inner + i] = complex(sr * scale, si * scale * g)
        for k in range(h, m):
            for i in range(inner):
                t[db + k * inner + i] = t[db + (n - k) * inner + i].conjugate()
    for q in range(len(dims) - 2, -1, -1):
        _c2c_inplace(t, dst.shape, dims[q], False, norm, neg if q == 0 else 1.0, wr, wi, col)
    return True


@kernel
def c2r_nd(src, dst, dims, norm):
    """Real dst from complex src over ``dims``: inverse c2c over all but the last (in order),
    then along the last n = dst.shape[d] real points from the half spectrum (n // 2 + 1 bins):
    the inverse sum over the bins and their mirrors' conjugates, the imaginary parts of X[0]
    (and of X[n / 2], n even) ignored, as pocketfft's c2r."""
    if not _complex_finite(src.reshape(-1)):
        return False
    d = dims[-1]
    n = dst.shape[d]
    mx = n
    for dd in dims:
        mx = max(mx, src.shape[dd])
    wr = np.empty(mx)
    wi = np.empty(mx)
    w = src.copy()
    s = w.reshape(-1)
    if len(dims) > 1:
        col = np.empty(mx, src.dtype)
        for q in range(len(dims) - 1):
            _c2c_inplace(s, src.shape, dims[q], True, norm, 1.0, wr, wi, col)
    outer, inner = _split(dst.shape, d)
    t = dst.reshape(-1)
    scale = _roots(n, True, norm, wr, wi)
    h = n // 2 + 1
    top = (n + 1) // 2  # bins 1..top-1 stand for themselves and their mirrors
    for o in range(outer):
        sb = o * h * inner
        db = o * n * inner
        for j in range(n):
            for i in range(inner):
                acc = s[sb + i].real + 0.0
                e = 0
                for k in range(1, top):
                    e += j
                    if e >= n:
                        e -= n
                    x = s[sb + k * inner + i]
                    acc += 2.0 * (x.real * wr[e] - x.imag * wi[e])
                if n % 2 == 0:
                    v = s[sb + (h - 1) * inner + i].real + 0.0
                    acc += v if j % 2 == 0 else -v
                t[db + j * inner + i] = acc * scale
    return True
