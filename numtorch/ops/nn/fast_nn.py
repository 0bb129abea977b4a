"""Fast calls (Note [Binding fast call]) of F.pad, the max/avg pools (1-d, 2-d, 3-d) and prelu."""

# Note [Padding, pooling and prelu fast calls]
# On a plain CPU tensor (no dispatch mode, forward-AD level or autocast region, nothing to
# record) of float32/float64 with plain int arguments that pass every check, these run what
# the body reaches without its layers: the public body, the composite's argument parsing,
# dispatch, the unsqueeze/squeeze around the 1-d pools, _pool_geometry's list building.
# - pad: reflect/replicate of the last 1-3 dims is one NumPy gather with the index vectors the
#   body's 3-d gathers use (arange(-lo, size + hi) reflected or clipped): copies, so bit for bit
#   the body's values; constant mode dispatches constant_pad_nd directly.
# - max_pool2d/3d and avg_pool1d/2d/3d call the body's kernels with the same arguments (a 1-d
#   pool is the 2-d kernel over (..., 1, L) planes), so the values are the kernel's; max_pool1d
#   runs max_pool1d_rows, the same window walk and comparisons without the indices.
# - prelu (up to 4096 elements) is one pass of the fused kernel's formula (Note [Fused prelu]),
#   x if x > 0 else w * x in the input's dtype, through Note [PReLU rows]' compiled entry
#   (NumPy's product, comparison and masked copy took three calls: 1.7x PyTorch's time).
# Anything else - a gradient to record, a mode, another dtype, an empty input, a non-int or
# out-of-range argument, any error - takes the body, so errors and graphs are the body's.
# tests/nn/test_fast_nn.py compares both routes and checks which one ran.

from __future__ import annotations

import numpy as np

from ... import _dtype as D
from ..._dispatch import dispatch as _dispatch
from ..._tensor import _make
from ...kernels import PARALLEL_THRESHOLD
from .._fast_guard import params
from .._fast_guard import plain as _plain_any
from .pool_plan import execute as _execute
from .pool_plan import learn as _learn
from .pooling import K as _K
from .pooling import pool_out_size
from .pooling3d import K3 as _K3
from .prelu_rows import rows as _prelu_rows
from .resample import constant_pad_nd as _constant_pad_nd

_FLOATS = (D.float32, D.float64)
_arange = np.arange
_empty = np.empty


def _plain(x) -> bool:
    return x._dtype in _FLOATS and _plain_any(x)


def _ints(v, n: int):
    """``v`` (an int, or a list/tuple of 1 or ``n`` ints) as ``n`` ints, or None."""
    c = v.__class__
    if c is int:
        return (v,) * n
    if c is tuple or c is list:
        if len(v) == 1:
            if v[0].__class__ is int:
                return (v[0],) * n
        elif len(v) == n:
            for x in v:
                if x.__class__ is not int:
                    return None
            return tuple(v)
    return None


def _nostride(v) -> bool:
    return v is None or (v.__class__ is list or v.__class__ is tuple) and not v


def _out(size, k, s, p, d, ceil_mode):
    """The pooled size when every check of the body passes (else 0: the body raises)."""
    if k <= 0 or s <= 0 or d <= 0 or p < 0 or p > ((k - 1) * d + 1) // 2:
        return 0
    return pool_out_size(size, k, p, s, d, ceil_mode)


# ---- pad ------------------------------------------------------------------------------------------
_PAD_INDEX: dict = {}  # (mode, input's padded sizes, *pad) -> _pad_index's


def _pad_index(mode, sizes, pad):
    """(flat positions, padded sizes) of the padded last dims - the body's 3-d gathers' index
    vectors as one gather over the flattened dims - or None where reflect's pad reaches the
    size (the body's error)."""
    m = len(sizes)
    flat, out = np.zeros((), np.int64), []
    for j in range(m):  # the first padded dim first; ``pad`` lists the last dim first
        size, lo, hi = sizes[j], pad[2 * (m - 1 - j)], pad[2 * (m - 1 - j) + 1]
        if mode == "reflect" and (lo >= size or hi >= size):
            return None
        i = _arange(-lo, size + hi)
        i = (size - 1) - np.abs((size - 1) - np.abs(i)) if mode == "reflect" else i.clip(0, size - 1)
        flat = (flat * size)[..., None] + i  # row-major over the padded dims
        out.append(size + lo + hi)
    return flat.reshape(-1), tuple(out)


