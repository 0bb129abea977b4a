"""Note [Window walks without trip counts]: the max-pool kernels' while-loop window walks and the
adaptive pools' once-per-call window bounds give a brute-force NumPy pool's values and argmax
indices (first maximum wins, NaN wins) over dilation, padding, ceil_mode, ties, NaN, dtypes and
the parallel kernels; a window that dilation leaves empty gives PyTorch's -inf (the integer
type's lowest value) instead of reading past its plane."""

from __future__ import annotations

import math

import numpy as np
import pytest

import numtorch as torch
import numtorch.nn.functional as F
from numtorch.kernels import PARALLEL_THRESHOLD


def _out(size, k, s, p, d, ceil):
    n = size + 2 * p - d * (k - 1) - 1 + (s - 1 if ceil else 0)
    o = n // s + 1
    return o - 1 if ceil and (o - 1) * s >= size + p else o


def _lowest(dt):
    return -np.inf if dt.kind == "f" else np.iinfo(dt).min


def _ref_max_pool(x, k, s, p, d, ceil):
    """Brute-force max pool over the last len(k) dims: values and flat argmax indices."""
    n = len(k)
    sp = x.shape[-n:]
    osz = [_out(sp[i], k[i], s[i], p[i], d[i], ceil) for i in range(n)]
    lead = x.shape[:-n]
    vals = np.empty(lead + tuple(osz), x.dtype)
    idx = np.empty(lead + tuple(osz), np.int64)
    planes = x.reshape(-1, *sp)
    vf, jf = vals.reshape(len(planes), -1), idx.reshape(len(planes), -1)
    for o, opos in enumerate(np.ndindex(*osz)):
        starts = [opos[i] * s[i] - p[i] for i in range(n)]
        taps = [
            [starts[i] + t * d[i] for t in range(k[i]) if 0 <= starts[i] + t * d[i] < sp[i]]
            for i in range(n)
        ]
        first = [
            next(starts[i] + t * d[i] for t in range(k[i]) if starts[i] + t * d[i] >= 0)
            for i in range(n)
        ]
        for q, plane in enumerate(planes):
            at = int(np.ravel_multi_index(first, sp, mode="wrap")) if all(taps) else None
            best = plane[tuple(first)] if all(taps) else _lowest(x.dtype)
            for pos in np.ndindex(*[len(t) for t in taps]):
                tap = tuple(taps[i][pos[i]] for i in range(n))
                v = plane[tap]
                if v > best or v != v:
                    best, at = v, int(np.ravel_multi_index(tap, sp))
            vf[q, o] = best
            # an empty window's index is PyTorch's: the first in-range start, flattened
            jf[q, o] = (
                at if at is not None else sum(first[i] * math.prod(sp[i + 1 :]) for i in range(n))
            )
    return vals, idx


def _sample(rng, shape, dt):
    if np.dtype(dt).kind == "i":
        return rng.integers(-4, 4, shape).astype(dt)
    a = rng.standard_normal(shape).astype(dt)
    a[rng.random(shape) < 0.3] = 0.5  # ties: the first maximum keeps its index
    a[rng.random(shape) < 0.1] = np.nan
    return a


