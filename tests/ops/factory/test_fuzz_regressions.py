"""Factory regressions found by differential fuzzing against PyTorch (issue 10)."""

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
