"""masked_select/masked_scatter/take/put/take_along_dim on CUDA against the CPU, with gradients
that stay on the device; as_strided and an in-place op on a view of a tensor that requires grad
(CopySlices) on CUDA (float64, tiny sizes for the simulator)."""

from __future__ import annotations

import numpy as np
import pytest

import numtorch

from ._sim import requires_cuda

pytestmark = requires_cuda
rng = np.random.default_rng(8)
X = rng.standard_normal((3, 4))
M = X > 0
S = rng.standard_normal(12)
I = np.array([[0, -1], [5, 5]])  # noqa: E741
J = np.array([[0, -1], [5, 6]])  # distinct positions: put without accumulate


def _run(fn, arrays, dev):
    ts = [numtorch.tensor(a, device=dev, requires_grad=a.dtype.kind == "f") for a in arrays]
    out = fn(*ts)
    w = numtorch.tensor(np.linspace(-1, 1, out.numel()).reshape(out.shape), device=dev)
    (out * w).sum().backward()
    return [out.detach()] + [t.grad for t in ts if t.requires_grad]


_CALLS = {
    "masked_select": (lambda x, m: x.masked_select(m), [X, M]),
    "masked_select broadcast": (lambda x, m: x[0].masked_select(m), [X, M]),
    "masked_scatter": (lambda x, m, s: x.masked_scatter(m, s), [X, M, S]),
    "masked_scatter_": (lambda x, m, s: (x * 1).masked_scatter_(m, s), [X, M, S]),
    "take": (lambda x, i: x.take(i), [X, I]),
    "put": (lambda x, i, s: x.put(i, s[:4].reshape(2, 2)), [X, J, S]),
    "put accumulate": (lambda x, i, s: x.put(i, s[:4].reshape(2, 2), accumulate=True), [X, I, S]),
    "put_ on a transposed view": (lambda x, i, s: (x * 1).t().put_(i, s[:4].reshape(2, 2)), [X, J, S]),
    "take_along_dim": (lambda x, i: x.take_along_dim(i % 12), [X, I]),
    "take_along_dim dim": (lambda x, i: x.take_along_dim(i % 3 - 1, 1), [X, I[:1]]),
    "as_strided": (lambda x: x.as_strided((2, 3), (1, 4), 1), [X]),
    "in-place on a view": (lambda x: _then(x * 1, lambda y: y[1:, ::2].mul_(3)), [X]),
}


def _then(t, fn):
    fn(t)
    return t


@pytest.mark.parametrize("name", list(_CALLS))
def test_values_and_grads_match_cpu(name):
    fn, arrays = _CALLS[name]
    want, got = _run(fn, arrays, "cpu"), _run(fn, arrays, "cuda")
    for g, w in zip(got, want, strict=True):
        assert g.device.type == "cuda" and g.dtype == w.dtype and g.shape == w.shape
        np.testing.assert_allclose(g.cpu().numpy(), w.numpy(), rtol=1e-12, atol=1e-12)


def test_errors_are_pytorchs_and_come_first():
    x = numtorch.tensor(X, device="cuda")
    with pytest.raises(RuntimeError, match="masked_select: expected BoolTensor for mask"):
        x.masked_select(x.long())
    with pytest.raises(RuntimeError, match="Number of elements of source < number of ones in mask"):
        x.masked_scatter(x > -9, x[0])
    with pytest.raises(IndexError, match="out of range: tried to access index 12 on a tensor of 12 elements."):
        x.take(numtorch.tensor([12], device="cuda"))
    y = x.clone()
    with pytest.raises(IndexError, match="out of range: tried to access index -13 on a tensor of 12 elements."):
        y.put_(numtorch.tensor([0, -13], device="cuda"), x[0, :2])
    np.testing.assert_array_equal(y.cpu().numpy(), X)
    # checked against the device block (the caching allocator rounds it up), not the tensor's numel
    with pytest.raises(RuntimeError, match="setStorage: sizes \\[1000, 1000\\], strides \\[1000, 1\\], storage offset 0"):
        x.as_strided((1000, 1000), (1000, 1))
