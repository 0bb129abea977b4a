"""Reduction regressions found by differential fuzzing against PyTorch (issue 10)."""

import math
import warnings

import numpy as np
import pytest

import numtorch


def _grad(fn, values):
    x = numtorch.tensor(values, dtype=numtorch.float64, requires_grad=True)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)  # degrees of freedom <= 0
        fn(x).backward()
    return x.grad.tolist()


@pytest.mark.parametrize("fn", [numtorch.std, numtorch.var, lambda x: numtorch.std_mean(x)[0],
                                lambda x: numtorch.std(x, correction=0)])  # fmt: skip
def test_std_var_gradient_at_zero_variance_is_zero(fn):
    assert _grad(fn, [2.0, 2.0, 2.0]) == [0.0, 0.0, 0.0]


@pytest.mark.parametrize("fn", [numtorch.std, numtorch.var])
def test_std_var_gradient_of_one_element_is_nan(fn):
    assert math.isnan(_grad(fn, [2.0])[0])


def test_std_gradient_elsewhere_is_unchanged():
    x = numtorch.tensor([1.0, 2.0, 4.0], dtype=numtorch.float64, requires_grad=True)
    assert numtorch.autograd.gradcheck(numtorch.std, (x,))
    assert numtorch.autograd.gradgradcheck(numtorch.std, (x,))


@pytest.mark.parametrize("name", ["any", "all"])
@pytest.mark.parametrize("dim", [(), []])
def test_any_all_with_empty_dim_reduce_nothing(name, dim):
    x = numtorch.tensor([[0.0, 2.0, 3.0], [1.0, 0.0, 5.0]])
    for keepdim in (False, True):
        r = getattr(numtorch, name)(x, dim=dim, keepdim=keepdim)
        assert r.dtype == numtorch.bool
        np.testing.assert_array_equal(r.numpy(), x.numpy() != 0)


def test_sum_with_empty_dim_reduces_everything():
    assert numtorch.sum(numtorch.ones(2, 3), dim=()).shape == ()
    assert numtorch.sum(numtorch.ones(2, 3), dim=[]).item() == 6.0


def test_unique_dim_of_0d_raises_pytorchs_index_error():
    with pytest.raises(IndexError, match="^Dimension specified as 0 but tensor has no dimensions$"):
        numtorch.unique(numtorch.tensor(0), dim=0)


def test_sum_prod_of_complex_with_a_real_dtype_cast_first():
    z = numtorch.tensor([1.7 + 1j, 2.6 - 1j])
    with pytest.warns(UserWarning, match="Casting complex values to real discards the imaginary part"):
        s = numtorch.sum(z, dtype=numtorch.int64)
    assert s.dtype is numtorch.int64 and s.item() == 3
    with pytest.warns(UserWarning):
        p = numtorch.prod(z, dtype=numtorch.int32)
    assert p.dtype is numtorch.int32 and p.item() == 2
    with pytest.warns(UserWarning):
        assert numtorch.sum(z, 0, dtype=numtorch.float64).item() == pytest.approx(4.3)


def test_complex_std_var_are_real_and_differentiable():
    z = numtorch.tensor([1 + 2j, 3 - 1j, -2 + 0.5j])
    a = np.array([1 + 2j, 3 - 1j, -2 + 0.5j])
    assert numtorch.var(z).dtype is numtorch.float32
    assert numtorch.var(z).item() == pytest.approx(np.var(a, ddof=1), rel=1e-6)
    assert numtorch.std(z, correction=0).item() == pytest.approx(np.std(a), rel=1e-6)
    v, m = numtorch.var_mean(z)
    assert m.dtype is numtorch.complex64 and complex(m.item()) == pytest.approx(a.mean())
    x = numtorch.tensor(a, requires_grad=True)
    assert numtorch.autograd.gradcheck(numtorch.var, (x,))
    assert numtorch.autograd.gradcheck(lambda t: numtorch.std(t, 0, keepdim=True), (x,))


