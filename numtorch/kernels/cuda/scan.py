"""Scans (cumsum, cumprod, logcumsumexp, cummax, cummin), cumprod's gradient with zeros, and prod
as CUDA kernels. prod reduces contiguous rows (the caller moves the dim last) with a
shared-memory tree as the sums of reduction.py, float64 / int64 / complex128 accumulators.

# Note [CUDA scans]
# A contiguous input is (outer, n, inner) around the scanned dim of length n. With inner > 1
# (the dim is not last) a thread walks each line (o, c) in the CPU kernel's sequential order:
# neighbouring threads are neighbouring columns, so every step's loads and stores of a warp are
# consecutive addresses, with no copy to move the dim. With the dim last (inner == 1) that
# layout would put each thread's elements n apart, and there are few lines to spread over the
# GPU; there a block scans each row instead: it walks the row in chunks of blockDim *
# SCAN_ITEMS elements, loaded coalesced into shared memory; each thread scans its SCAN_ITEMS
# consecutive ones sequentially, a Hillis-Steele scan (log2(blockDim) steps) of the threads'
# totals gives each run its offset, and the chunk's running total is carried to the next (one
# element per thread and a Hillis-Steele pass per blockDim elements cost 8 barriers per 256:
# 0.5 ms for one row of 16M on an H200). Floats accumulate in float64 (the scan's order then
# rounds as closely as the CPU's sequential float32 sums), integer sums and products in int64
# (exact, wrapping as the CPU's); complex rows take the line kernels. A few long rows are cut into k chunks per
# row so that more blocks run (reduce, then scan): a first pass reduces each chunk to its
# total (the scan's staged passes without the stores: their loads are in flight together), the totals are scanned per row, and a second pass scans each chunk from the total of
# those before it. The identities: -0.0 for sums (-0.0 + x is x, even for x = -0.0), 1 for
# products, -inf for logaddexp, and for cummax / cummin the first candidate always wins.
"""

from __future__ import annotations

import math

from numba import complex128, cuda, float64, int64

from .._jit import cuda_device, cuda_kernel
from . import _SIM, RED_THREADS
from .devmath import complex_log1p, cuda_exp

SCAN_THREADS = 4 if _SIM else 256  # the block scan's threads at most (a power of two)
SCAN_ITEMS = 2 if _SIM else 8  # the row scans (_cum_rows): consecutive elements each thread scans per pass
_BUF = SCAN_THREADS * SCAN_ITEMS + SCAN_THREADS * SCAN_ITEMS // 16  # with _pad's slots


@cuda_kernel
def cumprod_grad_cols(cols, x, g, out, n):
    # dx_k = prod(x_j, j < k) * S_k with S_k = g_k + x_{k+1} * S_{k+1}: exact with zeros, no division
    c = cuda.grid(1)
    if c < cols:
        s = 0.0
        for j in range(n - 1, -1, -1):
            s = g[j * cols + c] + (x[(j + 1) * cols + c] * s if j < n - 1 else 0.0)
            out[j * cols + c] = s
        e = 1.0
        for j in range(n):
            out[j * cols + c] *= e
            e *= x[j * cols + c]


# Note [One reduction body per dtype family]: a shared-memory array's dtype must be a
# compile-time constant, so each accumulator dtype has its own kernel; those only allocate the
# tree's array and hand it, with the accumulator's one, to the single body _prod_rows.
@cuda_kernel
def prod_rows_float(x, rows, n, k, out):
    _prod_rows(x, rows, n, k, out, cuda.shared.array(RED_THREADS, float64), float64(1.0))


@cuda_kernel
def prod_rows_int(x, rows, n, k, out):
    _prod_rows(x, rows, n, k, out, cuda.shared.array(RED_THREADS, int64), int64(1))


@cuda_kernel
def prod_rows_complex(x, rows, n, k, out):
    _prod_rows(x, rows, n, k, out, cuda.shared.array(RED_THREADS, complex128), complex128(1.0))


