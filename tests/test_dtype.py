"""numtorch/_dtype.py: the wide unsigned dtypes (Note [Wide unsigned dtypes]), promotion, iinfo."""

from __future__ import annotations

import numpy as np
import pytest

import numtorch

U = (numtorch.uint16, numtorch.uint32, numtorch.uint64)
OTHERS = (numtorch.bool, numtorch.uint8, numtorch.int8, numtorch.int16, numtorch.int32, numtorch.int64,
          numtorch.complex64, numtorch.complex128)  # fmt: skip


@pytest.mark.parametrize("dt", U, ids=str)
def test_wide_unsigned_dtype_attributes(dt):
    bits = np.dtype(dt.name).itemsize * 8
    assert repr(dt) == str(dt) == f"torch.{dt.name}"
    assert dt.itemsize == bits // 8
    assert not dt.is_signed and not dt.is_floating_point and not dt.is_complex
    ii = numtorch.iinfo(dt)
    assert (ii.min, ii.max, ii.bits) == (0, 2**bits - 1, bits)
    assert numtorch.zeros(2, dtype=dt).element_size() == bits // 8


def test_iinfo_repr_prints_like_cpp_floats():
    assert repr(numtorch.iinfo(numtorch.uint16)) == "iinfo(min=0, max=65535, dtype=uint16)"
    assert repr(numtorch.iinfo(numtorch.uint32)) == "iinfo(min=0, max=4.29497e+09, dtype=uint32)"
    assert repr(numtorch.iinfo(numtorch.int64)) == "iinfo(min=-9.22337e+18, max=9.22337e+18, dtype=int64)"


@pytest.mark.parametrize("dt", U, ids=str)
def test_wide_unsigned_promotes_only_with_itself_and_real_floats(dt):
    assert numtorch.promote_types(dt, dt) is dt
    for f in (numtorch.float16, numtorch.float32, numtorch.float64):
        assert numtorch.promote_types(dt, f) is f and numtorch.promote_types(f, dt) is f
    for o in OTHERS + tuple(u for u in U if u is not dt):
        with pytest.raises(RuntimeError, match="Promotion for uint16, uint32, uint64 types is not supported"):
            numtorch.promote_types(dt, o)
    with pytest.raises(RuntimeError, match="attempted to promote UInt16 and Long"):
        numtorch.promote_types(numtorch.uint16, numtorch.int64)


def test_tensor_ops_promote_wide_unsigned_as_torch():
    a = numtorch.tensor([1, 2, 3], dtype=numtorch.uint16)
    assert (a + 1.5).dtype is numtorch.float32
    assert (a * numtorch.tensor(2)).dtype is numtorch.uint16  # a 0-d int64 does not widen it
    with pytest.raises(RuntimeError, match="attempted to promote UInt16 and Long"):
        a == numtorch.tensor([1, 2, 3])


def test_wide_unsigned_creation_and_casts_match_numpy():
    big = numtorch.tensor([2**64 - 1, 5], dtype=numtorch.uint64)
    assert big.tolist() == [2**64 - 1, 5] and big[0].item() == 2**64 - 1
    assert numtorch.tensor([-1, 300], dtype=numtorch.uint16).tolist() == [65535, 300]
    with pytest.raises(RuntimeError, match="value cannot be converted to type uint16 without overflow"):
        numtorch.tensor([70000], dtype=numtorch.uint16)
    with pytest.raises(OverflowError, match="can't convert negative int to unsigned"):
        numtorch.tensor([-1], dtype=numtorch.uint64)
    x = np.array([0, 1, 40000], np.uint16)
    t = numtorch.from_numpy(x)
    assert t.dtype is numtorch.uint16 and t.numpy() is not None
    np.testing.assert_array_equal(t.to(numtorch.float32).numpy(), x.astype(np.float32))
    np.testing.assert_array_equal(numtorch.tensor([1, 2**33 + 5]).to(numtorch.uint32).numpy(), [1, 5])
    z = numtorch.zeros(3, dtype=numtorch.uint32).copy_(numtorch.tensor([1.0, 2.0, 3.0]))
    assert z.dtype is numtorch.uint32 and z.tolist() == [1, 2, 3]
    assert repr(numtorch.tensor([1, 2], dtype=numtorch.uint16)) == "tensor([1, 2], dtype=torch.uint16)"


def test_wide_unsigned_supported_ops_match_numpy():
    x, y = np.array([1, 5, 40000], np.uint16), np.array([3, 2, 7], np.uint16)
    a, b = numtorch.from_numpy(x), numtorch.from_numpy(y)
    np.testing.assert_array_equal((a * b).numpy(), x * y)
    np.testing.assert_array_equal((a & b).numpy(), x & y)
    np.testing.assert_array_equal((a == b).numpy(), x == y)
    np.testing.assert_allclose(a.sqrt().numpy(), np.sqrt(x.astype(np.float32)), rtol=1e-6)
    assert a.sum().item() == int(x.sum()) and a.sum().dtype is numtorch.int64
    np.testing.assert_array_equal(a.sort().values.numpy(), np.sort(x))
    np.testing.assert_array_equal(numtorch.where(a > 2.0, a, b).numpy(), np.where(x > 2, x, y))


@pytest.mark.parametrize(("fn", "kernel"), [
    (lambda a: a + a, "add_stub"), (lambda a: a - 1, "add_stub"), (lambda a: a < a, "lt_cpu"),
    (lambda a: -a, "neg_cpu"), (lambda a: a // a, "div_floor_cpu"), (lambda a: ~a, "bitwise_not_cpu"),
    (lambda a: a.abs(), "abs_cpu"), (lambda a: numtorch.maximum(a, a), "maximum_cpu"),
    (lambda a: a << 1, "lshift_cpu"), (lambda a: a.pow(2), "pow"),
])  # fmt: skip
def test_wide_unsigned_unsupported_elementwise_raise_torchs_error(fn, kernel):
    a = numtorch.tensor([1, 2], dtype=numtorch.uint32)
    before = a.tolist()
    with pytest.raises(NotImplementedError, match=f'^"{kernel}" not implemented for \'UInt32\'$'):
        fn(a)
    assert a.tolist() == before
