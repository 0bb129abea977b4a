"""Operator tags of the aten ops, derived from the registry once every op is declared.

Family rules first (the elementwise engine's ops are ``pointwise``; a schema that writes
``self`` and ends in ``_`` is ``inplace``; ``out=`` overloads are ``out``; a packet that takes a
``Generator`` is ``nondeterministic_seeded``; the in-place form of a view is ``inplace_view``;
``X_copy`` of a view ``X`` is ``view_copy``); the sets below hold only what PyTorch tags by
hand in native_functions.yaml and no rule recovers (the core ATen IR above all).
"""

from __future__ import annotations

from .._tags import Tag
from ._registry import OPS

# PyTorch's core ATen IR: the overloads a backend must implement (chosen, no rule).
CORE = frozenset("""
sort _local_scalar_dense
empty.memory_format full full_like arange.start_step empty_strided scalar_tensor rand randn
randperm view alias squeeze.dim squeeze.dims unsqueeze permute expand slice.Tensor select.int
as_strided diagonal clone flip repeat fill.Scalar resize_ cat split_with_sizes sum.dim_IntList
mean mean.dim prod prod.dim_int amax amin max.dim min.dim argmax argmin any.dims cumsum _softmax
_log_softmax topk var.correction _to_copy index.Tensor index_put gather scatter.src
scatter.value scatter_add scatter_reduce.two index_select masked_scatter where.self nonzero mm
bmm addmm add.Tensor add.Scalar sub.Tensor sub.Scalar mul.Tensor mul.Scalar div.Tensor
div.Scalar div.Tensor_mode div.Scalar_mode remainder.Tensor remainder.Scalar fmod.Tensor
fmod.Scalar pow.Tensor_Tensor pow.Tensor_Scalar pow.Scalar neg abs sign reciprocal sqrt rsqrt
exp expm1 log log2 log10 log1p sin cos tan asin acos atan sinh cosh asinh acosh atanh erf tanh
sigmoid floor ceil trunc logical_not bitwise_not isnan isinf round eq.Tensor eq.Scalar ne.Tensor
ne.Scalar lt.Tensor lt.Scalar le.Tensor le.Scalar gt.Tensor gt.Scalar ge.Tensor ge.Scalar
logical_and logical_or logical_xor bitwise_and.Tensor bitwise_and.Scalar bitwise_or.Tensor
bitwise_or.Scalar bitwise_xor.Tensor bitwise_xor.Scalar atan2 atan2.out maximum minimum clamp
clamp.Tensor relu leaky_relu elu gelu hardtanh convolution convolution_backward col2im embedding
embedding_dense_backward native_layer_norm native_layer_norm_backward native_group_norm
native_group_norm_backward max_pool2d_with_indices max_pool2d_with_indices_backward avg_pool2d
avg_pool2d_backward avg_pool1d _adaptive_avg_pool2d _adaptive_avg_pool2d_backward
reflection_pad1d reflection_pad2d replication_pad2d reflection_pad3d replication_pad3d constant_pad_nd _fft_r2c _fft_c2r
max_pool3d_with_indices avg_pool3d _adaptive_avg_pool3d
""".split())

# Tagged reduction in native_functions.yaml (per overload: all.dims is, all.default is not).
REDUCTIONS = frozenset("""
sum sum.dim_IntList sum.IntList_out nansum nansum.out mean mean.dim mean.out prod prod.dim_int
prod.int_out amax amax.out amin amin.out max max.unary_out max.dim max.dim_max min min.unary_out
min.dim min.dim_min argmax argmax.out argmin argmin.out aminmax aminmax.out all.dims
all.dims_out any.dims any.dims_out count_nonzero.dim_IntList var.correction var.correction_out
std.correction std.correction_out var_mean.correction std_mean.correction norm.ScalarOpt_dim
norm.out norm.ScalarOpt_dim_dtype logsumexp logsumexp.out linalg_vector_norm
linalg_vector_norm.out
""".split())

# Engine ops PyTorch leaves untagged (its pointwise tag is per overload, by hand).
NOT_POINTWISE = frozenset("""
add.Scalar_out sub.Scalar_out rsub.Tensor rsub.Tensor_out rsub.Scalar_out mul.Scalar_out
div.Scalar_out div.Scalar_mode_out floor_divide floor_divide.out floor_divide_.Tensor
floor_divide.Scalar floor_divide.Scalar_out floor_divide_.Scalar remainder.Scalar_Tensor_out
abs_ eq_.Tensor eq_.Scalar ne_.Tensor ne_.Scalar lt_.Tensor lt_.Scalar le_.Tensor le_.Scalar
gt_.Tensor gt_.Scalar ge_.Tensor ge_.Scalar bitwise_and.Scalar_Tensor_out
bitwise_or.Scalar_Tensor_out bitwise_xor.Scalar_Tensor_out bitwise_left_shift.Scalar_Tensor_out
bitwise_right_shift.Scalar_Tensor_out xlogy_.Scalar_Other copysign_.Tensor copysign_.Scalar
heaviside_ gcd_ lcm_ leaky_relu_backward hardtanh_backward hardsigmoid_backward
hardswish_backward elu_backward mish_backward softplus_backward log_sigmoid_backward
hardshrink_backward softshrink_backward relu.out threshold.out threshold_ leaky_relu.out elu.out
mish.out mish_ softplus.out hardtanh.out hardsigmoid.out hardswish hardswish.out hardswish_
log_sigmoid log_sigmoid.out hardshrink.out softshrink.out _conj_physical.out
""".split())

