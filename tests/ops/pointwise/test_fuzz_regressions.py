"""Pointwise regressions found by differential fuzzing against PyTorch (issue 10); expected
values are PyTorch 2.13's."""

import math

import numpy as np
import pytest

import numtorch

nt = numtorch


@pytest.mark.parametrize("a,b,want", [
    (nt.float16, nt.int64, nt.float16), (nt.int8, nt.float16, nt.float16),
    (nt.int32, nt.int32, nt.float32), (nt.uint8, nt.int8, nt.float32),
    (nt.float16, nt.float32, nt.float32), (nt.complex64, nt.float64, nt.complex128),
])  # fmt: skip
def test_ldexp_result_dtype(a, b, want):
    assert nt.ldexp(nt.ones(2, dtype=a), nt.ones(2, dtype=b)).dtype is want


def test_ldexp_float16_computes_wide():
    h = nt.float16
    assert nt.ldexp(nt.tensor([0.0], dtype=h), nt.tensor([200])).tolist() == [0.0]
    assert nt.ldexp(nt.tensor([2**-20], dtype=h), nt.tensor([30])).tolist() == [1024.0]
    r = nt.ldexp(nt.tensor([60000.0], dtype=h), nt.tensor([-30]))
    assert r.tolist() == [float(np.float16(60000.0 * 2.0**-30))]
    assert math.isinf(nt.ldexp(nt.tensor([1.0], dtype=h), nt.tensor([20])).item())


# C99 Annex G special values (glibc, which PyTorch's CPU kernels call; NumPy agrees): infinities,
# NaN and overflow of one part must not spread NaN to the other part
_SPECIAL = [0.0, -0.0, 1.0, -2.5, math.inf, -math.inf, math.nan, 1e308, 800.0, -800.0, 30.0, 1000.0]
_CGRID = np.array([complex(a, b) for a in _SPECIAL for b in _SPECIAL])
_CFUNCS = {"exp": np.exp, "exp2": np.exp2, "sqrt": np.sqrt, "sin": np.sin, "cos": np.cos,
           "tan": np.tan, "sinh": np.sinh, "cosh": np.cosh, "tanh": np.tanh, "asin": np.arcsin,
           "acos": np.arccos, "atan": np.arctan, "asinh": np.arcsinh, "acosh": np.arccosh,
           "atanh": np.arctanh}  # fmt: skip


@pytest.mark.parametrize("dtype", ["complex128", "complex64"])
@pytest.mark.parametrize("name", sorted(_CFUNCS))
def test_complex_functions_follow_annex_g_at_special_values(name, dtype):
    with np.errstate(all="ignore"):
        z = _CGRID.astype(dtype)  # 1e308 is inf in complex64
        want = _CFUNCS[name](z)
    got = getattr(numtorch, name)(numtorch.tensor(z)).numpy()
    assert got.dtype == want.dtype
    rtol = 1e-12 if dtype == "complex128" else 2e-5
    if name == "exp2" and dtype == "complex64":
        # NumPy and PyTorch round y ln2 to float32 first, so cis() of a large y differs
        keep = np.abs(z.imag) < 100
        got, want = got[keep], want[keep]
    for part in ("real", "imag"):
        g, w = getattr(got, part), getattr(want, part)
        np.testing.assert_allclose(g, w, rtol=rtol, atol=1e-300, err_msg=part)


def test_sgn_of_an_infinite_part_keeps_the_finite_quotient():
    # sgn(z) = z / |z| part by part (PyTorch): sgn(i inf) = 0 + i nan, not nan + i nan
    got = numtorch.sgn(numtorch.tensor([complex(0.0, math.inf), complex(-0.0, 0.0)])).numpy()
    np.testing.assert_array_equal(got.real, [0.0, 0.0])
    assert np.isnan(got.imag[0]) and got.imag[1] == 0.0


def test_complex_sigmoid_of_a_large_negative_real_part_is_zero():
    x = numtorch.tensor([complex(-800.0, 0.0)], dtype=numtorch.complex128)
    got = numtorch.sigmoid(x).numpy()
    np.testing.assert_array_equal(got, [0j])


_ZS = np.array([1 + 1j, -1 + 0j, 0j, -0.5 - 2j, 3 - 0.25j])


