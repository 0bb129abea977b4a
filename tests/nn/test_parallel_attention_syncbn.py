"""nn.parallel (DataParallel on a machine without an accelerator), nn.attention.sdpa_kernel,
SyncBatchNorm and nn.common_types."""

from __future__ import annotations

import typing

import numpy as np
import pytest

import numtorch
from numtorch import nn
from numtorch.nn.attention import SDPBackend, sdpa_kernel

F = nn.functional


def test_data_parallel_without_devices_calls_the_module():
    if numtorch.cuda.is_available():
        pytest.skip("the no-accelerator path")
    lin = nn.Linear(2, 3)
    dp = nn.DataParallel(lin)
    x = numtorch.randn(4, 2)
    np.testing.assert_array_equal(dp(x).detach().numpy(), lin(x).detach().numpy())
    assert dp.device_ids == [] and dp.module is lin and list(dp.state_dict()) == ["module.weight", "module.bias"]
    assert nn.parallel.DataParallel is nn.DataParallel
    with pytest.raises(RuntimeError, match="device type could not be determined"):
        nn.parallel.data_parallel(lin, x)


def test_sdpa_kernel_selects_backends_and_restores():
    q = numtorch.randn(1, 3, 4)
    ref = F.scaled_dot_product_attention(q, q, q)
    with sdpa_kernel([SDPBackend.MATH, SDPBackend.FLASH_ATTENTION]):
        np.testing.assert_array_equal(F.scaled_dot_product_attention(q, q, q).numpy(), ref.numpy())
        assert numtorch.backends.cuda.flash_sdp_enabled() and not numtorch.backends.cuda.cudnn_sdp_enabled()
    with sdpa_kernel(SDPBackend.CUDNN_ATTENTION):
        assert not numtorch.backends.cuda.math_sdp_enabled()
        with pytest.raises(RuntimeError, match="No viable backend for scaled_dot_product_attention was found"):
            F.scaled_dot_product_attention(q, q, q)
    assert numtorch.backends.cuda.math_sdp_enabled() and numtorch.backends.cuda.cudnn_sdp_enabled()
    with pytest.raises(AssertionError, match="Backend must be an instance of SDPBackend .* got int"):
        with sdpa_kernel(3):
            pass
    assert SDPBackend.MATH.value == 0 and SDPBackend.ERROR.value == -1


def test_sync_batchnorm_is_batchnorm_without_a_process_group():
    net = nn.Sequential(nn.Conv2d(2, 2, 1), nn.BatchNorm2d(2))
    ref = nn.BatchNorm2d(2)
    ref.load_state_dict(net[1].state_dict())
    conv = nn.SyncBatchNorm.convert_sync_batchnorm(net)
    bn = conv[1]
    assert isinstance(bn, nn.SyncBatchNorm) and bn.weight is net[1].weight and bn.running_var is net[1].running_var
    x = numtorch.randn(3, 2, 2, 2)
    np.testing.assert_allclose(bn(x).detach().numpy(), ref(x).detach().numpy(), rtol=1e-6)  # training: batch stats
    np.testing.assert_allclose(bn.running_mean.numpy(), ref.running_mean.numpy(), rtol=1e-6)
    bn.eval(), ref.eval()
    np.testing.assert_allclose(bn(x).detach().numpy(), ref(x).detach().numpy(), rtol=1e-6)
    with pytest.raises(ValueError, match=r"expected at least 2D input \(got 1D input\)"):
        bn(numtorch.ones(2))
    with pytest.raises(ValueError, match="SyncBatchNorm number of input channels should be non-zero"):
        nn.SyncBatchNorm(0)(numtorch.ones(2, 0))


def test_common_types_are_the_aliases():
    from numtorch.nn import common_types as ct

    assert typing.get_args(ct._size_2_t) == (int, tuple[int, int])
    assert ct.Tensor is numtorch.Tensor
