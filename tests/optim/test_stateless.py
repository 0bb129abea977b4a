"""swap_in_optimizer_params_and_state: steps act on the swapped-in tensors and state; the live
optimizer's params, hyperparameters and state are back afterwards; malformed state is refused."""

from __future__ import annotations

import copy

import pytest

import numtorch
from numtorch.optim import swap_in_optimizer_params_and_state


def _opt():
    p = numtorch.nn.Parameter(numtorch.ones(2))
    opt = numtorch.optim.SGD([p], lr=0.1, momentum=0.9)
    p.grad = numtorch.ones(2)
    opt.step()
    return p, opt


def test_step_acts_on_swapped_in_params_and_state_then_restores():
    p, opt = _opt()
    sd = copy.deepcopy(opt.state_dict())
    sd["param_groups"][0]["lr"] = 1.0
    q = numtorch.nn.Parameter(numtorch.zeros(2))
    q.grad = numtorch.ones(2)
    live_params = opt.param_groups[0]["params"]
    with swap_in_optimizer_params_and_state(opt, {"w": q}, sd):
        assert opt.param_groups[0]["params"][0] is q and opt.param_groups[0]["lr"] == 1.0
        opt.step()
    assert q.tolist() == pytest.approx([-1.9, -1.9])  # buffer 0.9 * 1 + 1, lr 1.0
    assert sd["state"][0]["momentum_buffer"].tolist() == pytest.approx([1.9, 1.9])  # in-place edits propagate
    assert opt.param_groups[0]["params"] is live_params and opt.param_groups[0]["lr"] == 0.1
    assert p.tolist() == pytest.approx([0.9, 0.9])
    assert opt.state[p]["momentum_buffer"].tolist() == pytest.approx([1.0, 1.0])


def test_malformed_state_is_refused():
    p, opt = _opt()
    sd = opt.state_dict()
    fresh = numtorch.optim.SGD([numtorch.nn.Parameter(numtorch.ones(1))])
    with pytest.raises(RuntimeError, match="requires initialized optimizer state"):
        with swap_in_optimizer_params_and_state(fresh, {}, sd):
            pass
    with pytest.raises(RuntimeError, match="different number of parameter groups"):
        with swap_in_optimizer_params_and_state(opt, {"w": p}, {"state": sd["state"], "param_groups": []}):
            pass
    bad = copy.deepcopy(sd)
    bad["param_groups"][0]["extra"] = 1
    with pytest.raises(RuntimeError, match=r"Keys only in swap-in: \['extra'\]"):
        with swap_in_optimizer_params_and_state(opt, {"w": p}, bad):
            pass