def _geometry(rng, n):
    k = [int(rng.integers(1, 4)) for _ in range(n)]
    d = [int(rng.integers(1, 3)) for _ in range(n)]
    s = [int(rng.integers(1, 4)) for _ in range(n)]
    p = [int(rng.integers(0, ((k[i] - 1) * d[i] + 1) // 2 + 1)) for i in range(n)]
    return k, s, p, d, bool(rng.integers(0, 2))


@pytest.mark.parametrize("dt", ["float32", "float64", "int64"])
def test_max_pool2d_matches_bruteforce(dt):
    rng = np.random.default_rng(18)
    for _ in range(40):
        k, s, p, d, ceil = _geometry(rng, 2)
        shape = (
            int(rng.integers(1, 3)),
            int(rng.integers(1, 3)),
            int(rng.integers(1, 9)),
            int(rng.integers(1, 9)),
        )
        if min(_out(shape[2 + i], k[i], s[i], p[i], d[i], ceil) for i in range(2)) < 1:
            continue
        a = _sample(rng, shape, dt)
        v, i = F.max_pool2d(torch.from_numpy(a), k, s, p, d, ceil, return_indices=True)
        rv, ri = _ref_max_pool(a, k, s, p, d, ceil)
        np.testing.assert_array_equal(v.numpy(), rv)
        np.testing.assert_array_equal(i.numpy(), ri)


@pytest.mark.parametrize("dt", ["float32", "float64"])
def test_max_pool3d_matches_bruteforce(dt):
    rng = np.random.default_rng(183)
    for _ in range(25):
        k, s, p, d, ceil = _geometry(rng, 3)
        shape = (
            1,
            int(rng.integers(1, 3)),
            int(rng.integers(1, 5)),
            int(rng.integers(1, 6)),
            int(rng.integers(1, 6)),
        )
        if min(_out(shape[2 + i], k[i], s[i], p[i], d[i], ceil) for i in range(3)) < 1:
            continue
        a = _sample(rng, shape, dt)
        v, i = F.max_pool3d(torch.from_numpy(a), k, s, p, d, ceil, return_indices=True)
        rv, ri = _ref_max_pool(a, k, s, p, d, ceil)
        np.testing.assert_array_equal(v.numpy(), rv)
        np.testing.assert_array_equal(i.numpy(), ri)


def test_max_pool1d_matches_bruteforce():
    rng = np.random.default_rng(181)
    for _ in range(40):
        (k,), (s,), (p,), (d,), ceil = _geometry(rng, 1)
        p = min(p, k // 2)  # max_pool1d's own check
        L = int(rng.integers(1, 12))
        if _out(L, k, s, p, d, ceil) < 1:
            continue
        a = _sample(rng, (2, 3, L), "float32")
        rv, _ = _ref_max_pool(a, [k], [s], [p], [d], ceil)
        np.testing.assert_array_equal(
            F.max_pool1d(torch.from_numpy(a), k, s, p, d, ceil).numpy(), rv
        )


def test_parallel_kernels_match_bruteforce():
    # above PARALLEL_THRESHOLD the body runs the prange twins of the same window walk
    rng = np.random.default_rng(5)
    a = _sample(rng, (PARALLEL_THRESHOLD // 64 + 8, 1, 8, 8), "float32")
    k, s, p, d = [3, 2], [2, 2], [1, 1], [2, 1]
    v, i = F.max_pool2d(torch.from_numpy(a), k, s, p, d, True, return_indices=True)
    rv, ri = _ref_max_pool(a[:64], k, s, p, d, True)
    np.testing.assert_array_equal(v.numpy()[:64], rv)
    np.testing.assert_array_equal(i.numpy()[:64], ri)
    a3 = _sample(rng, (PARALLEL_THRESHOLD // 64 + 8, 1, 4, 4, 4), "float64")
    v, i = F.max_pool3d(torch.from_numpy(a3), 2, 2, 1, 2, True, return_indices=True)
    rv, ri = _ref_max_pool(a3[:16], [2] * 3, [2] * 3, [1] * 3, [2] * 3, True)
    np.testing.assert_array_equal(v.numpy()[:16], rv)
    np.testing.assert_array_equal(i.numpy()[:16], ri)


@pytest.mark.parametrize("dt", ["float32", "float64", "int64", "int32", "int16", "int8", "uint8"])
def test_empty_window_is_lowest(dt):
    # kernel height 2 at dilation 2 with padding 1 over one row: the window's start steps from
    # -1 to 1, past its end; PyTorch gives -inf (the type's lowest) and index h0 * W + w0
    a = np.arange(18).reshape(1, 2, 1, 9).astype(dt)
    lo = _lowest(np.dtype(dt))
    v, i = F.max_pool2d(
        torch.from_numpy(a), (2, 2), (1, 1), (1, 1), (2, 1), True, return_indices=True
    )
    assert v.dtype == getattr(torch, dt) and v.shape == (1, 2, 1, 10)
    assert (v.numpy() == lo).all()
    np.testing.assert_array_equal(i.numpy()[0, 0, 0], [9, 9, 10, 11, 12, 13, 14, 15, 16, 17])
    a3 = a.reshape(1, 2, 1, 1, 9)
    v, i = F.max_pool3d(
        torch.from_numpy(a3), (2, 1, 2), 1, (1, 0, 1), (2, 1, 1), True, return_indices=True
    )
    assert (v.numpy() == lo).all()
    np.testing.assert_array_equal(i.numpy()[0, 0, 0, 0], [9, 9, 10, 11, 12, 13, 14, 15, 16, 17])


def test_empty_window_max_pool1d():
    # max_pool1d's own row kernel (no indices) and its with-indices route over a 1-long row
    x = torch.arange(2.0).reshape(2, 1)
    assert F.max_pool1d(x, 2, 1, 1, 2).tolist() == [[-np.inf], [-np.inf]]
    v, i = F.max_pool1d(x, 2, 1, 1, 2, return_indices=True)
    assert v.tolist() == [[-np.inf], [-np.inf]] and i.tolist() == [[1], [1]]


def _ref_adaptive(x, osz, is_max):
    H, W = x.shape[-2:]
    OH, OW = osz
    planes = x.reshape(-1, H, W)
    vals = np.empty((len(planes), OH, OW), x.dtype)
    idx = np.empty((len(planes), OH, OW), np.int64)
    for oh in range(OH):
        h0, h1 = oh * H // OH, -(-(oh + 1) * H // OH)
        for ow in range(OW):
            w0, w1 = ow * W // OW, -(-(ow + 1) * W // OW)
            for q, plane in enumerate(planes):
                if is_max:
                    best, at = plane[h0, w0], h0 * W + w0
                    for h in range(h0, h1):
                        for w in range(w0, w1):
                            if plane[h, w] > best or plane[h, w] != plane[h, w]:
                                best, at = plane[h, w], h * W + w
                    vals[q, oh, ow], idx[q, oh, ow] = best, at
                else:
                    acc = x.dtype.type(0)
                    for h in range(h0, h1):
                        for w in range(w0, w1):
                            acc += plane[h, w]  # the kernel's order: row by row
                    vals[q, oh, ow] = acc / x.dtype.type((h1 - h0) * (w1 - w0))
    shape = x.shape[:-2] + (OH, OW)
    return vals.reshape(shape), idx.reshape(shape)


@pytest.mark.parametrize("dt", ["float32", "float64"])
def test_adaptive_pools_match_bruteforce(dt):
    rng = np.random.default_rng(7)
    for _ in range(20):
        shape = (
            int(rng.integers(1, 3)),
            int(rng.integers(1, 4)),
            int(rng.integers(1, 10)),
            int(rng.integers(1, 10)),
        )
        osz = (int(rng.integers(1, 8)), int(rng.integers(1, 8)))
        a = _sample(rng, shape, dt)
        v, i = F.adaptive_max_pool2d(torch.from_numpy(a), osz, return_indices=True)
        rv, ri = _ref_adaptive(a, osz, True)
        np.testing.assert_array_equal(v.numpy(), rv)
        np.testing.assert_array_equal(i.numpy(), ri)
        a = rng.standard_normal(shape).astype(dt)
        rv, _ = _ref_adaptive(a, osz, False)
        np.testing.assert_array_equal(F.adaptive_avg_pool2d(torch.from_numpy(a), osz).numpy(), rv)


def _ref_adaptive_max3d(x, osz):
    sp = x.shape[-3:]
    planes = x.reshape(-1, *sp)
    vals = np.empty((len(planes), *osz), x.dtype)
    idx = np.empty((len(planes), *osz), np.int64)
    for o in np.ndindex(*osz):
        lo = [o[i] * sp[i] // osz[i] for i in range(3)]
        hi = [-(-(o[i] + 1) * sp[i] // osz[i]) for i in range(3)]
        for q, plane in enumerate(planes):
            best, at = plane[tuple(lo)], int(np.ravel_multi_index(lo, sp))
            for pos in np.ndindex(*[hi[i] - lo[i] for i in range(3)]):
                tap = tuple(lo[i] + pos[i] for i in range(3))
                if plane[tap] > best or plane[tap] != plane[tap]:
                    best, at = plane[tap], int(np.ravel_multi_index(tap, sp))
            vals[(q, *o)], idx[(q, *o)] = best, at
    return vals.reshape(x.shape[:-3] + tuple(osz)), idx.reshape(x.shape[:-3] + tuple(osz))


@pytest.mark.parametrize("dt", ["float32", "float64"])
def test_adaptive_max_pool3d_matches_bruteforce(dt):
    # four volumes per window and the P % 4 remainder (P = N * C from 1 to 9)
    rng = np.random.default_rng(33)
    for _ in range(12):
        shape = (*(int(v) for v in rng.integers(1, 4, 2)), *(int(v) for v in rng.integers(1, 7, 3)))
        osz = tuple(int(v) for v in rng.integers(1, 6, 3))
        a = _sample(rng, shape, dt)
        v, i = F.adaptive_max_pool3d(torch.from_numpy(a), osz, return_indices=True)
        rv, ri = _ref_adaptive_max3d(a, osz)
        np.testing.assert_array_equal(v.numpy(), rv)
        np.testing.assert_array_equal(i.numpy(), ri)
