"""Elementwise's expanded-operand fast paths (Note [Expanded operands run as scalars]): one
operand holding one value (every stride 0, or 0-d) of the other's dtype runs as a kernel scalar."""

from __future__ import annotations

import math

import numpy as np

from ..._tensor import PLAIN_SUBCLASSES, Tensor, _make
from ...kernels import PARALLEL_THRESHOLD
from .._pointwise import _broadcast, big_prefix, strided_layout
from .._quiet import IGNORE, quiet, restore
from ._broadcast_fast import keep_plan, row_entry, two_level
from ._ufunc_route import UFUNC_MAX, UFUNCS

# prep/early hooks whose checks a learned signature has passed already for any values of
# plain int-1 params (add's alpha_check, sub's bool refusal); _elementwise adds them
SIGNATURE_HOOKS: set = {None}


def signature_hook(fn):
    SIGNATURE_HOOKS.add(fn)
    return fn


def expanded_call(self, operands, params):
    """Elementwise._fast_call's case of an operand expanded from one value (self: the Elementwise)."""
    # Note [Expanded operands run as scalars], without the general path: a backward
    # formula's grad * other where grad is sum()'s one value expanded (every stride 0) and
    # other a contiguous tensor of the same shape and dtype, whose same-dtype signature is
    # learned (Note [Elementwise fast signatures]). 12.5 us -> 4 us on a (3, 4) float32.
    a, b = operands
    ca, cb = a.__class__, b.__class__
    if (ca is not Tensor and ca not in PLAIN_SUBCLASSES) or (cb is not Tensor and cb not in PLAIN_SUBCLASSES):
        return None
    if a._dtype is not b._dtype:
        return None
    d, e = a._data, b._data
    # a 0-d operand of the same dtype is one value too (x * scale, g.mul_(clip_coef))
    if not any(d.strides) and e.flags.c_contiguous and (d.shape == e.shape or not d.ndim) and e.size > 1:
        pat, s, arr = "sa", d, e
    elif not any(e.strides) and d.flags.c_contiguous and (d.shape == e.shape or not e.ndim) and d.size > 1:
        pat, s, arr = "as", e, d
    else:
        return strided_call(self, a, d, e, params)
    for p in params:
        if p.__class__ is not int or p != 1:
            return None
    f = self._sig.get((a._dtype, a._dtype, False))
    if f is None:
        return None
    if s.__class__ is np.ndarray and arr.__class__ is np.ndarray:
        # a 0-d operand: the op's ufunc broadcasts it as the kernel reads its one value (Note
        # [Inlined broadcast plans]); an expanded one is its one element as a 0-d view
        u = self._uf.get(a._dtype)
        if u is not None and arr.size <= _BROADCAST_MAX.get(self.name, UFUNC_MAX):
            dest = np.empty(arr.shape, f[0])
            if not s.ndim:
                keep_plan(self, a._dtype, d, e, (None, f[0], f[1], arr.shape))
                return _ufunc_broadcast(u, self.name, d, e, dest, f[1])
            one = s[(0,) * s.ndim + (...,)]
            return _ufunc_broadcast(u, self.name, *((one, e) if pat == "sa" else (d, one)), dest, f[1])
    pw = self.variants["bifc"[a._dtype.category]]
    k = pw.kernel((big_prefix() if arr.size >= PARALLEL_THRESHOLD else "c_") + pat)
    v = s[(0,) * s.ndim].item()
    dest = np.empty(arr.shape, f[0])
    flat = arr.reshape(-1)
    k(*((v, flat) if pat == "sa" else (flat, v)), dest.reshape(-1), *params)
    return _make(dest, f[1])

# Note [Small strided operands run contiguous]
# A backward formula's operand is often a view: sum()'s expanded gradient (every stride 0),
# a transposed weight's gradient, a permuted input. Elementwise's general path runs those
# through promotion, checks and the strided kernel's layout arrays (x.t() * 0.7 on a (5, 4)
# float32: 16 us, PyTorch 1 us). For a unary op, or a binary one with a Python-number second
# operand, a non-C-contiguous plain first operand of a learned signature (Note [Elementwise
# fast signatures]) is copied to C order instead (~0.15 us) and runs the contiguous kernel:
# the same expression per element as the strided kernel (strided_call's same-shape case does
# the same), so the same bits, and the general path's result is C-contiguous too. Only below
# SMALL_COPY_MAX elements, where the copy is cheap next to the call it saves; larger operands
# keep the general path (an expanded one: computed once and filled, run_expanded).
SMALL_COPY_MAX = 1 << 14


def small_copy(d):
    """``d`` (not C-contiguous) as a C-order copy when small enough, else None."""
    return d.copy() if d.size <= SMALL_COPY_MAX else None


