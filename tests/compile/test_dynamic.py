"""Dynamic shapes: a shape-generic graph serves new sizes without a recapture (Note [Dynamic shapes])."""

from __future__ import annotations

import numpy as np
import pytest

import numtorch


def _counted(fn):
    calls = []

    def g(*args):
        calls.append(1)
        return fn(*args)

    return g, calls


@pytest.mark.parametrize("dynamic", [None, True])
def test_shape_change_after_two_captures_runs_without_recapture(dynamic):
    g, calls = _counted(lambda x, y: (x * y + 1).tanh() * 2)
    cf = numtorch.compile(g, dynamic=dynamic)
    for n in (3, 5, 7, 9, 11, 7):
        x, y = numtorch.randn(n, 4), numtorch.randn(4)
        np.testing.assert_array_equal(cf(x, y).numpy(), ((x * y + 1).tanh() * 2).numpy())
    assert len(calls) == 2 and cf.captures == 1  # the second capture generalizes; no more run the Python
    (mask, _, _), = cf.generic
    assert list(mask.values()) == [(True, False)]  # only the dim that changed is dynamic


def test_dynamic_false_never_generalizes():
    g, calls = _counted(lambda x: x.exp() + 1)
    cf = numtorch.compile(g, dynamic=False)
    for n in (2, 3, 4, 5):
        cf(numtorch.randn(n))
    assert len(calls) == 4 and not cf.generic


def test_dims_that_did_not_change_stay_guarded():
    # the slice end comes from dim 1, which was equal in the two captures: a new dim 1 recaptures
    g, calls = _counted(lambda x: x[:, : x.shape[1] // 2] * 2)
    cf = numtorch.compile(g)
    for shape in ((3, 8), (5, 8), (6, 8), (3, 10)):
        x = numtorch.randn(*shape)
        np.testing.assert_array_equal(cf(x).numpy(), (x[:, : shape[1] // 2] * 2).numpy())
    assert len(calls) == 3


def test_sizes_baked_into_arguments_are_not_generalized():
    g, calls = _counted(lambda x: x.view(x.shape[0] * 2, -1).sin())
    cf = numtorch.compile(g)
    for n in (2, 3, 4):
        x = numtorch.randn(n, 6)
        np.testing.assert_array_equal(cf(x).numpy(), x.view(n * 2, -1).sin().numpy())
    assert len(calls) == 3 and not cf.generic


def test_module_gradients_at_new_batch_sizes_equal_eager():
    numtorch.manual_seed(0)
    m = numtorch.nn.Sequential(numtorch.nn.Linear(4, 8), numtorch.nn.GELU(), numtorch.nn.Linear(8, 2))
    om = numtorch.compile(m, dynamic=True)
    for n in (3, 5, 6, 9):
        x = numtorch.randn(n, 4, requires_grad=True)
        r = om(x)
        gx, gw = numtorch.autograd.grad(r.sum(), (x, m[0].weight))
        ex, ew = numtorch.autograd.grad(m(x).sum(), (x, m[0].weight))
        np.testing.assert_array_equal(r.detach().numpy(), m(x).detach().numpy())
        np.testing.assert_array_equal(gx.numpy(), ex.numpy())
        np.testing.assert_array_equal(gw.numpy(), ew.numpy())
    assert om._compiled.captures == 1 and len(om._compiled.generic) == 1
    entry = om._compiled.cache[next(reversed(om._compiled.cache))]
    assert entry.aot is not None  # the new shape's call ran the fused forward/backward plan
