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
