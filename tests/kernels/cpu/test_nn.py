"""The nn kernels (conv, pooling, nn, loss) as plain functions on NumPy arrays, against direct NumPy."""

from __future__ import annotations

import numpy as np
import pytest

from numtorch.kernels.cpu.nn import conv, loss, pooling
from numtorch.kernels.cpu.nn import layer_norm as ln
from numtorch.kernels.cpu.nn import layers as nn
from numtorch.testing._opinfo.nn.core import avg_pool2d_ref, max_pool2d_ref

GEOMS = [  # C, H, W, KH, KW, SH, SW, PH, PW, DH, DW
    (2, 5, 6, 3, 2, 1, 1, 0, 0, 1, 1),
    (3, 7, 6, 3, 3, 2, 1, 1, 0, 1, 2),
    (1, 4, 9, 2, 3, 1, 2, 1, 1, 2, 1),
    (2, 1, 8, 1, 3, 1, 3, 0, 2, 1, 1),
]


def _out(H, K, S, P, D):
    return (H + 2 * P - D * (K - 1) - 1) // S + 1


def _im2col_np(x, C, H, W, KH, KW, SH, SW, PH, PW, DH, DW, OH, OW):
    N = x.shape[0]
    xp = np.pad(x, ((0, 0), (0, 0), (PH, PH), (PW, PW)))
    cols = np.empty((N, C, KH, KW, OH, OW), x.dtype)
    for kh in range(KH):
        for kw in range(KW):
            cols[:, :, kh, kw] = xp[
                :,
                :,
                kh * DH : kh * DH + SH * (OH - 1) + 1 : SH,
                kw * DW : kw * DW + SW * (OW - 1) + 1 : SW,
            ]
    return cols.reshape(N, C * KH * KW, OH * OW)


@pytest.mark.parametrize("geom", GEOMS)
@pytest.mark.parametrize("dtype", ["float32", "float64", "int64"])
def test_im2col_matches_strided_gather(geom, dtype, rng):
    C, H, W, KH, KW, SH, SW, PH, PW, DH, DW = geom
    OH, OW = _out(H, KH, SH, PH, DH), _out(W, KW, SW, PW, DW)
    x = (rng.standard_normal((2, C, H, W)) * 5).astype(dtype)
    want = _im2col_np(x, *geom, OH, OW)
    for fn in (conv.im2col, conv.im2col_parallel):
        cols = np.full(want.size, 99, dtype)
        fn(x.reshape(-1), cols, *geom, OH, OW)
        np.testing.assert_array_equal(cols.reshape(want.shape), want)


@pytest.mark.parametrize("geom", GEOMS)
def test_col2im_is_the_adjoint_of_im2col(geom, rng):
    C, H, W, KH, KW, SH, SW, PH, PW, DH, DW = geom
    OH, OW = _out(H, KH, SH, PH, DH), _out(W, KW, SW, PW, DW)
    x = rng.standard_normal((2, C, H, W))
    cols_in = rng.standard_normal(2 * C * KH * KW * OH * OW)
    cols = np.empty_like(cols_in)
    conv.im2col(x.reshape(-1), cols, *geom, OH, OW)
    for fn in (conv.col2im, conv.col2im_parallel):
        back = np.full(x.size, 7.0)  # the kernel must overwrite, not accumulate into, its output
        fn(cols_in, back, *geom, OH, OW)
        np.testing.assert_allclose(np.dot(cols, cols_in), np.dot(x.reshape(-1), back), rtol=1e-10)


def test_channel_bias_and_sum(rng):
    out = rng.standard_normal((2, 3, 5))
    b = rng.standard_normal(3)
    flat = out.copy().reshape(-1)
    conv.add_channel_bias(flat, b, 3, 5)
    np.testing.assert_allclose(flat.reshape(out.shape), out + b[:, None])
    s = np.empty(3)
    conv.channel_sum(out.reshape(-1), s, 3, 5)
    np.testing.assert_allclose(s, out.sum(axis=(0, 2)))


POOLS = [
    ((2, 2), (2, 2), (0, 0), (1, 1), False),
    ((3, 2), (2, 1), (1, 1), (1, 2), True),
    ((3, 3), (1, 2), (1, 0), (2, 1), False),
]


def _pool_dims(H, W, k, s, p, d, ceil):
    res = []
    for n, kk, ss, pp, dd in ((H, k[0], s[0], p[0], d[0]), (W, k[1], s[1], p[1], d[1])):
        o = (n + 2 * pp - dd * (kk - 1) - 1 + (ss - 1 if ceil else 0)) // ss + 1
        if ceil and (o - 1) * ss >= n + pp:
            o -= 1
        res.append(o)
    return res


