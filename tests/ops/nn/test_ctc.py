"""CTC loss against a brute-force NumPy reference (sum over every alignment of a short input),
gradcheck in float64, reductions, zero_infinity and argument errors."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

import numtorch
from numtorch.autograd import gradcheck

F = numtorch.nn.functional


def _collapse(path, blank):
    out, prev = [], None
    for p in path:
        if p != prev and p != blank:
            out.append(p)
        prev = p
    return out


def ctc_bruteforce(lp, target, blank=0):
    """-log of the summed probability of every length-T path that collapses to ``target``."""
    T, C = lp.shape
    total = 0.0
    for path in itertools.product(range(C), repeat=T):
        if _collapse(path, blank) == list(target):
            total += np.exp(sum(lp[t, c] for t, c in enumerate(path)))
    return -np.log(total) if total > 0 else np.inf


def _log_softmax(x):
    return x - np.log(np.exp(x).sum(-1, keepdims=True))


@pytest.mark.parametrize("targets", [[1], [1, 1], [2, 1], [], [1, 2, 2]])
@pytest.mark.parametrize("blank", [0, 2])
def test_nll_matches_bruteforce(targets, blank):
    rng = np.random.default_rng(len(targets))
    lp = _log_softmax(rng.standard_normal((5, 3)))
    targets = [t if t != blank else 0 for t in targets]
    if blank == 0 and 0 in targets:
        pytest.skip("a target equal to blank is invalid")
    got = F.ctc_loss(numtorch.from_numpy(lp).unsqueeze(1), numtorch.tensor([targets], dtype=numtorch.int64).reshape(1, -1),
                     [5], [len(targets)], blank=blank, reduction="none")  # fmt: skip
    np.testing.assert_allclose(got.numpy(), [ctc_bruteforce(lp, targets, blank)], rtol=1e-10)


def test_gradcheck_and_reductions():
    rng = np.random.default_rng(0)
    x = numtorch.from_numpy(rng.standard_normal((6, 3, 4))).requires_grad_(True)
    tg = numtorch.tensor([[1, 2, 2], [3, 0, 0], [1, 3, 1]])
    il, tl = [6, 4, 5], [3, 1, 2]
    fn = lambda x: F.ctc_loss(x.log_softmax(-1), tg, il, tl, reduction="sum")  # noqa: E731
    assert gradcheck(fn, (x,))
    lp = x.detach().log_softmax(-1)
    per = F.ctc_loss(lp, tg, il, tl, reduction="none")
    np.testing.assert_allclose(F.ctc_loss(lp, tg, il, tl).item(), (per.numpy() / np.array(tl)).mean(), rtol=1e-12)
    np.testing.assert_allclose(F.ctc_loss(lp, tg, il, tl, reduction="sum").item(), per.numpy().sum(), rtol=1e-12)


def test_impossible_alignment_is_inf_or_zero_with_zero_infinity():
    lp = numtorch.zeros(2, 1, 3).log_softmax(-1).requires_grad_(True)
    tg = numtorch.tensor([[1, 1]])  # needs a blank between the repeats: 3 steps
    assert F.ctc_loss(lp, tg, [2], [2], reduction="none").item() == float("inf")
    loss = F.ctc_loss(lp, tg, [2], [2], reduction="sum", zero_infinity=True)
    loss.backward()
    assert loss.item() == 0.0 and not lp.grad.any()


def test_module_and_errors():
    m = numtorch.nn.CTCLoss(blank=1, zero_infinity=True)
    assert repr(m) == "CTCLoss()" and m.blank == 1
    lp = numtorch.zeros(3, 2, 4).log_softmax(-1)
    with pytest.raises(RuntimeError, match="blank must be in label range"):
        F.ctc_loss(lp, numtorch.tensor([[1], [2]]), [3, 3], [1, 1], blank=4)
    with pytest.raises(RuntimeError, match="input_lengths must be of size batch_size"):
        F.ctc_loss(lp, numtorch.tensor([[1], [2]]), [3], [1, 1])
    with pytest.raises(RuntimeError, match="Expected input_lengths to have value at most 3, but got value 4"):
        F.ctc_loss(lp, numtorch.tensor([[1], [2]]), [4, 3], [1, 1])
    with pytest.raises(ValueError, match="bogus is not a valid value for reduction"):
        F.ctc_loss(lp, numtorch.tensor([[1], [2]]), [3, 3], [1, 1], reduction="bogus")
