"""Backward formulas' fast paths, each against the general path it stands for: the gradients of
full reductions (Note [Materialised reduction gradients]), reduction formulas in NumPy (Note
[Backward formulas in NumPy]) and prelu's joint formula."""

from __future__ import annotations

import numpy as np
import pytest

import numtorch
from numtorch.autograd import grad
from numtorch.ops import _formula_np
from numtorch.ops.reduction import _grad
from numtorch.utils._python_dispatch import TorchDispatchMode


class _Log(TorchDispatchMode):
    """Records the aten calls it sees in ``calls``."""

    def __init__(self):
        super().__init__()
        self.calls = []

    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        self.calls.append(str(func))
        return func(*args, **(kwargs or {}))


def _incoming(y, reduce):
    """The gradient ``reduce(y).backward()`` hands to ``y``'s node, and its strides."""
    seen = []
    y.register_hook(lambda g: seen.append(g))
    reduce(y).backward()
    return seen[0]


_REDUCTIONS = [lambda y: y.sum(), lambda y: y.mean(), lambda y: y.sum((0, 1)),
               lambda y: y.mean(1, keepdim=True).sum(), lambda y: y.sum(0).mean(), lambda y: y.amax()]


@pytest.mark.parametrize("reduce", _REDUCTIONS)
@pytest.mark.parametrize("dtype", [numtorch.float32, numtorch.float64])
def test_small_full_reduction_gradient_is_contiguous_with_the_general_paths_values(reduce, dtype, monkeypatch):
    a = np.random.default_rng(0).random((3, 4))
    x = numtorch.tensor(a, dtype=dtype, requires_grad=True)
    g = _incoming(x * 2, reduce)
    assert g.is_contiguous() and 0 not in g.stride()
    (x * 2).exp().sum().backward()
    fast = x.grad.clone()
    monkeypatch.setattr(_grad, "_FULL_MAX", 0)  # every size takes PyTorch's expand formula
    y = numtorch.tensor(a, dtype=dtype, requires_grad=True)
    slow = _incoming(y * 2, reduce)
    np.testing.assert_array_equal(g.numpy(), slow.numpy())
    (y * 2).exp().sum().backward()
    np.testing.assert_array_equal(fast.numpy(), y.grad.numpy())


def test_large_sum_gradient_stays_an_expand_view():
    x = numtorch.rand(3, _grad._FULL_MAX, requires_grad=True)
    assert 0 in _incoming(x * 2, lambda y: y.sum()).stride()
    assert 0 in _incoming(x * 2, lambda y: y.sum(1).sum()).stride()


def test_values_match_numpy_for_sum_and_mean_over_dims():
    a = np.arange(24, dtype=np.float32).reshape(2, 3, 4)
    for fn, expect in [(lambda t: t.sum(), np.ones_like(a)), (lambda t: t.mean(), np.full_like(a, np.float32(1) / 24)),
                       (lambda t: t.mean((0, 2)).sum(), np.full_like(a, np.float32(1) / 8)),
                       (lambda t: (t.sum(1, keepdim=True) * 3).sum(), np.full_like(a, 3))]:  # fmt: skip
        x = numtorch.tensor(a, requires_grad=True)
        fn(x).backward()
        assert x.grad.dtype == numtorch.float32
        np.testing.assert_array_equal(x.grad.numpy(), expect)


def test_half_mean_keeps_the_div_scalar_formula():
    x = numtorch.ones(3, dtype=numtorch.float16, requires_grad=True)
    x.mean().backward()
    assert x.grad.dtype == numtorch.float16 and x.grad.tolist() == [np.float16(1) / np.float16(3)] * 3


def test_leaf_gradient_owns_its_memory():
    x = numtorch.rand(5, requires_grad=True)
    x.sum().backward()
    x.grad.add_(1.0)  # a broadcast view would refuse the write or change every element at once
    assert x.grad.tolist() == [2.0] * 5


def test_create_graph_keeps_the_gradient_differentiable():
    x = numtorch.rand(4, dtype=numtorch.float64, requires_grad=True)
    w = numtorch.tensor(3.0, dtype=numtorch.float64, requires_grad=True)
    for reduce, scale in [(lambda t: t.sum(), 1.0), (lambda t: t.mean(), 0.25)]:
        (g,) = grad(reduce(x * w), x, create_graph=True)
        assert g.requires_grad
        (gw,) = grad(g.sum(), w)
        assert gw.item() == pytest.approx(4 * scale)


def test_dispatch_mode_sees_the_expand_pytorch_records():
    x = numtorch.rand(3, requires_grad=True)
    y = x.sum()
    with _Log() as log:
        y.backward()
    assert "aten.expand.default" in log.calls
    assert x.grad.tolist() == [1.0] * 3


