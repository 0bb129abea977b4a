"""Compiled functions used in training give eager's gradients (Note [Compiled calls])."""

from __future__ import annotations

import numpy as np
import pytest

import numtorch
from numtorch.autograd import gradcheck, gradgradcheck


def chain(x, y):
    return ((x * y + 1).tanh() - x.sigmoid()) * y.exp()


def test_gradients_equal_eager_and_gradcheck():
    cf = numtorch.compile(chain)
    x = numtorch.randn(4, 3, dtype=numtorch.float64, requires_grad=True)
    y = numtorch.randn(3, dtype=numtorch.float64, requires_grad=True)
    for _ in range(2):
        gx, gy = numtorch.autograd.grad(cf(x, y).sum(), (x, y))
        ex, ey = numtorch.autograd.grad(chain(x, y).sum(), (x, y))
        np.testing.assert_array_equal(gx.numpy(), ex.numpy())
        np.testing.assert_array_equal(gy.numpy(), ey.numpy())
    assert gradcheck(cf, (x, y))
    assert gradgradcheck(cf, (x, y))


def test_no_grad_call_of_the_same_inputs_is_fused_and_detached():
    cf = numtorch.compile(chain)
    x = numtorch.randn(5, requires_grad=True)
    y = numtorch.randn(5)
    with numtorch.no_grad():
        for _ in range(2):
            r = cf(x, y)
    assert not r.requires_grad
    np.testing.assert_array_equal(r.numpy(), chain(x, y).detach().numpy())


def test_training_loop_matches_eager():
    def run(compiled: bool):
        numtorch.manual_seed(0)
        m = numtorch.nn.Sequential(numtorch.nn.Linear(6, 16), numtorch.nn.GELU(), numtorch.nn.Linear(16, 3))
        step = numtorch.compile(m) if compiled else m
        opt = numtorch.optim.SGD(m.parameters(), lr=0.1)
        x, t = numtorch.randn(32, 6), numtorch.randint(0, 3, (32,))
        losses = []
        for _ in range(20):
            opt.zero_grad()
            loss = numtorch.nn.functional.cross_entropy(step(x), t)
            loss.backward()
            opt.step()
            losses.append(loss.item())
        return losses

    np.testing.assert_array_equal(run(True), run(False))


def test_backward_is_captured_and_fused():
    from numtorch._compile import fusion

    cf = numtorch.compile(chain)
    x = numtorch.randn(4, 3, requires_grad=True)
    y = numtorch.randn(4, 3, requires_grad=True)
    cf(x, y)
    r = cf(x, y)
    (entry,) = cf.cache.values()
    assert entry.aot is not None and type(r.grad_fn).__name__ == "_CompiledBackward"
    assert any(isinstance(s, fusion.Region) for s in entry.aot.fwd_steps)
    assert any(isinstance(s, fusion.Region) for s in entry.aot.bwd_steps)
    g = numtorch.randn(4, 3)
    gx, gy = numtorch.autograd.grad(r, (x, y), g)
    ex, ey = numtorch.autograd.grad(chain(x, y), (x, y), g)
    np.testing.assert_array_equal(gx.numpy(), ex.numpy())
    np.testing.assert_array_equal(gy.numpy(), ey.numpy())


def test_parameters_captured_by_reference_get_gradients():
    lin = numtorch.nn.Linear(3, 2)

    def f(x):
        return (lin(x) * 2).tanh()

    cf = numtorch.compile(f)
    x = numtorch.randn(5, 3)
    for _ in range(2):
        lin.zero_grad()
        cf(x).sum().backward()
        got = [p.grad.clone() for p in lin.parameters()]
        lin.zero_grad()
        f(x).sum().backward()
        for a, p in zip(got, lin.parameters(), strict=True):
            np.testing.assert_array_equal(a.numpy(), p.grad.numpy())
    assert next(iter(cf.cache.values())).aot is not None


def test_dropout_keeps_the_random_stream():
    def f(x):
        return numtorch.nn.functional.dropout(x * 2, 0.5, training=True).exp()

    x = numtorch.randn(50, requires_grad=True)
    cf = numtorch.compile(f)
    numtorch.manual_seed(3)
    got = [cf(x) for _ in range(3)]
    numtorch.manual_seed(3)
    want = [f(x) for _ in range(3)]
    for a, b in zip(got, want, strict=True):
        np.testing.assert_array_equal(a.detach().numpy(), b.detach().numpy())


