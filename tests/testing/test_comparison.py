"""numtorch.testing.assert_close and make_tensor."""

from __future__ import annotations

import pytest

import numtorch
from numtorch.testing import assert_close, make_tensor


def test_testing_is_bound_on_import():
    assert numtorch.testing.assert_close is assert_close


def test_close_values_pass_and_far_values_report():
    assert_close(numtorch.tensor([1.0, 2.0]), numtorch.tensor([1.0, 2.0 + 1e-7]))
    with pytest.raises(AssertionError, match=r"Mismatched elements: 1 / 2 \(50.0%\)\nGreatest absolute difference: 1.0 at index \(1,\)"):
        assert_close(numtorch.tensor([1.0, 2.0]), numtorch.tensor([1.0, 3.0]))


def test_attribute_checks():
    with pytest.raises(AssertionError, match="'dtype' do not match: torch.float32 != torch.float64"):
        assert_close(numtorch.ones(2), numtorch.ones(2, dtype=numtorch.float64))
    assert_close(numtorch.ones(2), numtorch.ones(2, dtype=numtorch.float64), check_dtype=False)
    with pytest.raises(AssertionError, match=r"'stride\(\)' do not match: \(1, 2\) != \(2, 1\)"):
        assert_close(numtorch.ones(2, 2).t(), numtorch.ones(2, 2), check_stride=True)
    assert_close(numtorch.ones(2, 2).t(), numtorch.ones(2, 2))


def test_subclasses():
    class S(numtorch.Tensor):
        pass

    s = numtorch.ones(2).as_subclass(S)
    assert_close(s, numtorch.ones(2))
    with pytest.raises(TypeError, match="No comparison pair was able to handle inputs of type"):
        assert_close(s, numtorch.ones(2), allow_subclasses=False)


def test_containers_numbers_and_tolerance_arguments():
    assert_close({"a": [numtorch.ones(1), 2.0]}, {"a": [numtorch.ones(1), 2.0]})
    with pytest.raises(AssertionError, match=r"The failure occurred for item \['a'\]"):
        assert_close({"a": numtorch.ones(1)}, {"a": numtorch.zeros(1)})
    with pytest.raises(AssertionError, match="The \\(d\\)types do not match"):
        assert_close(1.0, 2)
    with pytest.raises(ValueError, match="must be either specified or omitted, but got no atol"):
        assert_close(numtorch.ones(1), numtorch.ones(1), rtol=1e-3)
    with pytest.raises(TypeError, match="No comparison pair"):
        assert_close(numtorch.ones(2), [1.0, 1.0])
    with pytest.raises(AssertionError, match="custom"):
        assert_close(numtorch.ones(1), numtorch.zeros(1), msg="custom")


def test_make_tensor_ranges_and_options():
    numtorch.manual_seed(0)
    x = make_tensor(200, dtype=numtorch.float32, device="cpu", low=-2, high=3)
    assert x.shape == (200,) and x.min().item() >= -2 and x.max().item() < 3
    i = make_tensor(200, dtype=numtorch.int64, device="cpu")
    assert i.min().item() >= -9 and i.max().item() <= 9
    u = make_tensor((50,), dtype=numtorch.uint8, device="cpu")
    assert u.min().item() >= 0
    n = make_tensor(3, 4, dtype=numtorch.float64, device="cpu", noncontiguous=True, requires_grad=True)
    assert not n.is_contiguous() and n.requires_grad and n.shape == (3, 4)
    z = make_tensor(500, dtype=numtorch.int64, device="cpu", low=-1, high=2, exclude_zero=True)
    assert (z != 0).all()
    with pytest.raises(ValueError, match="`low` must be less than `high`, but got 3 >= 1"):
        make_tensor(2, dtype=numtorch.float32, device="cpu", low=3, high=1)
    with pytest.raises(ValueError, match="`requires_grad=True` is not supported for boolean and integral dtypes"):
        make_tensor(2, dtype=numtorch.int64, device="cpu", requires_grad=True)