@pytest.mark.parametrize("dtype", ["complex64", "complex128"])
def test_angle_of_complex_input_is_real(dtype):
    got = numtorch.angle(numtorch.tensor(_ZS.astype(dtype)))
    assert got.dtype == (numtorch.float32 if dtype == "complex64" else numtorch.float64)
    np.testing.assert_allclose(got.numpy(), np.angle(_ZS), rtol=1e-6)
    assert numtorch.angle(numtorch.tensor([1, -2])).dtype == numtorch.float32


def test_angle_of_complex_input_gradchecks():
    x = numtorch.tensor(_ZS[[0, 3, 4]], requires_grad=True)  # off the branch cut and 0
    assert numtorch.autograd.gradcheck(numtorch.angle, (x,))


def test_sinc_of_complex_input():
    got = numtorch.sinc(numtorch.tensor(_ZS)).numpy()
    np.testing.assert_allclose(got, np.sinc(_ZS), rtol=1e-12, atol=1e-15)
    x = numtorch.tensor(_ZS[[0, 3, 4]], requires_grad=True)
    assert numtorch.autograd.gradcheck(numtorch.sinc, (x,))


def test_clamp_with_a_tensor_bound_and_a_number_bound():
    # PyTorch's parser: only the Scalar overload fits, which takes a 0-d tensor without grad
    x = numtorch.tensor([1.0, 5.0])
    np.testing.assert_array_equal(numtorch.clamp(x, numtorch.tensor(2.0), 3.0).numpy(), [2.0, 3.0])
    np.testing.assert_array_equal(numtorch.clip(x, 2, numtorch.tensor(3)).numpy(), [2.0, 3.0])
    prefix = "clamp() received an invalid combination of arguments - got ("
    for lo, hi in ((numtorch.tensor([2.0, 2.0]), 3.0), (2.0, numtorch.tensor([3.0, 3.0])),
                   (numtorch.tensor(2.0, requires_grad=True), 3.0)):  # fmt: skip
        with pytest.raises(TypeError) as info:
            numtorch.clamp(x, lo, hi)
        assert str(info.value).startswith(prefix)
    np.testing.assert_array_equal(x.numpy(), [1.0, 5.0])


@pytest.mark.parametrize("name", ["signbit", "isposinf", "isneginf"])
def test_sign_tests_refuse_a_non_bool_out(name):
    out = numtorch.zeros(2, dtype=numtorch.int64)
    with pytest.raises(RuntimeError, match=f"^{name} does not support non-boolean outputs.$"):
        getattr(numtorch, name)(numtorch.tensor([1.0, -2.0]), out=out)
    np.testing.assert_array_equal(out.numpy(), [0, 0])


@pytest.mark.parametrize("name", ["addcmul", "addcdiv"])
def test_addc_complex_value_on_real_tensors(name):
    fn, e = getattr(numtorch, name), numtorch.ones(2)
    np.testing.assert_array_equal(fn(e, e, e, value=1 + 0j).numpy(), [2.0, 2.0])  # imag 0 converts
    for self_, ctype in ((e, "float"), (numtorch.zeros(0), "float")):
        with pytest.raises(RuntimeError, match=f"^value cannot be converted to type {ctype} without overflow$"):
            fn(self_, self_, numtorch.tensor(3), value=1j)
    if name == "addcmul":
        i = numtorch.tensor(3)
        with pytest.raises(RuntimeError, match="^value cannot be converted to type int64_t without overflow$"):
            fn(numtorch.ones(2, dtype=numtorch.int64), i, i, value=1j)


def test_conj_is_a_view_that_writes_back_conjugated():
    # Note [Conjugate views]: values and writes as PyTorch 2.13's conjugate bit gives them
    x = nt.tensor([1 + 2j, 3 - 1j])
    c = x.conj()
    assert c.is_conj() and c._base is x and c.data_ptr() == x.data_ptr()
    assert c.view(-1).is_conj() and c[0].is_conj() and not c.conj().is_conj() and not (c + 0).is_conj()
    c.view(-1)[0] = 5
    c[1:].mul_(2)
    np.testing.assert_array_equal(x.numpy(), np.conj([5, 2 * (3 + 1j)]))
    x.add_(1)
    assert c.tolist() == [6 - 0j, 7 + 2j] and c.sum().item() == 13 + 2j and c.real.tolist() == [6, 7]
    assert c.imag.tolist() == [0, 2] and nt.conj_physical(c).tolist() == [6, 7 - 2j]
    r = c.resolve_conj()
    assert not r.is_conj() and r.tolist() == c.tolist() and r.data_ptr() != x.data_ptr()
    with pytest.raises(RuntimeError, match="^Can't call numpy\\(\\) on Tensor that has conjugate bit set"):
        c.numpy()
    with pytest.raises(RuntimeError, match="^view_as_real doesn't work on unresolved conjugated tensors"):
        nt.view_as_real(c)
    real = nt.tensor([1.0])
    assert real.conj() is real and not real.conj().is_conj()