@pytest.mark.parametrize("cfg", POOLS)
def test_max_pool_values_indices_and_scatter(cfg, rng):
    k, s, p, d, ceil = cfg
    x = rng.standard_normal((2, 3, 7, 8))
    OH, OW = _pool_dims(7, 8, k, s, p, d, ceil)
    want, want_idx = max_pool2d_ref(x, k, s, p, d, ceil, return_indices=True)
    for fn in (pooling.max_pool2d, pooling.max_pool2d_parallel):
        out, idx = np.empty(want.size), np.empty(want.size, np.int64)
        fn(x.reshape(-1), out, idx, 7, 8, *k, *s, *p, *d, OH, OW)
        np.testing.assert_array_equal(out.reshape(want.shape), want)
        np.testing.assert_array_equal(idx.reshape(want.shape), want_idx)
    g = rng.standard_normal(want.shape)
    gi = np.full(x.size, 3.0)
    pooling.max_pool_backward(g.reshape(-1), want_idx.reshape(-1), gi, 56, OH * OW)
    expect = np.zeros((6, 56))
    for plane in range(6):
        np.add.at(expect[plane], want_idx.reshape(6, -1)[plane], g.reshape(6, -1)[plane])
    np.testing.assert_allclose(gi, expect.reshape(-1))
    gathered = np.empty(g.size)
    pooling.max_pool_gather(x.reshape(-1), want_idx.reshape(-1), gathered, 56, OH * OW)
    np.testing.assert_array_equal(gathered.reshape(want.shape), want)


def test_max_pool_propagates_nan_like_pytorch():
    x = np.array([1.0, np.nan, 3.0, 2.0])
    out, idx = np.empty(1), np.empty(1, np.int64)
    pooling.max_pool2d(x, out, idx, 2, 2, 2, 2, 2, 2, 0, 0, 1, 1, 1, 1)
    assert np.isnan(out[0]) and idx[0] == 1


@pytest.mark.parametrize("cfg", POOLS)
@pytest.mark.parametrize("count_include_pad", [True, False])
@pytest.mark.parametrize("divisor", [0, 5])
def test_avg_pool_and_its_adjoint(cfg, count_include_pad, divisor, rng):
    k, s, p, _, ceil = cfg
    x = rng.standard_normal((2, 3, 7, 8))
    OH, OW = _pool_dims(7, 8, k, s, p, (1, 1), ceil)
    want = avg_pool2d_ref(x, k, s, p, ceil, count_include_pad, divisor or None)
    for fn in (pooling.avg_pool2d, pooling.avg_pool2d_parallel):
        out = np.empty(want.size)
        fn(x.reshape(-1), out, 7, 8, *k, *s, *p, OH, OW, count_include_pad, divisor)
        np.testing.assert_allclose(out.reshape(want.shape), want, rtol=1e-12)
    g = rng.standard_normal(want.size)
    gi = np.empty(x.size)
    pooling.avg_pool2d_backward(g, gi, 7, 8, *k, *s, *p, OH, OW, count_include_pad, divisor)
    np.testing.assert_allclose(np.dot(want.reshape(-1), g), np.dot(x.reshape(-1), gi), rtol=1e-10)


@pytest.mark.parametrize("osize", [(1, 1), (3, 5), (7, 8), (4, 3)])
def test_adaptive_pools(osize, rng):
    x = rng.standard_normal((2, 7, 8))
    OH, OW = osize
    avg, mx, idx = np.empty(2 * OH * OW), np.empty(2 * OH * OW), np.empty(2 * OH * OW, np.int64)
    pooling.adaptive_avg_pool2d(x.reshape(-1), avg, 7, 8, OH, OW)
    pooling.adaptive_max_pool2d(x.reshape(-1), mx, idx, 7, 8, OH, OW)
    for i in range(OH):
        for j in range(OW):
            h0, h1 = (i * 7) // OH, -((-(i + 1) * 7) // OH)
            w0, w1 = (j * 8) // OW, -((-(j + 1) * 8) // OW)
            win = x[:, h0:h1, w0:w1]
            np.testing.assert_allclose(avg.reshape(2, OH, OW)[:, i, j], win.mean(axis=(1, 2)))
            np.testing.assert_array_equal(mx.reshape(2, OH, OW)[:, i, j], win.max(axis=(1, 2)))
    g = rng.standard_normal(avg.size)
    gi = np.empty(x.size)
    pooling.adaptive_avg_pool2d_backward(g, gi, 7, 8, OH, OW)
    np.testing.assert_allclose(np.dot(avg, g), np.dot(x.reshape(-1), gi), rtol=1e-10)


