"""grid_sampler_2d forward and backward kernels (Note [Fused grid_sampler_2d]): one pass over the
output positions; per position the source coordinates and weights are computed once and every
channel gathers (forward) or scatters (backward) with them.

Arithmetic stays in the input's dtype (constants as ``type(x)(c)``, no fastmath), step for step
as the composite writes it, so float32 results match the composite's bit for bit. ``mode``:
0 bilinear, 1 nearest, 2 bicubic; ``pad``: 0 zeros, 1 border, 2 reflection.
"""

from __future__ import annotations

import numpy as np

from numtorch.kernels._jit import inline, kernel


@inline
def _unnormalize(c, size, align):
    T = type(c)
    if align:
        return (c + T(1)) / T(2) * T(size - 1)
    return ((c + T(1)) * T(size) - T(1)) / T(2)


@inline
def _clip(c, size):
    # NaN stays NaN, as clamp's
    T = type(c)
    if c < T(0):
        return T(0)
    if c > T(size - 1):
        return T(size - 1)
    return c


@inline
def _twin(size, align):
    """(low, span) of the reflection interval; span 0 where it is one point."""
    twin_low, twin_high = (0, 2 * (size - 1)) if align else (-1, 2 * size - 1)
    return twin_low / 2, (twin_high - twin_low) / 2


@inline
def _reflect(c, size, align):
    T = type(c)
    lo, span = _twin(size, align)
    if span == 0:
        return T(0)
    lo, span = T(lo), T(span)
    c = abs(c - lo)
    extra = np.fmod(c, span)
    flips = np.floor(c / span)
    if np.fmod(flips, T(2)) == T(0):
        return extra + lo
    return span - extra + lo


@inline
def _pad(c, size, pad, align):
    if pad == 1:
        return _clip(c, size)
    if pad == 2:
        return _clip(_reflect(c, size, align), size)
    return c


@inline
def _clip_grad(c, size):
    T = type(c)
    if c <= T(0) or c >= T(size - 1):
        return T(0)
    return T(1)


@inline
def _reflect_grad(c, size, align):
    # d reflect(c) / dc: +-1 (PyTorch's reflect_coordinates_set_grad)
    T = type(c)
    lo, span = _twin(size, align)
    if span == 0:
        return T(0)
    lo, span = T(lo), T(span)
    c = c - lo
    sign = T(1)
    if c < T(0):
        sign = T(-1)
        c = -c
    flips = np.floor(c / span)
    return sign if np.fmod(flips, T(2)) == T(0) else -sign


@inline
def _pad_grad(raw, size, pad, align):
    """d pad(raw) / d raw."""
    T = type(raw)
    if pad == 1:
        return _clip_grad(raw, size)
    if pad == 2:
        return _reflect_grad(raw, size, align) * _clip_grad(_reflect(raw, size, align), size)
    return T(1)


@inline
def _cubic_coeffs(t, k):
    # the composite's c(x) for |x| <= 1 and f(x) for 1 < |x| < 2, A = -0.75
    T = type(t)
    A = T(-0.75)
    x0, x3 = t + T(1), T(2) - t
    k[0] = ((A * x0 - T(5 * -0.75)) * x0 + T(8 * -0.75)) * x0 - T(4 * -0.75)
    k[1] = ((A + T(2)) * t - (A + T(3))) * t * t + T(1)
    u = T(1) - t
    k[2] = ((A + T(2)) * u - (A + T(3))) * u * u + T(1)
    k[3] = ((A * x3 - T(5 * -0.75)) * x3 + T(8 * -0.75)) * x3 - T(4 * -0.75)


@inline
def _cubic_coeffs_grad(t, k):
    # PyTorch's get_cubic_coefficients_grad: minus the derivatives of the coefficients in t
    T = type(t)
    A = T(-0.75)
    x = T(-1) - t
    k[0] = (T(-3) * A * x - T(10) * A) * x - T(8) * A
    x = -t
    k[1] = (T(-3) * (A + T(2)) * x - T(2) * (A + T(3))) * x
    x = T(1) - t
    k[2] = (T(3) * (A + T(2)) * x - T(2) * (A + T(3))) * x
    x = T(2) - t
    k[3] = (T(3) * A * x - T(10) * A) * x + T(8) * A


