"""Direct DFTs of short single-precision signals along one axis ``d`` of C-contiguous arrays,
summed in float64 (Note [Direct DFT of small single-precision transforms], ops/fft_dft.py).

Each kernel reads its operands as (outer, n, inner) with the signal along the middle axis
(flattened inside: no views to build in Python); ``wr``/``wi`` are the float64 roots
w[e] = exp(-+2 pi i e / n) (the sign picks the direction), conjugate-symmetric, ``scale`` the
normalisation factor and ``neg`` -1.0 to store the conjugate (1.0 otherwise).
"""

from __future__ import annotations

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


@kernel
def c2c_dft(src, dst, d, wr, wi, scale, neg):
    """dst[o, k, i] = scale * sum_j src[o, j, i] * w[j * k mod n] (complex)."""
    n = src.shape[d]
    outer, inner = _split(src.shape, d)
    s = src.reshape(-1)
    t = dst.reshape(-1)
    for o in range(outer):
        base = o * n * inner
        for k in range(n):
            for i in range(inner):
                sr = 0.0
                si = 0.0
                e = 0
                p = base + i
                for _ in range(n):
                    x = s[p]
                    cr = wr[e]
                    ci = wi[e]
                    sr += x.real * cr - x.imag * ci
                    si += x.real * ci + x.imag * cr
                    p += inner
                    e += k
                    if e >= n:
                        e -= n
                t[base + k * inner + i] = complex(sr * scale, si * scale * neg)


@kernel
def r2c_dft(src, dst, d, wr, wi, scale, neg):
    """The first h = n // 2 + 1 bins of real src[o, :, i] into dst[o, :m, i] (m = dst.shape[d]:
    h, or n with the rest the conjugates of their mirrors, as the Hermitian fill writes them)."""
    n = src.shape[d]
    m = dst.shape[d]
    outer, inner = _split(src.shape, d)
    s = src.reshape(-1)
    t = dst.reshape(-1)
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
                t[db + k * inner + i] = complex(sr * scale, si * scale * neg)
        for k in range(h, m):
            for i in range(inner):
                t[db + k * inner + i] = t[db + (n - k) * inner + i].conjugate()


@kernel
def c2r_dft(src, dst, d, wr, wi, scale):
    """Real dst[o, :, i] (n = dst.shape[d] points) from the half spectrum src[o, :n // 2 + 1, i]:
    the inverse sum over the bins and their mirrors' conjugates, the imaginary parts of X[0]
    (and of X[n / 2], n even) ignored, as pocketfft's c2r."""
    n = dst.shape[d]
    outer, inner = _split(dst.shape, d)
    s = src.reshape(-1)
    t = dst.reshape(-1)
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
