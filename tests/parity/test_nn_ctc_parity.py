"""F.ctc_loss / torch.ctc_loss / nn.CTCLoss against torch: per-element losses, reductions and
gradients for padded and concatenated targets, repeats, empty targets, unreachable targets."""

from __future__ import annotations

import numpy as np
import pytest

import numtorch

torch = pytest.importorskip("torch")
_rng = np.random.default_rng(17)


def _lp(T, N, C, dtype=np.float64):
    x = _rng.standard_normal((T, N, C))
    return (x - np.log(np.exp(x).sum(-1, keepdims=True))).astype(dtype)


@pytest.mark.parametrize("reduction", ["none", "mean", "sum"])
@pytest.mark.parametrize("layout", ["padded", "concatenated"])
@pytest.mark.parametrize("zero_infinity", [False, True])
@pytest.mark.parametrize("blank", [0, 5])
def test_ctc_loss_matches_torch(reduction, layout, zero_infinity, blank):
    T, N, C = 12, 5, 6
    lp = _lp(T, N, C)
    tl, il = [3, 0, 5, 2, 6], [12, 7, 12, 9, 6]  # the last one cannot be aligned: inf
    labels = [c for c in range(C) if c != blank]
    tg = _rng.choice(labels, (N, 6))
    tg[3, :2] = labels[1]
    res = []
    for L in (numtorch, torch):
        x = L.from_numpy(lp.copy()).requires_grad_()
        t = L.from_numpy(tg) if layout == "padded" else L.from_numpy(np.concatenate([tg[n, : tl[n]] for n in range(N)]))
        out = L.nn.functional.ctc_loss(x, t, L.tensor(il), L.tensor(tl), blank=blank, reduction=reduction,
                                       zero_infinity=zero_infinity)  # fmt: skip
        w = L.from_numpy(np.linspace(0.5, 1.5, out.numel()).reshape(tuple(out.shape)))
        (out * w).sum().backward()
        res.append((out.detach().numpy(), x.grad.numpy()))
    np.testing.assert_allclose(res[0][0], res[1][0], rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(res[0][1], res[1][1], rtol=1e-10, atol=1e-12)


def test_float32_unbatched_and_module_match_torch():
    lp = _lp(8, 1, 4, np.float32)[:, 0]
    a = numtorch.nn.CTCLoss(blank=3)(numtorch.from_numpy(lp), numtorch.tensor([1, 2, 2]), numtorch.tensor(8), numtorch.tensor(3))
    b = torch.nn.CTCLoss(blank=3)(torch.from_numpy(lp), torch.tensor([1, 2, 2]), torch.tensor(8), torch.tensor(3))
    assert a.dtype is numtorch.float32
    np.testing.assert_allclose(a.item(), b.item(), rtol=1e-6)
    assert repr(numtorch.nn.CTCLoss(blank=3, reduction="sum")) == repr(torch.nn.CTCLoss(blank=3, reduction="sum"))


ERRORS = [
    lambda L: L.nn.functional.ctc_loss(L.zeros(3, 2, 4), L.tensor([[1], [2]]), [3, 3], [1, 1], blank=4),
    lambda L: L.nn.functional.ctc_loss(L.zeros(3, 2, 4), L.tensor([[1], [2]]), [3], [1, 1]),
    lambda L: L.nn.functional.ctc_loss(L.zeros(3, 2, 4), L.tensor([[1], [2]]), [4, 3], [1, 1]),
    lambda L: L.nn.functional.ctc_loss(L.zeros(3, 2, 4), L.tensor([[1], [2]]), [3, 3], [1, 1], reduction="x"),
]


def _outcome(lib, fn):
    try:
        fn(lib)
    except Exception as e:  # noqa: BLE001 - the comparison is the test
        return type(e).__name__, str(e)
    return "ok", ""


@pytest.mark.parametrize("i", range(len(ERRORS)))
def test_errors_match_torch(i):
    assert _outcome(numtorch, ERRORS[i]) == _outcome(torch, ERRORS[i])