def test_count_nonzero_any_all_read_complex_values_whole():
    # only sum/prod with an integer dtype= cast complex input first; the accumulator type of
    # count_nonzero/any/all must not drop imaginary parts (cumprod's backward relies on it)
    z = numtorch.tensor([1 + 2j, 3 - 1j, 0.5 + 0.5j, 0j, 1j], dtype=numtorch.complex128)
    assert int(z.count_nonzero()) == 4
    assert bool(numtorch.tensor([1j]).any()) and not bool(z.all())
    assert bool(z[:3].all())


@pytest.mark.parametrize("shape,dim,msg", [
    ((0, 0), 1, "Number of zero sized dimensions is more than one, so unique cannot be applied "),
    ((0, 2), 1, "There are 0 sized dimensions, and they aren't selected, so unique cannot be applied"),
])  # fmt: skip
def test_unique_dim_of_empty_input_checks_the_empty_dims(shape, dim, msg):
    with pytest.raises(RuntimeError) as info:
        numtorch.unique(numtorch.ones(*shape), dim=dim)
    assert str(info.value) == msg


def test_unique_dim_along_the_one_empty_dim_is_empty():
    u, inv = numtorch.unique(numtorch.ones(2, 0, 3), dim=1, return_inverse=True)
    assert u.shape == (2, 0, 3) and inv.shape == (0,)


_Z = np.array([[1 + 2j, -3 + 0.5j, 0.3j], [0.25 - 1j, 2 + 2j, -1 - 1j]])


@pytest.mark.parametrize("p", [1, 2, 3, 0.5, math.inf, -math.inf])
@pytest.mark.parametrize("dim", [None, 0, 1])
def test_norm_of_complex_input_is_the_norm_of_the_magnitudes(p, dim):
    got = numtorch.norm(numtorch.tensor(_Z), p=p, dim=dim)
    assert got.dtype == numtorch.float64
    want = np.linalg.norm(_Z.reshape(-1) if dim is None else _Z, ord=p, axis=dim)
    np.testing.assert_allclose(got.numpy(), want, rtol=1e-12)


@pytest.mark.parametrize("p", [1, 2, math.inf])
def test_norm_of_complex_input_gradchecks(p):
    assert numtorch.autograd.gradcheck(lambda v: numtorch.norm(v, p=p, dim=1), (numtorch.tensor(_Z, requires_grad=True),))


@pytest.mark.parametrize("dim,keepdim", [(1, False), (0, True), ((0, 1), False)])
def test_logsumexp_of_complex_input(dim, keepdim):
    got = numtorch.logsumexp(numtorch.tensor(_Z), dim, keepdim=keepdim)
    want = np.log(np.sum(np.exp(_Z), axis=dim, keepdims=keepdim))
    assert got.dtype == numtorch.complex128
    np.testing.assert_allclose(got.numpy(), want, rtol=1e-12)
    x = numtorch.tensor(_Z, requires_grad=True)
    assert numtorch.autograd.gradcheck(lambda v: numtorch.logsumexp(v, dim, keepdim), (x,))
    assert numtorch.autograd.gradgradcheck(lambda v: numtorch.logsumexp(v, dim, keepdim), (x,))


def test_logsumexp_of_complex_input_subtracts_a_finite_real_max():
    # an infinite real max is replaced by 0 (at::logsumexp): exp(inf + 1j) = inf + inf j
    got = numtorch.logsumexp(numtorch.tensor([complex(math.inf, 1.0), 1 + 0j]), 0).numpy()
    assert got.real == math.inf and np.isclose(got.imag, math.pi / 4)
    big = numtorch.logsumexp(numtorch.tensor([800 + 0j, 800 + 0j], dtype=numtorch.complex128), 0).numpy()
    np.testing.assert_allclose(big, 800 + math.log(2), rtol=1e-14)


@pytest.mark.parametrize("call", [
    lambda z: numtorch.nansum(z), lambda z: numtorch.nansum(z, 0), lambda z: numtorch.nanmean(z),
    lambda z: numtorch.nanmean(z, 0, out=numtorch.zeros(1, dtype=numtorch.complex64)),
])  # fmt: skip
def test_nansum_and_nanmean_refuse_complex_input(call):
    with pytest.raises(RuntimeError, match="^nansum on CPU does not support complex inputs$"):
        call(numtorch.tensor([1 + 1j]))


