"""Direct plan steps for cat, embedding, (log_)softmax and nll_loss, forward and backward
(Note [Direct nn steps]): bitwise eager's, the node only where a check fails."""

from __future__ import annotations

import numpy as np
import pytest

import numtorch
from numtorch._compile import direct_nn

F = numtorch.nn.functional
_KINDS = {"CatStep", "EmbeddingStep", "EmbeddingBackwardStep", "SoftmaxStep", "SoftmaxBackwardStep", "NllStep",
          "NllBackwardStep"}  # fmt: skip


def _steps(cf) -> list:
    out = []
    for e in cf.cache.values():
        if e.aot is not None:
            out += e.aot.fwd_steps + e.aot.bwd_steps
        out += e.steps or []
    return [st for st in out if type(st).__module__ == direct_nn.__name__]


def _tail(log, reduction, ignore_index=-100):
    def f(idx, w, extra, tgt):
        h = F.embedding(idx, w)  # (N, D)
        z = numtorch.cat([h, extra * 2.0], 1)  # (N, D + E)
        s = numtorch.log_softmax(z, -1) if log else numtorch.softmax(z, -1).log()
        return F.nll_loss(s, tgt, reduction=reduction, ignore_index=ignore_index)

    return f


def _inputs(seed=0):
    g = numtorch.Generator().manual_seed(seed)
    w = numtorch.randn(9, 5, generator=g, requires_grad=True)
    extra = numtorch.randn(6, 3, generator=g, requires_grad=True)
    idx = numtorch.tensor([0, 3, 8, 3, 1, 2])
    tgt = numtorch.tensor([1, 7, 0, 4, 4, 2])
    return idx, w, extra, tgt


def _grads(f, args):
    loss = f(*args)
    loss.backward()
    gs = [a.grad.numpy().copy() for a in args if a.requires_grad]
    for a in args:
        a.grad = None
    return loss.detach().numpy().copy(), gs


@pytest.mark.parametrize("log,reduction", [(True, "mean"), (False, "sum")])
def test_lm_tail_is_bitwise_eager_and_runs_no_node(log, reduction):
    f = _tail(log, reduction)
    cf = numtorch.compile(f)
    args = _inputs()
    want = _grads(f, args)
    for _ in range(2):
        got = _grads(cf, args)
        np.testing.assert_array_equal(got[0], want[0])
        for a, b in zip(got[1], want[1], strict=True):
            np.testing.assert_array_equal(a, b)
    kinds = {type(st).__name__ for st in _steps(cf)}
    assert kinds == _KINDS

    def boom(env):
        raise AssertionError("the node ran")

    for st in _steps(cf):
        object.__setattr__(st, "node", type("N", (), {"run": staticmethod(boom)})())
    got = _grads(cf, args)  # a third call: every direct step took its kernels
    np.testing.assert_array_equal(got[0], want[0])


def test_out_of_range_indices_raise_eagers_errors():
    f = _tail(True, "mean")
    cf = numtorch.compile(f)
    idx, w, extra, tgt = _inputs()
    cf(idx, w, extra, tgt)
    cf(idx, w, extra, tgt)
    with pytest.raises(IndexError, match="Target 9 is out of bounds."):
        cf(idx, w, extra, numtorch.tensor([1, 7, 0, 4, 9, 2]))
    with pytest.raises(IndexError, match="index out of range in self"):
        cf(numtorch.tensor([0, 3, 9, 3, 1, 2]), w, extra, tgt)
    with pytest.raises(IndexError, match="index out of range in self"):
        cf(numtorch.tensor([0, 3, -1, 3, 1, 2]), w, extra, tgt)


def test_ignore_index_outside_the_classes_takes_the_node():
    # an ignored target of -100 fails the steps' range check: the node runs, as eager does
    f = _tail(True, "mean")
    cf = numtorch.compile(f)
    idx, w, extra, tgt = _inputs()
    cf(idx, w, extra, tgt)
    t2 = numtorch.tensor([1, -100, 0, 4, -100, 2])
    want = _grads(f, (idx, w, extra, t2))
    got = _grads(cf, (idx, w, extra, t2))
    np.testing.assert_array_equal(got[0], want[0])
    for a, b in zip(got[1], want[1], strict=True):
        np.testing.assert_array_equal(a, b)


def test_softmax_over_a_long_or_inner_dim_is_not_a_step():
    def f(x):
        return numtorch.softmax(x, 0), numtorch.log_softmax(x, -1)

    cf = numtorch.compile(f)
    x = numtorch.randn(4, 200)  # rows of 200 > _SHORT_ROW; dim 0 is not the last
    with numtorch.no_grad():
        for _ in range(2):
            for a, b in zip(cf(x), f(x), strict=True):
                np.testing.assert_array_equal(a.numpy(), b.numpy())
    assert not _steps(cf)


def test_cat_of_mixed_dtypes_or_a_dispatch_mode_runs_the_node():
    from numtorch.utils._python_dispatch import TorchDispatchMode

    def f(a, b):
        return numtorch.cat([a, b], 0)

    cf = numtorch.compile(f)
    a, b = numtorch.randn(2, 3), numtorch.randn(1, 3)
    for _ in range(2):
        np.testing.assert_array_equal(cf(a, b).numpy(), f(a, b).numpy())
    assert [type(st).__name__ for st in _steps(cf)] == ["CatStep"]
    cm = numtorch.compile(f)
    bi = numtorch.ones(1, 3, dtype=numtorch.int64)
    for _ in range(2):
        r = cm(a, bi)
    assert r.dtype is numtorch.float32 and not _steps(cm)

    class Count(TorchDispatchMode):
        seen = 0

        def __torch_dispatch__(self, func, types, args=(), kwargs=None):
            Count.seen += 1
            return func(*args, **(kwargs or {}))

    want = f(a, b)
    with Count():  # the mode sees the call: the step ran its node
        got = cf(a, b)
    np.testing.assert_array_equal(got.numpy(), want.numpy())
    assert Count.seen == 1


def test_gradient_adds_are_steps():
    ln = numtorch.nn.LayerNorm(6)
    lin = numtorch.nn.Linear(6, 6)

    def f(x):
        h = x + lin(ln(x))  # the residual's gradient is an add of two gradients
        return ln(h).sum()

    cf = numtorch.compile(f)
    x = numtorch.randn(3, 4, 6, requires_grad=True)
    params = [x, ln.weight, ln.bias, lin.weight, lin.bias]

    def grads(fn):
        fn(x).backward()
        out = [p.grad.numpy().copy() for p in params]
        for p in params:
            p.grad = None
        return out

    want = grads(f)
    for _ in range(2):
        for a, b in zip(grads(cf), want, strict=True):
            np.testing.assert_array_equal(a, b)
    kinds = [type(st).__name__ for st in _steps(cf)]
    assert "AddStep" in kinds


@pytest.mark.parametrize("kind", ["plain", "alpha", "broadcast", "int"])
def test_only_a_plain_same_shape_float_add_is_an_add_step(kind):
    def f(a, b):
        return numtorch.add(a, b, alpha=2) if kind == "alpha" else a + b  # one call: no region

    a = numtorch.randn(3, 4) if kind != "int" else numtorch.arange(12).view(3, 4)
    b = numtorch.randn(4) if kind == "broadcast" else a.flip(0)
    cf = numtorch.compile(f)
    for _ in range(2):
        np.testing.assert_array_equal(cf(a, b).numpy(), f(a, b).numpy())
    assert bool([st for st in _steps(cf) if type(st).__name__ == "AddStep"]) == (kind == "plain")
