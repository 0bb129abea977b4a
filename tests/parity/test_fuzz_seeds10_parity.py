"""Regressions from the differential fuzzer's seeds 90- (issue 10, session 10), each against torch:
the call's result (dtype, shape, values) or its exception (type and text) must be torch's."""

from __future__ import annotations

import numpy as np
import pytest

import numtorch

from .test_fuzz_seeds_parity import _outcome, _same_as_torch

torch = pytest.importorskip("torch")


@pytest.mark.parametrize("call", [
    lambda T: T.nn.functional.cosine_similarity(T.full((1, 2, 3), 1e30) * T.tensor([1.0, -1.0, 1e-30]),
                                                T.tensor(-2.3), dim=0),
    lambda T: T.linalg.vector_norm(T.full((3, 1), 1e-30), dim=1),
    lambda T: T.linalg.vector_norm(T.full((3, 1), 1e-30, dtype=T.complex64), 2, dim=1),
    lambda T: T.linalg.vector_norm(T.full((3, 1), 1e30), 3, dim=1),
])  # fmt: skip
def test_the_norm_of_one_element_is_its_magnitude(call):
    # seed 93: the float32 square of 1e30 overflowed (of 1e-30 underflowed), so cosine_similarity
    # gave -0.0 where torch gives -1.0
    _same_as_torch(call)


def _index_put_acc(base, index, values):
    def f(T):
        x = base(T)
        x.index_put_(index(T), values(T), accumulate=True)
        return x

    return f


@pytest.mark.parametrize("dtype", ["float32", "int64", "bool", "complex64"])
@pytest.mark.parametrize("case", [
    (lambda T, dt: T.tensor([0]).to(dt).expand(3), lambda T: (T.tensor([0, 1, 1]),), lambda T: T.tensor([1, 1, 2])),
    (lambda T, dt: T.tensor([[0]]).to(dt).expand(3, 2), lambda T: (T.tensor([0, 1]),), lambda T: T.tensor([1, 1])),
    (lambda T, dt: T.tensor([0]).to(dt).expand(3), lambda T: (T.tensor([True, True, False]),), lambda T: T.tensor(1)),
    (lambda T, dt: T.arange(6).to(dt).as_strided((2, 3), (1, 1)), lambda T: (T.tensor([0, 1]), T.tensor([1, 0])), lambda T: T.tensor([1, 1])),
])  # fmt: skip
def test_index_put_accumulate_into_aliased_memory_adds_every_write(case, dtype):
    # known.py's open entry (fuzz seeds 26-29): numtorch accumulated into a copy and wrote it back,
    # so the last aliased element won (1 into index 0 of an expanded [0] gave 0)
    base, index, values = case
    _same_as_torch(_index_put_acc(lambda T: base(T, getattr(T, dtype)), index,
                                  lambda T: values(T).to(getattr(T, dtype))))  # fmt: skip


@pytest.mark.parametrize("self_dtype", ["bool", "int64", "uint8", "float32", "complex64"])
@pytest.mark.parametrize("form", ["out", "inplace", "functional"])
def test_ldexp_refuses_a_bool_exponent_only_for_a_real_floating_self(self_dtype, form):
    # seed 97: out= (and in place) raised torch's "ldexp_cpu_exp" error for any self; torch 2.13
    # raises it only where the functional form does, for a real floating self
    def f(T):
        x, e = T.tensor([1, 0, 3]).to(getattr(T, self_dtype)), T.tensor([True, False, True])
        if form == "out":
            return T.ldexp(x, e, out=T.zeros(3, dtype=T.complex64 if x.is_complex() else T.float64))
        return x.ldexp_(e) if form == "inplace" else T.ldexp(x, e)

    _same_as_torch(f)


@pytest.mark.parametrize("dtype", ["complex64", "complex128", "float64"])
@pytest.mark.parametrize("pivot", [0, complex("inf"), complex("inf+1j"), complex("-infj"), 1e-300])
@pytest.mark.parametrize("left", [True, False])
def test_solve_triangular_with_a_zero_or_infinite_complex_pivot(dtype, pivot, left):
    # a complex zero pivot raised Numba's ZeroDivisionError ('complex division by zero', from
    # lu_solve and inv_ex too); an infinite one gave 0 (Smith's division) where MKL's trsm gives
    # nan+nanj (known.py's solve_triangular entry, now gone)
    def f(T):
        dt = getattr(T, dtype)
        p = pivot if dt.is_complex or isinstance(pivot, float) else abs(pivot)
        A = T.tensor([[p, 1.0], [0.0, 1.0]], dtype=dt)
        return T.linalg.solve_triangular(A, T.tensor([[0.0, 1.0], [1.0, 2.0]], dtype=dt), upper=True, left=left)

    _same_as_torch(f)


