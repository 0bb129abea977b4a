"""Fast calls (Note [Binding fast call]) of the copying shape ops flip/fliplr/flipud, roll,
rot90, triu/tril, diag, diag_embed, repeat_interleave (int repeats) and Tensor.copy_."""

# Note [Shape-copy fast calls]
# On a plain C-contiguous CPU tensor (no dispatch mode or forward-AD level, nothing to record)
# with in-range int arguments, each of these is the body's own data movement without its
# layers (argument parsing, dispatch, empty_layout's stride analysis, np.flip/np.roll's axis
# normalisation, np.tri's masks built per call): flip is one reversed-view copy (a flip of
# dim 0 alone copies whole rows as one void item each: NumPy's strided copy of a reversed
# (43692, 3) float32 view ran per-row inner loops, 10x PyTorch's); roll is one concatenate of
# the two pieces; rot90 is flip then the transposed view of that copy, as its composite;
# triu/tril copy through a mask cached per (rows, cols, diagonal); diag copies the diagonal
# view or writes a zero matrix's diagonal; repeat_interleave(int) is np.repeat's copy and the
# composite's flatten view of it; diag_embed into the last two dims writes a zero block's
# offset diagonal; copy_ of a same-dtype, same-shape, unshared source is the kernel's
# np.copyto and version bump (a leaf needing grad, an inference tensor: the body). All are
# copies, so values, dtype and C-order strides are the body's. Anything else - a mode, a gradient, a non-int or out-of-range
# argument, an empty or non-contiguous input, out= - takes the body (errors are the body's).
# tests/ops/shape/test_fast_copies.py compares both routes and checks which one ran.

from __future__ import annotations

import numpy as np

from ..._device import CPU as _CPU
from ..._state import STATE as _STATE
from ..._tensor import Tensor as _Tensor
from ..._tensor import _make, _view
from .._fast_guard import or_body, params
from .._quiet import IGNORE as _IGNORE
from .._quiet import quiet as _quiet
from .._quiet import restore as _restore
from .copy import _preserved_strides

_FULL = slice(None)
_REV = slice(None, None, -1)
_MASKS: dict = {}  # (rows, cols, diagonal, lower) -> np.tri's keep-mask
# NumPy's C functions behind their __array_function__ dispatchers (plain arrays here): ~0.2 us
# less a small call
_copyto = getattr(np.copyto, "_implementation", np.copyto)
_concatenate = getattr(np.concatenate, "_implementation", np.concatenate)
_subtract = np.subtract
_empty = np.empty


def _plain(x) -> bool:
    """A C-contiguous non-empty plain CPU tensor of >= 1 dim and not a wide unsigned dtype,
    nothing to record, no mode."""
    S, a = _STATE, x._data
    return not (
        S.td_modes or S.fw_level >= 0 or x._device is not _CPU or x._rg and S.grad_enabled
    ) and (
        a.ndim
        and a.size
        and a.flags.c_contiguous
        and x._dtype._rank <= 10  # Note [Wide unsigned dtypes]
    )


def _dims(dims, nd: int):
    """Distinct wrapped dims of an int or a non-empty list/tuple of ints in range, or None."""
    c = dims.__class__
    if c is int:
        dims = (dims,)
    elif not (c is tuple or c is list) or not dims:
        return None
    out = []
    for d in dims:
        if d.__class__ is not int or not -nd <= d < nd or d % nd in out:
            return None
        out.append(d % nd)
    return out


# Note [Narrow rows by columns]
# NumPy copies an array of narrow rows (a (43692, 3) float32 flipped along either dim, joined
# along its last dim) one short inner loop per row, ~2.5 ns a row: flipud 108 us against
# PyTorch's 20, concatenate of (26216, 3) and (26216, 2) 250 us against 112. Copied one column
# at a time instead, each copy is one long strided loop (flipud 45 us, that concatenate 48 us).
# Only for many rows of at most NARROW items (the per-column call costs ~1 us) whose bytes are
# no single NumPy item (a row of 8 or 16 bytes copies as one void item faster).
NARROW, MANY_ROWS = 4, 4096


