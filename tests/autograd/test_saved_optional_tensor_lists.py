"""A saved Tensor?[] argument holding None beside its tensors (aten.index_put's indices): the
engine saves each tensor with its version and keeps the Nones (it raised AttributeError)."""

import numpy as np
import pytest

import numtorch as torch

aten = torch.ops.aten


@pytest.mark.parametrize("indices", ["i,None,j", "None,i", "i,None"])
def test_index_put_with_none_indices_differentiates(indices):
    rng = np.random.default_rng(0)
    i, j = torch.tensor([0, 2]), torch.tensor([1, 3])
    idx = [{"i": i, "j": j, "None": None}[s] for s in indices.split(",")]
    x = torch.from_numpy(rng.standard_normal((3, 4, 5))).requires_grad_()
    shape = aten.index.Tensor(x.detach(), idx).shape
    v = torch.from_numpy(rng.standard_normal(tuple(shape))).requires_grad_()
    assert torch.autograd.gradcheck(lambda a, b: aten.index_put.default(a, idx, b), (x, v))
    assert torch.autograd.gradgradcheck(lambda a, b: aten.index_put.default(a, idx, b), (x, v))
    y = aten.index_put.default(x, idx, v)
    y.sum().backward()
    ref = np.ones((3, 4, 5))
    ref[tuple(slice(None) if t is None else t.numpy() for t in idx)] = 0.0
    np.testing.assert_array_equal(x.grad.numpy(), ref)
    np.testing.assert_array_equal(v.grad.numpy(), np.ones(tuple(shape)))


def test_a_saved_index_modified_in_place_is_caught():
    x = torch.randn(3, 4, 5, dtype=torch.float64, requires_grad=True)
    i = torch.tensor([0, 2])
    v = torch.randn(3, 2, 5, dtype=torch.float64, requires_grad=True)
    y = aten.index_put.default(x, [None, i], v)
    i.add_(1)
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        y.sum().backward()
