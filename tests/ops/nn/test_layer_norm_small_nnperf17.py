"""Note [Layer norm binding fast call], session 17: F.layer_norm's fast call makes moments and
apply in one kernel call (layer_norm_small.moments_apply) with the bits of the body's two calls,
over rows long enough for the kernels' vectorised loops and blocked sums."""

from __future__ import annotations

import numpy as np
import pytest

import numtorch as torch
import numtorch.nn.functional as F
from numtorch.ops.nn import norm_layers_fast

from .._fastcall import binding, same


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("M,N", [(3, 4), (50, 7), (9, 64), (5, 257), (40, 1000)])
def test_one_kernel_call_gives_the_bodys_bits(dtype, M, N, monkeypatch):
    names = []
    real = norm_layers_fast.call
    monkeypatch.setattr(norm_layers_fast, "call", lambda mod, n, args: names.append(n) or real(mod, n, args))
    rng = np.random.default_rng(M * N)
    x = torch.from_numpy((rng.standard_normal((M, N)) * 3 + 100).astype(dtype))
    w = torch.from_numpy(rng.standard_normal(N).astype(dtype))
    b = torch.from_numpy(rng.standard_normal(N).astype(dtype))
    body = binding("layer_norm", "torch.nn.functional").body
    for args in ((x, (N,), w, b, 1e-5), (x, (N,), None, None, 1e-5), (x, [N], w, None, 0.5), (x, N, None, b, 1e-5)):
        names.clear()
        same(F.layer_norm(*args), body(*args))
        assert names == ["moments_apply"]
