"""The fused grid_sampler_2d kernels (Note [Fused grid_sampler_2d]) against the composite they
replace: forward bit for bit in float32 and float64, both gradients against the composite's
autograd gradients, strided and empty operands, float16, and double backward."""

from __future__ import annotations

import numpy as np
import pytest

import numtorch
from numtorch.autograd import gradgradcheck
from numtorch.ops.nn import sampling

MODES = [(m, p, a) for m in (0, 1, 2) for p in (0, 1, 2) for a in (False, True)]


def _case(rng, dt, x_shape=(2, 3, 5, 4), g_shape=(2, 6, 7, 2), strided=False):
    x = rng.standard_normal(x_shape).astype(dt)
    # the grid reaches past [-1, 1] so that every padding mode and out-of-range corner is hit
    g = rng.uniform(-1.6, 1.6, g_shape).astype(dt)
    if strided:  # non-contiguous views: a transposed input, every other grid row
        x = np.ascontiguousarray(x.transpose(0, 1, 3, 2)).transpose(0, 1, 3, 2)
        g = np.repeat(g, 2, axis=1)[:, ::2]
    return numtorch.from_numpy(x), numtorch.from_numpy(g)


@pytest.mark.parametrize("mode,pad,align", MODES)
@pytest.mark.parametrize("dt", [np.float32, np.float64])
@pytest.mark.parametrize("strided", [False, True])
def test_forward_is_the_composite_bit_for_bit(mode, pad, align, dt, strided):
    x, g = _case(np.random.default_rng(mode * 9 + pad * 2 + align), dt, strided=strided)
    assert strided != (x.is_contiguous() and g.is_contiguous())
    out = numtorch.grid_sampler(x, g, mode, pad, align)
    ref = sampling._grid_sampler(x, g, mode, pad, align)
    assert out.dtype == x.dtype and out.shape == (2, 3, 6, 7)
    np.testing.assert_array_equal(out.numpy(), ref.numpy())


@pytest.mark.parametrize("mode,pad,align", [m for m in MODES if m[0] != 1])
def test_gradients_match_the_composite(mode, pad, align):
    rng = np.random.default_rng(40 + mode * 9 + pad * 2 + align)
    x, g = _case(rng, np.float64)
    go = numtorch.from_numpy(rng.standard_normal((2, 3, 6, 7)))
    grads = []
    for fn in (numtorch.grid_sampler, sampling._grid_sampler):
        xr, gr = x.clone().requires_grad_(), g.clone().requires_grad_()
        grads.append(numtorch.autograd.grad(fn(xr, gr, mode, pad, align), (xr, gr), go))
    for a, b in zip(*grads, strict=True):
        np.testing.assert_allclose(a.numpy(), b.numpy(), rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize("pad", [0, 1, 2])
def test_nearest_gradients(pad):
    # the input's gradient scatters go to the nearest pixel; the grid's is zero (PyTorch's)
    x, g = _case(np.random.default_rng(7), np.float64)
    x.requires_grad_(), g.requires_grad_()
    gx, gg = numtorch.autograd.grad(numtorch.grid_sampler(x, g, 1, pad, False).sum(), (x, g))
    W, H = 4, 5
    ix = np.rint(((g.detach().numpy()[..., 0] + 1) * W - 1) / 2)
    iy = np.rint(((g.detach().numpy()[..., 1] + 1) * H - 1) / 2)
    if pad:
        ix, iy = ix.clip(0, W - 1), iy.clip(0, H - 1)
    ref = np.zeros((2, H, W))
    for n in range(2):
        for a, b in zip(iy[n].ravel(), ix[n].ravel(), strict=True):
            if 0 <= a < H and 0 <= b < W:
                ref[n, int(a), int(b)] += 1
    if pad != 2:  # reflection's coordinates are the composite's (tested above)
        np.testing.assert_array_equal(gx.numpy(), np.repeat(ref[:, None], 3, 1))
    assert not gg.numpy().any()


@pytest.mark.parametrize("x_shape,g_shape", [((0, 2, 3, 3), (0, 2, 2, 2)), ((1, 0, 3, 3), (1, 2, 2, 2)),
                                             ((1, 2, 3, 3), (1, 0, 4, 2))])  # fmt: skip
def test_empty(x_shape, g_shape):
    x = numtorch.randn(*x_shape, dtype=numtorch.float64, requires_grad=True)
    g = numtorch.zeros(*g_shape, dtype=numtorch.float64, requires_grad=True)
    y = numtorch.grid_sampler(x, g, 0, 0, False)
    assert y.shape == (x_shape[0], x_shape[1], g_shape[1], g_shape[2])
    gx, gg = numtorch.autograd.grad(y.sum(), (x, g))
    assert gx.shape == x.shape and gg.shape == g.shape
    assert not gx.numpy().any() and not gg.numpy().any()


def test_float16_computes_in_float32():
    x, g = _case(np.random.default_rng(3), np.float32)
    out = numtorch.grid_sampler(x.half(), g.half(), 0, 0, False)
    assert out.dtype == numtorch.float16
    ref = sampling._grid_sampler(x.half().float(), g.half().float(), 0, 0, False)
    np.testing.assert_array_equal(out.numpy(), ref.half().numpy())


def test_integer_input_is_refused():
    x = numtorch.ones(1, 1, 2, 2, dtype=numtorch.int64)
    with pytest.raises(NotImplementedError, match="\"grid_sampler_2d_cpu_kernel_impl\" not implemented for 'Long'"):
        numtorch.grid_sampler(x, x[:, :, :1], 0, 0, False)


@pytest.mark.parametrize("mode,pad", [(0, 0), (0, 2), (2, 1)])
def test_gradgradcheck(mode, pad):
    rng = np.random.default_rng(5)
    x = numtorch.from_numpy(rng.standard_normal((1, 2, 3, 3))).requires_grad_()
    g = numtorch.from_numpy(rng.uniform(-0.9, 0.9, (1, 2, 2, 2))).requires_grad_()
    assert gradgradcheck(lambda x, g: numtorch.grid_sampler(x, g, mode, pad, True), (x, g), eps=1e-6, atol=1e-5)


def test_meta_shapes():
    x = numtorch.empty(2, 3, 4, 5, device="meta", requires_grad=True)
    g = numtorch.empty(2, 6, 7, 2, device="meta", requires_grad=True)
    y = numtorch.grid_sampler(x, g, 0, 0, False)
    assert y.device.type == "meta" and y.shape == (2, 3, 6, 7)
    gx, gg = numtorch.autograd.grad(y.sum(), (x, g))
    assert gx.device.type == "meta" and gx.shape == x.shape and gg.shape == g.shape
