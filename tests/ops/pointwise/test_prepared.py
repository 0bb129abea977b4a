"""Note [Elementwise prepared signatures]: a repeated functional call with Python numbers or
non-default parameters runs the learned kernel, with the general path's values and errors."""

from __future__ import annotations

import numpy as np
import pytest

import numtorch
from numtorch.ops.pointwise import _learned as learned_calls
from numtorch.ops.pointwise import prepared_fast

_x = np.array([[-2.5, -0.0, 0.0, 0.3], [1.7, 3.9, np.nan, -np.inf]], np.float32)
_y = np.array([[0.5, 2.0, -1.0, 0.25], [4.0, -3.0, 1.5, 0.75]], np.float32)
_z = np.array([[1.5, -2.0, 3.0, 0.5], [0.125, 2.0, -4.0, 8.0]], np.float32)

CASES = {
    "clamp_min": lambda x, y, z: numtorch.clamp_min(x, 0.5),
    "clamp_min_zero": lambda x, y, z: numtorch.clamp_min(x, 0.0),
    "clamp_min_negzero": lambda x, y, z: numtorch.clamp_min(x, -0.0),
    "clamp": lambda x, y, z: numtorch.clamp(x, -1, 2),
    "clip_float": lambda x, y, z: numtorch.clip(x, -1.5, 2.5),
    "addcmul": lambda x, y, z: numtorch.addcmul(x, y, z),
    "addcmul_value": lambda x, y, z: numtorch.addcmul(x, y, z, value=0.5),
    "addcdiv": lambda x, y, z: numtorch.addcdiv(x, y, z, value=-2),
    "lerp_scalar": lambda x, y, z: numtorch.lerp(x, y, 0.3),
    "lerp_tensor": lambda x, y, z: numtorch.lerp(x, y, z),
    "nan_to_num": lambda x, y, z: numtorch.nan_to_num(x),
    "nan_to_num_args": lambda x, y, z: numtorch.nan_to_num(x, nan=1.0, posinf=2.0, neginf=-2.0),
    "round_decimals": lambda x, y, z: numtorch.round(x, decimals=2),
    "round_neg_decimals": lambda x, y, z: numtorch.round(y * 100, decimals=-1),
    "logit": lambda x, y, z: numtorch.logit(y.abs() / 5),
    "logit_eps": lambda x, y, z: numtorch.logit(y.abs() / 5, eps=0.1),
    "add_alpha": lambda x, y, z: numtorch.add(x, y, alpha=2),
    "sub_alpha_float": lambda x, y, z: numtorch.sub(x, y, alpha=0.5),
    "pow_scalar": lambda x, y, z: numtorch.pow(y.abs(), 2.5),
    "pow_number_first": lambda x, y, z: numtorch.pow(2.0, y),
    "rsub_number_first": lambda x, y, z: numtorch.sub(3, y, alpha=2),
    "shift_int": lambda x, y, z: numtorch.bitwise_left_shift(y.to(numtorch.int32), 3),
    "shift_tensors": lambda x, y, z: numtorch.bitwise_right_shift(
        z.to(numtorch.int64) * 64, y.abs().to(numtorch.int64)),
}  # fmt: skip


def _args(dtype=np.float32):
    return [numtorch.from_numpy(a.astype(dtype)) for a in (_x, _y, _z)]


def _engines():
    import gc

    from numtorch.ops._pointwise import Pointwise

    return [o for o in gc.get_objects() if issubclass(type(o), Pointwise)]  # type(): no proxy __getattr__


def _learned():
    return [o for o in _engines() if getattr(o, "_prepared", None)]


def _forget():
    # every learned kernel table, emptied in place (the dispatcher's inlined branches hold the
    # same dicts): the first call below then takes the general path, whatever ran before
    for o in _engines():
        for name in ("_prepared", "_sig", "_fast", "_entry", "_fast_scalar", "_uf"):
            getattr(o, name, {}).clear()
    for memo in prepared_fast.MEMOS + learned_calls.MEMOS:  # Note [Learned one-tensor binding calls]
        memo.clear()


@pytest.mark.parametrize("name", list(CASES))
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_repeated_call_matches_general_path(name, dtype):
    f = CASES[name]
    _forget()
    first = f(*_args(dtype))  # the general path, which learns
    assert _learned(), "the call did not learn a prepared signature"
    again = f(*_args(dtype))  # the learned kernel
    assert again.dtype == first.dtype and again.shape == first.shape
    np.testing.assert_array_equal(again.numpy(), first.numpy())
    assert np.array_equal(np.signbit(again.numpy()), np.signbit(first.numpy()))


