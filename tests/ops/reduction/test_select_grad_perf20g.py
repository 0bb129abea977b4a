"""Session 20 (perf20g): the selection ops' and cummax/cummin's backward through one kernel
(Note [Selection gradients put in one kernel]) and prod's backward in NumPy (Note [Backward
formulas in NumPy]): the ops' gradients bit for bit, the routes taken (spied on) and declined."""

from __future__ import annotations

import numpy as np
import pytest

import numtorch as torch
from numtorch import _api
from numtorch.autograd import gradcheck, gradgradcheck
from numtorch.kernels.cpu.reduction import selection
from numtorch.ops.reduction import _grad


@pytest.fixture
def spy(monkeypatch):
    """Names of the kernels _grad calls and the arrays prod's formula wraps."""
    seen = []
    real_call, real_wrap = _grad.call, _grad.wrap
    monkeypatch.setattr(
        _grad, "call", lambda mod, name, args: seen.append(name) or real_call(mod, name, args)
    )
    monkeypatch.setattr(_grad, "wrap", lambda a, like: seen.append("wrap") or real_wrap(a, like))
    return seen


def _first(y):
    return y[0] if isinstance(y, tuple) else y


def _grads(fn, a, create_graph, transpose=False, gstrided=False):
    x = torch.from_numpy(a.copy())
    x = (x.transpose(0, -1) if transpose else x).requires_grad_()
    y = _first(fn(x))
    g = np.linspace(-2, 3, y.numel()).reshape(y.shape).astype(a.dtype)
    if y.numel() > 1:
        g.reshape(-1)[1] = -0.0
    gt = torch.from_numpy(g)
    if gstrided and y.dim() >= 2:  # a non-contiguous upstream gradient of the same values
        gt = torch.from_numpy(np.ascontiguousarray(g.swapaxes(0, 1))).transpose(0, 1)
    (gx,) = torch.autograd.grad(y, x, gt, create_graph=create_graph)
    return gx.detach()


def _values(shape, dtype, special):
    rng = np.random.default_rng(7)
    a = rng.integers(-3, 4, shape).astype(dtype)  # ties on purpose
    if special and a.size > 5:
        a.reshape(-1)[[1, 4]] = [np.nan, -0.0]
        a.reshape(-1)[-1] = np.inf
    return a


SELECT = {
    "max": lambda x, d: x.max(d),
    "min_keepdim": lambda x, d: x.min(d, keepdim=True),
    "kthvalue": lambda x, d: x.kthvalue(2, d),
    "median": lambda x, d: x.median(d),
    "nanmedian": lambda x, d: x.nanmedian(d),
    "mode": lambda x, d: x.mode(d),
    "sort": lambda x, d: x.sort(d),
    "sort_desc": lambda x, d: x.sort(d, descending=True),
    "argsort_take": lambda x, d: x.sort(d, stable=True),
    "topk": lambda x, d: x.topk(2, d),
    "topk_smallest": lambda x, d: x.topk(1, d, largest=False),
    "cummax": lambda x, d: x.cummax(d),
    "cummin": lambda x, d: x.cummin(d),
    "prod": lambda x, d: x.prod(d),
    "prod_keepdim": lambda x, d: x.prod(d, keepdim=True),
}
KERNEL = {k: ("wrap" if k.startswith("prod") else "put_along_dim") for k in SELECT}