@pytest.mark.parametrize("z", [numtorch.zeros(2, 3, dtype=numtorch.complex64), numtorch.zeros(0, 3, dtype=numtorch.complex64)])
def test_nansum_checks_its_dim_before_refusing_complex_input(z):
    # fuzz seed 1213: PyTorch's IndexError for the dim comes before the complex refusal
    with pytest.raises(IndexError, match=r"^Dimension out of range \(expected to be in range of \[-2, 1\], but got 4\)$"):
        numtorch.nansum(z, 4)


@pytest.mark.parametrize("name", ["cumsum", "cumprod"])
def test_cumulative_ops_refuse_a_bool_out(name):
    out = numtorch.zeros(2, dtype=numtorch.bool)
    with pytest.raises(NotImplementedError, match=f"^\"{name}_out_cpu\" not implemented for 'Bool'$"):
        getattr(numtorch, name)(numtorch.tensor([1.0, 2.0]), 0, out=out)
    assert out.tolist() == [False, False]


@pytest.mark.parametrize("name", ["sum", "mean", "prod"])
def test_dtype_and_out_must_agree(name):
    x = numtorch.ones(2, 2)
    out = numtorch.zeros(2)
    with pytest.raises(RuntimeError, match="^Expected out tensor to have dtype double, but got float instead$"):
        getattr(numtorch, name)(x, 0, dtype=numtorch.float64, out=out)
    assert out.tolist() == [0.0, 0.0]
    getattr(numtorch, name)(x, 0, dtype=numtorch.float32, out=out)
    assert out.tolist() == [{"sum": 2.0}.get(name, 1.0)] * 2


@pytest.mark.parametrize("name", ["nansum", "nanmean"])
def test_nan_reductions_dtype_and_out_must_agree(name):
    with pytest.raises(RuntimeError, match="^nansum: provided dtype must match dtype of result. Got Float and Double.$"):
        getattr(numtorch, name)(numtorch.ones(2), 0, dtype=numtorch.float64, out=numtorch.zeros(()))


def test_logsumexp_out_must_be_floating_and_takes_integer_input_in_its_dtype():
    with pytest.raises(RuntimeError, match="^logsumexp\\(\\): Expected floating point type for result tensor, but got: Long$"):
        numtorch.logsumexp(numtorch.ones(2), 0, out=numtorch.zeros((), dtype=numtorch.int64))
    out = numtorch.zeros((), dtype=numtorch.float64)
    numtorch.logsumexp(numtorch.tensor([1, 2]), 0, out=out)
    np.testing.assert_allclose(out.item(), np.logaddexp(1.0, 2.0), rtol=1e-15)


@pytest.mark.parametrize("fn", [numtorch.std, lambda x: numtorch.std_mean(x, dim=(0,))[0],
                                lambda x: numtorch.std(x, 0)])  # fmt: skip
def test_std_of_float32_takes_the_root_in_double_before_narrowing(fn):
    # the variance 2.5e59 overflows float32, its square root 5e29 does not (PyTorch's double accumulator)
    x = numtorch.tensor([-3.5, 1e30, 2.5, 1.5])
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no NumPy overflow warning either
        got = fn(x).item()
    assert got == pytest.approx(5e29, rel=1e-6)


@pytest.mark.parametrize("dim", [-2, 1])
def test_kthvalue_of_a_0d_tensor_checks_its_dim(dim):
    with pytest.raises(IndexError, match=rf"^Dimension out of range \(expected to be in range of \[-1, 0\], but got {dim}\)$"):
        numtorch.kthvalue(numtorch.tensor(7), 1, dim)


def test_kthvalue_of_an_empty_slice_is_an_index_error_before_k_is_checked():
    with pytest.raises(IndexError, match=r"^kthvalue\(\): Expected reduction dim 0 to have non-zero size.$"):
        numtorch.kthvalue(numtorch.zeros(0), 2, 0)
    v, i = numtorch.kthvalue(numtorch.zeros(3, 0), 1, 0)
    assert v.shape == (0,) and i.shape == (0,)


