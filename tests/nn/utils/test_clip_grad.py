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
