"""Regressions from the differential fuzzer's seeds 70-89 (issue 10), each against torch: the
call's result (dtype, shape, values) or its exception (type and text) must be torch's."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import numtorch

torch = pytest.importorskip("torch")


def _outcome(lib, fn):
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            r = fn(lib)
    except Exception as e:  # noqa: BLE001 -- the exception is what is compared
        return ("raises", type(e).__name__, str(e))
    return ("returns", str(r.dtype).split(".")[-1], tuple(r.shape), r.detach().clone().numpy())


def _same_as_torch(fn):
    want, got = _outcome(torch, fn), _outcome(numtorch, fn)
    assert got[:3] == want[:3], f"numtorch {got[:3]}, torch {want[:3]}"
    if want[0] == "returns":
        np.testing.assert_array_equal(got[3], want[3])


@pytest.mark.parametrize("name", ["abs", "absolute"])
@pytest.mark.parametrize("src,out", [("complex128", "complex64"), ("complex64", "complex128"),
                                     ("complex128", "complex128"), ("complex128", "float32")])  # fmt: skip
def test_abs_of_complex_into_another_complex_out_is_refused(name, src, out):
    # seeds 74, 83, 89: a complex out runs complex -> complex, so only the input's own dtype
    def f(T):
        o = T.zeros(3, dtype=getattr(T, out))
        return getattr(T, name)(T.tensor([1 + 2j, -3j, 0.5], dtype=getattr(T, src)), out=o)

    _same_as_torch(f)


@pytest.mark.parametrize("dtype", ["int8", "int16", "int32", "int64"])
def test_lcm_wraps_as_atens_abs_of_the_product(dtype):
    # seed 85: int32 products wrap before the abs, int8/int16 after it (C++ promotes them to int)
    info = np.iinfo(dtype)
    vals = np.array([info.min + 1, info.max, info.max - 1, -3, 3, 7, 60, -100, 0, 1], dtype=np.int64)
    a, b = np.meshgrid(vals, vals)
    _same_as_torch(lambda T: T.lcm(T.tensor(a.ravel().astype(dtype)), T.tensor(b.ravel().astype(dtype))))


@pytest.mark.parametrize("parts,out", [("float64", "complex64"), ("float32", "complex128"), ("float32", "float32"),
                                       ("float32", "complex64")])  # fmt: skip
@pytest.mark.parametrize("n", [0, 2])
def test_complex_out_must_have_the_result_dtype(parts, out, n):
    # seed 85: complex(float64[0], float64[0], out=complex64[0]) was accepted
    _same_as_torch(lambda T: T.complex(T.ones(n, dtype=getattr(T, parts)), T.ones(n, dtype=getattr(T, parts)),
                                       out=T.zeros(0, dtype=getattr(T, out))))  # fmt: skip


_INF3 = [1 + 0j, complex(np.inf, 3.0)]


@pytest.mark.parametrize("call", [
    lambda T: T.addmv(T.tensor(_INF3, dtype=T.complex64), T.zeros(2, 0, dtype=T.complex64), T.zeros(0, dtype=T.complex64)),
    lambda T: T.addmm(T.tensor(_INF3, dtype=T.complex128), T.zeros(2, 0, dtype=T.complex128), T.zeros(0, 2, dtype=T.complex128)),
    lambda T: T.baddbmm(T.tensor(_INF3, dtype=T.complex64), T.zeros(1, 2, 0, dtype=T.complex64), T.zeros(1, 0, 2, dtype=T.complex64)),
    lambda T: T.addbmm(T.tensor(_INF3, dtype=T.complex64), T.zeros(0, 2, 3, dtype=T.complex64), T.zeros(0, 3, 2, dtype=T.complex64)),
    lambda T: T.addmv(T.tensor(_INF3, dtype=T.complex64), T.zeros(2, 0, dtype=T.complex64), T.zeros(0, dtype=T.complex64), beta=2j),
])  # fmt: skip
def test_an_empty_contraction_is_self_times_beta(call):
    # seed 77: ATen's shortcut multiplies self by beta, so (inf+3j) * (1+0j) gives inf+nanj
    _same_as_torch(call)


@pytest.mark.parametrize("dtype", ["bool", "int8", "float32"])
def test_index_add_into_an_empty_2d_self_writes_nothing(dtype):
    # seed 86: NumPy's add.at raised its IndexError text for a (2, 0) self (torch returns self)
    def f(T):
        dt = getattr(T, dtype)
        return T.zeros(2, 0, dtype=dt).expand(2, 0).index_add_(1, T.tensor([0]), T.ones(2, 1, dtype=dt))

    _same_as_torch(f)


@pytest.mark.parametrize("mask", ["uint8", "bool"])
def test_where_wraps_a_negative_integer_into_an_unsigned_result(mask):
    # seed 88: the strided kernel's scalar raised NumPy's OverflowError for -3 into uint8
    _same_as_torch(lambda T: T.where(T.tensor([[[1, 0], [0, 1]], [[7, 9], [0, 0]]], dtype=getattr(T, mask)),
                                     T.tensor([[0, 4], [1, 8]], dtype=T.uint8), -3))  # fmt: skip


_BIG = [[-9223372036854775807, -5, 4, 2, 9223372036854775807, 8, -7, -2, 3]]


@pytest.mark.parametrize("call", [
    lambda T: T.nn.functional.avg_pool1d(T.tensor(_BIG), 1),
    lambda T: T.nn.functional.avg_pool1d(T.tensor(_BIG), 3, padding=1),
    lambda T: T.nn.functional.avg_pool1d(T.tensor([[-7, 0, 7, 0, 5]]), 2),
    lambda T: T.nn.functional.avg_pool2d(T.tensor([[[-7, 0, 7], [0, 5, 4]]]), 2, ceil_mode=True),
    lambda T: T.nn.functional.avg_pool1d(T.tensor([[-7, 0, 7, 0, 5]], dtype=T.int32), 2),
    lambda T: T.nn.functional.avg_pool2d(T.tensor([[[-7, 0, 7, 0, 5]]], dtype=T.uint8), 1),
])  # fmt: skip
def test_integer_avg_pool_divides_as_aten(call):
    # seed 89: int64 windows went through double (-2**63 + 1 came back -2**63); other integer
    # dtypes have no avg_pool2d kernel in torch
    _same_as_torch(call)
