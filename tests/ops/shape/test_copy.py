"""Copying shape ops and in-place data ops (numtorch/ops/shape/copy.py, join.py, inplace.py)."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import numtorch


def _t():
    return numtorch.arange(6.0).reshape(2, 3).clone()


# ---- layouts ------------------------------------------------------------------------------------
def test_clone_preserves_dense_layouts_and_densifies_the_rest():
    x = _t()
    assert x.t().clone().stride() == (1, 3)
    assert x.t().clone(memory_format=numtorch.contiguous_format).stride() == (2, 1)
    y = numtorch.arange(24.0).reshape(2, 3, 4).permute(2, 0, 1)[::2]
    assert y.clone().stride() == (1, 6, 2)
    e = x.unsqueeze(0).expand(4, 2, 3)
    assert e.clone().stride() == (6, 3, 1)
    c = x.clone()
    c.fill_(1)
    assert x.tolist() == [[0.0, 1.0, 2.0], [3.0, 4.0, 5.0]]


def test_contiguous_returns_self_or_a_c_ordered_copy():
    x = _t()
    assert x.contiguous() is x
    y = x.t().contiguous()
    assert (
        y.is_contiguous()
        and y.stride() == (2, 1)
        and y.tolist() == [[0.0, 3.0], [1.0, 4.0], [2.0, 5.0]]
    )


def test_channels_last_layout():
    x = numtorch.arange(24.0).reshape(1, 2, 3, 4)
    y = x.contiguous(memory_format=numtorch.channels_last)
    assert y.stride() == (24, 1, 8, 2)
    assert y.tolist() == x.tolist()
    assert y.contiguous(memory_format=numtorch.channels_last) is y
    assert repr(numtorch.channels_last) == "torch.channels_last"
    with pytest.raises(RuntimeError, match="required rank 4 tensor to use channels_last format"):
        _t().contiguous(memory_format=numtorch.channels_last)


def test_copies_of_transposed_inputs_follow_torch_layouts():
    x = _t().t()
    assert x.flip(0).stride() == (1, 3)
    assert x.roll(1, 0).stride() == (2, 1)
    assert x.repeat(1, 1).stride() == (2, 1)
    assert x.tril().stride() == (2, 1)
    assert x.to(numtorch.float64).stride() == (1, 3)
    assert numtorch.cat([x, x]).stride() == (2, 1)


# ---- cat / stack ----------------------------------------------------------------------------------
def test_cat_promotes_and_skips_legacy_empty_tensors():
    a = numtorch.zeros(2, 3, dtype=numtorch.int8)
    b = numtorch.ones(2, 3, dtype=numtorch.uint8)
    assert numtorch.cat([a, b]).dtype == numtorch.int16
    assert numtorch.cat([a, numtorch.zeros(0)]).dtype == numtorch.float32
    assert numtorch.cat([numtorch.zeros(0), _t()], dim=1).shape == (2, 3)
    assert numtorch.cat([numtorch.zeros(0), numtorch.zeros(0)], dim=5).shape == (0,)
    assert numtorch.concat((_t(), _t()), -1).shape == (2, 6)
    assert numtorch.concatenate([_t()], 0).shape == (2, 3)


def test_cat_out_casts_resizes_and_refuses_overlap():
    out = numtorch.empty(0, dtype=numtorch.float64)
    r = numtorch.cat([_t().long(), _t().long()], out=out)
    assert r is out and out.dtype == numtorch.float64 and out.shape == (4, 3)
    with pytest.raises(
        TypeError,
        match="torch.cat\\(\\): input types can't be cast to the desired output type Long",
    ):
        numtorch.cat([_t()], out=numtorch.empty(0, dtype=numtorch.int64))
    x = _t()
    with pytest.raises(
        RuntimeError,
        match="some elements of the input tensor and the written-to tensor refer to a single memory location",
    ):
        numtorch.cat([x], out=x)
    with pytest.warns(UserWarning, match="An output with one or more elements was resized"):
        numtorch.cat([_t(), _t()], out=numtorch.zeros(2))
    v0 = out._version
    with pytest.warns(UserWarning, match="was resized since it had shape \\[4, 3\\]"):
        numtorch.stack([_t(), _t()], out=out)
    assert out.shape == (2, 2, 3) and out._version > v0


CAT_ERRORS = [
    (lambda: numtorch.cat([_t(), numtorch.zeros(2, 4)]), RuntimeError,
     "Sizes of tensors must match except in dimension 0. Expected size 3 but got size 4 for tensor number 1 in the list."),
    (lambda: numtorch.cat([numtorch.zeros(2, 2), numtorch.zeros(3, 3)], 1), RuntimeError,
     "Sizes of tensors must match except in dimension 1. Expected size 2 but got size 3 for tensor number 1 in the list."),
    (lambda: numtorch.cat([]), ValueError, "torch.cat(): expected a non-empty list of Tensors"),
    (lambda: numtorch.cat([_t(), numtorch.zeros(3)]), RuntimeError, "Tensors must have same number of dimensions: got 2 and 1"),
    (lambda: numtorch.cat([_t(), numtorch.zeros(())]), RuntimeError, "zero-dimensional tensor (at position 1) cannot be concatenated"),
    (lambda: numtorch.cat([_t()], 2), IndexError, "Dimension out of range (expected to be in range of [-2, 1], but got 2)"),
    (lambda: numtorch.cat(_t()), TypeError, "cat(): argument 'tensors' (position 1) must be tuple of Tensors, not Tensor"),
    (lambda: numtorch.cat([_t(), 3]), TypeError, "expected Tensor as element 1 in argument 0, but got int"),
    (lambda: numtorch.stack([]), RuntimeError, "stack expects a non-empty TensorList"),
    (lambda: numtorch.stack([_t(), numtorch.zeros(3, 2)]), RuntimeError,
     "stack expects each tensor to be equal size, but got [2, 3] at entry 0 and [3, 2] at entry 1"),
    (lambda: numtorch.stack([_t()], 3), IndexError, "Dimension out of range (expected to be in range of [-3, 2], but got 3)"),
    (lambda: numtorch.stack([_t()], out=numtorch.empty(0, dtype=numtorch.int32)), TypeError,
     "torch.cat(): input types can't be cast to the desired output type Int"),
    (lambda: numtorch.flip(_t(), (0, 0)), RuntimeError, "dim 0 appears multiple times in the list of dims"),
    (lambda: numtorch.roll(_t(), (1, 2), (0,)), RuntimeError, "shifts and dimensions must align. shifts: 2, dims:1"),
    (lambda: numtorch.roll(_t(), ()), RuntimeError, "`shifts` required"),
    (lambda: _t().repeat(2), RuntimeError,
     "Number of dimensions of repeat dims can not be smaller than number of dimensions of tensor"),
    (lambda: _t().repeat(-1, 2), RuntimeError, "Trying to create tensor with negative dimension -2: [-2, 6]"),
    (lambda: _t().repeat(), TypeError, 'repeat() missing 1 required positional arguments: "repeats"'),
    (lambda: _t().tile(-1), RuntimeError, "Trying to create tensor with negative dimension -3: [2, -3]"),
    (lambda: _t().repeat_interleave(-1), RuntimeError, "Repeats must be non-negative"),
    (lambda: _t().repeat_interleave(numtorch.tensor([1, -2]), dim=0), RuntimeError, "repeats can not be negative"),
    (lambda: _t().repeat_interleave(numtorch.tensor([2, 1, 1]), dim=0), RuntimeError,
     "repeats must have the same size as input along dim, but got repeats.size(0) = 3 and input.size(0) = 2"),
    (lambda: _t().repeat_interleave(2, output_size=3), RuntimeError,
     "repeat_interleave: Invalid output_size, expected 12 but got 3"),
    (lambda: numtorch.repeat_interleave(numtorch.tensor([[1]])), RuntimeError, "repeat_interleave only accept 1D vector as repeat"),
    (lambda: numtorch.repeat_interleave(numtorch.tensor([1.0])), NotImplementedError,
     "\"repeat_interleave_cpu\" not implemented for 'Float'"),
    (lambda: numtorch.tril(numtorch.zeros(3)), RuntimeError, "tril: input tensor must have at least 2 dimensions"),
    (lambda: numtorch.triu(numtorch.zeros(())), RuntimeError, "triu: input tensor must have at least 2 dimensions"),
    (lambda: numtorch.tril(_t(), diagonal=1.5), TypeError, "tril(): argument 'diagonal' must be int, not float"),
    (lambda: numtorch.tril(_t(), out=numtorch.empty(0, dtype=numtorch.float64)), RuntimeError,
     "Expected out tensor to have dtype float, but got double instead"),
    (lambda: numtorch.diag(numtorch.zeros(2, 2, 2)), RuntimeError, "diag(): Supports 1D or 2D tensors. Got 3D"),
    (lambda: numtorch.diag(_t(), out=numtorch.empty(0, dtype=numtorch.int64)), RuntimeError,
     "Expected out tensor to have dtype float, but got long int instead"),
    (lambda: numtorch.diag_embed(numtorch.zeros(2), 0, 0, 0), RuntimeError, "diagonal dimensions cannot be identical 0, 0"),
    (lambda: numtorch.diag_embed(numtorch.zeros(())), IndexError, "Dimension out of range (expected to be in range of [-1, 0], but got -2)"),
    (lambda: numtorch.broadcast_tensors(_t(), numtorch.zeros(4)), RuntimeError,
     "The size of tensor a (3) must match the size of tensor b (4) at non-singleton dimension 1"),
    (lambda: numtorch.meshgrid(indexing="ij"), RuntimeError, "meshgrid expects a non-empty TensorList"),
    (lambda: numtorch.meshgrid(numtorch.zeros(2), numtorch.zeros(3), indexing="foo"), RuntimeError,
     'torch.meshgrid: indexing must be one of "xy" or "ij", but received: foo'),
    (lambda: numtorch.meshgrid(numtorch.zeros(2), numtorch.zeros(3, dtype=numtorch.int32), indexing="ij"), RuntimeError,
     "meshgrid expects all tensors to have the same dtype"),
    (lambda: numtorch.meshgrid(_t(), indexing="ij"), RuntimeError, "torch.meshgrid: Expected 0D or 1D tensor in the tensor list"),
    (lambda: numtorch.cartesian_prod(_t()), RuntimeError, "Expect a 1D vector, but got shape [2, 3]"),
    (lambda: numtorch.fliplr(numtorch.zeros(3)), RuntimeError, "Input must be >= 2-d."),
]  # fmt: skip


@pytest.mark.parametrize("fn,exc,msg", CAT_ERRORS, ids=[e[2][:40] for e in CAT_ERRORS])
def test_copy_op_error_type_and_message(fn, exc, msg):
    with pytest.raises(exc) as info:
        fn()
    assert msg in str(info.value)


def test_join_family_shapes():
    v, s = numtorch.zeros(3), numtorch.zeros(())
    assert numtorch.hstack([s, numtorch.zeros(2)]).shape == (3,)
    assert numtorch.vstack([s, numtorch.zeros(1)]).shape == (2, 1)
    assert numtorch.dstack([v, v]).shape == (1, 3, 2)
    assert numtorch.column_stack([s, numtorch.zeros(1), numtorch.zeros(1, 2)]).shape == (1, 4)
    assert numtorch.atleast_1d() == () and numtorch.atleast_2d(s, v)[1].shape == (1, 3)
    assert [t.shape for t in numtorch.atleast_3d([s, v])] == [(1, 1, 1), (1, 3, 1)]


def test_meshgrid_without_indexing_warns_and_uses_ij():
    with pytest.warns(UserWarning, match="it will be required to pass the indexing argument"):
        g = numtorch.meshgrid([numtorch.zeros(2), numtorch.zeros(3)])
    assert g[0].shape == (2, 3) and isinstance(g, tuple)


def test_tril_in_place_on_views_and_expanded_tensors():
    x = numtorch.ones(3, 3)
    v0 = x._version
    assert x.t().triu_(1) is not None and x._version == v0 + 1
    assert x.tolist() == [[0.0, 0.0, 0.0], [1.0, 0.0, 0.0], [1.0, 1.0, 0.0]]
    e = numtorch.ones(3, 3).expand(2, 3, 3)
    assert e.tril_().shape == (2, 3, 3)


# ---- copy_ / fill_ / zero_ / resize_ --------------------------------------------------------------
def test_copy_broadcasts_converts_and_bumps_the_version():
    x = numtorch.zeros(2, 3, dtype=numtorch.int32)
    v0 = x._version
    r = x.copy_(numtorch.tensor([1.7, -2.9, 3.0]))
    assert r is x and x._version == v0 + 1
    assert x.tolist() == [[1, -2, 3], [1, -2, 3]]
    with pytest.warns(
        UserWarning, match="Casting complex values to real discards the imaginary part"
    ):
        numtorch.zeros(2).copy_(numtorch.zeros(2, dtype=numtorch.complex64))
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        numtorch.zeros(2, dtype=numtorch.int64).copy_(numtorch.tensor([float("nan"), 1e30]))


def test_copy_refuses_partial_overlap_but_allows_full_overlap():
    x = numtorch.arange(5.0)
    with pytest.raises(
        RuntimeError,
        match="some elements of the input tensor and the written-to tensor refer to a single memory location",
    ):
        x[1:].copy_(x[:-1])
    y = numtorch.arange(4.0).reshape(2, 2)
    with pytest.raises(RuntimeError, match="refer to a single memory location"):
        y.copy_(y.t())
    assert x.copy_(x.view(5)).tolist() == [0.0, 1.0, 2.0, 3.0, 4.0]
    x[::2].copy_(x[1::2].flip(0).repeat(2)[:3])
    assert x.tolist() == [3.0, 1.0, 1.0, 3.0, 3.0]


COPY_ERRORS = [
    (lambda: _t().copy_(numtorch.zeros(4)), RuntimeError,
     "The size of tensor a (3) must match the size of tensor b (4) at non-singleton dimension 1"),
    (lambda: _t().copy_(numtorch.zeros(3, 2, 3)), RuntimeError, "output with shape [2, 3] doesn't match the broadcast shape [3, 2, 3]"),
    (lambda: numtorch.zeros(4).expand(2, 4).copy_(numtorch.ones(4)), RuntimeError,
     "unsupported operation: more than one element of the written-to tensor refers to a single memory location. "
     "Please clone() the tensor before performing the operation."),
    (lambda: _t().copy_(3), TypeError, "copy_(): argument 'src' (position 1) must be Tensor, not int"),
    (lambda: _t().fill_(numtorch.zeros(2)), RuntimeError,
     "fill_ only supports 0-dimension value tensor but got tensor with 1 dimensions."),
    (lambda: _t().fill_(1 + 2j), RuntimeError, "value cannot be converted to type float without overflow"),
    (lambda: numtorch.zeros(2, dtype=numtorch.uint8).fill_(300), RuntimeError, "value cannot be converted to type uint8_t without overflow"),
    (lambda: numtorch.zeros(2, dtype=numtorch.int8).fill_(2**63), RuntimeError, "value cannot be converted to type int8_t without overflow"),
    (lambda: numtorch.zeros(2, dtype=numtorch.int16).fill_(1e10), RuntimeError, "value cannot be converted to type int16_t without overflow"),
    (lambda: numtorch.zeros(2, dtype=numtorch.int32).fill_(float("nan")), RuntimeError, "value cannot be converted to type int without overflow"),
    (lambda: numtorch.zeros(2, dtype=numtorch.int64).fill_(1e30), RuntimeError, "value cannot be converted to type int64_t without overflow"),
    (lambda: numtorch.zeros(2, dtype=numtorch.float16).fill_(1e10), RuntimeError, "value cannot be converted to type c10::Half without overflow"),
    (lambda: numtorch.zeros(2).fill_(1e300), RuntimeError, "value cannot be converted to type float without overflow"),
    (lambda: numtorch.zeros(2, dtype=numtorch.int64).fill_(2**64), OverflowError, "int too big to convert"),
    (lambda: numtorch.zeros(3, requires_grad=True).resize_(2), RuntimeError, "cannot resize variables that require grad"),
    (lambda: numtorch.zeros(3).resize_(2, -1), RuntimeError, "numel: integer multiplication overflow"),
]  # fmt: skip


@pytest.mark.parametrize("fn,exc,msg", COPY_ERRORS, ids=[e[2][:40] for e in COPY_ERRORS])
def test_inplace_error_type_and_message(fn, exc, msg):
    with pytest.raises(exc) as info:
        fn()
    assert msg in str(info.value)


def test_fill_converts_like_cpp():
    assert numtorch.zeros(2, dtype=numtorch.uint8).fill_(-1).tolist() == [255, 255]
    assert numtorch.zeros(2, dtype=numtorch.int32).fill_(-1.7).tolist() == [-1, -1]
    assert numtorch.zeros(2, dtype=numtorch.bool).fill_(1e300).tolist() == [True, True]
    assert numtorch.zeros(2).fill_(float("inf")).tolist() == [float("inf")] * 2
    assert numtorch.zeros(2, dtype=numtorch.int32).fill_(numtorch.tensor(2.7)).tolist() == [2, 2]
    assert numtorch.zeros(2, dtype=numtorch.int32).fill_(1 + 0j).tolist() == [1, 1]
    e = numtorch.zeros(4).expand(2, 4).fill_(3)
    assert e.tolist() == [[3.0] * 4] * 2
    x = numtorch.ones(3)
    v0 = x._version
    assert numtorch.zero_(x) is x and x.tolist() == [0.0] * 3 and x._version == v0 + 1
    assert numtorch.fill(x, 2).tolist() == [2.0] * 3 and x.tolist() == [0.0] * 3


def test_fill_tensor_value_gets_the_summed_gradient():
    v = numtorch.tensor(2.0, dtype=numtorch.float64, requires_grad=True)
    out = numtorch.fill(numtorch.zeros(3, dtype=numtorch.float64), v)
    out.sum().backward()
    assert v.grad.item() == 3.0


def test_resize_keeps_data_and_sharing_when_it_can():
    x = numtorch.arange(6.0)
    base = x
    y = x.view(6)
    assert y.resize_(2, 3) is y and y.shape == (2, 3) and np.shares_memory(y.numpy(), base.numpy())
    y.resize_(4)
    assert y.tolist() == [0.0, 1.0, 2.0, 3.0] and np.shares_memory(y.numpy(), base.numpy())
    z = numtorch.arange(3.0).resize_(5)
    assert z.shape == (5,) and z.tolist()[:3] == [0.0, 1.0, 2.0]
    assert numtorch.zeros(6).resize_as_(numtorch.zeros(3, 2)).shape == (3, 2)


# ---- float16 conversion (Note [float16 conversion]) -------------------------------------------------
def _half_specials(np_dtype):
    """Bit patterns around every case of the conversion: zeros, half subnormals and their ties,
    the normal range's ends, ties to even, overflow, inf, and NaNs with payloads."""
    vals = [0.0, 2.0**-26, 2.0**-25, 2.0**-25 * (1 + 2**-20), 3 * 2.0**-25, 2.0**-24, 1.5 * 2.0**-24,
            2.0**-14 * (1 - 2**-11), 2.0**-14 * (1 - 2**-12), 2.0**-14, 1.0 + 2**-11, 1.0 + 3 * 2**-11,
            1.0 + 2**-11 + 2**-20, 65504.0, 65519.0, 65520.0, 65536.0, 1e30, np.inf, 1e-45, 1.0]
    x = np.array(vals + [-v for v in vals], np_dtype)
    ibits = np.int32 if np_dtype == np.float32 else np.int64
    shift = 23 if np_dtype == np.float32 else 52
    nans = np.array([1, 1 << 5, 1 << 13, (1 << shift) - 1, 1 << (shift - 1), 1 << (shift - 10)], ibits)
    nans = nans | ibits((1 << (31 if shift == 23 else 63)) - (1 << shift))  # exponent all ones
    return np.concatenate([x, nans.view(np_dtype), (-nans.view(np_dtype))])


