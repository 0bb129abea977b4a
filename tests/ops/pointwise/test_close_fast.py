"""isclose / allclose fast calls (Note [Close fast calls]) against their bodies (at::isclose's
composite): the same booleans, shapes and errors; plain calls take the kernel, and broadcasts,
other dtypes, bad tolerances, modes and gradients take the body."""

from __future__ import annotations

import numpy as np
import pytest

import numtorch as torch
from numtorch.ops.pointwise import close_fast
from numtorch.testing._internal.logging_tensor import LoggingTensorMode, capture_logs

from .._fastcall import binding, outcome, same

_R = 0.0123456789  # off every short binary lattice


def _pairs(dt):
    rng = np.random.default_rng(0)
    a = (rng.standard_normal(400) * 10.0 ** rng.integers(-6, 6, 400)).astype(dt)
    # neighbours of a at the tolerance's edge: relative steps around rtol, absolute around atol
    steps = np.array([1e-5, 1.00001e-5, 0.99999e-5, 2e-5, 1e-8, 1.1e-8, 0, 5e-6], np.float64)
    b = (a.astype(np.float64) * (1 + steps[rng.integers(0, 8, 400)]) + rng.choice([0, 1e-8, -1e-8, 3e-9], 400)).astype(dt)
    yield a, b
    # b = a + d, d a whole number of ulps near the edge r * |b| (rtol r, atol 0): where b * rtol
    # rounds in the dtype or in double (rtol r or float32's r) the answers differ (float32: ~30)
    ia = rng.uniform(1, 1.7, 20000).astype(dt)
    it, bits = (np.int32, 23) if dt == np.float32 else (np.int64, 52)
    k = np.round(_R * ia.astype(np.float64) * 2.0**bits / (1 - _R)).astype(np.int64) + rng.integers(-3, 4, 20000)
    yield ia, (ia.view(it) + k.astype(it)).view(dt)
    specials = np.array([np.nan, np.inf, -np.inf, 0.0, -0.0, 1e-45, 1e-300, 3e38, -3e38, 1.0], np.float64).astype(dt)
    x, y = np.meshgrid(specials, specials)
    yield x.copy(), y.copy()
    yield np.array(1.0, dt), np.array(1.0 + 1e-6, dt)
    yield np.zeros((0, 3), dt), np.zeros((0, 3), dt)


_TOLS = [{}, {"rtol": _R, "atol": 0}, {"rtol": 0, "atol": 0}, {"rtol": 0.0, "atol": 1e-3}, {"rtol": 1e-3, "atol": 0}, {"rtol": 1, "atol": 2},
         {"rtol": 1e-50, "atol": 1e-50}, {"rtol": 1e30, "atol": 1e-8}, {"equal_nan": True},
         {"rtol": 0, "atol": 0, "equal_nan": True}]  # fmt: skip


@pytest.mark.parametrize("name", ["isclose", "allclose"])
@pytest.mark.parametrize("dt", [np.float32, np.float64])
def test_matches_body(name, dt, monkeypatch):
    seen = []
    real = close_fast.call
    monkeypatch.setattr(close_fast, "call", lambda *a: seen.append(a[1]) or real(*a))
    n = 0
    for module in ("torch", "Tensor"):
        body = binding(name, module).body
        fn = getattr(torch, name) if module == "torch" else getattr(torch.Tensor, name)
        for a, b in _pairs(dt):
            x, y = torch.from_numpy(a), torch.from_numpy(b)
            for kw in _TOLS:
                full = (x, y, kw.get("rtol", 1e-05), kw.get("atol", 1e-08), kw.get("equal_nan", False))
                want = outcome(body, *full)
                r = fn(x, y, **kw)
                n += 1
                if name == "allclose":
                    assert r is want
                else:
                    same(r, want)
    assert len(seen) == n  # every call took the kernel


def test_other_calls_take_the_body(monkeypatch):
    seen = []
    real = close_fast.call
    monkeypatch.setattr(close_fast, "call", lambda *a: seen.append(a[1]) or real(*a))
    x = torch.tensor([[1.0, 2.0], [3.0, float("nan")]])
    y = torch.tensor([1.0, 2.00001])
    body = binding("isclose").body
    for args in [(x, y), (x, x.double()), (x.t(), x), (x, x, -1.0, 0.0), (x, x, 1e-5, -1.0), (x, x, float("nan"), 0.0),
                 (x, x, 1e39, 0.0), (x, x, True, 0.0), (x.long(), x.long()), (x.half(), x.half()), (x, x, 1e-5, 1e-8, 1)]:  # fmt: skip
        full = args + (1e-05, 1e-08, False)[len(args) - 2 :]
        want = outcome(body, *full)
        got = outcome(torch.isclose, *args)
        if isinstance(want, tuple):
            assert got == want
        else:
            same(got, want)
        assert outcome(torch.allclose, *args) == outcome(binding("allclose").body, *full)
    assert seen == []
    with LoggingTensorMode(), capture_logs() as logs:
        torch.isclose(x, x)
    assert "isclose" in " ".join(logs) or "eq" in " ".join(logs)
    w = x.clone().requires_grad_()
    torch.isclose(w, x), torch.allclose(w, x)
    assert seen == []
    with torch.no_grad():
        torch.isclose(w, x)
    assert seen == ["isclose_flat"]


def test_equal_matches_body(monkeypatch):
    class Counting(dict):
        gets = 0

        def get(self, k, d=None):
            Counting.gets += 1
            return super().get(k, d)

    monkeypatch.setattr(close_fast, "_EQ_ENTRIES", Counting())
    rng = np.random.default_rng(5)
    calls, fast = [], 0
    for dt in (np.float32, np.float64, np.int32, np.int64, np.bool_):
        for sh in ((3, 4), (7,), (), (2, 0), (2, 3, 4)):
            a = np.asarray((rng.integers(0, 2, sh) if dt is np.bool_ else rng.standard_normal(sh) * 3).astype(dt))
            b = a.copy()
            if a.size:
                b.reshape(-1)[-1] = not b.reshape(-1)[-1] if dt is np.bool_ else b.reshape(-1)[-1] + 1
            calls += [(a, a.copy()), (a, b)]
            fast += 4
    z = np.array([0.0, -0.0, np.nan], np.float32)
    calls += [(z, z.copy()), (z, np.array([-0.0, 0.0, 1.0], np.float32))]
    fast += 4
    big = np.ones(5000, np.float32)
    calls += [(big, big.copy()), (np.ones((3, 4), np.float32), np.ones((4, 3), np.float32)),
              (np.ones(3, np.float32), np.ones(3)), (np.ones((3, 4)).T, np.ones((4, 3))),
              (np.ones(3, np.float16), np.ones(3, np.float16)), (np.ones(3, np.uint8), np.ones(3, np.uint8))]  # fmt: skip
    for module in ("torch", "Tensor"):
        body = binding("equal", module).body
        fn = torch.equal if module == "torch" else torch.Tensor.equal
        for a, b in calls:
            x, y = torch.from_numpy(a), torch.from_numpy(b)
            assert fn(x, y) is body(x, y)
    assert Counting.gets == fast  # every C-contiguous same-dtype kernel-sized pair, both modules
    n = Counting.gets
    with LoggingTensorMode(), capture_logs() as logs:
        torch.equal(x, y)
    assert "equal" in " ".join(logs)
    assert torch.equal(torch.ones(2, requires_grad=True), torch.ones(2)) is True
    assert Counting.gets == n + 1  # no gradient to record: equal has none
