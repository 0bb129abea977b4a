"""nn.init: gains, fan computation, distributions' bounds and moments, no_grad, generators."""

from __future__ import annotations

import math

import numpy as np
import pytest

import numtorch
from numtorch import nn
from numtorch.nn import init


def _np(t):
    return t.detach().numpy()


def test_calculate_gain():
    assert init.calculate_gain("linear") == 1 and init.calculate_gain("conv2d") == 1
    assert init.calculate_gain("sigmoid") == 1
    assert init.calculate_gain("tanh") == 5.0 / 3
    assert init.calculate_gain("relu") == math.sqrt(2.0)
    assert init.calculate_gain("leaky_relu") == math.sqrt(2.0 / (1 + 0.01**2))
    assert init.calculate_gain("leaky_relu", 0.2) == math.sqrt(2.0 / 1.04)
    assert init.calculate_gain("selu") == 0.75
    with pytest.raises(ValueError, match="^Unsupported nonlinearity foo$"):
        init.calculate_gain("foo")
    with pytest.raises(ValueError, match="^negative_slope True not a valid number$"):
        init.calculate_gain("leaky_relu", True)


def test_fan_in_and_fan_out():
    assert init._calculate_fan_in_and_fan_out(numtorch.empty(3, 5)) == (5, 3)
    assert init._calculate_fan_in_and_fan_out(numtorch.empty(8, 4, 3, 3)) == (36, 72)
    with pytest.raises(
        ValueError,
        match="^Fan in and fan out can not be computed for tensor with fewer than 2 dimensions$",
    ):
        init._calculate_fan_in_and_fan_out(numtorch.empty(5))
    with pytest.raises(
        ValueError, match=r"^Mode fan_avg not supported, please use one of \['fan_in', 'fan_out'\]$"
    ):
        init.kaiming_uniform_(numtorch.empty(2, 2), mode="fan_avg")


def test_constant_zeros_ones_eye_dirac():
    t = numtorch.empty(2, 3)
    assert init.constant_(t, 0.5) is t
    np.testing.assert_array_equal(_np(t), np.full((2, 3), 0.5, np.float32))
    np.testing.assert_array_equal(_np(init.zeros_(t)), np.zeros((2, 3)))
    np.testing.assert_array_equal(_np(init.ones_(t)), np.ones((2, 3)))
    np.testing.assert_array_equal(_np(init.eye_(numtorch.empty(2, 3))), np.eye(2, 3))
    with pytest.raises(ValueError, match="Only tensors with 2 dimensions are supported"):
        init.eye_(numtorch.empty(2))
    d = init.dirac_(numtorch.empty(2, 2, 3))
    expected = np.zeros((2, 2, 3))
    expected[0, 0, 1] = expected[1, 1, 1] = 1
    np.testing.assert_array_equal(_np(d), expected)
    with pytest.raises(ValueError, match="Only tensors with 3, 4, or 5 dimensions are supported"):
        init.dirac_(numtorch.empty(2, 2))
    with pytest.raises(ValueError, match="dim 0 must be divisible by groups"):
        init.dirac_(numtorch.empty(3, 2, 3), groups=2)


def test_uniform_and_normal_ranges_and_moments():
    u = init.uniform_(numtorch.empty(20000), -2.0, 3.0)
    assert _np(u).min() >= -2.0 and _np(u).max() < 3.0
    assert abs(_np(u).mean() - 0.5) < 0.05
    n = init.normal_(numtorch.empty(20000), mean=1.0, std=2.0)
    assert abs(_np(n).mean() - 1.0) < 0.06 and abs(_np(n).std() - 2.0) < 0.06


def test_xavier_and_kaiming_bounds():
    t = numtorch.empty(200, 300)
    a = math.sqrt(6.0 / 500)
    x = _np(init.xavier_uniform_(t, gain=1.0))
    assert x.min() >= -a and x.max() <= a and x.max() > 0.9 * a
    xn = _np(init.xavier_normal_(numtorch.empty(200, 300)))
    assert abs(xn.std() - math.sqrt(2.0 / 500)) < 0.003
    bound = math.sqrt(3.0) * math.sqrt(2.0) / math.sqrt(300)
    k = _np(init.kaiming_uniform_(numtorch.empty(200, 300), nonlinearity="relu"))
    assert k.min() >= -bound and k.max() <= bound and k.max() > 0.9 * bound
    kn = _np(init.kaiming_normal_(numtorch.empty(200, 300), mode="fan_out", nonlinearity="relu"))
    assert abs(kn.std() - math.sqrt(2.0 / 200)) < 0.003


