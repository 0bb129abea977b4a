"""optim.Optimizer: parameter groups, state dicts, hooks, zero_grad, closures, repr."""

from __future__ import annotations

import copy
import io

import numpy as np
import pytest

import numtorch
from numtorch import nn
from numtorch.optim.optimizer import (
    Optimizer,
    register_optimizer_step_post_hook,
    register_optimizer_step_pre_hook,
    required,
)


def _p(*vals):
    return nn.Parameter(numtorch.tensor(list(vals) if vals else [1.0, 2.0]))


def _with_grad(p, *g):
    p.grad = numtorch.tensor(list(g) if g else [1.0] * p.numel())
    return p


def test_param_groups_get_defaults():
    a, b = _p(), _p()
    opt = numtorch.optim.SGD([{"params": [a]}, {"params": b, "lr": 0.5}], lr=0.1, momentum=0.9)
    assert [g["lr"] for g in opt.param_groups] == [0.1, 0.5]
    assert opt.param_groups[1]["params"] == [b] and opt.param_groups[1]["momentum"] == 0.9
    assert list(opt.param_groups[0]) == [
        "params", "lr", "momentum", "dampening", "weight_decay", "nesterov", "maximize",
        "foreach", "differentiable", "fused",
    ]  # fmt: skip


def test_constructor_and_add_param_group_errors():
    a = _p()
    with pytest.raises(
        TypeError,
        match="^params argument given to the optimizer should be an iterable of Tensors or dicts, but got torch.FloatTensor$",
    ):
        numtorch.optim.SGD(a, lr=0.1)
    with pytest.raises(ValueError, match="^optimizer got an empty parameter list$"):
        numtorch.optim.SGD([], lr=0.1)
    with pytest.raises(
        TypeError, match="optimizer parameters need to be organized in ordered collections"
    ):
        numtorch.optim.SGD([{"params": {a}}], lr=0.1)
    with pytest.raises(
        TypeError, match="^optimizer can only optimize Tensors, but one of the params is int$"
    ):
        numtorch.optim.SGD([1], lr=0.1)
    x = numtorch.ones(2, requires_grad=True)
    with pytest.raises(ValueError, match="^can't optimize a non-leaf Tensor$"):
        numtorch.optim.SGD([x * 2], lr=0.1)
    opt = numtorch.optim.SGD([a], lr=0.1)
    with pytest.raises(
        ValueError, match="^some parameters appear in more than one parameter group$"
    ):
        opt.add_param_group({"params": [a]})
    with pytest.raises(TypeError, match="^param_group must be a dict, but got <class 'list'>$"):
        opt.add_param_group([a])
    with pytest.warns(
        UserWarning, match="optimizer contains a parameter group with duplicate parameters"
    ):
        numtorch.optim.SGD([a, a], lr=0.1)


def test_required_defaults():
    class Needs(Optimizer):
        def __init__(self, params):
            super().__init__(params, {"lr": required})

    with pytest.raises(
        ValueError,
        match="^parameter group didn't specify a value of required optimization parameter lr$",
    ):
        Needs([_p()])
    assert Needs([{"params": [_p()], "lr": 1.0}]).param_groups[0]["lr"] == 1.0
    assert repr(required) == "<required parameter>"


def test_named_parameters_are_accepted():
    net = nn.Sequential(nn.Module())
    net[0].w = _p()
    opt = numtorch.optim.Adam(net.named_parameters())
    assert opt.param_groups[0]["param_names"] == ["0.w"]
    with pytest.raises(ValueError, match="all optimizer param groups should be with/without names"):
        opt.add_param_group({"params": [_p()]})


def test_state_dict_format():
    a, b, c = _with_grad(_p()), _with_grad(_p()), _p()
    opt = numtorch.optim.Adam([{"params": [a, b]}, {"params": [c], "lr": 0.5}])
    opt.step()
    sd = opt.state_dict()
    assert list(sd) == ["state", "param_groups"]
    assert list(sd["state"]) == [0, 1]  # c has no gradient, hence no state
    assert list(sd["state"][0]) == ["step", "exp_avg", "exp_avg_sq"]
    assert [g["params"] for g in sd["param_groups"]] == [[0, 1], [2]]
    assert sd["param_groups"][1]["lr"] == 0.5
    assert sd["param_groups"][0] == {
        "lr": 0.001, "betas": (0.9, 0.999), "eps": 1e-08, "weight_decay": 0, "amsgrad": False,
        "maximize": False, "foreach": None, "capturable": False, "differentiable": False,
        "fused": None, "decoupled_weight_decay": False, "params": [0, 1],
    }  # fmt: skip


def _train(opt, params, steps):
    for _ in range(steps):
        for p in params:
            _with_grad(p, *([0.5] * p.numel()))
        opt.step()


def test_load_state_dict_resumes_identically():
    a1, a2 = _p(1.0, 2.0), _p(1.0, 2.0)
    o1 = numtorch.optim.Adam([a1], lr=0.1)
    _train(o1, [a1], 3)
    a2.data.copy_(a1.data)
    o2 = numtorch.optim.Adam([a2], lr=0.9)
    o2.load_state_dict(copy.deepcopy(o1.state_dict()))
    assert o2.param_groups[0]["lr"] == 0.1 and o2.param_groups[0]["params"] == [a2]
    assert o2.state[a2]["exp_avg"] is not o1.state[a1]["exp_avg"]
    _train(o1, [a1], 2)
    _train(o2, [a2], 2)
    np.testing.assert_array_equal(a1.detach().numpy(), a2.detach().numpy())
    assert float(o2.state[a2]["step"]) == 5.0


