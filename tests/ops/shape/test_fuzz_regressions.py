"""Shape-op regressions found by differential fuzzing against PyTorch (issue 10)."""

import pytest

import numtorch


def _writes_reach(x, y):
    before = x.clone()
    y.fill_(-1.0)
    return bool((x != before).any())


def test_ravel_copies_a_non_contiguous_input():
    # at::ravel is contiguous().view(-1): even a viewable strided input is copied
    x = numtorch.arange(12.0).reshape(3, 4)
    for y in (x[:, ::2].ravel(), x[:, :1].ravel(), x.t().ravel(), x.view(12)[::3].ravel()):
        assert y.is_contiguous()
        assert not _writes_reach(x, y)
    assert _writes_reach(x, x.ravel())


def test_reshape_and_flatten_view_a_viewable_strided_input():
    x = numtorch.arange(12.0).reshape(3, 4)
    y = x[:, ::2].flatten()
    assert y.stride() == (2,) and _writes_reach(x, y)
    assert not _writes_reach(x, x.t().reshape(12))


def test_repeat_and_tile_of_0d_with_no_dims_stay_0d():
    x = numtorch.tensor(3.0)
    assert x.repeat(()).shape == () and x.tile(()).shape == ()
    assert x.repeat(()).item() == 3.0


def test_diff_of_order_zero_ignores_prepend_and_append():
    x = numtorch.arange(3.0)
    r = numtorch.diff(x, n=0, prepend=numtorch.tensor([9.0]), append=numtorch.tensor([7.0]))
    assert r.tolist() == [0.0, 1.0, 2.0]


def test_is_contiguous_honours_memory_format():
    nt = numtorch
    x = nt.ones(2, 3, 4, 5)
    cl = x.to(memory_format=nt.channels_last)
    fmts = [nt.contiguous_format, nt.channels_last, nt.channels_last_3d, nt.preserve_format]
    assert [x.is_contiguous(memory_format=f) for f in fmts] == [True, False, False, True]
    assert [cl.is_contiguous(memory_format=f) for f in fmts] == [False, True, False, False]
    assert nt.ones(2, 3, 1, 1).is_contiguous(memory_format=nt.channels_last)  # size-1 dims are free
    assert not nt.ones(3).is_contiguous(memory_format=nt.channels_last)  # wrong rank: False
    assert not nt.ones(0, 3, 4, 5).is_contiguous(memory_format=nt.channels_last)
    c3 = nt.ones(2, 3, 4, 5, 6).to(memory_format=nt.channels_last_3d)
    assert [c3.is_contiguous(memory_format=f) for f in fmts] == [False, False, True, False]
    assert not x[:, :, ::2].is_contiguous(memory_format=nt.contiguous_format)
    with pytest.raises(TypeError, match="argument 'memory_format' must be torch.memory_format, not int"):
        x.is_contiguous(memory_format=3)


@pytest.mark.parametrize("name,shown", [("hstack", "hstack"), ("vstack", "vstack"), ("dstack", "dstack"),
                                        ("column_stack", "column_stack"), ("row_stack", "vstack")])  # fmt: skip
def test_stack_family_refuses_an_empty_list(name, shown):
    for kw in ({}, {"out": numtorch.zeros(0)}):
        with pytest.raises(RuntimeError, match=f"^{shown} expects a non-empty TensorList$"):
            getattr(numtorch, name)([], **kw)


@pytest.mark.parametrize("name", ["tril_indices", "triu_indices"])
@pytest.mark.parametrize("dtype,cname", [("float16", "Half"), ("float32", "Float"), ("bool", "Bool"), ("uint8", "Byte")])
def test_triangle_indices_take_only_index_dtypes(name, dtype, cname):
    with pytest.raises(NotImplementedError, match=f"^\"{name}\" not implemented for '{cname}'$"):
        getattr(numtorch, name)(3, 3, dtype=getattr(numtorch, dtype))
    assert getattr(numtorch, name)(3, 3, dtype=numtorch.int32).dtype == numtorch.int32


def test_fill_with_a_tensor_value_refuses_repeated_elements_but_a_number_does_not():
    a = numtorch.zeros(1, 2).expand(3, 2)
    with pytest.raises(RuntimeError, match="^unsupported operation: more than one element of the written-to tensor"):
        a.fill_(numtorch.tensor(1.0))
    assert not a.any()
    assert a.fill_(1.0).tolist() == [[1.0, 1.0]] * 3  # fill_.Scalar writes, as in PyTorch


def test_fill_with_a_tensor_value_casts_as_copy_does():
    # fill_.Tensor is copy_ of the value in PyTorch: wrap-around, no overflow check (fill_.Scalar checks)
    assert numtorch.zeros(2, dtype=numtorch.int8).fill_(numtorch.tensor(300)).tolist() == [44, 44]
    x = numtorch.tensor(7)
    x[True] = numtorch.tensor(-1.5, dtype=numtorch.float16)
    assert x.item() == -1
    with pytest.raises(RuntimeError, match="^value cannot be converted to type int8_t without overflow$"):
        numtorch.zeros(2, dtype=numtorch.int8).fill_(300)


def test_cat_out_checks_the_cast_before_the_sizes():
    with pytest.raises(TypeError, match="^torch.cat\\(\\): input types can't be cast to the desired output type Bool$"):
        numtorch.vstack([numtorch.ones(2, 3), numtorch.ones(2, 0, dtype=numtorch.float64)], out=numtorch.ones(0, dtype=numtorch.bool))
