"""numtorch.nn layers against torch.nn: reprs, parameter names and shapes, init ranges, forward and
backward with copied weights (MultiheadAttention included), batch-norm state over training steps."""

from __future__ import annotations

import numpy as np
import pytest

import numtorch

torch = pytest.importorskip("torch")

REPRS = [
    "nn.ReLU()", "nn.ReLU(True)", "nn.ReLU6(inplace=True)", "nn.LeakyReLU(0.2, True)", "nn.ELU(0.5, True)", "nn.SELU()",
    "nn.CELU(2.)", "nn.GELU('tanh')", "nn.SiLU(True)", "nn.Mish()", "nn.Softplus(2, 10)", "nn.Softsign()",
    "nn.Hardtanh(-2, 3, True)", "nn.Hardsigmoid()", "nn.Hardswish()", "nn.Sigmoid()", "nn.Tanh()", "nn.LogSigmoid()",
    "nn.Threshold(0.1, 20, True)", "nn.Hardshrink()", "nn.Softshrink(0.3)", "nn.RMSNorm(4)",
    "nn.RMSNorm((2, 3), eps=1e-6, elementwise_affine=False)", "nn.GLU()", "nn.Softmax()", "nn.LogSoftmax(1)",
    "nn.Softmin(0)", "nn.Tanhshrink()",
    "nn.Linear(3, 4)", "nn.Linear(3, 4, bias=False)", "nn.Bilinear(2, 3, 4)", "nn.Identity(3, a=2)",
    "nn.Conv1d(2, 3, 4)", "nn.Conv2d(1, 32, 3)",
    "nn.Conv2d(2, 4, (3, 2), stride=2, padding=1, dilation=2, groups=2, bias=False, padding_mode='reflect')",
    "nn.Conv2d(2, 4, 3, padding='same')", "nn.ConvTranspose2d(2, 4, 3, stride=2, output_padding=1)",
    "nn.ConvTranspose1d(2, 4, 3)", "nn.MaxPool2d(2)", "nn.MaxPool2d(3, 2, 1, 2, True, True)", "nn.MaxPool1d(2)",
    "nn.AvgPool2d(2)", "nn.AvgPool2d(3, 1, 1, True, False, 2)", "nn.AvgPool1d(3)", "nn.AdaptiveAvgPool2d((1, 1))",
    "nn.AdaptiveMaxPool2d(3)", "nn.AdaptiveAvgPool1d(2)", "nn.AdaptiveMaxPool1d(2)", "nn.LayerNorm(5)",
    "nn.LayerNorm((2, 3), elementwise_affine=False)", "nn.LayerNorm(4, bias=False)", "nn.GroupNorm(2, 4)",
    "nn.BatchNorm1d(3)", "nn.BatchNorm2d(3, momentum=None, affine=False, track_running_stats=False)",
    "nn.InstanceNorm2d(3)", "nn.InstanceNorm1d(3, affine=True)", "nn.Dropout()", "nn.Dropout(0.2, True)",
    "nn.Dropout1d()", "nn.Dropout2d(0.1)", "nn.AlphaDropout()", "nn.Embedding(10, 3)",
    "nn.Embedding(10, 3, padding_idx=0, max_norm=1., scale_grad_by_freq=True, sparse=True)", "nn.Flatten()",
    "nn.Flatten(0, 2)", "nn.Unflatten(1, (2, 3))", "nn.CrossEntropyLoss()", "nn.NLLLoss()", "nn.MSELoss()",
    "nn.L1Loss()", "nn.SmoothL1Loss()", "nn.HuberLoss()", "nn.BCELoss()", "nn.BCEWithLogitsLoss()", "nn.KLDivLoss()",
    "nn.MarginRankingLoss()", "nn.CosineEmbeddingLoss()", "nn.Upsample(scale_factor=2)",
    "nn.Upsample(size=(3, 4), mode='bilinear', align_corners=True)", "nn.UpsamplingNearest2d(scale_factor=2)",
    "nn.UpsamplingBilinear2d(size=3)", "nn.PixelShuffle(2)", "nn.PixelUnshuffle(2)", "nn.CosineSimilarity()",
    "nn.PairwiseDistance()", "nn.Fold((4, 5), 2)", "nn.Unfold(2)", "nn.ZeroPad2d(2)", "nn.ConstantPad1d((1, 2), 3.5)",
    "nn.ReflectionPad2d(1)", "nn.ReplicationPad1d((1, 2))", "nn.CircularPad2d(1)", "nn.MultiheadAttention(8, 2)",
    "nn.MultiheadAttention(8, 2, kdim=4, vdim=5, bias=False, add_bias_kv=True, batch_first=True)",
    "nn.Sequential(nn.Conv2d(1, 32, 3), nn.ReLU(), nn.MaxPool2d(2), nn.Flatten(), nn.Linear(5408, 10))",
]  # fmt: skip


