"""Note [Indexing gradients in NumPy]: the backward formulas of gather, scatter, scatter_add,
index_add/index_copy/index_fill, take, put, masked_fill, masked_scatter, where and nan_to_num
run in NumPy where nothing can tell them from their ops: the route is taken (spied on) and
gives the ops' gradients byte for byte (the ops run under create_graph, where the gate
declines), with dtype, shape and strides, over gradient layouts, 0-d, empty and broadcast
operands; it declines where it must (half, complex, large, a mode, a kernel override)."""

from __future__ import annotations

import math

import numpy as np
import pytest

import numtorch as torch
from numtorch.ops.indexing import _grad_np
from numtorch.ops.pointwise import _select_grad
from tests.autograd._spy import OpLog


@pytest.fixture
def count(monkeypatch):
    calls = []
    make, out = _grad_np._make, _select_grad._out

    def spy_make(a, dt):
        calls.append(1)
        return make(a, dt)

    def spy_out(a, grad):
        calls.append(1)
        return out(a, grad)

    monkeypatch.setattr(_grad_np, "_make", spy_make)
    monkeypatch.setattr(_select_grad, "_out", spy_out)
    return calls


def _i(*v):
    return torch.tensor(v, dtype=torch.int64)


def _vals(shape, dtype, seed=0):
    a = np.random.default_rng(seed).uniform(-3, 3, size=shape)
    if a.size > 3:
        a.reshape(-1)[:4] = [math.nan, math.inf, -math.inf, -0.0]
    return torch.tensor(a, dtype=dtype)


_IDX2 = torch.tensor([[0, 3], [2, 2], [1, 0]])  # repeats: the sums' order matters
_MASK = torch.tensor(
    [[True, False, True, False], [False, False, True, True], [True, True, False, False]]
)

# name -> (function of the float inputs, the float inputs' shapes)
CASES = {
    "gather_dim1": (lambda x: torch.gather(x, 1, _IDX2), [(3, 4)]),
    "gather_dim0": (
        lambda x: torch.gather(x, 0, torch.tensor([[0, 1, 2, 0], [2, 2, 0, 1]])),
        [(3, 4)],
    ),
    "gather_neg_dim_3d": (
        lambda x: torch.gather(x, -1, torch.tensor([[[1, 1], [0, 2]]])),
        [(1, 2, 3)],
    ),
    "Tensor.gather": (lambda x: x.gather(1, _IDX2), [(3, 4)]),
    "take_along_dim": (lambda x: torch.take_along_dim(x, _IDX2, 1), [(3, 4)]),
    "scatter_src": (
        lambda x, s: torch.scatter(x, 0, torch.tensor([[0, 1, 2, 0], [2, 0, 1, 1]]), s),
        [(3, 4), (2, 4)],
    ),
    "scatter_src_smaller_index": (
        lambda x, s: torch.scatter(x, 1, torch.tensor([[3], [0]]), s),
        [(3, 4), (2, 1)],
    ),
    "scatter_value": (lambda x: x.scatter(1, _IDX2, 3.0), [(3, 4)]),
    "scatter_add": (
        lambda x, s: torch.scatter_add(x, 1, torch.tensor([[0, 3, 3], [1, 1, 1], [2, 0, 2]]), s),
        [(3, 4), (3, 3)],
    ),
    "scatter_add_dim0": (
        lambda x, s: x.scatter_add(0, torch.tensor([[0, 2, 2, 1]]), s),
        [(3, 4), (1, 4)],
    ),
    "index_add": (lambda x, s: torch.index_add(x, 0, _i(2, 0, 2), s), [(3, 4), (3, 4)]),
    "index_add_alpha": (
        lambda x, s: torch.index_add(x, 1, _i(3, 1), s, alpha=2.5),
        [(3, 4), (3, 2)],
    ),
    "index_copy": (lambda x, s: torch.index_copy(x, 1, _i(3, 0), s), [(3, 4), (3, 2)]),
    "index_fill": (lambda x: torch.index_fill(x, 1, _i(0, -1, 0), -2.0), [(3, 4)]),
    "index_fill_tensor": (lambda x, v: torch.index_fill(x, 0, _i(2), v), [(3, 4), ()]),
    "take": (lambda x: torch.take(x, torch.tensor([[0, 11], [-1, 0]])), [(3, 4)]),
    "put": (lambda x, s: torch.put(x, _i(0, -1, 5), s), [(3, 4), (3,)]),
    "put_repeats": (lambda x, s: torch.put(x, _i(2, 2, 5), s), [(3, 4), (3,)]),
    "put_accumulate": (lambda x, s: x.put(_i(0, 0, -12), s, accumulate=True), [(3, 4), (3,)]),
    "masked_fill": (lambda x: torch.masked_fill(x, _MASK, -2.0), [(3, 4)]),
    "masked_fill_broadcast_mask": (lambda x: x.masked_fill(_MASK[0], 1.0), [(3, 4)]),
    "masked_fill_tensor": (lambda x, v: x.masked_fill(_MASK, v), [(3, 4), ()]),
    "masked_scatter": (lambda x, s: torch.masked_scatter(x, _MASK, s), [(3, 4), (3, 4)]),
    "masked_scatter_long_source": (lambda x, s: x.masked_scatter(_MASK[1], s), [(3, 4), (20,)]),
    "where": (lambda x, y: torch.where(_MASK, x, y), [(3, 4), (3, 4)]),
    "where_broadcast": (lambda x, y: torch.where(_MASK, x, y), [(3, 1), (4,)]),
    "where_bcast_cond": (lambda x, y: torch.where(_MASK[0], x, y), [(3, 4), (3, 4)]),
    "Tensor.where": (lambda x, y: x.where(_MASK, y), [(3, 4), (3, 4)]),
    "where_scalar_other": (lambda x: torch.where(_MASK, x, 0.5), [(3, 4)]),
    "nan_to_num": (lambda x: torch.nan_to_num(x), [(3, 4)]),
    "nan_to_num_args": (lambda x: x.nan_to_num(1.0, 2.0, -2.0), [(3, 4)]),
}
# the ops that saw more than their gradient's layout in the same C order
_LAYOUTS = ("contiguous", "transposed", "expanded", "sliced")