def test_cnn_training_matches_eager():
    nn = numtorch.nn

    def run(compiled: bool):
        numtorch.manual_seed(0)
        m = nn.Sequential(nn.Conv2d(1, 4, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2), nn.Flatten(), nn.Linear(64, 10))
        step = numtorch.compile(m) if compiled else m
        opt = numtorch.optim.Adam(m.parameters(), lr=1e-2)
        x, t = numtorch.randn(16, 1, 8, 8), numtorch.randint(0, 10, (16,))
        losses = []
        for _ in range(10):
            opt.zero_grad()
            loss = nn.functional.cross_entropy(step(x), t)
            loss.backward()
            opt.step()
            losses.append(loss.item())
        if compiled:
            assert next(iter(step._compiled.cache.values())).aot is not None
        return losses

    np.testing.assert_array_equal(run(True), run(False))


_DEFAULT_GRAD = {"add", "sub", "mul", "div", "pow", "exp", "tanh", "sigmoid", "where", "clamp", "atan2", "lerp"}


def _grad_cases():
    import pytest

    from numtorch.testing._opinfo import pointwise

    for info in pointwise.core.OPINFOS + pointwise.special.OPINFOS:
        if info.grad and "float64" in info.dtypes:
            # Note [Default and slow test runs]: a few in the default run, all under -m slow
            marks = () if info.name in _DEFAULT_GRAD else (pytest.mark.slow,)
            yield pytest.param(info, id=info.name, marks=marks)


def _pytest_param(fn):
    import pytest

    return pytest.mark.parametrize("info", list(_grad_cases()))(fn)


@_pytest_param
def test_pointwise_opinfo_gradients_match_eager(info):
    from tests.ops._harness import to_nt

    op = info.resolve()
    rng = np.random.default_rng(0)

    def f(x, *args, **kwargs):
        y = op(x, *args, **kwargs)
        return (y * y) if isinstance(y, numtorch.Tensor) and y.is_floating_point() else y

    for s in info.sample_inputs("float64", rng):
        x = to_nt(s.input, requires_grad=True)
        args, kwargs = to_nt(tuple(s.args)), to_nt(dict(s.kwargs))
        try:
            want = f(x, *args, **kwargs)
            if not isinstance(want, numtorch.Tensor) or not want.requires_grad or not want.numel():
                continue
            g = numtorch.ones_like(want)
            (ew,) = numtorch.autograd.grad(want, x, g)
        except Exception:
            continue
        cf = numtorch.compile(f)
        for _ in range(2):
            got = cf(x, *args, **kwargs)
            (cg,) = numtorch.autograd.grad(got, x, g)
            np.testing.assert_array_equal(got.detach().numpy(), want.detach().numpy())
            np.testing.assert_array_equal(cg.numpy(), ew.numpy())


def test_gelu_mlp_block_gradients_equal_eager():
    # Note [addmm epilogue]: the forward runs mm then a fused bias + GELU region; the backward's
    # gelu_backward is a declared pointwise op too
    numtorch.manual_seed(0)
    nn = numtorch.nn
    fc1, fc2, norm = nn.Linear(8, 16), nn.Linear(16, 8), nn.LayerNorm(8)

    def block(x):
        return norm(x + fc2(nn.functional.gelu(fc1(x))))

    cf = numtorch.compile(block)
    x = numtorch.randn(4, 8, requires_grad=True)
    params = [x, *fc1.parameters(), *fc2.parameters(), *norm.parameters()]
    for _ in range(2):
        got = numtorch.autograd.grad(cf(x).sum(), params)
        want = numtorch.autograd.grad(block(x).sum(), params)
        for g, w in zip(got, want, strict=True):
            np.testing.assert_array_equal(g.numpy(), w.numpy())
    np.testing.assert_array_equal(cf(x).detach().numpy(), block(x).detach().numpy())


