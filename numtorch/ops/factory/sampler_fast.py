"""Fast calls (Note [Binding fast call]) of the in-place samplers on float32/float64 tensors:
Tensor.uniform_, normal_, exponential_, cauchy_, log_normal_, geometric_, bernoulli_(p: float)
and random_.

# Note [In-place sampler fast calls]
# A small ``x.uniform_(-1, 1)`` went wrapper -> body (generator check, argument pick) -> dispatch
# -> op.fast's gate -> the kernel's bound checks -> K.uniform (a fresh draw, two ufuncs, an
# astype) -> _fill (overlap check, np.copyto): 6 us where PyTorch takes 0.9. Here the plain case
# (no dispatch mode, forward-AD level, vmap level or autocast region; the default generator; a
# CPU tensor with nothing to record and a plain version counter, so not an inference tensor;
# C-contiguous and writable, float32 or float64; numbers inside the bounds that raise or warn)
# draws straight into the tensor's memory with ``out=`` where NumPy's sampler has it, or
# computes the body's float64 values and casts them in with the quiet error state the body's
# np.errstate gives (Note [Quiet floating-point flags]). The values are the body's bit for bit
# (the same draws and the same arithmetic in the same dtypes, in place), so the stream is
# unchanged. Anything else returns None and the body runs (``with_body``).
# tests/ops/factory/test_sampler_fast.py compares both routes.
"""

from __future__ import annotations

import numpy as np

from ..._device import CPU as _CPU
from ..._functorch._levels import VMAP_LEVELS as _V
from ..._random import default_generator as _DG
from ..._state import STATE as _S
from ..._tensor import Tensor as _Tensor
from ..._tensor import _make
from ...amp._policy import _INSTALLED as _AUTOCAST
from ...kernels import lazy
from .._quiet import IGNORE, quiet, restore
from . import _bitgen as _BG

_F32, _F64 = np.dtype(np.float32), np.dtype(np.float64)
_CT = {_F32: np.float32, _F64: np.float64}
_FMAX = {_F32: float(np.finfo(np.float32).max), _F64: float(np.finfo(np.float64).max)}
_NUM = (int, float)
_KA = lazy("numtorch.kernels.cpu.sample_affine")
_KS = lazy("numtorch.kernels.cpu.sampling")
_KB = lazy("numtorch.kernels.cpu.bitgen")
_KZ = lazy("numtorch.kernels.cpu.ziggurat")
_SAFE = 1e30  # |parameters| up to this: no step of the affine kernels can overflow (draws are < 1e17)


def with_body(fast, body, n: int):
    """The binding's fast call: ``fast(self, *vals)`` or, where it declines, the body (``n``: 1
    or 2 values; fixed arities, as packing ``*vals`` twice cost ~0.1 us a call)."""
    if n == 1:

        def call1(self, a):
            r = fast(self, a)
            return body(self, a, None) if r is None else r

        call1.declines = (fast, body, 1)  # Note [Declining fast call inline]: body(self, a, None)
        return call1

    def call2(self, a, b):
        r = fast(self, a, b)
        return body(self, a, b, None) if r is None else r

    call2.declines = (fast, body, 1)
    return call2


def _target(self):
    """``self``'s array when a fast call may write it, else None."""
    S = _S
    if (S.td_modes or S.fw_level >= 0 or _V or _AUTOCAST or self._device is not _CPU or (self._rg and S.grad_enabled)
            or self._vc.__class__ is not list):  # fmt: skip
        return None
    a = self._data
    d = a.dtype
    if d is not _F32 and d is not _F64:  # (an equal dtype of another object: the body)
        return None
    f = a.flags  # (aligned too: _BG.fill's kernel entries take aligned arrays)
    return a if f.c_contiguous and f.writeable and f.aligned else None


def _cast_in(a, values):
    tok = quiet(IGNORE)  # the body's np.errstate(all="ignore") around its casting copy
    try:
        np.copyto(a, values, casting="unsafe")
    finally:
        restore(tok)


