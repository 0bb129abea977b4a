"""Note [Pool plans], session 17: fast_nn's pools look their plan up themselves (no closure per
call): a planned call plans once, then runs the stored plan without planning again, and its
result's slots are _make's (a fresh, grad-free, base-less tensor with its own version)."""

from __future__ import annotations

import numpy as np
import pytest

import numtorch as torch
import numtorch.nn.functional as F
from numtorch.ops.nn import fast_nn, pool_plan

from .test_pool_plan_entries import _CALLS, _body, _same


@pytest.mark.parametrize("name", sorted(_CALLS))
def test_second_call_runs_the_stored_plan_without_planning(name, monkeypatch):
    shape, args = _CALLS[name]
    x = torch.from_numpy(np.random.default_rng(3).standard_normal(shape).astype(np.float32))
    fast_nn._PLANS.clear()
    learnt = []
    learn = pool_plan.learn
    monkeypatch.setattr(fast_nn, "_learn", lambda *a: learnt.append(a[1]) or learn(*a))
    ran = []
    execute = pool_plan.execute
    monkeypatch.setattr(fast_nn, "_execute", lambda *a: ran.append(a[1]) or execute(*a))
    want = _body(name)(x, *args)
    for _ in range(3):
        r = getattr(F, name)(x, *args)
        _same(r, want)
        assert type(r) is torch.Tensor and not r.requires_grad and r.grad_fn is None
        assert r._base is None and r._version == 0 and r.device.type == "cpu"
    assert len(learnt) == 1 and ran == learnt * 3  # planned once, run three times


def test_float_arguments_do_not_reach_an_int_plan():
    # 2.0 == 2 and hash alike: the keys' int checks keep 2.0 off the plan of 2 (the body's error)
    x = torch.randn(1, 2, 5, 6)
    fast_nn._PLANS.clear()
    F.avg_pool2d(x, 2)
    F.avg_pool2d(x, 2)
    with pytest.raises(TypeError) as fast:
        F.avg_pool2d(x, 2.0)
    with pytest.raises(TypeError) as body:
        _body("avg_pool2d")(x, 2.0, None, 0, False, True, None)
    assert str(fast.value) == str(body.value)
