"""The fused multi_margin_loss / multilabel_margin_loss kernels (Note [Fused multi-class margin
losses]) against NumPy loops, their gradients (gradcheck; gradgradcheck through the composites),
strided operands and the targets-out-of-range refusals."""

from __future__ import annotations

import numpy as np
import pytest

import numtorch
from numtorch.autograd import gradcheck, gradgradcheck

F = numtorch.nn.functional
RED = {"none": 0, "mean": 1, "sum": 2}


def _reduce(per, reduction):
    return per if reduction == "none" else per.mean() if reduction == "mean" else per.sum()


def _np_multi_margin(x, t, p, margin, w):
    per = []
    for row, y in zip(x, t, strict=True):
        z = np.maximum(margin - row[y] + row, 0) ** p * (1 if w is None else w[y])
        per.append((z.sum() - z[y]) / x.shape[1])
    return np.array(per)


def _np_multilabel(x, t):
    per = []
    for row, labels in zip(x, t, strict=True):
        labels = labels[: list(labels).index(-1)] if -1 in labels else labels
        others = [d for d in range(x.shape[1]) if d not in labels]
        per.append(sum(max(0, 1 - row[y] + row[d]) for y in labels for d in others) / x.shape[1])
    return np.array(per)


@pytest.mark.parametrize("reduction", ["none", "mean", "sum"])
@pytest.mark.parametrize("p,margin,weighted", [(1, 1.0, False), (2, 0.6, True), (1, 1.5, True)])
def test_multi_margin_values(reduction, p, margin, weighted):
    rng = np.random.default_rng(p + int(margin * 10))
    x = rng.standard_normal((9, 5))
    t = rng.integers(0, 5, 9)
    w = np.abs(rng.standard_normal(5)) if weighted else None
    xs = numtorch.from_numpy(x.T.copy()).T  # strided
    got = F.multi_margin_loss(xs, numtorch.from_numpy(t), p=p, margin=margin,
                              weight=None if w is None else numtorch.from_numpy(w), reduction=reduction)  # fmt: skip
    np.testing.assert_allclose(got.numpy(), _reduce(_np_multi_margin(x, t, p, margin, w), reduction), rtol=1e-12)


@pytest.mark.parametrize("reduction", ["none", "mean", "sum"])
def test_multilabel_margin_values_and_is_target(reduction):
    rng = np.random.default_rng(4)
    x = rng.standard_normal((8, 5))
    t = rng.integers(-1, 5, (8, 5))
    t[0] = [2, 2, 4, -1, 0]  # a repeated label counts each time; nothing after the first -1 is read
    t[1] = -1
    got = F.multilabel_margin_loss(numtorch.from_numpy(x), numtorch.from_numpy(t), reduction=reduction)
    np.testing.assert_allclose(got.numpy(), _reduce(_np_multilabel(x, t), reduction), rtol=1e-12)
    _, is_t = numtorch.ops.aten.multilabel_margin_loss_forward(numtorch.from_numpy(x), numtorch.from_numpy(t), 1)
    assert is_t.dtype == numtorch.float64
    np.testing.assert_array_equal(is_t.numpy()[0], [0, 0, 1, 0, 1])
    assert not is_t.numpy()[1].any()


@pytest.mark.parametrize("reduction", ["none", "mean", "sum"])
def test_gradcheck_and_gradgradcheck(reduction):
    rng = np.random.default_rng(8)
    x = numtorch.from_numpy(rng.standard_normal((4, 5))).requires_grad_()
    t, lt = numtorch.tensor([0, 3, 4, 1]), numtorch.from_numpy(rng.integers(-1, 5, (4, 5)))
    w = numtorch.from_numpy(np.abs(rng.standard_normal(5)))
    fns = [lambda x: F.multi_margin_loss(x, t, p=2, margin=0.8, weight=w, reduction=reduction),
           lambda x: F.multi_margin_loss(x, t, reduction=reduction),
           lambda x: F.multilabel_margin_loss(x, lt, reduction=reduction)]  # fmt: skip
    for fn in fns:
        assert gradcheck(fn, (x,), eps=1e-6, atol=1e-6)
        assert gradgradcheck(fn, (x,), eps=1e-6, atol=1e-6)


def test_one_dim_input():
    x = numtorch.tensor([0.3, -0.2, 0.9, 0.1], dtype=numtorch.float64)
    for red in ("none", "mean", "sum"):
        y = F.multi_margin_loss(x, numtorch.tensor(2), reduction=red)
        assert y.shape == () and abs(y.item() - _np_multi_margin(x.numpy()[None], [2], 1, 1.0, None)[0]) < 1e-15
        y = F.multilabel_margin_loss(x, numtorch.tensor([2, 0, -1, 1]), reduction=red)
        assert y.shape == () and abs(y.item() - _np_multilabel(x.numpy()[None], [[2, 0, -1, 1]])[0]) < 1e-15


@pytest.mark.parametrize("t,msg", [([0, 4], "target out of range"), ([-1, 0], "target out of range")])
def test_multi_margin_target_out_of_range(t, msg):
    with pytest.raises(RuntimeError, match=msg):
        F.multi_margin_loss(numtorch.zeros(2, 4), numtorch.tensor(t))


@pytest.mark.parametrize("t", [[[0, 5, -1]], [[0, -1, 5]], [[0, -2, 1]]])
def test_multilabel_target_out_of_range(t):
    # the whole target is checked, not only the labels before the first -1 (ATen's min/max check)
    with pytest.raises(RuntimeError, match="argument #2 'target' is out of range"):
        F.multilabel_margin_loss(numtorch.zeros(1, 3), numtorch.tensor(t))


def test_meta():
    x = numtorch.empty(3, 4, device="meta")
    assert F.multi_margin_loss(x, numtorch.empty(3, dtype=numtorch.int64, device="meta"), reduction="none").shape == (3,)
    y = F.multilabel_margin_loss(x, numtorch.empty(3, 4, dtype=numtorch.int64, device="meta"))
    assert y.shape == () and y.device.type == "meta"
