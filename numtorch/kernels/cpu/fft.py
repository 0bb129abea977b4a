"""Power-of-two FFT kernels: a four-step transform over blocks of columns, each column FFT a
Stockham autosort radix-4 (+ one radix-2 stage) whose inner loop runs over the block's lanes.

# Note [Four-step FFT over column blocks]
# A length n = n1 * n2 transform of x (read as an n1 x n2 row-major matrix A) is
#   1. an n1-point FFT down each column of A,           B[k1, j2]
#   2. times the twiddle w_n^(j2 * k1),                 (j2 * k1 < n: no modular reduction)
#   3. transposed into D[j2, k1] (n2 x n1),
#   4. an n2-point FFT down each column of D,           X[k1 + n1 * k2] = D'[k2, k1]
# which leaves X in natural order. Columns go bw at a time through a small scratch block
# (n1 x bw, split real/imag), where every Stockham stage's inner loop is s * bw contiguous
# numbers of one precision: LLVM turns it into full-width vector code, and the block stays in
# cache, so the whole transform reads and writes main memory about four times (a plain Stockham
# of 2**20 points makes ten passes).
# An inverse transform is the forward one with re and im swapped on the way in and out
# (ifft(x) = swap(fft(swap(x)))). Twiddles come from tables in the data's precision
# (numtorch/ops/fft.py caches them per size): w_m^k for the Stockham stages of length m, and
# for the large roots products of two small tables (w_n^e = hi[e >> lb] * lo[e & mask]), so no
# table grows with n as fast as n.
"""

from __future__ import annotations

from numtorch.kernels._jit import kernel


@kernel
def stockham(xr, xi, yr, yi, m, lanes, twr, twi):
    """An m-point FFT down each of ``lanes`` columns of the (m, lanes) block x, y the scratch;
    returns True when the result ended in y."""
    ns = m
    s = 1
    in_y = False
    while ns >= 4:
        q = ns // 4
        st = m // ns
        sl = s * lanes
        ar, ai, br, bi = (yr, yi, xr, xi) if in_y else (xr, xi, yr, yi)
        for p in range(q):
            w1r, w1i = twr[p * st], twi[p * st]
            w2r, w2i = twr[2 * p * st], twi[2 * p * st]
            w3r, w3i = twr[3 * p * st], twi[3 * p * st]
            a0 = p * sl
            b0 = a0 + q * sl
            c0 = b0 + q * sl
            e0 = c0 + q * sl
            o0 = 4 * p * sl
            # slices, not offsets into ar/ai: measured 2x faster (and quicker to compile)
            sar, sai = ar[a0 : a0 + sl], ai[a0 : a0 + sl]
            sbr, sbi = ar[b0 : b0 + sl], ai[b0 : b0 + sl]
            scr, sci = ar[c0 : c0 + sl], ai[c0 : c0 + sl]
            sdr, sdi = ar[e0 : e0 + sl], ai[e0 : e0 + sl]
            d0r, d0i = br[o0 : o0 + sl], bi[o0 : o0 + sl]
            d1r, d1i = br[o0 + sl : o0 + 2 * sl], bi[o0 + sl : o0 + 2 * sl]
            d2r, d2i = br[o0 + 2 * sl : o0 + 3 * sl], bi[o0 + 2 * sl : o0 + 3 * sl]
            d3r, d3i = br[o0 + 3 * sl : o0 + 4 * sl], bi[o0 + 3 * sl : o0 + 4 * sl]
            for t in range(sl):
                pr = sar[t] + scr[t]
                pi = sai[t] + sci[t]
                mr = sar[t] - scr[t]
                mi = sai[t] - sci[t]
                qr = sbr[t] + sdr[t]
                qi = sbi[t] + sdi[t]
                dr = sbr[t] - sdr[t]
                di = sbi[t] - sdi[t]
                d0r[t] = pr + qr
                d0i[t] = pi + qi
                ur = mr + di  # (a - c) - i (b - d)
                ui = mi - dr
                d1r[t] = w1r * ur - w1i * ui
                d1i[t] = w1r * ui + w1i * ur
                ur = pr - qr
                ui = pi - qi
                d2r[t] = w2r * ur - w2i * ui
                d2i[t] = w2r * ui + w2i * ur
                ur = mr - di  # (a - c) + i (b - d)
                ui = mi + dr
                d3r[t] = w3r * ur - w3i * ui
                d3i[t] = w3r * ui + w3i * ur
        in_y = not in_y
        ns = q
        s *= 4
    if ns == 2:
        sl = s * lanes
        ar, ai, br, bi = (yr, yi, xr, xi) if in_y else (xr, xi, yr, yi)
        for t in range(sl):
            br[t] = ar[t] + ar[sl + t]
            bi[t] = ai[t] + ai[sl + t]
            br[sl + t] = ar[t] - ar[sl + t]
            bi[sl + t] = ai[t] - ai[sl + t]
        in_y = not in_y
    return in_y