def _grad_like(out, layout, seed):
    shape = tuple(out.shape)
    if layout == "expanded" or len(shape) < 2:
        return (
            torch.full((), 1.5, dtype=out.dtype).expand(shape)
            if layout == "expanded"
            else _vals(shape, out.dtype, seed)
        )
    if layout == "transposed":
        return (
            _vals(shape[::-1], out.dtype, seed).transpose(0, -1)
            if len(shape) == 2
            else _vals(shape, out.dtype, seed)
        )
    if layout == "sliced":
        return _vals(shape[:-1] + (2 * shape[-1],), out.dtype, seed)[..., ::2]
    return _vals(shape, out.dtype, seed)


def _grads(fn, shapes, dtype, layout, create_graph):
    xs = [_vals(s, dtype, seed=k + 1).requires_grad_() for k, s in enumerate(shapes)]
    out = fn(*xs)
    g = _grad_like(out, layout, seed=7)
    return torch.autograd.grad(out, xs, g, create_graph=create_graph)


def _same(a, b, where):
    assert a.dtype == b.dtype and a.shape == b.shape, where
    assert a.stride() == b.stride(), (where, a.stride(), b.stride())
    if a.dtype is torch.bfloat16:
        a, b = a.view(torch.int16), b.view(torch.int16)
    assert a.detach().numpy().tobytes() == b.detach().numpy().tobytes(), where


@pytest.mark.parametrize("layout", _LAYOUTS)
@pytest.mark.parametrize("dtype", [torch.float32, torch.float64], ids=str)
@pytest.mark.parametrize("name", list(CASES))
def test_route_gives_the_ops_gradients(name, dtype, layout, count):
    fn, shapes = CASES[name]
    want = _grads(fn, shapes, dtype, layout, create_graph=True)
    assert not count  # the gate declines while a graph is built
    got = _grads(fn, shapes, dtype, layout, create_graph=False)
    assert count, "the NumPy route was not taken"
    for k, (a, b) in enumerate(zip(got, want, strict=True)):
        _same(a, b, (name, k))


@pytest.mark.parametrize("dtype", [torch.float16, torch.bfloat16, torch.complex64], ids=str)
@pytest.mark.parametrize("name", ["gather_dim1", "scatter_src", "scatter_add", "index_copy", "take", "put",
                                  "masked_fill_tensor", "masked_scatter", "where", "index_fill"])  # fmt: skip
def test_other_dtypes_run_the_ops(name, dtype, count):
    fn, shapes = CASES[name]
    want = _grads(fn, shapes, dtype, "contiguous", create_graph=True)
    got = _grads(fn, shapes, dtype, "contiguous", create_graph=False)
    assert not count
    for a, b in zip(got, want, strict=True):
        _same(a, b, name)


def test_nan_to_num_half_runs_the_ops(count):
    x = _vals((3, 4), torch.float16).requires_grad_()
    (g,) = torch.autograd.grad(torch.nan_to_num(x).sum(), [x])
    assert (
        not count
        and g.numpy().tolist() == np.isfinite(x.detach().numpy()).astype(np.float16).tolist()
    )


