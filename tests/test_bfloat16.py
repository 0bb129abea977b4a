"""numtorch.bfloat16 (Note [bfloat16]): the dtype, casts, the float32 route, autograd, printing,
NumPy interop and serialization. Op values over the registry: tests/ops/test_bfloat16.py."""

from __future__ import annotations

import io
import pickle

import ml_dtypes
import numpy as np
import pytest

import numtorch

BF = numtorch.bfloat16
D = numtorch._dtype


def test_dtype_attributes():
    assert repr(BF) == "torch.bfloat16" and BF.itemsize == 2
    assert BF.is_floating_point and not BF.is_complex and BF.is_signed
    assert BF.to_complex() is numtorch.complex64 and BF.to_real() is BF
    x = numtorch.ones(3, dtype=BF)
    assert x.dtype is BF and x.element_size() == 2 and x.is_floating_point()
    assert x.type() == "torch.BFloat16Tensor" and isinstance(x, numtorch.BFloat16Tensor)
    assert not isinstance(numtorch.ones(3), numtorch.BFloat16Tensor)
    assert numtorch.BFloat16Tensor([1.0, 2.5]).dtype is BF


def test_finfo_has_torchs_values():
    fi = numtorch.finfo(BF)
    assert (fi.bits, fi.eps, fi.resolution) == (16, 0.0078125, 0.01)
    assert fi.max == 3.3895313892515355e38 and fi.min == -fi.max
    assert fi.tiny == fi.smallest_normal == 1.1754943508222875e-38
    assert fi.dtype == "bfloat16"


@pytest.mark.parametrize(
    "other, want",
    [(numtorch.float16, numtorch.float32), (numtorch.float32, numtorch.float32), (numtorch.float64, numtorch.float64),
     (numtorch.int64, BF), (numtorch.uint8, BF), (numtorch.bool, BF), (numtorch.complex64, numtorch.complex64),
     (numtorch.complex128, numtorch.complex128), (numtorch.uint16, BF), (BF, BF)],
)  # fmt: skip
def test_promotion(other, want):
    assert numtorch.promote_types(BF, other) is want
    assert numtorch.promote_types(other, BF) is want


def test_python_scalars_and_zero_dim_tensors_are_weak():
    x = numtorch.ones(2, dtype=BF)
    assert (x + 1).dtype is BF and (x * 2.5).dtype is BF
    assert (x + numtorch.tensor(2.0)).dtype is BF  # a 0-d float32 tensor does not widen it
    assert (x + numtorch.ones(2)).dtype is numtorch.float32
    assert (x + numtorch.ones(2, dtype=numtorch.float16)).dtype is numtorch.float32
    assert (numtorch.arange(2) + numtorch.tensor(1.5, dtype=BF)).dtype is BF


def test_cast_rounds_to_nearest_even():
    # 1 + 2**-8 is halfway between 1 and 1 + 2**-7: ties go to the even significand (1.0);
    # 1 + 3 * 2**-8 is halfway between 1 + 2**-7 and 1 + 2**-6: goes up to the even one
    x = numtorch.tensor([1 + 2**-8, 1 + 3 * 2**-8, 1 + 2**-8 + 2**-20, 3.4e38, -1e-45])
    assert x.to(BF).tolist() == [1.0, 1.0 + 2**-6, 1.0 + 2**-7, float("inf"), -0.0]
    assert x.bfloat16().dtype is BF and x.bfloat16().float().dtype is numtorch.float32


def test_elementwise_computes_in_float32_and_rounds_once():
    a = np.array([1.5, 2.7031, -0.3, 100.0], np.float32).astype(ml_dtypes.bfloat16)
    x = numtorch.tensor(a.astype(np.float32)).to(BF)
    want = (np.exp(a.astype(np.float32)) * np.float32(3)).astype(ml_dtypes.bfloat16)
    got = numtorch.exp(x) * 3
    # exp rounds to bfloat16 before the product, as two PyTorch ops do
    step = np.exp(a.astype(np.float32)).astype(ml_dtypes.bfloat16).astype(np.float32) * np.float32(3)
    assert got.float().tolist() == step.astype(ml_dtypes.bfloat16).astype(np.float32).tolist()
    assert np.allclose(got.float().numpy(), want.astype(np.float32), rtol=2**-7)


def test_reductions_accumulate_in_float32():
    # 4096 ones: a bfloat16 accumulator would stop at 256 (256 + 1 rounds back to 256)
    x = numtorch.ones(4096, dtype=BF)
    assert x.sum().item() == 4096.0 and x.sum().dtype is BF
    assert x.mean().item() == 1.0 and (x @ x).item() == 4096.0


