"""autograd.graph against torch: saved-tensor hooks give torch's gradients, multi-grad hooks
torch's calls."""

from __future__ import annotations

import numpy as np
import pytest

torch = pytest.importorskip("torch")

import numtorch  # noqa: E402


def _model(lib, x, w):
    h = (x @ w).tanh()
    return (h.sigmoid() * h.exp()).log_softmax(-1).sum()


@pytest.mark.parametrize("ctx", ["hooks", "save_on_cpu"])
def test_grads_under_hooks_match_torch(ctx):
    rng = np.random.default_rng(0)
    xv, wv = rng.standard_normal((4, 3)), rng.standard_normal((3, 5))
    grads = []
    for lib in (numtorch, torch):
        x = lib.tensor(xv, requires_grad=True)
        w = lib.tensor(wv, requires_grad=True)
        g = lib.autograd.graph
        cm = g.save_on_cpu() if ctx == "save_on_cpu" else g.saved_tensors_hooks(lambda t: t.detach().clone(), lambda t: t)
        with cm:
            y = _model(lib, x, w)
        y.backward()
        grads.append((x.grad.numpy(), w.grad.numpy()))
    for a, b in zip(*grads):
        np.testing.assert_allclose(a, b, rtol=1e-12)


def test_multi_grad_hook_calls_match_torch():
    calls = {}
    for lib in (numtorch, torch):
        a = lib.tensor([1.0], requires_grad=True)
        b = lib.tensor([2.0], requires_grad=True)
        c, d = a * b, a + b
        log = calls[lib.__name__] = []
        lib.autograd.graph.register_multi_grad_hook((a, b, c, d), lambda gs, log=log: log.append([g is not None for g in gs]))
        c.sum().backward(retain_graph=True)
        (c + d).sum().backward(inputs=(b,), retain_graph=True)
    assert calls["numtorch"] == calls["torch"]
