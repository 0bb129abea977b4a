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


LAYERS3D = [
    OpInfo(F + "conv3d", conv3d_ref, _conv3d_samples, tol=_T32, variants=("conv3d",)),
    OpInfo(F + "conv_transpose3d", conv_transpose3d_ref, _convt3d_samples, tol=_T32, variants=("conv_transpose3d",)),
]  # fmt: skip
