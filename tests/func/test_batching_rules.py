"""Ops with their own batching rule: vmap equals stacking the per-sample results, over several
in_dims patterns, and the loop fallback is not used (its one-time performance warning is not
raised). float64 throughout."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import numtorch as nt
import numtorch.nn.functional as F
from numtorch._functorch import batched
from numtorch.func import grad, vmap

B = 3


def _r(*shape, seed=0):
    return nt.tensor(np.random.default_rng(seed).standard_normal(shape))


def _loop(fn, args, in_dims):
    outs = []
    for b in range(B):
        outs.append(fn(*[a if d is None else a.select(d, b) for a, d in zip(args, in_dims)]))
    if isinstance(outs[0], tuple):
        return tuple(nt.stack([o[k] for o in outs]) for k in range(len(outs[0])))
    return nt.stack(outs)


def _no_fallback(fn, args, in_dims):
    batched._WARNED.clear()
    with warnings.catch_warnings(record=True) as rec:
        warnings.simplefilter("always")
        out = vmap(fn, in_dims=in_dims)(*args)
    drops = [str(w.message) for w in rec if "performance drop" in str(w.message)]
    assert not drops, drops
    return out


def _close(a, b):
    if isinstance(a, tuple):
        for x, y in zip(a, b, strict=True):
            _close(x, y)
        return
    assert a.dtype == b.dtype and tuple(a.shape) == tuple(b.shape)
    np.testing.assert_allclose(a.numpy(), b.numpy(), rtol=1e-10, atol=1e-12, equal_nan=True)


T5 = nt.tensor([[1, 0, 3, 3, 2], [0, 0, 1, 2, 3], [4, 4, 4, 0, 1]])  # (B, N) targets
T5[1, 2] = -100
W = nt.tensor([0.5, 1.0, 2.0, 1.5, 0.25], dtype=nt.float64)

CASES = {
    # name: (fn, args, in_dims)
    "nll mean": (lambda x, t: F.nll_loss(x, t), (_r(B, 5, 5), T5), (0, 0)),
    "nll sum weight": (lambda x, t: F.nll_loss(x, t, W, reduction="sum"), (_r(B, 5, 5), T5), (0, 0)),
    "nll none ignore": (lambda x, t: F.nll_loss(x, t, reduction="none", ignore_index=4), (_r(B, 5, 5), T5.clamp(0, 4)), (0, 0)),
    "nll mean weight ignore": (lambda x, t: F.nll_loss(x, t, W, ignore_index=0), (_r(B, 5, 5), T5.clamp(0, 4)), (0, 0)),
    "nll all ignored": (lambda x, t: F.nll_loss(x, t), (_r(B, 5, 5), nt.full((B, 5), -100)), (0, 0)),
    "nll unbatched target": (lambda x, t: F.nll_loss(x, t), (_r(B, 5, 5), T5[0]), (0, None)),
    "nll unbatched input": (lambda x, t: F.nll_loss(x, t, W), (_r(5, 5), T5), (None, 0)),
    "nll no batch dim": (lambda x, t: F.nll_loss(x, t), (_r(B, 5), T5[:, 0]), (0, 0)),
    "nll in_dim 1": (lambda x, t: F.nll_loss(x, t), (_r(5, B, 5), T5), (1, 0)),
    "cross_entropy": (lambda x, t: F.cross_entropy(x, t, label_smoothing=0.0), (_r(B, 5, 5), T5.clamp(0, 4)), (0, 0)),
    "nll grad mean": (grad(lambda x, t: F.nll_loss(x.log_softmax(-1), t)), (_r(B, 5, 5), T5), (0, 0)),
    "nll grad sum weight": (grad(lambda x, t: F.nll_loss(x.log_softmax(-1), t, W, reduction="sum")), (_r(B, 5, 5), T5), (0, 0)),
    "nll grad none": (grad(lambda x, t: (F.nll_loss(x, t, reduction="none") * nt.arange(5.0, dtype=nt.float64)).sum()), (_r(B, 5, 5), T5), (0, 0)),
    "nll grad no batch dim": (grad(lambda x, t: F.nll_loss(x, t, W)), (_r(B, 5), T5[:, 1]), (0, 0)),
}

# convolution: (B, N=2, C=4, L=7) inputs, weights (O=6, 4/g, 3), groups 1 and 2, transposed
X1, X2 = _r(B, 2, 4, 7, seed=1), _r(B, 2, 4, 5, 6, seed=2)
W1, W1g = _r(6, 4, 3, seed=3), _r(6, 2, 3, seed=4)
BW1, BW1g, BWt = _r(B, 6, 4, 3, seed=5), _r(B, 6, 2, 3, seed=6), _r(B, 4, 3, 3, seed=7)
BIAS, BBIAS = _r(6, seed=8), _r(B, 6, seed=9)
P = dict(stride=2, padding=1, dilation=1)
CASES.update({
    "conv1d input": (lambda x, w: F.conv1d(x, w, BIAS, **P), (X1, W1), (0, None)),
    "conv1d no N": (lambda x, w: F.conv1d(x, w, BIAS), (X1[:, 0], W1), (0, None)),
    "conv2d input": (lambda x, w: F.conv2d(x, w, padding=1), (X2, _r(3, 4, 2, 2)), (0, None)),
    "conv1d weight": (lambda x, w: F.conv1d(x, w, BIAS, **P), (X1[0], BW1), (None, 0)),
    "conv1d both": (lambda x, w: F.conv1d(x, w, **P), (X1, BW1), (0, 0)),
    "conv1d both groups": (lambda x, w: F.conv1d(x, w, BIAS, groups=2), (X1, BW1g), (0, 0)),
    "conv1d weight groups": (lambda x, w: F.conv1d(x, w, groups=2, dilation=2), (X1[0], BW1g), (None, 0)),
    "conv1d weight no N": (lambda x, w: F.conv1d(x, w), (X1[:, 0], BW1), (0, 0)),
    "conv1d bias only": (lambda x, b: F.conv1d(x, W1, b), (X1[0], BBIAS), (None, 0)),
    "conv1d all three": (lambda x, w, b: F.conv1d(x, w, b, **P), (X1, BW1, BBIAS), (0, 0, 0)),
    "conv_transpose1d weight": (lambda x, w: F.conv_transpose1d(x, w, stride=2, output_padding=1), (X1, BWt), (0, 0)),
    "conv_transpose1d input": (lambda x, w: F.conv_transpose1d(x, w, BIAS[:3], stride=2), (X1, BWt[0]), (0, None)),
    "conv grad input": (grad(lambda x, w: F.conv1d(x, w, BIAS, **P).pow(2).sum()), (X1, W1), (0, None)),
    "conv grad weight": (grad(lambda w, x: F.conv1d(x, w, BIAS, **P).pow(2).sum()), (W1, X1), (None, 0)),
    "conv grad weight no N": (grad(lambda w, x: F.conv1d(x, w, groups=2).pow(2).sum()), (W1g, X1[:, 0]), (None, 0)),
    "conv grad bias": (grad(lambda b, x: F.conv1d(x, W1, b).pow(2).sum()), (BIAS, X1), (None, 0)),
    "conv grad batched weight": (grad(lambda w, x: F.conv1d(x, w, **P).pow(2).sum()), (BW1, X1), (0, 0)),
    "conv grad input batched weight": (grad(lambda x, w: F.conv1d(x, w, groups=2).pow(2).sum()), (X1, BW1g), (0, 0)),
    "conv2d grad weight": (grad(lambda w, x: F.conv2d(x, w, padding=1).tanh().sum()), (_r(3, 4, 2, 2), X2), (None, 0)),
    "conv_transpose grad weight": (grad(lambda w, x: F.conv_transpose1d(x, w, stride=2).pow(2).sum()), (BWt[0], X1), (None, 0)),
})

# indexing: (B, 4, 5, 6) values, per-sample index tensors (B, 2) / (B, 2, 3)
XI = _r(B, 4, 5, 6, seed=10)
I1 = nt.tensor([[0, 3], [1, 1], [2, 0]])
I2 = nt.tensor([[[0, 1, 2], [3, 3, 0]], [[1, 1, 1], [2, 0, 3]], [[0, 0, 0], [1, 2, 3]]])
J1 = nt.tensor([[4, 0], [2, 2], [1, 3]])
V25 = _r(B, 2, 6, seed=11)


def _put(x, idx, v, acc=False):
    return x.index_put(idx, v, accumulate=acc)


def _setitem(x, i, v):
    y = x.clone()
    y[i] = v
    return y


SQ, RHS = _r(B, 4, 4, seed=12) + 4 * nt.eye(4, dtype=nt.float64), _r(B, 4, seed=13)
CASES.update({
    "index first": (lambda x, i: x[i], (XI, I1), (0, 0)),
    "index second": (lambda x, i: x[:, i], (XI, I1), (0, 0)),
    "index third 2-d": (lambda x, i: x[:, :, i], (XI, I2), (0, 0)),
    "index two contiguous": (lambda x, i, j: x[:, i, j], (XI, I1, J1), (0, 0, 0)),
    "index separated": (lambda x, i, j: x[i, :, j], (XI, I1, J1.clamp(0, 3)), (0, 0, 0)),
    "index separated unbatched": (lambda x: x[nt.tensor([0, 1]), :, nt.tensor([2, 5])], (XI,), (0,)),
    "index unbatched self": (lambda x, i: x[:, i], (XI[0], I1), (None, 0)),
    "index mixed": (lambda x, i: x[i, nt.tensor([1, 4])], (XI, I1), (0, 0)),
    "index_put batched index": (lambda x, i: _put(x, (i,), nt.ones(2, 5, 6, dtype=nt.float64)), (XI, I1), (0, 0)),
    "index_put accumulate": (lambda x, i, v: _put(x, (i, nt.tensor([0, 0])), v, True), (XI, I1, V25), (0, 0, 0)),
    "index_put batched values": (lambda x, v: _put(x, (nt.tensor([0, 2]),), v.unsqueeze(1)), (XI, V25), (0, 0)),
    "index_put unbatched self": (lambda x, i: _put(x, (i,), nt.zeros(()).double()), (XI[0], I1), (None, 0)),
    "setitem batched index": (lambda x, i, v: _setitem(x, (i, nt.tensor([1, 1])), v), (XI, I1, V25), (0, 0, 0)),
    "index grad": (grad(lambda x, i: (x[:, i] ** 2).sum()), (XI, I1), (0, 0)),
    "index grad duplicates": (grad(lambda x, i: (x[i] * 3).sum()), (XI, nt.tensor([[1, 1], [0, 0], [2, 1]])), (0, 0)),
    "take_along_dim": (lambda x, i: nt.take_along_dim(x, i.reshape(2, 1, 1), 0), (XI, I1), (0, 0)),
    "take_along_dim last": (lambda x, i: nt.take_along_dim(x, i.reshape(1, 1, 2), -1), (XI, J1), (0, 0)),
    "take_along_dim none": (lambda x, i: nt.take_along_dim(x, i), (XI, I2), (0, 0)),
    "take_along_dim unbatched index": (lambda x: nt.take_along_dim(x, nt.tensor([[[1]]]), 1), (XI,), (0,)),
    "take_along_dim unbatched self": (lambda x, i: nt.take_along_dim(x, i.reshape(2, 1, 1), 0), (XI[0], I1), (None, 0)),
    "take_along_dim grad": (grad(lambda x, i: nt.take_along_dim(x, i.reshape(2, 1, 1), 0).pow(2).sum()), (XI, I1), (0, 0)),
    "masked_scatter": (lambda x, m, s: x.masked_scatter(m, s), (XI, XI > 0, _r(B, 200, seed=14)), (0, 0, 0)),
    "masked_scatter broadcast mask": (lambda x, m: x.masked_scatter(m, nt.zeros(4, 5, 6, dtype=nt.float64)), (XI, XI[:, 0, 0] > 0), (0, 0)),
    "masked_scatter unbatched self": (lambda x, s: x.masked_scatter(x > 0, s), (XI[0], _r(B, 120, seed=15)), (None, 0)),
    "masked_scatter_ inplace": (lambda x, s: x.clone().masked_scatter_(x < 0, s), (XI, _r(B, 120, seed=16)), (0, 0)),
    "masked_scatter grad": (grad(lambda s, x: x.masked_scatter(x > 0, s).pow(2).sum()), (_r(B, 120, seed=17), XI), (0, 0)),
    "permute": (lambda x: x.permute(2, 0, 1), (XI,), (0,)),
    "permute negative": (lambda x: x.permute(-1, -3, -2), (XI.movedim(0, 2),), (2,)),
    "solve matrix": (lambda a, b: nt.linalg.solve(a, b), (SQ, _r(B, 4, 2, seed=18)), (0, 0)),
    "solve vector": (lambda a, b: nt.linalg.solve(a, b), (SQ, RHS), (0, 0)),
    "solve unbatched A": (lambda a, b: nt.linalg.solve(a, b), (SQ[0], RHS), (None, 0)),
    "solve unbatched b": (lambda a, b: nt.linalg.solve(a, b), (SQ, RHS[0]), (0, None)),
    "solve left false": (lambda a, b: nt.linalg.solve(a, b, left=False), (SQ, _r(B, 2, 4, seed=19)), (0, 0)),
    "solve grad": (grad(lambda a, b: nt.linalg.solve(a, b).pow(2).sum()), (SQ, RHS), (0, 0)),
    "kthvalue": (lambda x: x.kthvalue(2, 1), (XI,), (0,)),
    "mode": (lambda x: x.round().mode(0), (XI,), (0,)),
})

# elementwise losses: reduced per sample, and their backward scaled by the sample's own numel
LX, LY = _r(B, 4, 5, seed=20), _r(B, 4, 5, seed=21)
for _name, _f in (("mse", F.mse_loss), ("smooth_l1", lambda a, b, **k: F.smooth_l1_loss(a, b, beta=0.5, **k)),
                  ("huber", lambda a, b, **k: F.huber_loss(a, b, delta=0.7, **k))):
    for _red in ("mean", "sum", "none"):
        CASES[f"{_name} {_red}"] = (lambda a, b, f=_f, r=_red: f(a, b, reduction=r), (LX, LY), (0, 0))
        CASES[f"{_name} {_red} grad"] = (grad(lambda a, b, f=_f, r=_red: f(a, b, reduction=r).sum()), (LX, LY), (0, 0))
    CASES[f"{_name} unbatched target grad"] = (grad(lambda a, b, f=_f: f(a, b)), (LX, LY[0]), (0, None))
    CASES[f"{_name} broadcast target"] = (lambda a, b, f=_f: f(a, b.unsqueeze(0).expand(4, 5)), (LX, LY[:, 0]), (0, 0))
    CASES[f"{_name} grad of target"] = (grad(lambda b, a, f=_f: f(a, b)), (LY, LX), (0, 0))
PROB, TGT, BW = LX.sigmoid(), LY.sigmoid(), _r(4, 5, seed=22).abs()
for _red in ("mean", "sum", "none"):
    CASES[f"bce {_red}"] = (lambda p, t, r=_red: F.binary_cross_entropy(p, t, reduction=r), (PROB, TGT), (0, 0))
    CASES[f"bce weight {_red} grad"] = (grad(lambda p, t, r=_red: F.binary_cross_entropy(p, t, BW, reduction=r).sum()), (PROB, TGT), (0, 0))
    CASES[f"bce logits {_red}"] = (lambda x, t, r=_red: F.binary_cross_entropy_with_logits(x, t, BW, pos_weight=BW[0], reduction=r),
                                   (LX, TGT), (0, 0))
    CASES[f"bce logits {_red} grad"] = (grad(lambda x, t, r=_red: F.binary_cross_entropy_with_logits(x, t, reduction=r).sum()),
                                        (LX, TGT), (0, 0))

# layer_norm over trailing dims; embedding with batched indices or tables
LN, LNW, LNB = _r(B, 2, 3, 4, seed=40), _r(3, 4, seed=41), _r(3, 4, seed=42)
EMB, BEMB = _r(7, 3, seed=43), _r(B, 7, 3, seed=44)
EI = nt.tensor([[[0, 6], [2, 2]], [[1, 3], [3, 1]], [[5, 0], [4, 4]]])
CASES.update({
    "layer_norm": (lambda x: F.layer_norm(x, (4,), LNW[0], LNB[0]), (LN,), (0,)),
    "layer_norm two dims": (lambda x: F.layer_norm(x, (3, 4), LNW, LNB), (LN,), (0,)),
    "layer_norm batched weight": (lambda x, w, b: F.layer_norm(x, (3, 4), w, b), (LN, _r(B, 3, 4), _r(B, 3, 4, seed=1)), (0, 0, 0)),
    "layer_norm grad input": (grad(lambda x: F.layer_norm(x, (4,), LNW[0], LNB[0]).pow(2).sum()), (LN,), (0,)),
    "layer_norm grad weight": (grad(lambda w, b, x: F.layer_norm(x, (3, 4), w, b).pow(3).sum(), argnums=(0, 1)), (LNW, LNB, LN), (None, None, 0)),
    "layer_norm grad no lead": (grad(lambda w, x: F.layer_norm(x, (2, 3, 4), None, None).mul(2).sum() + F.layer_norm(x, (4,), w[0]).pow(2).sum()),
                                (LNW, LN), (None, 0)),
    "layer_norm grad batched weight": (grad(lambda x, w: F.layer_norm(x, (4,), w).pow(2).sum(), argnums=(0, 1)), (LN, _r(B, 4)), (0, 0)),
    "embedding": (lambda i: F.embedding(i, EMB), (EI,), (0,)),
    "embedding batched table": (lambda w, i: F.embedding(i, w), (BEMB, EI), (0, 0)),
    "embedding batched table shared idx": (lambda w: F.embedding(EI[0], w), (BEMB,), (0,)),
    "embedding grad": (grad(lambda w, i: F.embedding(i, w).pow(2).sum()), (EMB, EI), (None, 0)),
    "embedding grad padding": (grad(lambda w, i: F.embedding(i, w, padding_idx=2).pow(2).sum()), (EMB, EI), (None, 0)),
    "embedding grad scale": (grad(lambda w, i: F.embedding(i, w, scale_grad_by_freq=True).pow(2).sum()), (EMB, EI), (None, 0)),
    "embedding grad batched table": (grad(lambda w, i: F.embedding(i, w, padding_idx=0).pow(2).sum()), (BEMB, EI), (0, 0)),
})

# pooling / padding backward fold every tensor argument into N; view(dtype)
PX = _r(B, 2, 3, 6, 6, seed=50)
CASES.update({
    "max_pool2d grad": (grad(lambda x: F.max_pool2d(x, 2, stride=2).pow(2).sum()), (PX,), (0,)),
    "max_pool2d grad no N": (grad(lambda x: F.max_pool2d(x, 3, stride=1, padding=1).pow(2).sum()), (PX[:, 0],), (0,)),
    "avg_pool2d grad": (grad(lambda x: F.avg_pool2d(x, 2, ceil_mode=True).pow(2).sum()), (PX,), (0,)),
    "adaptive_avg_pool2d grad": (grad(lambda x: F.adaptive_avg_pool2d(x, (2, 3)).pow(2).sum()), (PX,), (0,)),
    "adaptive_max_pool2d grad": (grad(lambda x: F.adaptive_max_pool2d(x, 2).pow(2).sum()), (PX,), (0,)),
    "reflection pad grad": (grad(lambda x: F.pad(x, (1, 2, 2, 1), mode="reflect").pow(2).sum()), (PX,), (0,)),
    "replication pad1d grad": (grad(lambda x: F.pad(x, (2, 1), mode="replicate").pow(2).sum()), (PX[:, :, 0],), (0,)),
    "cnn per-sample weight grad": (grad(lambda w, x: F.max_pool2d(F.conv2d(x, w, padding=1).relu(), 2).sum()),
                                   (_r(4, 3, 3, 3, seed=51), PX), (None, 0)),
    "view dtype": (lambda x: x.view(nt.int32), (LX,), (0,)),
    "celu": (lambda x: F.celu(x, 0.7), (LX,), (0,)),
    "zero_": (lambda x: x.clone().zero_(), (LX,), (0,)),
    "view_as_real": (lambda x: nt.view_as_real(x * 1j), (LX,), (0,)),
    "view_as_complex": (lambda x: nt.view_as_complex(x[:, :2].contiguous()), (LX,), (0,)),
    "new_zeros then write": (lambda x: x.new_zeros(2, 5).add_(x[:2]), (LX,), (0,)),
    "new_full": (lambda x: x.new_full((3,), 2.5, dtype=nt.float32), (LX,), (0,)),
    "pow_ tensor": (lambda x, y: x.clone().pow_(y.abs()), (LX.abs(), LY), (0, 0)),
    "floor_divide_": (lambda x, y: x.clone().floor_divide_(y), (LX, LY), (0, 0)),
    "roll dims": (lambda x: x.roll((1, -2), (0, 1)), (LX,), (0,)),
    "roll flat": (lambda x: x.roll(3), (LX,), (0,)),
    "roll grad": (grad(lambda x: (x.roll(2, -1) * LY[0]).sum()), (LX,), (0,)),
})


@pytest.mark.parametrize("name", list(CASES))
def test_rule_matches_loop_without_fallback(name):
    fn, args, in_dims = CASES[name]
    _close(_no_fallback(fn, args, in_dims), _loop(fn, args, in_dims))


def test_per_sample_grads_of_mlp_use_rules_only():
    nt.manual_seed(0)
    model = nt.nn.Sequential(nt.nn.Linear(6, 5), nt.nn.ReLU(), nt.nn.Linear(5, 3)).double()
    params = {k: v.detach() for k, v in model.named_parameters()}
    x, y = _r(B, 6), nt.tensor([0, 2, 1])

    def loss(p, xb, yb):
        return F.cross_entropy(nt.func.functional_call(model, p, (xb.unsqueeze(0),)), yb.unsqueeze(0))

    got = _no_fallback(grad(loss), (params, x, y), (None, 0, 0))
    for i in range(B):
        ref = nt.autograd.grad(loss(dict(model.named_parameters()), x[i], y[i]), list(model.parameters()))
        for (k, g), r in zip(got.items(), ref):
            np.testing.assert_allclose(g[i].numpy(), r.numpy(), rtol=1e-10, atol=1e-12)


def test_as_strided_views_each_sample_at_its_place():
    x = nt.arange(24.0, dtype=nt.float64).reshape(3, 8)
    out = _no_fallback(lambda a: a.as_strided((2, 2), (1, 2), 1), (x,), (0,))
    np.testing.assert_array_equal(out.numpy(), np.stack([x.numpy()[b, 1:5].reshape(2, 2).T for b in range(3)]))
    with pytest.raises(RuntimeError, match="can access memory outside of `tensor`"):
        vmap(lambda a: a.as_strided((2, 2), (1, 2), 1))(x[:, 2:])


@pytest.mark.parametrize("name", ["mse_loss", "smooth_l1_loss", "huber_loss", "soft_margin_loss"])
def test_forward_mode_under_vmap_sees_every_sample(name):
    # forward AD's double-vjp leaves alias every sample of a batched primal, not sample 0's data
    f = getattr(F, name)
    x, y = _r(B, 4, seed=30), _r(B, 4, seed=31)
    ref = nt.stack([nt.func.hessian(f)(x[i], y[i]) for i in range(B)])
    np.testing.assert_allclose(vmap(nt.func.hessian(f))(x, y).numpy(), ref.numpy(), atol=1e-12)
    t = _r(4, seed=32)
    jv = vmap(lambda a, b: nt.func.jvp(lambda u: (u.clamp(-0.5, 0.5) * b).pow(3), (a,), (t,))[1])(x, y)
    ref = nt.stack([nt.func.jvp(lambda u: (u.clamp(-0.5, 0.5) * y[i]).pow(3), (x[i],), (t,))[1] for i in range(B)])
    np.testing.assert_allclose(jv.numpy(), ref.numpy(), atol=1e-12)


def test_rule_table_names_the_fallbacks():
    from numtorch._functorch._rules import rule_table

    t = rule_table()
    assert t["aten::nll_loss_forward"] == "nll_forward" and t["aten::convolution_backward"] == "conv_backward_rule"
    assert t["aten::sin"] == "pointwise" and t["aten::linear"] == "composite" and t["aten::zeros"] == "no tensor input"
    assert t["aten::rand_like"] == "random_rule"
    assert None in t.values()  # some ops still loop, and the table says which