def _f32_kernels():
    from numtorch.kernels.cpu import half

    ks = [half.f32_to_f16]
    return ks + [half.f32_to_f16_fptrunc] if half.fptrunc_is_an_instruction() else ks


@pytest.mark.parametrize("np_dtype,kernel", [(np.float32, k) for k in range(2)] + [(np.float64, 0)])
def test_half_conversion_is_numpys_bit_for_bit(np_dtype, kernel, monkeypatch):
    from numtorch.ops.shape import copy

    kernels = _f32_kernels()  # Note [float16 by fptrunc]: both forms where the target has both
    if kernel >= len(kernels):
        pytest.skip("this CPU has no float32 -> half instruction")
    monkeypatch.setattr(copy, "_F32_TO_F16", [kernels[kernel]])
    rng = np.random.default_rng(0)
    ibits = np.uint32 if np_dtype == np.float32 else np.uint64
    width = 32 if np_dtype == np.float32 else 64
    randoms = rng.integers(0, 2**width, 1 << 16, dtype=np.uint64, endpoint=False).astype(ibits).view(np_dtype)
    # and values in float16's range, where the rounding happens
    scaled = (rng.standard_normal(1 << 16) * np.exp2(rng.integers(-26, 17, 1 << 16))).astype(np_dtype)
    x = np.concatenate([np.tile(_half_specials(np_dtype), 4), randoms, scaled])
    with np.errstate(all="ignore"):
        ref = x.astype(np.float16).view(np.uint16)
    t = numtorch.from_numpy(x)
    for got in (t.half(), t.to(numtorch.float16), numtorch.empty(x.shape, dtype=numtorch.float16).copy_(t)):
        np.testing.assert_array_equal(got.numpy().view(np.uint16), ref)
    # 2-D, transposed (NumPy's path) and small (below the kernel's size) give the same bits
    m = x[: 128 * 64].reshape(128, 64)
    with np.errstate(all="ignore"):
        ref_t = m.T.astype(np.float16).view(np.uint16)
    np.testing.assert_array_equal(numtorch.from_numpy(m).t().half().numpy().view(np.uint16), ref_t)
    np.testing.assert_array_equal(numtorch.from_numpy(x[:5]).half().numpy().view(np.uint16), ref[:5])