@pytest.mark.parametrize("expr", REPRS)
def test_repr_and_parameter_shapes_match_torch(expr):
    ours, theirs = eval(expr, {"nn": numtorch.nn}), eval(expr, {"nn": torch.nn})  # noqa: S307 - fixed test table
    assert repr(ours) == repr(theirs)
    assert [(n, tuple(p.shape)) for n, p in ours.named_parameters()] == [
        (n, tuple(p.shape)) for n, p in theirs.named_parameters()
    ]
    assert list(ours.state_dict()) == list(theirs.state_dict())


@pytest.mark.parametrize("expr", ["nn.Linear(50, 40)", "nn.Conv2d(6, 8, 3, groups=2)", "nn.Bilinear(9, 4, 5)",
                                  "nn.ConvTranspose2d(4, 6, 3)", "nn.Embedding(100, 20)"])  # fmt: skip
def test_init_ranges_match_torch(expr):
    numtorch.manual_seed(0)
    torch.manual_seed(0)
    ours, theirs = eval(expr, {"nn": numtorch.nn}), eval(expr, {"nn": torch.nn})  # noqa: S307
    for (name, p), (_, q) in zip(ours.named_parameters(), theirs.named_parameters(), strict=False):
        a, b = p.detach().numpy(), q.detach().numpy()
        if a.size < 100:  # too few draws to compare ranges
            continue
        assert np.abs(a).max() == pytest.approx(np.abs(b).max(), rel=0.25), name
        assert a.std() == pytest.approx(b.std(), rel=0.25), name


def _copy(ours, theirs):
    ours.load_state_dict(
        {k: numtorch.from_numpy(v.detach().numpy().copy()) for k, v in theirs.state_dict().items()}
    )


LAYERS = [
    ("nn.Conv2d(3, 4, 3, stride=2, padding=1)", (2, 3, 7, 7)), ("nn.Conv2d(4, 4, 3, groups=4, padding='same')", (2, 4, 5, 5)),
    ("nn.Conv2d(2, 3, 3, padding=1, padding_mode='circular')", (1, 2, 5, 4)),
    ("nn.ConvTranspose2d(3, 2, 3, stride=2)", (2, 3, 4, 4)), ("nn.Conv1d(3, 5, 3, dilation=2)", (2, 3, 9)),
    ("nn.Linear(6, 3)", (4, 6)), ("nn.LayerNorm(6)", (4, 6)), ("nn.GroupNorm(2, 4)", (3, 4, 5)),
    ("nn.BatchNorm2d(3)", (4, 3, 2, 2)), ("nn.Embedding(10, 4, padding_idx=1)", None),
    ("nn.Sequential(nn.Conv2d(1, 8, 3), nn.ReLU(), nn.MaxPool2d(2), nn.Flatten(), nn.Linear(72, 5))", (3, 1, 8, 8)),
]  # fmt: skip


@pytest.mark.parametrize("case", LAYERS, ids=lambda c: c[0])
def test_forward_and_backward_with_copied_weights(case, rng):
    expr, shape = case
    ours = eval(expr, {"nn": numtorch.nn}).double()  # noqa: S307
    theirs = eval(expr, {"nn": torch.nn}).double()  # noqa: S307
    _copy(ours, theirs)
    if shape is None:
        x = rng.integers(0, 10, (3, 5))
        xa, xb = numtorch.from_numpy(x), torch.from_numpy(x)
    else:
        x = rng.standard_normal(shape)
        xa, xb = (
            numtorch.from_numpy(x.copy()).requires_grad_(True),
            torch.from_numpy(x.copy()).requires_grad_(True),
        )
    a, b = ours(xa), theirs(xb)
    np.testing.assert_allclose(a.detach().numpy(), b.detach().numpy(), rtol=1e-10, atol=1e-12)
    g = rng.standard_normal(tuple(b.shape))
    a.backward(numtorch.from_numpy(g))
    b.backward(torch.from_numpy(g))
    for (name, p), (_, q) in zip(ours.named_parameters(), theirs.named_parameters(), strict=False):
        np.testing.assert_allclose(
            p.grad.numpy(), q.grad.numpy(), rtol=1e-9, atol=1e-11, err_msg=name
        )
    if shape is not None:
        np.testing.assert_allclose(xa.grad.numpy(), xb.grad.numpy(), rtol=1e-9, atol=1e-11)
    for (name, buf), (_, tbuf) in zip(ours.named_buffers(), theirs.named_buffers(), strict=False):
        np.testing.assert_allclose(buf.numpy(), tbuf.numpy(), rtol=1e-12, err_msg=name)