def uniform_(self, lo, hi):
    a = _target(self)
    if a is None or lo.__class__ not in _NUM or hi.__class__ not in _NUM:
        return None
    lo, hi = float(lo), float(hi)
    fmax = _FMAX[a.dtype]
    if not (-fmax <= lo <= hi <= fmax and hi - lo <= fmax):  # the body's errors (NaN too)
        return None
    # Generator.random(out=a)'s draws made in a kernel (Note [Bit generator in kernels]), then
    # K.uniform's lo + (hi - lo) * u in the dtype (u itself for [0, 1)); |result| <= max(|lo|, |hi|)
    draw = _KB.uniform32_ if a.itemsize == 4 else _KB.uniform64_
    _BG.fill(draw, _DG._np, a.ravel(), hi - lo, lo, lo != 0.0 or hi != 1.0)
    self._vc[0] += 1  # (the version bump written out: a frame less)
    return self


def normal_(self, mean, std):
    a = _target(self)
    if a is None or mean.__class__ not in _NUM or std.__class__ not in _NUM or not std >= 0:
        return None
    mean, std = float(mean), float(std)
    if abs(mean) <= _SAFE and std <= _SAFE:  # mean + std * z: Python floats, so in the dtype
        fill = _KZ.normal32_ if a.itemsize == 4 else _KZ.normal64_  # (Note [Ziggurat samplers in kernels])
        _BG.fill(fill, _DG._np, a.ravel(), std, mean, True)  # also for mean 0: -0.0 + 0.0 is +0.0
    else:  # NumPy's ufuncs, with their overflow warnings
        _DG._np.standard_normal(out=a, dtype=_CT[a.dtype])
        np.multiply(a, std, out=a)
        np.add(a, mean, out=a)
    self._vc[0] += 1
    return self


def exponential_(self, lambd):
    a = _target(self)
    if a is None or lambd.__class__ not in _NUM or not lambd > 0:
        return None
    lambd = float(lambd)
    if a.dtype is _F64 or lambd >= 1 / _SAFE:  # draws / lambd in float64 (cast: no overflow below 1e31)
        _BG.fill(_KZ.exponential_, _DG._np, a.ravel(), lambd)
    else:
        _cast_in(a, _DG._np.standard_exponential(a.shape) / lambd)
    self._vc[0] += 1
    return self


def cauchy_(self, median, sigma):
    a = _target(self)
    if a is None or median.__class__ not in _NUM or sigma.__class__ not in _NUM or not sigma > 0:
        return None
    median, sigma = float(median), float(sigma)
    if abs(median) <= _SAFE and sigma <= _SAFE:  # float64 arithmetic, cast (inf past float32's range)
        _BG.fill(_KZ.cauchy_, _DG._np, a.ravel(), sigma, median)
    else:
        _cast_in(a, median + sigma * _DG._np.standard_cauchy(a.shape))
    self._vc[0] += 1
    return self


def log_normal_(self, mean, std):
    a = _target(self)
    if a is None or mean.__class__ not in _NUM or std.__class__ not in _NUM or not std > 0:
        return None
    _BG.fill(_KZ.log_normal_, _DG._np, a.ravel(), float(mean), float(std))  # lognormal's draws, cast
    self._vc[0] += 1
    return self


def geometric_(self, p):
    a = _target(self)
    if a is None or p.__class__ not in _NUM or not 0 < p < 1:
        return None
    _BG.fill(_KZ.geometric_, _DG._np, a.ravel(), float(p))  # geometric's int64 draws, cast
    self._vc[0] += 1
    return self


def bernoulli_(self, p):
    a = _target(self)
    if a is None or p.__class__ not in _NUM or not 0 <= p <= 1:
        return None
    _BG.fill(_KB.below_, _DG._np, a.ravel(), float(p))  # the body's random(shape) < p, cast in
    self._vc[0] += 1
    return self


