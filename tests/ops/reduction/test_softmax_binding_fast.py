"""Note [Softmax binding fast call]: softmax/log_softmax bindings call _softmax's op.fast for a
plain call with no dtype= and no out=; the same values as their bodies, and dtype=, out=, an
implicit dim and gradients still work."""

from __future__ import annotations

import numpy as np
import pytest

import numtorch as torch
import numtorch.nn.functional as F
from numtorch.ops._registry import BINDINGS
from numtorch.ops.reduction import fast_bindings, scan


@pytest.mark.parametrize("name", ["softmax", "log_softmax"])
@pytest.mark.parametrize("module", ["torch", "Tensor", "torch.nn.functional"])
def test_bindings_call_the_primitive(name, module):
    (b,) = [b for b in BINDINGS if b.module == module and b.name == name]
    prim = scan._softmax if name == "softmax" else scan._log_softmax
    assert b.fast is not None and b.fast[1][2] is False
    calls = []
    real = prim.fast
    prim.fast = lambda *v: calls.append(v) or real(*v)
    try:
        getattr(torch, name)(torch.ones(2, 300), 1)  # beyond Note [Softmax plans]
    finally:
        prim.fast = real
    assert calls and all(c[1:] == (1, False) for c in calls)


class _Op:
    def __init__(self, tag):
        self.fast = lambda *v: (tag, v)


class _NoPlans:  # softmax_fast's place: every plan declines
    softmax_plain = staticmethod(lambda x, dim, log: None)


def test_an_autocast_region_runs_the_composite():
    # autocast's rules sit in softmax.int's fast slot (CUDA's float32 rule: tests/cuda/test_amp.py),
    # so inside a region the bindings' call runs the composite, not the primitive
    call = fast_bindings._softmax_call(_Op("prim"), _Op("composite"), _NoPlans, False)
    assert call(1, 2, False) == ("prim", (1, 2, False))
    with torch.autocast("cpu", dtype=torch.bfloat16):
        assert call(1, 2, False) == ("composite", (1, 2, None))
    assert call(1, 2, False) == ("prim", (1, 2, False))


@pytest.mark.parametrize("name", ["softmax", "log_softmax"])
@pytest.mark.parametrize("shape,dim", [((2, 3, 4), 1), ((2, 3, 4), -1), ((5,), 0), ((40, 50), 0), ((3, 300), 1)])
@pytest.mark.parametrize("dtype", [torch.float32, torch.float64])
def test_fast_call_matches_the_body(name, shape, dim, dtype):
    rng = np.random.default_rng(1)
    x = torch.from_numpy(rng.standard_normal(shape) * 5).to(dtype)
    (body,) = [b.body for b in BINDINGS if b.module == "torch" and b.name == name]
    ref = body(x, dim, None, None)
    for got in (getattr(torch, name)(x, dim), getattr(x, name)(dim), getattr(F, name)(x, dim)):
        assert got.dtype == ref.dtype and got.shape == ref.shape
        assert got.numpy().tobytes() == ref.numpy().tobytes()


def test_the_rest_takes_the_body():
    x = torch.tensor([[1.0, 2.0], [3.0, 5.0]])
    assert torch.softmax(x, 1, dtype=torch.float64).dtype == torch.float64
    out = torch.empty(2, 2)
    assert torch.log_softmax(x, 1, out=out) is out
    with pytest.warns(UserWarning, match="Implicit dimension choice for softmax"):
        r = F.softmax(x)
    np.testing.assert_allclose(r.sum(1).numpy(), [1.0, 1.0], rtol=1e-6)
    xg = x.clone().requires_grad_(True)
    y = torch.log_softmax(xg, 1)
    assert y.grad_fn is not None
    y[:, 0].sum().backward()
    assert xg.grad is not None
    with pytest.raises(IndexError, match="Dimension out of range"):
        torch.softmax(x, 2)
    with pytest.raises(NotImplementedError, match="not implemented for 'Long'"):
        torch.softmax(torch.ones(3, dtype=torch.int64), 0)
