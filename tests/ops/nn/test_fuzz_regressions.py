"""nn regressions found by differential fuzzing against PyTorch (issue 10); expected values are
PyTorch 2.13's."""

import math

import numpy as np
import pytest

import numtorch
import numtorch.nn.functional as F

nan, inf = math.nan, math.inf


def test_cosine_similarity_broadcasts_before_normalising():
    a = numtorch.tensor([[0.0, 0.5]], dtype=numtorch.float64)
    b = numtorch.tensor([0.5], dtype=numtorch.float64)
    np.testing.assert_allclose(F.cosine_similarity(a, b, dim=-1).numpy(), [0.7071067811865475])


def _plane_with_nan_and_inf():
    x = numtorch.arange(16.0).reshape(1, 1, 4, 4)
    x[0, 0, 0, 0] = nan
    x[0, 0, 3, 3] = inf
    return x


def test_avg_pool_nan_and_inf_stay_in_their_windows():
    x = _plane_with_nan_and_inf()
    np.testing.assert_array_equal(F.avg_pool2d(x, 2).numpy(), [[[[nan, 4.5], [10.5, inf]]]])
    np.testing.assert_array_equal(
        F.avg_pool2d(x, 2, 1).numpy(), [[[[nan, 3.5, 4.5], [6.5, 7.5, 8.5], [10.5, 11.5, inf]]]]
    )
    np.testing.assert_array_equal(
        F.avg_pool1d(x[0], 2).numpy(), [[[nan, 2.5], [4.5, 6.5], [8.5, 10.5], [12.5, inf]]]
    )
    np.testing.assert_array_equal(F.adaptive_avg_pool2d(x, 2).numpy(), [[[[nan, 4.5], [10.5, inf]]]])


def test_conv_bias_gradient_nan_stays_in_its_channel():
    w = numtorch.ones(2, 1, 1, 1, requires_grad=True)
    b = numtorch.zeros(2, requires_grad=True)
    y = F.conv2d(numtorch.ones(1, 1, 2, 2), w, b)
    g = numtorch.ones_like(y)
    g[0, 0, 0, 0] = nan
    y.backward(g)
    np.testing.assert_array_equal(b.grad.numpy(), [nan, 4.0])


def test_huber_loss_mixed_dtypes_give_the_input_dtype():
    for a, b in [(numtorch.float32, numtorch.float64), (numtorch.float64, numtorch.float32)]:
        x, t = numtorch.tensor([0.5, 3.0], dtype=a), numtorch.tensor([0.0, 0.0], dtype=b)
        for red in ("none", "mean", "sum"):
            r = F.huber_loss(x, t, reduction=red)
            assert r.dtype is a
        np.testing.assert_allclose(F.huber_loss(x, t, reduction="none").numpy(), [0.125, 2.5])


def test_bce_with_logits_mixed_dtypes_give_the_target_dtype():
    for a, b in [(numtorch.float32, numtorch.float64), (numtorch.float64, numtorch.float32)]:
        x, t = numtorch.tensor([0.0, 2.0], dtype=a), numtorch.tensor([1.0, 0.0], dtype=b)
        assert F.binary_cross_entropy_with_logits(x, t, reduction="none").dtype is b
        pw = numtorch.ones(2, dtype=numtorch.float64)
        assert F.binary_cross_entropy_with_logits(x, t, pos_weight=pw).dtype is b


def test_bce_rejects_a_target_of_another_dtype():
    x = numtorch.tensor([0.5, 0.25])
    with pytest.raises(RuntimeError, match="^Found dtype Double but expected Float$"):
        F.binary_cross_entropy(x, x.double())


@pytest.mark.parametrize("idx,exc,msg", [
    (numtorch.tensor([0.0, 1.0]), RuntimeError, "argument #2 'indices' .* but got torch.FloatTensor instead "
                                                r"\(while checking arguments for embedding_renorm_\)"),
    (numtorch.tensor([True]), RuntimeError, "but got CPUBoolType instead"),
    (numtorch.tensor([0, 5]), IndexError, r"select\(\): index 5 out of range for tensor of size \[3, 2\] at dimension 0"),
    (numtorch.tensor([-1, 0]), IndexError, "index out of range in self"),
])  # fmt: skip
def test_embedding_max_norm_validates_indices_before_renormalising(idx, exc, msg):
    w = numtorch.full((3, 2), 5.0)
    with pytest.raises(exc, match=msg):
        F.embedding(idx, w, max_norm=1.0)
    assert w.tolist() == [[5.0, 5.0]] * 3