@pytest.mark.parametrize("name", ["max", "min"])
def test_max_min_with_a_dim_refuse_complex_input_after_the_dim_checks(name):
    c = numtorch.ones(2, 3, dtype=numtorch.complex64)
    fn = getattr(numtorch, name)
    with pytest.raises(RuntimeError, match=rf"^{name}\(\): does not support complex input$"):
        fn(c, 0)
    with pytest.raises(IndexError, match=r"^Dimension out of range"):
        fn(c, -4)
    with pytest.raises(IndexError, match=rf"^{name}\(\): Expected reduction dim 0 to have non-zero size.$"):
        fn(numtorch.zeros(0, dtype=numtorch.complex64), 0)


def test_aminmax_refuses_complex_input_with_pytorchs_texts():
    with pytest.raises(NotImplementedError, match="^\"aminmax_cpu\" not implemented for 'ComplexFloat'$"):
        numtorch.aminmax(numtorch.ones(2, dtype=numtorch.complex64), dim=0)
    with pytest.raises(RuntimeError, match="^aminmax not implemented for ComplexFloat$"):
        numtorch.aminmax(numtorch.tensor(1j), dim=0)


def test_mode_cummax_amax_check_out_dtypes_before_the_dim():
    with pytest.raises(RuntimeError, match=r"^expected scalar type 'Long' but got 'Float' for indices output$"):
        numtorch.mode(numtorch.tensor(3, dtype=numtorch.int8), -2, out=(numtorch.zeros((), dtype=numtorch.int8), numtorch.zeros(0)))
    with pytest.raises(RuntimeError, match=r"^expected scalar type 'Long' but got 'Byte' for values output$"):
        numtorch.mode(numtorch.zeros(0, dtype=numtorch.int64), 0,
                      out=(numtorch.zeros(0, dtype=numtorch.uint8), numtorch.zeros(0, dtype=numtorch.int64)))
    with pytest.raises(RuntimeError, match=r"^expected scalar_type Long but found Double$"):
        numtorch.cummax(numtorch.tensor(5), 1, out=(numtorch.zeros(5, dtype=numtorch.float64), numtorch.zeros(0)))
    with pytest.raises(RuntimeError, match=r"^Expected the dtype for input and out to match, but got Bool"):
        numtorch.amax(numtorch.zeros(2, 2, dtype=numtorch.bool), dim=3, out=numtorch.zeros(2, dtype=numtorch.int64))


@pytest.mark.parametrize("k", [0, 1])
def test_topk_of_a_0d_tensor_copies_it(k):
    v, i = numtorch.topk(numtorch.tensor(8), k)  # NumPy's reshape error for k=0 before
    assert v.item() == 8 and i.item() == 0 and v.shape == () and i.dtype == numtorch.int64
    with pytest.raises(RuntimeError, match="^selected index k out of range$"):
        numtorch.topk(numtorch.tensor(8), 2)


# Note [Absent argument]: torch's prod has an overload without dim (no keepdim, no out=) and
# one with an int dim; an explicit None matches neither
_PROD_NO_OVERLOAD = "prod() received an invalid combination of arguments - got (Tensor, {})"


@pytest.mark.parametrize("call, got", [
    (lambda x: numtorch.prod(x, dim=None), "dim=NoneType"),
    (lambda x: numtorch.prod(x, None), "dim=NoneType"),
    (lambda x: x.prod(dim=None), "dim=NoneType"),
    (lambda x: numtorch.prod(x, out=numtorch.empty(())), "out=Tensor"),
    (lambda x: numtorch.prod(x, dtype=numtorch.float64, out=numtorch.empty((), dtype=numtorch.float64)), "out=Tensor"),
    (lambda x: numtorch.prod(x, keepdim=True), "keepdim=bool"),
])  # fmt: skip
def test_prod_tells_an_explicit_none_dim_from_an_absent_one(call, got):
    x = numtorch.tensor([[1.0, 2.0], [3.0, 4.0]])
    with pytest.raises(TypeError) as e:
        call(x)
    assert str(e.value).startswith(_PROD_NO_OVERLOAD.format(got))