# Pointwise in PyTorch, not built on the elementwise engine here (composites, where, clone).
POINTWISE = frozenset("""
clone max.other min.other masked_fill.Scalar where.self square square.out square_ positive equal
float_power.Tensor_Tensor float_power.Tensor_Tensor_out float_power_.Tensor
float_power.Tensor_Scalar float_power.Tensor_Scalar_out float_power_.Scalar float_power.Scalar
float_power.Scalar_out ldexp.Tensor ldexp.out ldexp_ polygamma_ gelu_backward gelu selu selu_
celu celu_ relu6 rrelu
""".split())

# out= overloads PyTorch's codegen writes (its generated tag).
GENERATED = frozenset("""
scalar_tensor.out prod.out count_nonzero.dim_IntList_out median.out nanmedian.out
index_fill.int_Scalar_out index_fill.int_Tensor_out masked_fill.Scalar_out
masked_fill.Tensor_out masked_scatter.out add.Scalar_out sub.Scalar_out rsub.Tensor_out
rsub.Scalar_out mul.Scalar_out div.Scalar_out div.Scalar_mode_out floor_divide.Scalar_out
remainder.Scalar_Tensor_out bitwise_and.Scalar_Tensor_out bitwise_or.Scalar_Tensor_out
bitwise_xor.Scalar_Tensor_out bitwise_left_shift.Scalar_Tensor_out
bitwise_right_shift.Scalar_Tensor_out relu.out _conj_physical.out
""".split())

# Random without a Generator argument: dropout family, attention and the RNN layers.
RANDOM_LAYERS = frozenset("""
alpha_dropout alpha_dropout_ dropout dropout_ feature_alpha_dropout feature_alpha_dropout_
feature_dropout feature_dropout_ gru lstm rnn_relu rnn_tanh scaled_dot_product_attention
""".split())

# Tagged dynamic_output_shape in native_functions.yaml.
DYNAMIC_OUTPUT_SHAPE = frozenset("""
_ctc_loss repeat_interleave.Tensor _unique2 unique_dim index.Tensor masked_select masked_select.out
nonzero nonzero.out argwhere bincount linalg_lstsq one_hot
""".split())

# Tagged inplace_view in native_functions.yaml.
INPLACE_VIEW = frozenset("""
resize_ resize_as_
""".split())

# Tagged maybe_aliasing_or_mutating in native_functions.yaml.
MAYBE_ALIASING_OR_MUTATING = frozenset("""
atleast_1d atleast_2d atleast_3d cartesian_prod conj_physical dropout feature_dropout
alpha_dropout feature_alpha_dropout batch_norm
""".split())

# Tagged data_dependent_output in native_functions.yaml.
DATA_DEPENDENT_OUTPUT = frozenset("""
_local_scalar_dense
allclose equal
""".split())
# the remaining hand-set tags, by the set that holds them
_BY_SET = {Tag.dynamic_output_shape: DYNAMIC_OUTPUT_SHAPE, Tag.inplace_view: INPLACE_VIEW,
           Tag.maybe_aliasing_or_mutating: MAYBE_ALIASING_OR_MUTATING,
           Tag.data_dependent_output: DATA_DEPENDENT_OUTPUT, Tag.core: CORE, Tag.reduction: REDUCTIONS,
           Tag.generated: GENERATED, Tag.pointwise: POINTWISE}  # fmt: skip


def _key(op) -> str:
    s = op._schema
    return s.name + (f".{s.overload_name}" if s.overload_name else "")


def _is_engine(op) -> bool:
    impl = op.impls.get("cpu")
    owner = getattr(impl, "__self__", None)
    return hasattr(owner, "dtypes") and getattr(impl, "__name__", "") in ("unary", "binary")


def _has_generator(packet) -> bool:
    return any(a.type.startswith("Generator") for ov in packet._overloads.values() for a in ov._schema.arguments)


def derive(op, views: set) -> set:
    s = op._schema
    name, key = s.name, _key(op)
    tags = set(op.tags) | {Tag.pt2_compliant_tag}
    if _is_engine(op):
        tags.add(Tag.pointwise)
    if key in NOT_POINTWISE:
        tags.discard(Tag.pointwise)
    if op.kind == "out":
        tags.add(Tag.out)
    elif op.kind == "inplace" and name.endswith("_") and not name.endswith("__"):
        tags.add(Tag.inplace)
        if name[:-1] in views:
            tags.add(Tag.inplace_view)
    if name.endswith("_copy") and name[:-5] in views:
        tags.add(Tag.view_copy)
    if _has_generator(op._packet) or name in RANDOM_LAYERS:
        tags.add(Tag.nondeterministic_seeded)
    tags.update(t for t, names in _BY_SET.items() if key in names)
    return tags


def install() -> None:
    """Give every aten overload its tags, in PyTorch's order (by value)."""
    aten = [op for op in OPS.values() if op._schema.namespace == "aten"]
    views = {op._schema.name for op in aten if op.kind == "view"}
    for op in aten:
        op.tags = tuple(sorted(derive(op, views), key=lambda t: t.value))


__all__ = ["install", "CORE"]