def test_conj_view_gradient():
    z = nt.tensor([1 + 1j, 2 - 3j], dtype=nt.complex128, requires_grad=True)
    y = z.conj()
    assert type(y.grad_fn).__name__ == "ConjBackward0"
    (y * nt.tensor([1j, 2], dtype=nt.complex128)).abs().sum().backward()
    w = np.conj([1 + 1j, 2 - 3j]) * [1j, 2]
    np.testing.assert_allclose(z.grad.numpy(), np.conj(w / abs(w) * np.conj([1j, 2])))
    assert nt.autograd.gradcheck(lambda t: (t.conj() * t).real.sum(), (z,))


def test_where_out_takes_two_tensors_and_their_promoted_dtype():
    x = nt.tensor([1.0, 2.0])
    with pytest.raises(TypeError, match="^where\\(\\): argument 'other' \\(position 3\\) must be Tensor, not float$"):
        nt.where(x > 1, x, 2.5, out=nt.zeros(2))
    for dt, name in ((nt.float64, "Double"), (nt.int8, "Char")):
        with pytest.raises(RuntimeError, match=f"^Expected out type to be Float but got {name}$"):
            nt.where(x > 1, x, x, out=nt.zeros(2, dtype=dt))
    out = nt.zeros(2)
    assert nt.where(x > 1, x, nt.tensor(0.0), out=out) is out and out.tolist() == [0.0, 2.0]


def test_float_power_and_abs_out_dtypes():
    with pytest.raises(RuntimeError, match="^the output given to float_power has dtype Float but the operation's result requires dtype Double$"):
        nt.float_power(nt.ones(2), 2, out=nt.zeros(2))
    with pytest.raises(RuntimeError, match="^Found dtype Double but expected Float$"):
        nt.abs(nt.ones(2), out=nt.zeros(2, dtype=nt.float64))
    with pytest.raises(RuntimeError, match="^Found dtype Float but expected Long$"):
        nt.abs(nt.tensor([-1]), out=nt.zeros(1))
    out = nt.zeros(1, dtype=nt.float64)  # complex input: any real out it casts to
    assert nt.abs(nt.tensor([3 + 4j], dtype=nt.complex64), out=out).tolist() == [5.0]


def test_threshold_casts_float_arguments_to_integer_input():
    x = nt.tensor([6, -5, 1])
    assert nt.nn.functional.threshold(x, 0, 2.0).tolist() == [6, 2, 1]
    assert nt.nn.functional.threshold(x, -0.5, -2.7).tolist() == [6, -2, 1]
    with pytest.raises(RuntimeError, match="^value cannot be converted to type int64_t without overflow$"):
        nt.nn.functional.threshold(x, 0, math.nan)
    with pytest.raises(RuntimeError, match="^value cannot be converted to type uint8_t without overflow$"):
        nt.nn.functional.threshold(nt.tensor([1], dtype=nt.uint8), 1.5, 300.7)


def test_size_refuses_a_bool_dim():
    with pytest.raises(TypeError, match="^size\\(\\): argument 'dim' \\(position 1\\) must be int, not bool$"):
        nt.zeros(2, 3).size(True)


def test_python_number_of_a_complex_tensor_needs_a_zero_imaginary_part():
    assert float(nt.tensor(2.5 + 0j)) == 2.5 and int(nt.tensor(2.5 + 0j)) == 2
    for conv, ctype in ((float, "double"), (int, "int64_t")):
        with pytest.raises(RuntimeError, match=f"^value cannot be converted to type {ctype} without overflow$"):
            conv(nt.tensor(1 + 2j))


@pytest.mark.parametrize("x,out,msg", [(numtorch.tensor([1, 2], dtype=numtorch.int32), numtorch.int16, "Short.*Int"),
                                       (numtorch.tensor([1.0, math.nan]), numtorch.float64, "Double.*Float")])  # fmt: skip
def test_nan_to_num_out_must_have_the_input_dtype(x, out, msg):
    o = numtorch.full((2,), 7, dtype=out)
    with pytest.raises(RuntimeError, match=f"^nan_to_num: dtype of out: {msg}$"):
        numtorch.nan_to_num(x, out=o)
    assert o.tolist() == [7, 7]


