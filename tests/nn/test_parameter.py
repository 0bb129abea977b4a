"""nn.Parameter, nn.Buffer and the uninitialized variants."""

from __future__ import annotations

import copy
import pickle

import numpy as np
import pytest

import numtorch
from numtorch import nn


def test_parameter_requires_grad_by_default_and_shares_data():
    data = numtorch.ones(2, 3)
    p = nn.Parameter(data)
    assert type(p) is nn.Parameter
    assert p.requires_grad and p.is_leaf
    assert np.shares_memory(p.detach().numpy(), data.numpy())
    assert not nn.Parameter(data, requires_grad=False).requires_grad


def test_parameter_without_data_is_empty_float():
    p = nn.Parameter()
    assert p.shape == (0,) and p.dtype is numtorch.float32 and p.requires_grad


def test_parameter_repr():
    p = nn.Parameter(numtorch.tensor([1.0, 2.0]))
    assert repr(p) == "Parameter containing:\ntensor([1., 2.], requires_grad=True)"
    q = nn.Parameter(numtorch.tensor([1.0]), requires_grad=False)
    assert repr(q) == "Parameter containing:\ntensor([1.])"


def test_ops_on_parameters_return_plain_tensors():
    p = nn.Parameter(numtorch.ones(2))
    out = p * 2
    assert type(out) is numtorch.Tensor
    assert out.grad_fn is not None
    assert type(p.detach()) is numtorch.Tensor


def test_parameter_gradient_flows():
    p = nn.Parameter(numtorch.tensor([1.0, 2.0]))
    (p * p).sum().backward()
    np.testing.assert_allclose(p.grad.numpy(), [2.0, 4.0])


def test_deepcopy_copies_data_and_keeps_type():
    p = nn.Parameter(numtorch.tensor([1.0, 2.0]))
    p.grad = numtorch.ones(2)
    q = copy.deepcopy(p)
    assert type(q) is nn.Parameter and q.requires_grad
    assert not np.shares_memory(q.detach().numpy(), p.detach().numpy())
    np.testing.assert_array_equal(q.detach().numpy(), [1.0, 2.0])
    assert q.grad is None  # PyTorch's Parameter.__deepcopy__ does not copy .grad
    memo = {}
    assert copy.deepcopy([p, p], memo)[0] is memo[id(p)]


def test_parameter_pickles_as_parameter():
    p = nn.Parameter(numtorch.tensor([3.0]), requires_grad=False)
    q = pickle.loads(pickle.dumps(p))
    assert type(q) is nn.Parameter and not q.requires_grad
    np.testing.assert_array_equal(q.detach().numpy(), [3.0])


def test_isinstance_recognises_only_parameters():
    assert isinstance(nn.Parameter(numtorch.ones(1)), nn.Parameter)
    assert not isinstance(numtorch.ones(1), nn.Parameter)
    assert isinstance(nn.Parameter(numtorch.ones(1)), numtorch.Tensor)


def test_buffer_is_a_tagged_plain_tensor():
    b = nn.Buffer(numtorch.zeros(2), persistent=False)
    assert type(b) is numtorch.Tensor
    assert isinstance(b, nn.Buffer) and b.persistent is False
    assert not isinstance(numtorch.zeros(2), nn.Buffer)
    assert nn.Buffer().shape == (0,)


def test_uninitialized_parameter_materializes():
    p = nn.UninitializedParameter()
    assert nn.parameter.is_lazy(p) and repr(p) == "<UninitializedParameter>"
    with pytest.raises(RuntimeError, match="Can't access the shape of an uninitialized parameter"):
        _ = p.shape
    p.materialize((2, 3), dtype=numtorch.float64)
    assert type(p) is nn.Parameter and p.shape == (2, 3) and p.dtype is numtorch.float64
    assert not nn.parameter.is_lazy(p)


def test_uninitialized_parameter_refuses_ops():
    p = nn.UninitializedParameter()
    with pytest.raises(ValueError, match="Attempted to use an uninitialized parameter"):
        numtorch.add(p, 1)


def test_uninitialized_buffer_materializes_to_tensor():
    b = nn.UninitializedBuffer(persistent=False)
    assert b.persistent is False and isinstance(b, nn.Buffer)
    b.materialize(4)
    assert type(b) is numtorch.Tensor and b.shape == (4,)
