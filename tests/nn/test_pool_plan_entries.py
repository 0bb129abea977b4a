"""Note [Pool plans]: a plan runs its kernel's compiled entry from its second call, keyed by the
input's dtype too (an entry takes one set of types), and takes strided and read-only inputs."""

from __future__ import annotations

import numpy as np
import pytest

import numtorch as torch
import numtorch.nn.functional as F
from numtorch.ops._registry import BINDINGS
from numtorch.ops.nn import fast_nn

_CALLS = {
    "max_pool1d": ((2, 3, 9), (3, None, 1, 1, False, False)),
    "avg_pool1d": ((2, 3, 9), (3, 2, 1, True, False)),
    "max_pool2d": ((2, 3, 5, 6), (2, None, 0, 1, True, False)),
    "avg_pool2d": ((2, 3, 5, 6), (2, 1, 1, False, True, None)),
    "max_pool3d": ((1, 2, 4, 5, 3), (2, 1, 0, 1, False, False)),
    "avg_pool3d": ((1, 2, 4, 5, 3), (2, None, 1, False, False, 3)),
}


def _body(name):
    (b,) = [b for b in BINDINGS if b.module == "torch.nn.functional" and b.name == name]
    return b.body


def _same(r, want):
    assert r.dtype == want.dtype and r.shape == want.shape and r.stride() == want.stride()
    assert r.numpy().tobytes() == want.numpy().tobytes()


@pytest.mark.parametrize("name", sorted(_CALLS))
def test_plans_run_compiled_entries_per_dtype(name):
    shape, args = _CALLS[name]
    rng = np.random.default_rng(7)
    v = rng.standard_normal(shape)
    v.reshape(-1)[:3] = [np.nan, np.inf, -np.inf]
    fast_nn._PLANS.clear()
    for dtype in (torch.float32, torch.float64, torch.float32):
        x = torch.from_numpy(v).to(dtype)
        want = _body(name)(x, *args)
        for _ in range(3):
            _same(getattr(F, name)(x, *args), want)
        xt = torch.from_numpy(np.repeat(v, 2, axis=-1)).to(dtype)[..., ::2]  # v, strided
        assert not xt.is_contiguous()
        for _ in range(2):
            _same(getattr(F, name)(xt, *args), _body(name)(xt, *args))
        ro = v.astype(x.numpy().dtype)
        ro.setflags(write=False)
        with pytest.warns(UserWarning):
            xr = torch.from_numpy(ro)
        _same(getattr(F, name)(xr, *args), want)
    plans = [p for p in fast_nn._PLANS.values() if p]
    assert len(plans) == 2  # one per dtype
    assert all(p[0].__class__ is len.__class__ for p in plans)  # compiled entries