def strided_call(self, a, d, e, params):
    """The general path's strided case (Note [Broadcast rows]) for two same-dtype plain tensors
    of a learned signature, without its promotion, checks and scalar handling: a bias or
    position embedding broadcast over rows (x + b, b of x's trailing shape: 42 -> 9 us on
    (2, 32, 64) + (32, 64) float32), or a transposed operand. The same _run_strided call as
    the general path's, so the same kernel and values; Note [Broadcast ufunc route] for two
    C-contiguous operands."""
    n, m = d.size, e.size
    if n <= 1 or m <= 1 or not any(d.strides) or not any(e.strides):
        return None  # one value (squashed by the general path) or empty
    if self.prep not in SIGNATURE_HOOKS or self.early not in SIGNATURE_HOOKS:
        return None
    for p in params:
        if p.__class__ is not int or p != 1:
            return None
    f = self._sig.get((a._dtype, a._dtype, False))
    if f is None:
        return None
    pw = self.variants["bifc"[a._dtype.category]]
    if d.flags.c_contiguous and e.flags.c_contiguous:  # broadcasting only: a cached layout
        lay = _LAYOUTS.get((d.shape, e.shape))
        if lay is None:
            shape = _shape_of(d, e)
            if shape is None or n == m == math.prod(shape):
                return None  # no broadcast (the general path raises), or one shape: its contiguous kernels
            lay = _layout(d, e, np.empty(shape, f[0]), shape)
        dest = np.empty(lay[5], f[0])
        plan = self._bp.get((a._dtype, d.shape, e.shape))
        two = lay[7]  # Note [Two-level broadcast kernels]
        if two is not None:
            args = (d, e, dest, two[1], *params)
        else:
            args = (lay[1], dest.reshape(-1), 0, lay[2], d.reshape(-1), 0, lay[3], e.reshape(-1), 0, lay[4], *params)
        if plan is not None and plan[0] is not None and d.dtype is plan[4] and e.dtype is plan[4]:
            plan[3](*args)  # Note [Inlined broadcast plans]: the kernel's compiled entry
            return _make(dest, f[1])
        k = pw.kernel(lay[0] if two is None else "b_" + two[0])
        try:
            k(*args)
        except Exception as exc:
            pw._untyped(exc, dest)
        entry = row_entry(k, args)
        if entry is not None:
            kept = (lay[5], two[1]) if two is not None else (lay, 0)
            keep_plan(self, a._dtype, d, e, (kept[0], f[0], f[1], entry, d.dtype, kept[1]))
        return _make(dest, f[1])
    if d.shape == e.shape:
        # a strided operand of the same shape (a tied weight's transposed gradient meeting its
        # embedding gradient): a C-order copy and the contiguous kernel, the same expression per
        # element, beat the strided kernel's n-d index loop (46 -> 9 us on (65, 64) float32)
        dest = np.empty(d.shape, f[0])
        k = f[3] if n >= PARALLEL_THRESHOLD else f[2]
        k(np.ascontiguousarray(d).reshape(-1), np.ascontiguousarray(e).reshape(-1), dest.reshape(-1), *params)
        return _make(dest, f[1])
    shape = _shape_of(d, e)
    if shape is None:
        return None
    dest = np.empty(shape, f[0])
    pw._run_strided([d, e], dest, shape, params)
    return _make(dest, f[1])


def _shape_of(d, e):
    """The broadcast shape of two different-shaped arrays, or None where they do not broadcast
    (the general path raises that, after its own checks)."""
    try:
        return _broadcast([d.shape, e.shape])
    except RuntimeError:
        return None


# Note [Broadcast ufunc route]
# Two C-contiguous operands of different shapes (x + bias, x * scale[:, None], an outer
# product by broadcasting) run the row kernel (Note [Broadcast rows]) through its compiled
# entry once it has run for the shapes (Note [Inlined broadcast plans]): ~0.4 us, where
# NumPy's broadcasting ufunc took ~1.1 us (its iterator) and the dispatcher's typing of ten
# arguments ~0.6. A 0-d operand of the same dtype (x * s) takes the op's ufunc of Note [Ufunc
# route], which broadcasts one value at the same-shape loop's cost, bounded by size as that
# route: NumPy's loops keep up with the kernels up to ~32k elements for the arithmetic and
# comparison ops, the others only to UFUNC_MAX.
_BROADCAST_MAX = dict.fromkeys(
    ("add", "sub", "rsub", "mul", "div", "maximum", "minimum", "eq", "ne", "lt", "le", "gt", "ge"), 32768
)


def _ufunc_broadcast(u, name, d, e, dest, result):
    x, y = (e, d) if UFUNCS[name][3] else (d, e)
    if u[2]:
        q = quiet(IGNORE)
        try:
            u[0](x, y, out=dest)
        finally:
            restore(q)
    else:
        u[0](x, y, out=dest)
    return _make(dest, result)


# (shape, shape) of two C-contiguous operands -> (variant, int64 shape, the int64 strides of
# dest, d and e from strided_layout, the broadcast shape, its size, two_level's (roles, inner)
# or None); kernels only read these arrays
_LAYOUTS: dict = {}


def _layout(d, e, dest, shape):
    variant, shp, parts = strided_layout(dest, (d, e), shape)
    two = two_level(d.shape, e.shape, shape)
    lay = (variant, shp, parts[2], parts[5], parts[8], tuple(shape), dest.size, two)
    if len(_LAYOUTS) > 256:
        _LAYOUTS.clear()
    _LAYOUTS[(d.shape, e.shape)] = lay
    return lay


def expanded_inplace(self, a, e, params):
    """Elementwise._fast_call's in-place case of the same (self: the Elementwise)."""
    # the same for ``a.op_(b)`` with b one value expanded to a's shape and dtype: the engine's
    # grad accumulation ``leaf.grad.add_(g)`` where g is sum()'s expanded gradient
    d = a._data
    if (e.ndim and e.shape != d.shape) or e.dtype != d.dtype or any(e.strides) or np.may_share_memory(d, e):
        return None  # an overlap takes the general path's check (Note [Written-to memory])
    if self._sig.get((a._dtype, a._dtype, True)) is None:
        return None
    pw = self.variants["bifc"[a._dtype.category]]
    k = pw.kernel((big_prefix()[0] if d.size >= PARALLEL_THRESHOLD else "c") + "i_as")
    k(d.reshape(-1), e[(0,) * e.ndim].item(), *params)
    a._vc[0] += 1
    return a
