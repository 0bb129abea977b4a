"""F.embedding_bag, torch.embedding_bag and nn.EmbeddingBag against torch: values, gradients to the
weight and per_sample_weights, the auxiliary outputs, reprs and error texts."""

from __future__ import annotations

import numpy as np
import pytest

import numtorch

torch = pytest.importorskip("torch")
_rng = np.random.default_rng(13)
IDX = np.array([1, 2, 4, 5, 4, 3, 2, 0, 6])
MODES = {"sum": 0, "mean": 1, "max": 2}


@pytest.mark.parametrize("mode", ["sum", "mean", "max"])
@pytest.mark.parametrize("padding_idx", [None, 4, -3])
@pytest.mark.parametrize("include_last_offset", [False, True])
@pytest.mark.parametrize("weighted", [False, True])
def test_embedding_bag_matches_torch(mode, padding_idx, include_last_offset, weighted):
    if weighted and mode != "sum":
        pytest.skip("per_sample_weights is sum-only (the refusal is compared below)")
    w = _rng.standard_normal((7, 4))
    offs = np.array([0, 2, 2, 5, 9] if include_last_offset else [0, 2, 2, 5])
    p = _rng.standard_normal(len(IDX)) if weighted else None
    res = []
    for L in (numtorch, torch):
        W = L.from_numpy(w.copy()).requires_grad_()
        P = L.from_numpy(p.copy()).requires_grad_() if p is not None else None
        r = L.nn.functional.embedding_bag(L.from_numpy(IDX), W, L.from_numpy(offs), mode=mode, padding_idx=padding_idx,
                                          include_last_offset=include_last_offset, per_sample_weights=P)  # fmt: skip
        r.backward(L.from_numpy(np.arange(r.numel(), dtype=np.float64).reshape(tuple(r.shape)) * 0.1))
        aux = L.embedding_bag(W.detach(), L.from_numpy(IDX), L.from_numpy(offs), False, MODES[mode], False,
                              None if P is None else P.detach(), include_last_offset, padding_idx)  # fmt: skip
        res.append((r.detach().numpy(), W.grad.numpy(), None if P is None else P.grad.numpy(),
                    [a.numpy().tolist() for a in aux[1:]]))  # fmt: skip
    (a, ga, pa, xa), (b, gb, pb, xb) = res
    np.testing.assert_allclose(a, b, rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(ga, gb, rtol=1e-12, atol=1e-12)
    if pa is not None:
        np.testing.assert_allclose(pa, pb, rtol=1e-12, atol=1e-12)
    assert xa == xb


def test_module_matches_torch():
    for kw in ({"mode": "sum"}, {"mode": "max", "padding_idx": 1}, {"max_norm": 1.0, "norm_type": 1.5, "mode": "mean"}):
        tm = torch.nn.EmbeddingBag(8, 3, **kw).double()
        nm = numtorch.nn.EmbeddingBag(8, 3, **kw).double()
        assert repr(nm) == repr(tm)
        nm.load_state_dict({k: numtorch.from_numpy(v.detach().numpy().copy()) for k, v in tm.state_dict().items()})
        x = _rng.integers(0, 8, (3, 4))
        np.testing.assert_allclose(nm(numtorch.from_numpy(x)).detach().numpy(), tm(torch.from_numpy(x)).detach().numpy(),
                                   rtol=1e-12, atol=1e-12)  # fmt: skip
        np.testing.assert_allclose(nm.weight.detach().numpy(), tm.weight.detach().numpy(), rtol=1e-12)


IDX_T = lambda L: L.tensor([1, 2, 4, 5, 4, 3, 2, 0])  # noqa: E731
OFF_T = lambda L: L.tensor([0, 2, 2, 5])  # noqa: E731
ERRORS = [
    lambda L, F: F.embedding_bag(IDX_T(L), L.ones(6, 3), OFF_T(L), mode="mean", per_sample_weights=L.ones(8)),
    lambda L, F: F.embedding_bag(IDX_T(L).view(2, 4), L.ones(6, 3), OFF_T(L)),
    lambda L, F: F.embedding_bag(IDX_T(L), L.ones(6, 3)),
    lambda L, F: F.embedding_bag(IDX_T(L), L.ones(6, 3), OFF_T(L), mode="x"),
    lambda L, F: F.embedding_bag(IDX_T(L).float(), L.ones(6, 3), OFF_T(L)),
    lambda L, F: F.embedding_bag(IDX_T(L), L.ones(6, 3), L.tensor([1, 2])),
    lambda L, F: F.embedding_bag(IDX_T(L), L.ones(6, 3), L.tensor([0, 9])),
    lambda L, F: F.embedding_bag(L.tensor([7]), L.ones(6, 3), L.tensor([0])),
    lambda L, F: F.embedding_bag(IDX_T(L), L.ones(6, 3), OFF_T(L).view(2, 2)),
    lambda L, F: F.embedding_bag(IDX_T(L), L.ones(6, 3), OFF_T(L), per_sample_weights=L.ones(3)),
    lambda L, F: F.embedding_bag(IDX_T(L).view(2, 4), L.ones(6, 3), mode="max", padding_idx=9),
    lambda L, F: F.embedding_bag(IDX_T(L), L.ones(6), OFF_T(L)),
    lambda L, F: F.embedding_bag(IDX_T(L), L.ones(6, 3), OFF_T(L), mode="max", scale_grad_by_freq=True),
]


def _outcome(lib, fn):
    try:
        fn(lib, lib.nn.functional)
    except Exception as e:  # noqa: BLE001 - the comparison is the test
        return type(e).__name__, str(e).replace("numtorch._tensor.Tensor", "torch.Tensor")
    return "ok", ""


@pytest.mark.parametrize("i", range(len(ERRORS)))
def test_errors_match_torch(i):
    assert _outcome(numtorch, ERRORS[i]) == _outcome(torch, ERRORS[i])

