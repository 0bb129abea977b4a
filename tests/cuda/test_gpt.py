"""A small GPT (benchmarks/gpt2.py at tiny sizes) trained for three AdamW steps on CUDA gives
the CPU's losses and weights within float32 rounding (slow: run with -m slow)."""

from __future__ import annotations

import numpy as np
import pytest

import numtorch
from benchmarks import gpt2

from ._sim import requires_cuda

pytestmark = requires_cuda
TINY = {"vocab": 17, "block": 8, "n_layer": 1, "n_head": 2, "n_embd": 16, "batch": 2, "micro": 1}


def _train(device: str, steps: int = 3):
    model = gpt2.build(numtorch, config=TINY).to(device)
    opt = gpt2.optimizer(numtorch, model)
    data = [(i.to(device), t.to(device)) for i, t in gpt2.batches(numtorch, config=TINY)]
    losses = []
    for _ in range(steps):
        for idx, tgt in data:
            loss = model(idx, tgt)
            loss.backward()
        numtorch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        opt.step()
        opt.zero_grad(set_to_none=True)
        losses.append(loss.item())
    return losses, model.head.weight.detach().cpu().numpy()


@pytest.mark.slow  # ~60 s under the simulator (every thread of every block is a Python thread)
def test_gpt_training_steps_match_cpu():
    (cuda_losses, cuda_w), (cpu_losses, cpu_w) = _train("cuda"), _train("cpu")
    np.testing.assert_allclose(cuda_losses, cpu_losses, rtol=1e-5)
    assert cuda_losses[-1] < cuda_losses[0]  # it trains
    np.testing.assert_allclose(cuda_w, cpu_w, rtol=1e-4, atol=1e-6)
