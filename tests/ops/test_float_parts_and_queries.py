"""nextafter, frexp, Tensor.isreal (numtorch/ops/pointwise/float_parts.py) and the small queries
of numtorch/ops/extra.py (is_neg, resolve_neg, is_same_size, rms_norm, unravel_index, typename)
against NumPy, with gradcheck and PyTorch's error texts."""

from __future__ import annotations

import numpy as np
import pytest

import numtorch
from numtorch.autograd import gradcheck


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_nextafter_steps_one_float_of_the_dtype(dtype):
    a = np.array([1.0, 0.0, -2.5, np.inf, np.nan, 1.0], dtype)
    b = np.array([2.0, -1.0, 0.0, 0.0, 1.0, 1.0], dtype)
    got = numtorch.nextafter(numtorch.tensor(a), numtorch.tensor(b))
    np.testing.assert_array_equal(got.numpy(), np.nextafter(a, b))
    assert got.dtype == getattr(numtorch, dtype)
    t = numtorch.tensor(a)
    assert t.nextafter_(numtorch.tensor(b)) is t
    with pytest.raises(NotImplementedError, match="\"nextafter_cpu\" not implemented for 'Long'"):
        numtorch.nextafter(numtorch.tensor([1]), numtorch.tensor([2]))


def test_frexp_splits_and_differentiates():
    x = np.array([8.0, 0.3, 0.0, -1.5, 1e-310, 3e300])
    m, e = numtorch.frexp(numtorch.tensor(x))
    wm, we = np.frexp(x)
    np.testing.assert_array_equal(m.numpy(), wm)
    np.testing.assert_array_equal(e.numpy(), we)
    assert e.dtype == numtorch.int32
    assert numtorch.tensor([8.0]).frexp().exponent.tolist() == [4]
    t = numtorch.tensor(np.random.default_rng(0).uniform(0.1, 9, 5), requires_grad=True)
    assert gradcheck(lambda v: numtorch.frexp(v).mantissa, (t,))
    assert not numtorch.frexp(t).exponent.requires_grad
    with pytest.raises(RuntimeError, match=r"torch.frexp\(\) only supports floating-point dtypes"):
        numtorch.frexp(numtorch.tensor([1]))
    out = (numtorch.empty(0, dtype=numtorch.float64), numtorch.empty(0, dtype=numtorch.int32))
    r = numtorch.frexp(numtorch.tensor([2.0], dtype=numtorch.float64), out=out)
    assert r.mantissa is out[0] and out[1].tolist() == [2]


def test_isreal_method_and_queries():
    assert numtorch.tensor([1 + 0j, 1j]).isreal().tolist() == [True, False]
    assert numtorch.tensor([1, 2]).isreal().all()
    x = numtorch.ones(2, 3)
    assert numtorch.is_same_size(x, numtorch.zeros(2, 3)) and not x.is_same_size(numtorch.zeros(3, 2))
    assert not x.is_neg() and numtorch.resolve_neg(x) is x
    assert numtorch.typename(x) == "torch.FloatTensor" and numtorch.typename(3) == "int"
    assert numtorch.ones(2)[:, numtorch.newaxis].shape == (2, 1)


def test_rms_norm_matches_the_formula():
    a = np.random.default_rng(1).standard_normal((3, 4))
    w = np.random.default_rng(2).standard_normal(4)
    want = a / np.sqrt((a * a).mean(-1, keepdims=True) + 1e-5) * w
    got = numtorch.rms_norm(numtorch.tensor(a), [4], numtorch.tensor(w), 1e-5)
    np.testing.assert_allclose(got.numpy(), want, rtol=1e-12)


def test_unravel_index_wraps_like_pytorch():
    got = numtorch.unravel_index(numtorch.tensor([4, 1, 7, -7]), (2, 3))
    want = [(i // 3) % 2 for i in (4, 1, 7, -7)], [i % 3 for i in (4, 1, 7, -7)]
    assert [g.tolist() for g in got] == [list(w) for w in want]
    assert numtorch.unravel_index(numtorch.tensor(5), 4)[0].shape == ()
    with pytest.raises(TypeError, match="expected 'indices' to be integer dtype, but got torch.float32"):
        numtorch.unravel_index(numtorch.tensor([1.0]), (2, 3))
    with pytest.raises(ValueError, match="'shape' cannot have negative values"):
        numtorch.unravel_index(numtorch.tensor([1]), (2, -3))
