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


@pytest.mark.parametrize("dtype", [np.float32, np.float16, np.int32, np.int64, np.uint8, np.bool_])
def test_float_power_plain_cast_equals_to(dtype):
    # extra._fp_cast casts a plain tensor by NumPy: the same float64 values as to(float64)
    rng = np.random.default_rng(4)
    x = numtorch.from_numpy((rng.uniform(0, 4, (3, 5)) if np.dtype(dtype).kind == "f" else rng.integers(0, 4, (3, 5))).astype(dtype))
    c = extra._fp_cast(x, numtorch.float64)
    assert c.dtype == numtorch.float64 and c is not x and not c.requires_grad
    np.testing.assert_array_equal(c.numpy(), x.to(numtorch.float64).numpy())
    e = numtorch.tensor(1.5)
    np.testing.assert_array_equal(numtorch.float_power(x, e).numpy(), numtorch.pow(x.to(numtorch.float64), 1.5).numpy())


def test_float_power_mode_and_grad_take_to():
    from numtorch.testing._internal.logging_tensor import LoggingTensorMode, capture_logs

    x = numtorch.tensor([1.0, 2.0])
    with capture_logs(is_mode=True) as logs, LoggingTensorMode():
        numtorch.float_power(x, 2.0)
        numtorch.ldexp(x, numtorch.tensor([1, 2]))
    assert any("_to_copy" in line for line in logs)  # float_power's cast is seen by the mode
    # Note [ldexp's own node]: ldexp is one op to a mode, as PyTorch's (not its casts)
    assert any("aten.ldexp.Tensor" in line for line in logs)
    w = numtorch.tensor([1.0, 2.0], dtype=numtorch.float32, requires_grad=True)
    r = numtorch.float_power(w, 2.0)
    r.sum().backward()
    np.testing.assert_array_equal(w.grad.numpy(), [2.0, 4.0])


@pytest.mark.parametrize("edtype", [np.float32, np.float64, np.int32, np.int64])
@pytest.mark.parametrize("shape", [(257,), (3, 4), (), (0,)])
def test_exp2_entry_is_the_dispatched_kernel(edtype, shape):
    # Note [ldexp without the composite's ops]: 2 ** other by exp2's learned float64 entry
    x, e = _pair(np.float32, edtype, (257,))
    numtorch.ldexp(x, e)  # learns exp2's float64 entry (its first call may only record it)
    numtorch.ldexp(x, e)
    x, e = _pair(np.float32, edtype, shape)
    p = extra._exp2_f64(e._data)
    assert p is not None, "the entry route was not taken"
    want = extra._pow2(e, x)
    assert p.dtype == np.float64 and p.shape == want.shape and p.tobytes() == want.numpy().tobytes()
    r = numtorch.ldexp(x, e)
    body = extra._mul(x, want).to(r.dtype)
    assert r._data.__class__ is np.ndarray and r.shape == body.shape and r.numpy().tobytes() == body.numpy().tobytes()
    assert e._data.tobytes() == _pair(np.float32, edtype, shape)[1]._data.tobytes()  # not written


def test_exp2_entry_declines_large_and_registered_kernels():
    x, e = _pair(np.float32, np.float32)
    numtorch.ldexp(x, e)
    from numtorch.kernels import PARALLEL_THRESHOLD

    assert extra._exp2_f64(np.zeros(PARALLEL_THRESHOLD, np.float32)) is None
    lib = numtorch.library.Library("aten", "IMPL")
    try:
        lib.impl("exp2", lambda a: numtorch.full_like(a, 4.0), "CPU")
        assert extra._exp2_f64(e._data) is None
        assert numtorch.ldexp(numtorch.ones(3), numtorch.zeros(3)).tolist() == [4.0, 4.0, 4.0]
    finally:
        lib._destroy()
    assert extra._exp2_f64(e._data) is not None
