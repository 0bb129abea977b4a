"""NumPy's pocketfft gufuncs called as np.fft.fftn / rfftn / irfftn call them, without their
Python layers, and the Hermitian fill of a real signal's full spectrum.

# Note [pocketfft without np.fft's wrappers]
# np.fft.rfftn on a (4, 6) float32 array spent ~10 us, of which the transform (the gufunc) ~3:
# the rest was _cook_nd_args, __array_function__ dispatch, the normalisation factor and
# empty_like, once per transformed axis. These functions make the same gufunc calls in the
# same order with the same factor (_raw_fft's: 1, 1/sqrt(n) or 1/n computed in the real dtype
# as a NumPy scalar, per axis of n points), so the results are np.fft's bit for bit
# (tests/ops/test_fft_fast.py compares them over layouts, dtypes, norms and odd sizes), except
# single precision without normalisation, which runs pocketfft's float32 loop (np.fft's int 1
# picks the float64 one: see _fct); the outputs are C-contiguous, as the ops return them.
"""

from __future__ import annotations

import numpy as np

try:  # NumPy >= 2.0: the gufuncs np.fft calls
    from numpy.fft import _pocketfft_umath as _pfu
except ImportError:  # NumPy 1.x: np.fft itself (complex128 inside; the result cast back)
    _pfu = None

from ..kernels import lazy

_K = lazy("numtorch.kernels.cpu.fft")

_empty = np.empty
_FCT: dict = {}
_REAL = {"F": np.float32, "D": np.float64, "f": np.float32, "d": np.float64}
_CPLX = {"f": np.complex64, "d": np.complex128, "F": np.complex64, "D": np.complex128}


def _fct(normalization: int, n: int, rd):
    """np.fft's factor for ``normalization`` 0 (none), 1 (1/sqrt(n)) or 2 (1/n), as _raw_fft."""
    key = (normalization, n, rd)
    f = _FCT.get(key)
    if f is None:
        if n < 1:  # only an op called directly gets here: np.fft's error
            raise ValueError(f"Invalid number of FFT data points ({n}) specified.")
        if normalization == 0:
            # np.fft's factor is the Python int 1, which resolves the gufunc's float64 loop: a
            # float32 input was transformed in float64 (casting buffers in and out) and
            # rounded into the complex64 output. A 1.0 of the real dtype picks the float32
            # loop for single precision, as the 1/n and 1/sqrt(n) factors always did and as
            # PyTorch computes: ~0.65 us less a transformed axis on a small input, values
            # within float32 rounding of np.fft's (not its bits; tests/ops/test_fft_fast.py);
            # float64 is unchanged
            f = rd(1.0)
        elif normalization == 1:
            f = np.reciprocal(np.sqrt(n, dtype=rd))
        else:
            f = np.reciprocal(n, dtype=rd)
        if len(_FCT) > 4096:
            _FCT.clear()
        _FCT[key] = f
    return f


def _one(ufunc, a, axis: int, n_out: int, fct, out_dt):
    shape = a.shape
    nd = len(shape)
    if axis == nd - 1:
        return ufunc(a, fct, out=_empty(shape[:-1] + (n_out,), out_dt))
    # another axis: the gufunc over views with that axis last (each 1-D transform is the same
    # whatever the order of the others; ``axes=`` cost a microsecond more)
    out = _empty(shape[:axis] + (n_out,) + shape[axis + 1 :], out_dt)
    ufunc(a.swapaxes(axis, -1), fct, out=out.swapaxes(axis, -1))
    return out


def _wrapped(dims, nd: int) -> list:
    return [d % nd for d in dims]  # the ops pass dims already checked against nd


_FWD = {0: "backward", 1: "ortho", 2: "forward"}  # np.fft's norm of a forward transform
_INV = {0: "forward", 1: "ortho", 2: "backward"}  # ... and of an inverse transform


def _np_fft(fn, a, dims, norm, out_dt, **kw):
    return np.ascontiguousarray(fn(a, axes=list(dims), norm=norm, **kw).astype(out_dt, copy=False))


def c2c(a: np.ndarray, dims, normalization: int, forward: bool) -> np.ndarray:
    """np.fft.fftn / ifftn of complex ``a`` over ``dims`` (the last first, as _raw_fftnd)."""
    if _pfu is None:
        cd = a.dtype if a.dtype.kind == "c" else _CPLX[a.dtype.char]
        a = a.astype(cd, copy=False)  # as below: np.fft of a real input takes another route
        return _np_fft(
            np.fft.fftn if forward else np.fft.ifftn,
            a,
            dims,
            (_FWD if forward else _INV)[normalization],
            cd,
        )
    ufunc = _pfu.fft if forward else _pfu.ifft
    if a.dtype.kind != "c":  # np.fft promotes a real input the same way
        a = a.astype(_CPLX[a.dtype.char])
    rd = _REAL[a.dtype.char]
    nd = a.ndim
    for d in reversed(dims) if len(dims) > 1 else dims:  # the last first
        d %= nd
        n = a.shape[d]
        a = _one(ufunc, a, d, n, _fct(normalization, n, rd), a.dtype)
    return a


