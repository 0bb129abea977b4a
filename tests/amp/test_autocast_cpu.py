"""CPU autocast runs PyTorch's op lists in their dtypes (Note [Autocast key])."""

from __future__ import annotations

import numpy as np

import numtorch
from numtorch.amp import _policy

BF = numtorch.bfloat16


def _data():
    numtorch.manual_seed(0)
    return numtorch.nn.Linear(3, 4), numtorch.randn(2, 3)


def test_default_cpu_dtype_is_bfloat16_as_pytorch():
    assert numtorch.get_autocast_dtype("cpu") is BF
    with numtorch.autocast("cpu"):
        assert numtorch.get_autocast_dtype("cpu") is BF


def test_lower_precision_list_runs_in_bfloat16_and_matches_explicit_casts():
    m, x = _data()
    with numtorch.autocast("cpu", dtype=BF):
        y = m(x)
        z = x @ x.T
        conv = numtorch.nn.functional.conv2d(numtorch.ones(1, 1, 3, 3), numtorch.ones(1, 1, 2, 2))
    assert y.dtype is BF and z.dtype is BF and conv.dtype is BF
    want = numtorch.nn.functional.linear(x.to(BF), m.weight.to(BF), m.bias.to(BF))
    assert y.float().tolist() == want.float().tolist()


def test_float32_list_promote_list_and_unlisted_ops():
    m, x = _data()
    with numtorch.autocast("cpu"):
        y = m(x)
        loss = numtorch.nn.functional.mse_loss(y, numtorch.zeros(2, 4, dtype=BF))
        cat = numtorch.cat([y, x.double()[:, :1]], 1)
        assert loss.dtype is numtorch.float32
        assert cat.dtype is numtorch.float64  # the widest input
        assert (x + 1).dtype is numtorch.float32  # not on a list
        assert numtorch.mm(x.double(), x.double().T).dtype is numtorch.float64  # float64 is never cast


def test_gradients_reach_float32_parameters_in_float32():
    m, x = _data()
    with numtorch.autocast("cpu"):
        y = m(x)
    y.float().sum().backward()
    assert m.weight.grad.dtype is numtorch.float32
    # d(sum(x W^T + b))/dW = column sums of x, computed from the bfloat16 casts of x
    want = x.to(BF).float().sum(0).to(BF).float().expand(4, 3)
    np.testing.assert_array_equal(m.weight.grad.numpy(), want.numpy())


def test_leaving_autocast_restores_the_ops_and_empties_the_cache():
    m, x = _data()
    with numtorch.autocast("cpu"):
        with numtorch.autocast("cpu", enabled=False):
            assert m(x).dtype is numtorch.float32
        m(x)
    assert not _policy._INSTALLED and not _policy._CACHE
    assert m(x).dtype is numtorch.float32 and (x @ x.T).dtype is numtorch.float32


def test_float16_autocast():
    m, x = _data()
    with numtorch.autocast("cpu", dtype=numtorch.float16):
        assert m(x).dtype is numtorch.float16
