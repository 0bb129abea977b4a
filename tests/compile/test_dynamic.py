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
    (mask, _, _, formulas), = cf.generic
    assert formulas is None
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
    cf = numtorch.compile(g, dynamic=True)
    for shape in ((3, 8), (5, 8), (6, 8), (3, 10)):
        x = numtorch.randn(*shape)
        np.testing.assert_array_equal(cf(x).numpy(), (x[:, : shape[1] // 2] * 2).numpy())
    assert len(calls) == 3


def test_sizes_recorded_as_arguments_get_one_formula():
    g, calls = _counted(lambda x: x.view(x.shape[0] * 2, -1).sin())
    cf = numtorch.compile(g, dynamic=True)
    for n in (2, 3, 4, 7):
        x = numtorch.randn(n, 6)
        np.testing.assert_array_equal(cf(x).numpy(), x.view(n * 2, -1).sin().numpy())
    assert len(calls) == 2
    (_, _, _, formulas), = cf.generic
    assert [f for _, _, f in formulas[0]] == [(2, 0, ((1, 0),))]  # 2 * dim 0 of argument 1 (key position) + 0


def test_two_dims_changing_together_stay_specialized():
    # view(b * t) at (2, 4) and (3, 6): t + ..., 4 * b ..., b * t all fit: no single formula
    g, calls = _counted(lambda x: x.reshape(x.shape[0] * x.shape[1]).exp())
    cf = numtorch.compile(g, dynamic=True)
    for shape in ((2, 4), (3, 6), (5, 7)):
        x = numtorch.randn(*shape)
        np.testing.assert_array_equal(cf(x).numpy(), x.reshape(-1).exp().numpy())
    assert len(calls) == 3 and not cf.generic


def test_attention_over_new_sequence_lengths_runs_without_recapture():
    # a causal mask sliced to t, heads split by view(b, t, h, d): every size argument is t's formula
    numtorch.manual_seed(0)
    mask = numtorch.tril(numtorch.ones(16, 16)).view(1, 1, 16, 16)
    qkv = numtorch.nn.Linear(8, 24)

    def attn(x):
        b, t, e = x.shape
        q, k, v = qkv(x).split(e, dim=2)
        q, k, v = (z.view(b, t, 2, e // 2).transpose(1, 2) for z in (q, k, v))
        a = (q @ k.transpose(-2, -1)) * 0.5
        a = a.masked_fill(mask[:, :, :t, :t] == 0, float("-inf")).softmax(dim=-1)
        return (a @ v).transpose(1, 2).contiguous().view(b, t, e)

    g, calls = _counted(attn)
    cf = numtorch.compile(g, dynamic=True)
    for t in (8, 12, 5, 16, 9):
        x = numtorch.randn(2, t, 8, requires_grad=True)
        r = cf(x)
        gx, gw = numtorch.autograd.grad(r.sum(), (x, qkv.weight))
        ex, ew = numtorch.autograd.grad(attn(x).sum(), (x, qkv.weight))
        np.testing.assert_array_equal(r.detach().numpy(), attn(x).detach().numpy())
        np.testing.assert_array_equal(gx.numpy(), ex.numpy())
        np.testing.assert_array_equal(gw.numpy(), ew.numpy())
    assert len(calls) == 2  # two captures at t = 8 and 12; 5, 16 and 9 reuse the graph


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


@pytest.mark.parametrize("read", ["shape", "size", "len", "numel"])
def test_default_dynamic_never_generalizes_a_capture_that_read_sizes(read):
    # Python may branch on a size it read: with dynamic=None each size is its own capture
    size = {"shape": lambda x: x.shape[0], "size": lambda x: x.size(0), "len": len,
            "numel": lambda x: x.numel() // 2}[read]  # fmt: skip

    def f(x):
        return x * 2 if size(x) > 4 else x * 3

    g, calls = _counted(f)
    cf = numtorch.compile(g)
    for n in (5, 6, 3, 7, 2):
        x = numtorch.randn(n, 2)
        np.testing.assert_array_equal(cf(x).numpy(), f(x).numpy())
    assert len(calls) == 5 and not cf.generic
