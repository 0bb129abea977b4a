"""Loss modules."""

from __future__ import annotations

import numpy as np
import pytest

import numtorch
import numtorch.nn.functional as F
from numtorch import nn


def _t(rng, *shape, low=-2.0, high=2.0):
    return numtorch.from_numpy(rng.uniform(low, high, shape))


CASES = [
    (lambda: nn.MSELoss(reduction="sum"), lambda x, t: F.mse_loss(x, t, reduction="sum"), (0, 0)),
    (lambda: nn.L1Loss(), F.l1_loss, (0, 0)),
    (lambda: nn.SmoothL1Loss(beta=0.5), lambda x, t: F.smooth_l1_loss(x, t, beta=0.5), (0, 0)),
    (lambda: nn.HuberLoss(delta=0.5), lambda x, t: F.huber_loss(x, t, delta=0.5), (0, 0)),
    (lambda: nn.BCELoss(), F.binary_cross_entropy, (0.1, 0)),
    (lambda: nn.BCEWithLogitsLoss(pos_weight=numtorch.full((4,), 2.0, dtype=numtorch.float64)),
     lambda x, t: F.binary_cross_entropy_with_logits(x, t, pos_weight=numtorch.full((4,), 2.0, dtype=numtorch.float64)),
     (0, 0)),
    (lambda: nn.KLDivLoss(reduction="batchmean"), lambda x, t: F.kl_div(x, t, reduction="batchmean"), (0, 0.1)),
]  # fmt: skip


@pytest.mark.parametrize("case", CASES, ids=lambda c: type(c[0]()).__name__)
def test_elementwise_loss_modules_match_functionals(case, rng):
    make, fn, (xlow, tlow) = case
    x = _t(rng, 3, 4, low=max(xlow, -2.0) if xlow else -2.0, high=0.9 if xlow else 2.0)
    t = _t(rng, 3, 4, low=tlow if tlow else 0.0, high=1.0)
    assert make()(x, t).item() == pytest.approx(fn(x, t).item())
    assert repr(make()) == f"{type(make()).__name__}()"


def test_cross_entropy_module_keeps_weight_as_a_buffer(rng):
    w = numtorch.tensor([1.0, 2.0, 3.0], dtype=numtorch.float64)
    ce = nn.CrossEntropyLoss(weight=w, ignore_index=1, label_smoothing=0.1)
    assert [n for n, _ in ce.named_buffers()] == ["weight"]
    x, t = _t(rng, 4, 3), numtorch.tensor([0, 1, 2, 2])
    want = F.cross_entropy(x, t, weight=w, ignore_index=1, label_smoothing=0.1)
    assert ce(x, t).item() == pytest.approx(want.item())
    nll = nn.NLLLoss(reduction="none")
    assert nll(x, t).shape == (4,)


def test_legacy_arguments_set_the_reduction():
    with pytest.warns(UserWarning, match="size_average and reduce args will be deprecated"):
        assert nn.MSELoss(size_average=False).reduction == "sum"
    with pytest.warns(UserWarning):
        assert nn.L1Loss(reduce=False).reduction == "none"


def test_pair_losses(rng):
    a, b = _t(rng, 4, 3), _t(rng, 4, 3)
    y = numtorch.tensor([1.0, -1.0, 1.0, -1.0], dtype=numtorch.float64)
    assert nn.CosineEmbeddingLoss(0.1)(a, b, y).item() == pytest.approx(
        F.cosine_embedding_loss(a, b, y, 0.1).item()
    )
    r = nn.MarginRankingLoss(0.2, reduction="sum")(a[:, 0], b[:, 0], y)
    assert r.item() == pytest.approx(
        np.maximum(0, -y.numpy() * (a.numpy()[:, 0] - b.numpy()[:, 0]) + 0.2).sum()
    )


def test_loss_backward_through_a_tiny_classifier(rng):
    lin = nn.Linear(4, 3, dtype=numtorch.float64)
    x, t = _t(rng, 5, 4), numtorch.tensor([0, 2, 1, 1, 0])
    nn.CrossEntropyLoss()(lin(x), t).backward()
    assert lin.weight.grad.shape == (3, 4)
    np.testing.assert_allclose(
        lin.bias.grad.numpy().sum(), 0, atol=1e-12
    )  # softmax rows sum to one


_W = numtorch.rand(4)


@pytest.mark.parametrize(
    "call, fname, arg",
    [
        (lambda w: F.nll_loss(numtorch.randn(3, 4), numtorch.tensor([0, 1, 2]), weight=w), "nll_loss_forward", "weight"),
        (lambda w: F.cross_entropy(numtorch.randn(2, 4, 3), numtorch.zeros(2, 3, dtype=numtorch.long), weight=w),
         "nll_loss2d_forward", "weight"),
        (lambda w: F.cross_entropy(numtorch.randn(3, 4), numtorch.tensor([0, 1, 2]), weight=w, label_smoothing=0.1),
         "nll_loss_forward", "weight"),
        (lambda w: F.binary_cross_entropy(numtorch.rand(3, 4), numtorch.rand(3, 4), weight=w), "binary_cross_entropy", "weight"),
        (lambda w: F.binary_cross_entropy_with_logits(numtorch.randn(3, 4), numtorch.rand(3, 4), pos_weight=w),
         "binary_cross_entropy_with_logits", "pos_weight"),
        (lambda w: F.batch_norm(numtorch.randn(2, 4), w.detach(), w, training=True), "native_batch_norm", "running_var"),
    ],
)  # fmt: skip
def test_non_differentiable_tensor_arguments_must_not_require_grad(call, fname, arg):
    w = _W.clone().requires_grad_()
    msg = f"The function '{fname}' is not differentiable with respect to argument '{arg}'"
    with pytest.raises(RuntimeError, match=msg):
        call(w)
    with numtorch.no_grad():
        call(w)  # only checked while grad mode is on, as in PyTorch
    assert call(w.detach()).requires_grad is False
