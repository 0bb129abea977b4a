"""cumsum / cumprod / logcumsumexp binding fast calls (Note [Scan binding fast calls]) against
their bodies: the same bits, shapes and errors; plain calls take the fast route, and dtype=,
out=, bad dims, modes and gradients take the body."""

from __future__ import annotations

import numpy as np
import pytest

import numtorch as torch
from numtorch.ops.reduction import scan_fast
from numtorch.testing._internal.logging_tensor import LoggingTensorMode, capture_logs

from .._fastcall import binding, outcome, same

_CORES = {"cumsum": scan_fast._CUMSUM, "cumprod": scan_fast._CUMPROD, "logcumsumexp": scan_fast._logcumsumexp}


def _inputs(dt):
    rng = np.random.default_rng(0)
    yield rng.standard_normal((2, 3, 4)).astype(dt)
    yield np.array([1.0, np.nan, -np.inf, np.inf, -0.0, 1e30, 3e38, 1e-40], dt)
    yield rng.standard_normal((5, 1, 3)).astype(dt) * 100
    yield np.array(rng.standard_normal(), dt)  # 0-d: the body
    yield np.zeros((2, 0, 3), dt)  # empty: the body


@pytest.mark.parametrize("name", ["cumsum", "cumprod", "logcumsumexp"])
def test_matches_body(name):
    core = _CORES[name]
    ran = 0
    for module in ("torch", "Tensor"):
        body = binding(name, module).body
        fn = getattr(torch, name) if module == "torch" else getattr(torch.Tensor, name)
        for dt in (np.float32, np.float64):
            for a in _inputs(dt):
                x = torch.from_numpy(a)
                for dim in range(-a.ndim - 1, a.ndim + 1):
                    extra = () if name == "logcumsumexp" else (None,)
                    full = (x, dim) + extra + ((None,) if module == "torch" else ())
                    want = outcome(body, *full)
                    r = outcome(fn, x, dim)
                    same(r, want)
                    got = core(*full)
                    if got is not None:
                        ran += 1
                        same(got, want)
    assert ran == 2 * 2 * (6 + 2 + 6)  # in-range dims of the 3-d and 1-d inputs


@pytest.mark.parametrize("name", ["cumsum", "cumprod", "logcumsumexp"])
def test_fast_route_taken_and_others_take_the_body(name, monkeypatch):
    core = _CORES[name]
    x = torch.from_numpy(np.arange(1.0, 13.0, dtype=np.float32).reshape(3, 4))
    seen = []
    real = scan_fast._make  # the fast route's result (the body makes its own elsewhere)
    monkeypatch.setattr(scan_fast, "_make", lambda *a: seen.append(1) or real(*a))
    getattr(torch, name)(x, 1), getattr(x, name)(0)
    assert len(seen) == 2
    seen.clear()
    args = (None,) if name != "logcumsumexp" else ()
    assert core(x.t(), 1, *args) is None if name != "logcumsumexp" else True  # strided: the body
    assert core(x, 1.0, *args) is None and core(x.long(), 1, *args) is None and core(x.half(), 1, *args) is None
    assert core(x, True, *args) is None
    if name != "logcumsumexp":
        assert core(x, 1, torch.float64) is None
        same(getattr(torch, name)(x, 1, dtype=torch.float64), binding(name).body(x, 1, torch.float64, None))
    out = torch.empty(3, 4)
    getattr(torch, name)(x, 1, out=out)
    same(out, getattr(torch, name)(x, 1))
    w = x.double().requires_grad_()
    r = getattr(torch, name)(w, 1)
    assert r.grad_fn is not None
    assert torch.autograd.gradcheck(lambda v: getattr(torch, name)(v, 1), (w,))
    with LoggingTensorMode(), capture_logs() as logs:
        getattr(torch, name)(x, 1)
    assert name in " ".join(logs)
    with torch.autocast("cpu"):
        assert core(x, 1, *args) is None
    seen.clear()
    with torch.no_grad():
        getattr(torch, name)(w, 1)
    assert len(seen) == 1
