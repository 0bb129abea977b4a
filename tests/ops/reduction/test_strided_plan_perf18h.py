"""Note [Strided reduction plan]: reductions of non-contiguous inputs (transposes, slices,
expanded gradients) and over a tuple of dims run the body's layout from a kept plan; they must
give the body's result bit for bit (values, dtype, shape, strides), its errors and gradients."""

from __future__ import annotations

import numpy as np
import pytest

import numtorch as torch
from numtorch.kernels import PARALLEL_THRESHOLD
from numtorch.ops.reduction import _reduce as E
from numtorch.utils._python_dispatch import TorchDispatchMode


class _Body(TorchDispatchMode):
    # a mode that changes nothing: the bindings' fast calls decline, the dispatcher runs the body
    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        return func(*args, **(kwargs or {}))


@pytest.fixture
def spy(monkeypatch):
    calls = []
    real = E._strided

    def counted(*args):
        r = real(*args)
        calls.append(r is not None)
        return r

    monkeypatch.setattr(E, "_strided", counted)
    return calls


def _layouts(dt):
    rng = np.random.default_rng(3)
    base = rng.standard_normal((6, 5, 4)) * 4
    if dt == np.bool_:
        base = base > 0
    base = base.astype(dt)
    t = torch.from_numpy(base.copy())
    return {
        "transpose": t[0].t(),
        "permuted": t.permute(2, 0, 1),
        "slice": t[:, ::2, 1:],
        "step": t[::2, :, ::3],
        "expanded": t[:, :1, :].expand(6, 5, 4),
        "size1": t[:, 2:3, :].transpose(0, 1),
        "contiguous": t,
    }


def _same(got, want):
    assert got.dtype == want.dtype and got.shape == want.shape and got.stride() == want.stride()
    assert got.numpy().tobytes() == want.numpy().tobytes()


_OPS = ["sum", "mean", "prod", "amax", "amin", "all", "any", "nansum"]
_DTYPES = [np.bool_, np.int32, np.int64, np.float32, np.float64, np.float16, np.uint8, np.complex64]


def _call(op, t, dim, keepdim):
    fn = getattr(t, op)
    if dim == "none":
        return fn()
    return fn(dim, keepdim=keepdim)


def _dims(nd):
    out = ["none", -1] + list(range(nd))
    if nd >= 2:
        out += [(nd - 1, 0), tuple(range(nd))]
    if nd >= 3:
        out += [(0, 2), (1,), (1, 2)]
    return out


@pytest.mark.parametrize("op", _OPS)
@pytest.mark.parametrize("dtype", _DTYPES, ids=lambda d: np.dtype(d).name)
def test_results_are_the_bodys_bit_for_bit(op, dtype, spy):
    for t in _layouts(dtype).values():
        for dim in _dims(t.dim()):
            for keepdim in (False, True):
                if dim == "none" and keepdim:
                    continue
                try:
                    with _Body():
                        want = _call(op, t, dim, keepdim)
                except Exception as err:  # noqa: BLE001
                    with pytest.raises(type(err)):
                        _call(op, t, dim, keepdim)
                    continue
                _same(_call(op, t, dim, keepdim), want)  # keeps the plan
                _same(_call(op, t, dim, keepdim), want)  # runs the kept plan
    if np.dtype(dtype) in (np.float32, np.float64) or (op not in ("mean", "nansum") and np.dtype(dtype) in
                                                       (np.bool_, np.int32, np.int64)):  # fmt: skip
        assert spy and all(spy), (op, dtype)  # the learned dtypes take the route
    elif np.dtype(dtype) in (np.float16, np.uint8, np.complex64):
        assert not spy


