"""Muon: the Newton-Schulz update against a NumPy transcription, PyTorch's argument errors."""

from __future__ import annotations

import math

import numpy as np
import pytest

import numtorch


def _ns_ref(g, steps=5, a=3.4445, b=-4.7750, c=2.0315, eps=1e-7):
    x = g.T if g.shape[0] > g.shape[1] else g
    x = x / max(np.linalg.norm(x), eps)
    for _ in range(steps):
        gram = x @ x.T
        x = a * x + (b * gram + c * gram @ gram) @ x
    return x.T if g.shape[0] > g.shape[1] else x


@pytest.mark.parametrize("nesterov", [True, False])
def test_two_steps_match_numpy_transcription(nesterov):
    rng = np.random.default_rng(0)
    w0, g1, g2 = (rng.standard_normal((5, 3)).astype(np.float32) for _ in range(3))
    w = numtorch.nn.Parameter(numtorch.tensor(w0))
    opt = numtorch.optim.Muon([w], lr=0.05, weight_decay=0.1, momentum=0.9, nesterov=nesterov)
    ref, buf = w0.astype(np.float64), np.zeros((5, 3))
    for g in (g1, g2):
        w.grad = numtorch.tensor(g)
        opt.step()
        buf = buf + (g - buf) * (1 - 0.9)
        upd = g + (buf - g) * 0.9 if nesterov else buf
        ref = ref * (1 - 0.05 * 0.1) - 0.05 * math.sqrt(5 / 3) * _ns_ref(upd)
    np.testing.assert_allclose(w.detach().numpy(), ref, rtol=1e-4, atol=1e-5)


def test_newton_schulz_roughly_orthogonalizes():
    g = numtorch.randn(8, 4)
    s = np.linalg.svd(numtorch.optim._muon._zeropower_via_newtonschulz(g, (3.4445, -4.7750, 2.0315), 5, 1e-7).numpy(),
                      compute_uv=False)  # fmt: skip
    assert (s > 0.5).all() and (s < 1.5).all()


def test_errors():
    with pytest.raises(ValueError, match=r"Muon only supports 2D parameters whereas we found a parameter with size: torch.Size\(\[3\]\)"):
        numtorch.optim.Muon([numtorch.nn.Parameter(numtorch.ones(3))])
    p = [numtorch.nn.Parameter(numtorch.ones(2, 2))]
    with pytest.raises(ValueError, match="Learning rate should be >= 0 but is: -1"):
        numtorch.optim.Muon(p, lr=-1)
    with pytest.raises(ValueError, match="Adjust learning rate function foo is not supported"):
        numtorch.optim.Muon(p, adjust_lr_fn="foo")
    with pytest.raises(ValueError, match="Number of steps must be less than 100"):
        opt = numtorch.optim.Muon(p, ns_steps=100)
        p[0].grad = numtorch.ones(2, 2)
        opt.step()