@pytest.mark.parametrize("fn", [F.binary_cross_entropy, F.mse_loss, F.binary_cross_entropy_with_logits,
                                F.huber_loss, F.smooth_l1_loss])  # fmt: skip
def test_float16_losses_reduce(fn):
    x = numtorch.tensor([0.3, 0.7, 0.1], dtype=numtorch.float16)
    t = numtorch.tensor([0.0, 1.0, 1.0], dtype=numtorch.float16)
    want = fn(x.float(), t.float(), reduction="none").double().sum().item()
    r = fn(x, t, reduction="sum")
    assert r.dtype is numtorch.float16
    assert abs(r.item() - want) < 1e-2 * abs(want)


def test_layer_norm_empty_normalized_shape():
    out, mean, rstd = numtorch.native_layer_norm(numtorch.ones(2, 0), (0,), None, None, 1e-5)
    assert out.shape == (2, 0) and mean.tolist() == [[0.0], [0.0]]
    assert all(math.isnan(v) for v in rstd.reshape(-1).tolist())


@pytest.mark.parametrize("kw,msg", [
    (dict(kernel_size=0), "kernel size should be greater than zero, but got kernel_height: 0 kernel_width: 0"),
    (dict(kernel_size=(2, 0)), "kernel size should be greater than zero, but got kernel_height: 2 kernel_width: 0"),
    (dict(kernel_size=2, dilation=0, padding=-1), "dilation should be greater than zero, but got dilation_height: 0"),
    (dict(kernel_size=2, stride=0, padding=-1), "padding should be non-negative, but got pad_height: -1 pad_width: -1"),
    (dict(kernel_size=2, stride=0), "stride should be greater than zero, but got stride_height: 0 stride_width: 0"),
])  # fmt: skip
def test_unfold_fold_check_their_parameters(kw, msg):
    with pytest.raises(RuntimeError, match=msg):
        F.unfold(numtorch.ones(1, 1, 3, 3), **kw)
    with pytest.raises(RuntimeError, match=msg):
        F.fold(numtorch.ones(1, 4, 4), (3, 3), **kw)


@pytest.mark.parametrize("training", [True, False])
def test_batch_norm_of_no_samples_leaves_running_stats(training):
    # at::_batch_norm_impl_index: an empty batch gives no statistics, so the running stats stay
    rm = numtorch.tensor([2.125, 5.404, 0.175], dtype=numtorch.float64)
    rv = numtorch.tensor([6.5, 2.8, 3.1], dtype=numtorch.float64)
    w = numtorch.ones(3, dtype=numtorch.float64, requires_grad=True)
    out = F.batch_norm(numtorch.zeros(0, 3, dtype=numtorch.float64), rm, rv, w, w, training=training)
    assert out.shape == (0, 3)
    np.testing.assert_array_equal(rm.numpy(), [2.125, 5.404, 0.175])
    np.testing.assert_array_equal(rv.numpy(), [6.5, 2.8, 3.1])
    out.sum().backward()
    np.testing.assert_array_equal(w.grad.numpy(), [0.0, 0.0, 0.0])


def test_batchnorm_module_on_an_empty_batch_keeps_its_running_stats():
    m = numtorch.nn.BatchNorm1d(3)
    m(numtorch.zeros(0, 3))
    np.testing.assert_array_equal(m.running_mean.numpy(), [0.0, 0.0, 0.0])
    np.testing.assert_array_equal(m.running_var.numpy(), [1.0, 1.0, 1.0])


def test_adaptive_avg_pool_refuses_integer_input():
    x = numtorch.tensor([[1, 4, 2], [-1, -1, -5]])
    # a 1x1 output is mean() in PyTorch, other sizes reach a kernel without integer variants
    with pytest.raises(RuntimeError, match=r"^mean\(\): could not infer output dtype\. .* Got: Long$"):
        F.adaptive_avg_pool1d(x, 1)
    with pytest.raises(NotImplementedError, match="^\"adaptive_avg_pool2d\" not implemented for 'Long'$"):
        F.adaptive_avg_pool1d(x, 2)
    np.testing.assert_allclose(F.adaptive_avg_pool1d(x.float(), 1).numpy(), [[7 / 3], [-7 / 3]], rtol=1e-6)


def test_interpolate_keeps_an_inf_where_no_tap_weighs_it_by_zero():
    x = numtorch.tensor([[[1.0, inf, 3.0, 4.0]]])
    near = F.interpolate(x, scale_factor=2, mode="nearest")
    np.testing.assert_array_equal(near.numpy(), np.repeat(x.numpy(), 2, axis=-1))
    lin = F.interpolate(x, scale_factor=2, mode="linear")  # PyTorch's: 1 * 1 + 0 * inf at the left edge
    np.testing.assert_array_equal(lin.numpy(), [[[nan, inf, inf, inf, inf, 3.25, 3.75, 4.0]]])
    pad = F.pad(x, (1, 1), mode="replicate")
    np.testing.assert_array_equal(pad.numpy(), [[[1.0, 1.0, inf, 3.0, 4.0, 4.0]]])