def test_load_state_dict_casts_state_to_param_dtype():
    p32 = _with_grad(_p())
    opt = numtorch.optim.SGD([p32], lr=0.1, momentum=0.9)
    opt.step()
    p64 = nn.Parameter(numtorch.ones(2, dtype=numtorch.float64))
    opt64 = numtorch.optim.SGD([p64], lr=0.1, momentum=0.9)
    opt64.load_state_dict(opt.state_dict())
    assert opt64.state[p64]["momentum_buffer"].dtype is numtorch.float64


def test_load_state_dict_errors():
    opt = numtorch.optim.SGD([_p()], lr=0.1)
    other = numtorch.optim.SGD([{"params": [_p()]}, {"params": [_p()]}], lr=0.1)
    with pytest.raises(
        ValueError, match="^loaded state dict has a different number of parameter groups$"
    ):
        opt.load_state_dict(other.state_dict())
    bigger = numtorch.optim.SGD([_p(), _p()], lr=0.1)
    with pytest.raises(
        ValueError,
        match="^loaded state dict contains a parameter group that doesn't match the size of optimizer's group$",
    ):
        opt.load_state_dict(bigger.state_dict())


def test_optimizer_state_dict_round_trips_through_save(tmp_path):
    p = _p()
    opt = numtorch.optim.RMSprop([p], lr=0.1, momentum=0.5, centered=True)
    _train(opt, [p], 2)
    numtorch.save(opt.state_dict(), tmp_path / "opt.pt")
    loaded = numtorch.load(tmp_path / "opt.pt")
    assert loaded["param_groups"] == opt.state_dict()["param_groups"]
    for k, v in opt.state_dict()["state"][0].items():
        np.testing.assert_array_equal(loaded["state"][0][k].numpy(), v.numpy())
    buf = io.BytesIO()
    numtorch.save(opt.state_dict(), buf)
    buf.seek(0)
    q = nn.Parameter(p.detach().clone())
    opt2 = numtorch.optim.RMSprop([q], lr=0.1, momentum=0.5, centered=True)
    opt2.load_state_dict(numtorch.load(buf))
    _train(opt, [p], 1)
    _train(opt2, [q], 1)
    np.testing.assert_array_equal(p.detach().numpy(), q.detach().numpy())


def test_zero_grad():
    p = _with_grad(_p())
    opt = numtorch.optim.SGD([p], lr=0.1)
    opt.zero_grad(set_to_none=False)
    np.testing.assert_array_equal(p.grad.numpy(), [0.0, 0.0])
    opt.zero_grad()
    assert p.grad is None


def test_step_closure_runs_with_grad_enabled():
    p = _p(3.0)
    opt = numtorch.optim.SGD([p], lr=0.1)

    def closure():
        opt.zero_grad()
        assert numtorch.is_grad_enabled()
        loss = (p * p).sum()
        loss.backward()
        return loss

    with numtorch.no_grad():
        loss = opt.step(closure)
    assert float(loss) == 9.0
    np.testing.assert_allclose(p.detach().numpy(), [3.0 - 0.1 * 6.0])


def test_step_hooks_order_and_removal():
    calls = []
    p = _with_grad(_p())
    opt = numtorch.optim.SGD([p], lr=0.1)
    h1 = opt.register_step_pre_hook(lambda o, args, kwargs: calls.append("pre"))
    h2 = opt.register_step_post_hook(lambda o, args, kwargs: calls.append("post"))
    g1 = register_optimizer_step_pre_hook(lambda o, args, kwargs: calls.append("gpre"))
    g2 = register_optimizer_step_post_hook(lambda o, args, kwargs: calls.append("gpost"))
    try:
        opt.step()
    finally:
        g1.remove()
        g2.remove()
    assert calls == ["gpre", "pre", "post", "gpost"]
    h1.remove()
    h2.remove()
    opt.step()
    assert calls == ["gpre", "pre", "post", "gpost"]
    opt.register_step_pre_hook(lambda o, args, kwargs: 3)
    with pytest.raises(
        RuntimeError, match="must return None or a tuple of \\(new_args, new_kwargs\\), but got 3."
    ):
        opt.step()


def test_state_dict_hooks():
    p = _with_grad(_p())
    opt = numtorch.optim.SGD([p], lr=0.1)
    seen = []
    opt.register_state_dict_pre_hook(lambda o: seen.append("pre"))
    opt.register_state_dict_post_hook(lambda o, sd: {**sd, "extra": 1})
    assert opt.state_dict()["extra"] == 1 and seen == ["pre"]
    opt.register_load_state_dict_pre_hook(lambda o, sd: seen.append("lpre"))
    opt.register_load_state_dict_post_hook(lambda o: seen.append("lpost"))
    opt.load_state_dict(opt.state_dict())
    assert seen == ["pre", "pre", "lpre", "lpost"]


def test_repr():
    opt = numtorch.optim.SGD([_p()], lr=0.1)
    assert repr(opt) == (
        "SGD (\nParameter Group 0\n    dampening: 0\n    differentiable: False\n    foreach: None\n"
        "    fused: None\n    lr: 0.1\n    maximize: False\n    momentum: 0\n    nesterov: False\n"
        "    weight_decay: 0\n)"
    )


def test_subclass_step_gets_hooks():
    class Noop(Optimizer):
        def __init__(self, params):
            super().__init__(params, {"lr": 1.0})

        def step(self, closure=None):
            return "stepped"

    opt = Noop([_p()])
    seen = []
    opt.register_step_post_hook(lambda o, a, k: seen.append(1))
    assert opt.step() == "stepped" and seen == [1]
