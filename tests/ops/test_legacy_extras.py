"""The in-place products (addmm_ ...), renorm, torch.vander, the unsafe_ splits, the anomaly and
warn-always switches: values against NumPy, gradients by gradcheck, PyTorch's errors."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import numtorch
from numtorch.autograd import gradcheck


def _t(a, grad=False):
    return numtorch.tensor(np.asarray(a, np.float64), requires_grad=grad)


def test_inplace_products_match_numpy():
    rng = np.random.default_rng(0)
    m, a, b = rng.standard_normal((3, 4)), rng.standard_normal((3, 5)), rng.standard_normal((5, 4))
    x = _t(m)
    assert x.addmm_(_t(a), _t(b), beta=0.5, alpha=2.0) is x
    np.testing.assert_allclose(x.numpy(), 0.5 * m + 2 * a @ b)
    v = rng.standard_normal(5)
    y = _t(m[:, 0])
    numtorch.addmv_(y, _t(a), _t(v))
    np.testing.assert_allclose(y.numpy(), m[:, 0] + a @ v)
    b1, b2 = rng.standard_normal((2, 3, 5)), rng.standard_normal((2, 5, 4))
    z = _t(np.zeros((2, 3, 4)))
    np.testing.assert_allclose(z.baddbmm_(_t(b1), _t(b2)).numpy(), b1 @ b2)
    w = _t(np.ones((3, 4)))
    np.testing.assert_allclose(w.addbmm_(_t(b1), _t(b2)).numpy(), 1 + (b1 @ b2).sum(0))


def test_renorm():
    a = np.random.default_rng(1).standard_normal((4, 3)) * 3
    norms = np.linalg.norm(a, axis=1, keepdims=True)
    want = np.where(norms > 1.5, a * 1.5 / (norms + 1e-7), a)
    np.testing.assert_allclose(numtorch.renorm(_t(a), 2, 0, 1.5).numpy(), want, rtol=1e-12)
    x = _t(a)
    assert x.renorm_(2, 0, 1.5) is x
    assert gradcheck(lambda t: numtorch.renorm(t, 2, 0, 1.5), (_t(a, True),))
    with pytest.raises(RuntimeError, match="renorm: input needs at least 2 dimensions, got 1 dimensions"):
        numtorch.renorm(_t([1.0]), 2, 0, 1.0)


def test_torch_vander():
    x = np.array([1.0, 2.0, 3.0])
    np.testing.assert_array_equal(numtorch.vander(_t(x)).numpy(), np.vander(x))
    np.testing.assert_array_equal(numtorch.vander(_t(x), N=4, increasing=True).numpy(), np.vander(x, 4, increasing=True))
    assert numtorch.vander(_t(x), N=0).shape == (3, 0)


def test_unsafe_splits_and_switches():
    x = numtorch.arange(5)
    assert [t.tolist() for t in numtorch.unsafe_chunk(x, 2)] == [[0, 1, 2], [3, 4]]
    assert [t.tolist() for t in x.unsafe_split(2)] == [[0, 1], [2, 3], [4]]
    assert [t.tolist() for t in numtorch.unsafe_split_with_sizes(x, [1, 4])] == [[0], [1, 2, 3, 4]]
    numtorch.set_anomaly_enabled(True, check_nan=False)
    try:
        assert numtorch.is_anomaly_enabled() and not numtorch.is_anomaly_check_nan_enabled()
        t = numtorch.tensor([0.0], requires_grad=True)
        (t * float("nan")).sum().backward()  # check_nan=False: no error for the NaN gradient
    finally:
        numtorch.set_anomaly_enabled(False)
    assert not numtorch.is_anomaly_enabled() and numtorch.is_anomaly_check_nan_enabled()


def test_warn_always_repeats_the_vmap_fallback_warning():
    from numtorch._functorch.batched import _WARNED

    f = numtorch.vmap(lambda v: numtorch.bincount(v))
    x = numtorch.tensor([[0, 1], [1, 1]])
    numtorch.set_warn_always(True)
    try:
        assert numtorch.is_warn_always_enabled()
        for _ in range(2):
            with warnings.catch_warnings(record=True) as w:
                warnings.simplefilter("always")
                f(x)
            assert any("batching rule" in str(m.message) for m in w)
    finally:
        numtorch.set_warn_always(False)
    assert _WARNED


def test_histogram_matches_numpy():
    a = np.random.default_rng(3).standard_normal(50)
    w = np.random.default_rng(4).uniform(0, 2, 50)
    got = numtorch.histogram(_t(a), 7, range=(-2.0, 2.0), weight=_t(w), density=True)
    h, e = np.histogram(a, 7, range=(-2, 2), weights=w, density=True)
    np.testing.assert_allclose(got.hist.numpy(), h)
    np.testing.assert_allclose(got.bin_edges.numpy(), e)
    edges = np.array([-3.0, -1.0, 0.0, 0.5, 3.0])
    got = _t(a).histogram(_t(edges))
    np.testing.assert_array_equal(got.hist.numpy(), np.histogram(a, edges)[0])
    with pytest.raises(NotImplementedError, match="\"histogramdd\" not implemented for 'Long'"):
        numtorch.histogram(numtorch.tensor([1, 2]), 3)
    with pytest.raises(RuntimeError, match="min should not exceed max, but got min 3 max 1 for dimension 0"):
        numtorch.histogram(_t(a), 3, range=(3.0, 1.0))