def test_signed_zero_bounds_are_distinct_keys():
    x = numtorch.tensor([-0.0, 0.0, 1.0, 2.0])
    _forget()
    runs = [(numtorch.clamp_max(x, 0.0).numpy(), numtorch.clamp_max(x, -0.0).numpy()) for _ in range(3)]
    for a, b in runs:  # general, general (a key of its own), learned
        assert not np.signbit(a[2:]).any() and np.signbit(b[2:]).all()


def test_value_checks_still_run_after_learning():
    x = numtorch.tensor([1.0, 2.0, 3.0])
    numtorch.clamp_min(x, 1.0)
    numtorch.clamp_min(x, 1.0)
    for _ in range(2):
        with pytest.raises(RuntimeError, match="value cannot be converted to type float without overflow"):
            numtorch.clamp_min(x, 1e300)
    i = numtorch.tensor([1, 2, 3])
    assert numtorch.pow(i, 2).tolist() == [1, 4, 9]
    assert numtorch.pow(i, 2).tolist() == [1, 4, 9]
    for _ in range(2):
        with pytest.raises(RuntimeError, match="Integers to negative integer powers are not allowed."):
            numtorch.pow(i, -1)
    for _ in range(2):
        with pytest.raises(RuntimeError, match="Integer division with addcdiv is no longer supported"):
            numtorch.addcdiv(i, i, i)


def test_integer_division_by_zero_is_never_learned():
    a, b = numtorch.tensor([4, 6]), numtorch.tensor([2, 3])
    for _ in range(2):
        assert numtorch.div(a, b, rounding_mode="floor").tolist() == [2, 2]
    with pytest.raises(RuntimeError, match="ZeroDivisionError"):
        numtorch.div(a, numtorch.tensor([0, 1]), rounding_mode="floor")


def test_nan_parameter_and_key_bound():
    from numtorch.ops.pointwise import _prepared

    x = numtorch.tensor([float("nan"), 1.0])
    for k in range(2 * _prepared._MAX + 3):  # many distinct keys: the table stays bounded
        assert numtorch.nan_to_num(x, nan=float(k)).tolist() == [float(k), 1.0]
    assert all(len(ew._prepared) <= _prepared._MAX for ew in _learned())
    r = numtorch.nan_to_num(x, nan=float("nan"))
    assert np.isnan(r.numpy()[0])


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("etype", [np.float32, np.float64, np.int64, np.int32, np.uint8])
def test_ldexp_plain_route_is_the_composite_bit_for_bit(dtype, etype):
    # Note [ldexp without the composite's ops]: the recorded call still runs the composite
    rng = np.random.default_rng(11)
    x = (rng.standard_normal((6, 7)) * 10).astype(dtype)
    e = (np.abs(rng.standard_normal((6, 7))) * 20).astype(etype)
    x[0, 0], e[0, 0], x[1, 1] = 0.0, 200, np.nan
    plain = numtorch.ldexp(numtorch.from_numpy(x), numtorch.from_numpy(e))
    recorded = numtorch.ldexp(numtorch.from_numpy(x).requires_grad_(True), numtorch.from_numpy(e))
    assert recorded.grad_fn is not None and plain.grad_fn is None and plain.dtype == recorded.dtype
    np.testing.assert_array_equal(plain.numpy(), recorded.detach().numpy())


def test_ldexp_broadcasts_and_refuses_as_the_composite():
    x = numtorch.ones(3, 4)
    assert numtorch.ldexp(x, numtorch.tensor([0, 1, 2, 3])).tolist() == [[1.0, 2.0, 4.0, 8.0]] * 3
    with pytest.raises(RuntimeError, match=r"The size of tensor a \(4\) must match the size of tensor b \(5\)"):
        numtorch.ldexp(x, numtorch.ones(5))


@pytest.mark.parametrize("name", ["clamp", "addcmul_value", "lerp_scalar", "shift_int", "round_decimals"])
def test_prepared_call_learns_the_compiled_entry(name):
    # Note [Prepared kernel entry]: the third call of a key runs the overload's entry point
    f = CASES[name]
    _forget()
    first = f(*_args())
    f(*_args())
    again = f(*_args())
    entries = [rec[6] for ew in _learned() for rec in ew._prepared.values()]
    assert entries and all(e and e[1] is not None and "Dispatcher" not in type(e[0]).__name__ for e in entries)
    np.testing.assert_array_equal(again.numpy(), first.numpy())


def test_prepared_entry_refuses_a_subclass_array():
    # an ndarray subclass as a tensor's data takes the type-checking dispatcher, same values
    class Sub(np.ndarray):
        pass

    x = numtorch.from_numpy(_x.copy())
    _forget()
    for _ in range(3):
        numtorch.clamp(x, -1, 2)
    y = numtorch.from_numpy(_x.copy())
    y._data = y._data.view(Sub)
    np.testing.assert_array_equal(numtorch.clamp(y, -1, 2).numpy(), np.clip(_x, -1, 2))