@pytest.mark.parametrize("name,kernel", [("silu", "silu_cpu"), ("hardswish", "hardswish_cpu"), ("mish", "mish_cpu")])
def test_float_only_activations_refuse_integers_with_not_implemented_error(name, kernel):
    with pytest.raises(NotImplementedError, match=f"^\"{kernel}\" not implemented for 'Long'$"):
        getattr(F, name)(numtorch.tensor([1, 2]))


@pytest.mark.parametrize("mode", ["reflect", "replicate"])
@pytest.mark.parametrize("shape", [(0, 3), (2, 3, 0), (0, 3, 3), (1, 0, 3, 3)])
def test_reflect_replicate_pad_refuse_an_empty_non_batch_dimension(mode, shape):
    pad = (1, 1) if len(shape) < 4 and shape != (0, 3, 3) else (1, 1, 1, 1)
    n = len(pad) // 2
    with pytest.raises(RuntimeError, match=rf"^Expected {n + 1}D or {n + 2}D \(batch mode\) tensor with possibly 0 "
                       rf"batch size and other non-zero dimensions for input, but got: \[{', '.join(map(str, shape))}\]$"):  # fmt: skip
        F.pad(numtorch.zeros(shape), pad, mode=mode)


@pytest.mark.parametrize("mode", ["reflect", "replicate"])
def test_reflect_replicate_pad1d_of_an_empty_batch(mode):
    x = numtorch.zeros(0, 2, 3, requires_grad=True)
    y = F.pad(x, (1, 1), mode=mode)
    y.sum().backward()
    assert y.shape == (0, 2, 5) and x.grad.shape == (0, 2, 3)


@pytest.mark.parametrize("dtype", [numtorch.int64, numtorch.bool])
def test_bce_with_logits_refuses_a_non_floating_input_as_log_sigmoid_does(dtype):
    name = "Long" if dtype is numtorch.int64 else "Bool"
    with pytest.raises(NotImplementedError, match=f"^\"log_sigmoid_cpu\" not implemented for '{name}'$"):
        F.binary_cross_entropy_with_logits(numtorch.tensor([1, 0], dtype=dtype), numtorch.tensor([1.0, 0.0]))


@pytest.mark.parametrize("dtype,name", [(numtorch.uint8, "Byte"), (numtorch.int64, "Long")])
def test_unfold_fold_refuse_integer_input(dtype, name):
    with pytest.raises(NotImplementedError, match=f"^\"im2col_out_cpu\" not implemented for '{name}'$"):
        F.unfold(numtorch.ones(1, 1, 3, 3, dtype=dtype), 2)
    with pytest.raises(NotImplementedError, match=f"^\"col2im_out_cpu\" not implemented for '{name}'$"):
        F.fold(numtorch.ones(1, 4, 4, dtype=dtype), (3, 3), 2)


def test_unfold_fold_take_bool_and_complex_input():
    x = numtorch.tensor([[[[1 + 2j, 3j], [4, 5 - 1j]]]], dtype=numtorch.complex64)
    u = F.unfold(x, 1)
    assert u.dtype == numtorch.complex64 and u.flatten().tolist() == x.flatten().tolist()
    assert F.fold(u, (2, 2), 1).tolist() == x.tolist()
    b = numtorch.ones(1, 1, 3, 3, dtype=numtorch.bool)
    # col2im sums the overlapping blocks: a bool output is True wherever any block wrote True
    assert F.fold(F.unfold(b, 2), (3, 3), 2).dtype == numtorch.bool
    assert F.fold(F.unfold(b, 2), (3, 3), 2).all()


@pytest.mark.parametrize("shape,msg", [((2, 3), r"Dimension out of range \(expected to be in range of \[-2, 1\], but got -3\)"),
                                       ((3,), r"Dimension out of range \(expected to be in range of \[-1, 0\], but got -3\)"),
                                       ((), "Dimension specified as -3 but tensor has no dimensions")])  # fmt: skip
def test_avg_pool2d_of_fewer_than_three_dims_is_an_index_error(shape, msg):
    with pytest.raises(IndexError, match=f"^{msg}$"):  # PyTorch's meta function reads input.size(-3) first
        F.avg_pool2d(numtorch.ones(shape), 2)


