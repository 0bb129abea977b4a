"""OpInfos for numtorch/ops/nn/sampling.py (affine_grid, grid_sample) and embedding_bag.py, with
NumPy references written point by point from PyTorch's documented formulas."""

from __future__ import annotations

import itertools

import numpy as np

from ..core import OpInfo, SampleInput, make_arg

F = "nn.functional."


def affine_grid_ref(theta, size, align_corners=None):
    def lin(n):
        if n <= 1:
            return np.zeros(1)
        r = np.linspace(-1, 1, n)
        return r if align_corners else r * (n - 1) / n

    sp = list(size[2:])
    axes = [lin(s) for s in sp]  # (z,) y, x
    mesh = np.meshgrid(*axes, indexing="ij")
    base = np.stack([*reversed(mesh), np.ones_like(mesh[0])], -1)
    return np.einsum("...k,njk->n...j", base, theta).astype(theta.dtype)


def _source(c, size, pad, ac):
    c = (c + 1) / 2 * (size - 1) if ac else ((c + 1) * size - 1) / 2
    if pad == "border":
        c = min(max(c, 0), size - 1)
    elif pad == "reflection":
        lo, hi = (0, 2 * (size - 1)) if ac else (-1, 2 * size - 1)
        if lo == hi:
            return 0.0
        m, span = lo / 2, (hi - lo) / 2
        c = abs(c - m)
        extra, flips = np.fmod(c, span), np.floor(c / span)
        c = extra + m if flips % 2 == 0 else span - extra + m
        c = min(max(c, 0), size - 1)
    return c


def grid_sample_ref(x, grid, mode="bilinear", padding_mode="zeros", align_corners=None):
    """Bilinear / nearest sampling of 4-D input, one output point at a time."""
    N, C, H, W = x.shape
    out = np.zeros((N, C) + grid.shape[1:3], x.dtype)
    for n, i, j in itertools.product(range(N), range(grid.shape[1]), range(grid.shape[2])):
        ix = _source(grid[n, i, j, 0], W, padding_mode, align_corners)
        iy = _source(grid[n, i, j, 1], H, padding_mode, align_corners)
        if mode == "nearest":
            taps = [(np.rint(iy), np.rint(ix), 1.0)]
        else:
            y0, x0 = np.floor(iy), np.floor(ix)
            taps = [(y0 + a, x0 + b, (1 - abs(iy - y0 - a)) * (1 - abs(ix - x0 - b))) for a in (0, 1) for b in (0, 1)]
        for yy, xx, w in taps:
            if 0 <= yy < H and 0 <= xx < W:
                out[n, :, i, j] += w * x[n, :, int(yy), int(xx)]
    return out


def _affine_samples(dtype, rng):
    a = lambda *s: make_arg(s, dtype, rng, -1, 1)  # noqa: E731
    return [SampleInput(a(2, 2, 3), ((2, 3, 3, 4),), {"align_corners": False}),
            SampleInput(a(1, 2, 3), ((1, 1, 2, 3),), {"align_corners": True}),
            SampleInput(a(1, 3, 4), ((1, 2, 2, 3, 2),), {"align_corners": False})]  # fmt: skip


def _grid_samples(dtype, rng):
    a = lambda *s: make_arg(s, dtype, rng, -1, 1)  # noqa: E731
    g = lambda *s: make_arg(s, dtype, rng, -1.2, 1.2)  # noqa: E731
    return [SampleInput(a(1, 2, 3, 3), (g(1, 2, 2, 2),), {"align_corners": False}, name="zeros"),
            SampleInput(a(1, 1, 3, 4), (g(1, 2, 3, 2),), {"padding_mode": "border", "align_corners": True}, name="border"),
            SampleInput(a(2, 1, 3, 3), (g(2, 1, 3, 2),), {"padding_mode": "reflection", "align_corners": False}, name="reflection"),
            SampleInput(a(1, 2, 4, 3), (g(1, 3, 3, 2),), {"mode": "nearest", "align_corners": True}, name="nearest")]  # fmt: skip


def embedding_bag_ref(input, weight, offsets=None, max_norm=None, norm_type=2, scale_grad_by_freq=False,
                      mode="mean", sparse=False, per_sample_weights=None, include_last_offset=False, padding_idx=None):  # fmt: skip
    """One bag at a time: rows of ``weight`` for the bag's indices, padding_idx dropped."""
    if input.ndim == 2:
        bags = [(row, None if per_sample_weights is None else pw)
                for row, pw in zip(input, per_sample_weights if per_sample_weights is not None else input, strict=True)]  # fmt: skip
    else:
        ends = list(offsets[1:]) + ([] if include_last_offset else [len(input)])
        bags = [(input[a:b], None if per_sample_weights is None else per_sample_weights[a:b])
                for a, b in zip(offsets, ends, strict=False)]  # fmt: skip
    pad = None if padding_idx is None else padding_idx % weight.shape[0]
    out = np.zeros((len(bags), weight.shape[1]), weight.dtype)
    for k, (idx, pw) in enumerate(bags):
        keep = [j for j, i in enumerate(idx) if i != pad]
        if not keep:
            continue
        rows = weight[np.asarray(idx)[keep]]
        if pw is not None:
            rows = rows * np.asarray(pw)[keep, None]
        out[k] = {"sum": rows.sum(0), "mean": rows.mean(0), "max": rows.max(0)}[mode]
    return out


def _bag_samples(dtype, rng):
    w = make_arg((6, 3), dtype, rng, -1, 1)
    i1 = np.array([1, 2, 4, 5, 4, 3, 2, 0], np.int64)
    return [SampleInput(i1, (w, np.array([0, 2, 2, 5], np.int64)), {"mode": "sum"}, name="sum_empty_bag"),
            SampleInput(i1, (w, np.array([0, 3, 8], np.int64)), {"mode": "mean", "include_last_offset": True}, name="mean_last"),
            SampleInput(i1, (w, np.array([0, 4], np.int64)), {"mode": "max", "padding_idx": 4}, name="max_padding"),
            SampleInput(i1.reshape(2, 4), (w,), {"mode": "sum", "per_sample_weights": make_arg((2, 4), dtype, rng, 0, 1)}, name="2d_weights")]  # fmt: skip


SAMPLING = [
    OpInfo(F + "embedding_bag", embedding_bag_ref, _bag_samples, dtypes=("float32", "float64"),
           skips={"grad": "integer input: gradients to weight and per_sample_weights are checked in tests/ops/nn/test_embedding_bag.py",
                  "gradgrad": "see grad", "jvp": "see grad"}),
    OpInfo(F + "affine_grid", affine_grid_ref, _affine_samples, dtypes=("float32", "float64")),
    OpInfo(F + "grid_sample", grid_sample_ref, lambda dt, r: _grid_samples(dt, r), dtypes=("float32", "float64"),
           tol={"float32": (1e-5, 1e-5)},
           skips={"grad": "nearest has no grid gradient path; the bilinear samples are checked in tests/ops/nn/test_sampling.py",
                  "gradgrad": "see grad", "jvp": "see grad"}),
]  # fmt: skip
