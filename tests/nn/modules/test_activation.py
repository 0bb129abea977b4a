"""Activation modules and MultiheadAttention."""

from __future__ import annotations

import numpy as np
import pytest

import numtorch
import numtorch.nn.functional as F
from numtorch import nn

ACTS = [
    (nn.ReLU(), F.relu, "ReLU()"), (nn.ReLU(True), F.relu, "ReLU(inplace=True)"),
    (nn.LeakyReLU(0.2), lambda x: F.leaky_relu(x, 0.2), "LeakyReLU(negative_slope=0.2)"),
    (nn.ELU(0.5, True), lambda x: F.elu(x, 0.5), "ELU(alpha=0.5, inplace=True)"),
    (nn.CELU(2.0), lambda x: F.celu(x, 2.0), "CELU(alpha=2.0)"), (nn.SELU(), F.selu, "SELU()"),
    (nn.GELU("tanh"), lambda x: F.gelu(x, approximate="tanh"), "GELU(approximate='tanh')"),
    (nn.SiLU(inplace=True), F.silu, "SiLU(inplace=True)"), (nn.Mish(), F.mish, "Mish()"),
    (nn.Softplus(2, 10), lambda x: F.softplus(x, 2, 10), "Softplus(beta=2, threshold=10)"),
    (nn.Hardtanh(-2, 3), lambda x: F.hardtanh(x, -2, 3), "Hardtanh(min_val=-2, max_val=3)"),
    (nn.ReLU6(), F.relu6, "ReLU6()"), (nn.Hardsigmoid(), F.hardsigmoid, "Hardsigmoid()"),
    (nn.Hardswish(), F.hardswish, "Hardswish()"), (nn.Sigmoid(), numtorch.sigmoid, "Sigmoid()"),
    (nn.Tanh(), numtorch.tanh, "Tanh()"), (nn.LogSigmoid(), F.logsigmoid, "LogSigmoid()"),
    (nn.Softsign(), F.softsign, "Softsign()"), (nn.Tanhshrink(), F.tanhshrink, "Tanhshrink()"),
    (nn.Threshold(0.1, 20.0), lambda x: F.threshold(x, 0.1, 20.0), "Threshold(threshold=0.1, value=20.0)"),
    (nn.GLU(), F.glu, "GLU(dim=-1)"), (nn.Softmax(1), lambda x: F.softmax(x, 1), "Softmax(dim=1)"),
    (nn.LogSoftmax(0), lambda x: F.log_softmax(x, 0), "LogSoftmax(dim=0)"),
    (nn.Softmin(1), lambda x: F.softmin(x, 1), "Softmin(dim=1)"),
    (nn.Hardshrink(), F.hardshrink, "Hardshrink(0.5)"),
    (nn.Softshrink(0.3), lambda x: F.softshrink(x, 0.3), "Softshrink(0.3)"),
]  # fmt: skip


@pytest.mark.parametrize("case", ACTS, ids=lambda c: c[2])
def test_activation_module_matches_functional_and_repr(case, rng):
    mod, fn, text = case
    x = numtorch.from_numpy(rng.standard_normal((3, 4)))
    want = fn(numtorch.from_numpy(x.numpy().copy()))
    np.testing.assert_allclose(mod(x).numpy(), want.numpy(), rtol=1e-12)
    assert repr(mod) == text
    assert list(mod.parameters()) == []


def test_inplace_module_returns_its_input():
    x = numtorch.tensor([-1.0, 2.0])
    assert nn.ReLU(inplace=True)(x) is x
    np.testing.assert_array_equal(x.numpy(), [0.0, 2.0])


def test_hardtanh_rejects_empty_range():
    with pytest.raises(AssertionError, match=r"max_val \(1\) must be greater than min_val \(1\)"):
        nn.Hardtanh(1, 1)