def test_half_conversion_without_a_half_instruction(tmp_path):
    # NUMBA_CPU_NAME=generic has no F16C: fptrunc would be a call Numba does not link (a crash)
    import os
    import subprocess
    import sys

    env = dict(os.environ, NUMBA_CPU_NAME="generic", NUMTORCH_KERNEL_CACHE=str(tmp_path))
    env.pop("NUMBA_CACHE_DIR", None)
    code = ("import numpy as np, numtorch; x = np.linspace(-7e4, 7e4, 4099, dtype=np.float32); "
            "print(np.array_equal(numtorch.from_numpy(x).half().numpy().view(np.uint16), "
            "x.astype(np.float16).view(np.uint16)))")  # fmt: skip
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=300)
    assert (out.returncode, out.stdout.strip()) == (0, "True"), out.stderr[-2000:]


@pytest.mark.slow
def test_half_conversion_every_float32_in_halfs_range():
    # every float32 from below half's smallest subnormal to past its overflow, both signs
    for start in range(0x33000000 - (1 << 22), 0x47800000 + (1 << 22), 1 << 24):
        b = np.arange(start, start + (1 << 24), dtype=np.uint32)
        for x in (b.view(np.float32), (b | np.uint32(1 << 31)).view(np.float32)):
            got = numtorch.from_numpy(x).half().numpy().view(np.uint16)
            with np.errstate(all="ignore"):
                np.testing.assert_array_equal(got, x.astype(np.float16).view(np.uint16))


@pytest.mark.parametrize("dtype", ["float16", "bfloat16", "float32", "float64"])
def test_fill_float_values_round_once_and_overflow_raises(dtype):
    import ml_dtypes

    dt = getattr(numtorch, dtype)
    npt = ml_dtypes.bfloat16 if dtype == "bfloat16" else getattr(np, dtype)
    x = numtorch.zeros(3, dtype=dt)
    for v in (1.1, -0.0, 3, float("inf"), float("nan")):
        got = x.fill_(v).to(numtorch.float64).numpy()
        want = np.full(3, npt(v)).astype(np.float64)
        np.testing.assert_array_equal(got, want)
        assert np.signbit(got).all() == np.signbit(want).all()
    if dtype in ("float16", "float32"):
        with pytest.raises(RuntimeError, match="without overflow"):
            x.fill_(1e300)
