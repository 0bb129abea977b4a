"""Fast calls (Note [Binding fast call]) of the torch.fft transforms, fftshift and ifftshift."""

# Note [FFT fast calls]
# A small fft went wrapper -> body -> _float_input -> _resize -> dispatch -> op.fast -> the
# CPU kernel -> np.fft, and an ifft of a real signal on through conj_physical: 20-90 us where
# PyTorch takes 3-5. With no dispatch mode, forward-AD level or autocast region and nothing to
# record, a plain CPU float32/float64/complex64/complex128 input with n/s None, int dims in
# range, a norm PyTorch names and no empty dimension runs the body's own array functions
# (fft.c2c_array, r2c_array, c2r_array: the same kernels and pocketfft calls, Note [pocketfft
# without np.fft's wrappers]) and the body's conjugations with np.conjugate, so the values are
# the body's bit for bit. fftshift/ifftshift copy the pieces roll's kernel moves (a large matrix
# in one pass of kernels/cpu/fft.py roll2d). Anything else (resizing, integer or half inputs,
# errors, out=) takes the body. tests/ops/test_fft_fast.py compares both routes.

from __future__ import annotations

import itertools

import numpy as np

from .. import _dtype as D
from .._tensor import _make
from ..kernels import lazy
from ._fast_guard import plain as _plain

_K = lazy("numtorch.kernels.cpu.fft")

_conj = np.conjugate
_empty = np.empty
_REAL = {D.float32: D.complex64, D.float64: D.complex128}  # real dtype -> its complex
_CPLX = {D.complex64: D.float32, D.complex128: D.float64}  # complex dtype -> its real
_MODE = {True: {None: 0, "backward": 0, "forward": 2, "ortho": 1},
         False: {None: 2, "backward": 2, "forward": 0, "ortho": 1}}  # fmt: skip


def _dims_nd(nd: int, dim, two_d: bool):
    """The wrapped dims of an n-d transform, or None where the body should decide."""
    if dim is None:
        if two_d:
            return [nd - 2, nd - 1] if nd >= 2 else None
        return list(range(nd)) or None
    if dim.__class__ is int:
        dim = (dim,)
    elif dim.__class__ is not tuple and dim.__class__ is not list:
        return None
    out = []
    for d in dim:
        if d.__class__ is not int or not -nd <= d < nd:
            return None
        out.append(d + nd if d < 0 else d)
    return out if out and len(set(out)) == len(out) else None


def _run(x, dims, norm, kind: str, forward: bool, arrays):
    """The transform's result, or None where the body should run."""
    if (norm is not None and norm.__class__ is not str) or not _plain(x):
        return None
    mode = _MODE[forward].get(norm)
    dt = x._dtype
    a = x._data
    if mode is None or not a.size:
        return None
    c2c, r2c, c2r = arrays
    if kind == "c2r":
        last = 2 * (a.shape[dims[-1]] - 1)
        if last < 1:
            return None
        if dt in _REAL:
            a, dt = a.astype(_REAL[dt].np), _REAL[dt]
        elif dt not in _CPLX:
            return None
        if forward:  # hfft: the transform of the conjugate
            a = _conj(a)
        return _make(c2r(a, dims, mode, last), _CPLX[dt])
    if dt in _REAL:
        # an inverse of a real signal is its conjugated forward transform (the body's
        # conj_physical of it: exact sign flips, written by the fill or in place)
        return _make(r2c(a, dims, mode, kind == "r2c", not forward), _REAL[dt])
    if kind == "c2c" and dt in _CPLX:
        return _make(c2c(a, dims, mode, forward), dt)
    return None


def make_1d(kind: str, forward: bool, body, arrays):
    """The fast call ``fn(input, n, dim, norm)`` of a one-dimensional transform."""

    def fast(input, n, dim, norm):
        nd = input._data.ndim
        if n is None and dim.__class__ is int and -nd <= dim < nd:
            r = _run(input, [dim + nd if dim < 0 else dim], norm, kind, forward, arrays)
            if r is not None:
                return r
        return body(input, n, dim, norm, None)

    return fast


def make_nd(kind: str, forward: bool, two_d: bool, body, arrays):
    """The fast call ``fn(input, s, dim, norm)`` of a transform over several dimensions."""

    def fast(input, s, dim, norm):
        if s is None:
            dims = _dims_nd(input._data.ndim, dim, two_d)
            if dims is not None:
                r = _run(input, dims, norm, kind, forward, arrays)
                if r is not None:
                    return r
        return body(input, s, dim, norm, None)

    return fast


_SHIFT_PLANS: dict = {}


def _shift_plan(shape: tuple, dims: tuple, sign: int) -> tuple:
    """The (destination, source) index pairs that roll ``shape`` by half along ``dims``."""
    key = (shape, dims, sign)
    plan = _SHIFT_PLANS.get(key)
    if plan is None:
        pieces = []
        for d, n in enumerate(shape):
            k = (n // 2 if sign > 0 else n - n // 2) if d in dims else 0
            if k == 0 or k == n:
                pieces.append(((slice(None), slice(None)),))
            else:  # roll by k: out[k:] = a[:n-k], out[:k] = a[n-k:]
                pieces.append(
                    ((slice(k, None), slice(0, n - k)), (slice(0, k), slice(n - k, None)))
                )
        plan = tuple(
            (tuple(p[0] for p in combo), tuple(p[1] for p in combo))
            for combo in itertools.product(*pieces)
        )
        if len(_SHIFT_PLANS) > 1024:
            _SHIFT_PLANS.clear()
        _SHIFT_PLANS[key] = plan
    return plan


def make_shift(sign: int, body):
    """The fast call ``fn(input, dim)`` of fftshift (``sign`` 1) or ifftshift (-1)."""

    def fast(input, dim):
        a = input._data
        nd = a.ndim
        dims = _dims_nd(nd, dim, False) if nd else None
        if dims is None or not _plain(input):
            return body(input, dim)
        out = _empty(a.shape, a.dtype)
        if (
            nd <= 2
            and a.size
            and a.dtype.kind in "biufc"
            and a.dtype.char != "e"
            and a.flags.c_contiguous
        ):
            # one kernel pass (a small matrix: instead of four slice copies of ~1 us each;
            # many short rows: NumPy's copies loop over a few values a row)
            shape = a.shape
            ks = [
                (n // 2 if sign > 0 else n - n // 2) % n if d in dims else 0
                for d, n in enumerate(shape)
            ]
            if nd == 2:
                _K.roll2d(a, ks[0], ks[1], out)
            else:
                _K.roll2d(a.reshape(1, -1), 0, ks[0], out.reshape(1, -1))
            return _make(out, input._dtype)
        for dst, src in _shift_plan(a.shape, tuple(dims), sign):
            out[dst] = a[src]
        return _make(out, input._dtype)

    return fast