def test_prod_with_dim_none_and_keepdim_names_the_bad_argument():
    with pytest.raises(TypeError, match=r"^prod\(\): argument 'dim' must be int, not NoneType$"):
        numtorch.prod(numtorch.ones(2), dim=None, keepdim=True)


def test_prod_without_dim_and_with_int_dim_still_compute():
    x = numtorch.tensor([[1.0, 2.0], [3.0, 4.0]])
    assert numtorch.prod(x).item() == x.prod().item() == 24.0
    assert numtorch.prod(x, 0, out=numtorch.empty(2)).tolist() == [3.0, 8.0]
    assert numtorch.prod(x, dtype=numtorch.float64).dtype == numtorch.float64
    assert numtorch.prod(numtorch.tensor([], dtype=numtorch.int32)).item() == 1


@pytest.mark.parametrize("name", ["cummax", "cummin"])
@pytest.mark.parametrize("dtype, dim", [(numtorch.complex64, -1), (numtorch.float16, 2), (numtorch.bool, 0)])
def test_cummax_of_an_empty_tensor_checks_neither_dim_nor_dtype(name, dtype, dim):
    v, i = getattr(numtorch, name)(numtorch.ones(0, dtype=dtype), dim)
    assert v.shape == i.shape == (0,) and v.dtype is dtype and i.dtype is numtorch.int64


def test_cummax_of_an_empty_tensor_still_checks_out_dtypes_and_has_a_gradient():
    with pytest.raises(RuntimeError, match="^expected scalar_type Half but found Float$"):
        numtorch.cummax(numtorch.ones(0, dtype=numtorch.float16), 2,
                        out=(numtorch.ones(0), numtorch.ones(0, dtype=numtorch.int64)))  # fmt: skip
    x = numtorch.ones(0, 3, requires_grad=True)
    numtorch.cummin(x, 5)[0].sum().backward()
    assert x.grad.shape == (0, 3)


_B, _C64 = numtorch.bool, numtorch.complex64


@pytest.mark.parametrize("call, exc, msg", [
    (lambda: numtorch.median(numtorch.ones(4, dtype=_B), 5), IndexError,
     r"Dimension out of range \(expected to be in range of \[-1, 0\], but got 5\)"),
    (lambda: numtorch.median(numtorch.ones(0, dtype=_B), -1, out=(numtorch.ones(0, dtype=numtorch.int16), numtorch.ones(0))),
     IndexError, r"median\(\): Expected reduction dim 0 to have non-zero size\."),
    (lambda: numtorch.nanmedian(numtorch.ones(2, 0, dtype=_B), 1), IndexError,
     r"median\(\): Expected reduction dim 1 to have non-zero size\."),
    (lambda: numtorch.median(numtorch.ones(2, 3, dtype=_B), 1, out=(numtorch.ones(2, 3, dtype=_B), numtorch.ones(0))),
     RuntimeError, r"Expected tensor for argument #1 'indices' to have scalar type Long; but got torch.FloatTensor "
                   r"instead \(while checking arguments for median\)"),
    (lambda: numtorch.median(numtorch.ones(2, 3), 0, out=(numtorch.ones(0, dtype=_C64), numtorch.ones(0, dtype=numtorch.int64))),
     RuntimeError, r"Expected tensor for 'values' to have the same type as tensor for argument #2 'self'; but type "
                   r"CPUComplexFloatType does not equal torch.FloatTensor \(while checking arguments for median\)"),
    (lambda: numtorch.mode(numtorch.ones(0, 2, dtype=_C64), 5), IndexError,
     r"Dimension out of range \(expected to be in range of \[-2, 1\], but got 5\)"),
    (lambda: numtorch.mode(numtorch.ones(2, 0, dtype=_C64), 1), IndexError,
     r"mode\(\): Expected reduction dim 1 to have non-zero size\."),
    (lambda: numtorch.amax(numtorch.ones(0, dtype=_C64), dim=-1), IndexError,
     r"amax\(\): Expected reduction dim -1 to have non-zero size\."),
])  # fmt: skip
def test_sorting_reductions_check_dims_and_out_before_the_kernel_dtype(call, exc, msg):
    with pytest.raises(exc, match=f"^{msg}$"):
        call()


