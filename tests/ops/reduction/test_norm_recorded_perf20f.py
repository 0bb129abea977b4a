"""Note [The recorded norm takes the fast call's kernel]: aten.norm's CPU function (run where
the norm records, or under a mode) takes vnorm's layout and kernel, with fold's bits."""

from __future__ import annotations

import math

import numpy as np
import pytest

import numtorch as torch
from numtorch.ops.reduction import norm_fast
from numtorch.testing._internal.logging_tensor import LoggingTensorMode, capture_logs


def _x(shape, dtype, seed=0):
    rng = np.random.default_rng(seed)
    a = np.asarray(rng.standard_normal(shape) * 3, dtype)
    if a.size > 3:
        a.flat[0], a.flat[1], a.flat[2] = 0.0, -0.0, 1e-30
    return a


def _norm_and_grad(a, p, dim, keepdim):
    x = torch.from_numpy(a.copy()).requires_grad_(True)
    r = x.norm(p, dim, keepdim)
    r.sum().backward()
    return r, x.grad


def _same(r, want):
    assert r.shape == want.shape and r.dtype == want.dtype and r.stride() == want.stride()
    assert r._data.tobytes() == want._data.tobytes()


CASES = [((3, 4), 1, True), ((3, 4), 0, False), ((2, 3, 4), (0, 2), False), ((2, 3, 4), 1, True),
         ((3, 1, 4), 1, False), ((5,), 0, False), ((2, 3, 4), None, False), ((), None, False),
         ((1, 1), (0, 1), True), ((300, 70), 1, False)]  # fmt: skip


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("p", [2, 2.0, 1, 0, math.inf, -math.inf, 3])
@pytest.mark.parametrize("case", CASES, ids=str)
def test_recorded_norm_gives_folds_bits(monkeypatch, dtype, p, case):
    shape, dim, keepdim = case
    a = _x(shape, dtype)
    n = norm_fast.BODY_COUNT[0]
    got = _norm_and_grad(a, p, dim, keepdim)
    taken = norm_fast.BODY_COUNT[0] - n
    assert taken == (1 if p != 3 else 0)  # every case here but p = 3 is vnorm's
    assert got[0].grad_fn.name() == "NormBackward1"
    monkeypatch.setattr(norm_fast, "vnorm", lambda *a: None)  # the body's fold
    want = _norm_and_grad(a, p, dim, keepdim)
    _same(got[0], want[0])
    _same(got[1], want[1])


@pytest.mark.parametrize(
    "make",
    [
        lambda: torch.randn(4, 3).t(),  # not C-contiguous
        lambda: torch.randn(0, 3),  # empty
        lambda: torch.randn(3, 4).half(),
    ],
)
def test_other_inputs_take_fold(make):
    x = make().requires_grad_(True)
    n = norm_fast.BODY_COUNT[0]
    x.norm(2, 1)
    assert norm_fast.BODY_COUNT[0] == n


def test_complex_norm_takes_it_on_the_magnitudes(monkeypatch):
    x = torch.randn(3, 4, dtype=torch.complex128)
    n = norm_fast.BODY_COUNT[0]
    got = torch.norm(x.requires_grad_(True), 2, 1)
    assert norm_fast.BODY_COUNT[0] == n + 1
    monkeypatch.setattr(norm_fast, "vnorm", lambda *a: None)
    _same(got, torch.norm(x, 2, 1))


def test_a_mode_still_sees_the_norm():
    x = torch.randn(3, 4)
    n = norm_fast.BODY_COUNT[0]
    with LoggingTensorMode(), capture_logs() as logs:
        r = x.norm(2, 1)
    assert any("aten.norm" in line for line in logs), logs
    assert norm_fast.BODY_COUNT[0] == n + 1
    _same(r, torch.norm(x, 2, 1))


def test_a_kernel_registered_over_norm_is_called():
    x = torch.randn(3, 4, requires_grad=True)
    seen = []
    lib = torch.library.Library("aten", "IMPL")

    def kernel(self, p, dim, keepdim=False):
        seen.append(p)
        return torch.zeros(3)

    lib.impl("norm.ScalarOpt_dim", kernel, "CPU")
    try:
        r = x.norm(2, 1)
        assert seen == [2] and r.abs().sum().item() == 0
    finally:
        lib._destroy()
    assert x.norm(2, 1).abs().sum().item() > 0


def test_gradcheck_through_cosine_similarity():
    x = torch.randn(3, 4, dtype=torch.float64, requires_grad=True)
    y = torch.randn(3, 4, dtype=torch.float64, requires_grad=True)
    assert torch.autograd.gradcheck(torch.nn.functional.cosine_similarity, (x, y))
    assert torch.autograd.gradgradcheck(torch.nn.functional.cosine_similarity, (x, y))