def test_trunc_normal_stays_in_bounds():
    t = _np(init.trunc_normal_(numtorch.empty(5000), mean=0.0, std=1.0, a=-1.0, b=1.5))
    assert t.min() >= -1.0 and t.max() <= 1.5
    narrow = _np(init.trunc_normal_(numtorch.empty(2000), mean=0.0, std=1.0, a=2.0, b=2.5))
    assert narrow.min() >= 2.0 and narrow.max() <= 2.5
    with pytest.warns(UserWarning, match="mean is more than 2 std from \\[a, b\\]"):
        init.trunc_normal_(numtorch.empty(10), mean=10.0, std=1.0, a=-1.0, b=1.0)


def test_orthogonal_gives_orthonormal_rows():
    q = _np(init.orthogonal_(numtorch.empty(3, 5), gain=2.0))
    np.testing.assert_allclose(q @ q.T, 4 * np.eye(3), atol=1e-5)


def test_orthogonal_tall_and_conv_shaped():
    q = _np(init.orthogonal_(numtorch.empty(6, 3)))
    np.testing.assert_allclose(q.T @ q, np.eye(3), atol=1e-5)
    w = init.orthogonal_(numtorch.empty(4, 2, 3, 3))
    flat = _np(w).reshape(4, -1)
    np.testing.assert_allclose(flat @ flat.T, np.eye(4), atol=1e-5)
    g = numtorch.Generator().manual_seed(3)
    a = _np(init.orthogonal_(numtorch.empty(3, 3), generator=g))
    b = _np(init.orthogonal_(numtorch.empty(3, 3), generator=numtorch.Generator().manual_seed(3)))
    np.testing.assert_array_equal(a, b)
    with pytest.raises(ValueError, match="Only tensors with 2 or more dimensions"):
        init.orthogonal_(numtorch.empty(3))


def test_sparse_zeros_a_fraction_of_each_column():
    w = _np(init.sparse_(numtorch.empty(10, 4), sparsity=0.3))
    assert ((w == 0).sum(axis=0) >= 3).all()


def test_init_runs_under_no_grad_on_parameters():
    p = nn.Parameter(numtorch.empty(3, 4))
    init.kaiming_uniform_(p, a=math.sqrt(5))
    assert p.requires_grad and p.is_leaf and p.grad_fn is None


def test_generator_makes_draws_reproducible():
    a = init.uniform_(numtorch.empty(5), generator=numtorch.Generator().manual_seed(3))
    b = init.uniform_(numtorch.empty(5), generator=numtorch.Generator().manual_seed(3))
    c = init.normal_(numtorch.empty(5), generator=numtorch.Generator().manual_seed(4))
    np.testing.assert_array_equal(_np(a), _np(b))
    assert not np.array_equal(_np(a), _np(c))


def test_zero_element_kaiming_warns_and_returns():
    t = numtorch.empty(0, 3)
    with pytest.warns(UserWarning, match="Initializing zero-element tensors is a no-op"):
        assert init.kaiming_normal_(t) is t


def test_deprecated_aliases_warn():
    with pytest.warns(
        FutureWarning, match="`nn.init.uniform` is now deprecated in favor of `nn.init.uniform_`."
    ):
        init.uniform(numtorch.empty(2))


def test_init_honours_torch_function():
    class Wrapped(numtorch.Tensor):
        calls = []

        @classmethod
        def __torch_function__(cls, func, types, args=(), kwargs=None):
            cls.calls.append(getattr(func, "__name__", ""))
            return super().__torch_function__(func, types, args, kwargs)

    w = numtorch.empty(2, 2).as_subclass(Wrapped)
    init.constant_(w, 1.0)
    assert "constant_" in Wrapped.calls