@kernel
def c2c_pow2(src, s_row, dst, d_row, inv, nb, n1, n2, bw, ld,
             t1r, t1i, t2r, t2i, tbr, tbi, tlr, tli, scale, dbuf, xr, xi, yr, yi):  # fmt: skip
    """``nb`` FFTs of n1 * n2 points (Note [Four-step FFT over column blocks]), inverse (without
    its 1/n) when ``inv``: rows of interleaved complex, row b of the input at src[b * s_row:],
    of the output at dst[b * d_row:], times ``scale``. t1/t2: the w_n1 / w_n2 tables; the step-2
    twiddle w_n^(k1 (c0 + l)) of column block c0 is tb[k1, c0 / bw] * tl[k1, l]. dbuf holds D,
    rows ``ld`` apart (padded: a power-of-two stride maps a block's rows onto few cache sets);
    x and y (max(n1, n2) * bw each) are the block and its Stockham scratch."""
    w1 = min(bw, n2)
    w2 = min(bw, n1)
    nblk = n2 // w1
    dr = dbuf[: n2 * ld]
    di = dbuf[n2 * ld : 2 * n2 * ld]
    gr, gi = (xi, xr) if inv else (xr, xi)
    for b in range(nb):
        sb = b * s_row
        db = b * d_row
        for c0 in range(0, n2, w1):
            for r in range(n1):
                row = src[sb + 2 * (r * n2 + c0) : sb + 2 * (r * n2 + c0 + w1)]
                for ln in range(w1):
                    gr[r * w1 + ln] = row[2 * ln]
                    gi[r * w1 + ln] = row[2 * ln + 1]
            in_y = stockham(xr, xi, yr, yi, n1, w1, t1r, t1i)
            ar, ai = (yr, yi) if in_y else (xr, xi)
            blk = c0 // w1
            for k1 in range(n1):
                br = tbr[k1 * nblk + blk]
                bi = tbi[k1 * nblk + blk]
                for ln in range(w1):
                    wr = br * tlr[k1 * w1 + ln] - bi * tli[k1 * w1 + ln]
                    wi = br * tli[k1 * w1 + ln] + bi * tlr[k1 * w1 + ln]
                    vr = ar[k1 * w1 + ln]
                    vi = ai[k1 * w1 + ln]
                    ar[k1 * w1 + ln] = vr * wr - vi * wi
                    ai[k1 * w1 + ln] = vr * wi + vi * wr
            for ln in range(w1):
                rowr = dr[(c0 + ln) * ld : (c0 + ln) * ld + n1]
                rowi = di[(c0 + ln) * ld : (c0 + ln) * ld + n1]
                for k1 in range(n1):
                    rowr[k1] = ar[k1 * w1 + ln]
                    rowi[k1] = ai[k1 * w1 + ln]
        for k0 in range(0, n1, w2):
            for r in range(n2):  # an explicit loop: slice assignment costs seconds of compile
                for ln in range(w2):
                    xr[r * w2 + ln] = dr[r * ld + k0 + ln]
                    xi[r * w2 + ln] = di[r * ld + k0 + ln]
            in_y = stockham(xr, xi, yr, yi, n2, w2, t2r, t2i)
            ar, ai = (yr, yi) if in_y else (xr, xi)
            if inv:
                ar, ai = ai, ar
            for r in range(n2):
                row = dst[db + 2 * (r * n1 + k0) : db + 2 * (r * n1 + k0 + w2)]
                for ln in range(w2):
                    row[2 * ln] = ar[r * w2 + ln] * scale
                    row[2 * ln + 1] = ai[r * w2 + ln] * scale


