"""Direct DFTs of short single-precision signals along one axis of a C-contiguous array, summed
in float64 (Note [Direct DFT of small single-precision transforms], numtorch/ops/fft_dft.py).

Every kernel reads its operand as (outer, n, inner) with the signal along the middle axis, as
flat float arrays (a complex array as its float pairs); ``wr``/``wi`` are the float64 roots
w[e] = exp(-+2 pi i e / n) (the sign picks the direction), conjugate-symmetric, and ``scale``
the normalisation factor.
"""

from __future__ import annotations

from numtorch.kernels._jit import kernel


@kernel
def c2c_dft(src, dst, outer, n, inner, wr, wi, scale, neg):
    """dst[o, k, i] = scale * sum_j src[o, j, i] * w[j * k mod n] (complex float pairs), its
    imaginary part times ``neg`` (-1: the conjugate)."""
    for o in range(outer):
        base = o * n * inner
        for k in range(n):
            for i in range(inner):
                sr = 0.0
                si = 0.0
                e = 0
                p = 2 * (base + i)
                for _ in range(n):
                    xr = src[p]
                    xi = src[p + 1]
                    cr = wr[e]
                    ci = wi[e]
                    sr += xr * cr - xi * ci
                    si += xr * ci + xi * cr
                    p += 2 * inner
                    e += k
                    if e >= n:
                        e -= n
                q = 2 * (base + k * inner + i)
                dst[q] = sr * scale
                dst[q + 1] = si * scale * neg


@kernel
def r2c_dft(src, dst, outer, n, inner, m, wr, wi, scale, neg):
    """The first h = n // 2 + 1 bins of real src[o, :, i] into dst[o, :m, i] (m = h, or m = n:
    the rest the conjugates of their mirrors, as the Hermitian fill writes them); imaginary parts times ``neg``."""
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
                    x = src[p]
                    sr += x * wr[e]
                    si += x * wi[e]
                    p += inner
                    e += k
                    if e >= n:
                        e -= n
                q = 2 * (db + k * inner + i)
                dst[q] = sr * scale
                dst[q + 1] = si * scale * neg
        for k in range(h, m):
            for i in range(inner):
                q = 2 * (db + k * inner + i)
                s = 2 * (db + (n - k) * inner + i)
                dst[q] = dst[s]
                dst[q + 1] = -dst[s + 1]


@kernel
def c2r_dft(src, dst, outer, n, inner, wr, wi, scale):
    """Real dst[o, :, i] (n points) from the half spectrum src[o, :n // 2 + 1, i]: the inverse
    sum over the bins and their mirrors' conjugates, imaginary parts of X[0] (and of X[n / 2],
    n even) ignored, as pocketfft's c2r."""
    h = n // 2 + 1
    top = (n + 1) // 2  # bins 1..top-1 stand for themselves and their mirrors
    for o in range(outer):
        sb = o * h * inner
        db = o * n * inner
        for j in range(n):
            for i in range(inner):
                s = src[2 * (sb + i)] + 0.0
                e = 0
                for k in range(1, top):
                    e += j
                    if e >= n:
                        e -= n
                    p = 2 * (sb + k * inner + i)
                    s += 2.0 * (src[p] * wr[e] - src[p + 1] * wi[e])
                if n % 2 == 0:
                    v = src[2 * (sb + (h - 1) * inner + i)] + 0.0
                    s += v if j % 2 == 0 else -v
                dst[db + j * inner + i] = s * scale
