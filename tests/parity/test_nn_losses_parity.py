"""The margin, embedding and likelihood losses (numtorch/ops/nn/loss_margin.py) against torch:
values, gradients of every floating input, the modules, and the error messages."""

from __future__ import annotations

import numpy as np
import pytest

import numtorch

torch = pytest.importorskip("torch")
F, TF = numtorch.nn.functional, torch.nn.functional

_rng = np.random.default_rng(0)


def r(*s):
    return _rng.standard_normal(s)


LABELS = np.array([[0, 3, -1, 1, 1], [1, 1, 1, 1, 1], [-1, 0, 0, 0, 0], [4, 2, 2, -1, 0]])
CASES = [
    ("soft_margin_loss", lambda: [r(4, 5), np.sign(r(4, 5))], {}),
    ("hinge_embedding_loss", lambda: [r(4, 5), np.sign(r(4, 5))], {"margin": 0.7}),
    ("poisson_nll_loss", lambda: [r(4, 5), np.abs(r(4, 5)) * 3], {"full": True}),
    ("poisson_nll_loss", lambda: [np.abs(r(4, 5)) + 0.1, np.abs(r(4, 5)) * 3], {"log_input": False}),
    ("gaussian_nll_loss", lambda: [r(4, 5), r(4, 5), np.abs(r(4, 5))], {"full": True}),
    ("gaussian_nll_loss", lambda: [r(4, 5), r(4, 5), np.abs(r(4))], {}),
    ("gaussian_nll_loss", lambda: [r(4, 5), r(4, 5), 0.7], {}),
    ("multilabel_soft_margin_loss", lambda: [r(4, 5), (r(4, 5) > 0) * 1.0], {}),
    ("multilabel_soft_margin_loss", lambda: [r(4, 5), (r(4, 5) > 0) * 1.0, np.abs(r(5))], {}),
    ("triplet_margin_loss", lambda: [r(4, 5), r(4, 5), r(4, 5)], {"swap": True, "p": 1.5}),
    ("triplet_margin_loss", lambda: [r(5), r(5), r(5)], {"margin": 2.0}),
    ("triplet_margin_with_distance_loss", lambda: [r(4, 5), r(4, 5), r(4, 5)], {"swap": True}),
    ("multi_margin_loss", lambda: [r(4, 5), np.array([0, 3, 4, 1])], {}),
    ("multi_margin_loss", lambda: [r(4, 5), np.array([0, 3, 4, 1]), 2, 0.5, np.abs(r(5))], {}),
    ("multi_margin_loss", lambda: [r(5), np.array(2)], {}),
    ("multilabel_margin_loss", lambda: [r(4, 5), LABELS], {}),
    ("multilabel_margin_loss", lambda: [r(5), np.array([2, 4, -1, 0, 0])], {}),
]


def _to(lib, a, grad):
    if not isinstance(a, np.ndarray):
        return a
    t = lib.from_numpy(a.copy())
    return t.requires_grad_(True) if grad and a.dtype.kind == "f" else t