@pytest.mark.parametrize("args,msg", [
    ((numtorch.ones(2, dtype=numtorch.int64), numtorch.ones(3, dtype=numtorch.bool), 0.5),
     "expected dtype long int for `end` but got dtype bool"),  # before the shapes and the kernel's dtype
    ((numtorch.ones(2, dtype=numtorch.int32), numtorch.ones(2, dtype=numtorch.int32), numtorch.ones(2, dtype=numtorch.int8)),
     "expected dtype int for `weight` but got dtype signed char"),
])  # fmt: skip
def test_lerp_compares_dtypes_before_anything_else(args, msg):
    with pytest.raises(RuntimeError, match=f"^{msg}$"):
        numtorch.lerp(*args)
    with pytest.raises(NotImplementedError, match="^\"lerp_kernel_scalar\" not implemented for 'Long'$"):
        numtorch.lerp(numtorch.ones(2, dtype=numtorch.int64), numtorch.ones(2, dtype=numtorch.int64), 0.5)


def test_logcumsumexp_checks_the_dim_before_the_dtype():
    with pytest.raises(IndexError, match=r"^Dimension out of range \(expected to be in range of \[-2, 1\], but got 5\)$"):
        numtorch.ones(2, 3, dtype=numtorch.int32).logcumsumexp(5)


@pytest.mark.parametrize("call,exc,msg", [
    (lambda: numtorch.ones(3, dtype=numtorch.complex64).expand(2, 3).clamp_max_(1),
     NotImplementedError, "clamp is not supported for complex types"),  # before the overlap check
    (lambda: numtorch.clamp(numtorch.ones(3), min=1j), RuntimeError, "value cannot be converted to type double without overflow"),
    (lambda: numtorch.clamp_min(numtorch.ones(3), 2 + 1j), NotImplementedError, "clamp is not supported for complex types"),
    (lambda: numtorch.tensor([[3, 4]]).clip_(min=1j), RuntimeError,
     "result type ComplexFloat can't be cast to the desired output type long int"),
])  # fmt: skip
def test_clamp_refuses_complex_before_out_and_overlap_checks(call, exc, msg):
    with pytest.raises(exc, match=f"^{msg}$"):
        call()


def test_clamp_converts_a_real_complex_bound_to_double():
    assert numtorch.clamp(numtorch.ones(3), min=2 + 0j).tolist() == [2.0, 2.0, 2.0]


@pytest.mark.parametrize("name, second", [("pow", "exponent"), ("remainder", "other"), ("bitwise_and", "other"),
                                          ("float_power", "exponent"), ("xlogy", "other")])  # fmt: skip
def test_a_scalar_self_overload_wants_a_tensor_second_operand(name, second):
    # torch.pow(2, 3): the (Number self, Tensor exponent) overload matches no two numbers
    fn = getattr(numtorch, name)
    with pytest.raises(TypeError) as e:
        fn(2, 3.5)
    assert str(e.value).startswith(
        f"{name}() received an invalid combination of arguments - got (int, float), but expected one of:\n"
        f" * (Tensor input, Tensor {second}, *, Tensor out = None)\n * (Number self, Tensor {second}"
    )
    assert fn(2, numtorch.tensor([3])).shape == (1,)


def test_add_family_still_takes_two_numbers():
    # PyTorch's parser wraps numbers as tensors for add, sub, mul and div
    assert numtorch.add(2, 3).item() == 5 and numtorch.mul(2, 3).item() == 6
    assert numtorch.div(3, 2).item() == 1.5 and numtorch.sub(2, 3).item() == -1


@pytest.mark.parametrize("fn, dt", [
    (lambda x, o: nt.clamp_min(x, 1j, out=o), nt.bool), (lambda x, o: nt.clamp_min(x, 1j, out=o), nt.float32),
    (lambda x, o: nt.clamp_max(x, 2 + 1j, out=o), nt.int64), (lambda x, o: nt.clip(x, min=None, max=1j, out=o), nt.bool),
])  # fmt: skip
def test_clamp_refuses_a_complex_number_bound_before_the_out_dtype_check(fn, dt):
    # clamp_min's meta function refuses it before TensorIterator compares out='s dtype
    x, o = nt.ones(2, dtype=dt), nt.zeros(2, dtype=dt)
    with pytest.raises(NotImplementedError, match="^clamp is not supported for complex types$"):
        fn(x, o)
    assert o.tolist() == [0, 0]


