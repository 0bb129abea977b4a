"""Complex gradients use PyTorch's convention, the conjugate Wirtinger derivative
(Note [Complex gradients]); expected values are PyTorch 2.13's. The full torch-oracle sweep is
tests/parity/test_complex_grad_parity.py."""

import numpy as np
import pytest

import numtorch

_X = [0.7 + 0.3j, -0.4 + 1.2j]
_G = [1 - 0.5j, 0.25 + 2j]


def _grad(fn, x=_X, g=_G):
    t = numtorch.tensor(x, dtype=numtorch.complex128, requires_grad=True)
    return numtorch.autograd.grad(fn(t), t, numtorch.tensor(g, dtype=numtorch.complex128))[0]


def test_mul_gradient_is_conjugated():
    x = numtorch.tensor(7.25 + 1j, requires_grad=True)
    y = x * x
    y.backward(numtorch.ones_like(y))
    assert x.grad.item() == 14.5 - 2j


@pytest.mark.parametrize("name, expected", [
    ("exp", [1.626259133383775 - 1.5570103370375217j, 1.3102528826906765 + 0.32960021257120786j]),
    ("sgn", [0.4414612828904465 - 1.0300763267443753j, 0.6522197674097282 + 0.21740658913657626j]),
    ("acosh", [0.9085165810580705 + 0.9387921972889184j, -1.2778776945233763 - 0.09590042938620325j]),
])  # fmt: skip
def test_unary_gradient_matches_pytorch(name, expected):
    np.testing.assert_allclose(_grad(getattr(numtorch, name)).numpy(), expected, rtol=1e-12)


def test_real_input_of_complex_op_gets_the_real_part():
    x = numtorch.tensor([2.0, 3.0], dtype=numtorch.float64, requires_grad=True)
    (x * numtorch.tensor([1j, 1 + 1j])).backward(numtorch.tensor([1 + 1j, 2.0 + 0j]))
    assert x.grad.dtype == numtorch.float64
    assert x.grad.tolist() == [1.0, 2.0]


def test_slogdet_sign_gradient_moves_the_phase():
    a = numtorch.tensor([[1 + 1j, 2], [0.5j, -1]], dtype=numtorch.complex128, requires_grad=True)
    sign, logabs = numtorch.linalg.slogdet(a)
    ga = numtorch.autograd.grad((sign, logabs), a, (numtorch.tensor(0.5 + 1j, dtype=numtorch.complex128),
                                                    numtorch.tensor(2.0, dtype=numtorch.float64)))[0]  # fmt: skip
    np.testing.assert_allclose(ga.numpy(), [[0.4 + 0.8j, 0.4 - 0.2j], [0.8 + 1.6j, -1.2 - 0.4j]], atol=1e-12)