def test_the_route_sums_in_the_bodys_order(spy):
    # float32 sums whose value depends on the order: the transpose's memory order, the copy's
    # kept-then-reduced order and the col kernel's inner runs must each be the body's
    rng = np.random.default_rng(0)
    a = (rng.standard_normal((37, 29)) * 10.0 ** rng.integers(-6, 6, (37, 29))).astype(np.float32)
    t = torch.from_numpy(a)
    for v in (t.t(), t[::2, 1::3], t.unsqueeze(1).expand(37, 3, 29).permute(2, 1, 0)):
        for dim in ("none", 0, 1, -1, (0, 1), (1, 0)):
            for keepdim in (False, True):
                if dim == "none" and keepdim:
                    continue
                with _Body():
                    want = _call("sum", v, dim, keepdim)
                _same(_call("sum", v, dim, keepdim), want)
    assert spy and all(spy)


def test_errors_are_the_bodys(spy):
    t = torch.randn(4, 3).t()
    with pytest.raises(IndexError, match="Dimension out of range"):
        t.sum((0, 2))
    with pytest.raises(RuntimeError, match="dim 1 appears multiple times in the list of dims"):
        t.sum((1, -1))
    with pytest.raises(IndexError, match="Dimension out of range"):
        t.sum(5)
    assert not any(spy)  # nothing was computed by the route


def test_non_int_dims_take_the_body(spy):
    t = torch.randn(4, 3).t()
    t.sum((1,))
    n = len(spy)
    with _Body():
        want = t.sum((True,))
    _same(t.sum((True,)), want)  # hashes as the kept (1,), but the body decides
    assert spy[n:] == [False]


def test_large_and_empty_inputs_take_the_body(spy):
    big = torch.ones(PARALLEL_THRESHOLD // 256, 256).t()
    assert big.sum().item() == PARALLEL_THRESHOLD
    assert big.sum(0).shape == (PARALLEL_THRESHOLD // 256,)
    e = torch.ones(0, 3).t()
    assert e.sum(1).shape == (3,) and e.sum((0, 1), keepdim=True).shape == (1, 1)
    assert not spy


def test_gradients_are_recorded_as_the_body_records_them(spy):
    x = torch.randn(3, 4, dtype=torch.float64, requires_grad=True)
    for f in (lambda v: v.t().sum(), lambda v: v.t().sum(1), lambda v: v.t().mean(0, keepdim=True),
              lambda v: v.t().amax(1), lambda v: v[:, ::2].prod(-1)):  # fmt: skip
        n = len(spy)
        y = f(x)
        with _Body():
            ref = f(x)
        assert type(y.grad_fn).__name__ == type(ref.grad_fn).__name__
        (g,) = torch.autograd.grad(y.sum(), x)
        (gr,) = torch.autograd.grad(ref.sum(), x)
        _same(g, gr)
        assert len(spy) > n  # the recorded forward took the route
        assert torch.autograd.gradcheck(f, (x,)) and torch.autograd.gradgradcheck(f, (x,))
    n = len(spy)
    x.t().sum((0, 1))  # a tuple of dims with grad: the body records it
    assert len(spy) == n


def test_the_engine_sums_an_expanded_gradient_through_the_route(spy):
    # _sum_to of a (1, 5, 1) input's gradient: sum((0, 2), keepdim=True)
    x = torch.randn(1, 5, 1, dtype=torch.float64, requires_grad=True)
    w = torch.randn(4, 5, 6, dtype=torch.float64)
    (g,) = torch.autograd.grad((x.expand(4, 5, 6) * w).sum(), x)
    assert spy and all(spy)
    with _Body():
        (gr,) = torch.autograd.grad((x.expand(4, 5, 6) * w).sum(), x)
    _same(g, gr)


def test_a_registered_kernel_over_sum_is_called(spy):
    t = torch.randn(4, 3).t()
    t.sum((0, 1), keepdim=True)
    seen = []
    lib = torch.library.Library("aten", "IMPL")

    def kernel(self, dim, keepdim=False, dtype=None):
        seen.append(dim)
        return torch.zeros(1, 1)

    lib.impl("sum.dim_IntList", kernel, "CPU")
    try:
        n = len(spy)
        assert t.sum((0, 1), keepdim=True).abs().sum().item() == 0
        assert seen and len(spy) == n
    finally:
        lib._destroy()
