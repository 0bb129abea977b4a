"""Lazy modules: placeholders until the first call, then the eager class with PyTorch's init;
load_state_dict materializes them; errors for uninitialized use."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import numtorch
from numtorch import nn

pytestmark = pytest.mark.filterwarnings("ignore:Lazy modules are a new feature")

CASES = [
    ("LazyLinear", (3,), (2, 5), "Linear", {"weight": (3, 5), "bias": (3,)}),
    ("LazyConv1d", (4, 3), (2, 2, 6), "Conv1d", {"weight": (4, 2, 3), "bias": (4,)}),
    ("LazyConv2d", (4, 3), (2, 6, 6), "Conv2d", {"weight": (4, 2, 3, 3), "bias": (4,)}),
    ("LazyConv3d", (4, 2), (2, 2, 4, 4, 4), "Conv3d", {"weight": (4, 2, 2, 2, 2), "bias": (4,)}),
    ("LazyConvTranspose2d", (4, 3), (2, 2, 6, 6), "ConvTranspose2d", {"weight": (2, 4, 3, 3), "bias": (4,)}),
    ("LazyBatchNorm2d", (), (4, 3, 2, 2), "BatchNorm2d", {"weight": (3,), "bias": (3,), "running_mean": (3,)}),
    ("LazyInstanceNorm1d", (), (4, 3, 5), "InstanceNorm1d", {"weight": (3,), "running_var": (3,)}),
]


@pytest.mark.parametrize("name,args,shape,becomes,shapes", CASES, ids=[c[0] for c in CASES])
def test_first_call_materializes_and_becomes_the_eager_class(name, args, shape, becomes, shapes):
    m = getattr(nn, name)(*args)
    assert m.has_uninitialized_params()
    assert isinstance(m.weight, nn.UninitializedParameter)
    out = m(numtorch.randn(*shape))
    assert type(m).__name__ == becomes
    sd = m.state_dict()
    for key, s in shapes.items():
        assert tuple(sd[key].shape) == s
    assert isinstance(m.weight, nn.Parameter) and not isinstance(m.weight, nn.UninitializedParameter)
    assert out.requires_grad
    out.sum().backward()
    assert m.weight.grad is not None and m.weight.grad.shape == m.weight.shape


def test_linear_init_follows_kaiming_bounds():
    numtorch.manual_seed(0)
    m = nn.LazyLinear(50)
    m(numtorch.zeros(1, 400))
    bound = 1 / np.sqrt(400)
    w, b = m.weight.detach().numpy(), m.bias.detach().numpy()
    assert np.abs(w).max() <= bound and np.abs(w).max() > 0.9 * bound
    assert np.abs(b).max() <= bound


def test_batchnorm_stats_are_reset_after_materializing():
    m = nn.LazyBatchNorm1d()
    m.eval()
    m(numtorch.zeros(2, 3))
    np.testing.assert_array_equal(m.running_mean.numpy(), np.zeros(3))
    np.testing.assert_array_equal(m.running_var.numpy(), np.ones(3))
    np.testing.assert_array_equal(m.weight.detach().numpy(), np.ones(3))
    assert m.num_batches_tracked.item() == 0


def test_load_state_dict_materializes_from_an_eager_module():
    src = nn.Conv2d(3, 5, 2)
    m = nn.LazyConv2d(5, 2)
    m.load_state_dict(src.state_dict())
    assert tuple(m.weight.shape) == (5, 3, 2, 2)
    x = numtorch.randn(1, 3, 4, 4)
    np.testing.assert_allclose(m(x).detach().numpy(), src(x).detach().numpy(), rtol=1e-6)
    assert type(m) is nn.Conv2d


def test_state_dict_of_an_uninitialized_module_holds_placeholders():
    sd = nn.LazyLinear(2).state_dict()
    assert list(sd) == ["weight", "bias"]
    assert all(isinstance(v, nn.UninitializedParameter) for v in sd.values())


def test_uninitialized_parameter_refuses_use_and_shape():
    m = nn.LazyLinear(2)
    with pytest.raises(ValueError, match="Attempted to use an uninitialized parameter"):
        numtorch.add(m.weight, 1)
    with pytest.raises(RuntimeError, match="Can't access the shape of an uninitialized parameter"):
        _ = m.weight.shape
    assert m.weight.requires_grad and m.weight.grad_fn is None


def test_conv_input_rank_and_groups_are_checked():
    with pytest.raises(RuntimeError, match=r"Expected 3D \(unbatched\) or 4D \(batched\) input to LazyConv2d"):
        nn.LazyConv2d(4, 3)(numtorch.zeros(2, 2))
    with pytest.raises(ValueError, match="in_channels must be divisible by groups"):
        nn.LazyConv1d(4, 1, groups=2)(numtorch.zeros(1, 3, 5))


def test_construction_warns_that_lazy_modules_are_new():
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        nn.LazyLinear(2)
    assert any("Lazy modules are a new feature" in str(x.message) for x in w)


def test_optimizer_sees_the_materialized_parameters():
    m = nn.Sequential(nn.LazyLinear(4), nn.ReLU(), nn.LazyLinear(1))
    m(numtorch.zeros(1, 3))
    opt = numtorch.optim.SGD(m.parameters(), lr=0.1)
    loss = m(numtorch.ones(2, 3)).sum()
    loss.backward()
    before = m[0].weight.detach().clone()
    opt.step()
    assert not numtorch.equal(before, m[0].weight.detach())
