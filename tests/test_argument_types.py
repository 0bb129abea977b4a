"""A non-tensor where a schema says Tensor: PyTorch's argument parser's TypeError, raised by
the public entry point (Note [Non-tensor arguments] in numtorch/_api.py), never Python's
AttributeError from inside an op's body."""

from __future__ import annotations

import numpy as np
import pytest

import numtorch

x = numtorch.ones(2, 2)

CASES = [
    (lambda: numtorch.mm(x, None), "mm(): argument 'mat2' (position 2) must be Tensor, not NoneType"),
    (lambda: x.mm(np.ones((2, 2))), "mm(): argument 'mat2' (position 1) must be Tensor, not numpy.ndarray"),
    (lambda: numtorch.matmul(x, [1, 2]), "matmul(): argument 'other' (position 2) must be Tensor, not list"),
    (lambda: numtorch.nn.functional.linear(x, 3), "linear(): argument 'weight' (position 2) must be Tensor, not int"),
    (lambda: numtorch.linalg.inv(3), "linalg_inv(): argument 'A' (position 1) must be Tensor, not int"),
    (lambda: numtorch.dot(numtorch.ones(2), 2), "dot(): argument 'tensor' (position 2) must be Tensor, not int"),
    (lambda: x.expand_as(3), "expand_as(): argument 'other' (position 1) must be Tensor, not int"),
    (lambda: x.view_as(3), "view_as(): argument 'other' (position 1) must be Tensor, not int"),
    (lambda: x.type_as(3), "type_as(): argument 'other' (position 1) must be Tensor, not int"),
    (lambda: x.reshape_as("a"), "reshape_as(): argument 'other' (position 1) must be Tensor, not str"),
]  # fmt: skip


@pytest.mark.parametrize("call,message", CASES, ids=[m.partition("(")[0] for _, m in CASES])
def test_non_tensor_argument_raises_pytorchs_type_error(call, message):
    with pytest.raises(TypeError) as info:
        call()
    assert str(info.value) == message
    assert info.value.__cause__ is None and info.value.__suppress_context__


def test_operators_return_not_implemented_for_a_non_tensor():
    with pytest.raises(TypeError, match=r"^unsupported operand type\(s\) for @: 'Tensor' and 'int'$"):
        x @ 3
    with pytest.raises(TypeError, match=r"^unsupported operand type\(s\) for @: 'int' and 'Tensor'$"):
        3 @ x
    assert x.__matmul__(3) is NotImplemented


def test_numbers_a_scalar_overload_takes_still_work():
    np.testing.assert_array_equal(numtorch.add(x, 3).numpy(), np.full((2, 2), 4.0))
    np.testing.assert_array_equal(numtorch.where(x > 0, x, 2.0).numpy(), np.ones((2, 2)))


def test_an_attribute_error_on_anything_but_a_non_tensor_argument_is_left_alone():
    from numtorch._api import not_tensor

    def failure(obj):
        try:
            obj.no_such_attribute  # noqa: B018
        except AttributeError as e:
            return e

    params = (("input", 1), ("other", 2))
    assert not_tensor(failure(object()), numtorch.Tensor, "f", params, (x, 3)) is None  # some other object
    assert not_tensor(failure(x), numtorch.Tensor, "f", params, (x, 3)) is None  # a tensor argument's own attribute
    e = not_tensor(failure(3), numtorch.Tensor, "f", params, (x, 3))
    assert str(e) == "f(): argument 'other' (position 2) must be Tensor, not int"
    assert str(not_tensor(failure(3), numtorch.Tensor, "f", (("input", 1), ("out", None)), (x, 3))) == (
        "f(): argument 'out' must be Tensor, not int")  # keyword-only: no position
