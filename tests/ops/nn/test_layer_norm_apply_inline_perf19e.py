"""Note [Layer norm's apply row is inlined], session 19: apply's per-row helper is inlined by
Numba (a compiled call per row made a layer norm over short rows 2.5x PyTorch's time), with the
same arithmetic: out = (x - mean) * (rstd * w) + b in the input's dtype, no fused multiply-add."""

from __future__ import annotations

import numpy as np
import pytest

import numtorch as torch
import numtorch.nn.functional as F
from numtorch.kernels.cpu.nn import layer_norm as LN

from .._fastcall import binding, same


def test_apply_row_is_inlined():
    assert LN._apply_row.targetoptions.get("inline") == "always"


def _numpy_apply(x, mean, rstd, w, b):
    # the kernel's expression per has_w / has_b, elementwise in x's dtype
    xm = x - mean[:, None]
    if w is not None and b is not None:
        return xm * (rstd[:, None] * w) + b
    if w is not None:
        return xm * (rstd[:, None] * w)
    if b is not None:
        return xm * rstd[:, None] + b
    return xm * rstd[:, None]


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("M,N", [(32769, 4), (7, 1), (5, 33), (3, 300)])
def test_apply_matches_numpy_bit_for_bit(dtype, M, N, rng):
    x = (rng.standard_normal((M, N)) * 3 + 50).astype(dtype)
    w, b = rng.standard_normal(N).astype(dtype), rng.standard_normal(N).astype(dtype)
    mean, rstd = np.empty(M, dtype), np.empty(M, dtype)
    LN.moments(x.ravel(), N, mean, rstd, 1e-5)
    none = np.zeros(1, dtype)
    for ww, bb in ((w, b), (w, None), (None, b), (None, None)):
        for fn in (LN.apply, LN.apply_parallel):
            out = np.empty(M * N, dtype)
            fn(x.ravel(), out, mean, rstd, none if ww is None else ww, none if bb is None else bb, N,
               ww is not None, bb is not None)  # fmt: skip
            assert out.tobytes() == _numpy_apply(x, mean, rstd, ww, bb).tobytes()


def test_large_short_rows_fast_call_gives_the_bodys_bits(rng):
    x = torch.from_numpy(rng.standard_normal((32769, 4)).astype(np.float32))
    w, b = torch.randn(4), torch.randn(4)
    body = binding("layer_norm", "torch.nn.functional").body
    same(F.layer_norm(x, (4,), w, b, 1e-5), body(x, (4,), w, b, 1e-5))
    y = F.layer_norm(x, (4,), w, b).numpy()
    xd = x.numpy().astype(np.float64)
    ref = (xd - xd.mean(1, keepdims=True)) / np.sqrt(
        xd.var(1, keepdims=True) + 1e-5
    ) * w.numpy() + b.numpy()
    np.testing.assert_allclose(y, ref, rtol=1e-4, atol=1e-4)


def test_gradients_over_short_rows():
    x = torch.randn(6, 4, dtype=torch.float64, requires_grad=True)
    w = torch.randn(4, dtype=torch.float64, requires_grad=True)
    b = torch.randn(4, dtype=torch.float64, requires_grad=True)
    assert torch.autograd.gradcheck(lambda *t: F.layer_norm(t[0], (4,), t[1], t[2]), (x, w, b))
    assert torch.autograd.gradgradcheck(lambda *t: F.layer_norm(t[0], (4,), t[1], t[2]), (x, w, b))
