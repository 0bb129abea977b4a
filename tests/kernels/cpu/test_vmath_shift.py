"""Narrow-lane bit shifts (numtorch/kernels/cpu/pointwise/vmath_shift.py, Note [Narrow shifts]):
ATen's results for every count (negative, in range, at and past the width) over the integer
dtypes, through every kernel variant (contiguous, in-place, strided, broadcast rows, scalar)."""

from __future__ import annotations

import numba
import numpy as np
import pytest

import numtorch
from numtorch.kernels import _codegen
from numtorch.kernels.cpu.pointwise.vmath_shift import vlshift, vrshift

DTYPES = [np.uint8, np.int8, np.int16, np.int32, np.int64]


def _aten_shift(a, b, left: bool):
    # c10's shifts: a count < 0 or >= the width gives 0 (left) or the sign fill (right)
    bits = a.dtype.itemsize * 8
    ok = (b.astype(np.int64) >= 0) & (b.astype(np.int64) < bits)
    c = np.where(ok, b, 0).astype(a.dtype)
    if left:
        return np.where(ok, np.left_shift(a, c), 0).astype(a.dtype)
    fill = (
        np.where(a < 0, -1, 0).astype(a.dtype)
        if np.issubdtype(a.dtype, np.signedinteger)
        else np.zeros_like(a)
    )
    return np.where(ok, np.right_shift(a, c), fill).astype(a.dtype)


def _operands(dtype, n=4099):
    rng = np.random.default_rng(7)
    info = np.iinfo(dtype)
    a = rng.integers(info.min, info.max, n, endpoint=True).astype(dtype)
    bits = info.bits
    lo = 0 if info.min == 0 else -bits - 3
    b = rng.integers(lo, min(2 * bits + 3, info.max), n, endpoint=True).astype(dtype)
    b[:8] = np.array([0, 1, bits - 1, bits, bits + 1, info.max, 0, bits - 1]).astype(dtype)
    return a, b


@pytest.mark.parametrize("left", [True, False], ids=["left", "right"])
@pytest.mark.parametrize("dtype", DTYPES, ids=lambda d: np.dtype(d).name)
def test_tensor_shifts_match_aten(dtype, left):
    fn = numtorch.bitwise_left_shift if left else numtorch.bitwise_right_shift
    a, b = _operands(dtype)
    want = _aten_shift(a, b, left)
    got = fn(numtorch.from_numpy(a), numtorch.from_numpy(b)).numpy()
    assert got.dtype == dtype
    np.testing.assert_array_equal(got, want)
    # strided and broadcast-row kernels
    np.testing.assert_array_equal(
        fn(numtorch.from_numpy(a)[::3], numtorch.from_numpy(b)[::3]).numpy(), want[::3]
    )
    rows = fn(numtorch.from_numpy(a[:4000]).reshape(40, 100), numtorch.from_numpy(b[:100])).numpy()
    np.testing.assert_array_equal(rows, _aten_shift(a[:4000].reshape(40, 100), b[:100], left))
    # in place
    x = numtorch.from_numpy(a.copy())
    (x.bitwise_left_shift_ if left else x.bitwise_right_shift_)(numtorch.from_numpy(b))
    np.testing.assert_array_equal(x.numpy(), want)


@pytest.mark.parametrize("left", [True, False], ids=["left", "right"])
@pytest.mark.parametrize("dtype", DTYPES, ids=lambda d: np.dtype(d).name)
def test_scalar_counts_match_aten(dtype, left):
    fn = numtorch.bitwise_left_shift if left else numtorch.bitwise_right_shift
    a, _ = _operands(dtype, 515)
    bits = np.iinfo(dtype).bits
    for s in sorted(
        {0, 1, 3, bits - 1, bits, bits + 1, 2 * bits}
        | ({-1, -bits} if dtype != np.uint8 else set())
    ):
        want = _aten_shift(a, np.full_like(a, s), left)
        np.testing.assert_array_equal(fn(numtorch.from_numpy(a), s).numpy(), want, err_msg=str(s))


def test_generated_shifts_call_the_narrow_versions():
    for name in ("lshift", "rshift"):
        src = _codegen.render_pointwise(["self", "other"], ["bits"], f"{name}(self, other, bits)")
        assert f"v{name}(self, other, bits)" in src and f" {name}(" not in src


@numba.njit
def _lanes_of(a, b, bits):
    return vlshift(a, b, bits), vrshift(a, b, bits)


@pytest.mark.parametrize("dtype, lane", [(np.uint8, "int16"), (np.int8, "int16"), (np.int16, "int32"),
                                         (np.int32, "int64"), (np.int64, "int64")])  # fmt: skip
def test_narrow_operands_shift_in_narrow_lanes(dtype, lane):
    # the int64 form (Numba's << on small ints) ran 8 lanes a vector: 2.5x PyTorch's time
    d = np.dtype(dtype).type
    _lanes_of(d(3), d(2), d(np.iinfo(dtype).bits))
    (sig,) = [
        s for s in _lanes_of.nopython_signatures if s.args[0] == numba.from_dtype(np.dtype(dtype))
    ]
    assert [str(t) for t in sig.return_type] == [lane, lane]