@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
@pytest.mark.parametrize("case", CASES, ids=lambda c: c[0])
def test_values_and_gradients_match_torch(case, reduction):
    name, make, kw = case
    args = make()
    na, ta = [_to(numtorch, a, True) for a in args], [_to(torch, a, True) for a in args]
    try:
        want = getattr(TF, name)(*ta, reduction=reduction, **kw)
    except RuntimeError as e:  # an argument without a derivative: the same refusal, then input only
        with pytest.raises(RuntimeError, match=str(e).replace("'", ".")[:60]):
            getattr(F, name)(*na, reduction=reduction, **kw)
        na = [_to(numtorch, a, i == 0) for i, a in enumerate(args)]
        ta = [_to(torch, a, i == 0) for i, a in enumerate(args)]
        want = getattr(TF, name)(*ta, reduction=reduction, **kw)
    got = getattr(F, name)(*na, reduction=reduction, **kw)
    assert tuple(got.shape) == tuple(want.shape)
    np.testing.assert_allclose(got.detach().numpy(), want.detach().numpy(), rtol=1e-10, atol=1e-12)
    g = _rng.standard_normal(tuple(want.shape))
    got.backward(numtorch.from_numpy(g))
    want.backward(torch.from_numpy(g))
    for x, y in zip(na, ta):
        if isinstance(y, torch.Tensor) and y.requires_grad:
            # no path to an argument: torch may hand back zeros where numtorch leaves None
            gx = np.zeros(x.shape) if x.grad is None else x.grad.numpy()
            gy = np.zeros(tuple(y.shape)) if y.grad is None else y.grad.numpy()
            np.testing.assert_allclose(gx, gy, rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
@pytest.mark.parametrize("shape", [(0, 4), (7, 5), (6,)])
def test_multiclass_margins_float32_and_empty_batches(shape, reduction):
    x = _rng.standard_normal(shape).astype(np.float32)
    c, lead = shape[-1], shape[:-1]
    mm_t = _rng.integers(0, c, lead) if lead else np.array(2)
    ml_t = _rng.integers(-1, c, shape)
    w = np.abs(_rng.standard_normal(c)).astype(np.float32)
    calls = [("multi_margin_loss", [x, mm_t], {"p": 2, "margin": 0.7, "weight": w}),
             ("multi_margin_loss", [x, mm_t], {}), ("multilabel_margin_loss", [x, ml_t], {})]  # fmt: skip
    for name, args, kw in calls:
        out = []
        for lib in (numtorch, torch):
            xl = lib.from_numpy(args[0].copy()).requires_grad_()
            kwl = {k: lib.from_numpy(v) if isinstance(v, np.ndarray) else v for k, v in kw.items()}
            y = getattr(lib.nn.functional, name)(xl, lib.from_numpy(args[1]), reduction=reduction, **kwl)
            (y * lib.arange(1.0, y.numel() + 1).reshape(y.shape)).sum().backward()
            out.append((y.detach().numpy(), xl.grad.numpy()))
        if not x.size and reduction != "none":
            # torch hands back uninitialised memory here; numtorch the mean / sum of no terms
            out[1] = (np.float32(np.nan if reduction == "mean" else 0), out[1][1])
        for a, b in zip(*out, strict=True):
            assert a.dtype == b.dtype and a.shape == b.shape
            np.testing.assert_allclose(a, b, rtol=1e-6, atol=1e-7)


MODULES = [
    ("SoftMarginLoss", {}, 2), ("HingeEmbeddingLoss", {"margin": 0.3}, 2),
    ("PoissonNLLLoss", {"full": True}, 2), ("GaussianNLLLoss", {"full": True}, 3),
    ("MultiLabelSoftMarginLoss", {}, 2), ("TripletMarginLoss", {"swap": True}, 3),
    ("TripletMarginWithDistanceLoss", {"margin": 0.5}, 3), ("MultiMarginLoss", {"p": 2}, 2),
    ("MultiLabelMarginLoss", {"reduction": "sum"}, 2),
]  # fmt: skip


@pytest.mark.parametrize("name,kw,nargs", MODULES, ids=lambda v: v if isinstance(v, str) else "")
def test_modules_match_torch(name, kw, nargs):
    x = np.abs(r(4, 5)) + 0.2
    if name in ("MultiMarginLoss",):
        args = [x, np.array([0, 3, 4, 1])]
    elif name == "MultiLabelMarginLoss":
        args = [x, LABELS]
    elif name in ("SoftMarginLoss", "HingeEmbeddingLoss"):
        args = [x, np.sign(r(4, 5))]
    else:
        args = [x] + [np.abs(r(4, 5)) + 0.2 for _ in range(nargs - 1)]
    nm, tm = getattr(numtorch.nn, name)(**kw), getattr(torch.nn, name)(**kw)
    assert repr(nm) == repr(tm)
    got = nm(*[_to(numtorch, a, False) for a in args])
    want = tm(*[_to(torch, a, False) for a in args])
    np.testing.assert_allclose(got.numpy(), want.numpy(), rtol=1e-10)


ERRORS = [
    lambda L, F: F.multi_margin_loss(L.zeros(2, 3), L.tensor([0, 3])),
    lambda L, F: F.multi_margin_loss(L.zeros(2, 3), L.tensor([0, 1, 2])),
    lambda L, F: F.multi_margin_loss(L.zeros(3), L.tensor([0, 1])),
    lambda L, F: F.multi_margin_loss(L.zeros(2, 3), L.tensor([0, 1]), p=3),
    lambda L, F: F.multi_margin_loss(L.zeros(2, 3), L.tensor([0, 1]), weight=L.ones(4)),
    lambda L, F: F.multi_margin_loss(L.zeros(2, 3), L.tensor([0.0, 1.0])),
    lambda L, F: F.multilabel_margin_loss(L.zeros(2, 3), L.tensor([0, 1])),
    lambda L, F: F.multilabel_margin_loss(L.zeros(2, 3), L.tensor([[0, 5, -1], [0, 0, 0]])),
    lambda L, F: F.multilabel_margin_loss(L.zeros(2, 3), L.tensor([[0, -1, 7], [0, 0, 0]])),
    lambda L, F: F.multilabel_margin_loss(L.zeros(2, 3), L.tensor([[0, -2, 1], [0, 0, 0]])),
    lambda L, F: F.multilabel_margin_loss(L.zeros(2, 3, dtype=L.float16), L.tensor([[0, 1, 1], [0, 0, 0]])),
    lambda L, F: F.multi_margin_loss(L.zeros(2, 3), L.tensor([0, -1])),
    lambda L, F: F.multi_margin_loss(L.zeros(2, 3, dtype=L.float16), L.tensor([0, 1])),
    lambda L, F: F.multi_margin_loss(L.zeros(2, 0), L.tensor([0, 1])),
    lambda L, F: F.triplet_margin_loss(L.zeros(2, 3), L.zeros(3), L.zeros(2, 3)),
    lambda L, F: F.triplet_margin_with_distance_loss(L.zeros(2, 3), L.zeros(3), L.zeros(2, 3)),
    lambda L, F: F.triplet_margin_with_distance_loss(L.zeros(2, 3), L.zeros(2, 3), L.zeros(2, 3), margin=0),
    lambda L, F: F.gaussian_nll_loss(L.zeros(2, 3), L.zeros(2, 3), L.ones(3, 3)),
    lambda L, F: F.gaussian_nll_loss(L.zeros(2, 3), L.zeros(2, 3), -L.ones(2, 3)),
    lambda L, F: F.gaussian_nll_loss(L.zeros(2, 3), L.zeros(2, 3), 0.5, reduction="x"),
    lambda L, F: F.hinge_embedding_loss(L.zeros(2, 3), L.ones(2, 3), reduction="bad"),
    lambda L, F: F.poisson_nll_loss(L.zeros(2, 3), L.ones(2, 3), reduction="bad"),
    lambda L, F: L.nn.MultiMarginLoss(weight=L.ones(2, 2)),
    lambda L, F: L.nn.TripletMarginLoss(margin=-1.0),
    lambda L, F: L.nn.TripletMarginWithDistanceLoss(margin=0.0),
]


def _outcome(lib, fn):
    try:
        fn(lib, lib.nn.functional)
    except Exception as e:  # noqa: BLE001 - the comparison is the test
        return type(e).__name__, str(e)
    return "ok", ""


@pytest.mark.parametrize("i", range(len(ERRORS)))
def test_errors_match_torch(i):
    assert _outcome(numtorch, ERRORS[i]) == _outcome(torch, ERRORS[i])
