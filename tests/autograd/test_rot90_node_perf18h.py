"""Note [rot90's own node]: rot90 records one Rot90Backward0 whose backward is rot90 the other
way (derivatives.yaml's ``grad.rot90(-k, dims)``), not its flip and transpose."""

from __future__ import annotations

import numpy as np
import pytest

import numtorch as torch
from numtorch.utils._python_dispatch import TorchDispatchMode


class _Log(TorchDispatchMode):
    def __init__(self):
        super().__init__()
        self.seen = []

    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        self.seen.append(str(func))
        return func(*args, **(kwargs or {}))


@pytest.mark.parametrize("k", [-5, -1, 0, 1, 2, 3, 6])
@pytest.mark.parametrize("dims", [(0, 1), (2, 0), (-1, 1)])
def test_one_node_whose_gradient_is_numpys_inverse_rotation(k, dims):
    a = np.arange(24.0).reshape(2, 3, 4)
    x = torch.tensor(a, requires_grad=True)
    y = x.rot90(k, dims)
    assert type(y.grad_fn).__name__ == "Rot90Backward0"
    assert [type(f).__name__ for f, _ in y.grad_fn.next_functions] == ["AccumulateGrad"]
    np.testing.assert_array_equal(y.detach().numpy(), np.rot90(a, k, dims))
    g = np.random.default_rng(0).standard_normal(y.shape)
    y.backward(torch.tensor(g))
    np.testing.assert_array_equal(x.grad.numpy(), np.rot90(g, -k, dims))
    f = lambda v: v.rot90(k, dims)  # noqa: E731
    assert torch.autograd.gradcheck(f, (x,)) and torch.autograd.gradgradcheck(f, (x,))


def test_a_mode_sees_rot90_forward_and_backward():
    x = torch.randn(3, 4, requires_grad=True)
    with _Log() as log:
        y = x.rot90(1)
        y.backward(torch.ones(4, 3))
    assert log.seen[0] == "aten.rot90.default"
    assert "aten.rot90.default" in log.seen[1:] and "aten.flip.default" not in log.seen


def test_results_keep_the_decompositions_values_and_strides():
    for dt in (
        torch.float32,
        torch.float16,
        torch.bfloat16,
        torch.complex64,
        torch.int64,
        torch.bool,
    ):
        x = torch.arange(12).reshape(3, 4).to(dt)
        for k in range(4):
            a = x.rot90(k)
            b = x.clone().requires_grad_(dt.is_floating_point or dt.is_complex).rot90(k)
            assert a.dtype == b.dtype == dt and a.stride() == b.stride()
            assert torch.equal(a, b.detach())


def test_errors_are_raised_with_grad():
    x = torch.randn(3, 4, requires_grad=True)
    with pytest.raises(RuntimeError, match="expected rotation dims to be different"):
        x.rot90(1, (0, 0))
    with pytest.raises(RuntimeError, match="expected total rotation dims == 2"):
        x.rot90(1, (0,))
    with pytest.raises(IndexError, match="Dimension out of range"):
        x.rot90(1, (0, 2))


@pytest.mark.parametrize("dt", [torch.float32, torch.float64])
def test_the_numpy_gradient_is_the_ops_in_c_order(dt):
    # Note [rot90's own node]: under the gate one C-order copy; with a graph, the rot90 op
    x = torch.randn(3, 4, 5, dtype=dt, requires_grad=True)
    w = torch.randn(5, 4, 3, dtype=dt)
    for k, dims in ((1, (0, 2)), (-1, (2, 0)), (2, (1, 2)), (3, (-1, 0)), (0, (0, 1))):
        y = x.rot90(k, dims)
        g = torch.randn(y.shape, dtype=dt)
        (plain,) = torch.autograd.grad(y, x, g, retain_graph=True)
        (ops,) = torch.autograd.grad(y, x, g, create_graph=True)
        assert plain.is_contiguous() and torch.equal(plain, ops.detach())
        assert torch.equal(plain, x.new_tensor(np.rot90(g.numpy(), -k, dims).copy()))
    y = x.rot90(1, (0, 2))
    y.backward(w.expand(5, 4, 3))  # an expanded gradient, as sum()'s of a large input
    assert x.grad.is_contiguous() and torch.equal(x.grad, w.rot90(-1, (0, 2)))
