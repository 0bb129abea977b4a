"""Batching rules for fft, einsum, vdot, take/put, searchsorted/bucketize, unfold, fold, 3-D
pools, upsample and norm backward ops: vmap equals stacking the per-sample results and the loop
fallback is not used; ops with data-dependent result shapes raise PyTorch's vmap errors.
float64 throughout, tiny sizes."""

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
    outs = [fn(*[a if d is None else a.select(d, b) for a, d in zip(args, in_dims)]) for b in range(B)]
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
    np.testing.assert_allclose(a.numpy(), b.numpy(), rtol=1e-10, atol=1e-12)


X = _r(B, 4, 6)
M, V = _r(B, 4, 5, seed=1), _r(5, 3, seed=2)
C = nt.complex(_r(B, 4, seed=3), _r(B, 4, seed=4))
SEQ, BSEQ = nt.tensor([-1.0, 0.0, 0.5, 2.0]), _r(B, 4, seed=5).sort(-1)[0]
IDX, BIDX = nt.tensor([0, -1, 5, 2]), nt.tensor([[0, 3], [-2, 1], [4, 4]])
G4 = _r(B, 2, 4, 3, seed=6)  # (B, N, C, L): group/batch norm inputs
GW, GB = _r(B, 4, seed=7), _r(4, seed=8)
P3 = _r(B, 1, 2, 4, 4, 4, seed=9)  # (B, N, C, D, H, W)
N4, W3 = _r(B, 2, 3, 2, 2, seed=16), nt.tensor([0.5, 2.0, 1.0], dtype=nt.float64)  # (B, N, C, H, W)
T4 = nt.tensor(np.random.default_rng(17).integers(0, 3, (B, 2, 2, 2)))

