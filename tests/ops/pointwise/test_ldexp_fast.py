"""ldexp's array route (Note [ldexp without the composite's ops]) and its 2 ** other by exp2's
float64 kernel: the route is taken for plain tensors only, gives the composite's values bit for
bit, exact powers of two at integer exponents, and an array storage for 0-d results."""

from __future__ import annotations

import numpy as np
import pytest

import numtorch
from numtorch.ops.pointwise import extra


def _pair(dtype, edtype, shape=(257,)):
    rng = np.random.default_rng(3)
    x = rng.uniform(-3, 3, shape).astype(dtype)
    e = (rng.integers(-160, 160, shape) if np.dtype(edtype).kind == "i" else rng.uniform(-3, 3, shape)).astype(edtype)
    return numtorch.from_numpy(x), numtorch.from_numpy(e)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("edtype", [np.float32, np.float64, np.int32, np.int64])
def test_array_route_equals_the_composite(dtype, edtype):
    x, e = _pair(dtype, edtype)
    fast = extra._ldexp_arrays(x, e)
    assert fast is not None  # the route is taken
    body = extra._mul(x, extra._pow2(e, x)).to(fast.dtype)
    np.testing.assert_array_equal(fast.numpy(), body.numpy())
    np.testing.assert_array_equal(numtorch.ldexp(x, e).numpy(), fast.numpy())


def test_integer_exponents_are_exact():
    k = np.arange(-1100, 1100)
    got = numtorch.ldexp(numtorch.ones(k.size, dtype=numtorch.float64), numtorch.from_numpy(k)).numpy()
    with np.errstate(over="ignore"):
        np.testing.assert_array_equal(got, np.ldexp(1.0, k))


def test_route_declines_grad_and_gives_the_same_grad():
    x, e = _pair(np.float64, np.float64, (5,))
    x.requires_grad_(True)
    e.requires_grad_(True)
    assert extra._ldexp_arrays(x, e) is None
    numtorch.ldexp(x, e).sum().backward()
    p = 2.0 ** e.detach().numpy()
    np.testing.assert_allclose(x.grad.numpy(), p, rtol=1e-15)
    np.testing.assert_allclose(e.grad.numpy(), x.detach().numpy() * p * np.log(2.0), rtol=1e-14)


def test_zero_dim_result_has_array_storage():
    r = numtorch.ldexp(numtorch.tensor(0.5), numtorch.tensor(3))
    assert isinstance(r._data, np.ndarray) and r.shape == () and r.item() == 4.0
    assert (r + 1).item() == 5.0  # was IndexError: the storage was a NumPy scalar