def test_max_pool2d_of_another_ndim_has_pytorchs_text():
    with pytest.raises(RuntimeError, match=r"^non-empty 3D or 4D \(batch mode\) tensor expected for input$"):
        F.max_pool2d(numtorch.ones(2, 3), 2)


@pytest.mark.parametrize("approximate", ["none", "tanh"])
def test_gelu_refusal_names_pytorchs_kernel(approximate):
    with pytest.raises(NotImplementedError, match="^\"GeluKernelImpl\" not implemented for 'Long'$"):
        F.gelu(numtorch.ones(2, dtype=numtorch.int64), approximate=approximate)


def test_glu_checks_its_dim_as_pytorch():
    with pytest.raises(IndexError, match=r"^Dimension out of range \(expected to be in range of \[-2, 1\], but got -5\)$"):
        F.glu(numtorch.ones(2, 4), -5)


@pytest.mark.parametrize("shape", [(), (1, 1, 1, 2)])
def test_adaptive_avg_pool1d_checks_the_dims_before_the_dtype(shape):
    with pytest.raises(RuntimeError, match=rf"^Expected 2 to 3 dimensions, but got {len(shape)}-dimensional tensor "
                                           r"for argument #1 'self' \(while checking arguments for adaptive_avg_pool1d\)$"):  # fmt: skip
        F.adaptive_avg_pool1d(numtorch.ones(shape, dtype=numtorch.int64), 2)


def test_bce_compares_dtypes_before_refusing_integers():
    with pytest.raises(RuntimeError, match="^Found dtype Float but expected Long$"):
        F.binary_cross_entropy(numtorch.tensor(1), numtorch.tensor(0.5))
    with pytest.raises(NotImplementedError, match="^\"binary_cross_entropy\" not implemented for 'Long'$"):
        F.binary_cross_entropy(numtorch.tensor([1]), numtorch.tensor([1]))


def test_adaptive_avg_pool_of_an_empty_integer_result_runs_no_kernel():
    assert F.adaptive_avg_pool1d(numtorch.ones(0, 3, dtype=numtorch.int64), 2).shape == (0, 2)
    r = F.adaptive_avg_pool2d(numtorch.ones(1, 3, 3, dtype=numtorch.int64), 0)
    assert r.shape == (1, 0, 0) and r.dtype is numtorch.int64
    with pytest.raises(NotImplementedError, match="^\"adaptive_avg_pool2d\" not implemented for 'Long'$"):
        F.adaptive_avg_pool1d(numtorch.ones(1, 3, dtype=numtorch.int64), 2)


def test_huber_loss_refuses_a_float_result_into_an_integer_input():
    with pytest.raises(RuntimeError, match="^result type Float can't be cast to the desired output type Long$"):
        F.huber_loss(numtorch.tensor([1]), numtorch.tensor([3.7]), reduction="sum")
    assert F.huber_loss(numtorch.tensor([1.0]), numtorch.tensor([3]), reduction="sum").item() == 1.5


@pytest.mark.parametrize("target", [[float("nan"), 1.0], [2.0, 1.0], [-0.5, 0.0]])
def test_binary_cross_entropy_checks_its_target_range(target):
    # fuzz seed 30: a NaN target was accepted (PyTorch's kernel checks 0 <= t <= 1, NaN fails it)
    with pytest.raises(RuntimeError, match="^all elements of target should be between 0 and 1$"):
        F.binary_cross_entropy(numtorch.full((2,), 0.5), numtorch.tensor(target))
    with pytest.raises(RuntimeError, match="^all elements of input should be between 0 and 1$"):  # input first
        F.binary_cross_entropy(numtorch.tensor([1.5, 0.5]), numtorch.tensor(target))


def test_cross_entropy_of_a_0d_input_reads_the_class_dim_before_label_smoothing():
    with pytest.raises(IndexError, match="^Dimension specified as 1 but tensor has no dimensions$"):
        F.cross_entropy(numtorch.tensor(2.0), numtorch.tensor(1.0), label_smoothing=1.5)
    with pytest.raises(RuntimeError, match="label_smoothing must be between 0.0 and 1.0. Got: 1.5"):
        F.cross_entropy(numtorch.ones(2, 3), numtorch.ones(2, 3) / 3, label_smoothing=1.5)