SQ = _r(B, 4, 4, seed=18) + 4 * nt.eye(4, dtype=nt.float64)  # well-conditioned square matrices
CASES = {
    "solve_triangular": (lambda a, b: nt.linalg.solve_triangular(a, b, upper=True), (SQ, X[:, :, :3]), (0, 0)),
    "solve_triangular right": (lambda a, b: nt.linalg.solve_triangular(a, b, upper=False, left=False),
                               (SQ[0], _r(B, 2, 4, seed=19)), (None, 0)),
    "solve_triangular batched A": (lambda a, b: nt.linalg.solve_triangular(a, b, upper=False), (SQ, V[:4]), (0, None)),
    "lu_factor_ex": (lambda a: nt.linalg.lu_factor_ex(a), (SQ,), (0,)),
    "geqrf": (lambda a: nt.geqrf(a), (M,), (0,)),
    "eig": (lambda a: nt.linalg.eig(a), (SQ,), (0,)),
    "fft": (lambda x: nt.fft.fft(x), (X,), (0,)),
    "rfft": (lambda x: nt.fft.rfft(x, dim=0), (X,), (0,)),
    "irfft": (lambda x: nt.fft.irfft(x, n=6), (C,), (0,)),
    "fft2": (lambda x: nt.fft.fft2(x.to(nt.complex128)), (X,), (0,)),
    "einsum mm": (lambda a, b: nt.einsum("ij,jk->ik", a, b), (M, V), (0, None)),
    "einsum both": (lambda a, b: nt.einsum("ij,ij->i", a, b), (M, M * 2), (0, 0)),
    "einsum implicit": (lambda a, b: nt.einsum("ij,jk", a, b), (V.t(), _r(B, 5, 2, seed=10)), (None, 0)),
    "einsum ellipsis": (lambda a: nt.einsum("...j->...", a), (M,), (0,)),
    "vdot": (lambda a, b: nt.vdot(a, b), (X[:, 0], X[:, 1]), (0, 0)),
    "vdot complex": (lambda a, b: nt.vdot(a, b), (C, C[0] * 2), (0, None)),
    "take": (lambda x, i: nt.take(x, i), (X, IDX), (0, None)),
    "take batched index": (lambda x, i: nt.take(x, i), (X[0], BIDX), (None, 0)),
    "take both": (lambda x, i: nt.take(x, i), (X, BIDX), (0, 0)),
    "put": (lambda x, i, s: x.put(i, s), (X, BIDX, _r(B, 2, seed=11)), (0, 0, 0)),
    "put accumulate": (lambda x, i, s: x.put(i, s, accumulate=True), (X[0], nt.tensor([[1, 1]] * 3), _r(B, 2)), (None, 0, 0)),
    "put_": (lambda x, i, s: x.clone().put_(i, s), (X, IDX, _r(4, seed=12)), (0, None, None)),
    "searchsorted": (lambda x: nt.searchsorted(SEQ, x), (X,), (0,)),
    "searchsorted batched seq": (lambda s, x: nt.searchsorted(s, x, right=True), (BSEQ, X), (0, 0)),
    "searchsorted scalar": (lambda s: nt.searchsorted(s, 0.1), (BSEQ,), (0,)),
    "searchsorted nd": (lambda s, x: nt.searchsorted(s, x), (BSEQ.unsqueeze(1).expand(B, 2, 4), X[:, :2]), (0, 0)),
    "searchsorted sorter": (lambda s, o, x: nt.searchsorted(s, x, sorter=o), (X[:, 0], X[:, 0].argsort(-1), X), (0, 0, 0)),
    "bucketize": (lambda x: nt.bucketize(x, SEQ), (X,), (0,)),
    "bucketize batched": (lambda x, s: nt.bucketize(x, s, right=True), (X, BSEQ), (0, 0)),
    "unfold": (lambda x: x.unfold(1, 3, 2), (X,), (0,)),
    "unfold grad": (grad(lambda x: (x.unfold(-1, 2, 1) ** 2).sum()), (X,), (0,)),
    "fold": (lambda x: F.fold(x, (3, 3), 2), (_r(B, 2, 8, 4, seed=13),), (0,)),
    "fold no N": (lambda x: F.fold(x, (3, 3), 2), (_r(B, 8, 4, seed=14),), (0,)),
    "avg_pool3d": (lambda x: F.avg_pool3d(x, 2), (P3,), (0,)),
    "max_pool3d": (lambda x: F.max_pool3d(x, 2), (P3,), (0,)),
    "adaptive pools 3d": (lambda x: F.adaptive_max_pool3d(x, 2) + F.adaptive_avg_pool3d(x, 3).sum(), (P3,), (0,)),
    "pool3d grads": (grad(lambda x: (F.max_pool3d(x, 2) + F.avg_pool3d(x, 2) + F.adaptive_max_pool3d(x, 2)
                                     + F.adaptive_avg_pool3d(x, 2)).pow(2).sum()), (P3,), (0,)),  # fmt: skip
    "upsample grads": (grad(lambda x: (F.interpolate(x, scale_factor=2) * 1.5
                                       + F.interpolate(x, size=(6, 4), mode="bilinear")).pow(2).sum()),
                       (_r(B, 1, 2, 3, 2, seed=15),), (0,)),  # fmt: skip
    "group_norm": (lambda x, w, b: F.group_norm(x, 2, w, b), (G4, GW, GB), (0, 0, None)),
    "group_norm grads": (grad(lambda x, w, b: (F.group_norm(x, 2, w, b) * x).sum(), argnums=(0, 1, 2)),
                         (G4, GW, GB), (0, 0, None)),  # fmt: skip
    "batch_norm": (lambda x, w: F.batch_norm(x, None, None, w, training=True), (G4, GW), (0, 0)),
    "batch_norm eval": (lambda x: F.batch_norm(x, GB.abs(), GB.abs() + 1, training=False), (G4,), (0,)),
    "batch_norm grads": (grad(lambda x, w, b: (F.batch_norm(x, None, None, w, b, training=True) * x).sum(),
                              argnums=(0, 1, 2)), (G4, GW, GB), (0, 0, None)),  # fmt: skip
    "nll_loss2d mean": (lambda x, t: F.nll_loss(x, t, ignore_index=1), (N4, T4), (0, 0)),
    "nll_loss2d sum weight": (lambda x, t: F.nll_loss(x, t, W3, reduction="sum"), (N4, T4[0]), (0, None)),
    "nll_loss2d none": (lambda x, t: F.nll_loss(x, t, reduction="none"), (N4[0], T4), (None, 0)),
    "nll_loss2d aten": (lambda x, t: nt.ops.aten.nll_loss2d_forward(x, t, W3, 1, -100), (N4, T4), (0, 0)),
    "nll_loss2d grads": (grad(lambda x, t: F.cross_entropy(x, t, W3) + F.nll_loss(x, t, reduction="none").pow(2).sum()),
                         (N4, T4), (0, 0)),  # fmt: skip
    "lstsq": (lambda a, b: nt.linalg.lstsq(a, b), (_r(B, 5, 2, seed=18), _r(B, 5, 3, seed=19)), (0, 0)),
    "lstsq shared b": (lambda a, b: nt.linalg.lstsq(a, b, driver="gelsd"), (_r(B, 5, 2, seed=18), _r(5, 1)), (0, None)),
    "one_hot": (lambda t: F.one_hot(t, 5), (BIDX.abs(),), (0,)),
    "frexp": (lambda x: nt.frexp(x), (X,), (0,)),
    # the pointwise fast path (Note [vmap pointwise fast path]) and the patterns it hands on
    "pointwise lower-rank plain": (lambda x, y: x * y + 1.0, (X, X[0, 0]), (0, None)),
    "pointwise higher-rank plain": (lambda x, y: x - y, (X[:, 0], X[0]), (0, None)),
    "pointwise 0-d samples": (lambda x, y: x.atan2(y), (X[:, 0, 0], X[0, 0]), (0, None)),
    "pointwise mixed batched ranks": (lambda x, y: x.hypot(y), (X, X[:, 0]), (0, 0)),
    "pointwise nested": (lambda x, y: vmap(lambda u: u * y)(x), (X, X[:, 0]), (0, 0)),
    "pointwise outer level only": (lambda x, y: vmap(lambda u: u + x)(y), (X[:, 0], X[0]), (0, None)),
    "_cumprod_grad": (lambda g, x: nt.ops.aten._cumprod_grad(g, x, 1), (X * 2, X), (0, 0)),
}


