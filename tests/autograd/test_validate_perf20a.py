"""The engine's check of a node's gradients (session 20, perf20a): Note [Reducing broadcast
gradients] in _backward._validate. A broadcast input's gradient is reduced to its shape, a
wrong dtype cast, a complex gradient of a real input of an op made real, a wrong shape raises
PyTorch's error; a tuple with nothing to fix comes back as the same object."""

from __future__ import annotations

import numpy as np
import pytest

import numtorch as torch
from numtorch.autograd import _backward
from numtorch.autograd._backward import _expandable, _validate

PAIRS = [
    ((16, 1), (16, 32)),
    ((1, 32), (16, 32)),
    ((), (16, 32)),
    ((32,), (16, 32)),
    ((1,), (4, 5)),
    ((3, 1, 5), (2, 3, 4, 5)),
    ((1, 1), (0, 3)),
    ((2, 3), (2, 3)),
]
DTYPES = [torch.float32, torch.float64, torch.complex64, torch.float16, torch.bfloat16]


class _Node:
    """The two things _validate reads of a node: its inputs' metadata and its name."""

    def __init__(self, metas):
        self._input_meta = metas

    def name(self):
        return "FakeBackward0"


@pytest.mark.parametrize("dtype", DTYPES, ids=str)
def test_broadcast_gradients_reduce_as_sum_to_size(dtype):
    cpu = torch.device("cpu")
    metas, grads, want = [], [], []
    for shape, big in PAIRS:
        g = torch.randn(*big).to(dtype)
        metas.append((shape, dtype, cpu))
        grads.append(g)
        want.append(g if tuple(big) == shape else g.sum_to_size(torch.Size(shape)))
    metas.append(None)  # a non-tensor argument
    grads.append(None)
    with torch.no_grad():
        out = _validate(_Node(tuple(metas)), tuple(grads))
    assert type(out) is tuple and len(out) == len(grads) and out[-1] is None
    for o, w, (shape, _) in zip(out, want, PAIRS, strict=False):
        assert o.shape == shape and o.dtype is dtype
        assert o._data.tobytes() == w._data.tobytes()


def test_nothing_to_fix_returns_the_same_tuple():
    g = (torch.ones(2, 3), None)
    node = _Node((((2, 3), torch.float32, torch.device("cpu")), None))
    assert _validate(node, g) is g
    node = _Node((((2, 3), torch.float32, torch.device("cpu")),))  # fewer metas than gradients
    assert _validate(node, g) is g


def test_dtype_cast_after_reduction():
    node = _Node((((3,), torch.float32, torch.device("cpu")),))
    g = torch.randn(2, 3, dtype=torch.float64)
    (out,) = _validate(node, (g,))
    assert out.dtype is torch.float32
    assert out._data.tobytes() == g.sum(0).to(torch.float32)._data.tobytes()


def test_invalid_shape_raises_pytorchs_error():
    node = _Node((((2, 3), torch.float32, torch.device("cpu")),))
    msg = r"Function FakeBackward0 returned an invalid gradient at index 0 - got \[4, 3\] but expected shape compatible with \[2, 3\]"
    with pytest.raises(RuntimeError, match=msg):
        _validate(node, (torch.ones(4, 3),))


def test_complex_gradient_of_a_real_custom_function_input_raises():
    class F(torch.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x * 2

        @staticmethod
        def backward(ctx, g):
            return torch.ones(2, 3, dtype=torch.complex64)

    x = torch.ones(3, requires_grad=True)
    with pytest.raises(RuntimeError, match=r"Expected isFloatingType\(grad.scalar_type\(\)\)"):
        F.apply(x).sum().backward()


def test_real_broadcast_input_of_a_complex_op_gets_the_real_part():
    x = torch.randn(3, 1, requires_grad=True)
    y = torch.randn(3, 4, dtype=torch.complex64)
    g = torch.randn(3, 4, dtype=torch.complex64)
    (x * y).backward(g)
    want = (g * y.conj()).sum(1, keepdim=True).real
    assert x.grad.dtype is torch.float32 and x.grad.shape == (3, 1)
    np.testing.assert_array_equal(x.grad.numpy(), want.numpy())


@pytest.mark.parametrize(
    "shape,target,ok",
    [((), (2,), True), ((1,), (3,), True), ((3,), (2, 3), True), ((2,), (2, 3), False),
     ((2, 3), (3,), False), ((1, 3), (4, 3), True), ((4, 1), (4, 3), True), ((0,), (2, 0), True),
     ((2,), (2, 1), False)],
)  # fmt: skip
def test_expandable(shape, target, ok):
    assert _expandable(shape, target) is ok


def test_broadcast_backward_reduces_through_validate(monkeypatch):
    calls = []
    real = _backward._sum_to

    def counted(g, shape):
        calls.append(tuple(shape))
        return real(g, shape)

    monkeypatch.setattr(_backward, "_sum_to", counted)
    x = torch.randn(16, 1, requires_grad=True)
    y = torch.randn(1, 32, requires_grad=True)
    (x * y).sum().backward()
    assert sorted(calls) == [(1, 32), (16, 1)]
    np.testing.assert_allclose(
        x.grad.numpy(),
        np.broadcast_to(y.detach().numpy(), (16, 32)).sum(1, keepdims=True),
        rtol=1e-5,
    )
    np.testing.assert_allclose(
        y.grad.numpy(),
        np.broadcast_to(x.detach().numpy(), (16, 32)).sum(0, keepdims=True),
        rtol=1e-5,
    )