def test_in_place_and_views_write_the_bfloat16_storage():
    x = numtorch.zeros(2, 3, dtype=BF)
    v = x[1]
    v.add_(1.5)
    x[0, 1] = 2.0
    x[:, 2] += 1
    assert x.tolist() == [[0.0, 2.0, 1.0], [1.5, 1.5, 2.5]]
    assert v.tolist() == [1.5, 1.5, 2.5] and x._version == v._version > 0
    out = numtorch.empty(3, dtype=BF)
    r = numtorch.add(numtorch.ones(3, dtype=BF), 1, out=out)
    assert r is out and out.tolist() == [2.0, 2.0, 2.0]


def test_matmul_linear_conv_return_bfloat16():
    numtorch.manual_seed(0)
    a, b = numtorch.randn(3, 4).bfloat16(), numtorch.randn(4, 2).bfloat16()
    assert (a @ b).dtype is BF
    want = (a.float() @ b.float()).bfloat16()
    assert (a @ b).tolist() == want.tolist()
    conv = numtorch.nn.Conv2d(2, 3, 3).bfloat16()
    assert conv(numtorch.randn(1, 2, 5, 5).bfloat16()).dtype is BF


def test_autograd_gives_bfloat16_gradients():
    x = numtorch.tensor([1.0, -2.0, 3.0], dtype=BF, requires_grad=True)
    (x * x).sum().backward()
    assert x.grad.dtype is BF and x.grad.tolist() == [2.0, -4.0, 6.0]
    m = numtorch.nn.Linear(3, 2).bfloat16()
    opt = numtorch.optim.Adam(m.parameters(), lr=0.1)
    before = m.weight.detach().clone()
    m(x.detach()).sum().backward()
    opt.step()
    assert m.weight.grad.dtype is BF and m.weight.dtype is BF
    assert not numtorch.equal(before, m.weight.detach())


def test_printing_matches_torch():
    x = numtorch.tensor([1.0, 2.7031], dtype=BF)
    assert repr(x) == "tensor([1.0000, 2.7031], dtype=torch.bfloat16)"
    assert repr(numtorch.tensor(3.0, dtype=BF)) == "tensor(3., dtype=torch.bfloat16)"
    assert repr(numtorch.empty(0, dtype=BF)) == "tensor([], dtype=torch.bfloat16)"
    assert x.tolist() == [1.0, 2.703125] and x[1].item() == 2.703125


def test_numpy_interop_refuses_as_torch():
    x = numtorch.ones(2, dtype=BF)
    with pytest.raises(TypeError, match="Got unsupported ScalarType BFloat16"):
        x.numpy()
    with pytest.raises(TypeError, match="Got unsupported ScalarType BFloat16"):
        np.asarray(x)
    with pytest.raises(TypeError, match="can't convert np.ndarray of type ml_dtypes.bfloat16"):
        numtorch.from_numpy(np.zeros(2, ml_dtypes.bfloat16))


def test_refused_ops_raise_pytorchs_errors():
    a = numtorch.eye(3, dtype=BF)
    with pytest.raises(RuntimeError, match="linalg.inv: Low precision dtypes not supported. Got BFloat16"):
        numtorch.linalg.inv(a)
    with pytest.raises(NotImplementedError, match="\"bitwise_and_cpu\" not implemented for 'BFloat16'"):
        a.bitwise_and(a)
    with pytest.raises(NotImplementedError, match="\"erfcx_cpu\" not implemented for 'BFloat16'"):
        numtorch.special.erfcx(a)


