"""Legacy hook-based weight_norm / spectral_norm and their remove_*, fusion of eval BatchNorm,
skip_init, memory-format conversion and the deprecated stateless.functional_call."""

from __future__ import annotations

import numpy as np
import pytest

import numtorch
from numtorch import nn
from numtorch.nn import utils as U

pytestmark = pytest.mark.filterwarnings("ignore::FutureWarning")


def test_weight_norm_splits_and_recombines():
    m = U.weight_norm(nn.Linear(4, 3, dtype=numtorch.float64))
    g, v = m.weight_g.detach().numpy(), m.weight_v.detach().numpy()
    np.testing.assert_allclose(g, np.linalg.norm(v, axis=1, keepdims=True))
    with numtorch.no_grad():
        m.weight_g.mul_(2)
    m(numtorch.ones(1, 4, dtype=numtorch.float64))
    np.testing.assert_allclose(m.weight.detach().numpy(), 2 * v, rtol=1e-12)
    with pytest.raises(RuntimeError, match="Cannot register two weight_norm hooks"):
        U.weight_norm(m)
    U.remove_weight_norm(m)
    assert sorted(n for n, _ in m.named_parameters()) == ["bias", "weight"]
    with pytest.raises(ValueError, match="weight_norm of 'weight' not found"):
        U.remove_weight_norm(m)


def test_weight_norm_warns_that_it_is_deprecated():
    with pytest.warns(FutureWarning, match="parametrizations.weight_norm"):
        U.weight_norm(nn.Linear(2, 2))


def test_spectral_norm_converges_to_the_largest_singular_value():
    numtorch.manual_seed(0)
    m = U.spectral_norm(nn.Linear(6, 5, dtype=numtorch.float64), n_power_iterations=100)
    m(numtorch.ones(1, 6, dtype=numtorch.float64))
    W = m.weight_orig.detach().numpy()
    np.testing.assert_allclose(m.weight.detach().numpy(), W / np.linalg.svd(W, compute_uv=False)[0], rtol=1e-8)
    assert m.state_dict()._metadata[""]["spectral_norm"] == {"weight.version": 1}
    U.remove_spectral_norm(m)
    assert sorted(m.state_dict()) == ["bias", "weight"]
    assert not m._state_dict_hooks and not m._load_state_dict_pre_hooks


def test_fusion_matches_the_unfused_pair():
    conv, bn = nn.Conv2d(2, 3, 2, dtype=numtorch.float64).eval(), nn.BatchNorm2d(3, dtype=numtorch.float64).eval()
    with numtorch.no_grad():
        bn.running_mean.uniform_(-1, 1), bn.running_var.uniform_(0.5, 2), bn.weight.uniform_(), bn.bias.uniform_()
    x = numtorch.randn(2, 2, 4, 4, dtype=numtorch.float64)
    np.testing.assert_allclose(U.fuse_conv_bn_eval(conv, bn)(x).detach().numpy(), bn(conv(x)).detach().numpy(),
                               rtol=1e-12, atol=1e-12)  # fmt: skip
    lin, bn1 = nn.Linear(3, 4, dtype=numtorch.float64).eval(), nn.BatchNorm1d(4, dtype=numtorch.float64).eval()
    with numtorch.no_grad():
        bn1.running_var.uniform_(0.5, 2)
    y = numtorch.randn(5, 3, dtype=numtorch.float64)
    np.testing.assert_allclose(U.fuse_linear_bn_eval(lin, bn1)(y).detach().numpy(), bn1(lin(y)).detach().numpy(),
                               rtol=1e-12, atol=1e-12)  # fmt: skip
    with pytest.raises(AssertionError, match="Fusion only for eval!"):
        U.fuse_conv_bn_eval(conv.train(), bn)


def test_skip_init_and_memory_format():
    m = U.skip_init(nn.Linear, 5, 2)
    assert m.weight.device.type == "cpu" and tuple(m.weight.shape) == (2, 5)
    with pytest.raises(RuntimeError, match="Expected a Module"):
        U.skip_init(int)
    net = nn.Sequential(nn.Conv2d(2, 3, 2), nn.Conv3d(3, 1, 1))
    w = net[0].weight.detach().numpy().copy()
    U.convert_conv2d_weight_memory_format(net, numtorch.channels_last)
    assert net[0].weight.is_contiguous(memory_format=numtorch.channels_last)
    np.testing.assert_array_equal(net[0].weight.detach().numpy(), w)
    U.convert_conv3d_weight_memory_format(net, numtorch.channels_last_3d)
    assert net[1].weight.is_contiguous(memory_format=numtorch.channels_last_3d)


def test_stateless_functional_call_forwards_to_func():
    m = nn.Linear(2, 1, bias=False)
    with pytest.warns(FutureWarning, match="torch.func.functional_call"):
        out = U.stateless.functional_call(m, {"weight": numtorch.ones(1, 2)}, (numtorch.ones(3, 2),))
    np.testing.assert_array_equal(out.numpy(), np.full((3, 1), 2.0))