def _make_pad(body):
    def fast(input, pad, mode, value):
        a = input._data
        c = pad.__class__
        if _plain(input) and (c is tuple or c is list) and a.size:
            n = len(pad)
            nd = a.ndim
            if n and not n & 1 and n <= 2 * nd:
                for p in pad:
                    if p.__class__ is not int or p < 0:
                        return body(input, pad, mode, value)
                if mode == "constant":
                    if value is None or value.__class__ is float or value.__class__ is int:
                        return _dispatch(_constant_pad_nd, [input, list(pad), 0 if value is None else value])
                elif (mode == "reflect" or mode == "replicate") and value is None and nd - n // 2 in (1, 2):
                    key = (mode, a.shape[nd - n // 2 :], *pad)
                    idx = _PAD_INDEX.get(key)
                    if idx is None:
                        idx = _pad_index(mode, key[1], pad)
                        if idx is None:
                            return body(input, pad, mode, value)
                        if len(_PAD_INDEX) >= 256:
                            _PAD_INDEX.clear()
                        _PAD_INDEX[key] = idx
                    lead = a.shape[: nd - n // 2]
                    r = a.reshape(lead + (-1,)).take(idx[0], -1).reshape(lead + idx[1])
                    return _make(r, input._dtype)
        return body(input, pad, mode, value)

    return fast


# ---- pools ---------------------------------------------------------------------------------------
def _max_planes(a, H, W, k, s, p, d, OH, OW):
    x = np.ascontiguousarray(a)
    out = _empty(a.shape[:-2] + (OH, OW), a.dtype)
    idx = _empty(out.shape, np.int64)
    fn = _K.max_pool2d_parallel if x.size >= PARALLEL_THRESHOLD else _K.max_pool2d
    fn(x.reshape(-1), out.reshape(-1), idx.reshape(-1), H, W, k[0], k[1], s[0], s[1], p[0], p[1], d[0], d[1], OH, OW)
    return out


def _avg_planes(a, H, W, k, s, p, OH, OW, count_include_pad, div):
    x = np.ascontiguousarray(a)
    out = _empty(a.shape[:-2] + (OH, OW), a.dtype)
    fn = _K.avg_pool2d_parallel if x.size >= PARALLEL_THRESHOLD else _K.avg_pool2d
    fn(x.reshape(-1), out.reshape(-1), H, W, k[0], k[1], s[0], s[1], p[0], p[1], OH, OW, count_include_pad, div)
    return out


def _pool_args(input, n, kernel_size, stride, padding, dilation, ceil_mode):
    """(k, s, p, d) as ``n`` ints each for a plain non-empty input of n + 1 or n + 2 dims, or None."""
    a = input._data
    if not (_plain(input) and (a.ndim == n + 1 or a.ndim == n + 2) and a.size and ceil_mode.__class__ is bool):
        return None
    k, p, d = _ints(kernel_size, n), _ints(padding, n), _ints(dilation, n)
    s = k if _nostride(stride) else _ints(stride, n)
    return None if k is None or s is None or p is None or d is None else (k, s, p, d)


# Note [Pool plans]
# A small pool paid ~1.5 us of argument checks per call (_ints per argument, the geometry
# caches' keys, the output shape, the kernel's argument tuple) beside its 0.7 us kernel. Where
# every size argument is an int, None or a tuple of ints and the flags are bools (so that a
# key's equality is the body's: no 2.0 or True standing for 2 or 1), the whole call - which
# kernel, its geometry arguments, the output shape - is planned once per (op, input shape,
# arguments) by the routes below and cached (False: the call declines); a call then checks
# the input, allocates and runs the planned kernel, the same kernel with the same arguments.
_PLANS: dict = {}


def _key_ok(v) -> bool:
    c = v.__class__
    if c is int or v is None:
        return True
    if c is tuple:
        for x in v:
            if x.__class__ is not int:
                return False
        return True
    return False


def _k(v) -> bool:
    # _key_ok without its call for the usual int
    return v.__class__ is int or _key_ok(v)


def _planned(key, input, make, *args):
    """The plan of ``key`` run on ``input`` (``make(input, *args)`` plans its first call), or
    None where it declines: pool_plan.run without a closure per call (Note [Pool plans])."""
    p = _PLANS.get(key)
    if p is None:
        p = _learn(_PLANS, key, make(input, *args))
    return _execute(_PLANS, key, p, input) if p else None


def _serial(a, serial, parallel):
    return parallel if a.size >= PARALLEL_THRESHOLD else serial


def _geometry1(input, kernel_size, stride, padding, dilation, ceil_mode):
    """(L, k, s, p, d, OL) of a 1-d pool whose checks all pass, else None."""
    g = _pool_args(input, 1, kernel_size, stride, padding, dilation, ceil_mode)
    if g is None:
        return None
    k, s, p, d = g
    L = input._data.shape[-1]
    OL = _out(L, k[0], s[0], p[0], d[0], ceil_mode)
    return (L, k[0], s[0], p[0], d[0], OL) if OL >= 1 else None


def _plan_max_pool1d(input, kernel_size, stride, padding, dilation, ceil_mode):
    g = _geometry1(input, kernel_size, stride, padding, dilation, ceil_mode)
    if g is not None and g[3] <= g[1] // 2:
        return _K.max_pool1d_rows, g, input._data.shape[:-1] + (g[5],), False, None
    return None


def _make_max_pool1d(body):
    def fast(input, kernel_size, stride, padding, dilation, ceil_mode, return_indices):
        if return_indices is False and ceil_mode.__class__ is bool and _k(kernel_size) and _k(stride) \
                and _k(padding) and _k(dilation) and _plain(input):  # fmt: skip
            r = _planned(("max1", input._data.shape, input._dtype, kernel_size, stride, padding, dilation, ceil_mode), input,
                         _plan_max_pool1d, kernel_size, stride, padding, dilation, ceil_mode)  # fmt: skip
            return body(input, kernel_size, stride, padding, dilation, ceil_mode, return_indices) if r is None else r
        if return_indices is False:
            g = _geometry1(input, kernel_size, stride, padding, dilation, ceil_mode)
            # ATen's check_max_pool1d also wants padding <= kernel_size // 2
            if g is not None and g[3] <= g[1] // 2:
                L, k, s, p, d, OL = g
                a = np.ascontiguousarray(input._data)
                out = _empty(a.shape[:-1] + (OL,), a.dtype)
                _K.max_pool1d_rows(a.reshape(-1), out.reshape(-1), L, k, s, p, d, OL)
                return _make(out, input._dtype)
        return body(input, kernel_size, stride, padding, dilation, ceil_mode, return_indices)

    return fast


def _plan_avg_pool1d(input, kernel_size, stride, padding, ceil_mode, count_include_pad):
    g = _geometry1(input, kernel_size, stride, padding, 1, ceil_mode)
    if g is None:
        return None
    L, k, s, p, _, OL = g
    a = input._data
    fn = _serial(a, _K.avg_pool2d, _K.avg_pool2d_parallel)  # (..., 1, L) planes, as _avg_planes
    return fn, (1, L, 1, k, 1, s, 0, p, 1, OL, count_include_pad, 0), a.shape[:-1] + (OL,), False, None


def _make_avg_pool1d(body):
    def fast(input, kernel_size, stride, padding, ceil_mode, count_include_pad):
        if count_include_pad.__class__ is bool and ceil_mode.__class__ is bool and _k(kernel_size) and _k(stride) \
                and _k(padding) and _plain(input):  # fmt: skip
            r = _planned(("avg1", input._data.shape, input._dtype, kernel_size, stride, padding, ceil_mode, count_include_pad),
                         input, _plan_avg_pool1d, kernel_size, stride, padding, ceil_mode, count_include_pad)  # fmt: skip
            return body(input, kernel_size, stride, padding, ceil_mode, count_include_pad) if r is None else r
        if count_include_pad.__class__ is bool:
            g = _geometry1(input, kernel_size, stride, padding, 1, ceil_mode)
            if g is not None:
                L, k, s, p, _, OL = g
                a = input._data
                out = _avg_planes(a.reshape(a.shape[:-1] + (1, L)), 1, L, (1, k), (1, s), (0, p), 1, OL,
                                  count_include_pad, 0)  # fmt: skip
                return _make(out.reshape(a.shape[:-1] + (OL,)), input._dtype)
        return body(input, kernel_size, stride, padding, ceil_mode, count_include_pad)

    return fast


_GEO2: dict = {}  # (H, W, k, s, p, d, ceil_mode) -> _geometry2's answer


def _geometry2(input, kernel_size, stride, padding, dilation, ceil_mode):
    g = _pool_args(input, 2, kernel_size, stride, padding, dilation, ceil_mode)
    if g is None:
        return None
    k, s, p, d = g
    H, W = input._data.shape[-2:]
    key = (H, W, k, s, p, d, ceil_mode)
    g = _GEO2.get(key, _GEO2)
    if g is _GEO2:
        OH = _out(H, k[0], s[0], p[0], d[0], ceil_mode)
        OW = _out(W, k[1], s[1], p[1], d[1], ceil_mode)
        g = (H, W, k, s, p, d, OH, OW) if OH >= 1 and OW >= 1 else None
        if len(_GEO2) >= 256:
            _GEO2.clear()
        _GEO2[key] = g
    return g


def _plan_max_pool2d(input, kernel_size, stride, padding, dilation, ceil_mode):
    g = _geometry2(input, kernel_size, stride, padding, dilation, ceil_mode)
    if g is None:
        return None
    H, W, k, s, p, d, OH, OW = g
    a = input._data
    fn = _serial(a, _K.max_pool2d, _K.max_pool2d_parallel)
    return fn, (H, W, k[0], k[1], s[0], s[1], p[0], p[1], d[0], d[1], OH, OW), a.shape[:-2] + (OH, OW), True, None


def _make_max_pool2d(body):
    def fast(input, kernel_size, stride, padding, dilation, ceil_mode, return_indices):
        if return_indices is False and ceil_mode.__class__ is bool and _k(kernel_size) and _k(stride) \
                and _k(padding) and _k(dilation) and _plain(input):  # fmt: skip
            r = _planned(("max2", input._data.shape, input._dtype, kernel_size, stride, padding, dilation, ceil_mode), input,
                         _plan_max_pool2d, kernel_size, stride, padding, dilation, ceil_mode)  # fmt: skip
            return body(input, kernel_size, stride, padding, dilation, ceil_mode, return_indices) if r is None else r
        if return_indices is False:
            g = _geometry2(input, kernel_size, stride, padding, dilation, ceil_mode)
            if g is not None:
                return _make(_max_planes(input._data, *g), input._dtype)
        return body(input, kernel_size, stride, padding, dilation, ceil_mode, return_indices)

    return fast


def _plan_avg_pool2d(input, kernel_size, stride, padding, ceil_mode, count_include_pad, divisor_override):
    g = _geometry2(input, kernel_size, stride, padding, 1, ceil_mode)
    if g is None:
        return None
    H, W, k, s, p, _, OH, OW = g
    a = input._data
    fn = _serial(a, _K.avg_pool2d, _K.avg_pool2d_parallel)
    args = (H, W, k[0], k[1], s[0], s[1], p[0], p[1], OH, OW, count_include_pad, divisor_override or 0)
    return fn, args, a.shape[:-2] + (OH, OW), False, None


def _make_avg_pool2d(body):
    def fast(input, kernel_size, stride, padding, ceil_mode, count_include_pad, divisor_override):
        if count_include_pad.__class__ is bool and (
            divisor_override is None or divisor_override.__class__ is int and divisor_override
        ):
            if ceil_mode.__class__ is bool and _k(kernel_size) and _k(stride) and _k(padding) and _plain(input):
                key = ("avg2", input._data.shape, input._dtype, kernel_size, stride, padding, ceil_mode, count_include_pad,
                       divisor_override)  # fmt: skip
                r = _planned(key, input, _plan_avg_pool2d, kernel_size, stride, padding, ceil_mode, count_include_pad,
                             divisor_override)  # fmt: skip
                if r is not None:
                    return r
                return body(input, kernel_size, stride, padding, ceil_mode, count_include_pad, divisor_override)
            g = _geometry2(input, kernel_size, stride, padding, 1, ceil_mode)
            if g is not None:
                H, W, k, s, p, _, OH, OW = g
                out = _avg_planes(input._data, H, W, k, s, p, OH, OW, count_include_pad, divisor_override or 0)
                return _make(out, input._dtype)
        return body(input, kernel_size, stride, padding, ceil_mode, count_include_pad, divisor_override)

    return fast


_GEO3: dict = {}  # (sizes, k, s, p, d, ceil_mode, avg) -> (geometry array, output sizes) or None


def _geometry3(input, kernel_size, stride, padding, dilation, ceil_mode, avg):
    """The 3-d kernels' geometry array (Note [3-D pooling geometry]) when every check passes."""
    g = _pool_args(input, 3, kernel_size, stride, padding, dilation, ceil_mode)
    if g is None:
        return None
    k, s, p, d = g
    a = input._data
    sp = a.shape[-3:]
    key = (sp, k, s, p, d, ceil_mode, avg)
    g = _GEO3.get(key, _GEO3)
    if g is _GEO3:
        g, osp = None, []
        for i in range(3):
            o = _out(sp[i], k[i], s[i], p[i], d[i], ceil_mode)
            # avg_pool3d refuses an input smaller than the kernel
            if o < 1 or avg and sp[i] < k[i]:
                break
            osp.append(o)
        else:
            g = np.array([*sp, *k, *s, *p, *d, *osp], np.int64), tuple(osp)
        if len(_GEO3) >= 256:
            _GEO3.clear()
        _GEO3[key] = g
    return g


def _plan_3d(input, kernel_size, stride, padding, dilation, ceil_mode, cip, div):
    """max_pool3d's plan (``cip`` None) or avg_pool3d's."""
    g = _geometry3(input, kernel_size, stride, padding, dilation, ceil_mode, cip is not None)
    if g is None:
        return None
    a = input._data
    oshape = a.shape[:-3] + g[1]
    if cip is None:
        return _serial(a, _K3.max_pool3d, _K3.max_pool3d_parallel), (g[0],), oshape, True, None
    return _serial(a, _K3.avg_pool3d, _K3.avg_pool3d_parallel), (g[0], cip, div or 0), oshape, False, None


def _max_pool3d(input, kernel_size, stride, padding, dilation, ceil_mode):
    if ceil_mode.__class__ is bool and _k(kernel_size) and _k(stride) and _k(padding) and _k(dilation) \
            and _plain(input):  # fmt: skip
        return _planned(("max3", input._data.shape, input._dtype, kernel_size, stride, padding, dilation, ceil_mode), input,
                        _plan_3d, kernel_size, stride, padding, dilation, ceil_mode, None, None)  # fmt: skip
    g = _geometry3(input, kernel_size, stride, padding, dilation, ceil_mode, False)
    if g is None:
        return None
    a = np.ascontiguousarray(input._data)
    out = _empty(a.shape[:-3] + g[1], a.dtype)
    idx = _empty(out.shape, np.int64)
    fn = _K3.max_pool3d_parallel if a.size >= PARALLEL_THRESHOLD else _K3.max_pool3d
    fn(a.reshape(-1), out.reshape(-1), idx.reshape(-1), g[0])
    return _make(out, input._dtype)


def _make_max_pool3d(body):
    def fast(input, kernel_size, stride, padding, dilation, ceil_mode, return_indices):
        r = _max_pool3d(input, kernel_size, stride, padding, dilation, ceil_mode) if return_indices is False else None
        return body(input, kernel_size, stride, padding, dilation, ceil_mode, return_indices) if r is None else r

    return fast


def _make_t_max_pool3d(body):  # torch.max_pool3d: no return_indices
    def fast(input, kernel_size, stride, padding, dilation, ceil_mode):
        r = _max_pool3d(input, kernel_size, stride, padding, dilation, ceil_mode)
        return body(input, kernel_size, stride, padding, dilation, ceil_mode) if r is None else r

    return fast


def _make_avg_pool3d(body):
    def fast(input, kernel_size, stride, padding, ceil_mode, count_include_pad, divisor_override):
        if count_include_pad.__class__ is bool and (
            divisor_override is None or divisor_override.__class__ is int and divisor_override
        ):
            if ceil_mode.__class__ is bool and _k(kernel_size) and _k(stride) and _k(padding) and _plain(input):
                key = ("avg3", input._data.shape, input._dtype, kernel_size, stride, padding, ceil_mode, count_include_pad,
                       divisor_override)  # fmt: skip
                r = _planned(key, input, _plan_3d, kernel_size, stride, padding, 1, ceil_mode, count_include_pad,
                             divisor_override)  # fmt: skip
                if r is not None:
                    return r
                return body(input, kernel_size, stride, padding, ceil_mode, count_include_pad, divisor_override)
            g = _geometry3(input, kernel_size, stride, padding, 1, ceil_mode, True)
            if g is not None:
                a = np.ascontiguousarray(input._data)
                out = _empty(a.shape[:-3] + g[1], a.dtype)
                fn = _K3.avg_pool3d_parallel if a.size >= PARALLEL_THRESHOLD else _K3.avg_pool3d
                fn(a.reshape(-1), out.reshape(-1), g[0], count_include_pad, divisor_override or 0)
                return _make(out, input._dtype)
        return body(input, kernel_size, stride, padding, ceil_mode, count_include_pad, divisor_override)

    return fast


# ---- prelu ---------------------------------------------------------------------------------------
def _make_prelu(body):
    def fast(input, weight):
        a, w = input._data, weight._data
        if (
            _plain(input)
            and _plain(weight)
            and input._dtype is weight._dtype
            and a.flags.c_contiguous
            and w.ndim <= 1
            and a.ndim  # 0-d: NumPy's product would be a scalar
            and a.size <= 4096  # larger: the body's own call of the same kernel costs nothing more
        ):
            # Note [PReLU fast call]: Note [PReLU rows]'s kernel through its compiled entry
            # (NumPy's multiply, compare and masked copy cost ~1.5 us of a 3 us small call)
            C = w.size
            if C == 1:
                S = 1
            elif a.ndim >= 2 and C == a.shape[1]:
                S = a.size // (a.shape[0] * C) if a.size else 1
            else:
                return body(input, weight)
            if a.size and w.dtype is a.dtype:
                return _make(_prelu_rows(a, w, C, S), input._dtype)
        return body(input, weight)

    return fast


def install(bindings) -> None:
    """Attach the fast calls above (views.install_fast_paths calls this before _api.install)."""
    makers = {
        ("torch.nn.functional", "max_pool1d"): _make_max_pool1d,
        ("torch.nn.functional", "max_pool2d"): _make_max_pool2d,
        ("torch.nn.functional", "avg_pool1d"): _make_avg_pool1d,
        ("torch.nn.functional", "avg_pool2d"): _make_avg_pool2d,
        ("torch.nn.functional", "max_pool3d"): _make_max_pool3d,
        ("torch", "max_pool3d"): _make_t_max_pool3d,
        ("torch.nn.functional", "avg_pool3d"): _make_avg_pool3d,
        ("torch.nn.functional", "prelu"): _make_prelu,
        ("torch", "prelu"): _make_prelu,
    }
    for b in bindings:
        args = params(b.sig)
        if (b.module, b.name) == ("torch.nn.functional", "pad") and args == ("input", "pad", "mode", "value"):
            b.fast = (_make_pad(b.body), args)
        elif (b.module, b.name) in makers and b.fast is None:
            b.fast = (makers[b.module, b.name](b.body), args)

