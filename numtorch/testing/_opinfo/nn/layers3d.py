"""OpInfos for the 3-D nn ops (conv3d, conv_transpose3d and the 3-D pools), with NumPy
references written as direct loops over kernel taps / windows (independent of vol2col)."""

from __future__ import annotations

import itertools

import numpy as np

from ..core import OpInfo, SampleInput, make_arg

F = "nn.functional."
_T32 = {"float32": (1e-4, 1e-4)}


def _n(v, k=3):
    return tuple(v) if isinstance(v, (tuple, list)) else (v,) * k


def _taps(shape):
    return itertools.product(*(range(k) for k in shape))


def conv3d_ref(x, w, b=None, stride=1, padding=0, dilation=1, groups=1):
    """One einsum per kernel tap over strided views of the zero-padded input."""
    unbatched = x.ndim == 4
    x = x[None] if unbatched else x
    s, d = _n(stride), _n(dilation)
    if padding == "same":
        tot = [d[i] * (w.shape[2 + i] - 1) for i in range(3)]
        pads = [(t // 2, t - t // 2) for t in tot]
    else:
        pads = [(p, p) for p in _n(padding)]
    x = np.pad(x, ((0, 0), (0, 0), *pads))
    OC, Cg = w.shape[:2]
    osz = [(x.shape[2 + i] - d[i] * (w.shape[2 + i] - 1) - 1) // s[i] + 1 for i in range(3)]
    out = np.zeros((x.shape[0], OC, *osz), np.result_type(x, w))
    Og = OC // groups
    for g in range(groups):
        for k in _taps(w.shape[2:]):
            sl = tuple(slice(k[i] * d[i], k[i] * d[i] + s[i] * (osz[i] - 1) + 1, s[i]) for i in range(3))
            patch = x[(slice(None), slice(g * Cg, (g + 1) * Cg), *sl)]
            out[:, g * Og : (g + 1) * Og] += np.einsum("ncijk,oc->noijk", patch, w[(slice(g * Og, (g + 1) * Og), slice(None), *k)])
    if b is not None:
        out += b[None, :, None, None, None]
    return out[0] if unbatched else out


def conv_transpose3d_ref(x, w, b=None, stride=1, padding=0, output_padding=0, groups=1, dilation=1):
    """Scatter form: every input position adds weight-scaled taps into the uncropped output."""
    s, p, op, d = _n(stride), _n(padding), _n(output_padding), _n(dilation)
    N, C = x.shape[:2]
    Cg, Og = C // groups, w.shape[1]
    full_sz = [(x.shape[2 + i] - 1) * s[i] + d[i] * (w.shape[2 + i] - 1) + 1 + op[i] for i in range(3)]
    full = np.zeros((N, Og * groups, *full_sz), np.result_type(x, w))
    for g in range(groups):
        for k in _taps(w.shape[2:]):
            contrib = np.einsum("ncijk,co->noijk", x[:, g * Cg : (g + 1) * Cg], w[(slice(g * Cg, (g + 1) * Cg), slice(None), *k)])
            sl = tuple(slice(k[i] * d[i], k[i] * d[i] + s[i] * (x.shape[2 + i] - 1) + 1, s[i]) for i in range(3))
            full[(slice(None), slice(g * Og, (g + 1) * Og), *sl)] += contrib
    out = full[(slice(None), slice(None), *(slice(p[i], full_sz[i] - p[i]) for i in range(3)))]
    if b is not None:
        out = out + b[None, :, None, None, None]
    return out


def _conv3d_samples(dtype, rng):
    a = lambda *s: make_arg(s, dtype, rng, -1, 1)  # noqa: E731
    return [
        SampleInput(a(1, 1, 2, 3, 3), (a(2, 1, 2, 2, 2), a(2)), name="small"),
        SampleInput(a(1, 2, 2, 2, 3), (a(2, 1, 1, 2, 2),), {"groups": 2, "stride": (1, 1, 2), "padding": (0, 1, 0)}, name="small_groups"),
        SampleInput(a(1, 2, 3, 4, 3), (a(2, 2, 2, 2, 2), a(2)), name="basic"),
        SampleInput(a(2, 2, 4, 3, 5), (a(3, 2, 2, 1, 3),), {"stride": (2, 1, 2), "padding": 1}, name="stride_pad"),
        SampleInput(a(1, 4, 4, 3, 3), (a(2, 2, 2, 2, 1),), {"groups": 2, "dilation": (2, 1, 1)}, name="groups"),
        SampleInput(a(2, 3, 3, 3), (a(2, 2, 1, 2, 2), a(2)), {"padding": "same"}, name="unbatched_same"),
    ]  # fmt: skip


def _convt3d_samples(dtype, rng):
    a = lambda *s: make_arg(s, dtype, rng, -1, 1)  # noqa: E731
    return [
        SampleInput(a(1, 2, 2, 3, 2), (a(2, 2, 2, 2, 2), a(2)), name="basic"),
        SampleInput(a(1, 2, 2, 2, 3), (a(2, 1, 3, 2, 2),), {"stride": 2, "padding": 1, "output_padding": 1}, name="stride"),
        SampleInput(a(1, 4, 2, 2, 2), (a(4, 1, 2, 1, 2), a(2)), {"groups": 2, "dilation": (1, 2, 1)}, name="groups"),
    ]  # fmt: skip


def _out(size, k, p, s, d, ceil):
    num = size + 2 * p - d * (k - 1) - 1
    o = (num + (s - 1 if ceil else 0)) // s + 1
    return o - 1 if ceil and (o - 1) * s >= size + p else o


def _volumes(x):
    """(batched x, whether the input was unbatched)."""
    return (x[None], True) if x.ndim == 4 else (x, False)


def max_pool3d_ref(x, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False, return_indices=False):
    """Window maxima over the grid of taps (first maximum wins, NaN propagates)."""
    x, unb = _volumes(x)
    k, p, d = _n(kernel_size), _n(padding), _n(dilation)
    s = _n(stride) if stride else k
    sp = x.shape[2:]
    osz = [_out(sp[i], k[i], p[i], s[i], d[i], ceil_mode) for i in range(3)]
    out = np.empty(x.shape[:2] + tuple(osz), x.dtype)
    idx = np.empty(out.shape, np.int64)
    for o in itertools.product(*(range(v) for v in osz)):
        taps = [[o[i] * s[i] - p[i] + t * d[i] for t in range(k[i])] for i in range(3)]
        taps = [[t for t in ts if 0 <= t < sp[i]] for i, ts in enumerate(taps)]
        flat = [np.ravel_multi_index(c, sp) for c in itertools.product(*taps)]
        vals = x.reshape(x.shape[:2] + (-1,))[..., flat]
        pos = np.where(np.isnan(vals).any(-1), np.isnan(vals).argmax(-1), vals.argmax(-1))
        out[(..., *o)] = np.take_along_axis(vals, pos[..., None], -1)[..., 0]
        idx[(..., *o)] = np.asarray(flat)[pos]
    out, idx = (out[0], idx[0]) if unb else (out, idx)
    return (out, idx) if return_indices else out


def avg_pool3d_ref(x, kernel_size, stride=None, padding=0, ceil_mode=False, count_include_pad=True,
                   divisor_override=None):  # fmt: skip
    x, unb = _volumes(x)
    k, p = _n(kernel_size), _n(padding)
    s = _n(stride) if stride else k
    sp = x.shape[2:]
    osz = [_out(sp[i], k[i], p[i], s[i], 1, ceil_mode) for i in range(3)]
    out = np.empty(x.shape[:2] + tuple(osz), x.dtype)
    for o in itertools.product(*(range(v) for v in osz)):
        lo = [o[i] * s[i] - p[i] for i in range(3)]
        hi = [min(lo[i] + k[i], sp[i] + p[i]) for i in range(3)]
        full = np.prod([hi[i] - lo[i] for i in range(3)])
        lo, hi = [max(v, 0) for v in lo], [min(hi[i], sp[i]) for i in range(3)]
        win = x[(..., *(slice(lo[i], hi[i]) for i in range(3)))]
        n = divisor_override or (full if count_include_pad else win[0, 0].size)
        out[(..., *o)] = win.sum((-3, -2, -1)) / n
    return out[0] if unb else out


def _adaptive(x, output_size, reduce):
    x, unb = _volumes(x)
    sp = x.shape[2:]
    osz = [sp[i] if v is None else v for i, v in enumerate(_n(output_size))]
    out = np.empty(x.shape[:2] + tuple(osz), x.dtype)
    for o in itertools.product(*(range(v) for v in osz)):
        sl = tuple(slice(o[i] * sp[i] // osz[i], -(-(o[i] + 1) * sp[i] // osz[i])) for i in range(3))
        out[(..., *o)] = reduce(x[(..., *sl)], axis=(-3, -2, -1))
    return out[0] if unb else out


def _pool3d_samples(dtype, rng, kind):
    a = lambda *s: make_arg(s, dtype, rng, -2, 2)  # noqa: E731
    if kind == "max":
        return [SampleInput(a(1, 1, 2, 3, 3), (2,), {"stride": 1}, name="small"),
                SampleInput(a(1, 2, 4, 3, 5), ((2, 2, 3),), {"stride": (1, 2, 1), "padding": (1, 0, 1), "dilation": (1, 1, 2), "ceil_mode": True}, name="general"),
                SampleInput(a(2, 3, 4, 4), (2,), {"return_indices": True}, name="unbatched_indices")]  # fmt: skip
    if kind == "avg":
        return [SampleInput(a(1, 1, 2, 3, 3), (2,), {"stride": 1, "padding": 1}, name="small"),
                SampleInput(a(1, 2, 4, 3, 5), ((2, 2, 3),), {"stride": 2, "padding": (1, 1, 0), "ceil_mode": True, "count_include_pad": False}, name="general"),
                SampleInput(a(2, 4, 4, 4), (2,), {"divisor_override": 3}, name="unbatched_divisor")]  # fmt: skip
    if kind == "lp":
        return [SampleInput(make_arg((1, 1, 2, 3, 3), dtype, rng, 0.5, 2), (2.0, 2), {"stride": 1}, name="small"),
                SampleInput(make_arg((1, 2, 4, 4, 4), dtype, rng, 0.5, 2), (3.0, (2, 2, 3)), {"stride": (2, 1, 1)})]  # fmt: skip
    return [SampleInput(a(1, 1, 3, 2, 3), ((2, 1, 2),), name="small"),
            SampleInput(a(2, 2, 5, 4, 6), ((3, None, 4),), name="general"),
            SampleInput(a(2, 3, 3, 5), (2,), name="unbatched")]  # fmt: skip


def _lp_ref(x, norm_type, kernel_size, stride=None, ceil_mode=False):
    out = avg_pool3d_ref(x ** norm_type, kernel_size, stride, 0, ceil_mode)
    return (np.sign(out) * np.maximum(np.abs(out), 0) * np.prod(_n(kernel_size))) ** (1.0 / norm_type)


def _max_adaptive_ref(x, output_size, return_indices=False):
    return _adaptive(x, output_size, np.max)


LAYERS3D = [
    OpInfo(F + "conv3d", conv3d_ref, _conv3d_samples, tol=_T32, variants=("conv3d",)),
    OpInfo(F + "conv_transpose3d", conv_transpose3d_ref, _convt3d_samples, tol=_T32, variants=("conv_transpose3d",)),
    OpInfo(F + "max_pool3d", max_pool3d_ref, lambda dt, r: _pool3d_samples(dt, r, "max"), dtypes=("float32", "float64", "int64")),
    OpInfo(F + "max_pool3d_with_indices", lambda *a, **k: max_pool3d_ref(*a, **{**k, "return_indices": True}),
           lambda dt, r: _pool3d_samples(dt, r, "max")[:2]),
    OpInfo("max_pool3d", max_pool3d_ref, lambda dt, r: _pool3d_samples(dt, r, "max")[:2]),
    OpInfo(F + "avg_pool3d", avg_pool3d_ref, lambda dt, r: _pool3d_samples(dt, r, "avg"), tol=_T32),
    OpInfo(F + "lp_pool3d", _lp_ref, lambda dt, r: _pool3d_samples(dt, r, "lp"), tol=_T32),
    OpInfo(F + "adaptive_avg_pool3d", lambda x, o: _adaptive(x, o, np.mean), lambda dt, r: _pool3d_samples(dt, r, "adaptive"), tol=_T32),
    OpInfo(F + "adaptive_max_pool3d", _max_adaptive_ref, lambda dt, r: _pool3d_samples(dt, r, "adaptive")),
    OpInfo(F + "adaptive_max_pool3d_with_indices", lambda x, o: (_adaptive(x, o, np.max), None),
           lambda dt, r: _pool3d_samples(dt, r, "adaptive")[:2], skips={"values": "indices are compared with torch in tests/parity/test_nn_3d_parity.py"}),
]  # fmt: skip