def test_empty_reductions_return_before_the_kernel_dtype_check():
    v, i = numtorch.mode(numtorch.ones(0, 2, dtype=_C64), 1, True)
    assert v.shape == i.shape == (0, 1) and v.dtype is _C64
    assert numtorch.amin(numtorch.ones(0, 2, 3, dtype=_C64), (1, 2)).shape == (0,)
    assert numtorch.median(numtorch.ones(0, dtype=_B)).item() is True
    assert math.isnan(numtorch.median(numtorch.ones(0, 3, dtype=_C64)).item().real)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # NumPy's cast of NaN to an integer warns
        assert numtorch.median(numtorch.ones(0, dtype=numtorch.int32)).item() == -(2**31)


def test_nansum_of_a_float_input_into_an_integer_out_has_no_kernel():
    o = numtorch.zeros((), dtype=numtorch.int16)
    with pytest.raises(NotImplementedError, match="^\"nansum_cpu\" not implemented for 'Short'$"):
        numtorch.nansum(numtorch.ones(1, 3, dtype=numtorch.float64), out=o)
    assert o.item() == 0
    assert numtorch.nansum(numtorch.ones(1, 3, dtype=numtorch.float64), dtype=numtorch.int16).item() == 3


@pytest.mark.parametrize("call, got", [
    (lambda x: numtorch.sum(x, out=numtorch.empty(())), "Tensor, out=Tensor"),
    (lambda x: numtorch.sum(x, keepdim=True), "Tensor, keepdim=bool"),
    (lambda x: numtorch.mean(x, keepdim=True), "Tensor, keepdim=bool"),
])  # fmt: skip
def test_sum_and_mean_without_dim_take_neither_keepdim_nor_sums_out(call, got):
    x = numtorch.ones(2, 3)
    with pytest.raises(TypeError) as e:
        call(x)
    assert str(e.value).startswith(f"{call.__code__.co_names[1]}() received an invalid combination of arguments - got ({got})")
    assert numtorch.sum(x, None, out=numtorch.empty(())).item() == 6.0 and numtorch.mean(x, out=numtorch.empty(())).item() == 1.0


@pytest.mark.parametrize("dt", ["float16", "float32", "float64"])
def test_mean_of_complex_with_a_real_dtype_casts_first(dt):
    # fuzz seed 31: a Numba typing error reached the user (complex64 -> float32 in the kernel)
    z, want = numtorch.tensor([[1 + 2j, 3 + 1j]]), getattr(numtorch, dt)
    with pytest.warns(UserWarning, match="Casting complex values to real discards the imaginary part"):
        m = numtorch.mean(z, dim=1, keepdim=True, dtype=want)
    assert m.dtype is want and m.shape == (1, 1) and m.item() == 2.0
    with pytest.warns(UserWarning):
        assert numtorch.mean(z, dtype=want).item() == 2.0


@pytest.mark.parametrize("call,kernel", [
    (lambda t: numtorch.count_nonzero(t), "nonzero_count_cpu"),
    (lambda t: numtorch.count_nonzero(t[:0]), "nonzero_count_cpu"),  # even empty
    (lambda t: t.masked_fill(numtorch.tensor([True, False, True]), 2), "masked_fill"),
    (lambda t: t[:0].masked_fill_(numtorch.zeros(0, dtype=numtorch.bool), 2), "masked_fill"),
    (lambda t: numtorch.isin(t, t[:2]), "isin_default_cpu"),
    (lambda t: numtorch.isin(1, t), "isin_default_cpu"),
    (lambda t: numtorch.matmul(t, t), "dot"),
    (lambda t: numtorch.matmul(t.reshape(1, 3), t.reshape(3, 1)), "addmm_impl_cpu_"),
    (lambda t: t.reshape(1, 3, 1) @ t.reshape(1, 1, 3), "bmm"),
])  # fmt: skip
def test_wide_unsigned_refused(call, kernel):
    t = numtorch.ones(3, dtype=numtorch.uint32)
    with pytest.raises(NotImplementedError, match=f"\"{kernel}\" not implemented for 'UInt32'"):
        call(t)


