"""CPU autocast beside PyTorch's: the output dtype of ops on and off its lists (Note [Autocast key])."""

from __future__ import annotations

import numpy as np
import pytest

torch = pytest.importorskip("torch")

import numtorch  # noqa: E402

CASES = {
    "linear": lambda m, x, w: m.nn.functional.linear(x, w),
    "matmul": lambda m, x, w: x @ w.t(),
    "bmm": lambda m, x, w: m.bmm(x[None], w.t()[None]),
    "softmax": lambda m, x, w: m.softmax(x, -1),
    "exp": lambda m, x, w: x.exp(),
    "cross_entropy": lambda m, x, w: m.nn.functional.cross_entropy(x, m.tensor([0, 1, 2, 0])),
    "mse_loss": lambda m, x, w: m.nn.functional.mse_loss(x, x),
    "cat": lambda m, x, w: m.cat([x.half(), x]),
    "stack": lambda m, x, w: m.stack([x.half(), x.half()]),
    "add": lambda m, x, w: x.half() + x,
    "conv2d": lambda m, x, w: m.nn.functional.conv2d(x.reshape(1, 2, 4, 4), w[:2].reshape(2, 2, 2, 2)),
    "prod": lambda m, x, w: x.half()[0].prod(),
    "sum": lambda m, x, w: x.half().sum(),
    "bce": lambda m, x, w: m.nn.functional.binary_cross_entropy(x.sigmoid().half(), x.t().reshape(4, 8).sigmoid().half()),
    "index_copy": lambda m, x, w: x.half().index_copy(0, m.tensor([0]), x[:1]),
    "baddbmm": lambda m, x, w: m.baddbmm(x[None, :3, :3], x[None, :3], w.t()[None]),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_cpu_autocast_output_dtype_and_values_match_pytorch(name):
    xs = np.random.default_rng(0).standard_normal((4, 8)).astype(np.float32)
    ws = np.random.default_rng(1).standard_normal((3, 8)).astype(np.float32)
    outs = []
    for m in (numtorch, torch):
        with m.autocast("cpu", dtype=m.float16):
            outs.append(CASES[name](m, m.from_numpy(xs.copy()), m.from_numpy(ws.copy())))
    got, want = outs
    assert str(got.dtype) == str(want.dtype)
    np.testing.assert_allclose(got.float().numpy(), want.float().numpy(), rtol=2e-3, atol=2e-3)