@pytest.mark.parametrize("low", [BF, numtorch.float16], ids=["bfloat16", "float16"])
def test_composites_refuse_low_precision_as_pytorchs_kernels(low):
    # built from ops that take bfloat16/half, where PyTorch has one kernel without them
    F, name = numtorch.nn.functional, "BFloat16" if low is BF else "Half"
    x, m, t = numtorch.ones(3, 4, dtype=low), numtorch.eye(3, dtype=low), numtorch.tensor([0, 1, 2])
    calls = {
        "cdist": lambda: numtorch.cdist(x, x),
        "multi_margin_loss_cpu_kernel": lambda: F.multi_margin_loss(x, t),
        "multilabel_margin_loss_forward_out_frame": lambda: F.multilabel_margin_loss(x, numtorch.zeros(3, 4).long()),
        "avg_pool3d_out_frame": lambda: F.local_response_norm(numtorch.ones(1, 3, 2, 2, dtype=low), 2),
    }
    for kernel, call in calls.items():
        with pytest.raises(NotImplementedError, match=f"\"{kernel}\" not implemented for '{name}'"):
            call()
    low_msg = "Low precision dtypes not supported. Got " + name
    for call, fname in ((lambda: numtorch.logdet(m), "logdet"), (lambda: numtorch.linalg.matrix_power(m, -1), "linalg.inv"),
                        (lambda: numtorch.linalg.matrix_norm(m, ord=2), "linalg.matrix_norm")):
        with pytest.raises(RuntimeError, match=f"{fname}: {low_msg}"):
            call()
    assert F.local_response_norm(numtorch.ones(1, 3, 2, dtype=low), 2).dtype is low  # 3-d: no pool
    assert numtorch.linalg.matrix_norm(m).dtype is low and numtorch.linalg.matrix_power(m, 2).dtype is low


def test_nan_to_num_uses_bfloat16_max():
    x = numtorch.tensor([float("inf"), -float("inf"), float("nan")], dtype=BF)
    big = numtorch.finfo(BF).max
    assert numtorch.nan_to_num(x).tolist() == [big, -big, 0.0]


def test_factories_and_random_draws():
    assert numtorch.zeros(2, dtype=BF).dtype is BF and numtorch.arange(3, dtype=BF).tolist() == [0.0, 1.0, 2.0]
    numtorch.manual_seed(0)
    r = numtorch.rand(1000, dtype=BF)
    assert r.dtype is BF and 0.0 <= r.min().item() and r.max().item() < 1.0
    assert numtorch.randn_like(r).dtype is BF and numtorch.zeros_like(numtorch.ones(2), dtype=BF).dtype is BF


def test_save_load_and_pickle_round_trip():
    x = numtorch.tensor([1.0, 2.7031, -3.5e10], dtype=BF)
    buf = io.BytesIO()
    numtorch.save({"x": x, "tail": x[1:], "dt": BF}, buf)
    buf.seek(0)
    r = numtorch.load(buf)
    assert r["x"].dtype is BF and r["x"].tolist() == x.tolist() and r["dt"] is BF
    assert r["tail"].tolist() == x[1:].tolist()
    assert pickle.loads(pickle.dumps(x)).tolist() == x.tolist()


def test_no_new_kernel_specialisation():
    # the float32 route: a bfloat16 array never reaches Numba (it would fail to type)
    from numtorch import _bfloat16

    seen = []
    orig = _bfloat16._up

    def spy(t):
        r = orig(t)
        seen.append(r._data.dtype)
        return r

    _bfloat16._up = spy
    try:
        numtorch.ones(4, dtype=BF).exp().sum()
    finally:
        _bfloat16._up = orig
    assert seen and all(d == np.float32 for d in seen)


def test_lstm_runs_in_bfloat16_close_to_float32():
    numtorch.manual_seed(0)
    m = numtorch.nn.LSTM(4, 3, batch_first=True).bfloat16()
    x = numtorch.randn(2, 5, 4).bfloat16().requires_grad_()
    out = m(x)[0]
    out.sum().backward()
    assert out.dtype is BF and x.grad.dtype is BF and m.weight_ih_l0.grad.dtype is BF
    ref = numtorch.nn.LSTM(4, 3, batch_first=True)
    ref.load_state_dict({k: v.float() for k, v in m.state_dict().items()})
    want = ref(x.detach().float())[0]
    np.testing.assert_allclose(out.detach().float().numpy(), want.detach().numpy(), atol=2**-6)


def test_integer_operands_under_a_bfloat16_default_dtype():
    # no operand is bfloat16, yet the result is: computed in float32, rounded once
    a = np.array([1, 2, 7], np.int64)
    numtorch.set_default_dtype(BF)
    try:
        div = numtorch.tensor(a) / 3
        root = numtorch.tensor(a).sqrt()
        scaled = numtorch.tensor(a) * 1.5
    finally:
        numtorch.set_default_dtype(numtorch.float32)
    for got, want in ((div, a.astype(np.float32) / np.float32(3)), (root, np.sqrt(a.astype(np.float32))),
                      (scaled, a.astype(np.float32) * np.float32(1.5))):
        assert got.dtype is BF
        np.testing.assert_array_equal(got.float().numpy(), want.astype(ml_dtypes.bfloat16).astype(np.float32))
