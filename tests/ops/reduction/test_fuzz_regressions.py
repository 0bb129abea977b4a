"""Reduction regressions found by differential fuzzing against PyTorch (issue 10)."""

import math
import warnings

import numpy as np
import pytest

import numtorch


def _grad(fn, values):
    x = numtorch.tensor(values, dtype=numtorch.float64, requires_grad=True)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)  # degrees of freedom <= 0
        fn(x).backward()
    return x.grad.tolist()


@pytest.mark.parametrize("fn", [numtorch.std, numtorch.var, lambda x: numtorch.std_mean(x)[0],
                                lambda x: numtorch.std(x, correction=0)])  # fmt: skip
def test_std_var_gradient_at_zero_variance_is_zero(fn):
    assert _grad(fn, [2.0, 2.0, 2.0]) == [0.0, 0.0, 0.0]


@pytest.mark.parametrize("fn", [numtorch.std, numtorch.var])
def test_std_var_gradient_of_one_element_is_nan(fn):
    assert math.isnan(_grad(fn, [2.0])[0])


def test_std_gradient_elsewhere_is_unchanged():
    x = numtorch.tensor([1.0, 2.0, 4.0], dtype=numtorch.float64, requires_grad=True)
    assert numtorch.autograd.gradcheck(numtorch.std, (x,))
    assert numtorch.autograd.gradgradcheck(numtorch.std, (x,))


@pytest.mark.parametrize("name", ["any", "all"])
@pytest.mark.parametrize("dim", [(), []])
def test_any_all_with_empty_dim_reduce_nothing(name, dim):
    x = numtorch.tensor([[0.0, 2.0, 3.0], [1.0, 0.0, 5.0]])
    for keepdim in (False, True):
        r = getattr(numtorch, name)(x, dim=dim, keepdim=keepdim)
        assert r.dtype == numtorch.bool
        np.testing.assert_array_equal(r.numpy(), x.numpy() != 0)


def test_sum_with_empty_dim_reduces_everything():
    assert numtorch.sum(numtorch.ones(2, 3), dim=()).shape == ()
    assert numtorch.sum(numtorch.ones(2, 3), dim=[]).item() == 6.0
