"""Factory regressions found by differential fuzzing against PyTorch (issue 10)."""

import re

import numpy as np

import pytest

import numtorch


@pytest.mark.parametrize("data,exc", [([[1, 2], [3]], ValueError), ([[1, [2]], [3, 4]], TypeError)])
def test_ragged_list_error_does_not_chain_numpys(data, exc):
    with pytest.raises(exc) as info:
        numtorch.tensor(data)
    assert info.value.__context__ is None and info.value.__cause__ is None


def test_poisson_refuses_a_nan_rate():
    with pytest.raises(RuntimeError, match="^invalid Poisson rate, expected rate to be non-negative$"):
        numtorch.poisson(numtorch.tensor([float("nan"), 1.0]))


@pytest.mark.parametrize(
    "real,imag,msg",
    [
        (numtorch.tensor([7]), 1, "complex(): argument 'imag' (position 2) must be Tensor, not int"),
        (numtorch.tensor([1.0]), 2.5, "complex(): argument 'imag' (position 2) must be Tensor, not float"),
        (1.0, numtorch.tensor([1.0]), "complex(): argument 'real' (position 1) must be Tensor, not float"),
    ],
)
def test_complex_refuses_a_python_number_part(real, imag, msg):
    with pytest.raises(TypeError) as info:
        numtorch.complex(real, imag)
    assert str(info.value) == msg


@pytest.mark.parametrize("sample", [lambda a: a.uniform_(), lambda a: a.normal_(), lambda a: a.random_(0, 5),
                                    lambda a: a.bernoulli_(0.5), lambda a: a.exponential_()])  # fmt: skip
def test_in_place_samplers_refuse_repeated_elements(sample):
    a = numtorch.zeros(1, 2).expand(3, 2)
    with pytest.raises(RuntimeError, match="^unsupported operation: more than one element of the written-to tensor"):
        sample(a)
    assert not a.any()


@pytest.mark.parametrize("dtype,name", [(numtorch.bool, "Bool"), (numtorch.complex64, "ComplexFloat")])
@pytest.mark.parametrize("step", [0.5, 0])
def test_range_refuses_bool_and_complex_before_checking_the_step(dtype, name, step):
    with pytest.warns(UserWarning, match="torch.range is deprecated"):
        with pytest.raises(NotImplementedError, match=f"^\"range_cpu\" not implemented for '{name}'$"):
            numtorch.range(0, 1, step, dtype=dtype)


@pytest.mark.parametrize("fn", [lambda: numtorch.linspace(0.0, 2.5, 0, dtype=numtorch.bool),
                                lambda: numtorch.linspace(-1.5, 300, 0, out=numtorch.zeros(0, dtype=numtorch.uint8)),
                                lambda: numtorch.logspace(0, 10, 0, dtype=numtorch.bool)])  # fmt: skip
def test_linspace_logspace_of_no_steps_check_nothing(fn):
    assert fn().shape == (0,)


def test_linspace_logspace_of_one_step_fill_a_bool_and_refuse_more():
    assert numtorch.linspace(0, 1, 1, dtype=numtorch.bool).tolist() == [False]
    assert numtorch.logspace(0, 10, 1, dtype=numtorch.bool).tolist() == [True]  # fill_(10 ** 0)
    with pytest.raises(NotImplementedError, match="^\"logspace_cpu\" not implemented for 'Bool'$"):
        numtorch.logspace(0, 10, 3, dtype=numtorch.bool)
    with pytest.raises(RuntimeError, match="^number of steps must be non-negative$"):
        numtorch.linspace(0, 1, -1, dtype=numtorch.bool)


@pytest.mark.parametrize("fn", [lambda: numtorch.randn(2, 0, dtype=numtorch.bool),
                                lambda: numtorch.randn_like(numtorch.zeros(0, dtype=numtorch.int32)),
                                lambda: numtorch.empty(0, dtype=numtorch.int64).normal_(),
                                lambda: numtorch.empty(0, dtype=numtorch.int64).exponential_(),
                                lambda: numtorch.normal(numtorch.zeros(0, dtype=numtorch.int32), 1.0)])  # fmt: skip