def random_(self, args, to):
    """random_(to), random_(from, to) and random_(from, to=...) with int bounds inside the range
    the dtype holds exactly; random_() and random_(from, None) take the body."""
    a = _target(self)
    if a is None:
        return None
    n = len(args)
    if n == 2 and to is None:
        lo, hi = args
    elif n == 1:
        lo, hi = (0, args[0]) if to is None else (args[0], to)
    else:
        return None
    lim = 2**24 if a.itemsize == 4 else 2**53  # the bounds _int_bounds takes without its warning
    if lo.__class__ is not int or hi.__class__ is not int or not -lim <= lo < hi <= lim + 1:
        return None
    if a.size:  # the body's Generator.integers draws, stored exactly (integers_into, one frame less)
        _BG.fill(_KB.integers_into, _DG._np, a.ravel(), lo, hi - 1 - lo)  # (hi - 1 - lo < 2**54)
    self._vc[0] += 1
    return self


# ---- functional samplers of a tensor: bernoulli(probs), poisson(rates) ------------------------------------
def _source(t):
    """``t``'s float32/float64 array when a sampler may read it and return a fresh tensor (nothing
    to record: these ops' zero gradients would), else None."""
    S = _S
    if (S.td_modes or S.fw_level >= 0 or _V or _AUTOCAST or t._device is not _CPU or (t._rg and S.grad_enabled)
            or t._is_conj):  # fmt: skip
        return None
    a = t._data
    return a if a.dtype in _CT else None


def bernoulli(input, p, generator, out):
    """bernoulli(probs): the body's (g.random(shape) < p).astype(dtype) for probs in [0, 1], the
    uniforms drawn and compared by a kernel."""
    a = None if p is not None or generator is not None or out is not None else _source(input)
    if a is None:
        return None
    r = np.empty(a.shape, a.dtype)  # a kernel's draws (Note [Bit generator in kernels]); a probability
    if _BG.fits(a):  # outside [0, 1] (or NaN) draws nothing: the body raises its error
        ok = _BG.fill(_KS.bernoulli_probs, _DG._np, a.ravel(), r.ravel())
    else:
        ok = _BG.call(_KS.bernoulli_probs, _DG._np, np.ascontiguousarray(a).reshape(-1), r.reshape(-1))
    return _make(r, input._dtype) if ok else None



def poisson(input, generator):
    """poisson(rates) for finite non-negative rates below NumPy's limit: kernels/cpu/factory's
    Generator.poisson draws made by a kernel (Note [Poisson sampler]), float64, cast back."""
    a = None if generator is not None else _source(input)
    if a is None:
        return None
    if _BG.fits(a):  # poisson_counts, through the kernel's compiled entry
        vals = np.empty(a.shape, np.float64)
        if not _BG.fill(_KS.poisson, _DG._np, a.ravel(), vals.ravel(), _KS._LOGGAM):
            return None  # (a rate NumPy refuses draws nothing: the body raises or saturates)
    else:
        vals = _BG.call(_KS.poisson_counts, _DG._np, a)  # the body's draws, first cast
        if vals is None:
            return None
    return _make(vals if a.dtype is _F64 else vals.astype(a.dtype), input._dtype)  # above 2**53 round twice


def normal(mean, std, size, generator, out, dtype, layout, device, pin_memory, requires_grad):
    """normal(Tensor mean, float std) of a C-contiguous mean: the body's ``mean + std * z`` in the
    mean's dtype, z its standard_normal draws, under the quiet flags its np.errstate gives."""
    if (size is not None or generator is not None or out is not None or dtype is not None or layout is not None
            or device is not None or pin_memory is not False or requires_grad is not False
            or std.__class__ not in _NUM or not std >= 0 or mean.__class__ is not _Tensor):  # fmt: skip
        return None
    a = _source(mean)
    if a is None or not a.flags.c_contiguous:
        return None
    out = np.empty(a.shape, a.dtype)  # standard_normal's draws z, then the body's a + std * z in the
    fill = _KZ.normal_mean32_ if a.itemsize == 4 else _KZ.normal_mean64_  # dtype (a Python float std)
    _BG.call(fill, _DG._np, a.ravel(), float(std), out.reshape(-1))  # (no step warns: inf is quiet)
    return _make(out, mean._dtype)