_NAN, _INF = float("nan"), float("inf")
_ODD_MATRICES = [[[0.0]], [[1.0, 2.0], [2.0, 4.0]], [[0.0, 0.0], [0.0, 1.0]], [[0.0, 0.0], [0.0, 0.0]],
                 [[_NAN, 1.0], [2.0, 3.0]], [[2.0, 1.0], [_NAN, 3.0]], [[1.0, 0, 0], [_NAN, 1, 0], [5, 0, 1]],
                 [[_INF, 0.0], [_NAN, 1.0]], [[1.0, 2.0], [_INF, 1.0]], [[_INF, 2.0], [_INF, 1.0]]]  # fmt: skip


@pytest.mark.parametrize("dtype", ["float32", "complex128"])
@pytest.mark.parametrize("m", _ODD_MATRICES)
@pytest.mark.parametrize("fn", [
    lambda T, A: T.linalg.inv_ex(A),
    lambda T, A: T.linalg.solve_ex(A, T.ones(A.shape[-1], dtype=A.dtype)),
    lambda T, A: T.linalg.solve_ex(A, T.ones(3, A.shape[-1], dtype=A.dtype), left=False),
    lambda T, A: T.linalg.lu_factor_ex(A),
    lambda T, A: T.linalg.inv(A),
    lambda T, A: T.linalg.slogdet(A),
    lambda T, A: T.linalg.det(A),
])  # fmt: skip
def test_singular_and_non_finite_matrices_follow_getrf_and_getrs(fn, m, dtype):
    # known.py's inv_ex/inv/slogdet entries: a failed inv_ex/solve_ex gave NaN placeholders where
    # torch returns getrs's inf/NaN; the LU pivot skipped a NaN in the first row (idamax keeps it);
    # inv and slogdet of a non-finite matrix took NumPy's LAPACK, which spreads NaN otherwise
    def f(T):
        r = fn(T, T.tensor(m, dtype=getattr(T, dtype)))
        return T.cat([t.reshape(-1).to(T.complex128) for t in r]) if isinstance(r, tuple) else r

    want, got = _outcome(torch, f), _outcome(numtorch, f)
    assert (got[0], got[1].lstrip("_"), *got[2:3]) == (want[0], want[1].lstrip("_"), *want[2:3])  # torch's _LinAlgError
    if want[0] == "returns":
        np.testing.assert_array_equal(got[3], want[3])


@pytest.mark.parametrize("fn", ["std", "var"])
@pytest.mark.parametrize("src", ["float16", "bfloat16", "float32"])
@pytest.mark.parametrize("dst", ["float32", "complex64", "bfloat16"])
@pytest.mark.parametrize("shape,dim", [((3,), 0), ((1, 3), 1), ((2, 3), None), ((2, 3), 1), ((0, 2), 1)])
def test_std_var_out_follows_the_kernel_torch_picks(fn, src, dst, shape, dim):
    # seed 80: var(float16, out=complex128) returned; torch 2.13's std_var_all (a reduction to one
    # element) has no half kernel, and its std_cpu no complex one
    def f(T):
        x = T.arange(float(np.prod(shape))).reshape(shape).to(getattr(T, src))
        r = getattr(T, fn)(x, dim, out=T.zeros(0, dtype=getattr(T, dst)))
        return r.to(T.complex128) if r.dtype == getattr(T, dst) else r  # NumPy has no bfloat16

    want, got = _outcome(torch, f), _outcome(numtorch, f)
    assert got[:3] == want[:3]
    if want[0] == "returns":
        np.testing.assert_allclose(got[3], want[3], rtol=1e-2)


@pytest.mark.parametrize("name", ["amax", "amin"])
@pytest.mark.parametrize("shape,dim", [((0,), (0, 0)), ((0, 2), (1, 0, 0)), ((2,), (0, 0))])
def test_amax_of_an_empty_dim_is_refused_before_duplicate_dims(name, shape, dim):
    # seed 70: torch checks the zero-size dims first (IndexError), then duplicates (RuntimeError)
    _same_as_torch(lambda T: getattr(T.zeros(shape, dtype=T.int64), name)(dim=dim))


@pytest.mark.parametrize("target_shape", [(3,), (2,)])
def test_smooth_l1_loss_broadcasts_before_checking_the_reduction(target_shape):
    # session 9's open item: torch's F.smooth_l1_loss broadcasts (RuntimeError) before it reads
    # the reduction string (ValueError)
    _same_as_torch(lambda T: T.nn.functional.smooth_l1_loss(T.ones(3), T.ones(target_shape), reduction="bad"))