@pytest.mark.parametrize("mode,shape,dt,kernel", [
    ("linear", (1, 2, 4), "int64", "compute_indices_weights_linear"),
    ("linear", (1, 2, 4), "uint8", "compute_indices_weights_linear"),
    ("nearest", (1, 2, 4), "int32", "compute_indices_weights_nearest"),
    ("nearest", (1, 2, 4, 4), "bool", "upsample_nearest2d_channels_last"),
    ("bilinear", (0, 2, 4, 4), "int64", "upsample_bilinear2d_channels_last"),
])  # fmt: skip
def test_interpolate_integer_refused(mode, shape, dt, kernel):
    x = numtorch.ones(*shape, dtype=getattr(numtorch, dt))
    with pytest.raises(NotImplementedError, match=f"\"{kernel}\" not implemented for"):
        numtorch.nn.functional.interpolate(x, scale_factor=2, mode=mode)


def test_interpolate_uint8_nearest_and_bilinear_compute():
    F = numtorch.nn.functional
    assert F.interpolate(numtorch.ones(1, 2, 4, dtype=numtorch.uint8), scale_factor=2).dtype is numtorch.uint8
    assert F.interpolate(numtorch.ones(1, 1, 2, 2, dtype=numtorch.uint8), scale_factor=2, mode="bilinear").shape == (1, 1, 4, 4)
    with pytest.raises(RuntimeError, match=r"Input and output sizes should be greater than 0, but got input \(W: 0\) and output \(W: 3\)"):
        F.interpolate(numtorch.ones(1, 2, 0, dtype=numtorch.int64), size=3, mode="linear")


@pytest.mark.parametrize("shape,dt,kw,err,msg", [
    ((1, 2, 4), "int64", {}, NotImplementedError, "\"max_pool1d_impl\" not implemented for 'Long'"),
    ((0, 2, 4), "bool", {}, NotImplementedError, "\"max_pool1d_impl\" not implemented for 'Bool'"),
    ((1, 2, 0), "float32", {}, RuntimeError, r"max_pool1d: Expected 2D or 3D \(batch mode\) tensor with optional 0 dim batch size for input, but got:\[1, 2, 0\]"),
    ((1, 2, 4), "int64", {"kernel_size": 5}, RuntimeError, r"max_pool1d\(\) Invalid computed output size: 0"),
    ((1, 2, 4), "float32", {"padding": 2}, RuntimeError, r"max_pool1d\(\) padding should be at most half of kernel size, but got padding=2 and kernel_size=2"),
    ((1, 2, 4), "float32", {"stride": 0}, RuntimeError, r"max_pool1d\(\) stride must be greater than zero, but got 0"),
])  # fmt: skip
def test_max_pool1d_checks_and_refusal(shape, dt, kw, err, msg):
    kw = {"kernel_size": 2, **kw}
    with pytest.raises(err, match=msg):
        numtorch.nn.functional.max_pool1d(numtorch.ones(*shape, dtype=getattr(numtorch, dt)), **kw)


def test_max_pool1d_integer_with_indices_computes():
    v, i = numtorch.nn.functional.max_pool1d(numtorch.tensor([[[1, 3, 2, 0]]]), 2, return_indices=True)
    assert v.tolist() == [[[3, 2]]] and i.tolist() == [[[1, 2]]]


def test_embedding_max_norm_takes_the_norm_in_the_weight_dtype():
    # fuzz seed 55: the float32 norm of a row holding 1e30 overflows to inf in torch, scaling the
    # row to 0; numtorch's float64 norm scaled it to unit norm (1.0)
    w = numtorch.tensor([[0.5, -1.0, 1e30], [0.3, 0.4, 0.0]])
    r = numtorch.nn.functional.embedding(numtorch.tensor([0, 1]), w, max_norm=1.0)
    assert r.tolist() == [[0.0, -0.0, 0.0], pytest.approx([0.3, 0.4, 0.0])]
    assert w[0].tolist() == [0.0, -0.0, 0.0]  # renormalised in place, as torch


def test_bce_with_logits_of_an_infinite_target_without_pos_weight():
    # no pos_weight: no (pos_weight - 1) * target term, so no 0 * inf (seed 72 gave nan)
    x = numtorch.tensor([4.683, -1.5, 0.25], dtype=numtorch.float64)
    t = numtorch.tensor([-inf, -inf, 0.5], dtype=numtorch.float64)
    got = F.binary_cross_entropy_with_logits(x, t, reduction="none").numpy()
    ref = (1 - t.numpy()) * x.numpy() + np.logaddexp(0, -x.numpy())
    np.testing.assert_allclose(got, ref)
    assert got[0] == inf and got[1] == -inf
    pw = numtorch.tensor([2.0, 1.0, 1.0], dtype=numtorch.float64)
    assert math.isnan(F.binary_cross_entropy_with_logits(x, t, pos_weight=pw, reduction="none")[0].item())