@pytest.mark.parametrize("special", [False, True])
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("dim", [0, 1, -1])
@pytest.mark.parametrize("name", sorted(SELECT))
def test_gradient_is_the_ops_bit_for_bit(name, dim, dtype, special, spy):
    fn = SELECT[name]
    for transpose, gstrided in ((False, False), (True, False), (False, True)):
        a = _values((3, 4, 5), dtype, special and not name.startswith("prod"))
        if name.startswith("prod"):  # no zero: the formula's division
            a[a == 0] = 1.5
            if special:
                a.reshape(-1)[[2, 9]] = [-0.5, np.inf]
        want = _grads(lambda x: fn(x, dim), a, True, transpose, gstrided)  # create_graph: ops
        spy.clear()
        got = _grads(lambda x: fn(x, dim), a, False, transpose, gstrided)
        assert KERNEL[name] in spy, (name, transpose, gstrided)
        assert got.dtype == want.dtype and got.shape == want.shape and got.stride() == want.stride()
        assert got.numpy().tobytes() == want.numpy().tobytes(), (name, transpose, gstrided)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_whole_prod_and_msort(dtype, spy):
    a = _values((4, 3), dtype, False) + dtype(5)  # no zeros
    for fn, kernel in ((lambda x: x.prod(), "wrap"), (torch.msort, "put_along_dim")):
        want = _grads(fn, a, True)
        spy.clear()
        got = _grads(fn, a, False)
        assert kernel in spy
        assert got.numpy().tobytes() == want.numpy().tobytes()


def test_repeated_cummax_indices_sum_in_index_order(spy):
    # one running maximum reached first: its gradient is 0 + g0 + g1 + ... as scatter_add's
    a = np.array([5.0, 1.0, 2.0, 3.0, 4.0], np.float32)
    x = torch.from_numpy(a).requires_grad_()
    g = torch.tensor([0.1, 1e8, -1e8, 0.3, -0.0], dtype=torch.float32)
    (gx,) = torch.autograd.grad(x.cummax(0).values, x, g)
    want = np.float32(0)
    for v in g.numpy():
        want = np.float32(want + v)
    assert "put_along_dim" in spy
    assert gx.numpy()[0] == want and not np.signbit(gx.numpy()[1:]).any()  # 0 + -0.0 is +0.0


@pytest.mark.parametrize("name", ["max", "sort", "topk", "cummax"])
def test_above_the_gates_small_size(name, spy):
    # Note [Backward formulas in NumPy]'s SMALL bound is waived: the kernel is one pass
    a = np.random.default_rng(5).integers(-50, 50, (3, 5000)).astype(np.float32)
    want = _grads(lambda x: SELECT[name](x, 1), a, True)
    spy.clear()
    got = _grads(lambda x: SELECT[name](x, 1), a, False)
    assert spy == ["put_along_dim"]
    assert got.numpy().tobytes() == want.numpy().tobytes()


def test_zero_dim_and_empty_inputs(spy):
    for fn in (lambda x: x.max(0), lambda x: x.cummax(0), lambda x: x.sort(0), lambda x: x.prod(0)):
        x = torch.tensor(2.5).requires_grad_()
        (gx,) = torch.autograd.grad(_first(fn(x)), x, torch.tensor(3.0))
        assert gx.item() == 3.0 and gx.shape == ()
    for fn, shape in ((lambda x: x.cummax(1), (2, 0)), (lambda x: x.sort(1), (2, 0)),
                      (lambda x: x.topk(0, 1), (3, 4))):  # fmt: skip
        x = torch.zeros(shape).requires_grad_()
        y = _first(fn(x))
        (gx,) = torch.autograd.grad(y, x, torch.zeros(y.shape))
        assert gx.shape == x.shape and not gx.numpy().any()


def test_half_complex_and_modes_take_the_ops(spy):
    for dt in (torch.float16, torch.bfloat16):
        x = torch.tensor([[1.0, 3.0, 2.0], [4.0, 0.5, 0.5]], dtype=dt).requires_grad_()
        x.max(1).values.sum().backward()
        assert x.grad.dtype == dt and x.grad.tolist() == [[0, 1, 0], [1, 0, 0]]
        x.grad = None
        x.cummax(1).values.sum().backward()
        assert x.grad.tolist() == [[1, 2, 0], [3, 0, 0]]
    assert not spy
    z = torch.tensor([1 + 1j, 2 - 1j], dtype=torch.complex64).requires_grad_()
    (gz,) = torch.autograd.grad(z.prod(), z, torch.tensor(1 + 0j, dtype=torch.complex64))
    assert np.allclose(gz.numpy(), [2 + 1j, 1 - 1j]) and not spy
    from numtorch.utils._python_dispatch import TorchDispatchMode

    seen = []

    class Log(TorchDispatchMode):
        def __torch_dispatch__(self, func, types, args=(), kwargs=None):
            seen.append(str(func))
            return func(*args, **(kwargs or {}))

    x = torch.tensor([[1.0, 3.0, 2.0], [4.0, 0.5, 0.5]]).requires_grad_()
    y = x.cummax(1).values.sum() + x.max(1).values.sum() + x.prod(1).sum()
    with Log():
        y.backward()
    assert not spy and any("scatter_add" in s for s in seen) and any("scatter" in s for s in seen)
    assert x.grad.tolist() == [
        [1 + 0 + 6, 2 + 1 + 2, 0 + 0 + 3],
        [3 + 1 + 0.25, 0 + 0 + 2, 0 + 0 + 2],
    ]