# Note [Backward formulas in NumPy]: each formula's NumPy body against its ops (the path a graph
# being built or a dispatch mode takes), on ties, NaN, zero spread and a non-contiguous input
_FORMULAS = {
    "var": lambda t: t.var(1), "var_all": lambda t: t.var(), "std": lambda t: t.std((0, 2), keepdim=True),
    "std_all": lambda t: t.std(correction=0), "var_mean": lambda t: sum(numtorch.var_mean(t, 2)),
    "std_mean": lambda t: (lambda s, m: s * 3 + m)(*numtorch.std_mean(t, (0, 1))),
    "norm": lambda t: numtorch.linalg.vector_norm(t, dim=1), "norm_all": lambda t: t.norm(),
    "amax": lambda t: t.amax((0, 2)), "amin_all": lambda t: t.amin(), "max": lambda t: t.max(),
    "max_dim": lambda t: t.max(1)[0], "min_keep": lambda t: t.min(2, keepdim=True)[0],
    "topk": lambda t: t.topk(2, 1)[0], "sort": lambda t: t.sort(0, descending=True)[0],
    "kthvalue": lambda t: t.kthvalue(2, 2)[0], "median": lambda t: t.median(1)[0], "mode": lambda t: t.mode(0)[0],
    "cumsum": lambda t: t.cumsum(1), "cumprod": lambda t: t.cumprod(2), "cumprod_1d": lambda t: t[0, 0].cumprod(0),
}  # fmt: skip


def _inputs(dtype):
    rng = np.random.default_rng(3)
    a = rng.integers(0, 4, (3, 4, 5)).astype(np.float64)  # ties
    b = rng.random((5, 4, 3)).transpose(2, 1, 0)  # non-contiguous
    c = np.ones((3, 4, 5))  # zero spread: std's and norm's guarded zeros
    c[0] = 0.0
    d = rng.random((3, 4, 5))
    d[1, 2, 3] = np.nan
    return [numtorch.tensor(a, dtype=dtype), numtorch.from_numpy(b).to(dtype), numtorch.tensor(c, dtype=dtype),
            numtorch.tensor(d, dtype=dtype)]  # fmt: skip


def _grads(fn, x, w):
    x = x.detach().requires_grad_(True)
    y = fn(x)
    (y * w[: y.numel()].reshape(y.shape)).sum().backward()
    return x.grad.numpy()


@pytest.mark.parametrize("name", sorted(_FORMULAS))
@pytest.mark.parametrize("dtype", [numtorch.float32, numtorch.float64])
def test_numpy_formula_gives_the_ops_formulas_gradient(name, dtype, monkeypatch):
    fn = _FORMULAS[name]
    w = numtorch.linspace(0.5, 2.0, 60, dtype=dtype)
    for x in _inputs(dtype):
        fast = _grads(fn, x, w)
        with monkeypatch.context() as m:
            m.setattr(_formula_np, "_FLOATS", ())  # plain() refuses every dtype
            slow = _grads(fn, x, w)
        np.testing.assert_allclose(fast, slow, rtol=2e-6 if dtype == numtorch.float32 else 1e-13, atol=1e-7)
        assert np.isnan(fast).tolist() == np.isnan(slow).tolist()


def test_numpy_formulas_are_not_used_for_half_or_under_create_graph():
    x = numtorch.tensor([1.0, 2.0, 4.0], dtype=numtorch.float16, requires_grad=True)
    x.std().backward()
    assert x.grad.dtype == numtorch.float16
    x = numtorch.tensor([1.0, 2.0, 4.0], dtype=numtorch.float64, requires_grad=True)
    (g,) = grad(x.std(), x, create_graph=True)
    assert g.grad_fn is not None
    (gg,) = grad(g.sum(), x)
    assert np.isfinite(gg.numpy()).all()


def test_prelu_backward_runs_its_kernel_once_for_both_gradients():
    x = numtorch.tensor([[-1.0, 2.0], [3.0, -4.0]], dtype=numtorch.float64, requires_grad=True)
    w = numtorch.tensor([0.25, 0.5], dtype=numtorch.float64, requires_grad=True)
    y = numtorch.nn.functional.prelu(x, w)
    with _Log() as log:
        y.sum().backward()
    assert log.calls.count("aten._prelu_kernel_backward.default") == 1
    np.testing.assert_array_equal(x.grad.numpy(), [[0.25, 1.0], [1.0, 0.5]])
    np.testing.assert_array_equal(w.grad.numpy(), [-1.0, -4.0])
    assert numtorch.autograd.gradcheck(numtorch.nn.functional.prelu, (x, w))
    assert numtorch.autograd.gradgradcheck(numtorch.nn.functional.prelu, (x, w))