@pytest.mark.parametrize("name", list(CASES))
def test_rule_matches_loop_without_fallback(name):
    fn, args, in_dims = CASES[name]
    _close(_no_fallback(fn, args, in_dims), _loop(fn, args, in_dims))


def test_batch_norm_updates_batched_running_stats_per_sample():
    rm, rv = nt.zeros(B, 4, dtype=nt.float64), nt.ones(B, 4, dtype=nt.float64)
    out = vmap(lambda x, m, v: F.batch_norm(x, m, v, training=True, momentum=0.5))(G4, rm, rv)
    for b in range(B):
        m, v = nt.zeros(4, dtype=nt.float64), nt.ones(4, dtype=nt.float64)
        ref = F.batch_norm(G4[b], m, v, training=True, momentum=0.5)
        np.testing.assert_allclose(out[b].numpy(), ref.numpy(), rtol=1e-10)
        np.testing.assert_allclose(rm[b].numpy(), m.numpy(), rtol=1e-10)
        np.testing.assert_allclose(rv[b].numpy(), v.numpy(), rtol=1e-10)
    with pytest.raises(RuntimeError, match="Batch norm got a batched tensor as input while the running_mean"):
        vmap(lambda x: F.batch_norm(x, nt.zeros(4, dtype=nt.float64), nt.ones(4, dtype=nt.float64), training=True))(G4)


@pytest.mark.parametrize("fn", [nt.nonzero, nt.unique, lambda x: nt.unique(x, dim=0), nt.argwhere])
def test_dynamic_shape_ops_raise(fn):
    with pytest.raises(RuntimeError, match="vmap: We do not support batching operators that can output dynamic shape"):
        vmap(fn)(X)


def test_masked_select_errors_on_a_batched_mask_only():
    with pytest.raises(RuntimeError, match="Attempted to vmap over `mask` in torch.masked_select"):
        vmap(nt.masked_select)(X, X > 0)
    mask = X[0] > 0
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        out = vmap(lambda x: nt.masked_select(x, mask))(X)
    _close(out, _loop(lambda x: nt.masked_select(x, mask), (X,), (0,)))


def test_take_out_of_range_raises_the_per_sample_error():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with pytest.raises(IndexError, match="out of range"):
            vmap(lambda x: nt.take(x, nt.tensor([24])))(X)


def test_positional_in_dims_without_pytree_work_match_the_general_path():
    # int / None in_dims per positional argument take the no-pytree path; errors stay PyTorch's
    x, y = X, X[:, :, 0]
    out = vmap(lambda a, s, b, d: a * s + b["k"] + d, in_dims=(-1, None, None, 1))(x, 2.0, {"k": y}, x.movedim(-1, 1))
    ref = nt.stack([x[..., i] * 2.0 + y + x[..., i] for i in range(6)])
    _close(out, ref)
    y = X[0]
    with pytest.raises(ValueError, match="Got in_dim=2 for some input, but that input is a Tensor of dimensionality 2"):
        vmap(lambda a: a, in_dims=(2,))(y)
    with pytest.raises(ValueError, match="Expected all tensors to have the same size in the mapped dimension"):
        vmap(lambda a, b: a + b, in_dims=(0, 1))(y, y)
    with pytest.raises(ValueError, match="at least one input must be vmapped over"):
        vmap(lambda a: a, in_dims=(None,))(y)
