"""Shape and view ops: memory sharing, strides, errors, autograd specifics (numtorch/ops/shape*.py)."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import numtorch
from numtorch.autograd import gradcheck, gradgradcheck
from numtorch.testing import assert_close


def _base():
    return numtorch.arange(24.0).reshape(2, 3, 4)


# Every view op, called on the (2, 3, 4) float base: (name, fn, expected shape, expected strides)
VIEWS = [
    ("view", lambda x: x.view(6, 4), (6, 4), (4, 1)),
    ("view_minus_one", lambda x: x.view(-1), (24,), (1,)),
    ("reshape_viewable", lambda x: x.reshape(4, 6), (4, 6), (6, 1)),
    ("view_as", lambda x: x.view_as(numtorch.zeros(4, 6)), (4, 6), (6, 1)),
    ("flatten", lambda x: x.flatten(1), (2, 12), (12, 1)),
    ("unflatten", lambda x: x.unflatten(2, (2, 2)), (2, 3, 2, 2), (12, 4, 2, 1)),
    ("ravel", lambda x: x.ravel(), (24,), (1,)),
    ("squeeze", lambda x: x.unsqueeze(1).squeeze(), (2, 3, 4), (12, 4, 1)),
    ("squeeze_dims", lambda x: x.unsqueeze(0).squeeze((0,)), (2, 3, 4), (12, 4, 1)),
    ("unsqueeze", lambda x: x.unsqueeze(1), (2, 1, 3, 4), (12, 12, 4, 1)),
    ("unsqueeze_last", lambda x: x.unsqueeze(-1), (2, 3, 4, 1), (12, 4, 1, 1)),
    ("permute", lambda x: x.permute(2, 0, 1), (4, 2, 3), (1, 12, 4)),
    ("transpose", lambda x: x.transpose(0, 2), (4, 3, 2), (1, 4, 12)),
    ("swapaxes", lambda x: x.swapaxes(1, 2), (2, 4, 3), (12, 1, 4)),
    ("T", lambda x: x[0].T, (4, 3), (1, 4)),
    ("mT", lambda x: x.mT, (2, 4, 3), (12, 1, 4)),
    ("mH", lambda x: x.mH, (2, 4, 3), (12, 1, 4)),
    ("H", lambda x: x[0].H, (4, 3), (1, 4)),
    ("t", lambda x: x[0].t(), (4, 3), (1, 4)),
    ("adjoint", lambda x: x.adjoint(), (2, 4, 3), (12, 1, 4)),
    ("expand", lambda x: x.unsqueeze(0).expand(5, -1, -1, -1), (5, 2, 3, 4), (0, 12, 4, 1)),
    ("broadcast_to", lambda x: numtorch.broadcast_to(x[:, :1], (2, 3, 4)), (2, 3, 4), (12, 0, 1)),
    # contiguous inputs: the expand kernel's ndarray over the input's buffer
    ("broadcast_to_lead1", lambda x: numtorch.broadcast_to(x, (1, 2, 3, 4)), (1, 2, 3, 4), (24, 12, 4, 1)),
    ("broadcast_to_rows", lambda x: numtorch.broadcast_to(x[0, :1].contiguous(), (5, 3, 4)), (5, 3, 4), (0, 0, 1)),
    ("broadcast_to_lead_expand", lambda x: numtorch.broadcast_to(x[:1].contiguous(), (1, 2, 3, 4)), (1, 2, 3, 4),
     (0, 0, 4, 1)),
    ("expand_as", lambda x: x[0].contiguous().unsqueeze(1).expand_as(numtorch.zeros(3, 2, 4)), (3, 2, 4), (4, 0, 1)),
    ("narrow", lambda x: x.narrow(2, 1, 2), (2, 3, 2), (12, 4, 1)),
    ("select", lambda x: x.select(1, 2), (2, 4), (12, 1)),
    ("unfold", lambda x: x.unfold(2, 2, 1), (2, 3, 3, 2), (12, 4, 1, 1)),
    ("as_strided", lambda x: x.as_strided((3, 3), (5, 1), 2), (3, 3), (5, 1)),
    ("diagonal", lambda x: x.diagonal(0, 1, 2), (2, 3), (12, 5)),
    ("movedim", lambda x: x.movedim(0, -1), (3, 4, 2), (4, 1, 12)),
    ("unbind", lambda x: x.unbind(1)[2], (2, 4), (12, 1)),
    ("split", lambda x: x.split(2, 2)[1], (2, 3, 2), (12, 4, 1)),
    ("chunk", lambda x: x.chunk(3, 1)[1], (2, 1, 4), (12, 4, 1)),
    ("tensor_split", lambda x: x.tensor_split([1], 2)[1], (2, 3, 3), (12, 4, 1)),
    ("hsplit", lambda x: numtorch.hsplit(x, 3)[0], (2, 1, 4), (12, 4, 1)),
    ("real", lambda x: x.real, (2, 3, 4), (12, 4, 1)),
    ("view_dtype", lambda x: x.view(numtorch.int32), (2, 3, 4), (12, 4, 1)),
    ("meshgrid", lambda x: numtorch.meshgrid(x[0, 0], x[1, 1], indexing="ij")[0], (4, 4), (1, 0)),
    (
        "broadcast_tensors",
        lambda x: numtorch.broadcast_tensors(x[0, 0], numtorch.zeros(2, 4))[0],
        (2, 4),
        (0, 1),
    ),
    ("atleast_3d", lambda x: numtorch.atleast_3d(x[0, 0]), (1, 4, 1), (4, 1, 1)),
    ("contiguous_noop", lambda x: x.contiguous(), (2, 3, 4), (12, 4, 1)),
]


@pytest.mark.parametrize("name,fn,shape,strides", VIEWS, ids=[v[0] for v in VIEWS])
def test_view_has_torch_shape_and_strides(name, fn, shape, strides):
    v = fn(_base())
    assert v.shape == shape
    assert v.stride() == strides


@pytest.mark.parametrize("name,fn,shape,strides", VIEWS, ids=[v[0] for v in VIEWS])
def test_writes_through_a_view_reach_the_base_and_back(name, fn, shape, strides):
    x = _base()
    v = fn(x)
    assert np.shares_memory(v.numpy(), x.numpy())
    if name in ("contiguous_noop", "real"):
        assert v is x
        return
    root = x if x._base is None else x._base
    assert v._base is (
        None if name == "view_dtype" else root
    )  # dtype views: shared memory, no _base
    before = x._version
    if name != "view_dtype" and 0 not in v.shape and v.stride() and 0 not in v.stride():
        v.fill_(-7)
        assert x._version == v._version == before + 1
        assert (x.numpy() == -7).sum() >= 1
        x.zero_()
        assert (v.numpy() == 0).all()


def test_view_of_a_view_records_the_root_base():
    x = numtorch.zeros(4, 6)
    v = x.view(24).view(2, 12)
    assert v._base is x


def test_as_strided_offset_is_relative_to_the_storage():
    x = numtorch.arange(12.0)
    v = x[3:]
    assert v.storage_offset() == 3
    assert v.as_strided((2,), (1,)).tolist() == [3.0, 4.0]
    assert v.as_strided((2,), (1,), 0).tolist() == [0.0, 1.0]


def test_view_as_real_and_imag_share_memory_with_the_complex_base():
    z = numtorch.zeros(3, dtype=numtorch.complex64)
    r = numtorch.view_as_real(z)
    assert r.shape == (3, 2) and r.stride() == (2, 1) and r.dtype == numtorch.float32
    z.imag.fill_(2)
    z.real.fill_(1)
    assert r.tolist() == [[1.0, 2.0]] * 3
    assert z.imag.stride() == (2,)
    back = numtorch.view_as_complex(r)
    assert back._base is z and back.tolist() == [1 + 2j] * 3


def test_setting_real_and_imag_copies_in_place():
    z = numtorch.zeros(2, dtype=numtorch.complex128)
    z.real = numtorch.tensor([1.0, 2.0])
    z.imag = numtorch.tensor(3.0)
    assert z.tolist() == [1 + 3j, 2 + 3j]


def test_reshape_copies_only_when_the_strides_forbid_a_view():
    x = numtorch.tensor([[0.0, 1.0, 2.0], [3.0, 4.0, 5.0]])
    y = x.t().reshape(6)
    assert y._base is None and not np.shares_memory(y.numpy(), x.numpy())
    assert y.tolist() == [0.0, 3.0, 1.0, 4.0, 2.0, 5.0]
    assert x.reshape(3, 2)._base is x


def test_results_returning_self():
    x = numtorch.zeros(3)
    assert x.flatten() is x and x.real is x and x.contiguous() is x and numtorch.atleast_1d(x) is x
    assert x.to(numtorch.float32) is x and x.float() is x and x.cpu() is x and x.type_as(x) is x


def test_tensor_t_warns_for_other_than_two_dims():
    with pytest.warns(UserWarning, match="The use of `x.T` on tensors of dimension other than 2"):
        assert numtorch.zeros(2, 3, 4).T.shape == (4, 3, 2)


def test_properties_go_through_torch_function():
    seen = []

    class Logged(numtorch.Tensor):
        @classmethod
        def __torch_function__(cls, func, types, args=(), kwargs=None):
            seen.append(func)
            return super().__torch_function__(func, types, args, kwargs or {})

    x = numtorch.zeros(2, 3).as_subclass(Logged)
    assert type(x.T) is Logged and type(x.mT) is Logged
    assert numtorch.Tensor.T.__get__ in seen and numtorch.Tensor.mT.__get__ in seen


# ---- errors ----------------------------------------------------------------------------------------
_X = lambda: numtorch.zeros(2, 3)  # noqa: E731
_Z = lambda: numtorch.zeros(())  # noqa: E731

ERRORS = [
    (lambda: _X().view(3, 5), RuntimeError, "shape '[3, 5]' is invalid for input of size 6"),
    (
        lambda: numtorch.zeros(3, 4).view(3, 5),
        RuntimeError,
        "shape '[3, 5]' is invalid for input of size 12",
    ),
    (
        lambda: _X().t().view(6),
        RuntimeError,
        "view size is not compatible with input tensor's size and stride (at least one dimension spans across two "
        "contiguous subspaces). Use .reshape(...) instead.",
    ),
    (lambda: _X().view(-1, -1), RuntimeError, "only one dimension can be inferred"),
    (
        lambda: _X().view(2, 3, -2),
        RuntimeError,
        "invalid shape dimension -2 at index 2 of shape [2, 3, -2]",
    ),
    (
        lambda: numtorch.zeros(0, 3).view(-1, 0),
        RuntimeError,
        "cannot reshape tensor of 0 elements into shape [-1, 0] because the unspecified dimension size -1 can be any value and is ambiguous",
    ),
    (
        lambda: _X().view(2, 3.0),
        TypeError,
        "view(): argument 'size' failed to unpack the object at pos 2",
    ),
    (
        lambda: _X().t().view(numtorch.int8),
        RuntimeError,
        "self.stride(-1) must be 1 to view Float as Char (different element sizes), but got 3",
    ),
    (
        lambda: numtorch.zeros(3, dtype=numtorch.int8).view(numtorch.int16),
        RuntimeError,
        "self.size(-1) must be divisible by 2 to view Char as Short (different element sizes), but got 3",
    ),
    (
        lambda: _Z().view(numtorch.float64),
        RuntimeError,
        "self.dim() cannot be 0 to view Float as Double (different element sizes)",
    ),
    (
        lambda: _X().permute(0, 1, 2),
        RuntimeError,
        "permute(sparse_coo): number of dimensions in the tensor input does not match the length of the desired "
        "ordering of dimensions i.e. input.dim() = 2 is not equal to len(dims) = 3",
    ),
    (lambda: _X().permute(0, 0), RuntimeError, "permute(): duplicate dims are not allowed."),
    (
        lambda: _X().transpose(0, 2),
        IndexError,
        "Dimension out of range (expected to be in range of [-2, 1], but got 2)",
    ),
    (
        lambda: _X().transpose(0, 1.0),
        TypeError,
        "transpose(): argument 'dim1' must be int, not float",
    ),
    (
        lambda: _X().expand(2, 4),
        RuntimeError,
        "The expanded size of the tensor (4) must match the existing size (3) at non-singleton dimension 1.  "
        "Target sizes: [2, 4].  Tensor sizes: [2, 3]",
    ),
    (
        lambda: _X().expand(3),
        RuntimeError,
        "expand(torch.FloatTensor{[2, 3]}, size=[3]): the number of sizes provided (1) must be greater or equal to "
        "the number of dimensions in the tensor (2)",
    ),
    (
        lambda: _X().expand(-1, -1, -1),
        RuntimeError,
        "The expanded size of the tensor (-1) isn't allowed in a leading, non-existing dimension 0",
    ),
    (
        lambda: numtorch.zeros(2, 3, 4).t(),
        RuntimeError,
        "t() expects a tensor with <= 2 dimensions, but self is 3D",
    ),
    (
        lambda: numtorch.zeros(3).mT,
        RuntimeError,
        "tensor.mT is only supported on matrices or batches of matrices. Got 1-D tensor.",
    ),
    (
        lambda: numtorch.zeros(2, 3, 4).H,
        RuntimeError,
        "tensor.H is only supported on matrices (2-D tensors). Got 3-D tensor. For batches of matrices, consider using tensor.mH",
    ),
    (
        lambda: numtorch.zeros(3).adjoint(),
        RuntimeError,
        "tensor.adjoint() is only supported on matrices or batches of matrices. Got 1-D tensor.",
    ),
    (
        lambda: _X().squeeze((0, 0)),
        RuntimeError,
        "dim 0 appears multiple times in the list of dims",
    ),
    (
        lambda: _X().unsqueeze(3),
        IndexError,
        "Dimension out of range (expected to be in range of [-3, 2], but got 3)",
    ),
    (
        lambda: _X().flatten(1, 0),
        RuntimeError,
        "flatten() has invalid args: start_dim cannot come after end_dim",
    ),
    (
        lambda: _X().unflatten(1, (2, 2)),
        RuntimeError,
        "unflatten: Provided sizes [2, 2] don't multiply up to the size of dim 1 (3) in the input tensor",
    ),
    (lambda: _X().unflatten(1, ()), RuntimeError, "unflatten: sizes must be non-empty"),
    (
        lambda: _X().narrow(1, 2, 2),
        RuntimeError,
        "start (2) + length (2) exceeds dimension size (3).",
    ),
    (
        lambda: _X().narrow(1, 4, 0),
        IndexError,
        "start out of range (expected to be in range of [-3, 3], but got 4)",
    ),
    (lambda: _X().narrow(1, 0, -1), RuntimeError, "narrow(): length must be non-negative."),
    (lambda: _Z().narrow(0, 0, 1), RuntimeError, "narrow() cannot be applied to a 0-dim tensor."),
    (
        lambda: _X().select(1, 3),
        IndexError,
        "select(): index 3 out of range for tensor of size [2, 3] at dimension 1",
    ),
    (lambda: _Z().select(0, 0), IndexError, "select() cannot be applied to a 0-dim tensor."),
    (
        lambda: _X().unfold(1, 4, 1),
        RuntimeError,
        "maximum size for tensor at dimension 1 is 3 but size is 4",
    ),
    (lambda: _X().unfold(1, 2, 0), RuntimeError, "step is 0 but must be > 0"),
    (lambda: _X().unfold(1, -1, 1), RuntimeError, "size is -1 but must be >= 0"),
    (
        lambda: _X().as_strided((2, 2), (1, 1), -1),
        RuntimeError,
        "Tensor: invalid storage offset -1",
    ),
    (
        lambda: _X().as_strided((2, 2), (1, -1)),
        RuntimeError,
        "as_strided: Negative strides are not supported at the moment, got strides: [1, -1]",
    ),
    (
        lambda: _X().as_strided((10,), (1,)),
        RuntimeError,
        "setStorage: sizes [10], strides [1], storage offset 0, and itemsize 4 requiring a storage size of 40 are out "
        "of bounds for storage of size 24",
    ),
    (
        lambda: _X().as_strided((2,), (1, 1)),
        RuntimeError,
        "mismatch in length of strides and shape",
    ),
    (
        lambda: _X().split(0),
        RuntimeError,
        "split_size can only be 0 if dimension size is 0, but got dimension size of 2",
    ),
    (
        lambda: _X().split(-1),
        RuntimeError,
        "split expects split_size be non-negative, but got split_size=-1",
    ),
    (
        lambda: _X().split([1, 1], 1),
        RuntimeError,
        "split_with_sizes expects split_sizes to sum exactly to 3 (input tensor's size at dimension 1), but got split_sizes=[1, 1]",
    ),
    (
        lambda: _X().split_with_sizes([1, -1, 3], 1),
        RuntimeError,
        "split_with_sizes expects split_sizes have only non-negative entries, but got split_sizes=[1, -1, 3]",
    ),
    (lambda: _Z().split(1), RuntimeError, "split expects at least a 1-dimensional tensor"),
    (lambda: _X().chunk(0), RuntimeError, "chunk expects `chunks` to be greater than 0, got: 0"),
    (lambda: _Z().chunk(2), RuntimeError, "chunk expects at least a 1-dimensional tensor"),
    (lambda: _X().tensor_split(0), RuntimeError, "number of sections must be larger than 0, got 0"),
    (
        lambda: _Z().tensor_split(2),
        RuntimeError,
        "tensor_split expected at least a 1-dimensional tensor, but got a tensor with 0 dims",
    ),
    (
        lambda: _X().tensor_split(numtorch.tensor([1.0]), 1),
        RuntimeError,
        "tensor_split expected tensor_indices_or_sections to have dtype of long, but got Float",
    ),
    (
        lambda: _X().tensor_split(numtorch.tensor([[1]]), 1),
        RuntimeError,
        "tensor_split expected tensor_indices_or_sections to be a zero-dimensional or one-dimensional tensor, but got a tensor with 2 dims",
    ),
    (
        lambda: numtorch.hsplit(_X(), 2),
        RuntimeError,
        "torch.hsplit attempted to split along dimension 1, but the size of the dimension 3 is not divisible by the split_size 2!",
    ),
    (
        lambda: numtorch.hsplit(_Z(), 2),
        RuntimeError,
        "torch.hsplit requires a tensor with at least 1 dimension, but got a tensor with 0 dimensions!",
    ),
    (
        lambda: numtorch.dsplit(_X(), 1),
        RuntimeError,
        "torch.dsplit requires a tensor with at least 3 dimension, but got a tensor with 2 dimensions!",
    ),
    (lambda: _Z().unbind(), IndexError, "Dimension specified as 0 but tensor has no dimensions"),
    (
        lambda: _X().movedim((0, 0), (0, 1)),
        RuntimeError,
        "movedim: repeated dim in `source` ([0, 0])",
    ),
    (
        lambda: _X().movedim((0,), (0, 1)),
        RuntimeError,
        "movedim: Invalid source or destination dims: source ([0] dims) should contain the same number of dims as "
        "destination ([0, 1] dims)",
    ),
    (lambda: _X().diagonal(0, 0, 0), RuntimeError, "diagonal dimensions cannot be identical 0, 0"),
    (
        lambda: numtorch.view_as_real(numtorch.zeros(2)),
        RuntimeError,
        "view_as_real is only supported for complex tensors",
    ),
    (
        lambda: numtorch.view_as_complex(_X()),
        RuntimeError,
        "Tensor must have a last dimension of size 2",
    ),
    (
        lambda: numtorch.view_as_complex(numtorch.zeros(2, 2).t()),
        RuntimeError,
        "Tensor must have a last dimension with stride 1",
    ),
    (
        lambda: numtorch.view_as_complex(numtorch.zeros(2, 2, dtype=numtorch.int32)),
        RuntimeError,
        "view_as_complex is only supported for half, float and double tensors, but got a tensor of scalar type: Int",
    ),
    (
        lambda: numtorch.zeros(2).imag,
        RuntimeError,
        "imag is not implemented for tensors with non-complex dtypes.",
    ),
    (
        lambda: numtorch.broadcast_to(_X(), (3,)),
        RuntimeError,
        "expand(torch.FloatTensor{[2, 3]}, size=[3]): the number of sizes provided (1) must be greater or equal",
    ),
]


@pytest.mark.parametrize("fn,exc,msg", ERRORS, ids=[e[2][:40] for e in ERRORS])
def test_error_type_and_message(fn, exc, msg):
    with pytest.raises(exc) as info:
        fn()
    assert msg in str(info.value)


# ---- autograd -----------------------------------------------------------------------------------
def _leaf(*shape):
    return numtorch.randn(*shape, dtype=numtorch.float64, requires_grad=True)


@pytest.mark.parametrize("fn", [
    lambda x: x.t().reshape(6),
    lambda x: x.unsqueeze(0).expand(3, 2, 3),
    lambda x: x.as_strided((2, 2), (1, 2), 1),
    lambda x: x.as_strided((3, 3), (1, 1)),
    lambda x: x.unfold(1, 2, 1),
    lambda x: x.diagonal(1),
    lambda x: x.narrow(1, 1, 2) * x.select(0, 1).narrow(0, 0, 2),
    lambda x: x.split([1, 2], 1)[1],
    lambda x: x.unbind(1)[0],
    lambda x: numtorch.view_as_real(x.to(numtorch.complex128)).sum(-1),
], ids=["reshape_copy", "expand", "as_strided", "as_strided_overlap", "unfold", "diagonal", "narrow_select",
        "split_one_output", "unbind_one_output", "view_as_real"])  # fmt: skip
def test_view_grad_and_gradgrad_match_finite_differences(fn):
    x = _leaf(2, 3)
    assert gradcheck(fn, (x,))
    assert gradgradcheck(fn, (x,))


def test_cat_and_stack_grads_split_the_gradient_and_cast_back():
    a = _leaf(2, 3)
    b = numtorch.randn(1, 3, dtype=numtorch.float32, requires_grad=True)
    empty = numtorch.zeros(0, dtype=numtorch.float64, requires_grad=True)
    out = numtorch.cat([a, empty, b])
    assert out.dtype == numtorch.float64
    (out * numtorch.arange(9.0).reshape(3, 3)).sum().backward()
    assert a.grad.tolist() == [[0.0, 1.0, 2.0], [3.0, 4.0, 5.0]]
    assert b.grad.dtype == numtorch.float32 and b.grad.tolist() == [[6.0, 7.0, 8.0]]
    assert empty.grad.shape == (0,)
    assert gradcheck(lambda p, q: numtorch.stack([p, q], 1), (_leaf(2, 3), _leaf(2, 3)))
    assert gradgradcheck(lambda p, q: numtorch.cat([p, q], -1), (_leaf(2, 3), _leaf(2, 1)))


def test_copy_grad_flows_to_source_only():
    src = _leaf(3)
    dst = numtorch.zeros(2, 3, dtype=numtorch.float32)
    dst.copy_(src)
    assert dst.requires_grad and dst.grad_fn is not None
    dst.sum().backward()
    assert src.grad.tolist() == [2.0, 2.0, 2.0] and src.grad.dtype == numtorch.float64


def test_view_dtype_is_not_differentiable():
    x = _leaf(3)
    assert not x.view(numtorch.int64).requires_grad
    assert not x.view(numtorch.float64).requires_grad


def test_to_grad_casts_back_to_the_input_dtype():
    x = _leaf(3)
    x.to(numtorch.float32).sum().backward()
    assert x.grad.dtype == numtorch.float64 and x.grad.tolist() == [1.0, 1.0, 1.0]


def test_repeat_and_repeat_interleave_grads():
    assert gradcheck(lambda x: x.repeat(2, 1, 2), (_leaf(2, 3),))
    assert gradcheck(lambda x: x.repeat_interleave(2, 1), (_leaf(2, 3),))
    assert gradcheck(lambda x: x.repeat_interleave(numtorch.tensor([1, 0, 2]), 1), (_leaf(2, 3),))
    assert gradcheck(lambda x: x.repeat_interleave(3), (_leaf(2, 2),))


# ---- hypothesis round trips -------------------------------------------------------------------------
_shapes = st.lists(st.integers(1, 4), min_size=0, max_size=4)


@settings(max_examples=40, deadline=None)
@given(_shapes, st.randoms(use_true_random=False))
def test_reshape_round_trip_restores_values_and_views_when_contiguous(shape, rnd):
    n = int(np.prod(shape))
    x = numtorch.arange(float(n)).reshape(shape).clone()
    flat = x.reshape(-1)
    assert flat._base is x and flat.shape == (n,)
    back = flat.reshape(shape)
    assert back.tolist() == x.tolist() and back.stride() == x.stride()
    perm = list(range(len(shape)))
    rnd.shuffle(perm)
    y = x.permute(perm).reshape(-1).reshape([shape[p] for p in perm])
    np.testing.assert_array_equal(y.numpy(), np.transpose(x.numpy(), perm))


@settings(max_examples=40, deadline=None)
@given(_shapes, st.randoms(use_true_random=False))
def test_permute_then_inverse_permute_is_the_identity_view(shape, rnd):
    x = numtorch.arange(float(np.prod(shape))).reshape(shape).clone()
    perm = list(range(len(shape)))
    rnd.shuffle(perm)
    inv = list(np.argsort(perm))
    y = x.permute(perm)
    np.testing.assert_array_equal(y.numpy(), np.transpose(x.numpy(), perm))
    z = y.permute(inv)
    assert z.stride() == x.stride() and z.tolist() == x.tolist() and z._base is x


@settings(max_examples=40, deadline=None)
@given(
    _shapes, st.lists(st.integers(1, 3), min_size=0, max_size=2), st.randoms(use_true_random=False)
)
def test_expand_matches_numpy_broadcast_and_sums_back(shape, lead, rnd):
    small = [1 if rnd.random() < 0.5 else s for s in shape]
    x = numtorch.arange(float(np.prod(small))).reshape(small)
    target = list(lead) + list(shape)
    y = x.expand(*target) if target else x.expand(())
    np.testing.assert_array_equal(y.numpy(), np.broadcast_to(x.numpy(), target))
    assert all(
        s == 0 for s, a, b in zip(y.stride()[len(lead) :], small, shape, strict=False) if a != b
    )
    reps = int(np.prod(target)) // max(int(np.prod(small)), 1)
    assert_close(y.sum_to_size(small), x * reps)


# ---- rot90 / diff: PyTorch's decompositions and checks ------------------------------------------
def test_rot90_matches_numpy_and_raises_pytorchs_errors():
    a = np.arange(24.0).reshape(2, 3, 4)
    for k, dims in ((1, (0, 1)), (2, (1, 2)), (3, (2, 0)), (-1, (0, 2)), (4, (0, 1))):
        np.testing.assert_array_equal(numtorch.rot90(numtorch.tensor(a), k, dims).numpy(), np.rot90(a, k, dims))
    x = numtorch.tensor(np.arange(12.0).reshape(3, 4))
    assert x.rot90().stride() == (1, 4) and x.rot90(4).stride() == (4, 1)
    cases = [((1, (0, 0)), RuntimeError, "expected rotation dims to be different, but got dim0 = 0 and dim1 = 0"),
             ((1, (0, 1, 2)), RuntimeError, "expected total rotation dims == 2, but got dims = 3"),
             ((1, (0, 2)), IndexError, r"Dimension out of range \(expected to be in range of \[-2, 1\], but got 2\)")]  # fmt: skip
    for args, exc, msg in cases:
        with pytest.raises(exc, match=f"^{msg}$"):
            x.rot90(*args)
    with pytest.raises(RuntimeError, match="^expected total dims >= 2, but got total dims = 1$"):
        numtorch.tensor([1]).rot90()


def test_diff_matches_numpy_with_prepend_append_and_bool():
    a = np.arange(12.0).reshape(3, 4) ** 2
    np.testing.assert_array_equal(numtorch.diff(numtorch.tensor(a), 2, 0).numpy(), np.diff(a, 2, 0))
    pre, app = np.zeros((3, 1)), np.ones((3, 2))
    got = numtorch.diff(numtorch.tensor(a), prepend=numtorch.tensor(pre), append=numtorch.tensor(app))
    np.testing.assert_array_equal(got.numpy(), np.diff(a, prepend=pre, append=app))
    assert numtorch.diff(numtorch.tensor([True, False, False])).tolist() == [True, False]
    assert numtorch.diff(numtorch.tensor(a), n=10).shape == (3, 0)
    with pytest.raises(RuntimeError, match="^diff expects input to be at least one-dimensional$"):
        numtorch.diff(numtorch.tensor(1.0))
    with pytest.raises(RuntimeError, match="^diff expects prepend or append to be the same dimension as input$"):
        numtorch.diff(numtorch.tensor(a), prepend=numtorch.ones(1))
    with pytest.raises(RuntimeError, match=r"input.size\(0\) = 3, but got tensor.size\(0\) = 2$"):
        numtorch.diff(numtorch.tensor(a), append=numtorch.ones(2, 1))


# ---- in-place view ops --------------------------------------------------------------------------
def test_inplace_view_ops_become_the_view_and_keep_the_graph():
    x = numtorch.zeros(2, 3)
    v = x._version
    assert x.t_() is x and x.shape == (3, 2) and x.stride() == (1, 3) and x._version == v + 1
    assert numtorch.zeros(2, 1, 3).squeeze_().shape == (2, 3) and numtorch.zeros(2, 1, 1).squeeze_((1, 2)).shape == (2,)
    assert numtorch.zeros(2).unsqueeze_(0).shape == (1, 2) and numtorch.zeros(2, 3).transpose_(0, 1).shape == (3, 2)
    assert numtorch.zeros(2, 3).swapaxes_(0, 1).shape == (3, 2) and numtorch.zeros(2, 3).swapdims_(1, 0).shape == (3, 2)
    assert numtorch.arange(4.0).as_strided_((2,), (2,)).tolist() == [0.0, 2.0]
    b = numtorch.arange(6.0).view(2, 3)
    c = b.view(2, 3)
    c.t_()
    c[0, 1] = 100.0  # still a view of b's storage
    assert b.tolist() == [[0.0, 1.0, 2.0], [100.0, 4.0, 5.0]] and c._base is b._base
    y = numtorch.zeros(2, 3, requires_grad=True)
    with pytest.raises(RuntimeError, match="^a leaf Variable that requires grad is being used in an in-place operation.$"):
        y.t_()
    q = y * 3
    q.t_()
    q.unsqueeze_(0)
    (q * numtorch.arange(6.0).view(1, 3, 2)).sum().backward()
    assert y.grad.tolist() == [[0.0, 6.0, 12.0], [3.0, 9.0, 15.0]]
    y.grad = None
    r = (y * 2)[0]
    r.unsqueeze_(0)  # an in-place view op on a view
    (r * numtorch.tensor([[1.0, 2.0, 3.0]])).sum().backward()
    assert y.grad.tolist() == [[2.0, 4.0, 6.0], [0.0, 0.0, 0.0]]
    with pytest.raises(RuntimeError, match="^t_\\(\\) expects a tensor with <= 2 dimensions, but self is 3D$"):
        numtorch.zeros(2, 3, 4).t_()


# Note [Reshape fast path] and Tensor.expand's fast call: the same strides, values, base and
# version counter as the dispatched body, and the body's errors
@pytest.mark.parametrize(
    "src, size",
    [((), (8,)), ((), (2, 3)), ((3, 1), (3, 4)), ((3, 1), (2, 3, 4)), ((3, 1), (1, 1, 3, 1)),
     ((3, 1), (-1, 5)), ((1, 4), (1, 1, 4)), ((2, 3), (4, 2, 3))],  # fmt: skip
)
def test_expand_fast_call_matches_body(src, size):
    from numtorch._dispatch import dispatch
    from numtorch.ops.shape.core import expand

    x = numtorch.tensor(np.arange(float(np.prod(src))).reshape(src))
    got, ref = x.expand(*size), dispatch(expand, [x, list(size), False])
    assert got.shape == ref.shape and got.stride() == ref.stride() and got._base is x
    assert_close(got, ref)
    x.add_(1)  # a view: shares the memory and the version counter
    assert got._version == x._version
    assert_close(got, ref)


def test_expand_fast_call_errors_are_the_body_errors():
    x = numtorch.zeros(2, 3)
    with pytest.raises(RuntimeError, match=r"The expanded size of the tensor \(4\) must match"):
        x.expand(2, 4)
    with pytest.raises(RuntimeError, match="must be greater or equal to the number of dimensions"):
        x.expand(3)
    with pytest.raises(TypeError):
        x.expand()


def test_reshape_of_a_permuted_tensor_copies_once():
    x = numtorch.arange(24.0).reshape(2, 3, 4).transpose(0, 2)
    y = x.reshape(12, 2)
    assert y.is_contiguous() and y._base is None and y.stride() == (2, 1)
    assert_close(y, numtorch.from_numpy(np.ascontiguousarray(x.numpy()).reshape(12, 2)))
    x.add_(1)  # a copy: the result keeps the old values
    assert y[0, 0].item() == 0.0
    c = x.contiguous()
    assert c.is_contiguous() and c.stride() == (6, 2, 1)
    assert_close(c, x)


@pytest.mark.parametrize("how", ["reshape", "view"])
def test_reshape_of_a_strided_viewable_tensor_is_the_body_view(how):
    from numtorch._dispatch import dispatch
    from numtorch.ops.shape.core import view

    base = numtorch.tensor(np.arange(4096.0).reshape(2, 2, 32, 32))
    x = base.permute(0, 3, 1, 2)  # strides (2048, 1, 1024, 32): the last two dims merge
    y, ref = getattr(x, how)(2, 32, 64), dispatch(view, [x, [2, 32, 64]])
    assert y.stride() == ref.stride() == (2048, 1, 32) and y._base is base
    assert y.storage_offset() == ref.storage_offset()
    assert_close(y, ref)
    base.add_(1)  # a view: sees the write
    assert_close(y, ref)
    assert y._version == base._version


@pytest.mark.parametrize("dims", [(0, 2), (-1, 0), (1, 1), (2, -3)])
def test_transpose_fast_call_matches_body(dims):
    from numtorch._dispatch import dispatch
    from numtorch.ops.shape.core import transpose

    x = numtorch.tensor(np.arange(24.0).reshape(2, 3, 4))
    got, ref = x.transpose(*dims), dispatch(transpose, [x, *dims])
    assert got.shape == ref.shape and got.stride() == ref.stride() and got._base is x
    assert_close(got, ref)
    assert got._version == x._version
    with pytest.raises(IndexError, match="Dimension out of range"):
        x.transpose(0, 3)


def test_stack_is_one_node_and_casts_each_gradient_to_its_input():
    a = numtorch.randn(2, 3, requires_grad=True)
    b = numtorch.randn(2, 3, dtype=numtorch.float64, requires_grad=True)
    s = numtorch.stack([a, b], -1)
    assert type(s.grad_fn).__name__ == "StackBackward0" and s.dtype is numtorch.float64
    assert s.shape == (2, 3, 2) and s.is_contiguous()
    np.testing.assert_array_equal(s.detach().numpy(), np.stack([a.detach().numpy(), b.detach().numpy()], -1))
    (s * numtorch.tensor([1.0, 2.0], dtype=numtorch.float64)).sum().backward()
    assert a.grad.dtype is numtorch.float32 and b.grad.dtype is numtorch.float64
    assert a.grad.tolist() == [[1.0] * 3] * 2 and b.grad.tolist() == [[2.0] * 3] * 2


def test_as_strided_and_view_as_complex_share_storage_with_offsets():
    base = numtorch.arange(12.0)
    for src in (base, base[2:]):  # an owning array and a view with a storage offset
        v = src.as_strided((2, 2), (1, 3))
        np.testing.assert_array_equal(v.numpy(), np.lib.stride_tricks.as_strided(
            src.numpy(), (2, 2), (src.numpy().itemsize, 3 * src.numpy().itemsize)))
        assert v.storage_offset() == src.storage_offset() and v._base is base
        c = numtorch.view_as_complex(src.view(-1, 2))
        assert c.storage_offset() * 2 == src.storage_offset()
        np.testing.assert_array_equal(c.numpy(), src.numpy()[0::2] + 1j * src.numpy()[1::2])
    c[0] = 7 + 8j
    assert base[2:4].tolist() == [7.0, 8.0]


@pytest.mark.parametrize("geometry", [((2, 2), (1, 2)), ((3, 4), (4, 1)), ((3, 4), (4, 1), 4), ((2, 3), (2, 1)),
                                      ((4,), (6,)), ((2, 2), (0, 1))])  # fmt: skip
def test_as_strided_backward_on_contiguous_and_overlapping_geometries(geometry):
    # a C-contiguous source or view geometry takes the slice path of _as_strided_backward_cpu
    from numtorch.autograd import gradcheck, gradgradcheck

    x = numtorch.randn(6, 4, dtype=numtorch.float64, requires_grad=True)
    assert gradcheck(lambda a: a.as_strided(*geometry), (x,))
    assert gradgradcheck(lambda a: a[1:].as_strided(*geometry), (x,))


def test_cat_fast_routes_keep_autograd_modes_and_checks():
    # Note [Tensor-list fast path] and _cat_same: the direct kernel only for plain, no-grad calls
    from .._harness import op_log

    a, b = numtorch.arange(6.0).reshape(2, 3), numtorch.ones(2, 1)
    r = numtorch.cat([a, b], -1)
    assert r.shape == (2, 4) and r.tolist() == [[0, 1, 2, 1], [3, 4, 5, 1]] and r.grad_fn is None
    g = a.clone().requires_grad_(True)
    rg = numtorch.cat([g, b], 1)
    assert rg.grad_fn is not None
    rg.sum().backward()
    assert g.grad.tolist() == [[1.0] * 3] * 2
    mode, seen = op_log()
    with mode:
        numtorch.cat([a, b], 1)
    assert seen == ["aten.cat.default"]
    m = numtorch.cat([a, numtorch.ones(2, 1, dtype=numtorch.float64)], 1)  # promotion: the checked route
    assert m.dtype == numtorch.float64 and m.tolist() == [[0, 1, 2, 1], [3, 4, 5, 1]]
    with pytest.raises(RuntimeError, match="Sizes of tensors must match except in dimension 1"):
        numtorch.cat([a, numtorch.ones(3, 1)], 1)
    with pytest.raises(IndexError, match="Dimension out of range"):
        numtorch.cat([a, b], 2)
    assert numtorch.cat([numtorch.ones(2), numtorch.tensor([])]).tolist() == [1.0, 1.0]