def test_causal_attention_gradients_equal_eager():
    # the fused scale + mask + softmax region (Note [Fused trailing softmax]) in a training graph
    mask = numtorch.ones(6, 6).tril().view(1, 1, 6, 6)

    def attn(q, k, v):
        att = (q @ k.transpose(-2, -1)) * 0.5
        return att.masked_fill(mask == 0, float("-inf")).softmax(-1) @ v

    cf = numtorch.compile(attn)
    q, k, v = (numtorch.randn(2, 2, 6, 4, dtype=numtorch.float64, requires_grad=True) for _ in range(3))
    for _ in range(2):
        got = numtorch.autograd.grad(cf(q, k, v).sum(), (q, k, v))
        want = numtorch.autograd.grad(attn(q, k, v).sum(), (q, k, v))
        for a, b in zip(got, want, strict=True):  # eager's own softmax kernels: its bits
            np.testing.assert_array_equal(a.numpy(), b.numpy())
    (e,) = cf.cache.values()
    assert any(getattr(st, "reduce", None) == ("softmax", False) for st in e.aot.fwd_steps)
    # Note [Fused softmax backward]: softmax's backward heads the mask + scale region
    assert any(getattr(st, "head", None) is not None and len(st.nodes) == 3 for st in e.aot.bwd_steps)
    assert gradcheck(cf, (q, k, v))


@pytest.mark.parametrize("k", [5, 130])
def test_softmax_backward_region_agrees_with_eager_in_float32(k):
    # rows of 5 and 130; eager's one-pass row backward (Note [Softmax over short rows])
    # reassociates its sums, so the fused region agrees within float32 rounding
    def f(x, m):
        return (x.softmax(-1).masked_fill(m, 0.0) * 3).sum(), x

    def g(x, m):
        return (x * 0.5).masked_fill(m, float("-inf")).softmax(-1)

    cf = numtorch.compile(g)
    x = (numtorch.randn(3, 4, k) * 4).requires_grad_()
    m = numtorch.rand(4, k) < 0.2
    w = numtorch.randn(3, 4, k)
    for _ in range(2):
        (got,) = numtorch.autograd.grad((cf(x, m) * w).sum(), x)
        (want,) = numtorch.autograd.grad((g(x, m) * w).sum(), x)
        np.testing.assert_allclose(got.numpy(), want.numpy(), rtol=1e-5, atol=1e-6)
    (e,) = cf.cache.values()
    assert any(getattr(st, "head", None) is not None for st in e.aot.bwd_steps)


def test_cheap_pointwise_values_are_recomputed_in_backward_not_saved():
    # Note [Recompute in backward]: the chain's intermediates (tanh, sigmoid, exp outputs) are
    # recomputed from the inputs, which the backward holds anyway; gradients stay bitwise
    cf = numtorch.compile(chain)
    x = numtorch.randn(4, 3, requires_grad=True)
    y = numtorch.randn(3, requires_grad=True)
    for _ in range(2):
        gx, gy = numtorch.autograd.grad(cf(x, y).sum(), (x, y))
    ex, ey = numtorch.autograd.grad(chain(x, y).sum(), (x, y))
    np.testing.assert_array_equal(gx.numpy(), ex.numpy())
    np.testing.assert_array_equal(gy.numpy(), ey.numpy())
    plan = next(iter(cf.cache.values())).aot
    assert [s for s in plan.saved if s >= plan.fwd.n_inputs] == []  # before: 4 intermediates saved
    assert not any(n.op.__name__ == "detach.default" for n in plan.fwd.nodes)  # dead calls dropped


def test_gelu_pre_activation_is_recomputed_from_the_product():
    # the bias add before GELU is recomputed in the backward's region with gelu_backward: the
    # forward region writes only GELU's output, and the product is saved in its place
    from numtorch._compile import fusion

    numtorch.manual_seed(0)
    lin = numtorch.nn.Linear(8, 16)
    cf = numtorch.compile(lambda x: numtorch.nn.functional.gelu(lin(x)))
    x = numtorch.randn(4, 8, requires_grad=True)
    for _ in range(2):
        gx, gw = numtorch.autograd.grad(cf(x).sum(), (x, lin.weight))
    ex, ew = numtorch.autograd.grad(numtorch.nn.functional.gelu(lin(x)).sum(), (x, lin.weight))
    np.testing.assert_array_equal(gx.numpy(), ex.numpy())
    np.testing.assert_array_equal(gw.numpy(), ew.numpy())
    plan = next(iter(cf.cache.values())).aot
    region = [st for st in plan.fwd_steps if isinstance(st, fusion.Region)]
    assert len(region) == 1 and len(region[0].out_slots) == 1
    names = [[n.op.__name__ for n in st.nodes] for st in plan.bwd_steps if isinstance(st, fusion.Region)]
    assert ["add.Tensor", "gelu_backward.default"] in names
