"""numtorch/ops/factory/sampling.py: binomial (Note [Binomial sampler]) and Binomial.sample."""

from __future__ import annotations

import math

import numpy as np
import pytest

import numtorch

N = 40_000


@pytest.mark.parametrize(("count", "p"), [(4.0, 0.3), (40.0, 0.35), (30.0, 0.8), (500.0, 0.6)],
                         ids=["inversion", "btrs", "inversion_q", "btrs_q"])  # fmt: skip
def test_binomial_moments(count, p):
    s = numtorch.binomial(numtorch.full((N,), count, dtype=numtorch.float64),
                          numtorch.full((N,), p, dtype=numtorch.float64)).numpy()  # fmt: skip
    mean, var = count * p, count * p * (1 - p)
    assert abs(s.mean() - mean) < 5 * math.sqrt(var / N)
    assert abs(s.var() - var) < 6 * var * math.sqrt(2 / N) + 0.01
    assert np.all(s == np.floor(s)) and s.min() >= 0 and s.max() <= count


def test_binomial_matches_numpy_pmf_small_count():
    s = numtorch.binomial(numtorch.full((N,), 3.0), numtorch.full((N,), 0.4)).numpy()
    pmf = [math.comb(3, k) * 0.4**k * 0.6 ** (3 - k) for k in range(4)]
    freq = np.bincount(s.astype(np.int64), minlength=4) / N
    np.testing.assert_allclose(freq, pmf, atol=0.015)


def test_binomial_edge_values_and_broadcast():
    c = numtorch.tensor([0.0, -2.0, 7.0, 7.0, 5.0])
    p = numtorch.tensor([0.5, 0.5, 0.0, 1.5, float("nan")])
    r = numtorch.binomial(c, p)
    assert r.dtype is numtorch.float32 and r[:4].tolist() == [0.0, 0.0, 0.0, 7.0] and math.isnan(r[4].item())
    with pytest.warns(UserWarning, match="An output with one or more elements was resized"):
        assert numtorch.binomial(numtorch.tensor([2.0]), numtorch.tensor([0.0, 1.0])).tolist() == [0.0, 2.0]


def test_binomial_generator_reproduces():
    def draw():
        g = numtorch.Generator().manual_seed(7)
        return numtorch.binomial(numtorch.full((50,), 30.0), numtorch.full((50,), 0.5), generator=g).tolist()

    assert draw() == draw()


@pytest.mark.parametrize(("args", "exc", "msg"), [
    ((numtorch.ones(2, dtype=numtorch.int64), numtorch.ones(2)), ValueError,
     "binomial only supports floating-point dtypes for count, got: Long"),
    ((numtorch.ones(2), numtorch.ones(2, dtype=numtorch.int64)), ValueError,
     "binomial only supports floating-point dtypes for prob, got: Long"),
    ((numtorch.ones(2), numtorch.ones(2, dtype=numtorch.float64)), RuntimeError, "Found dtype Double but expected Float"),
    ((numtorch.ones(2).half(), numtorch.ones(2).half()), NotImplementedError, "\"binomial_cpu\" not implemented for 'Half'"),
])  # fmt: skip
def test_binomial_errors(args, exc, msg):
    with pytest.raises(exc, match=msg):
        numtorch.binomial(*args)


def test_binomial_has_no_derivative():
    c = numtorch.tensor([5.0], requires_grad=True)
    r = numtorch.binomial(c, numtorch.tensor([0.5]))
    assert r.requires_grad
    with pytest.raises(RuntimeError, match="derivative for aten::binomial is not implemented"):
        r.sum().backward()


def test_distribution_binomial_sample_moments():
    count, p = np.array([10.0, 60.0], np.float32), np.array([0.2, 0.7], np.float32)
    d = numtorch.distributions.Binomial(numtorch.tensor(count), probs=numtorch.tensor(p), validate_args=False)
    s = d.sample((N,))
    assert s.shape == (N, 2) and s.dtype is numtorch.float32
    np.testing.assert_allclose(s.numpy().mean(0), count * p, atol=0.06)
    np.testing.assert_allclose(s.numpy().var(0), count * p * (1 - p), rtol=0.05)