def test_clamp_with_a_complex_tensor_bound_checks_the_out_dtype_first():
    with pytest.raises(RuntimeError, match="^result type ComplexFloat can't be cast to the desired output type Float$"):
        nt.clamp(nt.ones(2), nt.tensor(1j), out=nt.empty(2))


def test_sign_refuses_complex_before_the_out_dtype_check():
    with pytest.raises(NotImplementedError, match="^Unlike NumPy, torch.sign is not intended to support complex"):
        nt.sign(nt.ones(2, dtype=nt.complex128), out=nt.ones(2, dtype=nt.int16))


@pytest.mark.parametrize("call, exc, msg", [
    (lambda: nt.relu(nt.ones(2), out=nt.ones(2)), TypeError, r"relu\(\) got an unexpected keyword argument 'out'"),
    (lambda: nt.ldexp(nt.ones(2), nt.ones(2, dtype=nt.bool)), NotImplementedError, "\"ldexp_cpu_exp\" not implemented for 'Bool'"),
    (lambda: nt.ones(2).ldexp_(nt.ones(2, dtype=nt.bool)), NotImplementedError, "\"ldexp_cpu_exp\" not implemented for 'Bool'"),
    # a real floating self reaches the bool exponent kernel whatever the sizes (fuzz seed 29)
    (lambda: nt.ldexp(nt.empty(0), nt.empty(0, dtype=nt.bool)), NotImplementedError, "\"ldexp_cpu_exp\" not implemented for 'Bool'"),
    (lambda: nt.ldexp(nt.tensor(1.0), nt.empty(0, dtype=nt.bool)), NotImplementedError, "\"ldexp_cpu_exp\" not implemented for 'Bool'"),
    (lambda: nt.aminmax(nt.ones(3, 4, dtype=nt.complex64), dim=5), IndexError,
     r"Dimension out of range \(expected to be in range of \[-2, 1\], but got 5\)"),
    (lambda: nt.nn.functional.cross_entropy(nt.tensor(0.5), nt.tensor(1.0), label_smoothing=0.1), IndexError,
     "Dimension specified as 1 but tensor has no dimensions"),
])  # fmt: skip
def test_argument_refusals_as_torch(call, exc, msg):
    with pytest.raises(exc, match=f"^{msg}$"):
        call()
    assert nt.ldexp(nt.ones(2, dtype=nt.bool), nt.ones(2, dtype=nt.int64)).tolist() == [2.0, 2.0]
    assert nt.ldexp(nt.tensor([1]), nt.tensor([True])).tolist() == [2.0]  # an integer self: no refusal
    assert nt.ldexp(nt.tensor([1 + 1j]), nt.tensor([True])).tolist() == [2 + 2j]


@pytest.mark.parametrize("name, exc, msg", [("ceil_", NotImplementedError, "ceil is not supported for complex inputs"),
                                            ("abs_", RuntimeError, "In-place abs is not supported for complex tensors.")])  # fmt: skip
def test_inplace_unary_refuses_complex_before_the_overlap_check(name, exc, msg):
    x = nt.ones(2, 1, dtype=nt.complex64).expand(2, 3)
    with pytest.raises(exc, match=f"^{msg}$"):
        getattr(x, name)()


def test_ldexp_with_a_bool_exponent_and_an_empty_result_runs_no_kernel():
    assert nt.ldexp(nt.ones(0, dtype=nt.int32), nt.ones(1, dtype=nt.bool)).shape == (0,)


def test_ldexp_in_place_and_out_refuse_a_bool_exponent_even_when_empty():
    with pytest.raises(NotImplementedError, match="^\"ldexp_cpu_exp\" not implemented for 'Bool'$"):
        nt.ones(0).ldexp_(nt.ones(0, dtype=nt.bool))
    with pytest.raises(NotImplementedError, match="^\"ldexp_cpu_exp\" not implemented for 'Bool'$"):
        nt.ldexp(nt.ones(0), nt.ones(1, dtype=nt.bool), out=nt.ones(0))


_INF, _NAN = math.inf, math.nan