def test_hardtanh_deprecated_value_keywords_warn_and_apply():
    with pytest.warns(FutureWarning, match="is deprecated and renamed to") as rec:
        m = nn.Hardtanh(min_value=-2.0, max_value=2.0)
    assert [str(w.message).split("`")[1] for w in rec] == ["min_value", "max_value"]
    assert repr(m) == "Hardtanh(min_val=-2.0, max_val=2.0)"
    np.testing.assert_array_equal(m(numtorch.tensor([-3.0, 3.0])).numpy(), [-2.0, 2.0])


def test_softmax_without_dim_warns():
    with pytest.warns(
        UserWarning, match="Implicit dimension choice for softmax has been deprecated"
    ):
        nn.Softmax()(numtorch.ones(2, 3))


def test_multihead_attention_parameters_and_shapes():
    mha = nn.MultiheadAttention(8, 2)
    assert [n for n, _ in mha.named_parameters()] == [
        "in_proj_weight",
        "in_proj_bias",
        "out_proj.weight",
        "out_proj.bias",
    ]
    assert repr(mha) == (
        "MultiheadAttention(\n  (out_proj): NonDynamicallyQuantizableLinear(in_features=8, out_features=8, bias=True)\n)"
    )
    np.testing.assert_array_equal(mha.in_proj_bias.detach().numpy(), np.zeros(24))
    bound = np.sqrt(6 / (8 + 24))  # xavier_uniform_ on (24, 8)
    assert np.abs(mha.in_proj_weight.detach().numpy()).max() <= bound
    x = numtorch.randn(5, 3, 8)
    out, w = mha(x, x, x)
    assert out.shape == (5, 3, 8) and w.shape == (3, 5, 5)
    np.testing.assert_allclose(w.detach().numpy().sum(-1), np.ones((3, 5)), rtol=1e-5)
    out2, none = mha(x, x, x, need_weights=False)
    assert none is None
    np.testing.assert_allclose(out2.detach().numpy(), out.detach().numpy(), rtol=1e-5, atol=1e-6)
    _, per_head = mha(x, x, x, average_attn_weights=False)
    assert per_head.shape == (3, 2, 5, 5)


def test_multihead_attention_batch_first_and_separate_projections():
    mha = nn.MultiheadAttention(8, 4, kdim=3, vdim=5, batch_first=True, add_bias_kv=True)
    names = [n for n, _ in mha.named_parameters()]
    assert names == ["q_proj_weight", "k_proj_weight", "v_proj_weight", "in_proj_bias", "bias_k", "bias_v",
                     "out_proj.weight", "out_proj.bias"]  # fmt: skip
    q, k, v = numtorch.randn(2, 4, 8), numtorch.randn(2, 6, 3), numtorch.randn(2, 6, 5)
    out, w = mha(q, k, v)
    assert out.shape == (2, 4, 8) and w.shape == (2, 4, 7)  # the bias_k column joins the keys
    out.sum().backward()
    assert mha.k_proj_weight.grad.shape == (8, 3)


def test_multihead_attention_masks():
    mha = nn.MultiheadAttention(4, 1)
    x = numtorch.randn(3, 1, 4)
    kpm = numtorch.tensor([[False, False, True]])
    _, w = mha(x, x, x, key_padding_mask=kpm)
    np.testing.assert_array_equal(w.detach().numpy()[..., 2], np.zeros((1, 3)))
    causal = numtorch.tensor([[False, True, True], [False, False, True], [False, False, False]])
    _, w = mha(x, x, x, attn_mask=causal)
    assert np.allclose(np.triu(w.detach().numpy()[0], 1), 0)
    with pytest.raises(
        RuntimeError, match=r"The shape of the 2D attn_mask is .*, but should be \(3, 3\)."
    ):
        mha(x, x, x, attn_mask=numtorch.zeros(2, 3, dtype=numtorch.bool))


def test_multihead_attention_argument_errors():
    with pytest.raises(AssertionError, match="embed_dim must be divisible by num_heads"):
        nn.MultiheadAttention(6, 4)
    with pytest.raises(ValueError, match="embed_dim and num_heads must be greater than 0"):
        nn.MultiheadAttention(0, 1)