def narrow_rows(a: np.ndarray, whole: bool = True) -> bool:
    """A 2-d array of many rows of 1 < w <= NARROW items that is faster copied by columns
    (``whole``: rows copied whole, where one of 2, 4, 8 or 16 bytes is one NumPy item)."""
    n, w = a.shape
    return n >= MANY_ROWS and 1 < w <= NARROW and not (whole and w * a.itemsize in (2, 4, 8, 16))


def by_columns(dst: np.ndarray, src: np.ndarray, reverse: bool = False) -> None:
    """``dst[:, j] = src[:, j]`` (``src[:, -1 - j]`` when ``reverse``) for each column j."""
    w = src.shape[1]
    for j in range(w):
        _copyto(dst[:, j], src[:, w - 1 - j] if reverse else src[:, j])


def _flipped(a: np.ndarray, ds) -> np.ndarray:
    nd = a.ndim
    # Note [Narrow rows by columns] (the size first: a small call pays one comparison)
    if a.size >= 2 * MANY_ROWS and nd > 1 and (ds == [0] or ds == [nd - 1]):
        rows = a.reshape(a.shape[0], -1) if ds == [0] else a.reshape(-1, a.shape[-1])
        if narrow_rows(rows, ds == [0]):
            out = _empty(a.shape, a.dtype)
            by_columns(out.reshape(rows.shape), rows[::-1] if ds == [0] else rows, ds != [0])
            return out
    if ds == [0] and a.ndim > 1 and a.size > 1024:  # whole rows as void items: one fast copy
        rows = a.reshape(a.shape[0], -1)
        v = rows.view(np.dtype((np.void, rows.shape[1] * a.itemsize)))
        return v[::-1].copy().view(a.dtype).reshape(a.shape)
    idx = [_FULL] * nd  # (a generator's tuple cost ~0.6 us of a small flip)
    for k in ds:
        idx[k] = _REV
    return a[tuple(idx)].copy()


# Note [Flips of views]
# The backward of flip/fliplr/flipud flips sum()'s expanded gradient (every stride 0): the
# body's empty_layout and np.flip cost 6 us on a (4, 5) float32 against 1.3 for a contiguous
# input. Where the body's preserve_format layout of a non-contiguous input is C order (an
# expanded tensor, a column, any view whose inferred dense strides are C's: Note [Preserved
# layout cache]), its result is the C-order copy of the reversed view, which is what
# _flipped's last branch makes; other views (a transpose keeps its strides) take the body.
def _c_view(x) -> bool:
    """_plain but for the contiguity: a non-contiguous input whose preserved layout is C order."""
    a = x._data
    return not a.flags.c_contiguous and _plain_any(x) and _preserved_strides(a) is None


def _plain_any(x) -> bool:
    S, a = _STATE, x._data
    return not (S.td_modes or S.fw_level >= 0 or x._device is not _CPU or x._rg and S.grad_enabled) and (
        a.ndim and a.size and x._dtype._rank <= 10  # Note [Wide unsigned dtypes]
    )


def _flip_view(a: np.ndarray, ds) -> np.ndarray:
    idx = [_FULL] * a.ndim
    for k in ds:
        idx[k] = _REV
    return a[tuple(idx)].copy()


def _flip(input, dims):
    if _plain(input):
        ds = _dims(dims, input._data.ndim)
        if ds is not None:
            return _make(_flipped(input._data, ds), input._dtype)
    elif _c_view(input):
        ds = _dims(dims, input._data.ndim)
        if ds is not None:
            return _make(_flip_view(input._data, ds), input._dtype)
    return None


def _fliplr(input):
    if input._data.ndim >= 2:
        if _plain(input):
            return _make(_flipped(input._data, [1]), input._dtype)
        if _c_view(input):
            return _make(_flip_view(input._data, [1]), input._dtype)
    return None


def _flipud(input):
    if _plain(input):
        return _make(_flipped(input._data, [0]), input._dtype)
    if _c_view(input):
        return _make(_flip_view(input._data, [0]), input._dtype)
    return None