@pytest.mark.parametrize("out_dtype", ["int8", "int64", "bool", "uint8", "float32"])
@pytest.mark.parametrize("shape,dim", [((2, 0), None), ((0,), None), ((2, 0), 0), ((3,), None)])
def test_nansum_of_an_empty_float_input_into_an_integer_out(out_dtype, shape, dim):
    # seed 300: an empty input runs no kernel in torch, so no "nansum_cpu not implemented" error
    _same_as_torch(lambda T: T.nansum(T.ones(shape, dtype=T.float16), dim,
                                      out=T.zeros((), dtype=getattr(T, out_dtype))))  # fmt: skip


@pytest.mark.parametrize("call", [
    lambda T: T.nn.functional.hardtanh(T.zeros(0, 3, dtype=T.uint8), inplace=True),
    lambda T: T.nn.functional.hardtanh(T.zeros(2, dtype=T.uint8)),
    lambda T: T.nn.functional.hardtanh(T.zeros(2, dtype=T.uint8), -0.5, 2.0),
    lambda T: T.nn.functional.hardtanh(T.tensor([0, 5], dtype=T.uint8), 0.0, 2.0),
    lambda T: T.nn.functional.softmin(T.tensor(7, dtype=T.uint8), dim=5),
    lambda T: T.nn.functional.softmax(T.tensor(7, dtype=T.int32), dim=0),
    lambda T: T.mode(T.tensor([1j]), 5),
])  # fmt: skip
def test_check_order_of_integer_nn_inputs(call):
    # seeds 401-402 (the nn generator draws int32/uint8 since session 10): hardtanh of an (empty)
    # uint8 input with a negative limit was accepted; softmin of a 0-d input and mode checked the
    # dtype before the dim (seed 302)
    _same_as_torch(call)


@pytest.mark.parametrize("training", [True, False])
@pytest.mark.parametrize("layout", ["slice", "contig", "channels_last"])
@pytest.mark.parametrize("stats", [True, False])
@pytest.mark.parametrize("dtype", ["int32", "float32"])
def test_batch_norm_refusals_in_torchs_order(training, layout, stats, dtype):
    # seed 400: a strided integer input in training reaches torch's composite (mean() refuses it);
    # missing running stats in eval are refused before the dtype, in torch's words
    def f(T):
        dt = getattr(T, dtype)
        x = T.ones(2, 3, 4, 8, dtype=dt)
        x = x[..., ::2] if layout == "slice" else (x.contiguous(memory_format=T.channels_last) if layout == "channels_last" else x)
        s = (T.zeros(3), T.ones(3)) if stats else (None, None)
        return T.nn.functional.batch_norm(x, *s, training=training)

    _same_as_torch(f)


@pytest.mark.parametrize("name", ["cumsum", "cumprod"])
@pytest.mark.parametrize("dtype,out", [("bool", "float32"), ("float64", "float32"), ("bool", "bool"), (None, "int64")])
def test_cumsum_checks_out_dtype_before_the_kernel(name, dtype, out):
    # seed 89: dtype=bool with a float out raised the bool kernel's NotImplementedError first
    _same_as_torch(lambda T: getattr(T, name)(T.ones(2, 3), 0, dtype=dtype and getattr(T, dtype),
                                              out=T.zeros(0, dtype=getattr(T, out))))  # fmt: skip


@pytest.mark.parametrize("shape,dim", [((2, 3, 4), 0), ((2, 3, 4), 1), ((3, 300), 1), ((2, 3, 4), -1)])
@pytest.mark.parametrize("dtype", ["float64", "float32"])
def test_log_softmax_subtracts_the_max_before_the_log_sum(shape, dim, dtype):
    # the long profile (session 10): two equal values of -2**63 + 1 gave 0 where torch gives
    # log(1/2): x - (max + log(sum)) rounds log(sum) away next to a huge max; ATen computes
    # (x - max) - log(sum) (the column and long-row kernels; the short-row one already did)
    a = np.zeros(shape, np.int64)
    a.reshape(-1)[:] = np.arange(a.size) % 7
    idx = [slice(None)] * len(shape)
    idx[dim] = slice(0, 2)
    a[tuple(idx)] = -(2**63) + 1
    _same_as_torch_close(lambda T: T.nn.functional.log_softmax(T.tensor(a), dim=dim, dtype=getattr(T, dtype)))


def _same_as_torch_close(fn):
    want, got = _outcome(torch, fn), _outcome(numtorch, fn)
    assert got[:3] == want[:3]
    np.testing.assert_allclose(got[3], want[3], rtol=1e-6, atol=1e-6)