ZERO_D_AND_EMPTY = {
    "gather_0d": (lambda x: torch.gather(x, 0, torch.tensor(0)), [()]),
    "take_0d": (lambda x: torch.take(x, torch.tensor(0)), [()]),
    "where_0d": (lambda x, y: torch.where(torch.tensor(True), x, y), [(), ()]),
    "masked_fill_0d": (lambda x: x.masked_fill(torch.tensor(True), 1.0), [()]),
    "nan_to_num_0d": (lambda x: torch.nan_to_num(x), [()]),
    "gather_empty_index": (
        lambda x: torch.gather(x, 1, torch.zeros(3, 0, dtype=torch.int64)),
        [(3, 4)],
    ),
    "scatter_empty_index": (
        lambda x, s: torch.scatter(x, 1, torch.zeros(3, 0, dtype=torch.int64), s),
        [(3, 4), (3, 0)],
    ),
    "index_copy_empty": (lambda x, s: torch.index_copy(x, 1, _i(), s), [(3, 4), (3, 0)]),
    "take_empty": (lambda x: torch.take(x, _i()), [(3, 4)]),
    "masked_fill_empty": (
        lambda x: x.masked_fill(torch.zeros(0, 4, dtype=torch.bool), 1.0),
        [(0, 4)],
    ),
    "where_empty": (lambda x, y: torch.where(torch.zeros(0, dtype=torch.bool), x, y), [(0,), (0,)]),
    "gather_int32_index": (lambda x: torch.gather(x, 1, _IDX2.to(torch.int32)), [(3, 4)]),
    "gather_strided_index": (
        lambda x: torch.gather(x, 0, torch.tensor([[0, 2], [1, 1], [2, 0]]).t()),
        [(3, 4)],
    ),
}


@pytest.mark.parametrize("name", list(ZERO_D_AND_EMPTY))
def test_zero_d_empty_and_other_indices_match_the_ops(name):
    fn, shapes = ZERO_D_AND_EMPTY[name]
    for dtype in (torch.float32, torch.float64):
        want = _grads(fn, shapes, dtype, "contiguous", create_graph=True)
        got = _grads(fn, shapes, dtype, "contiguous", create_graph=False)
        for a, b in zip(got, want, strict=True):
            _same(a, b, name)


def test_large_masked_gradients_run_the_ops_and_large_gathers_take_the_route(count):
    x = torch.randn(100, 100, requires_grad=True)
    torch.where(x > 0, x, x * 2).sum().backward()
    torch.masked_fill(x, x > 0, 1.0).sum().backward()
    assert not count  # plain()'s SMALL bound
    idx = torch.randint(-100, 100, (100, 90))
    for fn in (lambda t: torch.gather(t, 1, idx % 100), lambda t: torch.take_along_dim(t, idx, 1),
               lambda t: torch.scatter(t, 1, idx % 100, 2.0)):  # fmt: skip
        g = torch.randn(*fn(x).shape)
        want = torch.autograd.grad(fn(x), [x], g, create_graph=True)[0]
        count.clear()
        got = torch.autograd.grad(fn(x), [x], g)[0]
        assert count
        _same(got, want, "large")


def test_a_mode_sees_the_ops():
    log = OpLog()
    x = torch.randn(3, 4, requires_grad=True)
    y = torch.randn(3, 4, requires_grad=True)
    outs = [torch.gather(x, 1, _IDX2), torch.where(_MASK, x, y), torch.scatter(x, 1, _IDX2, 1.0)]
    with log:
        for o in outs:
            torch.autograd.grad(o.sum(), [x], allow_unused=True)
    for op in ("aten.scatter_add.default", "aten.where.ScalarOther", "aten.scatter.value"):
        assert op in log.calls, (op, log.calls)


def test_a_kernel_registered_over_the_op_is_called():
    x = torch.randn(3, 4, requires_grad=True)
    out = torch.gather(x, 1, _IDX2)
    seen = []
    lib = torch.library.Library("aten", "IMPL")

    def kernel(self, dim, index, src):
        seen.append("scatter_add")
        return torch.zeros(self.shape)

    lib.impl("scatter_add", kernel, "CPU")
    try:
        (g,) = torch.autograd.grad(out.sum(), [x])
    finally:
        lib._destroy()
    assert seen == ["scatter_add"] and g.abs().sum().item() == 0


def test_an_index_changed_in_place_fails_the_version_check():
    x = torch.randn(3, 4, requires_grad=True)
    idx = _IDX2.clone()
    out = torch.gather(x, 1, idx)
    idx[0, 0] = 9
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        out.sum().backward()


def test_grad_values_against_numpy():
    x = torch.randn(3, 4, requires_grad=True)
    torch.gather(x, 1, _IDX2).sum().backward()
    want = np.zeros((3, 4), np.float32)
    np.add.at(want, (np.arange(3)[:, None], _IDX2.numpy()), 1.0)
    assert x.grad.numpy().tolist() == want.tolist()
    x.grad = None
    torch.where(_MASK, x, 0.0).sum().backward()
    assert x.grad.numpy().tolist() == _MASK.numpy().astype(np.float32).tolist()


def test_gradcheck_float64():
    for name in ("gather_dim1", "scatter_src", "scatter_add", "index_copy", "index_fill", "take", "put",
                 "masked_fill_tensor", "masked_scatter", "where_broadcast"):  # fmt: skip
        fn, shapes = CASES[name]
        xs = [
            torch.tensor(np.random.default_rng(1).uniform(-1, 1, s)).requires_grad_()
            for s in shapes
        ]
        assert torch.autograd.gradcheck(fn, xs), name
        assert torch.autograd.gradgradcheck(fn, xs), name