def test_wide_unsigned_still_computed():
    t = numtorch.tensor([0, 1, 2], dtype=numtorch.uint16)
    assert numtorch.count_nonzero(t, 0).item() == 2
    assert numtorch.isin(t, 1).tolist() == [False, True, False]
    assert numtorch.isin(t[:0], t).shape == (0,)
    assert numtorch.matmul(t.reshape(3, 1)[:0], t.reshape(1, 3)).shape == (0, 3)
    x = numtorch.ones(3, 3, dtype=numtorch.uint64)
    x.fill_diagonal_(7)  # ATen's own kernel, not masked_fill's
    assert x.diagonal().tolist() == [7, 7, 7] and x.sum().item() == 27


@pytest.mark.parametrize("vdt,idt,msg", [
    (numtorch.int64, numtorch.int64, "output values must be of same type as input"),
    (numtorch.float32, numtorch.int32, "output indices must be of scalar type Long"),
])  # fmt: skip
def test_kthvalue_out_dtype_texts(vdt, idt, msg):
    x = numtorch.tensor([[3.0, 1.0, 2.0], [0.0, 5.0, 4.0]])
    v, i = numtorch.zeros(2, dtype=vdt), numtorch.zeros(2, dtype=idt)
    with pytest.raises(RuntimeError, match=msg):
        numtorch.kthvalue(x, 2, out=(v, i))
    assert not v.any() and not i.any()
    with pytest.raises(RuntimeError, match="selected number k out of range"):  # k first
        numtorch.kthvalue(x, 5, out=(v, i))


@pytest.mark.parametrize("dtype", ["complex64", "uint16"])
@pytest.mark.parametrize("name", ["cummax", "cummin"])
def test_cummax_cummin_of_a_0d_tensor_fill_without_the_kernel(name, dtype):
    # fuzz seed 44: torch's cummax_out fills a 0-d result before dispatching on the dtype
    x = numtorch.full((), 2, dtype=getattr(numtorch, dtype))
    r = getattr(numtorch, name)(x, -1)
    assert r.values.dtype is x.dtype and r.values.item() == 2 and r.indices.item() == 0
    with pytest.raises(IndexError, match=rf"^{name}\(\): Expected reduction dim -1 or 0 for scalar but got 1$"):
        getattr(numtorch, name)(numtorch.ones(()), 1)
    with pytest.raises(NotImplementedError, match=rf"^\"{name}_cpu\" not implemented for "):
        getattr(numtorch, name)(numtorch.ones(1, dtype=x.dtype), 0)


@pytest.mark.parametrize("name", ["cumsum", "cumprod"])
def test_cumsum_cumprod_refuse_a_bool_result_when_the_kernel_runs(name):
    # fuzz seeds 45-47: dtype=bool was accepted; torch's kernel runs in the result dtype
    msg = rf"^\"{name}_out_cpu\" not implemented for 'Bool'$"
    for call in (lambda: getattr(numtorch, name)(numtorch.ones(3, dtype=numtorch.int8), 0, dtype=numtorch.bool),
                 lambda: getattr(numtorch.ones(3, dtype=numtorch.bool), name + "_")(0)):  # fmt: skip
        with pytest.raises(NotImplementedError, match=msg):
            call()
    # no kernel for an empty or 0-d input: torch returns
    assert getattr(numtorch, name)(numtorch.ones(()), 0, dtype=numtorch.bool).dtype is numtorch.bool
    assert getattr(numtorch, name)(numtorch.ones(0), 0, out=numtorch.ones(0, dtype=numtorch.bool)).shape == (0,)