@inline
def _inside(i, size):
    return i >= 0 and i <= size - 1


@kernel
def forward(x, grid, out, mode, pad, align):
    """out[n, c, h, w] = input sampled at grid[n, h, w] (x: N, C, H, W; grid: N, Ho, Wo, 2)."""
    N, C, H, W = x.shape
    Ho, Wo = grid.shape[1], grid.shape[2]
    cx = np.empty(4, x.dtype)
    cy = np.empty(4, x.dtype)
    for n in range(N):
        for h in range(Ho):
            for w in range(Wo):
                rx = _unnormalize(grid[n, h, w, 0], W, align)
                ry = _unnormalize(grid[n, h, w, 1], H, align)
                if mode == 2:
                    _forward_bicubic(x, out, n, h, w, rx, ry, pad, align, cx, cy)
                    continue
                ix, iy = _pad(rx, W, pad, align), _pad(ry, H, pad, align)
                if mode == 1:
                    jx, jy = np.rint(ix), np.rint(iy)
                    ok = _inside(jx, W) and _inside(jy, H)
                    for c in range(C):
                        out[n, c, h, w] = x[n, c, int(jy), int(jx)] if ok else 0
                    continue
                x0, y0 = np.floor(ix), np.floor(iy)
                T = type(ix)
                wx0, wx1 = x0 + T(1) - ix, ix - x0
                wy0, wy1 = y0 + T(1) - iy, iy - y0
                w00, w01, w10, w11 = wy0 * wx0, wy0 * wx1, wy1 * wx0, wy1 * wx1
                in_x0, in_x1 = _inside(x0, W), _inside(x0 + 1, W)
                in_y0, in_y1 = _inside(y0, H), _inside(y0 + 1, H)
                a0, b0 = (int(x0), int(y0)) if in_x0 or in_x1 or in_y0 or in_y1 else (0, 0)
                for c in range(C):
                    v00 = x[n, c, b0, a0] if in_y0 and in_x0 else T(0)
                    v01 = x[n, c, b0, a0 + 1] if in_y0 and in_x1 else T(0)
                    v10 = x[n, c, b0 + 1, a0] if in_y1 and in_x0 else T(0)
                    v11 = x[n, c, b0 + 1, a0 + 1] if in_y1 and in_x1 else T(0)
                    out[n, c, h, w] = v00 * w00 + v01 * w01 + v10 * w10 + v11 * w11


@inline
def _forward_bicubic(x, out, n, h, w, rx, ry, pad, align, cx, cy):
    H, W = x.shape[2], x.shape[3]
    x0, y0 = np.floor(rx), np.floor(ry)
    _cubic_coeffs(rx - x0, cx)
    _cubic_coeffs(ry - y0, cy)
    T = type(rx)
    for c in range(x.shape[1]):
        acc = T(0)
        for a in range(4):
            iy = _pad(y0 - T(1) + T(a), H, pad, align)
            for b in range(4):
                ix = _pad(x0 - T(1) + T(b), W, pad, align)
                v = x[n, c, int(iy), int(ix)] if _inside(iy, H) and _inside(ix, W) else T(0)
                term = v * (cy[a] * cx[b])
                acc = term if a == 0 and b == 0 else acc + term
        out[n, c, h, w] = acc