def test_normal_samplers_of_an_empty_result_skip_the_dtype_check(fn):
    assert fn().numel() == 0


def test_uniform_and_nonempty_normal_samplers_still_check_the_dtype():
    with pytest.raises(NotImplementedError, match="^\"check_uniform_bounds\" not implemented for 'Long'$"):
        numtorch.rand(0, dtype=numtorch.int64)
    with pytest.raises(NotImplementedError, match="^\"normal_kernel_cpu\" not implemented for 'Bool'$"):
        numtorch.randn(2, dtype=numtorch.bool)


@pytest.mark.parametrize("fn,sizes", [(lambda: numtorch.randn(2, 2**62), "[2, 4611686018427387904]"),
                                      (lambda: numtorch.rand(2, 2**62, dtype=numtorch.int32), "[2, 4611686018427387904]"),
                                      (lambda: numtorch.randint(0, 5, (2, 2**62)), "[2, 4611686018427387904]"),
                                      (lambda: numtorch.randperm(2**62), "[4611686018427387904]"),
                                      (lambda: numtorch.rand(2**61, 2), "[2305843009213693952, 2]")])  # fmt: skip
def test_random_factories_refuse_a_size_whose_bytes_overflow_before_the_dtype_check(fn, sizes):
    with pytest.raises(RuntimeError, match=f"^Storage size calculation overflowed with sizes={re.escape(sizes)}$"):
        fn()


@pytest.mark.parametrize("call", [lambda: numtorch.randint(0, 5, (2,), dtype=numtorch.complex64),
                                  lambda: numtorch.randint(5, (0,), dtype=numtorch.complex128),
                                  lambda: numtorch.empty(2, dtype=numtorch.complex64).random_(0, 5)])  # fmt: skip
def test_random_integers_with_bounds_refuse_complex_in_the_bounds_check(call):
    with pytest.raises(RuntimeError, match="^check_random_bounds handles only integral, floating-point and boolean types$"):
        call()


def test_random_without_bounds_refuses_complex_in_the_kernel():
    with pytest.raises(NotImplementedError, match="^\"random_kernel_cpu\" not implemented for 'ComplexFloat'$"):
        numtorch.empty(2, dtype=numtorch.complex64).random_()


@pytest.mark.parametrize("call, exc, msg", [
    (lambda: numtorch.range(5, dtype=numtorch.bool), TypeError, 'range\\(\\) missing 1 required positional arguments: "end"'),
    (lambda: numtorch.polar(numtorch.ones(2), numtorch.ones(2), out=numtorch.ones(2)), RuntimeError,
     "Expected object of scalar type ComplexFloat but got scalar type Float for argument 'out'"),
    (lambda: numtorch.complex(numtorch.ones(2, 1, 3), numtorch.ones(3, 2, 4)), RuntimeError,
     "The size of tensor a \\(\\d\\) must match the size of tensor b \\(\\d\\) at non-singleton dimension \\d"),
])  # fmt: skip
def test_factory_argument_errors_as_torch(call, exc, msg):
    with pytest.raises(exc, match=f"^{msg}$"):
        call()


@pytest.mark.parametrize("dtype", ["int8", "float16"])
def test_arange_too_large_for_numpy_raises_the_allocator_error(dtype):
    # seed 80: 2**62 int8 elements reached NumPy's "array is too big" ValueError
    with pytest.raises(RuntimeError, match=r"^DefaultCPUAllocator: can't allocate memory: you tried to allocate "
                                           r"4611686018427387904 bytes"):  # fmt: skip
        numtorch.arange(0, 2**62 // np.dtype(dtype).itemsize, dtype=getattr(numtorch, dtype))