@pytest.mark.parametrize("vals,want", [
    ([1 + 1j, 2 + 2j, 3 - 1j], [1 + 1j, 2.21357008 + 1.74728862j, 2.49800781 - 0.70675462j]),
    # a tie in real part: the new element is the max, so the branch of the log follows it
    ([1 + 3j, 1 - 3j, 1 + 3j], [1 + 3j, 1.68308927 - math.pi * 1j, 2.08968196 - 3.18907246j]),
    ([complex(-_INF, 1), complex(-_INF, 2), 1 + 2j, complex(_INF, 1), complex(_INF, 3), complex(_NAN, 0)],
     [complex(-_INF, 0), complex(-_INF, 0), 1 + 2j, complex(_INF, 1), complex(_INF, _NAN), complex(_NAN, _NAN)]),
    ([complex(-_INF, _NAN), 1], [complex(_NAN, _NAN)] * 2),
])  # fmt: skip
def test_logcumsumexp_complex(vals, want):
    r = nt.logcumsumexp(nt.tensor(vals, dtype=nt.complex128), 0)
    assert r.dtype is nt.complex128
    np.testing.assert_allclose(r.numpy(), np.array(want), rtol=1e-7)


def test_logcumsumexp_complex_grad():
    x = nt.tensor(np.array([[0.3 + 1j, -1 - 0.5j, 2 + 0.1j], [1j, 0.5, -2j]]), requires_grad=True)
    assert nt.autograd.gradcheck(lambda t: nt.logcumsumexp(t, 1), (x,))


def test_conj_physical_inplace_real_expanded_is_a_noop():
    # torch returns a real self before its written-to-memory check
    x = nt.zeros(1).expand(3)
    assert x.conj_physical_() is x
    assert x._version == 1  # the in-place layer above the kernel still bumps it, as torch
    with nt.inference_mode():
        frozen = nt.zeros(2)
    with pytest.raises(RuntimeError, match="Inplace update to inference tensor outside InferenceMode"):
        frozen.conj_physical_()
    with pytest.raises(RuntimeError, match="more than one element of the written-to tensor"):
        nt.zeros(1, dtype=nt.complex64).expand(3).conj_physical_()
    y = nt.tensor([1 + 2j])
    y.conj_physical_()
    assert y.tolist() == [1 - 2j]


@pytest.mark.parametrize("call", [
    lambda: nt.tensor([1.0, 2.0]).clamp_max_(1j),
    lambda: nt.tensor([1, 2]).clamp_min_(1 + 0j),
    lambda: nt.zeros(1).expand(3).clamp_max_(1j),  # before the written-to-memory check
])  # fmt: skip
def test_clamp_min_max_inplace_complex_bound(call):
    with pytest.raises(NotImplementedError, match="clamp is not supported for complex types"):
        call()


def test_clamp_inplace_complex_bound_keeps_cast_check_first():
    # clamp_ (both bounds' overload) makes the in-place cast check before refusing complex
    with pytest.raises(RuntimeError, match="result type ComplexFloat can't be cast to the desired output type long int"):
        nt.tensor([1, 2]).clamp_(min=1 + 0j)


@pytest.mark.parametrize("kw,msg", [
    ({"min": nt.ones(3, dtype=nt.bool), "max": nt.ones(3, dtype=nt.complex128)}, "\"clamp_cpu\" not implemented for 'ComplexDouble'"),
    ({"max": nt.ones(3, dtype=nt.complex128)}, "\"minimum_cpu\" not implemented for 'ComplexDouble'"),
    ({"min": nt.ones(3, dtype=nt.complex64)}, "\"maximum_cpu\" not implemented for 'ComplexFloat'"),
])  # fmt: skip
def test_clamp_tensor_complex_bound_is_the_kernels_refusal(kw, msg):
    with pytest.raises(NotImplementedError, match=msg):
        nt.clamp(nt.ones(3, dtype=nt.float16), **kw)
    # seed 37: the broadcast comes first
    bad = {k: v[:2] if k == "min" or len(kw) == 1 else v for k, v in kw.items()}
    with pytest.raises(RuntimeError, match="must match the size of tensor b"):
        nt.clamp(nt.ones(3, dtype=nt.float16), **bad)


@pytest.mark.parametrize("call", [
    lambda: nt.ones(2, 0, dtype=nt.float16).lcm_(nt.ones(1, 2, 0)),  # seed 37: before lcm's dtype refusal
    lambda: nt.ones(2, 3, dtype=nt.int64).add_(nt.ones(1, 2, 3)),  # before the cast check
])  # fmt: skip
def test_inplace_output_shape_checked_first(call):
    with pytest.raises(RuntimeError, match=r"output with shape \[2, \d\] doesn't match the broadcast shape \[1, 2, \d\]"):
        call()