@cuda_device
def _prod_rows(x, rows, n, k, out, acc, one):
    # out[row * k + chunk]: the product of one chunk of a row (reduction.py's layout), in acc's type
    t = cuda.threadIdx.x
    for b in range(cuda.blockIdx.x, rows * k, cuda.gridDim.x):
        m = (n + k - 1) // k
        lo = (b % k) * m
        hi = min(lo + m, n)
        s = one
        for j in range(lo + t, hi, RED_THREADS):
            s *= x[(b // k) * n + j]
        acc[t] = s
        cuda.syncthreads()
        step = RED_THREADS // 2
        while step > 0:
            if t < step:
                acc[t] *= acc[t + step]
            cuda.syncthreads()
            step //= 2
        if t == 0:
            out[b] = acc[0]
        cuda.syncthreads()




# ---- line scans: a thread per (outer, inner) line, sequential ---------------------------------
@cuda_kernel
def cum_lines(total, x, out, outer, n, inner, prod, zero):
    # cumsum / cumprod; ``zero`` (-0.0, or int64 / complex128 zero) sets the accumulator's type
    i = cuda.grid(1)
    if i < total:
        p = _line_start(i, n, inner)
        s = zero + x[p]
        out[p] = s
        for _ in range(1, n):
            p += inner
            s = s * x[p] if prod else s + x[p]
            out[p] = s


@cuda_kernel
def lse_lines(total, x, out, outer, n, inner):
    i = cuda.grid(1)
    if i < total:
        p = _line_start(i, n, inner)
        s = float64(x[p])
        out[p] = s
        for _ in range(1, n):
            p += inner
            s = _lae(s, float64(x[p]))
            out[p] = s


@cuda_kernel
def lse_lines_complex(total, x, out, outer, n, inner):
    # the CPU's complex scan (numtorch/ops/pointwise/special.py _clae): the running value starts
    # at -inf + 0j and every element, the first too, passes through PyTorch's helper
    i = cuda.grid(1)
    if i < total:
        p = _line_start(i, n, inner)
        s = complex128(complex(-math.inf, 0.0))
        for _ in range(n):
            s = _clae(s, complex128(x[p]))
            out[p] = s
            p += inner


@cuda_device
def _clae(x, y):
    if x != x or y != y:  # a NaN in either part of either
        return complex128(complex(math.nan, math.nan))
    lo, hi = (x, y) if x.real <= y.real else (y, x)
    if not math.isfinite(lo.real) and lo.real == hi.real:
        if lo.real < 0:
            return complex128(complex(lo.real, 0.0))
        if lo.real > 0:
            z = cuda_exp(x) + cuda_exp(y)
            return complex128(complex(math.log(abs(z)), math.atan2(z.imag, z.real)))
    return complex_log1p(cuda_exp(lo - hi)) + hi


@cuda_kernel
def cumext_lines(total, x, vo, io, outer, n, inner, largest):
    # cummax / cummin, the CPU kernel's rule: a NaN takes over (each later NaN takes its index),
    # ties move the index forward (PyTorch's >= / <=)
    i = cuda.grid(1)
    if i < total:
        p = _line_start(i, n, inner)
        b = x[p]
        at = 0
        vo[p] = b
        io[p] = 0
        for j in range(1, n):
            p += inner
            v = x[p]
            if _takes(b, v, largest):
                b = v
                at = j
            vo[p] = b
            io[p] = at


@cuda_device
def _line_start(i, n, inner):
    # line i of an (outer, n, inner) array: its first element's offset
    o = i // inner
    return o * n * inner + (i - o * inner)


@cuda_device
def _takes(b, v, largest):
    """Whether a running max (min) ``b`` gives way to the later candidate ``v``: associative,
    so the block scans combine partial results with it too (a NaN partial is its last NaN)."""
    return v != v or (b == b and (v >= b if largest else v <= b))


@cuda_device
def _lae(s, v):
    # the CPU's np.logaddexp: max + log1p(exp(-|a - b|)), equal infinities kept, NaN propagated
    if s == v and math.isinf(s):
        return s + v
    if s != s or v != v:
        return s + v
    return max(s, v) + math.log1p(math.exp(-abs(s - v)))


@cuda_device
def _add(a, b):
    return a + b


@cuda_device
def _mul(a, b):
    return a * b


# ---- block scans of contiguous rows (Note [CUDA scans]) ----------------------------------------
# One kernel per op and accumulator type, each handing its combine (a device function), its
# accumulator's zero and identity and shared arrays to the one body: the combine is resolved
# when the kernel compiles, so a sum's kernel carries no logaddexp (a kernel taking the op as
# an argument kept every op's code: 92 registers a thread for all of them), and an integer
# kernel accumulates in int64, exactly. One shared array a line: the simulator tells them
# apart by the line that allocates them (two on one line were one array there).
@cuda_kernel
def cum_rows_sum(x, out, rows, n, k, part, phase):
    buf = cuda.shared.array(_BUF, float64)
    tot = cuda.shared.array(SCAN_THREADS, float64)
    _cum_rows(x, out, rows, n, k, part, phase, _add, float64(-0.0), float64(-0.0), buf, tot)


@cuda_kernel
def cum_rows_prod(x, out, rows, n, k, part, phase):
    buf = cuda.shared.array(_BUF, float64)
    tot = cuda.shared.array(SCAN_THREADS, float64)
    _cum_rows(x, out, rows, n, k, part, phase, _mul, float64(-0.0), float64(1.0), buf, tot)


@cuda_kernel
def cum_rows_lse(x, out, rows, n, k, part, phase):
    buf = cuda.shared.array(_BUF, float64)
    tot = cuda.shared.array(SCAN_THREADS, float64)
    _cum_rows(x, out, rows, n, k, part, phase, _lae, float64(-0.0), float64(-math.inf), buf, tot)


@cuda_kernel
def cum_rows_int_sum(x, out, rows, n, k, part, phase):
    buf = cuda.shared.array(_BUF, int64)
    tot = cuda.shared.array(SCAN_THREADS, int64)
    _cum_rows(x, out, rows, n, k, part, phase, _add, int64(0), int64(0), buf, tot)


@cuda_kernel
def cum_rows_int_prod(x, out, rows, n, k, part, phase):
    buf = cuda.shared.array(_BUF, int64)
    tot = cuda.shared.array(SCAN_THREADS, int64)
    _cum_rows(x, out, rows, n, k, part, phase, _mul, int64(0), int64(1), buf, tot)


@cuda_device
def _cum_rows(x, out, rows, n, k, part, phase, comb, zero, ident, buf, tot):
    # phase 0 the whole scan, 1 chunk totals into part (the same passes, nothing stored), 2 the
    # scan of each chunk from part's inclusive total of the chunks before it
    T = cuda.blockDim.x
    t = cuda.threadIdx.x
    S = T * SCAN_ITEMS
    m = (((n + k - 1) // k + S - 1) // S) * S
    for b in range(cuda.blockIdx.x, rows * k, cuda.gridDim.x):
        r = b // k
        lo = (b - r * k) * m
        hi = min(lo + m, n)
        base = r * n
        carry = part[b - 1] if phase == 2 and lo > 0 else ident
        for c0 in range(lo, hi, S):
            for i in range(SCAN_ITEMS):  # coalesced loads into shared memory
                j = c0 + i * T + t
                # a load in bounds either way, no branch: the pass's loads are in flight together
                u = zero + x[base + min(j, hi - 1)]  # the accumulator's type (-0.0 + x is x)
                buf[_pad(i * T + t)] = u if j < hi else ident
            cuda.syncthreads()
            v = ident
            for i in range(SCAN_ITEMS):  # each thread scans its SCAN_ITEMS consecutive elements
                e = _pad(t * SCAN_ITEMS + i)
                v = comb(v, buf[e])
                buf[e] = v
            _block_scan(tot, v, t, T, comb)  # the threads' totals
            if phase != 1:
                pre = comb(carry, tot[t - 1]) if t > 0 else carry
                for i in range(SCAN_ITEMS):
                    e = _pad(t * SCAN_ITEMS + i)
                    buf[e] = comb(pre, buf[e])
            carry = comb(carry, tot[T - 1])
            cuda.syncthreads()
            if phase != 1:
                for i in range(SCAN_ITEMS):  # coalesced stores
                    j = c0 + i * T + t
                    if j < hi:
                        out[base + j] = buf[_pad(i * T + t)]
                cuda.syncthreads()  # every thread read buf before the next pass writes it
        if phase == 1 and t == 0:
            part[b] = carry


@cuda_device
def _pad(e):
    # a shared-memory slot one float64 apart every 16: thread t's run of SCAN_ITEMS at
    # t * SCAN_ITEMS would otherwise put a warp's loads in two banks
    return e + e // 16


@cuda_device
def _block_scan(tot, v, t, T, comb):
    """The inclusive Hillis-Steele scan of the block's values ``v`` in ``tot`` (T <= SCAN_THREADS,
    a power of two): returns thread t's, every slot readable after it (it ends on a barrier)."""
    tot[t] = v
    cuda.syncthreads()
    off = 1
    while off < T:
        w = comb(tot[t - off], v) if t >= off else v
        cuda.syncthreads()
        tot[t] = w
        v = w
        cuda.syncthreads()
        off *= 2
    return v


@cuda_kernel
def cumext_rows_float(x, vo, io, rows, n, largest):
    _cumext_rows(x, vo, io, rows, n, largest, cuda.shared.array(SCAN_THREADS, float64),
                 cuda.shared.array(SCAN_THREADS, int64), float64(-math.inf if largest else math.inf))


@cuda_kernel
def cumext_rows_int(x, vo, io, rows, n, largest, init):
    # init: the identity (int64 min for a max, max for a min)
    _cumext_rows(x, vo, io, rows, n, largest, cuda.shared.array(SCAN_THREADS, int64),
                 cuda.shared.array(SCAN_THREADS, int64), int64(init))


@cuda_device
def _cumext_rows(x, vo, io, rows, n, largest, bv, bi, ident):
    # a (value, index) pair scan: the later pair wins when _takes says so; padding after the row
    # carries the identity at index -1, which never wins
    T = cuda.blockDim.x
    t = cuda.threadIdx.x
    for r in range(cuda.blockIdx.x, rows, cuda.gridDim.x):
        base = r * n
        cv = ident
        ci = int64(-1)
        for c0 in range(0, n, T):
            j = c0 + t
            v = x[base + j] if j < n else ident
            at = int64(j) if j < n else int64(-1)
            bv[t] = v
            bi[t] = at
            cuda.syncthreads()
            off = 1
            while off < T:
                pv = v
                pi = at
                if t >= off:
                    qv = bv[t - off]
                    qi = bi[t - off]
                    if at < 0 or (qi >= 0 and not _takes(qv, v, largest)):
                        pv = qv
                        pi = qi
                cuda.syncthreads()
                bv[t] = pv
                bi[t] = pi
                v = pv
                at = pi
                cuda.syncthreads()
                off *= 2
            if ci >= 0 and (at < 0 or not _takes(cv, v, largest)):
                v = cv
                at = ci
            if j < n:
                vo[base + j] = v
                io[base + j] = at
            lv = bv[T - 1]
            li = bi[T - 1]
            if li >= 0 and (ci < 0 or _takes(cv, lv, largest)):
                cv = lv
                ci = li
            cuda.syncthreads()
