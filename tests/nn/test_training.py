"""End to end: a model, a loss, an optimizer and a DataLoader train together."""

from __future__ import annotations

import numpy as np
import pytest

import numtorch
from numtorch import nn
from numtorch.utils.data import DataLoader, TensorDataset


@pytest.mark.parametrize("opt", ["SGD", "Adam"])
def test_training_loss_falls_by_a_large_factor(opt):
    numtorch.manual_seed(0)
    rng = np.random.default_rng(0)
    x = rng.standard_normal((256, 4)).astype(np.float32)
    y = (x[:, 0] * x[:, 1] > 0).astype(np.int64)  # not linearly separable: needs the hidden layer
    data = DataLoader(TensorDataset(numtorch.from_numpy(x), numtorch.from_numpy(y)), batch_size=32,
                      shuffle=True, generator=numtorch.Generator().manual_seed(0))  # fmt: skip
    model = nn.Sequential(nn.Linear(4, 32), nn.ReLU(), nn.Linear(32, 2))
    kw = {"lr": 0.1, "momentum": 0.9} if opt == "SGD" else {"lr": 0.02}
    optim = getattr(numtorch.optim, opt)(model.parameters(), **kw)

    def full_loss():
        with numtorch.no_grad():
            return nn.functional.cross_entropy(model(numtorch.from_numpy(x)), numtorch.from_numpy(y)).item()

    first = full_loss()
    for _ in range(60):
        for xb, yb in data:
            optim.zero_grad()
            nn.functional.cross_entropy(model(xb), yb).backward()
            optim.step()
    assert full_loss() < first / 10
    with numtorch.no_grad():
        acc = (model(numtorch.from_numpy(x)).argmax(1).numpy() == y).mean()
    assert acc > 0.97