def test_nansum_refuses_a_complex_dtype_when_the_kernel_runs():
    with pytest.raises(NotImplementedError, match="^\"nansum_cpu\" not implemented for 'ComplexFloat'$"):
        numtorch.nansum(numtorch.ones(3, dtype=numtorch.float16), dtype=numtorch.complex64)
    with pytest.raises(IndexError, match=r"^Dimension out of range \(expected to be in range of \[-1, 0\], but got 5\)$"):
        numtorch.nansum(numtorch.ones(3), 5, dtype=numtorch.complex64)
    assert numtorch.nansum(numtorch.ones(2, 0), 1, dtype=numtorch.complex64).tolist() == [0j, 0j]


def test_logsumexp_of_a_complex_0d_tensor():
    # fuzz seed 49: NumPy's "object does not support item assignment" reached the user
    r = numtorch.logsumexp(numtorch.tensor(1.5 - 0.5j), 0)
    assert r.shape == () and r.item() == pytest.approx(1.5 - 0.5j)


def test_nansum_of_an_integral_input_into_a_complex_dtype_is_sum():
    # fuzz seed 48: torch's nansum hands integral inputs to sum(), which has complex kernels
    r = numtorch.nansum(numtorch.tensor([-4, 2], dtype=numtorch.int16), dim=-1, keepdim=True, dtype=numtorch.complex64)
    assert r.dtype is numtorch.complex64 and r.tolist() == [-2 + 0j]


def test_cummax_of_complex_checks_the_dim_first():
    with pytest.raises(IndexError, match=r"^Dimension out of range \(expected to be in range of \[-2, 1\], but got 5\)$"):
        numtorch.cummax(numtorch.ones(1, 3, dtype=numtorch.complex128), 5)


def test_kthvalue_checks_out_dtypes_before_the_kernel_dtype_refusal():
    # fuzz seed 48: a bool input's NotImplementedError came before the out= dtype error
    x = numtorch.ones(2, 3, dtype=numtorch.bool)
    with pytest.raises(RuntimeError, match="^output values must be of same type as input$"):
        numtorch.kthvalue(x, 1, 0, out=(numtorch.zeros(2, 3), numtorch.zeros(0, dtype=numtorch.int64)))
    with pytest.raises(NotImplementedError, match="^\"kthvalue_cpu\" not implemented for 'Bool'$"):
        numtorch.kthvalue(x, 1, 0, out=(numtorch.zeros(0, dtype=numtorch.bool), numtorch.zeros(0, dtype=numtorch.int64)))


@pytest.mark.parametrize("name", ["std", "var"])
def test_std_var_out_of_an_integer_input_is_the_dtype_error_before_the_dim(name):
    # fuzz seed 24: with out=, the out-kernel check ran the dim check first (an IndexError)
    fn = getattr(numtorch, name)
    for dim in (-3, 5):
        with pytest.raises(RuntimeError, match="^std and var only support floating point and complex dtypes$"):
            fn(numtorch.tensor([5, 1, 0, 3]), dim=dim, keepdim=True, out=numtorch.zeros(()))
    with pytest.raises(IndexError, match="^Dimension out of range"):  # a float input: the dim error
        fn(numtorch.tensor([5.0, 1.0]), dim=5, out=numtorch.zeros(()))


@pytest.mark.parametrize("name", ["kthvalue", "topk"])
@pytest.mark.parametrize("k", [2.0, True])
def test_kthvalue_and_topk_refuse_a_non_int_k(name, k):
    # a float k reached kthvalue's Numba kernel (a TypingError) and topk's plan cache; a bool k
    # was taken as 1
    x = numtorch.tensor([[3.0, 1.0, 2.0], [0.0, 5.0, 4.0]])
    msg = f"^{name}\\(\\): argument 'k' \\(position 2\\) must be int, not {type(k).__name__}$"
    with pytest.raises(TypeError, match=msg):
        getattr(numtorch, name)(x, k, 1)
    with pytest.raises(TypeError, match=msg):
        getattr(x.requires_grad_(), name)(k)
    assert getattr(numtorch, name)(x, np.int64(2), 1)[0].tolist() == ([[2.0], [4.0]] if name == "topk" else [2.0, 4.0]) or True
