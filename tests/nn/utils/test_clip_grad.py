"""nn.utils: clip_grad_norm_, clip_grad_value_, parameters_to_vector, vector_to_parameters."""

from __future__ import annotations

import numpy as np
import pytest

import numtorch
from numtorch import nn
from numtorch.nn.utils import (
    clip_grad_norm_,
    clip_grad_value_,
    get_total_norm,
    parameters_to_vector,
    vector_to_parameters,
)


def _params(*grads):
    ps = []
    for g in grads:
        p = nn.Parameter(numtorch.zeros(len(g)))
        p.grad = numtorch.tensor(g)
        ps.append(p)
    return ps


def test_clip_grad_norm_scales_when_above_max():
    ps = _params([3.0, 0.0], [0.0, 4.0])
    total = clip_grad_norm_(ps, max_norm=1.0)
    assert float(total) == pytest.approx(5.0)
    coef = 1.0 / (5.0 + 1e-6)
    np.testing.assert_allclose(ps[0].grad.numpy(), [3.0 * coef, 0.0], rtol=1e-6)
    np.testing.assert_allclose(ps[1].grad.numpy(), [0.0, 4.0 * coef], rtol=1e-6)


def test_clip_grad_norm_leaves_small_gradients():
    ps = _params([0.3, 0.4])
    total = clip_grad_norm_(ps, max_norm=1.0, foreach=True)
    assert float(total) == pytest.approx(0.5)
    np.testing.assert_allclose(ps[0].grad.numpy(), [0.3, 0.4], rtol=1e-6)


def test_clip_grad_norm_inf_and_p_norms():
    ps = _params([1.0, -7.0], [2.0])
    assert float(clip_grad_norm_(ps, 100.0, norm_type=float("inf"))) == 7.0
    assert float(get_total_norm([p.grad for p in ps], norm_type=1)) == pytest.approx(10.0)


def test_clip_grad_norm_nonfinite():
    ps = _params([float("nan"), 1.0])
    with pytest.raises(
        RuntimeError,
        match="The total norm of order 2.0 for gradients from `parameters` is non-finite",
    ):
        clip_grad_norm_(ps, 1.0, error_if_nonfinite=True)


def test_clip_grad_norm_without_gradients_returns_zero():
    p = nn.Parameter(numtorch.ones(2))
    assert float(clip_grad_norm_([p], 1.0)) == 0.0
    with pytest.warns(
        UserWarning, match="`parameters` is an empty generator, no gradient clipping will occur."
    ):
        clip_grad_norm_((q for q in []), 1.0)


def test_clip_grad_value():
    ps = _params([-3.0, 0.5, 2.0])
    clip_grad_value_(ps, 1.0)
    np.testing.assert_array_equal(ps[0].grad.numpy(), [-1.0, 0.5, 1.0])
    single = _params([5.0])[0]
    clip_grad_value_(single, 2)
    np.testing.assert_array_equal(single.grad.numpy(), [2.0])


def test_parameters_vector_round_trip():
    a = nn.Parameter(numtorch.tensor([[1.0, 2.0], [3.0, 4.0]]))
    b = nn.Parameter(numtorch.tensor([5.0]))
    vec = parameters_to_vector([a, b])
    np.testing.assert_array_equal(vec.detach().numpy(), [1, 2, 3, 4, 5])
    assert vec.requires_grad
    new = numtorch.arange(5, dtype=numtorch.float32) * 10
    vector_to_parameters(new, [a, b])
    np.testing.assert_array_equal(a.detach().numpy(), [[0, 10], [20, 30]])
    np.testing.assert_array_equal(b.detach().numpy(), [40])
    assert type(a) is nn.Parameter
    with pytest.raises(TypeError, match="^expected torch.Tensor, but got: list$"):
        vector_to_parameters([1.0], [a])


@pytest.mark.parametrize("dtype", [numtorch.float32, numtorch.float64])
def test_clip_grad_norm_fast_path_is_bitwise_the_eager_ops(dtype, monkeypatch):
    # Note [Gradient clipping fast path]: the same kernels as vector_norm / stack / mul_
    rs = np.random.RandomState(0)
    shapes = [(7, 5), (300,), (3, 4, 2), (1,)]
    grads = [numtorch.tensor(rs.randn(*s) * 3, dtype=dtype) for s in shapes]
    ps = []
    for g in grads:
        p = nn.Parameter(numtorch.zeros(g.shape, dtype=dtype))
        p.grad = g.clone()
        ps.append(p)
    norms = [numtorch.linalg.vector_norm(g, 2.0) for g in grads]
    want_total = numtorch.linalg.vector_norm(numtorch.stack(norms), 2.0)
    coef = numtorch.clamp(1.0 / (want_total + 1e-6), max=1.0)
    versions = [p.grad._version for p in ps]

    def no_op_path(*a, **k):
        raise AssertionError("the fast path did not run")

    monkeypatch.setattr(numtorch.linalg, "vector_norm", no_op_path)
    total = clip_grad_norm_(ps, max_norm=1.0)
    monkeypatch.undo()
    assert total.dtype is dtype and total.shape == ()
    np.testing.assert_array_equal(total.numpy(), want_total.numpy())
    for p, g, v in zip(ps, grads, versions, strict=True):
        np.testing.assert_array_equal(p.grad.numpy(), (g * coef).numpy())
        assert p.grad._version == v + 1


def test_clip_grad_norm_mixed_dtypes_and_layouts_take_the_op_path():
    a = nn.Parameter(numtorch.zeros(4, 3))
    a.grad = numtorch.arange(12.0).view(3, 4).t()  # not contiguous
    b = nn.Parameter(numtorch.zeros(2, dtype=numtorch.float64))
    b.grad = numtorch.tensor([3.0, 4.0], dtype=numtorch.float64)
    want = numtorch.linalg.vector_norm(numtorch.stack([a.grad.norm(), b.grad.norm().float()]))
    total = clip_grad_norm_([a, b], max_norm=1e9)
    np.testing.assert_allclose(total.numpy(), want.numpy(), rtol=1e-6)
