"""OpInfos for numtorch/ops/nn/layers_extra.py (prelu, channel_shuffle, local_response_norm,
lp_pool1d/2d, max_unpool1d/2d/3d) and dropout3d, with NumPy references from PyTorch's documented formulas."""

from __future__ import annotations

import numpy as np

from ..core import OpInfo, SampleInput, make_arg

F = "nn.functional."
_T32 = {"float32": (1e-4, 1e-4)}


def _a(dtype, rng, low=-2, high=2):
    return lambda *s: make_arg(s, dtype, rng, low, high)


def _prelu(x, w):
    if w.size != 1 and x.ndim > 1:
        w = w.reshape([1, -1] + [1] * (x.ndim - 2))
    return np.where(x > 0, x, w * x)


def _prelu_samples(dtype, rng):
    a = _a(dtype, rng)
    return [SampleInput(a(2, 3, 4), (a(3),), name="per-channel"), SampleInput(a(2, 3), (a(1),), name="shared"),
            SampleInput(a(5), (a(1),), name="1-d")]  # fmt: skip


def _shuffle(x, groups):
    n, c = x.shape[:2]
    return x.reshape(n, groups, c // groups, *x.shape[2:]).swapaxes(1, 2).reshape(x.shape)


def _lrn(x, size, alpha=1e-4, beta=0.75, k=1.0):
    c = x.shape[1]
    sq = x * x
    div = np.zeros_like(x)
    for ch in range(c):
        lo, hi = ch - size // 2, ch + (size - 1) // 2
        div[:, ch] = sq[:, max(lo, 0) : min(hi, c - 1) + 1].sum(1)
    return x / (k + alpha * div / size) ** beta


def _windows(n, k, s):
    return [(i * s, i * s + k) for i in range((n - k) // s + 1)]


def _lp1(x, p, k, stride=None, ceil_mode=False):
    s = stride or k
    return np.stack([(x[..., a:b] ** p).sum(-1) ** (1 / p) for a, b in _windows(x.shape[-1], k, s)], -1)


def _lp2(x, p, k, stride=None, ceil_mode=False):
    s = stride or k
    rows = [np.stack([(x[..., a:b, c:d] ** p).sum((-2, -1)) ** (1 / p) for c, d in _windows(x.shape[-1], k, s)], -1)
            for a, b in _windows(x.shape[-2], k, s)]  # fmt: skip
    return np.stack(rows, -2)


def _pos(dtype, rng):
    return lambda *s: make_arg(s, dtype, rng, 0.5, 2)


def _unpool_ref(n):
    def ref(x, idx, kernel_size, stride=None, padding=0, output_size=None):
        k = kernel_size
        size = list(output_size) if output_size is not None else [(s - 1) * k + k for s in x.shape[-n:]]
        out = np.zeros(x.shape[:-n] + (int(np.prod(size)),), x.dtype)
        np.put_along_axis(out, idx.reshape(x.shape[:-n] + (-1,)), x.reshape(x.shape[:-n] + (-1,)), -1)
        return out.reshape(x.shape[:-n] + tuple(size))

    return ref


def _unpool_samples(n):
    def gen(dtype, rng):
        pooled, batch = ((2, 3), (2, 3)) if n < 3 else ((2, 1, 2), (1, 2))
        pooled = pooled[:n]
        full = [2 * p for p in pooled]
        # one winner per 2-wide window: flat index of (2 * window + offset) in each dim
        grids = np.meshgrid(*[np.arange(p) for p in pooled], indexing="ij")
        coords = [2 * g + rng.integers(0, 2, g.shape) for g in grids]
        flat = np.ravel_multi_index(coords, full).astype(np.int64)
        idx = np.broadcast_to(flat, batch + tuple(pooled)).copy()
        x = make_arg(batch + tuple(pooled), dtype, rng, -2, 2)
        out = [SampleInput(x, (idx, 2))]
        if n == 2:
            out.append(SampleInput(x, (idx, 2), {"output_size": [5, 7]}, name="output_size"))
        return out

    return gen


def _rrelu_eval(x, lower=0.125, upper=1 / 3, training=False, inplace=False):
    return np.where(x > 0, x, x * (lower + upper) / 2)


LAYERS_EXTRA = [
    OpInfo(F + "rrelu", _rrelu_eval,
           lambda d, r: [SampleInput(_a(d, r)(3, 4)), SampleInput(_a(d, r)(5), (0.1, 0.4), name="bounds")],
           variants=("rrelu", "nn.functional.rrelu_")),
    OpInfo(F + "max_unpool1d", _unpool_ref(1), _unpool_samples(1)),
    OpInfo(F + "max_unpool2d", _unpool_ref(2), _unpool_samples(2)),
    OpInfo(F + "max_unpool3d", _unpool_ref(3), _unpool_samples(3)),
    OpInfo(F + "prelu", _prelu, _prelu_samples, variants=("prelu",)),
    OpInfo(F + "channel_shuffle", _shuffle,
           lambda d, r: [SampleInput(_a(d, r)(2, 6, 3), (3,)), SampleInput(_a(d, r)(1, 4, 2, 2), (2,))],
           variants=("channel_shuffle", "native_channel_shuffle")),
    OpInfo(F + "native_channel_shuffle", _shuffle, lambda d, r: [SampleInput(_a(d, r)(2, 6, 3), (2,))]),
    OpInfo(F + "local_response_norm", _lrn,
           lambda d, r: [SampleInput(_a(d, r)(2, 5, 3), (3,), {"alpha": 0.5}),
                         SampleInput(_a(d, r)(1, 4, 2, 3), (2,), {"alpha": 0.3, "beta": 0.6, "k": 2.0})], tol=_T32),
    OpInfo(F + "lp_pool1d", _lp1,
           lambda d, r: [SampleInput(_pos(d, r)(2, 3, 7), (2.0, 3), {"stride": 2}),
                         SampleInput(_pos(d, r)(1, 2, 6), (1.5, 2))], tol=_T32),
    OpInfo(F + "lp_pool2d", _lp2,
           lambda d, r: [SampleInput(_pos(d, r)(1, 2, 5, 5), (2.0, 2), {"stride": 1}),
                         SampleInput(_pos(d, r)(2, 1, 4, 4), (3.0, 2))], tol=_T32),
    OpInfo(F + "dropout3d", lambda x, p, training=True, inplace=False: x,
           lambda d, r: [SampleInput(_a(d, r)(1, 2, 2, 2, 2), (0.3, False))]),
]  # fmt: skip