@kernel
def backward(go, x, grid, gx, gg, mode, pad, align, want_x, want_g):
    """Gradients of ``forward`` (PyTorch's grid_sampler_2d_backward formulas): ``gx`` (zeroed by
    the caller) accumulates the scatter of go * weight, ``gg`` gets d out / d grid . go."""
    N, C, H, W = x.shape
    Ho, Wo = grid.shape[1], grid.shape[2]
    cx = np.empty(4, x.dtype)
    cy = np.empty(4, x.dtype)
    dx = np.empty(4, x.dtype)
    dy = np.empty(4, x.dtype)
    for n in range(N):
        for h in range(Ho):
            for w in range(Wo):
                gxn, gyn = grid[n, h, w, 0], grid[n, h, w, 1]
                T = type(gxn)
                mx = T((W - 1) / 2) if align else T(W / 2)
                my = T((H - 1) / 2) if align else T(H / 2)
                rx, ry = _unnormalize(gxn, W, align), _unnormalize(gyn, H, align)
                if mode == 2:
                    sx, sy = _backward_bicubic(go, x, gx, n, h, w, rx, ry, pad, align, want_x, cx, cy, dx, dy)
                    gg[n, h, w, 0] = mx * sx
                    gg[n, h, w, 1] = my * sy
                    continue
                ix, iy = _pad(rx, W, pad, align), _pad(ry, H, pad, align)
                if mode == 1:
                    jx, jy = np.rint(ix), np.rint(iy)
                    if want_x and _inside(jx, W) and _inside(jy, H):
                        for c in range(C):
                            gx[n, c, int(jy), int(jx)] += go[n, c, h, w]
                    gg[n, h, w, 0] = T(0)
                    gg[n, h, w, 1] = T(0)
                    continue
                mx *= _pad_grad(rx, W, pad, align)
                my *= _pad_grad(ry, H, pad, align)
                x0, y0 = np.floor(ix), np.floor(iy)
                wx0, wx1 = x0 + T(1) - ix, ix - x0
                wy0, wy1 = y0 + T(1) - iy, iy - y0
                in_x0, in_x1 = _inside(x0, W), _inside(x0 + 1, W)
                in_y0, in_y1 = _inside(y0, H), _inside(y0 + 1, H)
                a0, b0 = (int(x0), int(y0)) if in_x0 or in_x1 or in_y0 or in_y1 else (0, 0)
                sx, sy = T(0), T(0)
                for c in range(C):
                    g = go[n, c, h, w]
                    if in_y0 and in_x0:
                        v = x[n, c, b0, a0]
                        sx -= v * wy0 * g
                        sy -= v * wx0 * g
                        if want_x:
                            gx[n, c, b0, a0] += wy0 * wx0 * g
                    if in_y0 and in_x1:
                        v = x[n, c, b0, a0 + 1]
                        sx += v * wy0 * g
                        sy -= v * wx1 * g
                        if want_x:
                            gx[n, c, b0, a0 + 1] += wy0 * wx1 * g
                    if in_y1 and in_x0:
                        v = x[n, c, b0 + 1, a0]
                        sx -= v * wy1 * g
                        sy += v * wx0 * g
                        if want_x:
                            gx[n, c, b0 + 1, a0] += wy1 * wx0 * g
                    if in_y1 and in_x1:
                        v = x[n, c, b0 + 1, a0 + 1]
                        sx += v * wy1 * g
                        sy += v * wx1 * g
                        if want_x:
                            gx[n, c, b0 + 1, a0 + 1] += wy1 * wx1 * g
                gg[n, h, w, 0] = mx * sx
                gg[n, h, w, 1] = my * sy


@inline
def _backward_bicubic(go, x, gx, n, h, w, rx, ry, pad, align, want_x, cx, cy, dx, dy):
    H, W = x.shape[2], x.shape[3]
    x0, y0 = np.floor(rx), np.floor(ry)
    _cubic_coeffs(rx - x0, cx)
    _cubic_coeffs(ry - y0, cy)
    _cubic_coeffs_grad(rx - x0, dx)
    _cubic_coeffs_grad(ry - y0, dy)
    T = type(rx)
    sx, sy = T(0), T(0)
    for c in range(x.shape[1]):
        g = go[n, c, h, w]
        for a in range(4):
            iy = _pad(y0 - T(1) + T(a), H, pad, align)
            for b in range(4):
                ix = _pad(x0 - T(1) + T(b), W, pad, align)
                if not (_inside(iy, H) and _inside(ix, W)):
                    continue
                v = x[n, c, int(iy), int(ix)]
                if want_x:
                    gx[n, c, int(iy), int(ix)] += g * cx[b] * cy[a]
                sx -= v * dx[b] * cy[a] * g
                sy -= v * dy[a] * cx[b] * g
    return sx, sy
