"""embedding_bag: gradcheck to weight and per_sample_weights, empty bags, padding_idx, max_norm,
the auxiliary outputs of torch.embedding_bag, the module and the argument errors."""

from __future__ import annotations

import numpy as np
import pytest

import numtorch
from numtorch.autograd import gradcheck

F = numtorch.nn.functional
IDX = numtorch.tensor([1, 2, 4, 5, 4, 3, 2, 0])
OFF = numtorch.tensor([0, 2, 2, 5])


@pytest.mark.parametrize("mode", ["sum", "mean", "max"])
@pytest.mark.parametrize("padding_idx", [None, 4])
def test_gradcheck_weight(mode, padding_idx):
    w = numtorch.randn(6, 3, dtype=numtorch.float64, requires_grad=True)
    assert gradcheck(lambda w: F.embedding_bag(IDX, w, OFF, mode=mode, padding_idx=padding_idx), (w,))


def test_gradcheck_per_sample_weights():
    w = numtorch.randn(6, 3, dtype=numtorch.float64, requires_grad=True)
    p = numtorch.rand(8, dtype=numtorch.float64, requires_grad=True)
    assert gradcheck(lambda w, p: F.embedding_bag(IDX, w, OFF, mode="sum", per_sample_weights=p), (w, p))


def test_values_against_numpy_and_empty_bags():
    w = numtorch.randn(6, 3, dtype=numtorch.float64)
    W = w.numpy()
    out = F.embedding_bag(IDX, w, OFF, mode="mean").numpy()
    np.testing.assert_allclose(out[0], W[[1, 2]].mean(0))
    np.testing.assert_array_equal(out[1], np.zeros(3))
    np.testing.assert_allclose(out[3], W[[3, 2, 0]].mean(0))
    mx = F.embedding_bag(IDX, w, OFF, mode="max", padding_idx=4).numpy()
    np.testing.assert_allclose(mx[2], W[5])


def test_torch_form_returns_auxiliary_outputs():
    w = numtorch.randn(6, 3)
    out, offset2bag, bag_size, max_idx = numtorch.embedding_bag(w, IDX, OFF, False, 2, False, None, False, None)
    assert offset2bag.tolist() == [0, 0, 2, 2, 2, 3, 3, 3] and bag_size.tolist() == [2, 0, 3, 3]
    W = w.numpy()
    assert max_idx[0].tolist() == [[1, 2][k] for k in W[[1, 2]].argmax(0)]


def test_max_norm_renormalizes_the_used_rows():
    w = numtorch.full((4, 2), 3.0)
    F.embedding_bag(numtorch.tensor([[0, 1]]), w, max_norm=1.0)
    np.testing.assert_allclose(np.linalg.norm(w.numpy()[:2], axis=1), [1.0, 1.0], rtol=1e-5)
    np.testing.assert_array_equal(w.numpy()[2:], 3.0)


def test_module_and_from_pretrained():
    m = numtorch.nn.EmbeddingBag(10, 3, mode="sum", padding_idx=2)
    assert repr(m) == "EmbeddingBag(10, 3, mode='sum', padding_idx=2)"
    assert not m.weight[2].any()
    out = m(numtorch.tensor([[1, 2], [3, 4]]))
    assert tuple(out.shape) == (2, 3)
    p = numtorch.nn.EmbeddingBag.from_pretrained(numtorch.eye(3), mode="max")
    assert not p.weight.requires_grad
    assert p(numtorch.tensor([0, 2]), numtorch.tensor([0])).tolist() == [[1.0, 0.0, 1.0]]


@pytest.mark.parametrize(
    "call,exc,msg",
    [
        (lambda: F.embedding_bag(IDX, numtorch.ones(6, 3), OFF, mode="mean", per_sample_weights=numtorch.ones(8)),
         NotImplementedError, "per_sample_weights is only supported for mode='sum'"),
        (lambda: F.embedding_bag(IDX.view(2, 4), numtorch.ones(6, 3), OFF), ValueError, "if input is 2D, then offsets has to be None"),
        (lambda: F.embedding_bag(IDX, numtorch.ones(6, 3)), ValueError, "offsets has to be a 1D Tensor but got None"),
        (lambda: F.embedding_bag(IDX, numtorch.ones(6, 3), OFF, mode="x"), ValueError, "mode has to be one of sum, mean or max"),
        (lambda: F.embedding_bag(IDX, numtorch.ones(6, 3), numtorch.tensor([1, 2])), RuntimeError, "offsets.0. has to be 0"),
        (lambda: F.embedding_bag(numtorch.tensor([7]), numtorch.ones(6, 3), numtorch.tensor([0])), RuntimeError,
         r"Index 0 of input takes value 7 which is not in the valid range \[0, 6\)"),
        (lambda: F.embedding_bag(IDX.float(), numtorch.ones(6, 3), OFF), RuntimeError,
         "Expected tensor for argument #1 'indices' to have one of the following scalar types: Long, Int"),
    ],
)  # fmt: skip
def test_errors(call, exc, msg):
    with pytest.raises(exc, match=msg):
        call()
