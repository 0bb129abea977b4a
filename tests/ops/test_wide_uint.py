"""The non-elementwise ops PyTorch 2.13 has no uint16/uint32/uint64 CPU kernel for refuse them
with its error (numtorch/ops/_wide_uint.py: UINT_OP_KERNEL); empty inputs skip most kernels."""

import pytest

import numtorch as nt

U16 = nt.uint16


def _u(*shape):
    return nt.ones(*shape, dtype=U16)


@pytest.mark.parametrize("call, kernel", [
    (lambda: nt.max(_u(3)), "max_all"), (lambda: nt.max(_u(3), 0), "max_cpu"),
    (lambda: nt.argmax(_u(3)), "argmax_cpu"), (lambda: nt.amax(_u(3)), "max_values_cpu"),
    (lambda: nt.cummax(_u(3), 0), "cummax_cpu"), (lambda: nt.topk(_u(3), 2), "topk_cpu"),
    (lambda: nt.median(_u(3), 0), "median_out"), (lambda: nt.mode(_u(3)), "mode_cpu"),
    (lambda: nt.flip(_u(3), (0,)), "flip_cpu"), (lambda: nt.tril(_u(3, 3)), "tril"),
    (lambda: nt.masked_select(_u(3), nt.ones(3, dtype=nt.bool)), "masked_select"),
    (lambda: nt.nonzero(_u(3)), "nonzero_count_cpu"), (lambda: nt.searchsorted(_u(3), _u(3)), "searchsorted_out_cpu"),
    (lambda: nt.mm(_u(2, 3), _u(3, 2)), "addmm_impl_cpu_"), (lambda: nt.dot(_u(0), _u(0)), "dot"),
    (lambda: nt.gather(_u(3), 0, nt.tensor([0])), "scatter_gather_tensor_cpu"),
    (lambda: nt.index_select(_u(3), 0, nt.tensor([0])), "index_select"),
    (lambda: nt.nn.functional.max_pool1d(_u(1, 2, 2), 1), "max_pool1d_impl"),
    (lambda: nt.arange(3, dtype=U16), "arange_cpu"), (lambda: nt.eye(2, dtype=nt.uint64), "eye"),
    # ops with a fast call (they must decline these dtypes and let the body refuse them)
    (lambda: nt.fliplr(_u(2, 2)), "flip_cpu"), (lambda: nt.rot90(_u(2, 2)), "flip_cpu"),
    (lambda: nt.triu(_u(3, 3)), "triu"), (lambda: nt.argwhere(_u(3)), "nonzero_count_cpu"),
    (lambda: nt.scatter(_u(3), 0, nt.tensor([0]), _u(1)), "scatter_gather_tensor_cpu"),
    (lambda: nt.index_put(_u(3), (nt.tensor([0]),), _u(1)), "index_put"),
    (lambda: nt.put(_u(3), nt.tensor([0]), _u(1)), "take_put_cpu"),
    (lambda: nt.masked_scatter(_u(3), nt.ones(3, dtype=nt.bool), _u(3)), "masked_scatter"),
    (lambda: nt.index_copy(_u(3), 0, nt.tensor([0]), _u(1)), "index_copy_cpu"),
])  # fmt: skip
def test_ops_without_a_wide_unsigned_kernel_refuse_it(call, kernel):
    with pytest.raises(NotImplementedError, match=f"^\"{kernel}\" not implemented for 'UInt(16|64)'$"):
        call()


def test_empty_inputs_and_supported_ops_still_run():
    assert nt.max(_u(0, 3), 1).values.shape == (0,)
    assert nt.mm(_u(2, 0), _u(0, 2)).tolist() == [[0, 0], [0, 0]]
    assert nt.flip(_u(0), (0,)).dtype is U16
    assert nt.sort(_u(3)).values.dtype is U16 and nt.cumsum(_u(3), 0).tolist() == [1, 2, 3]
    assert nt.zeros(2, 2, dtype=U16).fill_diagonal_(1).tolist() == [[1, 0], [0, 1]]
    assert nt.maximum(nt.ones(2, dtype=nt.int64), nt.zeros(2, dtype=nt.int64)).tolist() == [1, 1]


@pytest.mark.parametrize("dtype", [nt.uint16, nt.uint32, nt.uint64])
def test_channel_shuffle_refuses_wide_unsigned_after_its_shape_checks(dtype):
    name = {nt.uint16: "UInt16", nt.uint32: "UInt32", nt.uint64: "UInt64"}[dtype]
    x = nt.ones(1, 4, 2, dtype=dtype)
    for f in (nt.channel_shuffle, nt.native_channel_shuffle, nt.nn.functional.channel_shuffle):
        with pytest.raises(NotImplementedError, match=f"^\"channel_shuffle\" not implemented for '{name}'$"):
            f(x, 2)
        with pytest.raises(RuntimeError, match="expects input with > 2 dims"):
            f(nt.ones(4, 2, dtype=dtype), 2)  # the shape check first, as PyTorch
        with pytest.raises(RuntimeError, match="must be divisible by groups"):
            f(x, 3)
        assert f(nt.ones(0, 4, 2, dtype=dtype), 2).shape == (0, 4, 2)  # the kernel never runs
    assert nt.channel_shuffle(nt.arange(4, dtype=nt.uint8).view(1, 4, 1), 2).flatten().tolist() == [0, 2, 1, 3]
