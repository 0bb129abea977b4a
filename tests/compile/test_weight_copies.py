"""Products by a cached contiguous copy of a transposed weight (Note [Transposed weight copies]):
refreshed by every write numtorch sees, never used where it would change the product's bits."""

from __future__ import annotations

import numpy as np
import pytest

import numtorch
from numtorch._compile import direct


def _products(cf) -> list:
    out = []
    cf = cf.__dict__.get("_compiled", cf)  # an OptimizedModule's CompiledFunction
    for e in cf.cache.values():
        out += (e.aot.fwd_steps + e.aot.bwd_steps) if e.aot is not None else (e.steps or [])
    return [st for st in out if isinstance(st, direct.MatmulStep)]


@pytest.fixture
def always(monkeypatch):
    # the measured policy depends on timings: copy from the first product on
    monkeypatch.setattr(direct, "_copy_pays", lambda a, b: 1)


def test_copy_is_refreshed_by_each_write_numtorch_sees(always):
    lin = numtorch.nn.Linear(16, 8, bias=False)
    cf = numtorch.compile(lin)
    x = numtorch.randn(4, 16)
    with numtorch.no_grad():
        for _ in range(2):
            np.testing.assert_array_equal(cf(x).numpy(), lin(x).numpy())
        (st,) = [st for st in _products(cf) if st.wsrc is not None]
        assert st.wcache[3] is not None and st.wcache[3].flags.c_contiguous
        lin.weight.mul_(2.0)  # in place: a new version
        np.testing.assert_array_equal(cf(x).numpy(), lin(x).numpy())
        lin.weight.data.add_(1.0)  # .data shares the version counter
        np.testing.assert_array_equal(cf(x).numpy(), lin(x).numpy())
        lin.weight.data = numtorch.randn(8, 16)  # a new array
        np.testing.assert_array_equal(cf(x).numpy(), lin(x).numpy())
        lin.weight.copy_(numtorch.ones(8, 16))
        np.testing.assert_array_equal(cf(x).numpy(), lin(x).numpy())


def test_training_with_copies_matches_eager(always):
    def make():
        numtorch.manual_seed(3)
        m = numtorch.nn.Sequential(numtorch.nn.Linear(12, 16), numtorch.nn.Tanh(), numtorch.nn.Linear(16, 3))
        return m, numtorch.optim.SGD(m.parameters(), lr=0.1)

    (me, oe), (mc, oc) = make(), make()
    cf = numtorch.compile(mc)
    x, y = numtorch.randn(5, 12), numtorch.randn(5, 3)
    for _ in range(4):
        for m, o, f in ((me, oe, me), (mc, oc, cf)):
            o.zero_grad()
            ((f(x) - y) ** 2).mean().backward()
            o.step()
    for a, b in zip(me.parameters(), mc.parameters(), strict=True):
        np.testing.assert_array_equal(a.detach().numpy(), b.detach().numpy())
    assert any(st.wsrc is not None for st in _products(cf))


def test_a_copy_that_changes_the_bits_is_never_used():
    # OpenBLAS's NT and NN kernels sum a 65-wide float32 product in different orders
    rng = np.random.default_rng(0)
    a = rng.standard_normal((64, 64), dtype=np.float32)
    w = rng.standard_normal((65, 64), dtype=np.float32)
    if np.array_equal(a @ w.T, a @ np.ascontiguousarray(w.T)):
        pytest.skip("this BLAS sums both layouts alike")
    assert direct._copy_pays(a, w.T) is None
