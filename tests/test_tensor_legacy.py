"""numtorch/_tensor_legacy.py (legacy Tensor methods) and numtorch/_linalg_utils.py (removed
functions raising PyTorch's text)."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import numtorch


def test_new_takes_sizes_data_or_a_tensor_in_this_dtype():
    t = numtorch.ones(1, dtype=numtorch.int32)
    assert t.new(2, 3).shape == (2, 3) and t.new(2, 3).dtype is numtorch.int32
    assert t.new([1, 2]).tolist() == [1, 2] and t.new().shape == (0,)
    assert t.new(t).data_ptr() == t.data_ptr()
    with pytest.raises(TypeError):
        t.new(numtorch.ones(1))


def test_resize_copies_and_warns():
    t = numtorch.arange(6.0, requires_grad=True)
    with pytest.warns(UserWarning, match="non-inplace resize is deprecated"):
        r = t.resize(2, 3)
    r.sum().backward()
    assert t.grad.tolist() == [1.0] * 6
    with pytest.warns(UserWarning, match="non-inplace resize_as is deprecated"):
        assert t.detach().resize_as(numtorch.ones(2)).tolist() == [0.0, 1.0]


def test_small_properties_and_predicates():
    t = numtorch.ones(2, 3)
    assert t.dim_order() == (0, 1) and t.mT.dim_order() == (1, 0)
    with pytest.raises(RuntimeError, match="unique dim order"):
        numtorch.ones(1, 3).dim_order(ambiguity_check=True)
    assert t.const_data_ptr() == t.data_ptr() and t.output_nr == 0 and t.name is None
    assert t.is_set_to(t) and not t.is_set_to(t.view(6)) and not t.is_shared()
    x = numtorch.ones(2, requires_grad=True)
    y = x * 2
    assert not y.retains_grad
    y.retain_grad()
    assert y.retains_grad
    with pytest.warns(UserWarning, match="volatile was removed"):
        assert t.volatile is False
    with pytest.raises(RuntimeError, match="reinforce\\(\\) was removed"):
        t.reinforce(1.0)
    with pytest.raises(RuntimeError, match="unknown parameter type"):
        t.record_stream(numtorch.cpu.current_stream())


def test_narrow_copy_map2_and_module_load():
    t = numtorch.arange(5)
    c = t.narrow_copy(0, 1, 3)
    assert c.tolist() == [1, 2, 3] and c.data_ptr() != t.data_ptr()
    a = numtorch.ones(3)
    a.map2_(numtorch.full((3,), 2.0), numtorch.tensor(3.0), lambda p, q, r: p + q * r)
    assert a.tolist() == [7.0, 7.0, 7.0]
    p = numtorch.zeros(2)
    assert p.module_load(numtorch.ones(2)).tolist() == [1.0, 1.0] and p.tolist() == [1.0, 1.0]
    assert p.module_load(numtorch.full((2,), 5.0), assign=True).tolist() == [5.0, 5.0]


@pytest.mark.parametrize("name, args", [("eig", (1,)), ("symeig", (1,)), ("lstsq", (1, 2)), ("solve", (1, 2)),
                                        ("matrix_rank", (1,))])  # fmt: skip
def test_removed_linalg_functions_raise_with_the_replacement(name, args):
    with pytest.raises(RuntimeError, match="deprecated since version 1.9 and is now removed"):
        getattr(numtorch, name)(*args)
    if name != "matrix_rank":
        with pytest.raises(RuntimeError, match="is now removed"):
            getattr(numtorch.eye(2), name)(*args[1:])


def test_no_warning_for_plain_methods():
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        numtorch.ones(2).untyped_storage()
        np.asarray(numtorch.ones(2).dim_order())