def _roll(input, shifts, dims=None):
    if not _plain(input):
        return None
    a = input._data
    if shifts.__class__ is not int:
        if (shifts.__class__ is tuple or shifts.__class__ is list) and len(shifts) == 1:
            shifts = shifts[0]
        if shifts.__class__ is not int:
            return None
    if dims is None:  # the flattened tensor
        flat, n = a.reshape(-1), a.size
        s = n - shifts % n
        return _make(_concatenate((flat[s:], flat[:s])).reshape(a.shape), input._dtype)
    ds = _dims(dims, a.ndim)
    if ds is None or len(ds) != 1:
        return None
    d = ds[0]
    s = a.shape[d] - shifts % a.shape[d]
    pre = (_FULL,) * d
    return _make(
        _concatenate((a[pre + (slice(s, None),)], a[pre + (slice(None, s),)]), d), input._dtype
    )


def _rot90(input, k=1, dims=None):
    if not (_plain(input) and k.__class__ is int and input._data.ndim >= 2):
        return None
    ds = _dims([0, 1] if dims is None else dims, input._data.ndim)
    if ds is None or len(ds) != 2:
        return None
    k %= 4
    a = input._data
    if k == 2:
        return _make(_flipped(a, ds), input._dtype)
    if k == 0:
        return None
    # the composite's flip then transpose: a view of the flipped copy
    f = _make(_flipped(a, [ds[1] if k == 1 else ds[0]]), input._dtype)
    return _view(f, f._data.swapaxes(ds[0], ds[1]))


def _tri(lower: bool):
    def core(input, diagonal=0, out=None):
        if out is None and diagonal.__class__ is int and _plain(input) and input._data.ndim >= 2:
            a = input._data
            n, m = a.shape[-2:]
            key = (n, m, diagonal, lower)
            keep = _MASKS.get(key)
            if keep is None:
                keep = (
                    np.tri(n, m, diagonal, dtype=bool)
                    if lower
                    else ~np.tri(n, m, diagonal - 1, dtype=bool)
                )
                if len(_MASKS) >= 256:
                    _MASKS.clear()
                _MASKS[key] = keep
            r = np.zeros(a.shape, a.dtype)
            _copyto(r, a, where=keep)
            return _make(r, input._dtype)
        return None

    return core


def _diag(input, diagonal=0, out=None):
    if out is not None or diagonal.__class__ is not int or not _plain(input):
        return None
    a = input._data
    if a.ndim == 2:
        r = a.diagonal(diagonal)
        # one element: the body's clone keeps the view's stride (dense), so the body's
        return _make(r.copy(), input._dtype) if r.size > 1 else None
    if a.ndim == 1:
        n = a.size + abs(diagonal)
        r = np.zeros((n, n), a.dtype)
        start = diagonal if diagonal >= 0 else -diagonal * n
        r.reshape(-1)[start :: n + 1][: a.size] = a
        return _make(r, input._dtype)
    return None


def _repeat_interleave(input, repeats=None, dim=None, output_size=None):
    """An int ``repeats`` >= 1: the composite's contiguous copy of the expanded view (np.repeat
    makes the same elements) and its flatten, a view of that copy."""
    if repeats.__class__ is not int or repeats < 1 or output_size is not None or not _plain(input):
        return None
    a = input._data
    if dim is None:
        a = a.reshape(-1)
        d = 0
    elif dim.__class__ is int and -a.ndim <= dim < a.ndim:
        d = dim % a.ndim
    else:
        return None
    sh = a.shape
    copy = _make(
        np.repeat(a, repeats, d).reshape(sh[: d + 1] + (repeats,) + sh[d + 1 :]), input._dtype
    )
    return _view(copy, copy._data.reshape(sh[:d] + (sh[d] * repeats,) + sh[d + 1 :]))


def _diag_embed(input, offset=0, dim1=-2, dim2=-1):
    """Into the last two dims only: a zero (..., N, N) with ``input`` written along the offset
    diagonal, the kernel's zeros and strided write."""
    if not (_plain(input) and offset.__class__ is dim1.__class__ is dim2.__class__ is int):
        return None
    a = input._data
    nd = a.ndim + 1
    if not (-nd <= dim1 < nd and -nd <= dim2 < nd and dim1 % nd == nd - 2 and dim2 % nd == nd - 1):
        return None
    m = a.shape[-1]
    n = m + abs(offset)
    r = np.zeros(a.shape[:-1] + (n, n), a.dtype)
    start = offset if offset >= 0 else -offset * n
    d = r.reshape(a.shape[:-1] + (n * n,))[..., start :: n + 1][..., :m]
    if a.size >= MANY_ROWS * m and 1 < m <= NARROW:  # Note [Narrow rows by columns]: 169 -> 90 us
        for j in range(m):  # at (43691, 3)
            _copyto(d[..., j], a[..., j])
    else:
        d[...] = a
    return _make(r, input._dtype)