def r2c(a: np.ndarray, dims, normalization: int) -> np.ndarray:
    """np.fft.rfftn of real ``a`` over ``dims``: the half spectrum along the last of them."""
    if _pfu is None:
        return _np_fft(np.fft.rfftn, a, dims, _FWD[normalization], _CPLX[a.dtype.char])
    nd = a.ndim
    last = dims[-1] % nd
    n = a.shape[last]
    ch = a.dtype.char
    rd = _REAL[ch]
    ufunc = _pfu.rfft_n_even if n % 2 == 0 else _pfu.rfft_n_odd
    a = _one(ufunc, a, last, n // 2 + 1, _fct(normalization, n, rd), _CPLX[ch])
    if len(dims) > 1:  # (one dim: no list slicing and wrapping, ~0.4 us of a small rfft)
        for d in _wrapped(dims[-2::-1], nd):
            n = a.shape[d]
            a = _one(_pfu.fft, a, d, n, _fct(normalization, n, rd), a.dtype)
    return a


def c2r(a: np.ndarray, dims, normalization: int, last_n: int) -> np.ndarray:
    """np.fft.irfftn of complex ``a`` over ``dims`` (each kept at its size but the last, which
    gives ``last_n`` real points)."""
    if _pfu is None:
        s = [a.shape[d] for d in dims[:-1]] + [last_n]
        return _np_fft(np.fft.irfftn, a, dims, _INV[normalization], _REAL[a.dtype.char], s=s)
    dims = _wrapped(dims, a.ndim)
    rd = _REAL[a.dtype.char]
    for d in dims[:-1]:
        n = a.shape[d]
        a = _one(_pfu.ifft, a, d, n, _fct(normalization, n, rd), a.dtype)
    return _one(_pfu.irfft, a, dims[-1], last_n, _fct(normalization, last_n, rd), rd)


def hermitian_fill(half: np.ndarray, dims: list, n: int, conj: bool = False) -> np.ndarray:
    """The full spectrum of a real signal from its half: X[-k] = conj(X[k]) over all ``dims``;
    with ``conj`` its conjugate (exact sign flips; the small kernel writes it in its one pass).

    PyTorch fills the same way; a real-to-complex transform plus this copy costs about half of
    a complex transform of the promoted input (NumPy's pocketfft is slow on long complex FFTs)."""
    last, h = dims[-1], half.shape[dims[-1]]
    nd = half.ndim
    if (
        last == nd - 1
        and (len(dims) == 1 and half.size < 4096 or len(dims) == 2 and dims[0] == nd - 2)
        and half.size
        and n >= h
        and half.flags.c_contiguous
    ):
        # the last axis, or the last two, of a C-contiguous half: one kernel pass (slice copies
        # and a conjugate cost ~2 us on a (4, 6) fft, the indexed 2-D fill ~4; the kernel ~1)
        full = _empty(half.shape[:-1] + (n,), half.dtype)
        m = half.shape[-2] if len(dims) == 2 else 1
        if nd == 2:
            _K.hermitian_blocks(half, full, m, conj)
        else:
            _K.hermitian_blocks(half.reshape(-1, h), full.reshape(-1, n), m, conj)
        return full
    if len(dims) == 1 and last == nd - 1:  # the common case, without building indices
        if half.size >= 4096 and half.flags.c_contiguous and n >= h:
            # many short rows: NumPy's copies loop over h and n - h values a row (a (21848, 6)
            # fft spent a third of its time here); one pass of a kernel over the float pairs
            full = _empty(half.shape[:-1] + (n,), half.dtype)
            fdt = _REAL[half.dtype.char]
            _K.hermitian_rows(half.view(fdt).reshape(-1, 2 * h), full.view(fdt).reshape(-1, 2 * n))
            # the conjugate as a second pass: fused into the kernel's strided loop it measured
            # slower (156 us against 133 on (21848, 6) complex64)
            return np.conjugate(full, out=full) if conj else full
        full = _empty(half.shape[:-1] + (n,), half.dtype)
        full[..., :h] = half
        if n > h:
            np.conjugate(half[..., n - h : 0 : -1], out=full[..., h:])
        return np.conjugate(full, out=full) if conj else full
    key = (half.shape, tuple(dims), n)
    plan = _FILLS.get(key)
    if plan is None:
        if len(_FILLS) > 1024:
            _FILLS.clear()
        plan = _FILLS[key] = _fill_plan(half.shape, dims, n)
    shape, head, src, tail, flips = plan
    full = _empty(shape, half.dtype)
    full[head] = half
    if tail is not None:
        # X[k] for k in [h, n) is conj(X[n - k]) with every other transformed index negated mod
        # size, written in place (a 2**20 fft spent 40% of its time on a temporary here)
        dst = full[tail]
        np.conjugate(half[src], out=dst)
        for rest, rev in flips:
            # k -> -k mod size along a dim: index 0 stays, 1..size-1 reverse (NumPy copies the
            # overlapping right-hand side first)
            part = dst[rest]
            part[...] = part[rev]
    return np.conjugate(full, out=full) if conj else full


_FILLS: dict = {}


def _fill_plan(hshape: tuple, dims: list, n: int) -> tuple:
    """hermitian_fill's output shape and index tuples for a half spectrum of ``hshape``."""
    last, h, nd = dims[-1], hshape[dims[-1]], len(hshape)
    shape = hshape[:last] + (n,) + hshape[last + 1 :]
    head = [slice(None)] * nd
    head[last] = slice(0, h)
    if n <= h:
        return shape, tuple(head), None, None, ()
    src = [slice(None)] * nd
    src[last] = slice(n - h, 0, -1)
    tail = [slice(None)] * nd
    tail[last] = slice(h, n)
    flips = []
    for d in dims[:-1]:
        rest = [slice(None)] * nd
        rest[d] = slice(1, None)
        rev = [slice(None)] * nd
        rev[d] = slice(None, None, -1)
        flips.append((tuple(rest), tuple(rev)))
    return shape, tuple(head), tuple(src), tuple(tail), tuple(flips)
