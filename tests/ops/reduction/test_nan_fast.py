"""nansum's binding fast call (Note [nansum fast call]) and nanmean's plain route (Note [nanmean
without the composite's ops]) against their bodies: same values (bit for bit, NaN included),
dtype and shape; modes, gradients, forward AD, dtype= and bad dims take the body."""

from __future__ import annotations

import numpy as np
import pytest

import numtorch as torch
from numtorch.ops._registry import BINDINGS
from numtorch.ops.reduction import fast_bindings, stats
from numtorch.testing._internal.logging_tensor import LoggingTensorMode, capture_logs


def _x(dtype=np.float32):
    rng = np.random.default_rng(5)
    x = rng.standard_normal((3, 4, 5)).astype(dtype)
    x[0, 1, 2] = x[2, 3, 0] = np.nan
    x[1, :, 4] = np.nan  # an all-NaN slice along dim 1: 0 / 0
    return x


DIMS = [(None, False), (None, True), (1, False), (-1, True), (0, False), ([0, 2], False), ((1, 2), True), ([], False)]


def _composite(x, dim, keepdim):
    return x.isnan().logical_not_().sum(dim, keepdim), x.nansum(dim, keepdim)


def _same(a, b):
    assert a.dtype == b.dtype and a.shape == b.shape
    assert a.numpy().tobytes() == b.numpy().tobytes()  # NaN bits and signed zeros too


@pytest.mark.parametrize("module", ["torch", "Tensor"])
def test_nansum_bindings_have_the_fast_call(module):
    (b,) = [b for b in BINDINGS if b.module == module and b.name == "nansum"]
    assert b.fast is not None and b.fast[0] is fast_bindings._NANSUM_FAST


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("dim,keepdim", DIMS)
def test_nansum_fast_matches_the_body(dtype, dim, keepdim):
    x = torch.from_numpy(_x(dtype))
    body = [b for b in BINDINGS if b.module == "torch" and b.name == "nansum"][0].body
    _same(torch.nansum(x, dim, keepdim), body(x, dim, keepdim, None, None))
    _same(x.nansum(dim, keepdim), body(x, dim, keepdim, None, None))


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("dim,keepdim", DIMS)
def test_nanmean_plain_matches_the_composite(dtype, dim, keepdim, monkeypatch):
    x = torch.from_numpy(_x(dtype))
    fast = torch.nanmean(x, dim, keepdim)
    calls = []
    monkeypatch.setattr(stats, "nanmean_plain", lambda *a: calls.append(1))  # None: the composite
    ref = torch.nanmean(x, dim, keepdim)
    assert calls, "the plain route was not tried"
    _same(fast, ref)
    count, total = _composite(x, dim, keepdim)
    _same(fast, total / count)


def test_nanmean_route_is_taken_only_for_plain_calls(monkeypatch):
    x = torch.from_numpy(_x())
    taken = []  # per call: whether the plain route answered (None: the composite runs)
    real = fast_bindings.nanmean_plain
    monkeypatch.setattr(stats, "nanmean_plain", lambda *a: taken.append(real(*a)) or taken[-1])
    torch.nanmean(x, 1)
    assert [r is not None for r in taken] == [True]
    taken.clear()
    xg = x.clone().requires_grad_(True)
    r = torch.nanmean(xg, 1)
    assert r.grad_fn is not None
    r.nansum().backward()
    assert xg.grad is not None and [r is not None for r in taken] == [False]
    taken.clear()
    with capture_logs() as logs, LoggingTensorMode():
        torch.nanmean(x, 1)
    assert any("isnan" in line for line in logs) and [r is not None for r in taken] == [False]
    taken.clear()
    r = torch.nanmean(x, 1, dtype=torch.float64)  # dtype=: the composite
    assert r.dtype == torch.float64 and taken == []
    import numtorch.autograd.forward_ad as fwAD

    with fwAD.dual_level():
        d = fwAD.make_dual(x, torch.ones(3, 4, 5))
        assert fwAD.unpack_dual(torch.nanmean(d, 1)).tangent is not None
    assert [r is not None for r in taken] == [False]


def test_nanmean_errors_are_the_composites():
    x = torch.from_numpy(_x())
    for _ in range(2):
        with pytest.raises(IndexError, match=r"Dimension out of range \(expected to be in range of \[-3, 2\], but got 3\)"):
            torch.nanmean(x, 3)
        with pytest.raises(RuntimeError, match="dim 1 appears multiple times in the list of dims"):
            torch.nanmean(x, [1, 1])
        with pytest.raises(RuntimeError, match="nanmean\\(\\): expected input to have floating point"):
            torch.nanmean(torch.ones(3, dtype=torch.int64))


def test_nanmean_0d_and_float16_take_the_composite():
    assert torch.nanmean(torch.tensor(2.5)).item() == 2.5
    h = torch.tensor([1.0, float("nan"), 2.0], dtype=torch.float16)
    assert torch.nanmean(h).item() == 1.5 and torch.nanmean(h).dtype == torch.float16