@kernel
def r2c_post(z, h, dst, d_row, full, nb, hir, hii, lor, loi, lb, scale):
    """The spectrum of real rows of n = 2h points from z = the h-point FFT of (even + i odd)
    samples (rows of h interleaved complex):
    X[k] = E[k] + w_n^k O[k], E = (Z[k] + conj Z[h-k]) / 2, O = -i (Z[k] - conj Z[h-k]) / 2.
    dst rows are interleaved complex of d_row floats: k = 0..h, and with ``full`` also
    X[n-k] = conj X[k] (PyTorch's onesided=False); all times ``scale``. k runs as
    (k >> lb, k & mask) so that w_n^k = hi * lo reads the lo table contiguously."""
    nlo = 1 << lb
    n = 2 * h
    half = scale * 0.5
    for b in range(nb):
        zr = z[b]
        o = dst[b * d_row : (b + 1) * d_row]
        o[0] = (zr[0] + zr[1]) * scale
        o[1] = 0.0
        o[2 * h] = (zr[0] - zr[1]) * scale
        o[2 * h + 1] = 0.0
        for hh in range((h + nlo - 1) // nlo):
            br = hir[hh]
            bi = hii[hh]
            for lo in range(max(1 - hh * nlo, 0), min(nlo, h - hh * nlo)):
                k = hh * nlo + lo
                wr = br * lor[lo] - bi * loi[lo]
                wi = br * loi[lo] + bi * lor[lo]
                ar = zr[2 * k]
                ai = zr[2 * k + 1]
                cr = zr[2 * (h - k)]
                ci = -zr[2 * (h - k) + 1]
                er = ar + cr
                ei = ai + ci
                gr = ai - ci  # O = -i (A - C) / 2
                gi = cr - ar
                xr = (er + (wr * gr - wi * gi)) * half
                xi = (ei + (wr * gi + wi * gr)) * half
                o[2 * k] = xr
                o[2 * k + 1] = xi
                if full:
                    o[2 * (n - k)] = xr
                    o[2 * (n - k) + 1] = -xi


@kernel
def c2r_pre(src, s_row, h, z, nb, hir, hii, lor, loi, lb):
    """The h-point spectrum Z whose inverse FFT is n * (even + i odd) samples of the real signal
    with half spectrum X (rows of h + 1 interleaved complex, imaginary parts of X[0] and X[h]
    ignored, as pocketfft and MKL do):
    Z[k] = (X[k] + conj X[h-k]) + i conj(w_n^k) (X[k] - conj X[h-k]).
    z rows are interleaved complex (2h floats)."""
    nlo = 1 << lb
    for b in range(nb):
        x = src[b * s_row : b * s_row + 2 * h + 2]
        o = z[b]
        x0 = x[0]
        xh = x[2 * h]
        o[0] = x0 + xh
        o[1] = x0 - xh
        for hh in range((h + nlo - 1) // nlo):
            br = hir[hh]
            bi = hii[hh]
            for lo in range(max(1 - hh * nlo, 0), min(nlo, h - hh * nlo)):
                k = hh * nlo + lo
                wr = br * lor[lo] - bi * loi[lo]
                wi = -(br * loi[lo] + bi * lor[lo])
                ar = x[2 * k]
                ai = x[2 * k + 1]
                cr = x[2 * (h - k)]
                ci = -x[2 * (h - k) + 1]
                sr = ar + cr
                si = ai + ci
                dr = ar - cr
                di = ai - ci
                tr = wr * dr - wi * di
                ti = wr * di + wi * dr
                o[2 * k] = sr - ti  # + i (tr + i ti)
                o[2 * k + 1] = si + tr


@kernel
def hermitian_rows(half, full):
    """The full spectra of real rows from their halves, as interleaved floats: row b of ``half``
    holds h complex values X[0..h), row b of ``full`` gets n = full.shape[1] // 2 values, X[k]
    for k < h and conj(X[n - k]) after (ops/_pocketfft.py hermitian_fill's last-axis case)."""
    h = half.shape[1] // 2
    n = full.shape[1] // 2
    for b in range(half.shape[0]):
        src = half[b]
        dst = full[b]
        for k in range(2 * h):
            dst[k] = src[k]
        for k in range(h, n):
            dst[2 * k] = src[2 * (n - k)]
            dst[2 * k + 1] = -src[2 * (n - k) + 1]


@kernel
def roll2d(a, k0, k1, out):
    """out[(i + k0) % rows, (j + k1) % cols] = a[i, j] for 0 <= k0 < rows, 0 <= k1 < cols
    (fftshift of a matrix of short rows: NumPy's slice copies loop over a few values a row)."""
    rows, cols = a.shape
    for i in range(rows):
        src = a[i]
        dst = out[(i + k0) % rows]
        for j in range(cols - k1):
            dst[j + k1] = src[j]
        for j in range(cols - k1, cols):
            dst[j + k1 - cols] = src[j]


@kernel
def hermitian_blocks(half, full, m, conj):
    """The full spectra from their halves over the last axis of (rows, h) complex ``half``, in
    blocks of ``m`` rows: full[r, k] = half[r, k] for k < h and, for h <= k < n = full.shape[1],
    conj(half[r', n - k]) with r' the row -i mod m of r's block (r = block start + i; m = 1:
    r itself, only the last axis transformed) (ops/_pocketfft.py hermitian_fill's small cases);
    with ``conj`` the conjugate of that (an inverse transform of a real signal)."""
    h = half.shape[1]
    n = full.shape[1]
    for r in range(half.shape[0]):
        src = half[r]
        dst = full[r]
        i = r % m
        mir = half[r - i + (m - i) % m]
        if conj:
            for k in range(h):
                dst[k] = src[k].conjugate()
            for k in range(h, n):
                dst[k] = mir[n - k]
        else:
            for k in range(h):
                dst[k] = src[k]
            for k in range(h, n):
                dst[k] = mir[n - k].conjugate()