def test_a_kernel_registered_over_the_ops_is_called(spy):
    x = torch.tensor([[1.0, 3.0, 2.0], [4.0, 0.5, 0.5]]).requires_grad_()
    seen = []
    lib = torch.library.Library("aten", "IMPL")
    lib.impl("scatter_add", lambda *a, **k: seen.append("scatter_add") or torch.zeros(2, 3), "CPU")
    lib.impl("div.Tensor", lambda *a, **k: seen.append("div") or torch.zeros(2, 3), "CPU")
    try:
        (g1,) = torch.autograd.grad(x.cummax(1).values.sum(), x)
        (g2,) = torch.autograd.grad(x.prod(1).sum(), x)
    finally:
        lib._destroy()
    assert seen == ["scatter_add", "div"] and not spy
    assert not g1.numpy().any() and not g2.numpy().any()
    assert _api._OVERRIDES[0] == 0


def test_out_of_range_index_declines():
    x = torch.zeros(2, 3)
    g = torch.ones(2, 1)
    assert _grad.select(g, x, 1, True, torch.tensor([[1], [3]])) is None
    assert _grad.select(g, x, 1, True, torch.tensor([[1], [-1]])) is None
    assert _grad.select(g, x, 1, True, torch.tensor([[1], [2]])).tolist() == [[0, 1, 0], [0, 0, 1]]
    assert _grad.select(g, x, 1, True, torch.tensor([[1], [2]], dtype=torch.int32)) is None
    assert _grad.select(g.double(), x, 1, True, torch.tensor([[1], [2]])) is None


def test_kernel_on_plain_arrays():
    g = np.array([1.0, -0.0, 2.0, 3.0])
    idx = np.array([0, 0, 2, 1])
    out = np.zeros(6)
    assert selection.put_along_dim(g, idx, out, 2, 2, 3, 1, True) == -1
    assert out.tolist() == [1.0, 0.0, 0.0, 0.0, 3.0, 2.0] and not np.signbit(out).any()
    out = np.zeros(6)
    assert selection.put_along_dim(g, np.array([0, 1, 2, 0]), out, 2, 2, 3, 1, False) == -1
    assert np.signbit(out[1]) and out.tolist() == [1.0, -0.0, 0.0, 3.0, 0.0, 2.0]
    assert selection.put_along_dim(g, np.array([0, 1, 3, 0]), np.zeros(6), 2, 2, 3, 1, False) == 2


@pytest.mark.parametrize("name", ["max", "kthvalue", "topk", "cummax", "cummin", "sort", "prod"])
def test_gradcheck(name):
    x = torch.from_numpy(
        np.random.default_rng(3).permutation(24).reshape(2, 3, 4) / 7 + 0.5
    ).requires_grad_()
    fn = SELECT[name]
    assert gradcheck(lambda t: _first(fn(t, 1)), (x,))
    assert gradgradcheck(lambda t: _first(fn(t, 1)), (x,))


def test_a_float_k_leaves_no_topk_plan_behind():
    # 2.0 == 2 as dict keys: a plan kept for topk(x, 2.0) made a later topk(x, 2) fail
    x = torch.from_numpy(np.arange(60, dtype=np.float32).reshape(3, 4, 5))
    with pytest.raises(TypeError):
        torch.topk(x, 2.0, 1)
    assert torch.topk(x, 2, 1).indices[0, :, 0].tolist() == [3, 2]