@pytest.mark.parametrize("eps", [None, 0.1])
@pytest.mark.parametrize("dtype", [numtorch.float32, numtorch.float64])
def test_logit_backward_is_one_fused_op_with_pytorchs_edges(eps, dtype):
    # Note [Fused logit backward]: NaN outside [0, 1] (eps None), zero outside [eps, 1 - eps],
    # g / (x (1 - x)) inside, +-inf at 0 and 1
    v = np.array([-0.5, 0.0, 0.05, 0.3, 0.5, 0.95, 1.0, 1.5])
    x = numtorch.tensor(v, dtype=dtype, requires_grad=True)
    w = numtorch.tensor([1.0, 2.0, -1.0, 3.0, 1.0, 1.0, -2.0, 1.0], dtype=dtype)
    y = (numtorch.logit(x, eps) * w).sum()
    with _Log() as log:
        y.backward()
    assert log.calls.count("aten.logit_backward.default") == 1 and "aten.where.self" not in log.calls
    a = v.astype(dtype.np if hasattr(dtype, "np") else np.float64)
    with np.errstate(all="ignore"):
        inside = w.numpy() / (a * (1 - a))
    lo, hi, fill = (0.0, 1.0, np.nan) if eps is None else (eps, 1 - eps, 0.0)
    want = np.where((a < lo) | (a > hi), fill, inside)
    np.testing.assert_allclose(x.grad.numpy(), want, rtol=1e-6)
    t = numtorch.tensor([0.2, 0.3, 0.7], dtype=numtorch.float64, requires_grad=True)
    assert numtorch.autograd.gradgradcheck(lambda u: numtorch.logit(u, eps), (t,))


@pytest.mark.parametrize("observed", [False, True])
def test_cumsum_backward_is_the_reversed_cumsum_without_cancellation(observed, monkeypatch):
    # PyTorch's flip(cumsum(flip(grad))): sum - cumsum + grad gave [1e8, 1, 1, 1] here, the tail
    # sums lost against the float32 total; the ops path (a graph, a mode) and NumPy's agree
    if observed:
        monkeypatch.setattr(_formula_np, "_FLOATS", ())
    x = numtorch.zeros(2, 4, requires_grad=True)
    w = numtorch.tensor([[1e8, 1.0, 1.0, 1.0], [1.0, 2.0, 3.0, 4.0]])
    (x.cumsum(1) * w).sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), [[1e8, 3.0, 2.0, 1.0], [10.0, 9.0, 7.0, 4.0]])
    y = numtorch.tensor([[0.5, 1.0], [2.0, 3.0]], dtype=numtorch.float64, requires_grad=True)
    assert numtorch.autograd.gradgradcheck(lambda t: t.cumsum(0), (y,))


@pytest.mark.parametrize("fn", [numtorch.maximum, numtorch.minimum])
@pytest.mark.parametrize("dtype", [numtorch.float32, numtorch.float64])
def test_maximum_minimum_numpy_formula_gives_the_ops_formulas_gradients(fn, dtype, monkeypatch):
    # ties split evenly, NaN to both, broadcast operands summed back
    a = np.array([[1.0, 2.0, np.nan, 5.0], [3.0, 3.0, 0.0, -1.0], [2.0, 0.5, 1.0, 1.0]])
    b = np.array([2.0, 2.0, 1.0, 1.0])
    w = numtorch.tensor([[1.0, 2.0, 4.0, 8.0]], dtype=dtype)
    out = []
    for observed in (False, True):
        with monkeypatch.context() as m:
            if observed:
                m.setattr(_formula_np, "_FLOATS", ())
            x, y = (numtorch.tensor(v, dtype=dtype, requires_grad=True) for v in (a, b))
            (fn(x, y) * w).sum().backward()
            out.append((x.grad.numpy(), y.grad.numpy()))
    for fast, slow in zip(*out):
        np.testing.assert_array_equal(fast, slow)


def test_numpy_formulas_stay_off_above_the_small_size_unless_asked(monkeypatch):
    # Note [Backward formulas in NumPy]: above SMALL elements only any_size formulas take NumPy
    x = numtorch.rand(4)
    with numtorch.no_grad():
        assert _formula_np.plain(x) and _formula_np.plain(x, any_size=True)
        monkeypatch.setattr(_formula_np, "SMALL", 3)
        assert not _formula_np.plain(x) and _formula_np.plain(x, any_size=True)
    assert not _formula_np.plain(x, any_size=True)  # grad mode on: a graph may be built


@pytest.mark.parametrize("dtype", [numtorch.float32, numtorch.float64])
def test_take_along_dim_numpy_formula_gives_the_ops_formulas_gradient(dtype, monkeypatch):
    # repeated and negative indices accumulate; indices broadcast against the input
    x0 = np.arange(12.0).reshape(3, 4)
    cases = [(np.array([[0, 3, 3], [1, -1, 2], [0, 0, 0]]), 1), (np.array([[2], [0], [-3]]), 1),
             (np.array([[0, 1, 2, 2]]), 0)]  # fmt: skip
    for idx, dim in cases:
        out = []
        for observed in (False, True):
            with monkeypatch.context() as m:
                if observed:
                    m.setattr(_formula_np, "_FLOATS", ())
                x = numtorch.tensor(x0, dtype=dtype, requires_grad=True)
                y = numtorch.take_along_dim(x, numtorch.tensor(idx), dim)
                (y * numtorch.arange(1.0, y.numel() + 1, dtype=dtype).reshape(y.shape)).sum().backward()
                out.append(x.grad.numpy())
        np.testing.assert_array_equal(out[0], out[1])