def test_batch_norm_state_over_training_and_eval_steps(rng):
    ours, theirs = (
        numtorch.nn.BatchNorm1d(3, momentum=None).double(),
        torch.nn.BatchNorm1d(3, momentum=None).double(),
    )
    for _ in range(4):
        x = rng.standard_normal((5, 3, 2))
        ours(numtorch.from_numpy(x))
        theirs(torch.from_numpy(x))
    ours.eval()
    theirs.eval()
    x = rng.standard_normal((2, 3, 2))
    np.testing.assert_allclose(
        ours(numtorch.from_numpy(x)).detach().numpy(), theirs(torch.from_numpy(x)).detach().numpy()
    )
    assert ours.num_batches_tracked.item() == theirs.num_batches_tracked.item() == 4


MHA = [dict(), dict(batch_first=True), dict(kdim=4, vdim=5), dict(add_bias_kv=True, add_zero_attn=True),
       dict(bias=False, batch_first=True)]  # fmt: skip
CALLS = [dict(), dict(need_weights=False), dict(attn_mask="causal"), dict(key_padding_mask=True),
         dict(attn_mask="float", key_padding_mask=True, average_attn_weights=False), dict(attn_mask="causal", is_causal=True,
                                                                                       need_weights=False)]  # fmt: skip


@pytest.mark.filterwarnings(
    "ignore:Support for mismatched key_padding_mask and attn_mask is deprecated"
)
@pytest.mark.parametrize("kw", MHA, ids=str)
@pytest.mark.parametrize("call", CALLS, ids=str)
def test_multihead_attention_matches_torch_with_copied_weights(kw, call, rng):
    torch.manual_seed(0)
    theirs = torch.nn.MultiheadAttention(8, 2, **kw).double()
    ours = numtorch.nn.MultiheadAttention(8, 2, **kw).double()
    _copy(ours, theirs)
    L, S, N = 3, 4, 2
    bf = kw.get("batch_first", False)
    shape = lambda n, e: (N, n, e) if bf else (n, N, e)  # noqa: E731
    q, k, v = (
        rng.standard_normal(shape(L, 8)),
        rng.standard_normal(shape(S, kw.get("kdim", 8))),
        rng.standard_normal(shape(S, kw.get("vdim", 8))),
    )
    extra_t, extra_n = {}, {}
    for name, val in call.items():
        if name == "attn_mask":
            m = (
                np.triu(np.ones((L, S), bool), 2)
                if val == "causal"
                else rng.standard_normal((L, S))
            )
            extra_t[name], extra_n[name] = torch.from_numpy(m), numtorch.from_numpy(m)
        elif name == "key_padding_mask":
            m = np.zeros((N, S), bool)
            m[0, -1] = True
            extra_t[name], extra_n[name] = torch.from_numpy(m), numtorch.from_numpy(m)
        else:
            extra_t[name] = extra_n[name] = val
    ta = [torch.from_numpy(a.copy()).requires_grad_(True) for a in (q, k, v)]
    na = [numtorch.from_numpy(a.copy()).requires_grad_(True) for a in (q, k, v)]
    out_t, w_t = theirs(*ta, **extra_t)
    out_n, w_n = ours(*na, **extra_n)
    np.testing.assert_allclose(
        out_n.detach().numpy(), out_t.detach().numpy(), rtol=1e-9, atol=1e-12
    )
    assert (w_n is None) == (w_t is None)
    if w_t is not None:
        np.testing.assert_allclose(
            w_n.detach().numpy(), w_t.detach().numpy(), rtol=1e-9, atol=1e-12
        )
    g = rng.standard_normal(tuple(out_t.shape))
    out_t.backward(torch.from_numpy(g))
    out_n.backward(numtorch.from_numpy(g))
    for a, b in zip(na, ta, strict=False):
        np.testing.assert_allclose(a.grad.numpy(), b.grad.numpy(), rtol=1e-8, atol=1e-11)
    for (name, p), (_, t) in zip(ours.named_parameters(), theirs.named_parameters(), strict=False):
        np.testing.assert_allclose(
            p.grad.numpy(), t.grad.numpy(), rtol=1e-8, atol=1e-11, err_msg=name
        )