def _copy_(self, src, non_blocking=False):
    """Same dtype and shape, no shared memory: the kernel's np.copyto and version bump."""
    if src.__class__ is not _Tensor or src._device is not _CPU or src._rg and _STATE.grad_enabled:
        return None
    d, s = self._data, src._data
    # two arrays that each own their memory (no base) share none unless they are one array
    if _plain(self) and src._dtype is self._dtype and s.shape == d.shape and self._vc.__class__ is list and (
            (d.base is None and s.base is None and d is not s) or not np.may_share_memory(d, s)):  # fmt: skip
        d[...] = s  # np.copyto's copy (one dtype and shape) without its keyword parsing: ~0.15 us less
        self._vc[0] += 1
        return self
    return None


# diff (Note [Shape-copy fast calls]): _diff's n-th differences as NumPy subtractions of the
# shifted views (IEEE subtraction and integer wrap-around: the bits of its hi - lo), n == 0 its
# clone; float32/float64/int32/int64 only (half types round through float32 in each library:
# the body), no prepend/append
_DIFF_DTYPES = frozenset(
    {np.dtype(np.float32), np.dtype(np.float64), np.dtype(np.int32), np.dtype(np.int64)}
)


def _diff(input, n=1, dim=-1, prepend=None, append=None):
    if (
        prepend is not None
        or append is not None
        or n.__class__ is not int
        or dim.__class__ is not int
    ):
        return None
    a = input._data
    nd = a.ndim
    if n < 0 or not -nd <= dim < nd or a.dtype not in _DIFF_DTYPES or not _plain(input):
        return None
    if n == 0:
        return _make(a.copy(), input._dtype)
    d = dim + nd if dim < 0 else dim
    pre = (_FULL,) * d
    hi, lo = pre + (slice(1, None),), pre + (slice(None, -1),)
    token = _quiet(
        _IGNORE
    )  # inf - inf: no RuntimeWarning, as the body's sub (Note [Quiet floating-point flags])
    try:
        for _ in range(min(n, a.shape[d])):
            a = _subtract(a[hi], a[lo])
    finally:
        _restore(token)
    return _make(a, input._dtype)


_CORES = {
    ("flip", "input, dims"): _flip,
    ("fliplr", "input"): _fliplr,
    ("fliplr", "self"): _fliplr,
    ("flipud", "input"): _flipud,
    ("flipud", "self"): _flipud,
    ("roll", "input, shifts, dims=None"): _roll,
    ("roll", "self, shifts, dims=None"): _roll,
    ("rot90", "input, k=1, dims=None"): _rot90,
    ("rot90", "self, k=1, dims=None"): _rot90,
    ("triu", "input, diagonal=0, *, out=None"): _tri(False),
    ("triu", "self, diagonal=0"): _tri(False),
    ("tril", "input, diagonal=0, *, out=None"): _tri(True),
    ("tril", "self, diagonal=0"): _tri(True),
    ("diag", "input, diagonal=0, *, out=None"): _diag,
    ("diag", "self, diagonal=0"): _diag,
    ("repeat_interleave", "input, repeats=None, dim=None, *, output_size=None"): _repeat_interleave,
    ("repeat_interleave", "self, repeats=None, dim=None, *, output_size=None"): _repeat_interleave,
    ("diag_embed", "input, offset=0, dim1=-2, dim2=-1"): _diag_embed,
    ("diag_embed", "self, offset=0, dim1=-2, dim2=-1"): _diag_embed,
    ("copy_", "self, src, non_blocking=False"): _copy_,
    ("diff", "input, n=1, dim=-1, prepend=None, append=None"): _diff,
    ("diff", "self, n=1, dim=-1, prepend=None, append=None"): _diff,
}


def install(bindings) -> None:
    """Attach the fast calls above (views.install_fast_paths calls this before _api.install)."""
    for b in bindings:
        core = _CORES.get((b.name, b.sig))
        if core is not None and b.module in ("torch", "Tensor") and b.fast is None:
            b.fast = (or_body(core, b.body), params(b.sig))