def test_resample2d_and_its_adjoint(rng):
    x = rng.standard_normal((3, 4, 5))
    hi0, hi1 = np.array([0, 1, 3, 3, 2], np.int64), np.array([1, 2, 3, 2, 0], np.int64)
    wi0, wi1 = np.array([4, 0, 2], np.int64), np.array([3, 1, 2], np.int64)
    hw0, ww0 = rng.random(5), rng.random(3)
    hw1, ww1 = 1 - hw0, 1 - ww0
    taps = (hi0, hi1, hw0, hw1, wi0, wi1, ww0, ww1)
    want = np.zeros((3, 5, 3))
    for a_i, a_w in ((hi0, hw0), (hi1, hw1)):
        for b_i, b_w in ((wi0, ww0), (wi1, ww1)):
            want += x[:, a_i][:, :, b_i] * a_w[:, None] * b_w[None, :]
    for fn in (pooling.resample2d, pooling.resample2d_parallel):
        out = np.empty(want.size)
        fn(x.reshape(-1), out, 4, 5, 5, 3, *taps)
        np.testing.assert_allclose(out.reshape(want.shape), want)
    g = rng.standard_normal(want.size)
    gi = np.empty(x.size)
    pooling.resample2d_backward(g, gi, 4, 5, 5, 3, *taps)
    np.testing.assert_allclose(np.dot(want.reshape(-1), g), np.dot(x.reshape(-1), gi), rtol=1e-10)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_moments(dtype, rng):
    x = (rng.standard_normal((6, 10)) * 3 + 1).astype(dtype)
    for fn in (ln.moments, ln.moments_parallel):
        mean, rstd = np.empty(6, dtype), np.empty(6, dtype)
        fn(x.reshape(-1), 10, mean, rstd, 1e-5)
        np.testing.assert_allclose(mean, x.mean(1), rtol=1e-5, atol=1e-6)
        np.testing.assert_allclose(rstd, 1 / np.sqrt(x.var(1) + 1e-5), rtol=1e-5)
    y = x.reshape(2, 3, 10)
    mean, var = np.empty(3, dtype), np.empty(3, dtype)
    nn.channel_moments(y.reshape(-1), 2, 3, 10, mean, var)
    np.testing.assert_allclose(mean, y.mean(axis=(0, 2)), rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(var, y.var(axis=(0, 2)), rtol=1e-5)


@pytest.mark.parametrize("affine", [(True, True), (True, False), (False, True), (False, False)])
def test_layer_norm_row_kernels_match_numpy(affine, rng):
    M, N = 5, 7
    x = rng.standard_normal((M, N))
    mean, rstd = np.empty(M), np.empty(M)
    ln.moments(x.reshape(-1), N, mean, rstd, 1e-5)
    w = rng.standard_normal(N) if affine[0] else np.ones(N)
    b = rng.standard_normal(N) if affine[1] else np.zeros(N)
    xhat = (x - mean[:, None]) * rstd[:, None]
    for fn in (ln.apply, ln.apply_parallel):
        out = np.empty(x.size)
        fn(x.reshape(-1), out, mean, rstd, w, b, N, *affine)
        np.testing.assert_allclose(out.reshape(M, N), xhat * w + b, rtol=1e-12, atol=1e-12)
    go = rng.standard_normal((M, N))
    gi, gw, gb = np.empty(x.size), np.empty(N), np.empty(N)
    ln.backward(go.reshape(-1), x.reshape(-1), mean, rstd, w, N, gi, gw, gb)
    g = go * w
    want = rstd[:, None] * (g - g.mean(1, keepdims=True) - xhat * (g * xhat).mean(1, keepdims=True))
    np.testing.assert_allclose(gi.reshape(M, N), want, rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(gw, (go * xhat).sum(0), rtol=1e-10)
    np.testing.assert_allclose(gb, go.sum(0), rtol=1e-10)
    gi0 = np.empty(0)
    ln.backward(go.reshape(-1), x.reshape(-1), mean, rstd, w, N, gi0, gw, np.empty(0))  # grads of params only
    np.testing.assert_allclose(gw, (go * xhat).sum(0), rtol=1e-10)


LAYOUTS = {
    "layer": (4, 6, 1, 1, 6),
    "group": (2, 6, 3, 3, 2),
    "batch": (3, 4, 5, 0, 1),
}  # A, C, S, SA, CG


@pytest.mark.parametrize("kind", list(LAYOUTS))
@pytest.mark.parametrize("center", [True, False])
def test_norm_apply_and_backward_match_numpy(kind, center, rng):
    A, C, S, SA, CG = LAYOUTS[kind]
    x = rng.standard_normal((A, C, S))
    stat = np.arange(A)[:, None] * SA + np.arange(C)[None, :] // CG  # (A, C) -> statistic index
    nstat = stat.max() + 1
    groups = [x[stat == k] for k in range(nstat)]
    mean = np.array([gr.mean() for gr in groups])
    rstd = np.array([1 / np.sqrt(gr.var() + 1e-5) for gr in groups])
    w, b = rng.standard_normal(C), rng.standard_normal(C)
    xhat = (x - mean[stat][..., None]) * rstd[stat][..., None]
    for fn in (nn.norm_apply, nn.norm_apply_parallel):
        out = np.empty(x.size)
        fn(x.reshape(-1), out, mean, rstd, w, b, A, C, S, SA, CG, True, True)
        np.testing.assert_allclose(out.reshape(x.shape), xhat * w[:, None] + b[:, None], rtol=1e-10)
    go = rng.standard_normal(x.shape)
    gi, gw, gb = np.empty(x.size), np.empty(C), np.empty(C)
    nn.norm_backward(
        go.reshape(-1), x.reshape(-1), mean, rstd, w, A, C, S, SA, CG, True, center, gi, gw, gb
    )
    np.testing.assert_allclose(gw, (go * xhat).sum(axis=(0, 2)), rtol=1e-10)
    np.testing.assert_allclose(gb, go.sum(axis=(0, 2)), rtol=1e-10)
    g = go * w[:, None]
    if center:
        want = np.empty_like(x)
        for k in range(nstat):
            m = stat == k
            gk, xk = g[m], xhat[m]
            want[m] = rstd[k] * (gk - gk.mean() - xk * (gk * xk).mean())
    else:
        want = g * rstd[stat][..., None]
    np.testing.assert_allclose(gi.reshape(x.shape), want, rtol=1e-8, atol=1e-12)


def test_embedding_backward_skips_padding_and_scales_by_frequency(rng):
    idx = np.array([1, 3, 1, 0, 3, 3], np.int64)
    g = rng.standard_normal((6, 2))
    out = np.full(8, 5.0)
    nn.embedding_backward(g.reshape(-1), idx, out, 2, 0, True)
    want = np.zeros((4, 2))
    counts = np.bincount(idx, minlength=4)
    for k, i in enumerate(idx):
        if i != 0:
            want[i] += g[k] / counts[i]
    np.testing.assert_allclose(out.reshape(4, 2), want)


def test_glu_and_backward(rng):
    x = rng.standard_normal((2, 6, 3))
    a, b = x[:, :3], x[:, 3:]
    s = 1 / (1 + np.exp(-b))
    out = np.empty(18)
    nn.glu(x.reshape(-1), out, 2, 3, 3)
    np.testing.assert_allclose(out.reshape(2, 3, 3), a * s)
    g = rng.standard_normal((2, 3, 3))
    gi = np.empty(x.size)
    nn.glu_backward(g.reshape(-1), x.reshape(-1), gi, 2, 3, 3)
    np.testing.assert_allclose(gi.reshape(x.shape), np.concatenate([g * s, g * a * s * (1 - s)], 1))


def test_nll_loss_kernels(rng):
    x = rng.standard_normal((3, 4, 2))  # (N, C, S)
    t = np.array([0, 3, -100, 1, 2, 2], np.int64)  # (N, S)
    w = rng.random(4)
    out = np.empty(6)
    tw = loss.nll_loss(x.reshape(-1), t, w, 4, 2, -100, out)
    n, s = np.divmod(np.arange(6), 2)
    keep = t != -100
    want = np.where(keep, -w[np.where(keep, t, 0)] * x[n, np.where(keep, t, 0), s], 0)
    np.testing.assert_allclose(out, want)
    assert tw == pytest.approx(w[t[keep]].sum())
    gi = np.full(x.size, 9.0)
    loss.nll_loss_backward(np.array([2.0]), t, w, 4, 2, -100, 0.5, gi)
    expect = np.zeros_like(x)
    expect[n[keep], t[keep], s[keep]] = -w[t[keep]]
    np.testing.assert_allclose(gi.reshape(x.shape), expect)
    empty_w = np.empty(0)
    assert loss.nll_loss(x.reshape(-1), t, empty_w, 4, 2, -100, out) == 5.0


def test_total_is_accurate_for_long_float32_rows():
    x = np.full(10_000_001, 0.1, np.float32)
    assert loss.total(x) == pytest.approx(float(np.float32(0.1)) * x.size, rel=1e-12)
